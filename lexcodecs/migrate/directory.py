"""Stores that live in a directory (LMDB, RocksDB): the paths beside it, the state file, and
the swap by two renames, with the recovery of a swap cut between them.

Theory of operation: next to the store at ``<path>`` a migration keeps

* ``<path>.lexcodecs-new`` -- the new store the copy writes;
* ``<path>.lexcodecs-state`` -- a JSON state file (the settings, the phase, the position
  reached, the report), replaced atomically after every batch (:func:`write_state`);
* ``<path>.lexcodecs-old`` -- the original, after the swap, when it is kept.

The swap is two renames: the original aside to ``.lexcodecs-old``, then the new store to
``<path>``. A rerun tells from what exists which of them happened (:func:`half_swapped`): with
the verified copy still at ``.lexcodecs-new`` it finishes the swap, else it puts the original
back and starts again. A verified copy is never discarded, not even by ``restart``.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from .report import MigrationReport
from .transcoder import MigrationError, Transcoder, same_settings

__all__ = ["Beside", "begin", "half_swapped", "swap", "swapping", "write_state"]


@attrs.frozen
class Beside:
    """The store's path and the paths a migration keeps beside it."""

    path: Path
    new: Path
    old: Path
    state: Path

    @classmethod
    def of(cls, path: str | os.PathLike[str]) -> Beside:
        p = Path(path)
        return cls(p, *(p.with_name(p.name + suffix) for suffix in
                        (".lexcodecs-new", ".lexcodecs-old", ".lexcodecs-state")))

    def beside(self, suffix: str) -> Path:
        """Another path beside the store, a store's own (RocksDB's batch table file)."""
        return self.path.with_name(self.path.name + suffix)


def write_state(path: Path, state: dict[str, Any]) -> None:
    """Replace the state file atomically (write, fsync, rename). A file that cannot be
    written (a directory without room or permission) is a :class:`MigrationError`: every
    caller's refusal path then removes what the run wrote."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        if tmp.is_file():
            tmp.unlink()
        raise MigrationError(f"cannot write the migration's state file {path} "
                             f"({exc.strerror or exc}); the original is untouched") from None


def swapping(state_path: Path) -> bool:
    """A verified copy is being swapped in: a restart must finish it, not discard it (the
    original may already have moved aside)."""
    if not state_path.exists():
        return False
    try:
        return bool(json.loads(state_path.read_text(encoding="utf-8"))["phase"] == "verified")
    except (ValueError, KeyError, TypeError):
        return False


def half_swapped(at: Beside) -> list[str]:
    """A run stopped between the two renames of the swap: ``<path>`` is gone, the original is
    at ``.lexcodecs-old``. With the verified copy at ``.lexcodecs-new`` the swap is finished
    (by :func:`swap`, which goes on to the second rename); without it the original is put
    back (rolled back) and the migration starts again. Returns what will be or was done."""
    if at.path.exists() or not at.old.exists():
        return []
    if at.new.exists() and swapping(at.state):
        return [f"finished the swap of an interrupted run: the verified copy "
                f"{at.new.name} becomes {at.path}"]
    os.replace(at.old, at.path)
    if not at.new.exists():
        at.state.unlink(missing_ok=True)  # no copy to swap in: start again
    return [f"rolled back the swap of an interrupted run: the original {at.old.name} is "
            f"{at.path} again, unchanged, and the migration started again"]


def begin(at: Beside, t: Transcoder, restart: bool, where: str,
          fresh: Callable[[dict[str, Any], MigrationReport], dict[str, Any]]
          ) -> tuple[dict[str, Any], MigrationReport]:
    """The state and report to go on with: a recorded migration with the same settings (the
    transcoder's codecs and schema) resumed, or a new one (``fresh(settings, report)`` gives
    its first state); a recorded one with other settings, or a new store without a record,
    refused."""
    settings = {"source": t.source.config(), "target": t.target.config(),
                "schema": t.schema.to_text()}
    notes = half_swapped(at)
    if restart and not swapping(at.state):
        shutil.rmtree(at.new, ignore_errors=True)
        at.state.unlink(missing_ok=True)
    state: dict[str, Any] | None = None
    if at.state.exists():
        state = json.loads(at.state.read_text(encoding="utf-8"))
        assert state is not None
        if not same_settings(state["settings"], json.loads(json.dumps(settings))):
            raise MigrationError(f"an unfinished migration of {at.path} with other settings "
                                 f"is in progress ({state['settings']}); finish it with those "
                                 "settings, or restart=True (--restart) to discard it")
    elif at.new.exists():
        raise MigrationError(f"{at.new} exists but no migration is recorded; remove it, or "
                             "use restart=True (--restart)")
    if state is None:
        report = MigrationReport(t.source.name, t.target.name, str(t.schema), where)
        state = fresh(settings, report)
    else:
        report = MigrationReport(**{**state["report"], "resumed": True})
    report.notes += notes
    return state, report


def swap(at: Beside, keep_old: bool, report: MigrationReport) -> None:
    """The swap, in steps a rerun can tell apart by what exists: while the new store is still
    at its own path the second rename has not happened; the first has when the original path
    is gone. The state file goes last."""
    started = time.monotonic()
    if at.new.exists():
        if at.path.exists():
            if at.old.exists():  # a kept store of an earlier migration
                shutil.rmtree(at.old)
            os.replace(at.path, at.old)
        os.replace(at.new, at.path)
    if not keep_old and at.old.exists():
        shutil.rmtree(at.old)
    at.state.unlink()
    report.swap_s += time.monotonic() - started
