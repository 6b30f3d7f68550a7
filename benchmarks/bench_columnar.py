"""Columnar encoding against the row API: ns per row, per codec and schema (issues 17, 31).

The goal: ``encode_arrow`` at least 10x faster per row than the row API on fixed-width
schemas, at least 4x on schemas with strings, for every built-in codec (each declares a
columnar layout, ``codec.columnar()``), and never slower on any schema; a codec that
declares none (a plugin) takes its row API, which must be no slower than a user's loop over
the columns' ``to_pylist`` (the ``from Arrow`` time). The row API baseline is what a user
would write, ``pa.array([bound.encode(r) for r in rows], pa.binary())``, timed two ways:
with the rows already in Python (``strict``: the goal is checked on this one) and with
their conversion from the same Arrow table included (``from Arrow``: ``to_pylist`` of each
key column and ``zip``). The columnar time is ``encode_arrow(table, schema, codec)``. Every
time is the min of the repeats; the keys are checked equal before anything is timed.

    python3 benchmarks/bench_columnar.py [--rows N] [--repeat R] [--codecs a,b]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# numpy, which pyarrow imports, starts OpenBLAS threads that spin after their work: on two
# cores they took an eighth of a run's samples (perf). Nothing here uses BLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pyarrow as pa

from lexcodecs import KeySchema, get_codec
from lexcodecs._console import show, table
from lexcodecs.columnar import encode_arrow, kernel_available
from lexcodecs.columnar.arrow import _python_values
from lexcodecs.columnar.pieces import declared
from lexcodecs.errors import EncodeError, SchemaError
from lexcodecs.registry import BUILTIN_CODECS

#: a codec without fixed-width int types: the type it writes the same integers as (its rows
#: are shown with the schema it took)
INTS_AS: dict[str, str] = {"ordered-binary": "int", "bytewise": "int", "charwise": "int"}


def _ints_as(text: str, int_type: str) -> str:
    for t in ("uint32", "int64", "int32", "int16"):
        text = text.replace(f":{t}", f":{int_type}")
    return text


#: every built-in codec, in the registry's order
CODECS = list(BUILTIN_CODECS)
#: (label, schema, fixed width: the 10x goal applies)
SCHEMAS = [
    ("2 x int64", "a:int64, b:int64", True),
    ("int32 + float64", "i:int32, x:float64", True),
    ("bool + int16 desc", "flag:bool, s:int16 desc", True),
    ("uint32 + float32", "u:uint32, y:float32", True),
    ("int64 desc, NULLs", "n:int64 desc", True),
    ("string, int64, bytes", "tenant:string, ts:int64, id:bytes", False),
    ("timestamp, string", "when:timestamp, tenant:string", False),
]


def _data(n: int) -> Any:
    rng = random.Random(0)
    return pa.table({
        "a": pa.array([rng.randrange(-2**40, 2**40) for _ in range(n)], pa.int64()),
        "b": pa.array([rng.randrange(0, 2**62) for _ in range(n)], pa.int64()),
        "i": pa.array([rng.randrange(-2**31, 2**31) for _ in range(n)], pa.int32()),
        "x": pa.array([rng.uniform(-1e6, 1e6) for _ in range(n)], pa.float64()),
        "flag": pa.array([rng.random() < 0.5 for _ in range(n)], pa.bool_()),
        "s": pa.array([rng.randrange(-2**15, 2**15) for _ in range(n)], pa.int16()),
        "u": pa.array([rng.randrange(0, 2**32) for _ in range(n)], pa.uint32()),
        "y": pa.array([rng.uniform(-1e3, 1e3) for _ in range(n)], pa.float32()),
        "n": pa.array([None if i % 10 == 0 else rng.randrange(-2**62, 2**62)
                       for i in range(n)], pa.int64()),
        "tenant": pa.array([f"tenant-{i % 97}" for i in range(n)], pa.string()),
        "ts": pa.array([1_700_000_000_000 + 7 * i for i in range(n)], pa.int64()),
        "id": pa.array([i.to_bytes(8, "big") for i in range(n)], pa.binary()),
        "when": pa.array([dt.datetime(2024, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=i)
                          for i in range(n)], pa.timestamp("us", tz="UTC")),
    })


def _best(fns: list[Callable[[], object]], repeat: int) -> list[float]:
    """The min time of each of *fns*, run in turns (so a busy spell hits all of them)."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--codecs", default=",".join(CODECS))
    args = parser.parse_args()
    n = args.rows
    data = _data(n)
    out = []
    worst_fixed, worst_any, worst_fallback = float("inf"), float("inf"), float("inf")
    worst_strings = float("inf")
    for label, text, fixed in SCHEMAS:
        schema = KeySchema.parse(text)

        def python_rows(s: KeySchema = schema) -> list[tuple[Any, ...]]:
            return list(zip(*(_python_values(data.column(f.name), f.type) for f in s.fields)))
        rows = python_rows()
        for name in args.codecs.split(","):
            if name in INTS_AS:  # a codec without fixed-width ints: its integer type
                schema = KeySchema.parse(_ints_as(text, INTS_AS[name]))
            else:
                schema = KeySchema.parse(text)
            try:
                bound = get_codec(name).bind(schema)
                encode = bound.encode
                expected = [encode(r) for r in rows]
            except (SchemaError, EncodeError):
                continue  # the codec has no such field type, or no NULL
            assert encode_arrow(data, schema, name).to_pylist() == expected, (name, text)
            def row_api(e: Callable[[Any], bytes] = encode) -> object:
                return pa.array([e(r) for r in rows], pa.binary())

            def row_api_from_arrow(e: Callable[[Any], bytes] = encode) -> object:
                return pa.array([e(r) for r in python_rows()], pa.binary())

            def columnar_keys(nm: str = name, s: KeySchema = schema) -> object:
                return encode_arrow(data, s, nm)

            strict, converted, columnar = _best([row_api, row_api_from_arrow, columnar_keys],
                                                args.repeat)
            if declared(get_codec(name)) is None:  # the row API, from Arrow
                worst_fallback = min(worst_fallback, converted / columnar)
            else:
                worst_any = min(worst_any, strict / columnar)
                if fixed:
                    worst_fixed = min(worst_fixed, strict / columnar)
                else:
                    worst_strings = min(worst_strings, strict / columnar)
            shown = name if declared(get_codec(name)) else f"{name} (row API)"
            if name in INTS_AS:
                shown += f" (ints as {INTS_AS[name]})"
            out.append([label, shown, f"{strict / n * 1e9:,.0f}", f"{converted / n * 1e9:,.0f}",
                        f"{columnar / n * 1e9:,.1f}", f"{strict / columnar:.1f}x",
                        f"{converted / columnar:.1f}x"])
    kernel = "kernel built" if kernel_available() else "kernel NOT built: row API only"
    show(table(["schema", "codec", "row API ns/row (strict)", "row API ns/row (from Arrow)",
                "columnar ns/row", "speed-up (strict)", "speed-up (from Arrow)"], out,
               title=f"{n:,} rows, min of {args.repeat}, {kernel}"))
    print(f"worst strict speed-up: fixed-width {worst_fixed:.1f}x (goal >= 10x), "
          f"with strings {worst_strings:.1f}x (goal >= 4x), any schema {worst_any:.1f}x "
          f"(goal >= 1x)")
    if worst_fallback != float("inf"):
        print(f"codecs that declare no columnar layout: worst speed-up from Arrow "
              f"{worst_fallback:.2f}x (goal >= 1x: never slower than the row API in a loop)")


if __name__ == "__main__":
    main()
