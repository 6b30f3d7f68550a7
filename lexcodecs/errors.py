"""The exception hierarchy of lexcodecs.

Theory of operation: every refusal a user can meet is one of these classes, and its message
names *where* (the codec, the field by index and name, or the byte offset), *what came* (the
value, abbreviated) and *what was expected*. Low-level encoders and decoders raise an error
that knows only the value and the reason; the layer above fills in the codec and the field
with :meth:`LexCodecError.add_context` as the error passes through, so the hot paths never
build context they do not need.

::

    LexCodecError
    ├── EncodeError (ValueError)            a value cannot be written
    │   └── UnsupportedTypeError (TypeError)   ... because of its Python type
    ├── DecodeError (ValueError)            bytes are not a key of this codec/schema
    ├── NotDecodableError (ValueError)      the format cannot be decoded under this schema
    ├── SchemaError (ValueError)            bad schema text or a schema the codec cannot express
    ├── OptionError (ValueError)            a codec option is unknown or has a bad value
    ├── UnknownCodecError (LookupError)     no codec registered under that name
    └── RegistryError (ValueError)          a registration conflicts with another one
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "DecodeError",
    "EncodeError",
    "LexCodecError",
    "NotDecodableError",
    "OptionError",
    "RegistryError",
    "SchemaError",
    "UnknownCodecError",
    "UnsupportedTypeError",
    "describe_int",
    "describe_value",
    "with_article",
]

#: Longest ``repr`` of a value quoted in a message; a 1 MB bytes value must not make a 2 MB
#: error message.
MAX_VALUE_REPR = 80


class _Nothing:
    """The "no value given" marker; a singleton that pickles to itself (``has_value`` must
    survive a round trip through a process pool)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<no value>"

    def __reduce__(self) -> str:
        return "_NOTHING"


_NOTHING: Any = _Nothing()


def with_article(word: str) -> str:
    """*word* after "a" or "an", by its sound, for the type names messages put it before:
    "an" before a vowel sound (``int64``, ``object``, ``Enum``), "a" before the others and
    before a "u" said "you" (``uint8``, ``uuid``, ``UUID``).

    >>> with_article("float64"), with_article("int16"), with_article("uint8")
    ('a float64', 'an int16', 'a uint8')
    """
    return f"{'an' if word[:1].lower() in ('a', 'e', 'i', 'o') else 'a'} {word}"


def describe_value(value: Any, limit: int = MAX_VALUE_REPR) -> str:
    """``repr(value)`` cut to *limit* characters, with the cut marked and the full size told.

    Linear in the value's size whatever it is: a big int is described by its size, never
    turned into decimal text (quadratic, and refused by Python beyond 4300 digits); a long
    str or bytes is cut before it is repr'd; a tuple or list is described item by item until
    the limit is spent.

    >>> print(describe_value(b"ab" * 100, limit=20))
    b'ababababababababa… (200 bytes)
    >>> print(describe_value(-10**5000))
    <int of 16610 bits, about -1e5000>
    """
    text = _bounded_repr(value, limit)
    if len(text) <= limit:
        return text
    size = ""
    try:
        if isinstance(value, (bytes, bytearray, memoryview)):
            size = f" ({len(value)} bytes)"
        elif isinstance(value, str):
            size = f" ({len(value)} chars)"
        elif isinstance(value, (tuple, list)):
            size = f" ({len(value)} items)"
    except Exception:  # a released memoryview, a lying __len__
        size = ""
    return text[: limit - 1] + "…" + size


#: longest "expected ..." part of a message (a list of choices may be longer than a value)
MAX_EXPECTED = 4 * MAX_VALUE_REPR


def _cut(text: str, limit: int = MAX_EXPECTED) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


#: ints up to this many bits (1234 digits) are converted to decimal text (cheap at that size),
#: then cut; larger ones are described by their size and magnitude
_INT_SHOWN_BITS = 4096


