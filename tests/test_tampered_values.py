"""Values with internal state that was tampered with, for every codec (issue 15, item 2).

A ``uuid.UUID`` whose ``int`` slot is not an int (set through ``object.__setattr__``), a
``Float32`` whose ``bits`` disagree with its value, a typed int outside its width, a datetime
whose ``utcoffset`` fails, a Decimal subclass whose methods lie, a Versionstamp with a wrong
slot: every codec that takes the type either refuses the value with ``EncodeError`` or writes
its real meaning, and both implementations do exactly the same (compiled code checks exact
types before it reads any internals). Nothing else may escape: no ``OverflowError``,
``TypeError``, heap bytes in a key.
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from typing import Any

import pytest
from oddities import (
    MyDecimal,
    both,
    tampered_float32,
    tampered_uuid,
    unset_float32,
    unset_uuid,
    uuid_without_int,
)

from lexcodecs import EncodeError, Versionstamp, get_codec
from lexcodecs.registry import BUILTIN_CODECS
from lexcodecs.types import INT_TYPES, Float32


class LyingZone(dt.tzinfo):
    def utcoffset(self, _: dt.datetime | None) -> dt.timedelta:
        raise RuntimeError("no offset")


class LyingDecimal(Decimal):
    def as_tuple(self) -> Any:  # type: ignore[override]
        return (0, (9, 9, 9), 0)

    def __str__(self) -> str:
        return "999"


def typed_out_of_range(field_type: str) -> Any:
    cls = INT_TYPES[field_type]
    return int.__new__(cls, cls.max + 1)


def tampered_stamp() -> Versionstamp:
    v = Versionstamp(b"\x01" * 10, 5)
    object.__setattr__(v, "tr_version", 12345)
    return v


#: field type -> the tampered values of that type
TAMPERED: dict[str, list[Any]] = {
    "uuid": [tampered_uuid("x"), tampered_uuid(2**200), tampered_uuid(-1), tampered_uuid(1.5),
             unset_uuid(), uuid_without_int()],
    "float32": [tampered_float32("x"), tampered_float32(2**200), tampered_float32(-1),
                tampered_float32(0x7FC00000), unset_float32()],
    "decimal": [MyDecimal("1.5"), LyingDecimal("1.5")],
    "timestamp": [dt.datetime(2024, 1, 1, tzinfo=LyingZone())],
    **{t: [typed_out_of_range(t)] for t in INT_TYPES},
}


def cases() -> list[Any]:
    out = []
    for name in sorted(BUILTIN_CODECS):
        caps = get_codec(name).capabilities
        for field_type, values in TAMPERED.items():
            if field_type in caps.field_types:
                out += [pytest.param(name, field_type, i, id=f"{name}-{field_type}-{i}")
                        for i in range(len(values))]
    return out


def real_meanings(value: Any) -> list[Any]:
    """What *value* really is, read from its own data (a Float32 as a binary32, or as the
    plain float it holds where a format has no binary32), or nothing for a value with no
    meaning to write (a tampered UUID, a typed int beyond its width, a datetime without an
    offset)."""
    if isinstance(value, Float32):
        number = float.__float__(value)
        return [Float32(number), number]
    if isinstance(value, Decimal):
        return [Decimal(tuple(Decimal.as_tuple(value)))]
    return []


def check(result: tuple[Any, ...], codec: Any, value: Any, schema: str | None) -> None:
    """*result* (of both implementations) refused *value* with EncodeError, or wrote exactly
    what the value really is."""
    if result[0] == "error":
        assert issubclass(result[1], EncodeError), result
        return
    reals = real_meanings(value)
    if schema is None and type(value) in INT_TYPES.values():
        reals = [int.__int__(value)]  # a format without widths: the number itself
    assert reals, f"{codec.name} wrote a {type(value).__name__} that has no meaning to write"
    keys = []
    for real in reals:
        try:
            keys.append(codec.encode((real,), schema) if schema is not None
                        else codec.encode((real,)))
        except EncodeError:  # a meaning the codec refuses (the plain 0.1 in a float32 field)
            continue
    assert result[1] in keys, (codec.name, type(value).__name__, result[1].hex())


@pytest.mark.parametrize(("name", "field_type", "index"), cases())
def test_tampered_value_is_refused_or_written_alike(name: str, field_type: str,
                                                    index: int) -> None:
    codec = get_codec(name)
    value = TAMPERED[field_type][index]
    schema = f"v:{field_type}"
    check(both(lambda: codec.encode((value,), schema), what=(name, field_type, index)),
          codec, value, schema)


@pytest.mark.parametrize("name", [n for n in sorted(BUILTIN_CODECS)
                                  if get_codec(n).capabilities.schemaless])
def test_tampered_values_without_a_schema(name: str) -> None:
    codec = get_codec(name)
    values = [v for vs in TAMPERED.values() for v in vs]
    if name == "fdb-tuple":
        values.append(tampered_stamp())
    for value in values:
        check(both(lambda v=value: codec.encode((v,)), what=(name, type(value))), codec, value,
              None)


def test_a_uuid_slot_never_reaches_a_key() -> None:
    # the C fast path once wrote heap-pointer bytes for a UUID whose int was not an int
    u = uuid.UUID(int=7)
    object.__setattr__(u, "int", object())
    for name in ("fdb-tuple", "lexkey", "lexkey-legacy"):
        result = both(lambda n=name: get_codec(n).encode((u,), "v:uuid"))
        assert result[0] == "error", (name, result)
        assert issubclass(result[1], EncodeError), (name, result)
