"""The speed matrix: every codec x field type x order, as a ratio to ``fdb.tuple`` in this run.

Each cell binds the record schema ``s:string, v:T, n:int64`` (every field descending in the
``desc`` rows) and times ``bound.encode`` over the same records as ``fdb.tuple.pack`` of their
fdb-tuple equivalents, then ``bound.decode`` against ``fdb.tuple.unpack``. Ratios are
``fdb time / codec time``: higher is faster. The machine is noisy, so every figure is the
minimum over repeats. Goals (issue 14): encode >= 3x, decode >= 2x in every cell; fdb-tuple
schemaless on 6- and 10-element tuples >= 8x encode and >= 4x decode.

Where fdb.tuple has no element for a type, the baseline packs what fdb users store instead:
a decimal as its string, a timestamp or duration as int64 microseconds. A cell whose format
cannot express the schema or decode the key is marked, not timed.

    python3 benchmarks/matrix.py                 # every codec, the compiled implementation
    python3 benchmarks/matrix.py -c skv -c orderly --impl reference
    python3 benchmarks/matrix.py --markdown      # the table for a note
    python3 benchmarks/matrix.py --check         # exit 1 when a goal is missed
"""

from __future__ import annotations

import argparse
import datetime as dt
import decimal
import gc
import random
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

# the checkout first, as the other benchmarks do (the compiled modules are built in place)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fdb.tuple
from rich.table import Table

from lexcodecs import KeySchema, LexCodecError, NotDecodableError, _impl, get_codec
from lexcodecs._console import show, table
from lexcodecs.registry import BUILTIN_CODECS
from lexcodecs.types import INT_TYPES, WIDE_INT_TYPES, Float32

#: every built-in codec, in the registry's order (a new one gets its rows with no edit here)
CODECS = tuple(BUILTIN_CODECS)
TYPES = ("string", "bytes", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
         "uint32", "uint64", "int", "int128", "uint128", "float32", "float64", "decimal",
         "uuid", "timestamp", "duration", "char", "variant")
ENCODE_GOAL, DECODE_GOAL = 3.0, 2.0
SCHEMALESS_GOALS = (8.0, 4.0)
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def value(rng: random.Random, field_type: str, int_range: tuple[int, int] | None = None
          ) -> Any:
    """A typical (not awkward) value of *field_type* (an ``int`` within *int_range*, the
    codec's: a JavaScript number holds 2**53 at most)."""
    if field_type == "string":
        return f"user-{rng.randint(0, 10**6)}"
    if field_type == "bytes":
        return rng.randbytes(rng.randint(8, 16))
    if field_type == "bool":
        return rng.random() < 0.5
    if field_type in INT_TYPES or field_type in WIDE_INT_TYPES:
        cls = INT_TYPES.get(field_type) or WIDE_INT_TYPES[field_type]
        return rng.randint(cls.min, cls.max)
    if field_type == "char":
        return chr(rng.randint(0x20, 0x2FF))
    if field_type == "variant":
        return rng.randint(0, 255)
    if field_type == "int":
        lo, hi = int_range or (-(2**62), 2**62)
        return rng.randint(max(lo, -(2**62)), min(hi, 2**62))
    if field_type == "float32":
        return Float32(rng.uniform(-1e6, 1e6))
    if field_type == "float64":
        return rng.uniform(-1e9, 1e9)
    if field_type == "decimal":
        return decimal.Decimal(rng.randint(-(10**9), 10**9)).scaleb(-2)
    if field_type == "uuid":
        return uuid.UUID(int=rng.getrandbits(128))
    if field_type == "timestamp":
        return EPOCH + dt.timedelta(microseconds=rng.randint(0, 2**52))
    if field_type == "duration":
        return dt.timedelta(microseconds=rng.randint(-(2**40), 2**40))
    raise ValueError(field_type)


def fdb_equivalent(v: Any) -> Any:
    """What an fdb.tuple user stores for *v*."""
    if type(v) is Float32:
        return fdb.tuple.SingleFloat(float(v))
    if type(v) is decimal.Decimal:
        return str(v)
    if type(v) is dt.datetime:
        return (v - EPOCH) // dt.timedelta(microseconds=1)
    if type(v) is dt.timedelta:
        return v // dt.timedelta(microseconds=1)
    return v


def best(fn: Callable[[], object], repeats: int) -> float:
    """The fastest of *repeats* runs of *fn*, in seconds (the collector off while timing)."""
    times = []
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeats):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
    finally:
        if enabled:
            gc.enable()
    return min(times)


def loop(fn: Callable[[Any], object], items: Sequence[Any]) -> Callable[[], None]:
    def run() -> None:
        for item in items:
            fn(item)
    return run


#: codecs whose bytes field holds no 00 under a schema: ordered-binary's raw bytes end at
#: one (a declared anomaly), so its bytes cells draw values without it
NO_NUL_BYTES: Final = frozenset({"ordered-binary"})