def describe_int(n: int, limit: int | None = MAX_VALUE_REPR) -> str:
    """An int as text cut to *limit* characters (``None``: uncut) if it is not huge, else its
    size and magnitude, in time linear in its size: never a full decimal conversion, which is
    quadratic and refused by Python beyond 4300 digits.

    >>> describe_int(-12345)
    '-12345'
    >>> describe_int(-10**5000)
    '<int of 16610 bits, about -1e5000>'
    """
    n = int.__index__(n) if type(n) is not int else n  # subclasses: the real value
    bits = n.bit_length()
    if bits <= _INT_SHOWN_BITS:
        text = int.__repr__(n)
        return text if limit is None or len(text) <= limit else text[:limit - 1] + "…"
    # log10 from the top 64 bits: exact enough for a magnitude, linear in the size
    top = abs(n) >> (bits - 64)
    log10 = math.log10(top) + (bits - 64) * math.log10(2)
    exponent = math.floor(log10)
    mantissa = 10 ** (log10 - exponent)
    sign = "-" if n < 0 else ""
    return f"<int of {bits} bits, about {sign}{mantissa:.3g}e{exponent}>"


def _bounded_repr(value: Any, limit: int) -> str:
    """``repr(value)``, but stopping soon after *limit* characters where that saves work."""
    try:
        if isinstance(value, int) and not isinstance(value, bool):
            if type(value) is int or type(value).__repr__ is int.__repr__:
                return describe_int(value, None)
        elif type(value) in (str, bytes, bytearray):
            if len(value) > limit:
                return repr(value[:limit]) + "…"
        elif type(value) in (tuple, list):
            opening, closing = ("(", ")") if type(value) is tuple else ("[", "]")
            parts: list[str] = []
            used = 1
            for item in value:
                if used > limit:
                    parts.append("…")
                    break
                part = _bounded_repr(item, limit - used)
                parts.append(part)
                used += len(part) + 2
            if type(value) is tuple and len(parts) == 1:
                return f"({parts[0]},)"
            return opening + ", ".join(parts) + closing
        return repr(value)
    except Exception:  # a broken __repr__ must not hide the real error
        return f"<{type(value).__name__} object>"


