"""``lexcodecs.identify`` on a store's worth of keys: seconds per call, per codec and key count
(issue 33: 10,000 keys in at most 10 s on 2 cores). The keys are written by each codec's own
encoder (a string and an int64, 10 tenants); every time is the min of the repeats, and the
first candidate is checked to write the keys again.

    python3 benchmarks/bench_identify.py [--keys N[,N...]] [--repeat R] [--codecs a,b]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lexcodecs import get_codec
from lexcodecs._console import show, table
from lexcodecs.identification import identify

SCHEMA = {"ordered-binary": "tenant:string, n:int"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--codecs", default="fdb-tuple,skv,sqlite4,lexkey,orderly,orderedcode,"
                        "hbase-orderedbytes,ordered-binary")
    args = parser.parse_args()
    rows = []
    for name in args.codecs.split(","):
        bound = get_codec(name).bind(SCHEMA.get(name, "tenant:string, n:int64"))
        for n in (int(k) for k in args.keys.split(",")):
            keys = [bound.encode((f"tenant-{i % 10}", i * 7)) for i in range(n)]
            best = float("inf")
            for _ in range(args.repeat):
                start = time.perf_counter()
                result = identify(keys)
                best = min(best, time.perf_counter() - start)
            top = result.candidates[0]
            rows.append([name, f"{n:,}", f"{best:.2f}", f"{top.codec} {top.schema}",
                         top.confidence])
    show(table(["codec", "keys", "seconds", "first candidate", "confidence"], rows))


if __name__ == "__main__":
    main()
