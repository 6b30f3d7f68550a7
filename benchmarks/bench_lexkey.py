"""lexkey against fdb.tuple, in one process: bound encode of the same values.

Target (issue 4): on ``tenant:string, ts:int64, id:uuid, score:float64, flag:bool``, bound
encode at least 3x faster than ``fdb.tuple.pack`` of the same values. Ratios are
``fdb.tuple time / lexcodecs time`` (> 1: lexcodecs is faster), best of several runs taken
in alternation.

    python3 benchmarks/bench_lexkey.py [--number N] [--repeat R]
"""

from __future__ import annotations

import argparse
import sys
import timeit
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fdb.tuple

from lexcodecs import KeySchema, get_codec
from lexcodecs._console import show, table

SCHEMA = "tenant:string, ts:int64, id:uuid, score:float64, flag:bool"
VALUES = ("acme", 1700000000123, uuid.UUID("12345678-1234-5678-1234-567812345678"), 3.25, True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    schema = KeySchema.parse(SCHEMA)
    rows: list[tuple[str, float, float, float]] = []
    for name in ("lexkey", "lexkey-legacy"):
        codec = get_codec(name)
        bound = codec.bind(schema)
        assert bound.decode(bound.encode(VALUES)) == VALUES
        fns = [lambda: fdb.tuple.pack(VALUES), lambda: bound.encode(VALUES),
               lambda: codec.encode(VALUES)]
        best = [float("inf")] * len(fns)
        for _ in range(args.repeat):
            for i, fn in enumerate(fns):
                best[i] = min(best[i], timeit.timeit(fn, number=args.number) / args.number * 1e9)
        rows.append((name, best[0], best[1], best[2]))
    show(table(["codec", "fdb.tuple ns", "bound ns", "ratio", "schemaless ns", "ratio"],
               [[name, f"{ref:,.0f}", f"{bound_ns:,.0f}", f"{ref / bound_ns:.2f}x",
                 f"{plain:,.0f}", f"{ref / plain:.2f}x"] for name, ref, bound_ns, plain in rows],
               caption=f"best of {args.repeat} x {args.number:,} calls"))


if __name__ == "__main__":
    main()
