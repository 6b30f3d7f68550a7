"""The reference ``orderly`` field codec: the base class every field type's codec derives from.

Theory of operation: each Java ``RowKey`` class (``format.KINDS``) is one field codec class,
picked by the field's kind (``bound.FIELD_CODECS``). This module has the base class, its
:class:`Sink` and the helpers every field codec uses; ``reference_numbers.py`` has the
var-ints and the other numbers, ``reference_decimal.py`` ``decimal`` and
``reference_bytes.py`` the strings and byte arrays. Each field codec class writes and reads
its own type (one module per value type, both directions: a reader checks what it read by
writing the value again). A field codec knows its field and its effective order (``mask`` is
``ff`` descending, else ``00``) and has

* ``check(value) -> value to write``: the value accepted, once, before anything is written
  (the accepted Python types are a table per field kind, looked up by the value's type and
  then its bases, so ``bool`` finds its own refusal before ``int``);
* ``write(value, t) -> bytes`` and ``write_null(t)``, with ``t`` the termination bit of
  ``format``'s docstring; ``length``/``null_length`` give their sizes without writing;
* ``read(key, pos, sink=None) -> (value, next offset)``: strict, so the bytes read are exactly
  what ``write`` gives for the value read (terminated, or unterminated at the end of the key);
  given a :class:`Sink` (``inspect``), it reports each part of the field it read, with the facts
  it found, once the field is read (one ``sink is not None`` test per field, nothing more when
  there is no sink); ``explain.py`` words the facts;
* ``skip(key, pos) -> next offset``: structure only, no value built (Orderly's ``skip``).

These are the only code that shapes errors: the compiled module hands every value or key it
does not take as its own to the struct code in ``bound.py``, which calls these.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Protocol

from ..._bytes import invert
from ...errors import DecodeError
from ...schema import Field


def mask_bytes(data: bytes, mask: int) -> bytes:
    return invert(data) if mask else data


def truncated(key: bytes, what: str) -> DecodeError:
    return DecodeError(f"truncated: {what}", offset=len(key), found=b"",
                       expected="more bytes")


def short_hex(data: bytes) -> str:
    """*data* in hex for a message, cut as the ``found`` bytes of a DecodeError are."""
    return data[:16].hex(" ") + (" …" if len(data) > 16 else "")


def by_type(table: Mapping[type, Callable[[Any], Any]], v: Any) -> Callable[[Any], Any] | None:
    """The entry for *v*'s type, else for its nearest base in *table*. The entries read a
    value for what it is (``int.__int__``, ``float.__float__``, ``str.__str__``, the buffer
    of a bytes-like), never through methods a subclass may override."""
    for cls in type(v).__mro__:
        entry = table.get(cls)
        if entry is not None:
            return entry
    return None


# -- field codecs ---------------------------------------------------------------------------


class Sink(Protocol):
    """Where an annotated read reports: each part of a field, in key order, by the field codec
    that read it (so the sink knows the field), with a role (``header``, ``digits``, ...) and
    the facts the reader found that the field codec alone does not give.

    The parts a read reports tile its bytes; a field read as zero bytes reports none."""

    def part(self, fc: FieldCodec, start: int, end: int, role: str, facts: Any = None
             ) -> None: ...


class FieldCodec:
    """Base: a nullable field whose NULL is one masked ``00`` byte when terminated."""

    nullable: ClassVar[bool] = True

    def __init__(self, field: Field, desc: bool) -> None:
        self.field = field
        self.desc = desc
        self.mask = 0xFF if desc else 0

    def check(self, v: Any) -> Any:
        return v

    def write_null(self, t: bool) -> bytes:
        return bytes((self.mask,)) if t else b""

    def null_length(self, t: bool) -> int:
        return 1 if t else 0

    def write(self, v: Any, t: bool) -> bytes:
        raise NotImplementedError

    def length(self, v: Any, t: bool) -> int:
        return len(self.write(v, t))

    def read(self, key: bytes, pos: int, sink: Sink | None = None) -> tuple[Any, int]:
        raise NotImplementedError

    def skip(self, key: bytes, pos: int) -> int:
        return self.read(key, pos)[1]
