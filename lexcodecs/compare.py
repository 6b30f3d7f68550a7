"""Comparing codecs on one schema and one set of records, for choosing a key format.

Theory of operation: every codec (plugins included) is asked to bind the schema; one that
cannot says why. Each one that can encodes every record (a value it refuses is counted, with
an example), and then its claims are measured rather than read:

* the keys go into a real sorted store -- an SQLite ``WITHOUT ROWID`` table with a BLOB
  primary key (the default), an LMDB database, or a Python sort (``memory``) -- and come back
  through the store's own ordered scan;
* that order is compared with the natural order of the values (:mod:`lexcodecs.model`, under
  the codec's declared float policy): the number of pairs in the wrong order, counted exactly
  with a merge sort, and the smallest adjacent counterexample; a disagreement that one of the
  codec's declared anomalies explains is reported under the anomaly's name;
* round trip (decode gives the values back), injectivity (different values, one key), key
  sizes, and the encode and decode time per key of the bound codec.

Records are generated from the schema with the awkward values keys go wrong on (empty strings,
NUL bytes, -0.0, NaN, integers at their limits, NULLs, values that are prefixes of others),
drawn from small pools so that many records tie on their first fields; or they are given.
"""

from __future__ import annotations

import datetime as dt
import decimal
import itertools
import math
import random
import sqlite3
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

import attrs

from .codec import Codec
from .errors import LexCodecError, NotDecodableError
from .model import ModelError, key_function, model_equal
from .registry import available_codecs, get_codec
from .schema import KeySchema
from .types import INT_TYPES, Float32

__all__ = [
    "DEFAULT_SCHEMA",
    "STORES",
    "CodecResult",
    "Comparison",
    "compare",
    "generate_records",
    "records_from_json",
]

#: the schema ``lexcodecs compare`` uses when none is given: a tenant, a time sorted newest
#: first, an id, and a score -- the shape of many real keys, in the types most formats have
DEFAULT_SCHEMA: Final = "tenant:string, ts:int64 desc, id:bytes, score:float64"
STORES: Final = ("sqlite", "lmdb", "memory")

