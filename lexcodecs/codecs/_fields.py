"""What the formats whose key is its fields back to back, each read by its own reader, share
(orderedcode, storekey): reading every field with its offsets, the reference's ``parse``
(the values and the bytes after the last field) and a whole-key ``decode`` (nothing left).

A subclass's ``_readers`` hold one reader per field, ``read(data, pos, parts) -> (value,
end)``, which appends the field's parts to *parts* when it is a list (``inspect``).
"""

from __future__ import annotations

from typing import Any

from ..codec import BoundKey, as_key_bytes
from ..errors import DecodeError, LexCodecError
from ..inspection import Part

__all__ = ["FieldsBound"]


class FieldsBound(BoundKey):
    """A bound schema read field by field (see the module)."""

    __slots__ = ()
    _readers: tuple[Any, ...]

    def careful_parse(self, key: bytes) -> tuple[tuple[Any, ...], bytes]:
        """The reference's parse: every field's value and the bytes after the last one."""
        data = as_key_bytes(self._name, key)
        values, ends = self.read_fields(data)
        return values, data[ends[-1] if ends else 0:]

    def careful_decode(self, key: bytes) -> tuple[Any, ...]:
        """The reference reading of a whole key: the parse, with nothing left over."""
        data = as_key_bytes(self._name, key)
        values, ends = self.read_fields(data)
        end = ends[-1] if ends else 0
        if end != len(data):
            raise DecodeError("bytes left after the last field", codec=self._name,
                              offset=end, found=data[end:], expected="end of key")
        return values

    def read_fields(self, data: bytes, annotate: list[list[Part]] | None = None
                    ) -> tuple[tuple[Any, ...], tuple[int, ...]]:
        """Every field from the start of *data*: the values and the offset after each.
        *annotate* collects each field's parts (``inspect``)."""
        data = as_key_bytes(self._name, data)
        values: list[Any] = []
        ends: list[int] = []
        pos = 0
        for i, read in enumerate(self._readers):
            parts: list[Part] | None = None
            if annotate is not None:
                parts = []
                annotate.append(parts)
            try:
                value, pos = read(data, pos, parts)
            except LexCodecError as exc:
                raise self._context(exc, i) from None
            values.append(value)
            ends.append(pos)
        return tuple(values), tuple(ends)
