"""``inspect`` for ``fdb-tuple``: every byte of a key explained, by the decoder itself.

Theory of operation: :func:`inspect` runs the reference decoder
(:func:`~lexcodecs.codecs.fdb_tuple.reference_decode.decode_elements`) with an
:class:`Annotator` as its sink. The decoder tells the annotator each element it has read
(where, and the value) and each ``05``, ``00 ff`` and ``00`` of a nested tuple; the annotator
turns them into :class:`~lexcodecs.inspection.Part` objects: the type code and what it means,
the payload, the length byte, the ``00 ff`` escapes and the terminator. Inside a nested tuple
the roles start with ``nested`` and the texts with the element's index path (``[1][0]``).

Keys are refused by the same code that refuses them in ``decode``; notes name the elements
this codec would write differently (a non-minimal integer, the other ``max_u64_form``, an
incomplete versionstamp).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...codec import as_key_bytes
from ...errors import LexCodecError
from ...inspection import FieldView, Inspection, Part
from ...schema import KeySchema
from ...types import Versionstamp
from .format import (
    BYTES,
    DOUBLE,
    FALSE,
    FLOAT,
    INT_ZERO,
    KIND_OF_CODE,
    NAME,
    NEG_BIG,
    NESTED,
    NULL,
    POS_BIG,
    STRING,
    TRUE,
    UUID,
    VERSIONSTAMP,
)
from .reference_decode import decode_elements

if TYPE_CHECKING:
    from .codec import FdbTupleCodec

__all__ = ["Annotator", "inspect"]


def _label(path: list[int]) -> str:
    """``[1][0]``: where a child sits in its top-level tuple; the middle of a path deeper
    than eight levels is left out, so a deeply nested key gives no quadratic text."""
    if len(path) > 8:
        return ("".join(f"[{i}]" for i in path[:3]) + "…" +
                "".join(f"[{i}]" for i in path[-3:]) + f" (depth {len(path)})")
    return "".join(f"[{i}]" for i in path)


def _plural(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


class Annotator:
    """The decoder's annotation sink: the parts of every element read, in key order.

    ``path`` holds the index of the next child at each open nested level (empty at the top
    level), so each part can say where its element sits.
    """

    def __init__(self) -> None:
        self.parts: list[Part] = []
        self.path: list[int] = []

    def _add(self, start: int, stop: int, role: str, text: str) -> None:
        if self.path:
            role, text = f"nested {role}", f"{_label(self.path)} {text}"
        self.parts.append(Part(start, stop, role, text))

    def _next(self) -> None:
        if self.path:
            self.path[-1] += 1

    # -- what the decoder reports ------------------------------------------------------------

    def nested_open(self, pos: int) -> None:
        self._add(pos, pos + 1, "type", "nested tuple")
        self.path.append(0)

    def nested_null(self, pos: int) -> None:
        self._add(pos, pos + 2, "null", "NULL (00 ff in a nested tuple)")
        self._next()

    def nested_close(self, pos: int) -> None:
        self.path.pop()
        if self.path:
            self.parts.append(Part(pos, pos + 1, "nested terminator",
                                   f"{_label(self.path)} end of nested tuple"))
        else:
            self.parts.append(Part(pos, pos + 1, "terminator", "end of nested tuple"))
        self._next()

    def element(self, data: bytes, pos: int, end: int, value: Any) -> None:
        """An element other than a nested tuple, read from ``data[pos:end]``."""
        _EXPLAIN[data[pos]](self, data, pos, end, value)
        self._next()

    # -- one method per kind of element ------------------------------------------------------

    def _null(self, data: bytes, pos: int, end: int, value: Any) -> None:
        self._add(pos, end, "null", "NULL")  # top level only: nested, a null is 00 ff

    def _escaped(self, data: bytes, pos: int, end: int, value: Any) -> None:
        binary = data[pos] == BYTES
        self._add(pos, pos + 1, "type", "byte string" if binary else "unicode string (UTF-8)")
        at = pos + 1
        while at < end - 1:
            j = data.find(b"\x00\xff", at, end - 1)
            stop = end - 1 if j < 0 else j
            if stop > at:
                chunk = data[at:stop]
                self._add(at, stop, "payload", repr(chunk) if binary
                          else "UTF-8 " + repr(chunk.decode("utf-8")))
            if j < 0:
                break
            self._add(j, j + 2, "escape", "a 00 byte of the value, escaped as 00 ff")
            at = j + 2
        self._add(end - 1, end, "terminator",
                  "end of byte string" if binary else "end of string")

    def _int_zero(self, data: bytes, pos: int, end: int, value: Any) -> None:
        self._add(pos, end, "type", "int zero")

    def _int_fixed(self, data: bytes, pos: int, end: int, value: Any) -> None:
        n = end - pos - 1
        if data[pos] > INT_ZERO:
            self._add(pos, pos + 1, "type", f"int, {_plural(n, 'byte')}, positive")
            self._add(pos + 1, end, "payload", f"{value}, big-endian")
            return
        self._add(pos, pos + 1, "type", f"negative int, {_plural(n, 'byte')}")
        self._add(pos + 1, end, "payload",
                  f"{value} + 2**{8 * n} - 1 (one's complement of {-value}), big-endian")

    def _int_big(self, data: bytes, pos: int, end: int, value: Any) -> None:
        n = end - pos - 2
        negative = data[pos] == NEG_BIG
        self._add(pos, pos + 1, "type",
                  ("negative" if negative else "positive") + " int, arbitrary precision")
        self._add(pos + 1, pos + 2, "length", f"{_plural(n, 'byte')} follow" +
                  (f" ({data[pos + 1]:02x} XOR ff)" if negative else ""))
        if n:
            self._add(pos + 2, end, "payload",
                      f"{value} + 2**{8 * n} - 1 (one's complement of {-value}), big-endian"
                      if negative else f"{value}, big-endian")

    def _float(self, data: bytes, pos: int, end: int, value: Any) -> None:
        how = ("sign bit flipped (a value with the sign bit clear)" if data[pos + 1] & 0x80
               else "every bit inverted (a value with the sign bit set)")
        self._add(pos, pos + 1, "type",
                  "float (binary32)" if data[pos] == FLOAT else "double (binary64)")
        self._add(pos + 1, end, "payload", f"{value!r}: IEEE order transform, {how}")

    def _bool(self, data: bytes, pos: int, end: int, value: Any) -> None:
        self._add(pos, end, "type", "true" if value else "false")

    def _uuid(self, data: bytes, pos: int, end: int, value: Any) -> None:
        self._add(pos, pos + 1, "type", "UUID")
        self._add(pos + 1, end, "payload", f"{value} (16 bytes, network order)")

    def _stamp(self, data: bytes, pos: int, end: int, value: Any) -> None:
        tr = data[pos + 1:pos + 11]
        self._add(pos, pos + 1, "type", "versionstamp")
        self._add(pos + 1, pos + 11, "payload", "transaction version ff × 10: incomplete"
                  if tr == b"\xff" * 10 else "transaction version: commit "
                  f"{int.from_bytes(tr[:8], 'big')}, batch {int.from_bytes(tr[8:], 'big')}")
        self._add(pos + 11, end, "payload", f"user version {value.user_version}")


#: type code -> the Annotator method that explains an element of it (the decoder has read
#: the element, so every code here is one it accepts)
_EXPLAIN = {
    NULL: Annotator._null, BYTES: Annotator._escaped, STRING: Annotator._escaped,
    INT_ZERO: Annotator._int_zero, NEG_BIG: Annotator._int_big, POS_BIG: Annotator._int_big,
    **{c: Annotator._int_fixed for c in (*range(0x0C, 0x14), *range(0x15, 0x1D))},
    FLOAT: Annotator._float, DOUBLE: Annotator._float, FALSE: Annotator._bool,
    TRUE: Annotator._bool, UUID: Annotator._uuid, VERSIONSTAMP: Annotator._stamp,
}


def _holds_incomplete(value: Any) -> bool:
    """Whether a decoded value holds an incomplete versionstamp, at any depth (no recursion:
    decoding reads nesting deeper than the recursion limit)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if type(v) is tuple:
            stack.extend(v)
        elif isinstance(v, Versionstamp) and v.tr_version is None:
            return True
    return False


