"""The reference LexKey bound schema: the readable encoder and decoder of a whole key.

Theory of operation: a bound schema is a plan, one :class:`FieldLayout` per field (its kind
and width from :mod:`.format`, its integer range, its reader from
:mod:`.reference_decode`) plus one encoder per field (from :mod:`.reference_encode`).
:class:`BoundLexKey` joins the encoders' parts with ``00``, and decodes by the widths: the
fixed parts and the separators leave the length of the one variable-length field, so a schema
with two of them does not decode. :meth:`BoundLexKey.read` tells a sink each field's span and
value as it reads, which is how ``inspect`` annotates a key (:mod:`.explain`).

This is the executable spec and the only code that shapes LexKey's errors. The compiled module
(``_compiled.pyx``) builds its C plan from the same layout, subclasses :class:`BoundLexKey`,
and hands whatever it does not take as its own (a subclass, a tampered object, a value to
refuse, a malformed key) to these methods for the whole key, which give the same bytes or
raise the typed error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

from ...codec import BoundKey, FieldPlan, as_key_bytes
from ...errors import DecodeError, EncodeError, NotDecodableError, UnsupportedTypeError
from ...schema import KeySchema
from .format import SEP
from .reference_decode import Reader

__all__ = ["BoundLexKey", "FieldLayout", "Sink"]


class FieldLayout(NamedTuple):
    """One field of a bound schema as plan data: its kind (:mod:`.format`), its width
    (``None``: variable), the range of an integer field, and its reader. The compiled module
    builds its C arrays from these."""

    kind: int
    width: int | None
    lo: int
    hi: int
    read: Reader


class Sink(Protocol):
    """What :meth:`BoundLexKey.read` tells as it reads (``explain`` annotates with it)."""

    def __call__(self, index: int, start: int, stop: int, value: Any) -> None: ...


class BoundLexKey(BoundKey):
    """Parts joined by 00; decoding by widths, with at most one variable-length field."""

    __slots__ = ("_fixed", "_layout", "_variable")

    def __init__(self, codec: Any, schema: KeySchema, plans: Sequence[FieldPlan],
                 layout: Sequence[FieldLayout]) -> None:
        super().__init__(codec, schema, plans)
        self._layout = tuple(layout)
        self._variable = tuple(i for i, f in enumerate(self._layout) if f.width is None)
        self._fixed = sum(f.width for f in self._layout if f.width is not None) \
            + len(self._layout) - 1

    @property
    def fixed_bytes(self) -> int:
        """The bytes of the fixed-width parts and the separators."""
        return self._fixed

    def encode(self, values: Sequence[Any]) -> bytes:
        return self.join_parts(self._check_arity(values))

    def prefix_range(self, values: Sequence[Any]) -> tuple[bytes, bytes | None]:
        values = self._check_arity(values, prefix=True)
        if not values:
            return b"", None
        body = self.prefix_parts(values)
        return body + b"\x00", body + b"\xff"

    def prefix_parts(self, values: Sequence[Any]) -> bytes:
        """The parts of 1..n values (the compiled bound class replaces this one)."""
        return self.join_parts(values)

    def join_parts(self, values: Sequence[Any]) -> bytes:
        """Each value written by its field's encoder, joined by 00; errors located."""
        try:
            return SEP.join([enc(v) for enc, v in zip(self._encoders, values)])
        except (EncodeError, UnsupportedTypeError) as exc:
            raise self._locate(exc, values) from None

    def decode(self, key: bytes) -> tuple[Any, ...]:
        return self.read(key)

    def read(self, key: bytes, sink: Sink | None = None) -> tuple[Any, ...]:
        """Decode *key* (spec §6), telling *sink* each field's span and value as it goes."""
        name = self._name
        if len(self._variable) > 1:
            names = ", ".join(f"{self.schema.fields[i].name!r}" for i in self._variable)
            raise NotDecodableError(
                f"fields {names} both have variable length; LexKey has no lengths, tags or "
                "escaping, so where one ends cannot be found", codec=name,
                expected="at most one string or bytes field")
        data = as_key_bytes(name, key)
        n, fixed = len(self._layout), self._fixed
        var_len = len(data) - fixed
        if self._variable:
            if var_len < 0:
                raise DecodeError(f"{len(data)} bytes, fewer than the {fixed} the fixed "
                                  "parts need", codec=name, offset=len(data), found=b"")
        elif var_len:
            raise DecodeError(f"length: {len(data)} bytes for a fixed {fixed}-byte key",
                              codec=name, offset=len(data), found=b"",
                              expected=f"{fixed} bytes")
        out = []
        pos = 0
        for i, field in enumerate(self._layout):
            size = var_len if field.width is None else field.width
            try:
                value = field.read(data[pos:pos + size])
            except DecodeError as exc:
                exc.offset = pos if exc.offset is None else pos + exc.offset
                raise self._context(exc, i) from None
            out.append(value)
            if sink is not None:
                sink(i, pos, pos + size, value)
            pos += size
            if i < n - 1:
                if data[pos] != 0:
                    raise DecodeError(f"byte {pos} must be the 00 separator", codec=name,
                                      offset=pos, found=data[pos:pos + 1], expected="00")
                pos += 1
        return tuple(out)
