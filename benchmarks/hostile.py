"""Hostile 10 MB keys: the worst decode time and peak memory per codec (issue 15).

Every key is refused with ``DecodeError`` or decodes; what matters is that either costs time
and memory linear in the key (a 10 MB key should take well under a second and allocate a
small multiple of its size). Each codec gets keys built to stress its format: runs of one
tag or header byte, an unterminated string, escapes, huge number headers, deep nesting, and
random bytes; with a schema and, where the codec has one, without. Both implementations.

    python3 benchmarks/hostile.py            # the table
    python3 benchmarks/hostile.py --mb 1     # smaller keys
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

# the checkout first, as the other benchmarks do (the compiled modules are built in place)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lexcodecs import LexCodecError, _impl, get_codec

SCHEMAS = {
    "fdb-tuple": [None, "t:tuple", "s:string, n:int64"],
    "lexkey": ["s:string, n:int64", "n:int64, s:string", "f:float64"],
    "lexkey-legacy": ["s:string, n:int64", "n:int32"],
    "skv": [None, "s:string, n:int64", "b:bytes desc, f:float64"],
    "sqlite4": [None, "d:decimal", "s:string desc, n:int"],
    "orderly": ["d:decimal", "s:string, n:int64", "b:bytes"],
}


def keys(size: int) -> dict[str, bytes]:
    rnd = os.urandom(size)
    return {
        "random": rnd,
        "00 run": b"\x00" * size,
        "ff run": b"\xff" * size,
        "05 run": b"\x05" * size,
        "01 then no end": b"\x01" + b"a" * size,
        "02 then escapes": b"\x02" + b"\x00\xff" * (size // 2),
        "05 + 00ff run": b"\x05" + b"\x00\xff" * (size // 2),
        "number header run": b"\x23" + b"\xff" * size,
        "decimal digits": b"\x36" + b"\x13" * size,
        "fe run": b"\xfe" * size,
    }


def measure(fn: Callable[[], object]) -> tuple[float, int]:
    """Seconds (timed alone: tracing allocations slows allocating code many times over) and
    peak traced bytes (a second run under tracemalloc)."""
    t = time.perf_counter()
    with contextlib.suppress(LexCodecError):
        fn()
    elapsed = time.perf_counter() - t
    tracemalloc.start()
    with contextlib.suppress(LexCodecError):
        fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return elapsed, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=10.0)
    args = parser.parse_args()
    size = int(args.mb * 1_000_000)
    hostile = keys(size)
    print("| codec | implementation | worst time | its key | peak memory | its key |")
    print("|---|---|---:|---|---:|---|")
    for name, schemas in SCHEMAS.items():
        codec = get_codec(name)
        for implementation in _impl.IMPLEMENTATIONS:
            worst_t = (0.0, "")
            worst_m = (0, "")
            with _impl.use(implementation):
                for label, key in hostile.items():
                    for schema in schemas:
                        if schema is None and codec.capabilities.decoding != "self-describing":
                            continue
                        t, m = measure(lambda k=key, s=schema: codec.decode(k, s))
                        where = f"{label} [{schema or 'no schema'}]"
                        worst_t = max(worst_t, (t, where))
                        worst_m = max(worst_m, (m, where))
            print(f"| {name} | {implementation} | {worst_t[0]:.2f} s | {worst_t[1]} | "
                  f"{worst_m[0] / 1e6:.0f} MB | {worst_m[1]} |")


if __name__ == "__main__":
    main()
