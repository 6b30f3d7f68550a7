"""``inspect`` for LexKey: a decode that annotates every byte as it reads.

Theory of operation: with a schema, :func:`inspect` runs the bound schema's own reader
(:meth:`.bound.BoundLexKey.read`, the code ``decode`` runs) with a sink that turns each
field's span and value into parts (payload, the ``00`` inside a string, the separator) and
notes. So what inspect shows is what decode reads, and bytes decode refuses inspect refuses
with the same error. A LexKey key says much less than the view suggests, so the notes say
where it is ambiguous: a variable field's length is what the fixed parts leave, a ``00``
inside it looks and sorts like a separator, a fixed-width part carries no type (its bytes are
shown read as the other types of its width, through the same readers), a ``00`` part is also
NULL and False, and -0.0 and the Go NaN bytes are pointed out, each with the name of its
declared anomaly. Without a schema nothing decodes: the key is shown as one raw part with
what its ``00`` bytes can and cannot be.
"""

from __future__ import annotations

import datetime as _dt
import re
import uuid
from typing import TYPE_CHECKING, Any, Final

from ...codec import SchemaLike, as_key_bytes
from ...errors import DecodeError
from ...inspection import FieldView, Inspection, Part
from ...schema import Field, KeySchema
from ...types import INT_TYPES, Int64
from .bound import BoundLexKey
from .format import GO_NAN32, GO_NAN64, VARIABLE, WIDTHS
from .reference_decode import field_reader

if TYPE_CHECKING:
    from .codec import LexKeyBase

__all__ = ["inspect"]


def inspect(codec: LexKeyBase, key: bytes, schema: SchemaLike | None = None) -> Inspection:
    """How *schema* reads the key: each part's bytes and type, the ``00`` separators, and
    notes on what the bytes alone do not say. Without a schema: one raw part, and notes."""
    data = as_key_bytes(codec.name, key)
    if schema is None:
        return _inspect_schemaless(codec, data)
    parsed = KeySchema.coerce(schema)
    bound = codec.bind(parsed)
    assert isinstance(bound, BoundLexKey)
    annotate = _Annotator(codec, parsed, data, bound.fixed_bytes)
    # the reference reader, the one decode runs: NotDecodableError, or a DecodeError with
    # the offset, exactly as decode refuses
    BoundLexKey.read(bound, data, annotate)
    return Inspection(codec.name, data, tuple(annotate.fields), tuple(annotate.notes),
                      str(parsed))


class _Annotator:
    """The sink of :meth:`BoundLexKey.read`: each field read becomes a view and notes."""

    def __init__(self, codec: LexKeyBase, schema: KeySchema, data: bytes, fixed: int) -> None:
        self.codec, self.schema, self.data, self.fixed = codec, schema, data, fixed
        self.fields: list[FieldView] = []
        self.notes = ["LexKey has no type tags, lengths or escaping: this is how the schema "
                      "reads the key; the bytes alone do not say where its parts end or what "
                      "they are"]

    def __call__(self, index: int, start: int, stop: int, value: Any) -> None:
        f = self.schema.fields[index]
        n = len(self.schema)
        data = self.data
        parts = _part_parts(self.codec, f, data, start, stop, value)
        where = f"field {index} {f.name!r} ({f.type})"
        if f.type in VARIABLE and n > 1:
            self.notes.append(f"{where} is {_plural(stop - start)}: what is left of the key "
                              f"after the fixed-width parts and separators ({self.fixed} "
                              "bytes)")
        self.notes += _part_notes(self.codec, where, f, data[start:stop], value, start,
                                  len(data) - 1)
        if index < n - 1:
            parts.append(Part(stop, stop + 1, "separator", "00 between parts"))
            stop += 1
        self.fields.append(FieldView(index, f.name, start, stop, value, tuple(parts), f.type))


# -- the parts and notes of one field ---------------------------------------------------------

#: the field types shown as other readings of a fixed-width part ("int" is int64's alias)
_READINGS: Final = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "float32",
                    "int64", "uint64", "float64", "timestamp", "duration", "uuid")


def _plural(n: int) -> str:
    return "1 byte" if n == 1 else f"{n} bytes"


def _show(v: Any) -> str:
    if isinstance(v, _dt.datetime):
        return v.isoformat()
    if isinstance(v, _dt.timedelta):
        return f"timedelta({v})"
    if isinstance(v, uuid.UUID):
        return str(v)
    return repr(v)


