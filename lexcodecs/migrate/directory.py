"""Stores that live in a directory (LMDB, RocksDB): the paths beside it, the state file, the
lock, the checks made before anything changes, and the swap by two renames, with the recovery
of a swap cut between them.

Theory of operation: next to the store at ``<path>`` a migration keeps

* ``<path>.lexcodecs-new`` -- the new store the copy writes;
* ``<path>.lexcodecs-state`` -- a JSON state file (the settings, the phase, the position
  reached, the report), replaced atomically after every batch (:func:`write_state`);
* ``<path>.lexcodecs-old`` -- the original, after the swap, when it is kept;
* ``<path>.lexcodecs-lock`` -- the lock one run holds (:mod:`lexcodecs.migrate.lock`), while
  it runs.

A run (:class:`Run`) first checks that the store is a directory and that every step can be
done (the directory beside it writable; the store itself, unless it is kept, not read-only),
then takes the lock: a second run is refused there, before it reads, resumes, rolls back or
removes anything. What the run makes is its own: the state file carries the run's token, and
the new store holds a marker file (:data:`MARKER`) with the copy's id, which the state file
records (a file's identity would not do: a directory removed and made again may get the same
inode). Every write of the state file and the swap first check that both are still what this
run left; if another process removed or replaced them, the run stops (:class:`Interfered`)
without swapping and without removing anything, and never reports a migration that did not
happen. The marker goes once the swap is done.

The swap is two renames: the original aside to ``.lexcodecs-old``, then the new store to
``<path>``. A rerun tells from what exists which of them happened (:func:`half_swapped`): with
the verified copy still at ``.lexcodecs-new`` it finishes the swap, else it puts the original
back and starts again. A verified copy is never discarded, not even by ``restart``. An
original that cannot be removed after the swap stays at ``.lexcodecs-old``, and the report
says so: the migration itself is done.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import attrs

from ..errors import LexCodecError
from .lock import exclusive
from .report import MigrationReport
from .transcoder import MigrationError, Transcoder, same_settings

__all__ = ["MARKER", "Beside", "Interfered", "Run", "check_store", "half_swapped",
           "is_directory", "swapping", "write_state"]

#: beside the store: the lock file of the run that holds it
LOCK_SUFFIX: Final = ".lexcodecs-lock"
#: inside the new store, until the swap is done: the copy's id, which the state file records
MARKER: Final = ".lexcodecs-copy"


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


def copy_id(store: Path) -> str | None:
    """The copy id in the marker file of the store at *store* (None: no store, no marker,
    or one that cannot be read)."""
    try:
        return (store / MARKER).read_text(encoding="ascii").strip() or None
    except (OSError, ValueError):
        return None


def _mark(store: Path, copy: str) -> None:
    """The marker file of *store*, written durably (it decides what a later run may swap)."""
    with open(store / MARKER, "w", encoding="ascii") as f:
        f.write(copy)
        f.flush()
        os.fsync(f.fileno())


def _writable(path: Path) -> bool:
    """*path* may be written, and was not made read-only: a file or directory nobody may
    write is taken as read-only on purpose, even for root, who could write it."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    return bool(info.st_mode & 0o222) and os.access(path, os.W_OK)


def is_directory(path: Path, kind: str) -> bool:
    """Whether the store *path* exists; a :class:`MigrationError` naming it when it is not a
    directory (a file, a device, a named pipe), or holds a named pipe, a socket or a device
    where the store keeps its files: nothing is opened first (a pipe would block the store's
    open for ever; :mod:`lexcodecs.sources.paths` checks the paths ``compare`` reads so)."""
    from ..sources.paths import special_kind

    try:
        info = os.stat(path)
    except FileNotFoundError:
        return False
    except (OSError, ValueError) as exc:
        raise MigrationError(f"{path} cannot be read ({getattr(exc, 'strerror', None) or exc})"
                             ) from None
    if not stat.S_ISDIR(info.st_mode):
        raise MigrationError(f"{path} is not {kind}: not a directory")
    try:
        entries = list(os.scandir(path))
    except OSError as exc:
        raise MigrationError(f"{path} cannot be read ({exc.strerror or exc})") from None
    for entry in entries:
        try:
            special = special_kind(entry.stat().st_mode)
        except OSError:
            continue  # gone, or a dangling link: the store's own open says what it misses
        if special is not None:
            raise MigrationError(f"{entry.path} is {special}, not a file of {kind}")
    return True


