"""orderly against fdb.tuple, in one process: keys per second on 100 000 random values.

Issue 7: encode and decode 100 000 random int64 values as variable-length longs
(``x:int64``, Orderly's ``LongWritableRowKey``) and 100 000 structs ``(string, int64,
float64)``; report keys per second next to ``fdb.tuple.pack``/``unpack`` of the same values.
Ratios are ``lexcodecs keys/s / fdb.tuple keys/s`` (> 1: lexcodecs is faster), best of
several runs taken in alternation.

    python3 benchmarks/bench_orderly.py [--count N] [--repeat R] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fdb.tuple

from lexcodecs import get_codec
from lexcodecs._console import show, table


def random_int64(rng: random.Random) -> int:
    # uniform over bit lengths: the var-int lengths 1..9 all appear
    bits = rng.randint(0, 63)
    v = rng.getrandbits(bits) if bits else 0
    return -v - 1 if rng.random() < 0.5 else v


def random_struct(rng: random.Random) -> tuple[str, int, float]:
    name = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz-0123456789")
                   for _ in range(rng.randint(0, 16)))
    return name, random_int64(rng), rng.uniform(-1e9, 1e9)


def best_seconds(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    codec = get_codec("orderly")
    pack, unpack = fdb.tuple.pack, fdb.tuple.unpack
    out = []
    for label, tuples, schema in (
        ("int64 (var long)", [(random_int64(rng),) for _ in range(args.count)], "x:int64"),
        ("(string, int64, f64)", [random_struct(rng) for _ in range(args.count)],
         "name:string, n:int64, score:float64"),
    ):
        bound = codec.bind(schema)
        encode, decode = bound.encode, bound.decode
        ours = [encode(t) for t in tuples]
        theirs = [pack(t) for t in tuples]
        assert [decode(k) for k in ours] == tuples
        for op, ref, mine in (
            ("encode", lambda: [pack(t) for t in tuples], lambda: [encode(t) for t in tuples]),
            ("decode", lambda: [unpack(k) for k in theirs], lambda: [decode(k) for k in ours]),
        ):
            best = [float("inf")] * 2
            for _ in range(args.repeat):  # alternate, so drift hits both alike
                for i, fn in enumerate((ref, mine)):
                    best[i] = min(best[i], best_seconds(fn))
            rates = [args.count / b for b in best]
            out.append([label, op, f"{rates[0]:,.0f}", f"{rates[1]:,.0f}",
                        f"{rates[1] / rates[0]:.2f}x"])
    show(table(["keys", "op", "fdb.tuple keys/s", "orderly keys/s", "ratio"], out,
               caption=f"{args.count:,} keys per run, best of {args.repeat}"))


if __name__ == "__main__":
    main()