def _readings(codec: LexKeyBase, raw: bytes, field: Field | None, value: Any) -> list[str]:
    """What *raw* also reads as under the other fixed-width types of its width.

    In ``lexkey`` the narrow integer types are int64/uint64 readings with a range check, so
    only the types written at their own width are tried.
    """
    out = []
    for t in _READINGS:
        if codec.width(t) != len(raw) or (not codec.NATIVE and WIDTHS[t][0] != WIDTHS[t][1]):
            continue
        if field is not None and (t == field.type or (t, field.type) == ("int64", "int")):
            continue
        try:
            other = field_reader(t, codec.NATIVE, codec.go_nan)(raw)
        except DecodeError:
            continue
        if field is not None and type(other) is type(value) and other == value:
            continue
        out.append(f"{t} {_show(other)}")
    return out


def _nul_offsets(raw: bytes, base: int) -> list[int]:
    return [base + j for j, b in enumerate(raw) if b == 0]


def _at(offsets: list[int]) -> str:
    """``byte 3`` or ``bytes 3, 5-10``: runs of offsets shortened."""
    runs: list[list[int]] = []
    for o in offsets:
        if runs and runs[-1][1] == o - 1:
            runs[-1][1] = o
        else:
            runs.append([o, o])
    text = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)
    return f"byte {text}" if len(offsets) == 1 else f"bytes {text}"


def _part_parts(codec: LexKeyBase, field: Field, data: bytes, pos: int, stop: int, value: Any
                ) -> list[Part]:
    """The parts of one field's bytes ``data[pos:stop]`` (its separator is added after)."""
    t = field.type
    raw = data[pos:stop]
    if t in VARIABLE:
        if not raw:
            return [Part(pos, pos, "payload", f"empty {t}: no bytes")]
        parts = []
        at = pos
        for j in [*_nul_offsets(raw, pos), stop]:
            if j > at:
                chunk = data[at:j]
                parts.append(Part(at, j, "payload", f"{chunk!r}, raw" if t == "bytes"
                                  else f"UTF-8 {chunk.decode('utf-8')!r}, raw"))
            if j < stop:
                parts.append(Part(j, j + 1, "nul", f"a 00 of the {t}, not escaped: only the "
                                  "widths say it is no separator"))
            at = j + 1
        return parts
    width = len(raw)
    if t == "bool":
        text = "true" if value else "false (None is also written 00)"
    elif t in INT_TYPES or t == "int":
        cls = INT_TYPES.get(t, Int64)
        as_read = f"{'int' if cls.signed else 'uint'}{8 * width}"
        text = f"{value}: {as_read}" + (", sign bit flipped" if cls.signed else ", big-endian")
        if as_read != cls.type_name and t != "int":
            text += f" (canonical width; must fit {t})"
    elif t in ("float64", "float32"):
        go_nan = codec.go_nan and raw in (GO_NAN64, GO_NAN32)
        text = (f"{_show(value)}: " + ("the Go reference's NaN bytes, not transformed"
                                       if go_nan else
                                       "00…00, only the sign bit flipped (the literal rule)"
                                       if not any(raw) else
                                       f"IEEE binary{8 * width}, every bit inverted (x < 0)"
                                       if raw[0] < 0x80 else
                                       f"IEEE binary{8 * width}, sign bit flipped"))
        if t == "float32" and width == 8:
            text += " (a float32 widened to float64)"
    elif t in ("timestamp", "duration"):
        text = (f"{_show(value)}: " + ("ns since 1970-01-01 UTC" if t == "timestamp"
                                       else "ns") + " as int64, sign bit flipped")
    else:
        text = f"{value} (16 bytes)"
    return [Part(pos, stop, "payload", text)]


