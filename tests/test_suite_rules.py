"""Rules the test suite keeps about itself: no test may fail because the machine is busy, so
no test bounds a subprocess, a wait or a page load by wall-clock time (growth is judged by
counting work). SQLite's ``timeout`` is a lock wait, not a bound on the test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
#: a wall-clock bound: a ``timeout=`` argument, a page-load timeout, a deadline compared with
#: the clock
CLOCK_BOUND = re.compile(r"\btimeout\s*=|set_page_load_timeout|monotonic\(\)\s*<")
#: lines where ``timeout=`` is no bound on the test
ALLOWED = ("sqlite3.connect(",)


@pytest.mark.parametrize("path", sorted(TESTS.glob("*.py")), ids=lambda p: p.name)
def test_no_wall_clock_bounds(path: Path) -> None:
    found = [f"{path.name}:{n}: {line.strip()}"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if CLOCK_BOUND.search(line) and not any(a in line for a in ALLOWED)
             and path.name != Path(__file__).name]
    assert not found, found
