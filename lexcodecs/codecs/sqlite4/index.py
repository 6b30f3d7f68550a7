"""Secondary-index keys on the SQLite4 encoding (The Factory's Datastore, seed 003).

Theory of operation: an index is a second key space whose keys sort by the indexed columns,
then by the data key they point to (spec §15)::

    key        := "/_i/" INDEX_NAME "/" INDEX_KEY DATA_KEY
    INDEX_NAME := NAME ( "_" COLTYPE )+        COLTYPE: bin | int | -bin | -int ("-": DESC)
    INDEX_KEY  := one encoding per column, end to end, no separators
    DATA_KEY   := the data key verbatim; it starts with "/"

A ``bin`` column is the SQLite4 binary body (7-bit groups, ``00``) without its ``25`` type
byte, as the seed's ``"foo"`` -> ``b3 9b ed f0 00`` shows; an ``int`` column is an SQLite4
number, header included (the seed's raw digits are not prefix-free, spec §15.3). A descending
column is the ones' complement of its bytes. Every column encoding ends itself, so the index
key decides first, column by column, and the data key breaks ties; index names hold no ``/``,
so the keys of two indexes never interleave. The index name lists the column types, which is
what lets :func:`parse_index_key` read any index key back with no other information.

>>> people = SecondaryIndex("name_age", ["bin", "int"])
>>> people.index_name
'name_age_bin_int'
>>> key = people.key([b"bob", 37], b"/person/3")
>>> key[:21]
b'/_i/name_age_bin_int/'
>>> key[21:].hex(" ")
'b1 9b ec a0 00 18 4a 2f 70 65 72 73 6f 6e 2f 33'
>>> parse_index_key(key).values, parse_index_key(key).data_key
((b'bob', 37), b'/person/3')
>>> start, stop = people.range([b"bob"])
>>> start <= key < stop
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final, Literal

import attrs

from ..._bytes import invert, strinc
from ...codec import as_key_bytes, buffer_value, plain_values
from ...errors import DecodeError, EncodeError, LexCodecError, SchemaError, UnsupportedTypeError
from .format import NAN, POS_INF
from .reference_decode import decode_number, read_binary_body, read_descending
from .reference_encode import encode_binary_body, encode_number

__all__ = [
    "COLUMN_TYPES",
    "INDEX_PREFIX",
    "IndexColumn",
    "IndexEntry",
    "SecondaryIndex",
    "parse_index_key",
]

CODEC: Final = "sqlite4"
#: every index key starts with this
INDEX_PREFIX: Final = b"/_i/"
#: the column types of the seed
COLUMN_TYPES: Final = ("bin", "int")
#: index-name token -> (column type, descending)
_TOKENS: Final[dict[str, tuple[str, bool]]] = {
    "bin": ("bin", False), "int": ("int", False), "-bin": ("bin", True), "-int": ("int", True),
}

ColumnType = Literal["bin", "int"]


def _index_error(reason: str, value: Any, expected: str) -> SchemaError:
    return SchemaError(reason, codec=CODEC, value=value, expected=expected)


def _check_column_type(instance: Any, attribute: Any, value: Any) -> None:
    if value not in COLUMN_TYPES:
        raise _index_error("unknown column type", value, "'bin' or 'int'")


@attrs.frozen
class IndexColumn:
    """One indexed column: ``bin`` (bytes) or ``int`` (a number), ascending or descending.

    >>> IndexColumn.parse("-int")
    IndexColumn(type='int', descending=True)
    """

    type: ColumnType = attrs.field(validator=_check_column_type)
    descending: bool = False

    @property
    def token(self) -> str:
        """The column's part of the index name: ``bin``, ``int``, ``-bin`` or ``-int``."""
        return ("-" if self.descending else "") + self.type

    @classmethod
    def parse(cls, token: str) -> IndexColumn:
        if token not in _TOKENS:
            raise _index_error("unknown column type", token,
                               "one of " + ", ".join(_TOKENS))
        kind, desc = _TOKENS[token]
        return cls(kind, desc)  # type: ignore[arg-type]

    def encode(self, value: Any) -> bytes:
        """The column's bytes for *value* (direction applied)."""
        try:
            return self._encode(value)
        except LexCodecError as exc:
            raise exc.add_context(codec=CODEC) from None

    def _encode(self, value: Any) -> bytes:
        if value is None:
            raise EncodeError("NULL cannot be indexed (no column encoding holds it)",
                              value=value, expected="bytes" if self.type == "bin"
                              else "int, float or Decimal")
        if self.type == "bin":
            if not issubclass(type(value), (bytes, bytearray, memoryview)):
                raise UnsupportedTypeError(f"{type(value).__name__} value in a bin column",
                                           value=value, expected="bytes (encode a str first; "
                                           "the seed indexes names as lowercased bytes)")
            data = encode_binary_body(buffer_value(value))  # never a subclass's __bytes__
        else:
            data = encode_number(value)
        return invert(data) if self.descending else data

    def read(self, key: bytes, pos: int) -> tuple[Any, int]:
        """``(value, next offset)`` of this column's encoding at *pos*."""
        try:
            if self.descending:
                return read_descending(self._read_ascending, key, pos)
            return self._read_ascending(key, pos)
        except LexCodecError as exc:
            raise exc.add_context(codec=CODEC) from None

    def _read_ascending(self, key: bytes, pos: int) -> tuple[Any, int]:
        if self.type == "bin":
            return read_binary_body(key, pos)
        if pos >= len(key):
            raise DecodeError("truncated: int column missing", offset=len(key), found=b"",
                              expected="a number")
        if not NAN <= key[pos] <= POS_INF:
            raise DecodeError("not a number header (int column)",
                              offset=pos, found=key[pos:pos + 1],
                              expected="06..23" + (" (complemented: dc..f9)"
                                                   if self.descending else ""))
        return decode_number(key, pos)