def form_note(codec: FdbTupleCodec, index: int, raw: bytes, value: Any) -> str | None:
    """Why element *index* is not in the form *codec* writes, or None if it is."""
    try:
        again = codec.encode((value,))
    except LexCodecError as exc:
        if _holds_incomplete(value):
            return (f"element {index} holds an incomplete versionstamp (transaction "
                    "version ff × 10): a plain encode refuses it, only "
                    "encode_with_versionstamp writes it; a complete stamp with that "
                    "transaction version also reads back as incomplete")
        # a nested tuple deeper than encode's recursion goes, say
        return f"element {index} is read, but encode refuses its value ({exc})"
    if again == raw:
        return None
    why = "a non-minimal form, read as every binding reads it"
    if raw[0] == NESTED:
        why = ("it holds a non-minimal integer or the other max_u64_form of "
               "±(2**64-1), read as every binding reads it")
    elif type(value) is int and abs(value) == 2**64 - 1:
        why = ("the other bindings' form of ±(2**64-1); this codec has max_u64_form="
               f"{codec.options['max_u64_form']!r}")
    return (f"element {index} ({raw.hex(' ')}) is not the form this codec writes for "
            f"{value!r} ({again.hex(' ')}): {why}")


def inspect(codec: FdbTupleCodec, key: Any, schema: Any = None) -> Inspection:
    """The key read by the reference decoder with an :class:`Annotator`, one
    :class:`~lexcodecs.inspection.FieldView` per element (see ``FdbTupleCodec.inspect``)."""
    data = as_key_bytes(NAME, key)
    parsed = None if schema is None else KeySchema.coerce(schema)
    if parsed is not None:
        codec.decode(data, parsed)  # a key that does not fit the schema is refused
    notes = Annotator()
    try:
        values, offsets = decode_elements(data, 0, notes, codec.max_depth)
    except LexCodecError as exc:
        raise exc.add_context(codec=NAME) from None
    fields: list[FieldView] = []
    remarks: list[str] = []
    parts = notes.parts
    at = 0
    for i, (value, start) in enumerate(zip(values, offsets)):
        end = offsets[i + 1] if i + 1 < len(offsets) else len(data)
        first = at
        while at < len(parts) and parts[at].start < end:
            at += 1
        f = parsed.fields[i] if parsed is not None else None
        fields.append(FieldView(i, f.name if f else None, start, end, value,
                                tuple(parts[first:at]),
                                f.type if f else KIND_OF_CODE[data[start]]))
        remark = form_note(codec, i, data[start:end], value)
        if remark:
            remarks.append(remark)
    return Inspection(NAME, data, tuple(fields), tuple(remarks),
                      None if parsed is None else str(parsed))
