"""The Rust formats' shared field rules (lexcodecs/codecs/_serde.py): Option layers, char."""

from __future__ import annotations

from typing import Any

import pytest

from lexcodecs import KeySchema, Some
from lexcodecs.codecs._serde import char_problem, layers_of, option_tags, option_value
from lexcodecs.errors import EncodeError, UnsupportedTypeError

#: (value, Option layers, (01 tags, value follows))
TAGS: list[tuple[Any, int, tuple[int, bool]]] = [
    (5, 0, (0, True)),
    (5, 1, (1, True)),
    (None, 1, (0, False)),
    (5, 2, (2, True)),
    (None, 2, (0, False)),
    (Some(None), 2, (1, False)),
]


@pytest.mark.parametrize(("value", "layers", "tags"), TAGS)
def test_option_tags_both_ways(value: Any, layers: int, tags: tuple[int, bool]) -> None:
    assert option_tags(value, layers) == tags
    ones, present = tags
    if not present:
        assert option_value(ones) == value


@pytest.mark.parametrize(("value", "layers", "error", "match"), [
    (None, 0, EncodeError, "not nullable"),
    (Some(None), 1, EncodeError, "needs 2 Option layers"),
    (Some(Some(None)), 2, EncodeError, "needs 3 Option layers"),
    (Some(7), 2, UnsupportedTypeError, "Some wraps only None"),
])
def test_option_tags_refuse(value: Any, layers: int, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        option_tags(value, layers)


@pytest.mark.parametrize(("text", "layers"), [
    ("x:int32", 0), ("x:int32 nullable=false", 0), ("x:int32 nullable=true", 1),
    ("x:int32 nullable=2", 2)])
def test_layers_of(text: str, layers: int) -> None:
    assert layers_of(KeySchema.parse(text).fields[0]) == layers


@pytest.mark.parametrize(("value", "problem"), [
    ("a", None), ("\U0010ffff", None), ("\x00", None), ("ab", "one character, not 2"),
    ("", "one character, not 0"), ("\ud800", "a Unicode scalar value, not a surrogate")])
def test_char_problem(value: str, problem: str | None) -> None:
    assert char_problem(value) == problem
