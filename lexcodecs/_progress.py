"""A small progress bar for long runs (``compare``, ``migrate``), on standard error.

It redraws at most ten times a second and only when the stream is a terminal, unless told
otherwise, so logs and tests stay clean; a ``None`` progress is a no-op everywhere.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["ProgressBar"]


class ProgressBar:
    """``bar.update(done)``; ``bar.close()`` ends the line. *total* may be unknown (None)."""

    def __init__(self, label: str, total: int | None = None, *, stream: TextIO | None = None,
                 enabled: bool | None = None, width: int = 30) -> None:
        self.label = label
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.width = width
        self.started = time.monotonic()
        self._last = 0.0
        self._drawn = False

    def update(self, done: int, *, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last < 0.1:
            return
        self._last = now
        rate = done / max(now - self.started, 1e-9)
        if self.total:
            share = min(done / self.total, 1.0)
            filled = int(share * self.width)
            bar = "#" * filled + "-" * (self.width - filled)
            text = f"{self.label} [{bar}] {done:,}/{self.total:,} ({rate:,.0f}/s)"
        else:
            text = f"{self.label} {done:,} ({rate:,.0f}/s)"
        self.stream.write("\r" + text)
        self.stream.flush()
        self._drawn = True

    def close(self, done: int | None = None) -> None:
        if done is not None:
            self.update(done, force=True)
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False
