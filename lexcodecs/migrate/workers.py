"""Worker processes of a store migration, for the verification's spans.

Theory of operation: a :class:`Worker` is a new interpreter (``python -c``) that imports
lexcodecs from where this process did and talks over a socket pair. Unlike
``multiprocessing``'s spawn it never imports the caller's main module again (a script without
``if __name__ == "__main__"`` would run once more in each worker), and it inherits no handle
of this process. Its first message is the transcoder (pickled as its codecs' configs), the
store's *opener* and the chunk size; then it answers requests one at a time, in order:
``("span", span)``, the walk of one span of the verification (:mod:`.spans`), is answered
``("ok", result)``, or ``("error", error)`` for a refusal, which the caller raises as itself.

A worker that cannot serve a request answers ``("unavailable", None)``: it could not rebuild
the transcoder (a codec registered only at run time) or open the stores. So does a worker
that stopped (its socket is closed). The caller then does that work itself, so a worker is
only ever a way to go faster. Workers ignore SIGINT: a Ctrl-C in a terminal reaches every
process of the group, and only the caller answers it (and stops its workers).

A request is answered before the next is sent: a worker sending back a large answer while
the caller sends it a large request could each wait for the other to read.
"""

from __future__ import annotations

import contextlib
import gc
import signal
import socket
import subprocess
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Final

from ..errors import LexCodecError
from .transcoder import MigrationError, Transcoder

__all__: list[str] = []

#: what a worker process runs: the lexcodecs this process imported, whatever the path says
_WORKER_CODE: Final = ("import sys; sys.path.insert(0, {root!r}); "
                       "from lexcodecs.migrate.workers import _serve; _serve({fd})")
#: where that lexcodecs is (the directory holding the package)
_ROOT: Final = str(Path(__file__).resolve().parent.parent.parent)


class Worker:
    """One worker process (see the module)."""

    def __init__(self, t: Transcoder, opener: Callable[[], Any], chunk: int) -> None:
        mine, theirs = socket.socketpair()
        with mine, theirs:
            self.process = subprocess.Popen(
                [sys.executable, "-c", _WORKER_CODE.format(root=_ROOT, fd=theirs.fileno())],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.conn: Connection[Any, Any] = Connection(mine.detach())
        self.waiting = 0  # requests sent and not yet answered
        with contextlib.suppress(OSError):  # it stopped: every request is unavailable
            self.conn.send((opener, t, chunk))

    def ask(self, request: tuple[str, Any]) -> None:
        """Send a request (a worker that stopped answers it as unavailable)."""
        self.waiting += 1
        with contextlib.suppress(OSError):
            self.conn.send(request)

    def answer(self) -> tuple[str, Any]:
        """The answer to the oldest request not yet answered."""
        self.waiting -= 1
        try:
            kind, payload = self.conn.recv()
        except (EOFError, OSError):  # it stopped
            return "unavailable", None
        return kind, payload

    def stop(self) -> None:
        """Stop the worker: told to when idle (its input ends), killed when busy."""
        if self.waiting:
            self.process.kill()
        self.conn.close()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start(n: int, t: Transcoder, opener: Callable[[], Any], chunk: int) -> list[Worker]:
    """Up to *n* workers: as many as could be started (none where no interpreter can be
    started: an embedded Python, a platform without ``pass_fds``), the caller working alone
    otherwise."""
    workers: list[Worker] = []
    try:
        for _ in range(n):
            workers.append(Worker(t, opener, chunk))
    except (OSError, ValueError):  # an interpreter that cannot be started
        pass
    except BaseException:
        for w in workers:
            w.stop()
        raise
    return workers


# -- the worker process ---------------------------------------------------------------------


def _serve(fd: int) -> None:
    """A worker process: set up from the first message, then answer each request."""
    from .spans import walk_span  # spans starts the workers: imported when one runs

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the caller answers Ctrl-C
    gc.disable()  # the walk makes no reference cycles (see kernel.collector_paused)
    conn = Connection(fd)
    store: Any = None
    try:
        try:
            opener, t, chunk = conn.recv()
        except (EOFError, OSError):
            return
        except Exception:  # e.g. a codec only the caller registered: it works alone
            t = None
        while True:
            kind, payload = conn.recv()
            reply: tuple[str, Any]
            if t is None or kind != "span":
                reply = ("unavailable", None)
            else:
                try:
                    if store is None:
                        store = opener()
                    reply = ("ok", walk_span(store, t, payload, chunk))
                except LexCodecError as exc:  # a refusal: raised there as itself
                    reply = ("error", exc)
                except Exception:  # this worker cannot read the stores: the caller can
                    reply, t = ("unavailable", None), None
            try:
                conn.send(reply)
            except (EOFError, OSError):
                return
            except Exception:  # an error that does not pickle: its message does
                conn.send(("error", MigrationError(str(reply[1]))))
    except (EOFError, OSError):  # the caller is gone, or done
        pass
    finally:
        if store is not None:
            store.close()
