"""What ``lexcodecs compare`` shows before a comparison runs (its defaults and choices), in a
module that imports nothing: the command line builds its parser from these without importing
the comparison itself, which is most of what starting ``lexcodecs`` would otherwise cost."""

from __future__ import annotations

from typing import Final

__all__ = ["DEFAULT_SCHEMA", "MIN_LOOPS", "REPEATS", "SPEED_MARGIN", "STORES", "WRAP"]

#: the schema ``lexcodecs compare`` uses when none is given: a tenant, a time sorted newest
#: first, an id, and a score -- the shape of many real keys, in the types most formats have
DEFAULT_SCHEMA: Final = "tenant:string, ts:int64 desc, id:bytes, score:float64"

#: the stores a comparison sorts keys in
STORES: Final = ("sqlite", "lmdb", "rocksdb", "memory")

#: timed loops over every record, per codec (0: no timing)
REPEATS: Final = 5

#: speed ranks two codecs only when each was timed in at least this many loops: fewer show
#: no spread, so nothing says how far the times may move on the next run
MIN_LOOPS: Final = 3

#: speed ranks two codecs only when one's slowest loop, times this, is still no slower than
#: the other's fastest: on a busy machine one codec's time moved 2x between identical runs,
#: so a difference within the loops' spread, or just beyond it, is not one that repeats
SPEED_MARGIN: Final = 1.5

#: how wide the prose (verdict, blockers) is wrapped, at most; counterexamples are not wrapped
WRAP: Final = 100
