"""The key columns: the key text the user writes, and the choice of columns and field types.

Theory of operation: the user names the key columns and their order in *key text*, the schema
grammar of :meth:`KeySchema.parse` with the types optional::

    user_id, created desc nulls last, region:string

:func:`resolve_key` matches each named column to the input's :class:`Column` s by name and
takes each field's type from, in this order: the key text, a field of that name in the
user's schema (``-s``), the type proposed from the input's declared type (then the result is
*proposed*). The order, NULL placement and options come from the key text, else the schema's
field, else the input's own primary key. Without key text, the schema's fields are the key
columns (matched by name), and without either, an SQLite table's primary key is. A key
column still without a type is an error whose message shows the key text to copy, the
missing types guessed from the data.

Input column names that are no field names (``user id``, ``a+1``) are named as fields by
:func:`field_name`: every run of other characters becomes ``_``.
"""

from __future__ import annotations

import contextlib
import difflib
import re
from collections.abc import Callable, Sequence
from typing import Any, Final

import attrs

from ..errors import SchemaError
from ..schema import Field, KeySchema, NullsPlacement, Options
from .records import Column, SourceError

__all__ = ["KeyColumn", "KeyPlan", "field_name", "parse_key", "resolve_key"]

#: how many rows a guess of the missing types looks at
GUESS_ROWS: Final = 1000

_NOT_NAME: Final = re.compile(r"[^A-Za-z0-9_.\-]+")
_ITEM_HEAD: Final = re.compile(r"\s*([^\s:,\"]*)\s*(:?)")
_QUOTED: Final = re.compile(r'"(?:[^"\\]|\\.)*"')
#: the stand-in type of an untyped item while the schema parser reads it
_STAND_IN: Final = ":bytes"


@attrs.frozen
class KeyColumn:
    """One item of key text: a column, and what the text says of it (``None``: nothing)."""

    name: str
    type: str | None = None
    descending: bool | None = None
    nulls: NullsPlacement | None = None
    options: Options = attrs.field(factory=Options, converter=Options)


@attrs.frozen
class KeyPlan:
    """The resolved key: its schema, and for each field the input column it reads
    (``indexes``), and what its type was proposed from (``origins``, ``None``: given)."""

    schema: KeySchema
    indexes: tuple[int, ...]
    origins: tuple[str | None, ...]

    @property
    def proposed(self) -> bool:
        return any(origin is not None for origin in self.origins)


def field_name(name: str, index: int) -> str:
    """*name* as a schema field name: runs of other characters become ``_``, and a name
    that starts with a digit gets a leading ``_`` (an empty one is ``column<index+1>``).

    >>> field_name("user id", 0), field_name("a+1", 1), field_name("2nd", 2), field_name("", 3)
    ('user_id', 'a_1', '_2nd', 'column4')
    """
    text = _NOT_NAME.sub("_", name.strip())
    if not text:
        return f"column{index + 1}"
    return text if text[0].isalpha() or text[0] == "_" else "_" + text


def field_names(names: Sequence[str]) -> list[str]:
    """:func:`field_name` of each name, made unique: a repeat gets ``_<column number>``."""
    out: list[str] = []
    taken: set[str] = set()
    for i, name in enumerate(names):
        candidate = field_name(name, i)
        if candidate in taken:
            candidate = f"{candidate}_{i + 1}"
        taken.add(candidate)
        out.append(candidate)
    return out


def _items(text: str) -> list[tuple[int, str]]:
    """The comma-separated items of *text* with their offsets; commas in quotes do not
    count."""
    items: list[tuple[int, str]] = []
    start = 0
    in_quotes = escaped = False
    for i, char in enumerate(text):
        if in_quotes:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_quotes = False
        elif char == '"':
            in_quotes = True
        elif char == ",":
            items.append((start, text[start:i]))
            start = i + 1
    items.append((start, text[start:]))
    return items