def _part_notes(codec: LexKeyBase, where: str, field: Field, raw: bytes, value: Any, pos: int,
                last: int) -> list[str]:
    """The ambiguities of one field's bytes *raw* (at *pos*; *last* is the offset of the
    key's last byte), as notes."""
    t = field.type
    notes = []
    nuls = _nul_offsets(raw, pos)
    if t in VARIABLE:
        if nuls:
            pieces: tuple[Any, ...] = tuple(raw.split(b"\x00"))
            if t == "string":
                pieces = tuple(p.decode("utf-8") for p in pieces)
            notes.append(f"{where} holds 00 at {_at(nuls)}: LexKey "
                         "does not escape it, so it looks like a separator and sorts like one "
                         f"(nul-sorts-as-separator); the same bytes are the parts {pieces!r}")
        if raw == b"\x00":
            notes.append(f"{where} is the single byte 00, which is also how None (NULL) and "
                         "False are written (not-injective)")
        return notes
    if t == "bool" and raw == b"\x00":
        notes.append(f"{where} is 00: False, and also how None (NULL) is written; a NULL reads "
                     "back as False (null-does-not-round-trip)")
    if t in ("float64", "float32") and not any(raw):
        notes.append(f"{where} is -0.0, written 00…00 by the literal rule: it sorts below -inf "
                     "(negative-zero-below-inf)")
    if raw in (GO_NAN64, GO_NAN32) and t in ("float64", "float32") and (
            len(raw) == 8 or codec.NATIVE):
        number = ("-1.1125369292535997e-308" if len(raw) == 8
                  else "the float32 with bits 803ffffe")
        notes.append(f"{where} holds {raw.hex()}, the Go reference's NaN, which is also the "
                     f"key of {number} (go-nan-collides): "
                     + ("read as NaN under nan='go'" if codec.go_nan
                        else "read as that number under the default nan='error'"))
    others = _readings(codec, raw, field, value)
    # a key's last byte is never a separator: nothing follows the last part
    nuls = [o for o in nuls if o != last]
    if others or nuls:
        text = f"{where}: no tag says its type is {t}"
        if others:
            text += (f"; as another type its {_plural(len(raw))} "
                     f"{'reads' if len(raw) == 1 else 'read'} as " + ", ".join(others))
        if nuls:
            text += (f"; read without the schema, its 00 at {_at(nuls)} could be taken for "
                     + ("a separator" if len(nuls) == 1 else "separators"))
        notes.append(text)
    return notes


def _inspect_schemaless(codec: LexKeyBase, data: bytes) -> Inspection:
    """Without a schema: the key as one raw part, its 00 bytes marked, and what can be told."""
    nuls = _nul_offsets(data, 0)
    parts = []
    for run in re.finditer(rb"\x00+|[^\x00]+", data):
        a, b = run.span()
        if data[a]:
            parts.append(Part(a, b, "data", "no 00: inside one part"))
            continue
        final = b == len(data)  # a key's last byte is never a separator
        if b - final > a:
            parts.append(Part(a, b - final, "separator?", "a separator, a NULL or False part, "
                              "or a 00 inside a value" if b - final - a == 1 else
                              f"{b - final - a} × 00: each a separator, a NULL or False part, "
                              "or a 00 inside a value"))
        if final:
            parts.append(Part(b - 1, b, "nul", "no separator (nothing follows the last part): "
                              "a NULL or False part, or the last byte of a value"))
    if not data:
        parts.append(Part(0, 0, "data", "empty: the key of ('',) or (b'',)"))
    notes = ["without a schema LexKey keys do not decode: they carry no type tags, lengths or "
             "escaping, so neither the number of parts nor their types can be told; the key "
             "is shown as one raw part. Inspect with a schema that has at most one string or "
             "bytes field"]
    seps = [o for o in nuls if o != len(data) - 1]  # the last byte is never a separator
    if seps:
        notes.append(f"00 at {_at(seps)}: every separator is one of "
                     f"them, so the key has at most {len(seps) + 1} parts; but any of them may "
                     "instead be a NULL or False part, or a byte of a string, bytes or number")
    if nuls:
        if nuls[0] == 0 and len(data) > 1:
            notes.append("the key starts with 00: the separator after an empty first part "
                         "('' or b''), or a NULL or False part, or the first byte of a value")
        if nuls[-1] == len(data) - 1:
            notes.append("the key ends with 00, which is no separator (nothing follows the "
                         "last part): a NULL or False last part, the last byte of a value, or "
                         "the 00 that encode_first appends")
    if data and not seps:
        notes.append("no 00 byte that can be a separator: the key is a single part")
    others = _readings(codec, data, None, None)
    if others:
        notes.append(f"as one fixed-width part, its {len(data)} bytes read as "
                     + ", ".join(others))
    return Inspection(codec.name, data, (FieldView(0, None, 0, len(data), data, tuple(parts)),),
                      tuple(notes))