# -- records --------------------------------------------------------------------------------

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

    >>> len(generate_records("a:string, b:int64", 5))
    5
    """
    schema = KeySchema.coerce(schema)
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


#: typed JSON values of a records file: {"bytes": hex}, {"decimal": "1.50"}, ...
_TYPED: Final[dict[str, Callable[[Any], Any]]] = {
    "bytes": bytes.fromhex,
    "decimal": decimal.Decimal,
    "uuid": uuid.UUID,
    "float": float,  # "nan", "-inf", "-0.0" and friends
    "timestamp": dt.datetime.fromisoformat,
    "duration_us": lambda us: dt.timedelta(microseconds=int(us)),
}


def _json_value(raw: Any, field_type: str) -> Any:
    if isinstance(raw, dict):
        if len(raw) != 1 or next(iter(raw)) not in _TYPED:
            raise ValueError(f"a typed value is one of {sorted(_TYPED)} as {{type: value}}, "
                             f"got {raw!r}")
        (kind, inner), = raw.items()
        value = _TYPED[kind](inner)
    else:
        value = raw
    # numbers follow the field: 5 in a float64 field is 5.0, in a decimal field Decimal(5)
    if field_type in ("float64", "float32") and type(value) is int:
        value = float(value)
    if field_type == "float32" and isinstance(value, float):
        value = Float32(value)
    if field_type == "decimal" and isinstance(value, (int, float)) and type(value) is not bool:
        value = decimal.Decimal(str(value))
    return value


def records_from_json(lines: Iterable[str], schema: KeySchema | str) -> list[tuple[Any, ...]]:
    """Records from JSON Lines: one array per line, a value per field (``null`` is NULL).

    Plain JSON covers strings, numbers, booleans and NULL; other values are objects with one
    key: ``{"bytes": "00ff"}``, ``{"decimal": "1.50"}``, ``{"uuid": "..."}``, ``{"float":
    "nan"}``, ``{"timestamp": "2024-01-01T00:00:00+00:00"}``, ``{"duration_us": 5}``.

    >>> records_from_json(['["a", 1, {"bytes": "00ff"}]'], "s:string, n:int64, b:bytes")
    [('a', 1, b'\\x00\\xff')]
    """
    import json

    schema = KeySchema.coerce(schema)
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if not isinstance(row, list) or len(row) != len(schema):
                raise ValueError(f"expected a JSON array of {len(schema)} values")
            out.append(tuple(None if v is None else _json_value(v, f.type)
                             for v, f in zip(row, schema.fields)))
        except (ValueError, TypeError, decimal.InvalidOperation) as exc:
            raise LexCodecError(f"records line {number}: {exc}") from None
    return out


# -- results --------------------------------------------------------------------------------


@attrs.define
class CodecResult:
    """What one codec did with the records (``expressible=False``: only ``reason`` is set)."""

    codec: str
    expressible: bool
    reason: str | None = None
    notes: str = ""
    records: int = 0
    refused: int = 0
    refused_example: str | None = None
    key_bytes_mean: float | None = None
    key_bytes_max: int | None = None
    encode_ns: float | None = None
    decode_ns: float | None = None
    round_trip_failures: int | None = None
    #: round-trip failures no declared anomaly explains
    round_trip_unexplained: int = 0
    round_trip_example: str | None = None
    collisions: int = 0
    #: collisions no declared anomaly explains
    collisions_unexplained: int = 0
    collision_example: str | None = None
    order_pairs_wrong: int = 0
    #: adjacent disagreements in store order, by the declared anomaly that explains them
    order_explained: dict[str, int] = attrs.field(factory=dict)
    #: adjacent disagreements no declared anomaly explains: a codec bug, or a missing claim
    order_unexplained: int = 0
    order_example: str | None = None
    store: str = "sqlite"

    @property
    def agrees(self) -> bool:
        return self.expressible and not self.order_pairs_wrong and not self.collisions and \
            not self.round_trip_failures

    def to_dict(self) -> dict[str, Any]:
        return attrs.asdict(self)


@attrs.define
class Comparison:
    """Every codec's result on one schema and one set of records."""

    schema: str
    records: int
    store: str
    results: list[CodecResult]

    def to_dict(self) -> dict[str, Any]:
        return {"schema": self.schema, "records": self.records, "store": self.store,
                "results": [r.to_dict() for r in self.results]}

    def table(self) -> str:
        """A readable table, one row per codec, then the counterexamples."""
        head = ("codec", "ok", "refused", "bytes avg/max", "enc ns", "dec ns", "round trip",
                "collisions", "wrong pairs")
        rows = []
        for r in self.results:
            if not r.expressible:
                rows.append((r.codec, "no", "-", "-", "-", "-", "-", "-", "-"))
                continue
            rows.append((
                r.codec, "yes" if r.agrees else "DIFF", str(r.refused),
                f"{r.key_bytes_mean:.1f}/{r.key_bytes_max}" if r.key_bytes_mean is not None
                else "-",
                f"{r.encode_ns:,.0f}" if r.encode_ns is not None else "-",
                f"{r.decode_ns:,.0f}" if r.decode_ns is not None else "-",
                "n/a" if r.round_trip_failures is None else
                ("ok" if not r.round_trip_failures else f"{r.round_trip_failures} fail"),
                str(r.collisions), str(r.order_pairs_wrong)))
        widths = [max(len(str(x[i])) for x in (head, *rows)) for i in range(len(head))]
        lines = [f"schema: {self.schema}    records: {self.records}    store: {self.store}",
                 "  ".join(h.ljust(w) for h, w in zip(head, widths)),
                 "  ".join("-" * w for w in widths)]
        lines += ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)) for row in rows]
        details = []
        for r in self.results:
            if not r.expressible:
                details.append(f"{r.codec}: cannot express the schema: {r.reason}")
                continue
            if r.refused:
                details.append(f"{r.codec}: refused {r.refused} record(s), e.g. "
                               f"{r.refused_example}")
            if r.round_trip_failures:
                details.append(f"{r.codec}: round trip: {r.round_trip_example}")
            if r.collisions:
                details.append(f"{r.codec}: collision: {r.collision_example}")
            if r.order_pairs_wrong:
                explained = ", ".join(f"{name} ({n})" for name, n in r.order_explained.items())
                details.append(f"{r.codec}: order: {r.order_example}"
                               + (f"; declared anomalies seen: {explained}" if explained
                                  else "")
                               + (f"; {r.order_unexplained} adjacent pair(s) NOT explained "
                                  "by a declared anomaly" if r.order_unexplained else ""))
        if details:
            lines += ["", *details]
        return "\n".join(lines)


# -- stores ---------------------------------------------------------------------------------


def _order_sqlite(keys: Sequence[bytes]) -> list[int]:
    db = sqlite3.connect(":memory:")
    try:
        db.execute("CREATE TABLE k (key BLOB NOT NULL, idx INTEGER NOT NULL, "
                   "PRIMARY KEY (key, idx)) WITHOUT ROWID")
        db.executemany("INSERT INTO k VALUES (?, ?)", ((k, i) for i, k in enumerate(keys)))
        return [i for (i,) in db.execute("SELECT idx FROM k ORDER BY key, idx")]
    finally:
        db.close()