def parse_key(text: str) -> tuple[KeyColumn, ...]:
    """Read key text: schema text whose types may be left out.

    >>> [(c.name, c.type, c.descending) for c in parse_key("id, ts:int64 desc")]
    [('id', None, None), ('ts', 'int64', True)]
    """
    if not isinstance(text, str):
        raise SchemaError("key text must be a str", value=text, expected="str")
    if not text.strip():
        raise SchemaError("the key names no column", text=text, position=0,
                          expected="column names, e.g. 'user_id, created desc'")
    columns = []
    for start, item in _items(text):
        head = _ITEM_HEAD.match(item)
        assert head is not None  # every part of the pattern may be empty
        if not head.group(1):
            raise SchemaError("a column name is missing", text=text,
                              position=start + head.end(1),
                              expected="a column name (between commas)")
        typed = bool(head.group(2))
        cut = head.end(1)
        schema_text = item if typed else item[:cut] + _STAND_IN + item[cut:]
        try:
            field = KeySchema.parse(schema_text).fields[0]
        except SchemaError as exc:
            at = exc.position or 0
            if not typed and at >= cut:
                at = max(cut, at - len(_STAND_IN))
            raise SchemaError(exc.reason, text=text, position=start + at,
                              expected=exc.expected) from None
        words = _QUOTED.sub(" ", item[cut:]).split()
        columns.append(KeyColumn(
            field.name, field.type if typed else None,
            field.descending if {"asc", "desc"} & set(words) else None,
            field.nulls, field.options))
    return tuple(columns)


def _column_list(columns: Sequence[Column]) -> str:
    shown = []
    for c in columns:
        text = c.field if c.field == c.name else f"{c.field} ({c.name!r})"
        shown.append(f"{text}:{c.proposed}" if c.proposed else text)
    listed = ", ".join(shown[:40])
    return listed + (f", … ({len(columns)} columns)" if len(columns) > 40 else "")


def _find(columns: Sequence[Column], name: str, source: str) -> int:
    for i, c in enumerate(columns):
        if c.field == name:
            return i
    for i, c in enumerate(columns):  # a key names a column as the input does, when it can
        if c.name == name:
            return i
    fields = [c.field for c in columns]
    # a column in another case first (USER_ID for user_id), else the nearest spellings
    close = [f for f in fields if f.casefold() == name.casefold()][:2] or \
        difflib.get_close_matches(name, fields, n=2)
    hint = f" (did you mean {' or '.join(repr(m) for m in close)}?)" if close else ""
    raise SourceError(f"no column named {name!r}{hint}; the columns are: "
                      f"{_column_list(columns)}", source=source)


Guess = Callable[[Sequence[int]], Sequence[str | None]]


