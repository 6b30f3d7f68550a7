"""sqlite4 against fdb.tuple, in one process: keys per second on 100 000 random values.

Issue 6: encode and decode 100 000 random int64 values and 100 000 random floats, report keys
per second next to ``fdb.tuple`` on the same values in the same run; encoding ints must be at
least as fast as ``fdb.tuple.pack``. Each value is a one-field key (``(v,)``), encoded
schemaless (``codec.encode``) and bound (``x:int64`` / ``x:float64``), and decoded likewise.
Ratios are ``lexcodecs keys/s / fdb.tuple keys/s`` (> 1: lexcodecs is faster), best of
several runs taken in alternation.

    python3 benchmarks/bench_sqlite4.py [--count N] [--repeat R] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import struct
import sys
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fdb.tuple

from lexcodecs import get_codec
from lexcodecs._console import show, table


def random_int64s(rng: random.Random, n: int) -> list[int]:
    # uniform over bit lengths, so small and large magnitudes both appear, as in real keys
    out = []
    for _ in range(n):
        bits = rng.randint(0, 63)
        v = rng.getrandbits(bits) if bits else 0
        out.append(-v - 1 if rng.random() < 0.5 and v < 2**63 else v)
    return out


def random_floats(rng: random.Random, n: int) -> list[float]:
    # half random bit patterns (any magnitude), half "measurement-like" values
    out: list[float] = []
    while len(out) < n:
        if rng.random() < 0.5:
            x = struct.unpack(">d", rng.getrandbits(64).to_bytes(8, "big"))[0]
            if x != x:
                continue
        else:
            x = round(rng.uniform(-1e6, 1e6), rng.randint(0, 6))
        out.append(x)
    return out


def best_seconds(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=6)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    codec = get_codec("sqlite4")
    pack, unpack = fdb.tuple.pack, fdb.tuple.unpack
    out = []
    for label, values, schema in (
        ("int64", random_int64s(rng, args.count), "x:int64"),
        ("float", random_floats(rng, args.count), "x:float64"),
    ):
        bound = codec.bind(schema)
        encode, decode = codec.encode, codec.decode
        bencode, bdecode = bound.encode, bound.decode
        tuples = [(v,) for v in values]
        ours = [encode(t) for t in tuples]
        theirs = [pack(t) for t in tuples]
        assert ours == [bencode(t) for t in tuples]
        # the keys decode back: schemaless to the number (a float as the Decimal of its repr),
        # bound to the very value
        assert all(decode(k)[0] == (Decimal(repr(v)) if label == "float" else v)
                   for v, k in zip(values, ours))
        assert [bdecode(k) for k in ours] == tuples
        rows = (
            ("encode", lambda: [pack(t) for t in tuples],
             lambda: [encode(t) for t in tuples], lambda: [bencode(t) for t in tuples]),
            ("decode", lambda: [unpack(k) for k in theirs],
             lambda: [decode(k) for k in ours], lambda: [bdecode(k) for k in ours]),
        )
        for op, ref, schemaless, bound_fn in rows:
            best = [float("inf")] * 3
            for _ in range(args.repeat):  # alternate, so drift hits all three alike
                for i, fn in enumerate((ref, schemaless, bound_fn)):
                    best[i] = min(best[i], best_seconds(fn, 1))
            rates = [args.count / b for b in best]
            out.append([label, op, f"{rates[0]:,.0f}", f"{rates[1]:,.0f}",
                        f"{rates[1] / rates[0]:.2f}x", f"{rates[2]:,.0f}",
                        f"{rates[2] / rates[0]:.2f}x"])
    show(table(["values", "op", "fdb.tuple keys/s", "schemaless keys/s", "ratio",
                "bound keys/s", "ratio"], out,
               caption=f"{args.count:,} one-field keys per run, best of {args.repeat}"))


if __name__ == "__main__":
    main()
