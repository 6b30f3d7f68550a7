"""A plugin codec with a "compiled path", as a third-party author would write one: the toy
codec of ``toys.py``, whose bound class under ``lexcodecs._impl.use("compiled")`` is
:class:`FastBound` (this module stands in for a built extension) and under ``"reference"`` the
generic one. :class:`FastBound` writes keys of int64 fields itself and hands anything else to
the reference path, counting in ``lexcodecs._impl.HANDOVERS["toy_compiled"]``, as the built-in
compiled modules do.

The broken variants are what ``test_differential_harness.py`` proves
:class:`~lexcodecs.testing.DifferentialConformance` catches: a fast path that writes other
bytes, one that lets a foreign exception out, and one that hands every value over.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from toys import NULL_FIRST, NULL_LAST, VALUE, ToyCodec

from lexcodecs import _impl
from lexcodecs._bytes import invert
from lexcodecs.codec import BoundKey, FieldPlan
from lexcodecs.schema import KeySchema

__all__ = ["FastBound", "ForeignErrorFast", "HandsEverythingOver", "ToyWithCompiledPath",
           "WrongBytesFast"]

KEY = "toy_compiled"


class FastBound(BoundKey):
    """The "compiled" bound class: keys of int64 fields (exact ints in range, or NULL), in
    either order, written here; anything else handed over to the reference path (one count
    per key)."""

    __slots__ = ()
    #: whether this fast path takes keys as its own at all
    takes: ClassVar[bool] = True

    def _fast(self, values: Any) -> bytes | None:
        if not self.takes or type(values) not in (tuple, list) or \
                len(values) != len(self.schema):
            return None
        out = []
        for f, v in zip(self.schema.fields, values):
            if f.type != "int64":
                return None
            if v is None:
                out.append(NULL_FIRST if f.effective_nulls == "first" else NULL_LAST)
                continue
            if type(v) is not int or not -(2**63) <= v < 2**63:
                return None
            field = VALUE + self.write_int(v)
            out.append(invert(field) if f.descending else field)
        return b"".join(out)

    @staticmethod
    def write_int(v: int) -> bytes:
        return (v + 2**63).to_bytes(8, "big")

    def encode(self, values: Any) -> bytes:
        key = self._fast(values)
        if key is None:
            _impl.HANDOVERS[KEY] += 1
            return super().encode(values)
        return key


class ToyWithCompiledPath(ToyCodec):
    """The toy codec, bound to :class:`FastBound` under the compiled implementation."""

    fast: ClassVar[type[FastBound]] = FastBound

    def make_bound(self, schema: KeySchema, plans: Sequence[FieldPlan]) -> BoundKey:
        if _impl.current == "compiled":
            return self.fast(self, schema, plans)
        return BoundKey(self, schema, plans)


class _WrongBytes(FastBound):
    __slots__ = ()

    @staticmethod
    def write_int(v: int) -> bytes:
        return (v % 2**64).to_bytes(8, "big")  # two's complement: negatives last


class WrongBytesFast(ToyWithCompiledPath):
    """Its fast path writes negative ints after the positive ones."""

    fast = _WrongBytes


class _ForeignError(FastBound):
    __slots__ = ()

    def _fast(self, values: Any) -> bytes | None:
        if type(values) is tuple and any(type(v) is bool for v in values):
            raise TypeError("bool is not an int here")  # leaks out of the codec
        return super()._fast(values)


class ForeignErrorFast(ToyWithCompiledPath):
    """Its fast path lets a TypeError out for a bool."""

    fast = _ForeignError


class _Hands(FastBound):
    __slots__ = ()
    takes = False


class HandsEverythingOver(ToyWithCompiledPath):
    """Its fast path takes nothing as its own."""

    fast = _Hands