def resolve_key(columns: Sequence[Column], key: str | Sequence[KeyColumn] | None,
                schema: KeySchema | None, *, source: str, carries_types: bool,
                guess: Guess | None = None, proposed_from: str = "the input's types",
                schema_describes_input: bool = False) -> KeyPlan:
    """Choose the key columns of an input and their field types (see the module's text).

    *guess* gives a guessed type for each of some column indexes, from the data; it is
    asked only to fill in the key text an error shows. *proposed_from* says what a type
    proposed for a column with no declared type rests on, in messages.
    *schema_describes_input*: the schema is the input's own (JSON Lines, stored keys), so
    the key may pick some of its fields; else the schema and the key must name the same
    columns.
    """
    if not columns:
        raise SourceError("the input has no columns", source=source)
    if isinstance(key, str):
        items: Sequence[KeyColumn] = parse_key(key)
    elif key is not None:
        items = key
    elif schema is not None:
        items = [KeyColumn(f.name, f.type, f.descending, f.nulls, f.options)
                 for f in schema.fields]
    else:
        primary = sorted((c for c in columns if c.primary is not None),
                         key=lambda c: c.primary or 0)
        if not primary:
            raise _no_key(columns, source, carries_types, guess)
        items = [KeyColumn(c.field) for c in primary]
    indexes = [_find(columns, item.name, source) for item in items]
    named = [columns[i].field for i in indexes]
    for name in named:
        if named.count(name) > 1:
            raise SourceError(f"the key names column {name!r} twice", source=source)
    if schema is not None and key is not None and not schema_describes_input:
        for f in schema.fields:
            if f.name not in named:
                raise SourceError(f"the schema's field {f.name!r} is not among the key "
                                  f"columns ({', '.join(named)}); name it in the key, or "
                                  "leave it out of the schema", source=source)
    fields: list[Field] = []
    origins: list[str | None] = []
    missing: list[int] = []
    for item, index in zip(items, indexes):
        column = columns[index]
        given = schema.field(column.field) if schema is not None \
            and column.field in schema.names else None
        field_type = item.type or (given.type if given else None)
        origin = None
        if field_type is None and column.proposed is not None:
            field_type = column.proposed
            origin = f"the declared type {column.declared!r}" if column.declared \
                else proposed_from
        if field_type is None:
            missing.append(len(fields))
        descending = item.descending if item.descending is not None else (
            given.descending if given else column.descending)
        options: dict[str, Any] = dict(given.options) if given else {}
        options.update(item.options)
        try:
            fields.append(Field(column.field, field_type or _STAND_IN[1:], descending,
                                item.nulls or (given.nulls if given else None), options))
        except SchemaError as exc:
            raise SourceError(str(exc), source=source, column=column.name) from None
        origins.append(origin)
    if missing:
        raise _untyped(fields, indexes, missing, columns, source, guess)
    return KeyPlan(KeySchema(tuple(fields)), tuple(indexes), tuple(origins))


def _guessed(guess: Guess | None, indexes: Sequence[int]) -> list[str]:
    types: Sequence[str | None] = [None] * len(indexes)
    if guess is not None:
        # bad data is reported when it is read, not in a hint
        with contextlib.suppress(SourceError):
            types = guess(indexes)
    return [t or "TYPE" for t in types]


def _untyped(fields: list[Field], indexes: list[int], missing: list[int],
             columns: Sequence[Column], source: str, guess: Guess | None) -> SourceError:
    texts = [f.to_text() for f in fields]
    for i, field_type in zip(missing, _guessed(guess, [indexes[i] for i in missing])):
        # the field holds the stand-in type: its text with the guess (or TYPE) instead
        stand_in = f"{fields[i].name}:{fields[i].type}"
        texts[i] = f"{fields[i].name}:{field_type}" + texts[i][len(stand_in):]
    names = ", ".join(_untyped_name(columns[indexes[i]]) for i in missing)
    return SourceError(
        f"no field type for the key column{'s' if len(missing) > 1 else ''} {names}: give "
        f"the types in the key, e.g. --key '{', '.join(texts)}'{_guess_note(guess)}",
        source=source)


def _untyped_name(column: Column) -> str:
    if column.declared:
        return f"{column.name!r} (declared {column.declared}, which has none)"
    return repr(column.name)


def _no_key(columns: Sequence[Column], source: str, carries_types: bool,
            guess: Guess | None) -> SourceError:
    untyped = [i for i, c in enumerate(columns) if c.proposed is None]
    guessed = dict(zip(untyped, _guessed(guess, untyped))) if untyped else {}
    texts = [f"{c.field}:{c.proposed or guessed[i]}" for i, c in enumerate(columns)]
    shown = ", ".join(texts[:12]) + (", …" if len(texts) > 12 else "")
    if carries_types:
        note = " (types as declared" + (
            f"; the others guessed from the first {GUESS_ROWS:,} rows)" if untyped else ")")
    else:
        note = _guess_note(guess)
    return SourceError(
        "name the key columns and their order with --key (or a schema with -s); the columns"
        f" are, to copy what you need: --key '{shown}'{note}", source=source)


def _guess_note(guess: Guess | None) -> str:
    return f" (types guessed from the first {GUESS_ROWS:,} rows)" if guess is not None else ""