def _order_lmdb(keys: Sequence[bytes]) -> list[int]:
    try:
        import lmdb
    except ImportError:
        raise LexCodecError("the lmdb store needs the lmdb package: "
                            "pip install 'lexcodecs[lmdb]'") from None
    with tempfile.TemporaryDirectory(prefix="lexcodecs-compare-") as path:
        size = 1 << 20
        size = max(size, 8 * sum(len(k) + 64 for k in keys))
        env = lmdb.open(path, map_size=size, max_dbs=1)
        try:
            db = env.open_db(b"keys", dupsort=True)
            with env.begin(write=True, db=db) as txn:
                for i, k in enumerate(keys):
                    if not k or len(k) > env.max_key_size():
                        raise LexCodecError(f"LMDB holds keys of 1..{env.max_key_size()} "
                                            f"bytes; this codec wrote one of {len(k)}")
                    txn.put(k, i.to_bytes(8, "big"), dupdata=True)
            with env.begin(db=db) as txn:
                return [int.from_bytes(v, "big") for _, v in txn.cursor()]
        finally:
            env.close()


def _order_memory(keys: Sequence[bytes]) -> list[int]:
    return sorted(range(len(keys)), key=keys.__getitem__)


#: the key lengths a store holds (LMDB: 1..511 bytes with its default build)
_KEY_LENGTHS: Final[dict[str, tuple[int, int | None]]] = {"lmdb": (1, 511)}

_ORDERERS: Final[dict[str, Callable[[Sequence[bytes]], list[int]]]] = {
    "sqlite": _order_sqlite, "lmdb": _order_lmdb, "memory": _order_memory,
}


def _inversions(ranks: list[int]) -> int:
    """Pairs i < j with ranks[i] > ranks[j] (ties are not inversions), by merge sort."""
    def sort(seq: list[int]) -> tuple[list[int], int]:
        if len(seq) <= 1:
            return seq, 0
        mid = len(seq) // 2
        left, a = sort(seq[:mid])
        right, b = sort(seq[mid:])
        merged, count, i, j = [], a + b, 0, 0
        while i < len(left) and j < len(right):
            if right[j] < left[i]:
                merged.append(right[j])
                count += len(left) - i
                j += 1
            else:
                merged.append(left[i])
                i += 1
        merged += left[i:]
        merged += right[j:]
        return merged, count
    return sort(ranks)[1]


# -- the comparison -------------------------------------------------------------------------


def _short(values: Any, limit: int = 120) -> str:
    text = repr(values)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _measure(codec: Codec, schema: KeySchema, records: Sequence[tuple[Any, ...]],
             store: str) -> CodecResult:
    result = CodecResult(codec.name, True, notes=codec.capabilities.notes, store=store)
    try:
        bound = codec.bind(schema)
    except LexCodecError as exc:
        return CodecResult(codec.name, False, reason=exc.reason if hasattr(exc, "reason")
                           else str(exc), notes=codec.capabilities.notes, store=store)
    policy = codec.capabilities.float_policy
    order_schema = getattr(bound, "order_schema", schema)
    natural = key_function(order_schema, policy)
    kept: list[tuple[Any, ...]] = []
    keys: list[bytes] = []
    lo, hi = _KEY_LENGTHS.get(store, (0, None))
    for values in records:
        try:
            key = bound.encode(values)
            natural(values)
            if len(key) < lo or (hi is not None and len(key) > hi):
                raise LexCodecError(f"the {store} store holds keys of {lo}..{hi} bytes; this "
                                    f"one has {len(key)}", codec=codec.name)
        except (LexCodecError, ModelError) as exc:
            result.refused += 1
            if result.refused_example is None:
                result.refused_example = f"{_short(values)}: {exc}"
            continue
        kept.append(values)
        keys.append(key)
    result.records = len(kept)
    if not kept:
        return result
    result.key_bytes_mean = sum(map(len, keys)) / len(keys)
    result.key_bytes_max = max(map(len, keys))
    started = time.perf_counter()
    for values in kept:
        bound.encode(values)
    result.encode_ns = (time.perf_counter() - started) / len(kept) * 1e9
    _round_trip(bound, schema, kept, keys, policy, result)
    _order(codec, schema, order_schema, kept, keys, policy, store, result)
    return result


