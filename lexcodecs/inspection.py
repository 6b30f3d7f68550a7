"""Annotated breakdowns of keys: what each byte of a key is, for ``lexcodecs inspect``.

Theory of operation: a codec that knows its format explains a key with ``inspect(key,
schema=None) -> Inspection``: the fields in order, each with its byte span, its decoded value
and its *parts* -- the type or header byte and what it means, the payload, escapes,
terminators, NULL markers, exponents, lengths -- and notes for what the bytes cannot say
alone (LexKey's ambiguous part boundaries, say). :func:`inspect_key` is the one entry point:
it calls the codec's own ``inspect`` and, for a codec without one (a plugin), falls back to a
field-level breakdown from the bound schema's field readers, or to the decoded values alone.

Every built-in codec implements ``inspect``; a plugin may, with the classes below.
:meth:`Inspection.render` draws the breakdown as a table (:mod:`lexcodecs._console`, on rich);
:meth:`Inspection.to_dict` gives the same information as JSON-able data.
"""

from __future__ import annotations

from typing import Any, Final

import attrs

from ._console import Justify, table, to_text
from .codec import BoundKey, Codec, as_key_bytes
from .errors import describe_value
from .schema import KeySchema

__all__ = ["FieldView", "Inspection", "Part", "inspect_key"]

#: every column of the breakdown reads left to right
_LEFT: Final[tuple[Justify, ...]] = ("left", "left", "left", "left")
#: a width no line reaches: text that is not wrapped
_UNWRAPPED: Final = 1 << 20


@attrs.frozen
class Part:
    """Bytes ``key[start:end]`` of one field and what they are.

    ``role`` is a short word (``type``, ``header``, ``payload``, ``escape``, ``terminator``,
    ``null``, ``length``, ``exponent``, ``mantissa``, ``prefix``, ...); ``text`` says what the
    bytes mean.
    """

    start: int
    end: int
    role: str
    text: str


@attrs.frozen
class FieldView:
    """One field (or element) of a key: its span, value and parts."""

    index: int
    name: str | None
    start: int
    end: int
    value: Any
    parts: tuple[Part, ...] = ()
    kind: str = ""


@attrs.frozen
class Inspection:
    """A key explained: the fields, and notes about the key as a whole."""

    codec: str
    key: bytes
    fields: tuple[FieldView, ...]
    notes: tuple[str, ...] = ()
    schema: str | None = None

    def render(self, width: int | None = None) -> str:
        """The breakdown as text: a head line, a table with the row of each field (its span,
        name, type and value) followed by the rows of its parts, and the notes. *width* wraps
        it to that many columns; ``None`` leaves every line as long as it needs.

        >>> from lexcodecs import get_codec
        >>> print(inspect_key(get_codec("skv"), bytes.fromhex("0a01 0001"), "f:bool").render())
        skv key 0a 01 00 01 (4 bytes), schema f:bool
        bytes   hex     role          meaning
        ──────────────────────────────────────────
        [0:4]           field 0 'f'   bool = True
        [0:1]   0a      type          BOOL
        [1:2]   01      payload       true
        [2:4]   00 01   terminator    end of field
        """
        size = f"{len(self.key)} byte" + ("" if len(self.key) == 1 else "s")
        head = f"{self.codec} key {self.key.hex(' ') or '(empty)'} ({size})"
        if self.schema:
            head += f", schema {self.schema}"
        parts = table(["bytes", "hex", "role", "meaning"], [], justify=_LEFT)
        for f in self.fields:  # no blank line between fields: the text stays a doctest
            label = f"field {f.index}" + (f" {f.name!r}" if f.name else "")
            value = describe_value(f.value, 200)
            parts.add_row(f"[{f.start}:{f.end}]", "", label,
                          f"{f.kind} = {value}" if f.kind else value)
            for p in f.parts:
                parts.add_row(f"[{p.start}:{p.end}]",
                              self.key[p.start:p.end].hex(" ") or "(none)", p.role, p.text)
        notes = "\n".join(f"note: {n}" for n in self.notes)
        shown = (head, parts, notes) if notes else (head, parts)
        return to_text(*shown, width=width if width is not None else _UNWRAPPED)

    def __repr__(self) -> str:
        key = self.key[:8].hex(" ") + (" …" if len(self.key) > 8 else "")
        fields = f"{len(self.fields)} field" + ("" if len(self.fields) == 1 else "s")
        return f"<Inspection {self.codec} key {key or '(empty)'} ({len(self.key)} bytes), {fields}>"

    def to_dict(self) -> dict[str, Any]:
        return {
            "codec": self.codec, "key": self.key.hex(), "schema": self.schema,
            "fields": [{"index": f.index, "name": f.name, "kind": f.kind, "start": f.start,
                        "end": f.end, "value": describe_value(f.value, 1000),
                        "parts": [attrs.asdict(p) for p in f.parts]} for f in self.fields],
            "notes": list(self.notes),
        }


def inspect_key(codec: Codec, key: bytes, schema: KeySchema | str | None = None
                ) -> Inspection:
    """Explain *key* with *codec* (and *schema*, where the format needs one).

    Raises the codec's ``DecodeError`` for bytes that are not a key, so an explanation is
    never of something the codec would not read.
    """
    data = as_key_bytes(codec.name, key)
    parsed = KeySchema.coerce(schema) if schema is not None else None
    own = getattr(codec, "inspect", None)
    if callable(own):
        result = own(data, parsed)
        assert isinstance(result, Inspection)
        return result
    return _generic(codec, data, parsed)


def _generic(codec: Codec, key: bytes, schema: KeySchema | None) -> Inspection:
    """Field spans from the bound schema's readers; else the decoded values alone."""
    values = codec.decode(key, schema)
    text = None if schema is None else str(schema)
    if schema is not None:
        bound = codec.bind(schema)
        plans = getattr(bound, "plans", None) if isinstance(bound, BoundKey) else None
        if plans and all(p.decode is not None for p in plans):
            fields = []
            pos = 0
            for plan in plans:
                value, end = plan.decode(key, pos)
                fields.append(FieldView(plan.index, plan.field.name, pos, end, value,
                                        (Part(pos, end, "value", repr(value)),),
                                        plan.field.type))
                pos = end
            return Inspection(codec.name, key, tuple(fields),
                              ("this codec has no inspect(); field spans only",), text)
    return Inspection(codec.name, key, tuple(
        FieldView(i, schema.fields[i].name if schema else None, 0, len(key), v)
        for i, v in enumerate(values)),
        ("this codec has no inspect() and its fields have no byte spans here",), text)
