"""Records for a comparison: generated from the schema, or read from JSON Lines.

Theory of operation: generated records are made to hurt -- empty strings, NUL bytes, -0.0,
NaN, integers at their limits, NULLs, values that are prefixes of others -- and each field
draws from a small pool, so that many records tie on their first fields and the later fields
really get compared. Given records come from JSON Lines (:func:`records_from_json`, from
:mod:`lexcodecs.sources.jsonl`), or the other inputs of :mod:`lexcodecs.sources` (CSV,
SQLite, Parquet, keys in a store).
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import random
import uuid
from typing import Any, Final

from ..errors import SchemaError
from ..schema import KeySchema
from ..sources.jsonl import records_from_json
from ..types import INT_TYPES, Float32

__all__ = ["generate_records", "records_from_json"]

_TEXT_POOL: Final = ["", "a", "ab", "a\x00", "a\x00b", "\x00", "b", "é", "\uffff", "acme",
                     "acme-corp", "a b", "\U0001f600"]
_BYTES_POOL: Final = [b"", b"\x00", b"\x00\xff", b"\x01", b"\xff", b"\xff\x00", b"a", b"ab"]
_FLOAT_POOL: Final = [0.0, -0.0, 1.0, -1.0, 0.1, 1e23, -1e-300, 5e-324, 1.7976931348623157e308,
                      math.inf, -math.inf, math.nan]


def _int_pool(lo: int, hi: int) -> list[int]:
    return sorted({lo, lo + 1, -1 if lo < 0 else 0, 0, 1, hi - 1, hi})


def _value(rng: random.Random, field_type: str) -> Any:
    """One value of *field_type*: from the awkward pool half the time, else random."""
    pooled = rng.random() < 0.5
    if field_type == "string":
        if pooled:
            return rng.choice(_TEXT_POOL)
        return "".join(rng.choice("abcxyz\x00 é") for _ in range(rng.randint(0, 8)))
    if field_type == "bytes":
        return rng.choice(_BYTES_POOL) if pooled else rng.randbytes(rng.randint(0, 8))
    if field_type in INT_TYPES:
        cls = INT_TYPES[field_type]
        return rng.choice(_int_pool(cls.min, cls.max)) if pooled else rng.randint(cls.min,
                                                                                 cls.max)
    if field_type == "int":
        return rng.choice([0, -1, 2**64, -(2**64), 10**30]) if pooled else \
            rng.randint(-(2**70), 2**70)
    if field_type == "float64":
        return rng.choice(_FLOAT_POOL) if pooled else rng.uniform(-1e6, 1e6)
    if field_type == "float32":
        return Float32(rng.choice(_FLOAT_POOL[:6]) if pooled else rng.uniform(-1e3, 1e3))
    if field_type == "decimal":
        if pooled:
            return decimal.Decimal(rng.choice(["0", "-0", "1.5", "-1.23", "1E+30", "0.001"]))
        return decimal.Decimal(rng.randint(-(10**12), 10**12)).scaleb(rng.randint(-6, 6))
    if field_type == "bool":
        return rng.random() < 0.5
    if field_type == "uuid":
        return uuid.UUID(int=rng.getrandbits(128))
    if field_type == "timestamp":
        return dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(
            microseconds=rng.randint(-(2**50), 2**50))
    if field_type == "duration":
        return dt.timedelta(microseconds=rng.randint(-(2**40), 2**40))
    raise ValueError(f"no record generator for field type {field_type!r}")


def generate_records(schema: KeySchema | str, n: int, *, seed: int = 0,
                     null_share: float = 0.1) -> list[tuple[Any, ...]]:
    """*n* records of *schema*: awkward values, NULLs, and many ties on leading fields.

    A field type without a generator (``tuple``) is a :class:`~lexcodecs.errors.SchemaError`
    (a ``ValueError``) naming the field.

    >>> len(generate_records("a:string, b:int64", 5))
    5
    """
    schema = KeySchema.coerce(schema)
    for i, f in enumerate(schema.fields):
        if f.type == "tuple":
            raise SchemaError(f"no record generator for field type {f.type!r}", field=i,
                              field_name=f.name, field_type=f.type,
                              expected="records of your own (compare --records and the "
                              "other inputs)")
    rng = random.Random(seed)
    # small pools per field: records share leading values, so later fields get compared
    pools = [[_value(rng, f.type) for _ in range(max(2, int(math.sqrt(n))))]
             for f in schema.fields]
    records = []
    for _ in range(n):
        row: list[Any] = []
        for f, pool in zip(schema.fields, pools):
            if rng.random() < null_share:
                row.append(None)
            elif rng.random() < 0.6:
                row.append(rng.choice(pool))
            else:
                row.append(_value(rng, f.type))
        records.append(tuple(row))
    return records
