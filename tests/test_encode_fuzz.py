"""Encode-side fuzzing (issue 15, item 3): whatever a caller passes, ``encode`` either
succeeds or refuses with a lexcodecs error -- :class:`~lexcodecs.errors.EncodeError` (and
its :class:`~lexcodecs.errors.UnsupportedTypeError`) or
:class:`~lexcodecs.errors.SchemaError` -- and nothing else; a huge value is refused (or
written) in time linear in its size.

For every built-in codec and every field type it declares, on both implementations (the
``impl`` fixture): the shared odd values of :mod:`oddities` exhaustively, then hypothesis over
arbitrary Python objects, nested containers, bool in int fields, IntEnum, bytearray and
memoryview, NaN, huge and tiny numbers. The decode side is fuzzed in the
``test_*_differential.py`` files.
"""

from __future__ import annotations

import datetime as dt
import decimal
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oddities import (
    Colour,
    Liar,
    MyBytes,
    MyDecimal,
    MyFloat,
    MyInt,
    MyStr,
    released_view,
    tampered_float32,
    tampered_uuid,
    unset_float32,
    unset_uuid,
    uuid_without_int,
)

from lexcodecs import Versionstamp, get_codec
from lexcodecs.errors import EncodeError, SchemaError
from lexcodecs.registry import BUILTIN_CODECS
from lexcodecs.schema import KeySchema
from lexcodecs.types import END, INT_TYPES, Float32

pytestmark = pytest.mark.usefixtures("impl")

CODECS = tuple(sorted(BUILTIN_CODECS))  # a plugin's strictness is its own tests' business


def _schemas(name: str) -> list[KeySchema]:
    caps = get_codec(name).capabilities
    out = []
    for t in sorted(caps.field_types):
        out.append(KeySchema.parse(f"v:{t}"))
        if caps.descending:
            out.append(KeySchema.parse(f"v:{t} desc"))
    return out


SCHEMAS = {name: _schemas(name) for name in CODECS}


def _odd_values() -> list[Any]:
    """Values a careless or hostile caller passes; built afresh (some are mutable)."""
    return [
        None, True, False, 0, -1, 1, 2**63, -(2**63) - 1, 2**64, 10**5000, -(10**5000),
        MyInt(5), MyInt(10**100), Colour.RED, Colour.BIG, Colour.HUGE, Liar(),
        "", "a\x00b", "\ud800", MyStr("x"), b"", b"\x00\xff", MyBytes(b"ab"),
        bytearray(b"ab"), memoryview(b"ab"), memoryview(b"abcd")[::2], released_view(),
        memoryview(bytes(8)).cast("d"),
        0.0, -0.0, 1.5, float("nan"), float("inf"), float("-inf"), 5e-324, 1e308,
        MyFloat(2.5), Float32(1.5), Float32(float("nan")), tampered_float32(2**40),
        tampered_float32("x"), tampered_float32(-1), unset_float32(),
        decimal.Decimal("1.5"), decimal.Decimal("NaN"), decimal.Decimal("sNaN"),
        decimal.Decimal("-Infinity"), decimal.Decimal("1E+999999999"),
        decimal.Decimal("1E-999999999"), decimal.Decimal("-0"), MyDecimal("2.5"),
        decimal.Decimal(f"1E+{2**40}"), decimal.Decimal(f"1E-{2**40}"),
        uuid.UUID(int=7), tampered_uuid(-1), tampered_uuid(2**200), tampered_uuid("x"),
        unset_uuid(), uuid_without_int(),
        dt.datetime(2020, 1, 1), dt.datetime(2020, 1, 1, tzinfo=dt.UTC),
        dt.datetime.min, dt.datetime.max, dt.date(2020, 1, 1), dt.timedelta(days=1),
        dt.timedelta.max, dt.timedelta.min,
        Versionstamp(b"\x00" * 10, 1), END,
        (), (1,), [1, "a"], ((),), {1: 2}, {1}, frozenset(), object(), type, int, print,
        complex(1, 2), Ellipsis, NotImplemented,
        *(cls(1) for cls in INT_TYPES.values()), *(cls(cls.max) for cls in INT_TYPES.values()),
        *(cls(cls.min) for cls in INT_TYPES.values()),
    ]


def _check(op: Callable[[], Any], what: Any) -> None:
    try:
        op()
    except (EncodeError, SchemaError) as exc:
        message = str(exc)  # formatting the message must be cheap and bounded too
        assert len(message) < 1000, message[:300]
    except Exception as exc:  # pragma: no cover - the failure being tested for
        raise AssertionError(f"{type(exc).__name__} from {what!r:.200}: {exc!s:.300}") from exc


def _encodes(name: str, schema: KeySchema | None) -> Iterator[tuple[Callable[[Any], Any], str]]:
    codec = get_codec(name)
    if schema is None:
        if codec.capabilities.schemaless:
            yield (lambda v: codec.encode((v,))), "schemaless"
        return
    yield (lambda v: codec.encode((v,), schema)), str(schema)


