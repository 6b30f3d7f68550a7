"""What ``lexcodecs compare`` shows before a comparison runs (its defaults and choices), in a
module that imports nothing: the command line builds its parser from these without importing
the comparison itself, which is most of what starting ``lexcodecs`` would otherwise cost."""

from __future__ import annotations

from typing import Final

__all__ = ["DEFAULT_SCHEMA", "REPEATS", "STORES", "WRAP"]

#: the schema ``lexcodecs compare`` uses when none is given: a tenant, a time sorted newest
#: first, an id, and a score -- the shape of many real keys, in the types most formats have
DEFAULT_SCHEMA: Final = "tenant:string, ts:int64 desc, id:bytes, score:float64"

#: the stores a comparison sorts keys in
STORES: Final = ("sqlite", "lmdb", "rocksdb", "memory")

#: timed loops over every record; the fastest counts (0: no timing)
REPEATS: Final = 5

#: how wide the prose (verdict, blockers) is wrapped, at most; counterexamples are not wrapped
WRAP: Final = 100
