"""The declared anomalies of ``sqlite4``: where its key order or equality differs from the
values' own (data read by the conformance harness, ``compare`` and the docs).

A float is written as the decimal of its shortest repr (spec §11), so it sorts and collides as
that decimal, not as its exact binary value.
"""

from __future__ import annotations

import decimal
import math
from typing import Any, Final

from ...codec import Anomaly
from ...schema import KeySchema

__all__ = ["ANOMALIES"]


def _exact_vs_repr_differ(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """At the first position where a and b differ exactly, one is a float and the other an
    int or Decimal, and comparing the float as its repr decimal gives another answer."""
    for x, y in zip(a, b):
        if x is None or y is None or type(x) is bool or type(y) is bool:
            if x is y:
                continue
            return False
        try:
            if x == y and type(x) is type(y):
                continue
        except TypeError:
            return False
        floats = [isinstance(v, float) for v in (x, y)]
        if floats[0] == floats[1]:
            return False
        if not all(isinstance(v, (int, float, decimal.Decimal)) for v in (x, y)):
            return False
        if any(isinstance(v, float) and not math.isfinite(v) for v in (x, y)):
            return False
        rx, ry = (decimal.Decimal(repr(v)) if isinstance(v, float) else decimal.Decimal(v)
                  for v in (x, y))
        exact = (x > y) - (x < y)
        by_repr = (rx > ry) - (rx < ry)
        return bool(exact != by_repr)
    return False


def _explain_repr(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return _exact_vs_repr_differ(a, b)


#: the anomalies sqlite4 declares
ANOMALIES: Final = (
    Anomaly("float-orders-as-repr", "order",
            "a float counts as the decimal of its shortest repr, not its exact binary value: "
            "1e23 is exactly 99999999999999991611392, yet it sorts as 1E+23, after "
            "Decimal('99999999999999991611392.5')",
            witness=((1e23,), (decimal.Decimal("99999999999999991611392.5"),)),
            explains=_explain_repr),
    Anomaly("float-shares-its-repr-decimal-key", "collision",
            "the float 0.1 (exactly 0.1000000000000000055511151231257827...) and "
            "Decimal('0.1') have the same key 17 14",
            witness=((0.1,), (decimal.Decimal("0.1"),)), explains=_explain_repr),
)
