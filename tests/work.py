"""Load-proof measures of the work a call does, for the tests that bound how work grows.

A wall-clock or CPU-time bound fails when the machine is busy (a suite run beside two
CPU-bound processes once took 0.079 s where 0.073 s was allowed). These measures are counts,
the same however loaded the machine is:

* ``events``: the Python-level calls, lines and exceptions the call runs (``sys.settrace``).
  Code written in Python that loops once per byte, digit or item shows it here; the compiled
  modules run as one C call, so for them this counts only the Python around them -- and the
  reference code they hand a value over to.
* ``copied``: bytes allocated, summed over those events: before each event, the high-water
  mark of traced memory since the previous one (``tracemalloc``). A reader that slices the
  rest of a key at each step copies quadratically many bytes in linearly many lines; this
  sees it. Allocations by the compiled modules (``PyMem_*``, Python objects) are traced too.
* ``peak``: the most memory held at once (``tracemalloc``), compiled code included.
* ``conversions``: the int <-> decimal-text conversions of more than 640 digits that were
  attempted, caught or not (:func:`huge_int_conversions`). They are the quadratic primitive
  of CPython; Python refuses them beyond ``sys.get_int_max_str_digits()``, so under the
  smallest limit (640) each attempt raises a ValueError that the tracer sees where it is
  raised, whatever catches it afterwards.

The counts are deterministic up to free lists and caches (a warm-up call fills the caches),
so the tests compare them at two sizes with room to spare: linear work grows by the size
factor, quadratic by its square.
"""

from __future__ import annotations

import sys
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from types import FrameType
from typing import Any

import attrs

from lexcodecs import LexCodecError

__all__ = ["Work", "assert_linear", "huge_int_conversions", "int_digits_limit", "measure"]

#: Python's smallest accepted limit on int <-> decimal-text conversions
SMALLEST_DIGITS_LIMIT = 640


@attrs.frozen
class Work:
    """What one call cost, in counts (see the module docstring)."""

    events: int
    copied: int
    peak: int

    def __str__(self) -> str:
        return f"{self.events} events, {self.copied} bytes copied, peak {self.peak} bytes"


class _Meter:
    """The tracer: counts events and sums the high-water mark of memory between them."""

    def __init__(self) -> None:
        self.events = 0
        self.copied = 0
        self.last = 0
        self.high = 0
        self.conversions: list[str] = []

    def step(self) -> None:
        current, peak = tracemalloc.get_traced_memory()
        if peak > self.last:
            self.copied += peak - self.last
        self.high = max(self.high, peak)
        tracemalloc.reset_peak()
        self.last = current

    def trace(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any]:
        self.events += 1
        self.step()
        if event == "exception" and isinstance(arg[1], ValueError) and \
                "integer string conversion" in str(arg[1]):
            self.conversions.append(f"{frame.f_code.co_filename}:{frame.f_lineno} "
                                    f"{frame.f_code.co_name}")
        return self.trace


def _outcome(op: Callable[[], Any]) -> tuple[Any, ...]:
    try:
        return ("ok", op())
    except LexCodecError as exc:
        return ("error", type(exc), str(exc))


@contextmanager
def _metered() -> Iterator[_Meter]:
    meter = _Meter()
    started = tracemalloc.is_tracing()
    if not started:
        tracemalloc.start()
    old = sys.gettrace()
    try:
        tracemalloc.reset_peak()
        meter.last = meter.high = tracemalloc.get_traced_memory()[0]
        sys.settrace(meter.trace)
        try:
            yield meter
        finally:
            sys.settrace(old)
    finally:
        if not started:
            tracemalloc.stop()


def measure(op: Callable[[], Any], *, warm: bool = True) -> tuple[tuple[Any, ...], Work]:
    """*op*'s outcome (``("ok", result)`` or ``("error", class, message)``; any other exception
    escapes) and its :class:`Work`. With *warm*, *op* runs once unmeasured first, so that
    bind caches and lazy imports are not counted."""
    if warm:
        _outcome(op)
    with _metered() as meter:
        base = meter.last
        result = _outcome(op)
        meter.step()
    return result, Work(meter.events, meter.copied, max(meter.high - base, 0))


@contextmanager
def int_digits_limit(limit: int) -> Iterator[None]:
    """``sys.set_int_max_str_digits(limit)`` for the block (0: no limit)."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(limit)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)


def huge_int_conversions(op: Callable[[], Any]) -> list[str]:
    """Where *op* attempted to turn an int of more than 640 digits into decimal text or back
    (the quadratic primitive), even where the ValueError was caught: *op* runs under Python's
    smallest limit, traced. Only Python code is seen (the reference implementation)."""
    with int_digits_limit(SMALLEST_DIGITS_LIMIT), _metered() as meter, \
            suppress(LexCodecError, ValueError):
        op()
    return meter.conversions


def assert_linear(small: Work, big: Work, factor: float, what: Any, *,
                  slack_events: int = 500, slack_bytes: int = 256 * 1024,
                  events: bool = True) -> None:
    """*big* (the input *factor* times larger than *small*'s) did at most twice linear work:
    ``2 * factor`` times as many events, copied bytes and peak bytes, plus a constant.
    Quadratic work would be ``factor ** 2`` times as much. With *factor* 1 (an input whose
    size should not matter, as an exponent's), at most twice the work. Without *events*,
    only the bytes are compared (a compiled module that handed one input over to the
    reference and not the other: their Python events are not the same kind of work)."""
    bound = 2 * factor
    measures = (("events", slack_events),) if events else ()
    for name, slack in (*measures, ("copied", slack_bytes), ("peak", slack_bytes)):
        a, b = getattr(small, name), getattr(big, name)
        assert b <= bound * a + slack, (
            f"{what}: {name} grew from {a} to {b} for {factor:g}x the input; expected at most "
            f"{bound:g}x + {slack} (linear), quadratic would be {factor ** 2:g}x")
