"""lexcodecs.fdbtuple against fdb.tuple, in one process: the same calls on the same tuples.

The drop-in module (issue 16) promises fdb.tuple's API at the compiled codec's speed. Each
case calls ``pack`` (with and without a subspace prefix), ``unpack`` (with and without
``prefix_len``), ``range`` and ``compare`` of both modules on the same tuple. A ratio is
``fdb.tuple time / lexcodecs.fdbtuple time`` (> 1: lexcodecs is faster); each time is the
best of several runs taken in alternation, so a busy machine slows both sides alike.

    python3 benchmarks/bench_fdbtuple_module.py [--number N] [--repeat R] [--impl reference]
    python3 benchmarks/bench_fdbtuple_module.py --markdown      # the table for the docs
"""

from __future__ import annotations

import argparse
import sys
import timeit
import uuid
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fdb.tuple  # never fdb.api_version(): that needs the C client

from lexcodecs import _impl
from lexcodecs import fdbtuple as lt
from lexcodecs._console import show, table

PREFIX = b"\x15\x07\x02app\x00"  # a subspace's packed prefix, as a directory layer gives
CASES: list[tuple[str, tuple[Any, ...]]] = [
    ("(42,)", (42,)),
    ("(str, int)", ("user", 12345)),
    ("6 mixed", ("user", 12345, "name", 3.5, True, b"\x00\x01")),
    ("10 mixed", (uuid.UUID("12345678-1234-5678-1234-567812345678"), None, -42,
                  ("nested", 7), "a\x00b", 2.25, False, b"xyz", 2**40, "end")),
]


def operations(values: tuple[Any, ...]) -> list[tuple[str, Callable[[Any], Any]]]:
    """(label, call(module)) for each operation timed on *values*."""
    key, prefixed = fdb.tuple.pack(values), fdb.tuple.pack(values, prefix=PREFIX)
    later = (*values, 1)  # equal up to the last element: compare reads every element
    return [
        ("pack", lambda m: m.pack(values)),
        ("pack, prefix", lambda m: m.pack(values, prefix=PREFIX)),
        ("unpack", lambda m: m.unpack(key)),
        ("unpack, prefix_len", lambda m: m.unpack(prefixed, prefix_len=len(PREFIX))),
        ("range", lambda m: m.range(values)),
        ("compare", lambda m: m.compare(values, later)),
    ]


def best_ns(fns: Sequence[Callable[[], Any]], number: int, repeat: int) -> list[float]:
    """Best ns per call of each function, measured in alternation."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            best[i] = min(best[i], timeit.timeit(fn, number=number) / number * 1e9)
    return best


def measure(number: int, repeat: int) -> list[list[str]]:
    rows = []
    for label, values in CASES:
        for op, call in operations(values):
            theirs, ours = call(fdb.tuple), call(lt)
            if op.startswith("unpack"):  # compared as keys: a 20 element is not SingleFloat
                ours, theirs = fdb.tuple.pack(ours), fdb.tuple.pack(theirs)
            assert ours == theirs, f"{label} {op}: {ours!r} != {theirs!r}"
            ref, mine = best_ns([partial(call, fdb.tuple), partial(call, lt)], number, repeat)
            rows.append([label, op, f"{ref:,.0f}", f"{mine:,.0f}", f"{ref / mine:.1f}x"])
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--number", type=int, default=20000, help="calls per run")
    parser.add_argument("--repeat", type=int, default=7, help="runs; the best counts")
    parser.add_argument("--impl", choices=_impl.IMPLEMENTATIONS, default="compiled")
    parser.add_argument("--markdown", action="store_true", help="a markdown table")
    args = parser.parse_args(argv)
    with _impl.use(args.impl):
        rows = measure(args.number, args.repeat)
    columns = ["case", "operation", "fdb.tuple ns", "lexcodecs ns", "ratio"]
    compiled = args.impl == "compiled" and _impl.module("fdb_tuple") is not None
    caption = (f"best of {args.repeat} x {args.number:,} calls; "
               f"{'compiled' if compiled else 'reference'} implementation")
    if args.markdown:
        print("| " + " | ".join(columns) + " |\n|---|---|---:|---:|---:|")
        print("\n".join("| " + " | ".join(row) + " |" for row in rows))
        print(f"\n{caption}")
    else:
        show(table(columns, rows, title="lexcodecs.fdbtuple vs fdb.tuple", caption=caption))
    return 0


if __name__ == "__main__":
    sys.exit(main())
