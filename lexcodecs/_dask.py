"""What the jobs on dask.distributed share: the optional import, atomic files, range boundaries
from a sample, and running tasks on a ``distributed.Client``.

Theory of operation: the coordinator (the caller's process) plans the work, submits one task
per piece (:func:`run_all`) and records what finished; every task writes its result to a file
of its own (:func:`write_atomic`): under a temporary name unique to the writer, flushed to
disk and renamed, so a file that exists is complete, a rerun after an interruption does only
what is missing, and two writers of the same file (a task rerun while a straggler of an
interrupted run still works) write the same bytes, the last rename winning. An error a worker
raises comes back to the caller as the lexcodecs error it was. The jobs:
:func:`lexcodecs.bulkload.build_sorted_keys` and
:func:`lexcodecs.migrate.migrate_lmdb_ranges`.
"""

from __future__ import annotations

import bisect
import json
import os
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from .migrate.transcoder import MigrationError

__all__ = ["OVERSAMPLE", "boundaries", "range_of", "run_all", "write_atomic", "write_json"]

#: samples taken per range when boundaries are picked: enough that ranges come out within
#: a few percent of equal on any distribution of keys, few enough to cost nothing
OVERSAMPLE: Final = 64


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise MigrationError("jobs on a cluster need dask.distributed: "
                             "pip install 'lexcodecs[dask]'") from None
    return distributed


def write_atomic(path: Path, write: Callable[[Path], object], *, durable: bool = True
                 ) -> None:
    """Write *path* as ``write(tmp)`` to a name unique to this writer, fsync (when
    *durable*: a file that must survive a power loss, not only a killed process) and
    rename."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        write(tmp)
        if durable:
            with open(tmp, "rb+") as f:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    """A JSON file, replaced atomically."""
    write_atomic(path, lambda tmp: tmp.write_text(json.dumps(data), encoding="utf-8"))


def boundaries(sample: Iterable[bytes], ranges: int) -> list[bytes]:
    """At most ``ranges - 1`` ascending, distinct keys cutting a sample into equal parts:
    range ``r`` holds the keys ``k`` with ``bounds[r - 1] <= k < bounds[r]``.

    >>> [b.hex() for b in boundaries([bytes([i]) for i in range(100)], 4)]
    ['19', '32', '4b']
    """
    keys = sorted(sample)
    if not keys:
        return []
    cuts = (keys[len(keys) * r // ranges] for r in range(1, ranges))
    return sorted({c for c in cuts if c > keys[0]})


def range_of(bounds: Sequence[bytes], key: bytes) -> int:
    """The index of the range holding *key*."""
    return bisect.bisect_right(bounds, key)


def run_all(client: Any, tasks: Sequence[tuple[Callable[..., Any], tuple[Any, ...]]],
            done: Callable[[int, Any], None]) -> None:
    """Run ``fn(*args)`` for each task on the cluster; ``done(index, result)`` as each
    finishes, in the coordinator. The first error (a lexcodecs error comes back as the one the
    worker raised) or an interruption cancels the rest; what finished stays done."""
    distributed = _distributed()
    futures = [client.submit(fn, *args, pure=False) for fn, args in tasks]
    index = {f.key: i for i, f in enumerate(futures)}
    try:
        for future in distributed.as_completed(futures):
            done(index[future.key], future.result())
    except BaseException:
        client.cancel(futures)
        raise

