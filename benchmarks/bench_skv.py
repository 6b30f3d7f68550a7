"""skv against fdb.tuple, in one process: bound encode and decode of the same values.

Target (issue 5): on ``tenant:string, ts:int64, id:string, flag:bool``, bound encode and
decode at least 2x faster than ``fdb.tuple.pack``/``unpack`` of the same values. Ratios are
``fdb.tuple time / lexcodecs time`` (> 1: lexcodecs is faster), best of several runs taken in
alternation.

    python3 benchmarks/bench_skv.py [--number N] [--repeat R]
"""

from __future__ import annotations

import argparse
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fdb.tuple

from lexcodecs import KeySchema, get_codec
from lexcodecs._console import show, table

SCHEMA = "tenant:string, ts:int64, id:string, flag:bool"
VALUES = ("acme", 1700000000123, "user-42", True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    bound = get_codec("skv").bind(KeySchema.parse(SCHEMA))
    key, packed = bound.encode(VALUES), fdb.tuple.pack(VALUES)
    assert bound.decode(key) == VALUES == fdb.tuple.unpack(packed)
    rows = []
    for op, ref, ours in (
        ("encode", lambda: fdb.tuple.pack(VALUES), lambda: bound.encode(VALUES)),
        ("decode", lambda: fdb.tuple.unpack(packed), lambda: bound.decode(key)),
    ):
        best = [float("inf"), float("inf")]
        for _ in range(args.repeat):
            for i, fn in enumerate((ref, ours)):
                best[i] = min(best[i], timeit.timeit(fn, number=args.number) / args.number * 1e9)
        rows.append([op, f"{best[0]:,.0f}", f"{best[1]:,.0f}", f"{best[0] / best[1]:.2f}x"])
    show(table(["op", "fdb.tuple ns", "skv bound ns", "ratio"], rows,
               caption=f"best of {args.repeat} x {args.number:,} calls"))


if __name__ == "__main__":
    main()