def cell(codec_name: str, field_type: str, desc: bool, n: int, repeats: int
         ) -> dict[str, Any]:
    order = " desc" if desc else ""
    codec = get_codec(codec_name)
    # the record's last field: int64, or int where the codec has none (the JS formats)
    n_type = "int64" if "int64" in codec.capabilities.field_types else "int"
    schema = KeySchema.parse(f"s:string{order}, v:{field_type}{order}, n:{n_type}{order}")
    row: dict[str, Any] = {"codec": codec_name, "type": field_type,
                           "order": "desc" if desc else "asc"}
    try:
        bound = codec.bind(schema)
    except LexCodecError as exc:
        row["skip"] = f"cannot express: {exc.reason}"
        return row
    rng = random.Random(f"{codec_name}/{field_type}")
    span = codec.capabilities.int_range
    records = [(value(rng, "string"), value(rng, field_type, span), value(rng, n_type, span))
               for _ in range(n)]
    if codec_name in NO_NUL_BYTES and field_type == "bytes":
        records = [(s, v.replace(b"\x00", b"\x01"), i) for s, v, i in records]
    fdb_records = [tuple(fdb_equivalent(v) for v in r) for r in records]
    keys = [bound.encode(r) for r in records]
    fdb_keys = [fdb.tuple.pack(r) for r in fdb_records]
    row["compiled"] = type(bound).__module__.endswith("._compiled")
    fdb_enc = best(loop(fdb.tuple.pack, fdb_records), repeats)
    enc = best(loop(bound.encode, records), repeats)
    row["encode"] = fdb_enc / enc
    row["encode_ns"] = enc / n * 1e9
    try:
        bound.decode(keys[0])
    except NotDecodableError as exc:
        row["decode_skip"] = exc.reason
        return row
    fdb_dec = best(loop(fdb.tuple.unpack, fdb_keys), repeats)
    dec = best(loop(bound.decode, keys), repeats)
    row["decode"] = fdb_dec / dec
    row["decode_ns"] = dec / n * 1e9
    return row


def schemaless(width: int, n: int, repeats: int) -> dict[str, Any]:
    """fdb-tuple without a schema on *width*-element tuples of mixed types."""
    rng = random.Random(width)
    kinds = ["string", "int64", "float64", "bytes", "bool", "uuid"]
    records = [tuple(value(rng, kinds[i % len(kinds)]) for i in range(width))
               for _ in range(n)]
    codec = get_codec("fdb-tuple")
    keys = [codec.encode(r) for r in records]
    row: dict[str, Any] = {"codec": "fdb-tuple", "type": f"schemaless {width}-tuple",
                           "order": "asc"}
    row["encode"] = best(loop(fdb.tuple.pack, records), repeats) / \
        best(loop(codec.encode, records), repeats)
    row["decode"] = best(loop(fdb.tuple.unpack, keys), repeats) / \
        best(loop(codec.decode, keys), repeats)
    return row


def rows(codecs: Sequence[str], n: int, repeats: int) -> list[dict[str, Any]]:
    out = []
    for name in codecs:
        caps = get_codec(name).capabilities
        for field_type in TYPES:
            if field_type not in caps.field_types:
                continue
            for desc in (False, True) if caps.descending else (False,):
                out.append(cell(name, field_type, desc, n, repeats))
        if name == "fdb-tuple":
            out.extend(schemaless(w, n, repeats) for w in (6, 10))
    return out


def misses(row: dict[str, Any]) -> list[str]:
    enc_goal, dec_goal = SCHEMALESS_GOALS if row["type"].startswith("schemaless") else \
        (ENCODE_GOAL, DECODE_GOAL)
    out = []
    if "encode" in row and row["encode"] < enc_goal:
        out.append(f"encode < {enc_goal:g}x")
    if "decode" in row and row["decode"] < dec_goal:
        out.append(f"decode < {dec_goal:g}x")
    return out


COLUMNS = ("codec", "type", "order", "encode", "decode", "note")


def cells(matrix: list[dict[str, Any]]) -> list[list[str]]:
    """One line of text cells per row: ratios, or why a cell was not timed."""
    out = []
    for r in matrix:
        note = r.get("skip") or r.get("decode_skip") or ", ".join(misses(r))
        if "encode" in r and not r.get("compiled", True):
            note = ("reference path; " + note).rstrip("; ")
        enc = f"{r['encode']:.1f}x" if "encode" in r else "-"
        dec = f"{r['decode']:.1f}x" if "decode" in r else ("n/d" if "decode_skip" in r
                                                            else "-")
        out.append([r["codec"], r["type"], r["order"], enc, dec, note])
    return out


def markdown(matrix: list[dict[str, Any]]) -> str:
    """The matrix as a markdown table, to paste in a note."""
    out = ["| " + " | ".join(COLUMNS) + " |", "|---|---|---|---:|---:|---|"]
    out += ["| " + " | ".join(line) + " |" for line in cells(matrix)]
    return "\n".join(out)


def text_table(matrix: list[dict[str, Any]], repeats: int) -> Table:
    """The matrix for a terminal, in lexcodecs._console's house style."""
    return table(COLUMNS, cells(matrix), title="speed against fdb.tuple (higher is faster)",
                 justify=("left", "left", "left", "right", "right", "left"),
                 caption=f"fdb.tuple time / codec time, each the best of {repeats} runs")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-c", "--codec", action="append", choices=CODECS,
                        help="only this codec (repeatable)")
    parser.add_argument("--impl", choices=_impl.IMPLEMENTATIONS, default="compiled")
    parser.add_argument("-n", type=int, default=2000, help="records per cell")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    args = parser.parse_args(argv)
    with _impl.use(args.impl):
        matrix = rows(args.codec or CODECS, args.n, args.repeats)
    if args.markdown:
        print(markdown(matrix))
    else:
        show(text_table(matrix, args.repeats))
    missed = [r for r in matrix if misses(r)]
    timed = [r for r in matrix if "encode" in r]
    print(f"\n{len(timed)} cells timed, {len(missed)} below a goal "
          f"(encode >= {ENCODE_GOAL:g}x, decode >= {DECODE_GOAL:g}x); implementation: "
          f"{args.impl}", file=sys.stderr)
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