def check_store(at: Beside, kind: str, keep_old: bool) -> None:
    """Refuse, before anything is changed, a store a migration could not finish with: a path
    that is not a directory (a file, a device, a named pipe), a directory beside it that may
    not be written (the copy, the state file and the lock go there; the renames happen
    there), or, unless the original is kept, a store that is read-only (the directory or any
    file in it): the swap removes the original, which could then not be removed. A path
    that does not exist passes: a swap cut between its renames, which the run finishes or
    rolls back, or no store at all, which opening it says."""
    path = at.path
    if not is_directory(path, kind):
        return
    folder = path.absolute().parent
    if not _writable(folder):
        raise MigrationError(f"{path}: its directory {folder} is read-only; the migration "
                             "writes its copy, its state file and its lock beside the store")
    if keep_old:
        return
    for where, folders, files in os.walk(path):
        for name in (".", *folders, *files):
            part = Path(where, name) if name != "." else Path(where)
            if not _writable(part):
                raise MigrationError(
                    f"{path} is read-only ({part} may not be written); the migration "
                    "replaces the store and then removes the original: make it writable, "
                    "keep the original with keep_old=True (--keep-old), or look first with "
                    "--dry-run")


class Interfered(MigrationError):
    """The run's own files beside the store were removed or replaced by another process while
    it ran: it stops without swapping and removes nothing (they are no longer its own)."""


#: the token the state file holds when there is no state file
_NO_FILE: Final = "(no state file)"


