"""Columnar keys against DuckDB's sort keys: ns per row, per codec, on one Arrow table (issue 31).

The goal: ``encode_arrow`` of every built-in codec faster than DuckDB's
``create_sort_key`` (one thread, ``SET threads=1``) over the same Arrow table, on
``a:int64, b:int64`` and ``s:string, a:int64``. Both make an Arrow column of binary keys from
the table's columns: ``encode_arrow(table, schema, codec)`` against ``SELECT
create_sort_key(a, 'ASC NULLS LAST', b, 'ASC NULLS LAST') FROM t`` read back with
``con.sql(query).to_arrow_table()`` (the table registered once, zero-copy; DuckDB's advice:
``execute`` would copy the rows once more). A codec without an ``int64`` type writes the
same integers as its integer type (ordered-binary, bytewise, charwise: ``int``), and says so;
where that type holds only JS numbers (+-2**53: bytewise, charwise), both sides read a copy of
the table whose ``b`` is shifted right by 10 bits, and the row says so. Times are the min
of the repeats, the two run in turns; the keys are checked against the row API before
anything is timed. ``duckdb`` is a benchmark dependency only (``pip install
'lexcodecs[bench]'``).

    python3 benchmarks/bench_sort_keys.py [--rows N] [--repeat R] [--codecs a,b]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# numpy, which pyarrow imports, starts OpenBLAS threads that spin after their work: on two
# cores they took an eighth of a run's samples (perf). Nothing here uses BLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pyarrow as pa
from bench_columnar import _best  # the min of each, run in turns

from lexcodecs import available_codecs, get_codec
from lexcodecs._console import show, table
from lexcodecs.columnar import encode_arrow, kernel_available
from lexcodecs.errors import SchemaError

#: (label, schema, DuckDB's sort key expression)
SCHEMAS = [
    ("a:int64, b:int64", "a:int64, b:int64",
     "create_sort_key(a, 'ASC NULLS LAST', b, 'ASC NULLS LAST')"),
    ("s:string, a:int64", "s:string, a:int64",
     "create_sort_key(s, 'ASC NULLS LAST', a, 'ASC NULLS LAST')"),
]
#: a codec without int64 fields: the type it writes the same integers as
INT64_AS: dict[str, str] = {"ordered-binary": "int", "bytewise": "int", "charwise": "int"}
#: the bits b is shifted right by for a codec whose integers are JS numbers (|v| <= 2**53)
JS_SHIFT = 10


def _data(n: int) -> Any:
    rng = random.Random(0)
    words = [f"tenant-{i}" for i in range(1000)] + ["", "a", "zz" * 20]
    return pa.table({
        "a": pa.array([rng.randrange(-2**40, 2**40) for _ in range(n)], pa.int64()),
        "b": pa.array([rng.randrange(-2**62, 2**62) for _ in range(n)], pa.int64()),
        "s": pa.array([rng.choice(words) for _ in range(n)], pa.string()),
    })


def main() -> None:
    try:
        import duckdb
    except ImportError:
        sys.exit("this benchmark compares with DuckDB: pip install 'lexcodecs[bench]'")
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--codecs", default=",".join(sorted(available_codecs())))
    args = parser.parse_args()
    n = args.rows
    data = _data(n)
    con = duckdb.connect()
    con.execute("SET threads=1")
    con.register("t", data)
    # the same rows with b within +-2**52, for the codecs of JS numbers
    narrow = data.set_column(1, "b", pa.array([v >> JS_SHIFT for v in data.column("b").to_pylist()],
                                              pa.int64()))
    con.register("t53", narrow)
    out = []
    slowest = 0.0
    for label, text, expression in SCHEMAS:
        for name in args.codecs.split(","):
            schema = text
            for int_type, other in INT64_AS.items():
                if name == int_type:
                    schema = text.replace("int64", other)
            try:
                codec = get_codec(name)
                bound = codec.bind(schema)
            except SchemaError:
                continue
            js = codec.capabilities.int_range == (-(2**53), 2**53) and "b" in schema
            rows_of, table_name = (narrow, "t53") if js else (data, "t")
            query = f"SELECT {expression} AS k FROM {table_name}"

            def duck(q: str = query) -> object:
                return con.sql(q).to_arrow_table()
            sample = rows_of.slice(0, 2000)
            names = [f.split(":")[0].strip() for f in schema.split(",")]
            rows = zip(*(sample.column(c).to_pylist() for c in names))
            assert encode_arrow(sample, schema, name).to_pylist() == [bound.encode(r)
                                                                      for r in rows], name

            def ours(nm: str = name, s: str = schema, t: Any = rows_of) -> object:
                return encode_arrow(t, s, nm)
            columnar, duckdb_time = _best([ours, duck], args.repeat)
            slowest = max(slowest, columnar / duckdb_time)
            shown = name if schema == text else f"{name} ({schema})"
            if js:
                shown += f" (b >> {JS_SHIFT})"
            out.append([label, shown, f"{columnar / n * 1e9:,.1f}",
                        f"{duckdb_time / n * 1e9:,.1f}", f"{duckdb_time / columnar:.2f}x"])
    kernel = "kernel built" if kernel_available() else "kernel NOT built: row API only"
    show(table(["schema", "codec", "encode_arrow ns/row", "DuckDB create_sort_key ns/row",
                "speed-up"], out,
               title=f"{n:,} rows, min of {args.repeat}, one thread, duckdb "
                     f"{duckdb.__version__}, {kernel}"))
    print(f"slowest codec against DuckDB: {1 / slowest:.2f}x (goal > 1x)")


if __name__ == "__main__":
    main()
