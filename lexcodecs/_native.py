"""The optional C extension ``lexcodecs._speedups``, loaded and configured once for all codecs.

Theory of operation: fdb-tuple, skv, sqlite4 and orderly each have C fast paths in one
extension module. It is imported here, handed the Python types its answers are built from,
and offered to each codec through :func:`speedups`, which also checks that the module holds
that codec's function (a build older than the codec has not). ``LEXCODECS_PURE=1`` turns it
off, and without a C compiler it is simply missing: every codec then runs its Python code,
which gives the same answers.
"""

from __future__ import annotations

import decimal
import os
import uuid
from typing import Any, Final

from .types import Float32

__all__ = ["SPEEDUPS", "make_uuid", "speedups"]


def make_uuid(raw: bytes) -> uuid.UUID:
    """A UUID from 16 bytes without ``UUID.__init__``'s argument parsing (a third of the
    cost of decoding a UUID element)."""
    u = object.__new__(uuid.UUID)
    object.__setattr__(u, "int", int.from_bytes(raw, "big"))
    object.__setattr__(u, "is_safe", uuid.SafeUUID.unknown)
    return u


def _load() -> Any:
    """The C fast paths, configured; ``None`` without them or with LEXCODECS_PURE."""
    if os.environ.get("LEXCODECS_PURE"):
        return None
    try:
        from . import _speedups  # type: ignore[attr-defined]
    except ImportError:
        return None
    _speedups.configure(Float32, Float32.from_bits, uuid.UUID, make_uuid, decimal.Decimal)
    return _speedups


#: lexcodecs._speedups, or None
SPEEDUPS: Final = _load()


def speedups(function: str) -> Any:
    """The extension when it is loaded and has *function*, else None."""
    return SPEEDUPS if SPEEDUPS is not None and hasattr(SPEEDUPS, function) else None