def _token(path: Path) -> str | None:
    """The run token of the state file at *path* (:data:`_NO_FILE` without one; None for a
    state file written before runs had tokens, or unreadable)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return _NO_FILE
    except OSError:
        return None
    try:
        token = json.loads(text).get("run")
    except (ValueError, AttributeError):
        return None
    return token if isinstance(token, str) else None


class Run:
    """One run of a migration of the store at *path*, *kind* ("an LMDB environment", "a
    RocksDB database"): the checks, the lock, the state it resumes or starts, and what it made.

    :meth:`migrate` is the whole run; in order: :meth:`held` (the checks, then the lock, for
    the whole run), :meth:`begin`, :meth:`write` after each step, :meth:`made_new` once the
    new store exists, :meth:`discard` on a refusal, :meth:`swap` at the end."""

    def __init__(self, path: str | os.PathLike[str], kind: str) -> None:
        self.at = Beside.of(path)
        self.kind = kind
        self.token = uuid.uuid4().hex
        #: the token the state file on disk holds as this run last knew it
        self.expected: str | None = _NO_FILE

    @contextlib.contextmanager
    def held(self, keep_old: bool) -> Iterator[None]:
        """The checks of :func:`check_store`, then the lock, held until the block ends."""
        check_store(self.at, self.kind, keep_old)
        with exclusive(self.at.beside(LOCK_SUFFIX),
                       f"another migration of {self.at.path} is running; wait for it to "
                       "finish, then run again"):
            yield

    def begin(self, t: Transcoder, restart: bool, where: str,
              fresh: Callable[[dict[str, Any], MigrationReport], dict[str, Any]]
              ) -> tuple[dict[str, Any], MigrationReport]:
        """The state and report to go on with: a recorded migration with the same settings
        (the transcoder's codecs and schema) resumed, or a new one (``fresh(settings,
        report)`` gives its first state); a recorded one with other settings, or a new store
        without a record, refused. A recorded copy that is gone (removed between runs) is
        started again; one that was replaced is refused."""
        at = self.at
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
            self.expected = state.get("run")
            if not same_settings(state["settings"], json.loads(json.dumps(settings))):
                raise MigrationError(f"an unfinished migration of {at.path} with other "
                                     f"settings is in progress ({state['settings']}); finish "
                                     "it with those settings, or restart=True (--restart) to "
                                     "discard it")
            recorded = state.get("copy")
            if recorded is not None and state["phase"] != "verified":
                if not at.new.exists():  # its copy is gone: the record means nothing now
                    notes.append(f"the copy {at.new.name} recorded by an earlier run was "
                                 "gone: the migration started again")
                    state = None
                elif copy_id(at.new) != recorded:
                    raise MigrationError(f"{at.new} is not the copy the recorded migration "
                                         "made (it was replaced); remove it, or restart=True "
                                         "(--restart) to discard the migration")
        elif at.new.exists():
            raise MigrationError(f"{at.new} exists but no migration is recorded; remove it, or "
                                 "use restart=True (--restart)")
        if state is None:
            report = MigrationReport(t.source.name, t.target.name, str(t.schema), where)
            state = fresh(settings, report)
        else:
            report = MigrationReport.resume(state["report"])
        report.notes += notes
        return state, report

    def migrate(self, t: Transcoder, *, restart: bool, keep_old: bool, where: str,
                fresh: Callable[[dict[str, Any], MigrationReport], dict[str, Any]],
                work: Callable[[dict[str, Any], MigrationReport], None],
                resumable: Callable[[dict[str, Any]], None] | None = None) -> MigrationReport:
        """The whole run: :meth:`held`, :meth:`begin`, then, unless the recorded migration
        is verified already, ``resumable(state)`` (a refusal there touches nothing: the
        record is another kind of run's), ``work(state, report)`` (the store's copy and
        verification, which records its steps with :meth:`write`), the ``verified`` phase
        recorded, and :meth:`swap`. A refusal from *work* removes what it made
        (:meth:`discard`), unless the files were changed under it (:class:`Interfered`:
        nothing removed)."""
        with self.held(keep_old):
            state, report = self.begin(t, restart, where, fresh)
            if state["phase"] != "verified":
                if resumable is not None:
                    resumable(state)
                try:
                    work(state, report)
                except Interfered:
                    raise
                except LexCodecError:  # a refusal leaves nothing half-written behind
                    self.discard(state)
                    raise
                state["phase"], state["report"] = "verified", report.to_dict()
                self.write(state)
            self.swap(state, keep_old, report)
        return report

    def _check(self, state: dict[str, Any]) -> None:
        """The state file and the new store are still what this run left (:class:`Interfered`
        if not)."""
        found = _token(self.at.state)
        if found != self.expected:
            raise Interfered(f"the migration's state file {self.at.state} was "
                             f"{'removed' if found == _NO_FILE else 'replaced'} by another "
                             f"process while this run went on; it stops, swaps nothing and "
                             f"removes nothing: {self.at.path} is as it was. Find what else "
                             "migrates it, then run again (restart=True, --restart, discards "
                             "what is left)")
        recorded = state.get("copy")
        if recorded is not None and copy_id(self.at.new) != recorded:
            raise Interfered(f"the migration's copy {self.at.new} was removed or replaced by "
                             "another process while this run went on; it stops, swaps "
                             f"nothing and removes nothing: {self.at.path} is as it was. "
                             "Find what else migrates it, then run again (restart=True, "
                             "--restart, discards what is left)")

    def write(self, state: dict[str, Any]) -> None:
        """Record *state* (:func:`write_state`), once the files are known to be this run's."""
        self._check(state)
        state["run"] = self.token
        write_state(self.at.state, state)
        self.expected = self.token

    def made_new(self, state: dict[str, Any]) -> None:
        """The new store exists (made or opened again): unless the state records its copy
        already, a new copy id is written into its marker file and taken into *state*, on
        disk with the next :meth:`write` (the one after the first batch; a run stopped
        before it leaves a record without one, and its rerun marks the copy it finds)."""
        if state.get("copy") is None:
            copy = uuid.uuid4().hex
            try:
                _mark(self.at.new, copy)
            except OSError as exc:
                raise MigrationError(f"cannot write {self.at.new / MARKER} "
                                     f"({exc.strerror or exc}); the original is untouched"
                                     ) from None
            state["copy"] = copy

    def discard(self, state: dict[str, Any]) -> None:
        """After a refusal: the state file and the copy removed -- the state file first: a
        copy without a record is refused by a rerun, never used. When another process
        changed them (the refusal may be how that showed: a store whose files went away),
        :class:`Interfered` instead, and nothing is removed."""
        self._check(state)
        self.at.state.unlink(missing_ok=True)
        shutil.rmtree(self.at.new, ignore_errors=True)

    def swap(self, state: dict[str, Any], keep_old: bool, report: MigrationReport) -> None:
        """The swap, in steps a rerun can tell apart by what exists: while the new store is
        still at its own path the second rename has not happened; the first has when the
        original path is gone. First, the files must still be this run's: the verified copy
        at its path, or (the second rename done by a run that was stopped) at the store's.
        The state file goes last."""
        at = self.at
        recorded = state.get("copy")
        if recorded is not None and not at.new.exists() and copy_id(at.path) == recorded:
            self._check({})  # the second rename happened: only the state file to check
        else:
            self._check(state)
            if recorded is None and not at.new.exists():  # recorded before copies had ids
                report.notes.append(f"no verified copy at {at.new.name}: the swap was done "
                                    "by an earlier run")
        started = time.monotonic()
        try:
            if at.new.exists():
                if at.path.exists():
                    if at.old.exists():  # a kept store of an earlier migration
                        _remove_kept(at.old)
                    os.replace(at.path, at.old)
                os.replace(at.new, at.path)
        except OSError as exc:
            raise MigrationError(f"the swap could not rename {exc.filename} "
                                 f"({exc.strerror or exc}); the verified copy is kept and a "
                                 "rerun finishes the swap") from None
        if not keep_old and at.old.exists():
            try:
                shutil.rmtree(at.old)
            except OSError as exc:
                report.notes.append(f"the original could not be removed ({exc.filename}: "
                                    f"{exc.strerror or exc}): it stays at {at.old}")
        at.state.unlink()
        # the marker last: a run stopped before this leaves a marker file in the store, never
        # a record of a swap it cannot tell was done
        (at.path / MARKER).unlink(missing_ok=True)
        report.swap_s += time.monotonic() - started


def _remove_kept(old: Path) -> None:
    try:
        shutil.rmtree(old)
    except OSError as exc:
        raise MigrationError(f"{old}, the original an earlier migration kept, cannot be "
                             f"removed ({exc.filename}: {exc.strerror or exc}); nothing was "
                             "swapped: remove it, then run again (the verified copy is "
                             "kept)") from None