class LexCodecError(Exception):
    """Root of every lexcodecs error.

    The structured parts are attributes, so programs need not parse messages:
    ``codec`` (registry name or ``None``), ``field`` (index or ``None``), ``field_name``,
    ``value`` (the offending value, or missing), ``expected`` and ``reason``.
    """

    def __init__(
        self,
        reason: str,
        *,
        codec: str | None = None,
        field: int | None = None,
        field_name: str | None = None,
        field_type: str | None = None,
        value: Any = _NOTHING,
        expected: str | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.codec = codec
        self.field = field
        self.field_name = field_name
        self.field_type = field_type
        self.value = value
        self.expected = expected

    @property
    def has_value(self) -> bool:
        return self.value is not _NOTHING

    def add_context(
        self,
        *,
        codec: str | None = None,
        field: int | None = None,
        field_name: str | None = None,
        field_type: str | None = None,
    ) -> LexCodecError:
        """Fill in the parts still unknown; returns ``self``, for ``raise e.add_context()``."""
        if self.codec is None:
            self.codec = codec
        if self.field is None and field is not None:
            self.field = field
            self.field_name = field_name if self.field_name is None else self.field_name
            self.field_type = field_type if self.field_type is None else self.field_type
        return self

    def _where(self) -> str:
        parts = []
        if self.codec is not None:
            parts.append(self.codec)
        if self.field is not None or self.field_name:
            # a field known by name only (a Field being built) is still named
            f = "field" if self.field is None else f"field {self.field}"
            if self.field_name:
                f += f" {self.field_name!r}"
            if self.field_type:
                f += f" ({self.field_type})"
            parts.append(f)
        return ": ".join(parts)

    def _what(self) -> str:
        text = self.reason
        if self.has_value:
            text = f"{describe_value(self.value)}: {text}"
        if self.expected:
            text += f"; expected {_cut(self.expected)}"
        return text

    def __str__(self) -> str:
        where = self._where()
        return f"{where}: {self._what()}" if where else self._what()

    def __repr__(self) -> str:
        # the whole message (where, what came, what was expected), not only the reason;
        # its first line, as a SchemaError's caret lines are for printing
        text = str(self).splitlines()
        return f"{type(self).__name__}({text[0] if text else self.reason!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # keyword-only constructors do not pickle by default; a process pool must see the
        # same error the worker raised
        return (_rebuild, (type(self), self.reason, self.__dict__.copy()))


def _rebuild(cls: type[LexCodecError], reason: str, state: dict[str, Any]) -> LexCodecError:
    err = cls.__new__(cls)
    Exception.__init__(err, reason)
    err.__dict__.update(state)
    return err


class EncodeError(LexCodecError, ValueError):
    """A value cannot be encoded: out of range, NaN where refused, a bad shape of key.

    >>> str(EncodeError("out of range", codec="skv", field=1, field_name="ts",
    ...                 field_type="int16", value=70000, expected="-32768..32767"))
    "skv: field 1 'ts' (int16): 70000: out of range; expected -32768..32767"
    """


class UnsupportedTypeError(EncodeError, TypeError):
    """A value's Python type is not one the codec (or the field) accepts."""


class DecodeError(LexCodecError, ValueError):
    """Bytes that are not a valid key. ``offset`` is the byte offset of the problem.

    >>> print(DecodeError("unknown type code", codec="fdb-tuple", offset=3, found=b"\\x99"))
    fdb-tuple: at byte 3 (found 99): unknown type code
    """

    def __init__(self, reason: str, *, offset: int | None = None, found: bytes | None = None,
                 **context: Any) -> None:
        # context: codec, field, field_name, field_type, expected (as LexCodecError)
        super().__init__(reason, **context)
        self.offset = offset
        self.found = found

    def _what(self) -> str:
        head = []
        if self.offset is not None:
            head.append(f"at byte {self.offset}")
        if self.found is not None:
            shown = self.found[:16].hex(" ")
            head.append(f"(found {shown}{' …' if len(self.found) > 16 else ''})" if shown
                        else "(found end of key)")
        text = " ".join(head)
        text = f"{text}: {self.reason}" if text else self.reason
        if self.expected:
            text += f"; expected {_cut(self.expected)}"
        return text


class NotDecodableError(LexCodecError, ValueError):
    """The format cannot turn keys back into values under this schema (or without one)."""


class SchemaError(LexCodecError, ValueError):
    """Schema text that does not parse, or a schema the codec cannot express.

    Parse errors carry ``text`` and ``position`` (0-based) and show a caret under the spot.
    """

    def __init__(self, reason: str, *, text: str | None = None, position: int | None = None,
                 **context: Any) -> None:
        # context: codec, field, field_name, field_type, value, expected (as LexCodecError)
        super().__init__(reason, **context)
        self.text = text
        self.position = position

    def __str__(self) -> str:
        base = super().__str__()
        if self.text is None or self.position is None:
            return base
        return f"{base} (at column {self.position + 1})\n  {self.text}\n  {' ' * self.position}^"


class OptionError(LexCodecError, ValueError):
    """A codec option (``get_codec(name, **options)``) is unknown or has a bad value."""

    def __init__(
        self,
        reason: str,
        *,
        codec: str | None = None,
        option: str | None = None,
        value: Any = _NOTHING,
        expected: str | None = None,
    ) -> None:
        super().__init__(reason, codec=codec, value=value, expected=expected)
        self.option = option

    def _where(self) -> str:
        where = super()._where()
        if self.option is not None:
            where = f"{where}: option {self.option!r}" if where else f"option {self.option!r}"
        return where


class UnknownCodecError(LexCodecError, LookupError):
    """No codec is registered under that name; ``close_matches`` lists likely intended names."""

    def __init__(self, name: str, *, available: tuple[str, ...] = (),
                 close_matches: tuple[str, ...] = ()) -> None:
        super().__init__("no codec of that name", value=name,
                         expected="one of " + ", ".join(available) if available else None)
        self.name = name
        self.available = available
        self.close_matches = close_matches

    def _what(self) -> str:
        text = f"unknown codec {self.name!r}"
        if self.close_matches:
            text += "; did you mean " + " or ".join(repr(m) for m in self.close_matches) + "?"
        if self.available:
            text += " (available: " + ", ".join(self.available) + ")"
        else:
            text += " (no codecs are registered)"
        return text

    def __str__(self) -> str:  # LookupError would otherwise quote the message as a KeyError does
        return self._what()


class RegistryError(LexCodecError, ValueError):
    """A registration that conflicts with an existing one, or a codec that will not load."""
