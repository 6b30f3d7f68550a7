"""Hex-line streams: one source key per line in, one target key per line out.

The simplest migration, and the one for data that is not in a store lexcodecs can open: the
keys come and go as hex text (``lexcodecs migrate --input F [--output F]``). Nothing is
written back anywhere, so there is no copy/verify/swap; blank lines are kept, so line numbers
still match, and the report counts where the old order disagreed with the new.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TextIO

from ..errors import LexCodecError
from .report import MigrationReport, Progress, _OrderWatch
from .transcoder import MigrationError, Transcoder

__all__ = ["migrate_lines"]


def migrate_lines(transcoder: Transcoder, lines: Iterable[str], out: TextIO, *,
                  progress: Progress = None) -> MigrationReport:
    """Hex keys, one per line, to hex keys; blank lines are kept as blank lines."""
    report = MigrationReport(transcoder.source.name, transcoder.target.name,
                             str(transcoder.schema), "hex lines")
    watch = _OrderWatch(report)
    started = time.monotonic()
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text:
            out.write("\n")
            continue
        try:
            key = bytes.fromhex(text)
        except ValueError:
            raise MigrationError(f"line {number}: not hex: {text[:40]!r}") from None
        try:
            values = transcoder.values(key)
            new = transcoder.encode(values)
        except LexCodecError as exc:
            raise MigrationError(f"line {number}: {exc}") from None
        watch.see(new, values)
        out.write(new.hex() + "\n")
        report.keys += 1
        if progress is not None and report.keys % 1000 == 0:
            progress(report.keys)
    report.seconds = time.monotonic() - started
    return report