def _to_column(column: IndexColumn | str) -> IndexColumn:
    if isinstance(column, IndexColumn):
        return column
    if isinstance(column, str):
        return IndexColumn.parse(column)
    raise _index_error("a column is an IndexColumn or its token", column,
                       "'bin', 'int', '-bin' or '-int'")


def _to_columns(columns: Iterable[IndexColumn | str]) -> tuple[IndexColumn, ...]:
    if isinstance(columns, str):
        raise _index_error("columns must be a list, not one string", columns,
                           "a list such as ['bin', '-int']")
    out = tuple(_to_column(c) for c in columns)
    if not out:
        raise _index_error("an index needs at least one column", columns, "one or more columns")
    return out


def _check_name(instance: SecondaryIndex, attribute: Any, name: Any) -> None:
    if not isinstance(name, str) or not name:
        raise _index_error("the index name must be a non-empty str", name, "a name")
    if "/" in name or "\x00" in name:
        raise _index_error("the index name must not contain '/' or U+0000", name,
                           "a name without '/' and U+0000")
    if name.rsplit("_", 1)[-1] in _TOKENS:
        raise _index_error("the index name must not end in a column type token: the index "
                           "name would not parse back", name,
                           "a name whose last '_' part is not bin, int, -bin or -int")
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise _index_error("the index name is not encodable as UTF-8", name,
                           "a str without lone surrogates") from None


@attrs.frozen
class SecondaryIndex:
    """An index *name* on typed *columns* (``IndexColumn`` or tokens such as ``"-int"``)."""

    name: str = attrs.field(validator=_check_name)
    columns: tuple[IndexColumn, ...] = attrs.field(converter=_to_columns)

    @property
    def index_name(self) -> str:
        """NAME, then ``_`` and each column's token: ``events_-int_bin``."""
        return "_".join([self.name, *(c.token for c in self.columns)])

    @property
    def prefix(self) -> bytes:
        """``/_i/INDEX_NAME/``: every key of this index starts with it."""
        return INDEX_PREFIX + self.index_name.encode("utf-8") + b"/"

    @classmethod
    def from_index_name(cls, index_name: str) -> SecondaryIndex:
        """Split ``name_age_bin_int`` into the name and its columns (type tokens from the
        right)."""
        parts = index_name.split("_")
        n = len(parts)
        while n > 1 and parts[n - 1] in _TOKENS:
            n -= 1
        if n == len(parts):
            raise _index_error("the index name has no column types", index_name,
                               "NAME_COLTYPE[_COLTYPE...]")
        return cls("_".join(parts[:n]), parts[n:])

    def encode_columns(self, values: Sequence[Any]) -> bytes:
        """INDEX_KEY for the leading *values* (one per column, or fewer)."""
        plain = plain_values(values)
        if plain is None or len(plain) > len(self.columns):
            raise EncodeError("values must be a list of at most one value per column",
                              codec=CODEC, value=values,
                              expected=f"at most {len(self.columns)} value(s)")
        parts = []
        for i, (column, value) in enumerate(zip(self.columns, plain)):
            try:
                parts.append(column.encode(value))
            except LexCodecError as exc:
                raise exc.add_context(codec=CODEC, field=i, field_name=self.index_name,
                                      field_type=column.token) from None
        return b"".join(parts)

    def key(self, values: Sequence[Any], data_key: bytes | str) -> bytes:
        """``/_i/INDEX_NAME/`` + the column encodings + *data_key* (which starts with ``/``)."""
        plain = plain_values(values)
        if plain is None:
            return self.encode_columns(values)  # refuses it
        values = plain
        if len(values) != len(self.columns):
            raise EncodeError(f"the index has {len(self.columns)} column(s), got "
                              f"{len(values)} value(s)", codec=CODEC, value=values,
                              expected=f"{len(self.columns)} value(s)")
        return self.prefix + self.encode_columns(values) + _data_key(data_key)

    def range(self, leading: Sequence[Any] = ()) -> tuple[bytes, bytes]:
        """``[start, stop)`` of every entry whose first columns equal *leading*.

        Numbers compare by value: ``2``, ``2.0`` and ``Decimal("2.00")`` are one column value.
        """
        start = self.prefix + self.encode_columns(leading)
        stop = strinc(start)
        assert stop is not None  # the prefix holds '/_i/', so not every byte is ff
        return start, stop

    def parse(self, key: bytes) -> IndexEntry:
        """:func:`parse_index_key`, checking the key belongs to this index."""
        entry = parse_index_key(key)
        if entry.index != self:
            raise DecodeError(f"a key of index {entry.index.index_name!r}, not "
                              f"{self.index_name!r}", codec=CODEC, offset=len(INDEX_PREFIX),
                              found=key[len(INDEX_PREFIX):len(self.prefix)],
                              expected=self.index_name)
        return entry


