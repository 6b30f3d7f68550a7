"""The ``--json`` documents of ``list``, ``inspect`` and ``conformance`` (issue 32): each is an
object whose first key is ``format_version``, and nothing in it is a float standing for a
number (``list``'s ``int_range`` was a 309-digit integer, which a JavaScript reader takes as
``-1.7976931348623157e+308``): integers beyond 2**53 are decimal strings, an unbounded range
is ``null``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lexcodecs import available_codecs, get_codec
from lexcodecs.cli import main

SAFE = 2**53


def document(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    """The JSON document *argv* prints, read without accepting a single float."""
    assert main(list(argv)) == 0
    out, err = capsys.readouterr()
    assert err == ""

    def no_float(text: str) -> Any:
        raise AssertionError(f"a float in the document: {text}")

    data = json.loads(out, parse_float=no_float)
    assert isinstance(data, dict)
    assert next(iter(data.items())) == ("format_version", 1)
    return data


def exact(bound: Any) -> int:
    """An ``int_range`` bound as written: an int a double holds, or a decimal string."""
    if isinstance(bound, str):
        value = int(bound)
        assert abs(value) > SAFE
        assert bound == str(value)
        return value
    assert type(bound) is int
    assert abs(bound) <= SAFE
    return bound


def test_list_json_is_an_object_with_exact_ranges(capsys: pytest.CaptureFixture[str]) -> None:
    data = document(capsys, "list", "--json")
    assert list(data) == ["format_version", "codecs"]
    assert [c["name"] for c in data["codecs"]] == list(available_codecs())
    wide = 0
    for entry in data["codecs"]:
        caps = get_codec(entry["name"]).capabilities
        written = entry["capabilities"]["int_range"]
        if caps.int_range is None:
            assert written is None, entry["name"]  # unbounded
        else:
            assert [exact(b) for b in written] == list(caps.int_range), entry["name"]
            wide += isinstance(written[0], str)
    assert wide, "no built-in codec has a range beyond 2**53: the strings went untested"


def test_inspect_json_has_a_format_version(capsys: pytest.CaptureFixture[str]) -> None:
    key = get_codec("fdb-tuple").encode(("a", 2**70))
    data = document(capsys, "inspect", "--json", "-c", "fdb-tuple", key.hex())
    assert list(data)[:3] == ["format_version", "codec", "key"]
    assert data["key"] == key.hex()
