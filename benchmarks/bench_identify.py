"""``lexcodecs.identify`` on a store's worth of keys: seconds per call, per codec and key count
(issue 33: 10,000 keys in at most 10 s on 2 cores). The keys are written by each codec's own
encoder (a string and an int64, 10 tenants), by sqlite4 with a table number, and random;
every time is the min of the repeats.

    python3 benchmarks/bench_identify.py [--keys N[,N...]] [--repeat R] [--codecs a,b]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lexcodecs import get_codec
from lexcodecs._console import show, table
from lexcodecs.identification import identify

SCHEMA = {"ordered-binary": "tenant:string, n:int"}
#: key sets beside each codec's defaults: keys only a codec option writes (identify's second
#: round, the declared options, runs for them) and random bytes (its worst case: no codec
#: explains them, so every option of every codec is tried)
EXTRA = ("sqlite4 table=10", "random")


def key_set(name: str, n: int) -> list[bytes]:
    if name == "random":
        rng = random.Random(0)
        return [rng.randbytes(rng.randrange(4, 20)) for _ in range(n)]
    codec, _, option = name.partition(" ")
    options = {k: int(v) for k, v in [option.split("=")]} if option else {}
    bound = get_codec(codec, **options).bind(SCHEMA.get(codec, "tenant:string, n:int64"))
    return [bound.encode((f"tenant-{i % 10}", i * 7)) for i in range(n)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--codecs", default="fdb-tuple,skv,sqlite4,lexkey,orderly,orderedcode,"
                        "hbase-orderedbytes,ordered-binary," + ",".join(EXTRA))
    args = parser.parse_args()
    rows = []
    for name in args.codecs.split(","):
        for n in (int(k) for k in args.keys.split(",")):
            keys = key_set(name, n)
            best = float("inf")
            for _ in range(args.repeat):
                start = time.perf_counter()
                result = identify(keys)
                best = min(best, time.perf_counter() - start)
            top = result.candidates[0]
            defaults = get_codec(top.codec).config()
            changed = "".join(f" {k}={v}" for k, v in top.options.items() if defaults[k] != v)
            rows.append([name, f"{n:,}", f"{best:.2f}", f"{top.codec}{changed} {top.schema}",
                         top.confidence])
    show(table(["keys of", "keys", "seconds", "first candidate", "confidence"], rows))


if __name__ == "__main__":
    main()