@pytest.mark.parametrize("name", CODECS)
def test_odd_values_in_every_field_type(name: str) -> None:
    failures = []
    for schema in [None, *SCHEMAS[name]]:
        for encode, label in _encodes(name, schema):
            for value in _odd_values():
                for op in (lambda e=encode, v=value: e(v), lambda e=encode, v=value: e([v, v])):
                    try:
                        _check(op, (name, label, value))
                    except AssertionError as exc:
                        failures.append(str(exc))
    assert not failures, "\n".join(failures)


_leaves = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-(2**70), 2**70),
    st.sampled_from([2**63, -(2**63) - 1, 2**64, 10**400, -(10**400)]),
    st.floats(), st.floats(width=32).map(Float32), st.text(), st.binary(),
    st.binary().map(bytearray), st.binary().map(memoryview),
    st.decimals(allow_nan=True, allow_infinity=True), st.uuids(), st.datetimes(),
    st.datetimes(timezones=st.just(dt.UTC)), st.timedeltas(), st.dates(),
    st.sampled_from([Colour.RED, Colour.HUGE, MyInt(3), MyStr("s"), MyBytes(b"b"),
                     MyFloat(1.0), MyDecimal("1.5"), END, object(), complex(1, 1)]),
    st.builds(Versionstamp, st.binary(min_size=10, max_size=10), st.integers(0, 65535)),
    st.sampled_from(list(INT_TYPES.values())).flatmap(
        lambda cls: st.integers(cls.min, cls.max).map(cls)),
)
_values = st.recursive(_leaves, lambda inner: st.one_of(
    st.tuples(inner), st.lists(inner, max_size=3).map(tuple), st.lists(inner, max_size=3)),
    max_leaves=6)


@pytest.mark.parametrize("name", CODECS)
@settings(max_examples=80)
@given(data=st.data())
def test_arbitrary_values(name: str, data: st.DataObject) -> None:
    schemas: list[KeySchema | None] = [*SCHEMAS[name], None]
    schema = data.draw(st.sampled_from(schemas), label="schema")
    values = data.draw(st.lists(_values, max_size=3), label="values")
    codec = get_codec(name)
    if schema is None:
        if codec.capabilities.schemaless:
            _check(lambda: codec.encode(values), (name, values))
        return
    _check(lambda: codec.encode((values[0] if values else None,), schema), (name, schema))
    _check(lambda: codec.encode(values, schema), (name, schema, values))


def _huge(kind: str, n: int) -> Any:
    """A value of size about *n* (bits of an int, chars of a string...), built in linear time."""
    if kind == "int":
        return (1 << n) - 1
    if kind == "negint":
        return -(1 << n)
    if kind == "decimal":
        return decimal.Decimal("1." + "7" * (n // 4))
    if kind == "decimal-int":
        return decimal.Decimal("9" * (n // 4))
    if kind == "str":
        return "é" * (n // 8)
    if kind == "bytes":
        return b"\x00\xff" * (n // 16)
    if kind == "tuple":
        return (0,) * (n // 64)
    raise AssertionError(kind)


def _elapsed(op: Callable[[], Any]) -> float:
    start = time.thread_time()
    _check(op, "huge")
    return time.thread_time() - start


def _best_times(small: Callable[[], Any], big: Callable[[], Any], rounds: int,
                best: tuple[float, float] = (float("inf"), float("inf"))) -> tuple[float, float]:
    """The least time of each of *small* and *big* over *rounds* more runs, in turns (so
    that a busy spell of the host slows both, not only the one that ran in it)."""
    t_small, t_big = best
    for _ in range(rounds):
        t_small = min(t_small, _elapsed(small))
        t_big = min(t_big, _elapsed(big))
    return t_small, t_big


@pytest.mark.parametrize("unlimited", [False, True], ids=["int-digit-limit", "no-limit"])
@pytest.mark.parametrize("name", CODECS)
def test_huge_values_cost_linear_time(name: str, unlimited: bool) -> None:
    """Each huge value in each field type: 8 times the size may cost at most ~24 times the
    time (quadratic work would cost 64 times), and never more than a couple of seconds."""
    small, big = 100_000, 800_000
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0 if unlimited else old)
    try:
        codec = get_codec(name)
        for schema in [*SCHEMAS[name], None]:
            if schema is None and not codec.capabilities.schemaless:
                continue
            for kind in ("int", "negint", "decimal", "decimal-int", "str", "bytes", "tuple"):
                a, b = _huge(kind, small), _huge(kind, big)

                def encode(v: Any, s: KeySchema | None = schema) -> Any:
                    return codec.encode((v,)) if s is None else codec.encode((v,), s)

                runs = (lambda v=a: encode(v), lambda v=b: encode(v))
                t_small, t_big = _best_times(*runs, rounds=2)
                if t_big > max(0.05, 24 * t_small):  # two more turns before it counts
                    t_small, t_big = _best_times(*runs, rounds=2, best=(t_small, t_big))
                what = (name, str(schema), kind, t_small, t_big)
                assert t_big <= max(0.05, 24 * t_small), what
                assert t_big < 2.0, what
    finally:
        sys.set_int_max_str_digits(old)
