"""The reference ``orderly`` strings and byte arrays (spec §9, §10).

Theory of operation: a string is its UTF-8 with 2 added to every byte, so ``00`` is left for
NULL and ``01`` for the terminator. A fixed byte array is its bytes, with no NULL. A variable
byte array is an optional raw prefix, then "reversed packed BCD": each byte as three decimal
digits, a nibble each (3 4 5 6 7 9 a c e f), ended by terminator nibbles 1 that fill the last
byte (a whole ``11`` byte after an even count when terminated).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from ...codec import plain_value
from ...errors import DecodeError, EncodeError, UnsupportedTypeError
from ...schema import Field
from .format import BYTE_NIBBLES, MINUS2, NIBBLE_TO_DIGIT, PLUS2
from .reference_field import FieldCodec, Sink, by_type, mask_bytes, short_hex, truncated


def _check_text(v: Any) -> str:
    text: str = str.__str__(v)  # the text itself, whatever a subclass says
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise EncodeError("lone surrogate is not encodable as UTF-8",
                          value=text[exc.start:exc.end],
                          expected="a str without lone surrogates") from None
    return text


class String(FieldCodec):
    ACCEPT: ClassVar[dict[type, Callable[[Any], Any]]] = {str: _check_text}

    def check(self, v: Any) -> Any:
        accept = by_type(self.ACCEPT, v)
        if accept is None:
            raise UnsupportedTypeError(f"{type(v).__name__} value in a string field", value=v,
                                       expected="str (use a bytes field for bytes)")
        return accept(v)

    def write(self, v: Any, t: bool) -> bytes:
        data = v.encode("utf-8").translate(PLUS2)
        if t or not data:
            data += b"\x01"
        return mask_bytes(data, self.mask)

    def length(self, v: Any, t: bool) -> int:
        return max(len(v.encode("utf-8")) + (1 if t else 0), 1)

    def _end(self, key: bytes, pos: int) -> tuple[int, int]:
        """(end of the content, end of the field)."""
        term = key.find(bytes((1 ^ self.mask,)), pos)
        return (len(key), len(key)) if term < 0 else (term, term + 1)

    def read(self, key: bytes, pos: int, sink: Sink | None = None) -> tuple[Any, int]:
        if pos >= len(key):
            return None, pos
        if key[pos] ^ self.mask == 0:
            if sink is not None:
                sink.part(self, pos, pos + 1, "null")
            return None, pos + 1
        content_end, end = self._end(key, pos)
        raw = mask_bytes(key[pos:content_end], self.mask).translate(MINUS2)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DecodeError(f"invalid UTF-8 in a string ({exc.reason}, content byte "
                              f"{exc.start})", offset=pos, found=key[pos:end],
                              expected="UTF-8 bytes + 2") from None
        if sink is not None:
            # the content (facts: terminated?), then the terminator (facts: the empty string?)
            if content_end > pos:
                sink.part(self, pos, content_end, "payload", end > content_end)
            if end > content_end:
                sink.part(self, content_end, end, "terminator", content_end == pos)
        return text, end

    def skip(self, key: bytes, pos: int) -> int:
        if pos >= len(key):
            return pos
        if key[pos] ^ self.mask == 0:
            return pos + 1
        return self._end(key, pos)[1]


#: the bytes-like types a bytes field takes
BYTES_ACCEPT: dict[type, Callable[[Any], bytes]] = {
    bytes: lambda v: v if type(v) is bytes else bytes(plain_value(v)),
    bytearray: lambda v: bytes(plain_value(v)), memoryview: bytes}


def bytes_value(v: Any) -> bytes:
    accept = by_type(BYTES_ACCEPT, v)
    if accept is None:
        raise UnsupportedTypeError(f"{type(v).__name__} value in a bytes field", value=v,
                                   expected="bytes (use a string field for str)")
    try:
        data: bytes = accept(v)
    except (ValueError, TypeError, BufferError):  # a released memoryview, say
        raise EncodeError("the buffer cannot be read (a released memoryview?)", value=v,
                          expected="readable bytes") from None
    return data


class FixedBytes(FieldCodec):
    nullable = False

    def __init__(self, field: Field, desc: bool) -> None:
        super().__init__(field, desc)
        self.n = int(field.options["length"])

    def check(self, v: Any) -> Any:
        if v is None:
            raise EncodeError("fixed byte arrays have no NULL (Java: NullPointerException)",
                              value=v, expected=f"{self.n} bytes")
        data = bytes_value(v)
        if len(data) != self.n:
            raise EncodeError(f"fixed byte array of length {self.n} given {len(data)} bytes",
                              value=v, expected=f"exactly {self.n} bytes")
        return data

    def write(self, v: Any, t: bool) -> bytes:
        return mask_bytes(v, self.mask)

    def length(self, v: Any, t: bool) -> int:
        return self.n

    def read(self, key: bytes, pos: int, sink: Sink | None = None) -> tuple[Any, int]:
        end = self.skip(key, pos)
        if sink is not None and end > pos:
            sink.part(self, pos, end, "payload")
        return mask_bytes(key[pos:end], self.mask), end

    def skip(self, key: bytes, pos: int) -> int:
        if pos + self.n > len(key):
            raise truncated(key, f"fixed byte array of {self.n} bytes")
        return pos + self.n


class VarBytes(FieldCodec):
    def __init__(self, field: Field, desc: bool) -> None:
        super().__init__(field, desc)
        self.p = int(field.options.get("prefix_length", 0))
        self.nullable = self.p == 0  # type: ignore[misc]  # Java cannot write NULL after a prefix

    def check(self, v: Any) -> Any:
        if v is None:
            if self.p:
                raise EncodeError("NULL is not encodable with a raw prefix (Java: "
                                  "IllegalStateException)", value=v,
                                  expected=f"at least {self.p} bytes")
            return v
        data = bytes_value(v)
        if len(data) < self.p:
            raise EncodeError(f"value shorter than the raw prefix of {self.p} bytes",
                              value=v, expected=f"at least {self.p} bytes")
        return data

    @staticmethod
    def bcd_length(d: int, t: bool) -> int:
        """The bytes of *d* digit nibbles and the terminator nibbles *t* asks for."""
        return (d + 2) // 2 if t else (1 if d == 0 else (d + 1) // 2)

    def write(self, v: Any, t: bool) -> bytes:
        rest = v[self.p:]
        d = 3 * len(rest)
        size = self.bcd_length(d, t)
        # each byte's three digit nibbles as hex characters, terminator nibbles "1" to fill
        # the last byte, and bytes.fromhex packs them: no per-nibble Python step
        nibbles = "".join(map(BYTE_NIBBLES.__getitem__, rest)) + "1" * (2 * size - d)
        return mask_bytes(v[:self.p] + bytes.fromhex(nibbles), self.mask)

    def length(self, v: Any, t: bool) -> int:
        return self.p + self.bcd_length(3 * (len(v) - self.p), t)

    def _end(self, key: bytes, pos: int) -> int:
        i = pos
        while i < len(key):
            b = key[i] ^ self.mask
            i += 1
            if b & 0xF == 1 or b >> 4 == 1:
                break
        return i

    def read(self, key: bytes, pos: int, sink: Sink | None = None) -> tuple[Any, int]:
        if self.p == 0:
            if pos >= len(key):
                return None, pos
            if key[pos] ^ self.mask == 0:  # Java writes it but cannot read it; we can
                if sink is not None:
                    sink.part(self, pos, pos + 1, "null")
                return None, pos + 1
        if pos + self.p > len(key):
            raise truncated(key, f"raw prefix of {self.p} bytes")
        start = pos + self.p
        if start >= len(key):
            raise truncated(key, "variable-length bytes (at least the 11 byte)")
        end = self._end(key, start)
        nibbles = mask_bytes(key[start:end], self.mask).hex()
        term = nibbles.find("1")
        if term >= 0 and nibbles[term:] != "1" * (len(nibbles) - term):
            raise DecodeError("digit after the terminator nibble", offset=start + term // 2,
                              found=key[start + term // 2:][:1],
                              expected="terminator nibbles to the end of the byte")
        digits = (nibbles if term < 0 else nibbles[:term]).translate(NIBBLE_TO_DIGIT)
        bad = digits.find("x")
        if bad >= 0:
            raise DecodeError(f"nibble {nibbles[bad]} is not a digit", offset=start + bad // 2,
                              found=key[start + bad // 2:][:1],
                              expected="digit nibbles 3 4 5 6 7 9 a c e f, or 1")
        if len(digits) % 3:
            raise DecodeError(f"{len(digits)} digits, not a multiple of 3", offset=start,
                              found=key[start:end], expected="3 digits per byte")
        values = [int(digits[k:k + 3]) for k in range(0, len(digits), 3)]
        if any(x > 255 for x in values):
            raise DecodeError("a 3-digit group above 255", offset=start, found=key[start:end],
                              expected="groups 000..255")
        value = mask_bytes(key[pos:start], self.mask) + bytes(values)
        # terminated or (at the end of the key) unterminated, exactly as written
        raw, terminated = key[pos:end], self.write(value, True)
        if raw != terminated and (end != len(key) or raw != self.write(value, False)):
            raise DecodeError("non-canonical variable-length bytes", offset=pos,
                              found=raw, expected=short_hex(terminated))
        if sink is not None:
            self.annotate(sink, pos, start, end, digits)
        return value, end

    def annotate(self, sink: Sink, pos: int, start: int, end: int, digits: str) -> None:
        """Report the bytes read at ``key[pos:end]``: the raw prefix (``key[pos:start]``), then
        the *digits* and how they end: the terminator byte alone (no digits), a whole
        terminator byte after an even count, the low nibble of the last byte after an odd one,
        or the end of the key (unterminated)."""
        if self.p:
            sink.part(self, pos, start, "prefix")
        if not digits:
            sink.part(self, start, end, "terminator", "alone")
            return
        digit_bytes = (len(digits) + 1) // 2
        if end - start == digit_bytes + 1:
            sink.part(self, start, start + digit_bytes, "digits", (digits, "byte"))
            sink.part(self, start + digit_bytes, end, "terminator", "byte")
        else:
            sink.part(self, start, end, "digits",
                      (digits, "nibble" if len(digits) % 2 else "end"))

    def skip(self, key: bytes, pos: int) -> int:
        if self.p == 0:
            if pos >= len(key):
                return pos
            if key[pos] ^ self.mask == 0:
                return pos + 1
        if pos + self.p >= len(key):
            raise truncated(key, "variable-length bytes")
        return self._end(key, pos + self.p)
