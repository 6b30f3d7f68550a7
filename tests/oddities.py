"""The odd values and the two-implementation check, for the tests that are not a
:class:`~lexcodecs.testing.DifferentialConformance` subclass.

They live in the public harness, where a plugin author's tests find them too:
:mod:`lexcodecs.testing.hostile` (the values a careless or hostile caller passes, and the keys
next to a valid one) and :mod:`lexcodecs.testing.differential` (:func:`both`, :func:`same`,
:func:`outcome`: one call under each implementation, compared). This module only names them
for ``from oddities import ...``.
"""

from __future__ import annotations

from lexcodecs.testing.differential import both, outcome, same
from lexcodecs.testing.hostile import (
    Colour,
    Liar,
    MyBytes,
    MyDecimal,
    MyFloat,
    MyInt,
    MyStr,
    pick,
    released_view,
    tampered_float32,
    tampered_uuid,
    unset_float32,
    unset_uuid,
    uuid_without_int,
)

__all__ = [
    "Colour",
    "Liar",
    "MyBytes",
    "MyDecimal",
    "MyFloat",
    "MyInt",
    "MyStr",
    "both",
    "outcome",
    "pick",
    "released_view",
    "same",
    "tampered_float32",
    "tampered_uuid",
    "unset_float32",
    "unset_uuid",
    "uuid_without_int",
]