def _round_trip(bound: Any, schema: KeySchema, kept: Sequence[tuple[Any, ...]],
                keys: Sequence[bytes], policy: Any, result: CodecResult) -> None:
    try:
        bound.decode(keys[0])
    except NotDecodableError:
        return  # the format does not decode (this schema): round trip is n/a
    except LexCodecError:
        pass
    failures = 0
    caps = bound.codec.capabilities if hasattr(bound, "codec") else None
    started = time.perf_counter()
    for values, key in zip(kept, keys):
        try:
            back = bound.decode(key)
        except LexCodecError as exc:
            failures += 1
            if caps is None or not caps.explained(("round-trip",), schema, values, ()):
                result.round_trip_unexplained += 1
            if result.round_trip_example is None:
                result.round_trip_example = f"{_short(values)} does not decode: {exc}"
            continue
        if not model_equal(values, back, schema, policy):
            failures += 1
            if caps is None or not caps.explained(("round-trip",), schema, values, back):
                result.round_trip_unexplained += 1
            if result.round_trip_example is None:
                result.round_trip_example = f"{_short(values)} -> {_short(back)}"
    result.decode_ns = (time.perf_counter() - started) / len(kept) * 1e9
    result.round_trip_failures = failures


def _order(codec: Codec, schema: KeySchema, order_schema: KeySchema,
           kept: Sequence[tuple[Any, ...]], keys: Sequence[bytes], policy: Any, store: str,
           result: CodecResult) -> None:
    natural = key_function(order_schema, policy)
    models = [natural(v) for v in kept]
    # dense ranks of the natural order: equal values share a rank
    by_model = sorted(range(len(kept)), key=models.__getitem__)
    rank = [0] * len(kept)
    for pos in range(1, len(by_model)):
        i, prev = by_model[pos], by_model[pos - 1]
        rank[i] = rank[prev] + (models[i] != models[prev])
    # collisions: one key, different values
    seen: dict[bytes, int] = {}
    for i, key in enumerate(keys):
        j = seen.setdefault(key, i)
        if j != i and models[j] != models[i]:
            result.collisions += 1
            caps = codec.capabilities
            if not (caps.explained(("collision",), schema, kept[j], kept[i]) or
                    caps.explained(("collision",), schema, kept[i], kept[j])):
                result.collisions_unexplained += 1
            if result.collision_example is None:
                result.collision_example = (f"{_short(kept[j])} and {_short(kept[i])} both "
                                            f"have the key {key.hex(' ')}")
    order = _ORDERERS[store](keys)
    ranks = [rank[i] for i in order]
    result.order_pairs_wrong = _inversions(ranks)
    if not result.order_pairs_wrong:
        return
    caps = codec.capabilities
    best: tuple[int, str] | None = None
    for a, b in itertools.pairwise(order):
        if rank[a] <= rank[b]:
            continue
        # b's values are smaller, yet a's key came first
        anomaly = caps.explained(("order",), schema, kept[b], kept[a])
        if anomaly is not None:
            result.order_explained[anomaly.name] = result.order_explained.get(
                anomaly.name, 0) + 1
        else:
            result.order_unexplained += 1
        text = (f"{_short(kept[b])} < {_short(kept[a])} but the keys sort the other way: "
                f"{keys[a].hex(' ')} < {keys[b].hex(' ')}"
                + (f" (declared anomaly {anomaly.name!r})" if anomaly is not None else ""))
        size = len(repr(kept[a])) + len(repr(kept[b]))
        if best is None or size < best[0]:
            best = (size, text)
    result.order_example = best[1] if best is not None else None


def compare(schema: KeySchema | str | None = None,
            records: Iterable[Sequence[Any]] | None = None, *, n: int = 1000,
            codecs: Iterable[Codec | str] | None = None, store: str = "sqlite", seed: int = 0,
            progress: Callable[[int], None] | None = None) -> Comparison:
    """Every codec (default: every available one, plugins included) on *schema* and
    *records* (default: *n* generated ones).

    >>> report = compare("name:string, n:int64", n=50, codecs=["skv"], store="memory")
    >>> report.results[0].codec, report.results[0].order_pairs_wrong
    ('skv', 0)
    """
    if store not in _ORDERERS:
        raise LexCodecError(f"unknown store {store!r}", expected=" or ".join(STORES))
    schema = KeySchema.coerce(schema if schema is not None else DEFAULT_SCHEMA)
    rows = ([tuple(r) for r in records] if records is not None
            else generate_records(schema, n, seed=seed))
    chosen = [get_codec(c) if isinstance(c, str) else c
              for c in (codecs if codecs is not None else available_codecs())]
    results = []
    for done, codec in enumerate(chosen, 1):
        results.append(_measure(codec, schema, rows, store))
        if progress is not None:
            progress(done)
    return Comparison(str(schema), len(rows), store, results)
