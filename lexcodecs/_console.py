"""Tables and progress for people, on rich: the one place the package draws either.

Theory of operation: every table the package shows (compare, inspect, the conformance
matrix, the benchmarks) is a :func:`table` -- a ``rich.table.Table`` with the house style --
turned into text by :func:`to_text` (plain, no colour, a fixed width: what tests and pipes
see) or printed by :func:`show` (colour only on a terminal). Every long phase (compare's
codecs, a migration's copy and verify) reports through a :class:`Progress`: a label, a done
count, and a total when it is known, drawn with percent, rate and ETA on standard error,
only when standard error is a terminal unless told otherwise, so logs and tests stay clean.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TextIO

if TYPE_CHECKING:  # rich is imported when something is drawn: `lexcodecs decode` never pays
    from rich.console import RenderableType
    from rich.progress import Progress as _RichProgress
    from rich.table import Table

__all__ = ["Progress", "show", "table", "to_text"]

Justify = Literal["left", "right", "center"]


def table(columns: Sequence[str], rows: Iterable[Sequence[Any]], *, title: str | None = None,
          justify: Sequence[Justify] | None = None, caption: str | None = None) -> Table:
    """A table in the house style: a header rule, no outer box, one row per item.

    Cells are shown with ``str`` (``None`` as ``-``); *justify* gives each column's
    alignment (default: left for the first column, right for the others).
    """
    from rich import box
    from rich.table import Table

    out = Table(title=title, caption=caption, box=box.SIMPLE_HEAD, show_edge=False,
                pad_edge=False, title_justify="left", caption_justify="left")
    for i, name in enumerate(columns):
        how: Justify = justify[i] if justify is not None else ("left" if i == 0 else "right")
        out.add_column(name, justify=how, overflow="fold")
    for row in rows:
        out.add_row(*("-" if cell is None else str(cell) for cell in row))
    return out


def to_text(*renderables: RenderableType, width: int = 120) -> str:
    """Render to plain text: no colour, no terminal codes, *width* columns."""
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, force_terminal=False,
                      highlight=False, soft_wrap=False, emoji=False, markup=False)
    for item in renderables:
        console.print(item)
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines()).strip("\n")


def show(*renderables: RenderableType, file: TextIO | None = None) -> None:
    """Print to *file* (default standard output): colour on a terminal, plain text else."""
    from rich.console import Console

    stream = file if file is not None else sys.stdout
    console = Console(file=stream, highlight=False, markup=False, emoji=False,
                      soft_wrap=not stream.isatty())
    for item in renderables:
        console.print(item)


class Progress:
    """One phase's progress: ``update(done)``, ``set_total(n)``, ``close()``.

    Drawn on standard error (or *stream*) with a bar, done/total, percent, rate and ETA when
    the total is known, and done and elapsed time when it is not. Drawn only when the stream
    is a terminal unless *enabled* says otherwise; a disabled one costs an attribute test.
    Also a context manager that closes itself.
    """

    def __init__(self, label: str, total: int | None = None, *, stream: TextIO | None = None,
                 enabled: bool | None = None) -> None:
        self.label = label
        self.total = total
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = _isatty(self.stream) if enabled is None else enabled
        self._rich: _RichProgress | None = None
        self._task: Any = None
        if self.enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TaskProgressColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as _RichProgress

            console = Console(file=self.stream, force_terminal=True if enabled else None,
                              highlight=False)
            self._rich = _RichProgress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                TaskProgressColumn(), TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                console=console, transient=False, refresh_per_second=8)
            self._rich.start()
            self._task = self._rich.add_task(label, total=total, rate="")

    def set_total(self, total: int | None) -> None:
        self.total = total
        if self._rich is not None:
            self._rich.update(self._task, total=total)

    def update(self, done: int) -> None:
        self.done = done
        if self._rich is not None:
            elapsed = self._rich.tasks[0].elapsed or 0.0
            rate = f"{done / elapsed:,.0f}/s" if elapsed > 0 else ""
            self._rich.update(self._task, completed=done, rate=rate)

    def close(self, done: int | None = None) -> None:
        if done is not None:
            self.update(done)
        if self._rich is not None:
            self._rich.stop()
            self._rich = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream: draw nothing
        return False
