"""fdb-tuple against fdb.tuple, in one process: encode, decode, schemaless and bound.

Targets (issue 3): encode at least 3x and decode at least 2x faster than ``fdb.tuple`` on
each case with the schemaless API, and faster still through ``bind``. Ratios are
``fdb.tuple time / lexcodecs time`` (> 1: lexcodecs is faster), each the best of several runs
taken in alternation, so a busy machine slows both sides alike.

    python3 benchmarks/bench_fdb_tuple.py [--number N] [--repeat R]
"""

from __future__ import annotations

import argparse
import sys
import timeit
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fdb.tuple

from lexcodecs import KeySchema, get_codec
from lexcodecs._console import show, table

CASES: list[tuple[str, tuple[Any, ...], str]] = [
    ("(42,)", (42,), "n:int"),
    ("6 mixed", ("user", 12345, "name", 3.5, True, b"\x00\x01"),
     "a:string, b:int, c:string, d:float64, e:bool, f:bytes"),
    ("10 mixed", (uuid.UUID("12345678-1234-5678-1234-567812345678"), None, -42,
                  ("nested", 7), "a\x00b", 2.25, False, b"xyz", 2**40, "end"),
     "u:uuid, n:int, neg:int, t:tuple, s:string, f:float64, b:bool, y:bytes, big:int, e:string"),
]


def timed(fns: list[Callable[[], Any]], number: int, repeat: int) -> list[float]:
    """Best ns per call of each function, measured in alternation."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            best[i] = min(best[i], timeit.timeit(fn, number=number) / number * 1e9)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    codec = get_codec("fdb-tuple")
    rows = []
    for label, values, schema_text in CASES:
        bound = codec.bind(KeySchema.parse(schema_text))
        key = fdb.tuple.pack(values)
        assert codec.encode(values) == key == bound.encode(values)
        assert codec.decode(key) == values == bound.decode(key)
        for op, fns in (
            ("encode", [lambda: fdb.tuple.pack(values), lambda: codec.encode(values),
                        lambda: bound.encode(values)]),
            ("decode", [lambda: fdb.tuple.unpack(key), lambda: codec.decode(key),
                        lambda: bound.decode(key)]),
        ):
            ref, plain, fast = timed(fns, args.number, args.repeat)
            rows.append([label, op, f"{ref:,.0f}", f"{plain:,.0f}", f"{ref / plain:.2f}x",
                         f"{fast:,.0f}", f"{ref / fast:.2f}x"])
    show(table(["case", "op", "fdb.tuple ns", "schemaless ns", "ratio", "bound ns", "ratio"],
               rows, caption=f"best of {args.repeat} x {args.number:,} calls"))


if __name__ == "__main__":
    main()