def _data_key(data_key: Any) -> bytes:
    # by the real type, and a subclass by its own data, never through its methods
    if issubclass(type(data_key), str):
        text = str.__str__(data_key)
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise EncodeError("the data key is not encodable as UTF-8 (a lone surrogate)",
                              codec=CODEC, value=text[exc.start:exc.end],
                              expected="a str without lone surrogates, or bytes") from None
    elif issubclass(type(data_key), (bytes, bytearray, memoryview)):
        try:
            data = buffer_value(data_key)
        except LexCodecError as exc:  # a released memoryview
            raise exc.add_context(codec=CODEC) from None
    else:
        raise UnsupportedTypeError("the data key must be bytes or str", codec=CODEC,
                                   value=data_key, expected="bytes starting with '/'")
    if not data.startswith(b"/"):
        raise EncodeError("the data key must start with '/' (it is the key's last path "
                          "segment)", codec=CODEC, value=data_key, expected="b'/...'")
    return data


@attrs.frozen
class IndexEntry:
    """A parsed index key: the index, the column values and the data key it points to."""

    index: SecondaryIndex
    values: tuple[Any, ...]
    data_key: bytes


def parse_index_key(key: bytes) -> IndexEntry:
    """Split an index key into its index, column values and data key (spec §15.1).

    A ``bin`` column gives ``bytes``; an ``int`` column gives ``int`` when integral,
    ``Decimal`` otherwise, ``float`` for NaN and the infinities. Any malformed key raises
    :class:`~lexcodecs.errors.DecodeError` at its offset.
    """
    data = as_key_bytes(CODEC, key)
    try:
        return _parse(data)
    except LexCodecError as exc:
        raise exc.add_context(codec=CODEC) from None


def _parse(data: bytes) -> IndexEntry:
    if not data.startswith(INDEX_PREFIX):
        at = next((i for i, (a, b) in enumerate(zip(data, INDEX_PREFIX)) if a != b),
                  len(data))
        raise DecodeError("not an index key", offset=at, found=data[at:at + 1],
                          expected="a key starting with '/_i/'")
    slash = data.find(b"/", len(INDEX_PREFIX))
    if slash < 0:
        raise DecodeError("truncated: the index name has no closing '/'", offset=len(data),
                          found=b"", expected="'/'")
    raw_name = data[len(INDEX_PREFIX):slash]
    try:
        index = SecondaryIndex.from_index_name(raw_name.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise DecodeError(f"the index name is not UTF-8 ({exc.reason})",
                          offset=len(INDEX_PREFIX) + exc.start, found=raw_name[exc.start:],
                          expected="a UTF-8 index name") from None
    except SchemaError as exc:
        raise DecodeError(f"bad index name: {exc.reason}", offset=len(INDEX_PREFIX),
                          found=raw_name, expected=exc.expected) from None
    pos = slash + 1
    values = []
    for i, column in enumerate(index.columns):
        try:
            value, pos = column.read(data, pos)
        except LexCodecError as exc:
            raise exc.add_context(codec=CODEC, field=i, field_name=index.index_name,
                                  field_type=column.token) from None
        values.append(value)
    if not data.startswith(b"/", pos):
        raise DecodeError("the data key must start with '/'", offset=pos,
                          found=data[pos:pos + 1], expected="'/'")
    return IndexEntry(index, tuple(values), data[pos:])
