"""How much the shared machinery costs: the toy codec through BaseCodec, against fdb.tuple.

The toy codec (tests/toys.py) is deliberately plain Python, so this measures the frame that
every codec built on ``BaseCodec`` gets for free: schema binding and its cache, the bound
fast path (one list comprehension and ``b"".join``), strict decoding with error context.
Figures are ratios to ``fdb.tuple`` measured in the same run; > 1 means lexcodecs is faster.

    python3 benchmarks/bench_foundation.py [--repeat N]
"""

from __future__ import annotations

import argparse
import sys
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import fdb.tuple  # noqa: E402  (never fdb.api_version: that needs the C client)
from toys import ToyCodec  # noqa: E402

from lexcodecs import KeySchema  # noqa: E402
from lexcodecs._console import show, table  # noqa: E402

CASES: list[tuple[str, str, tuple[Any, ...]]] = [
    ("one int", "x:int64", (42,)),
    ("five fields", "user:string, id:int64, name:string, score:float64, flag:bool",
     ("user", 12345, "name", 3.5, True)),
]


def best(fn: Callable[[], Any], number: int, repeat: int) -> float:
    """Best time per call in nanoseconds: the least disturbed of *repeat* runs."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--number", type=int, default=20000)
    args = parser.parse_args()
    codec = ToyCodec()
    out = []
    for label, text, values in CASES:
        schema = KeySchema.parse(text)
        bound = codec.bind(schema)
        key = bound.encode(values)
        packed = fdb.tuple.pack(values)
        rows = [
            ("encode (schema arg)", lambda: fdb.tuple.pack(values),
             lambda: codec.encode(values, schema)),
            ("encode (bound)", lambda: fdb.tuple.pack(values), lambda: bound.encode(values)),
            ("decode (bound)", lambda: fdb.tuple.unpack(packed), lambda: bound.decode(key)),
        ]
        for op, ref, ours in rows:
            t_ref = best(ref, args.number, args.repeat)
            t_ours = best(ours, args.number, args.repeat)
            out.append([label, op, f"{t_ref:,.0f}", f"{t_ours:,.0f}", f"{t_ref / t_ours:.2f}"])
    show(table(["case", "operation", "fdb.tuple ns", "lexcodecs ns", "ratio"], out,
               caption=f"best of {args.repeat} x {args.number:,} calls"))


if __name__ == "__main__":
    main()
