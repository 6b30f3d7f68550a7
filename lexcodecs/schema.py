"""Key schemas: the typed, ordered list of fields a key is made of.

Theory of operation: a :class:`KeySchema` is a frozen, hashable tuple of :class:`Field`. It is
a plain description; it does not know any codec. A codec *binds* a schema (``codec.bind``),
checking what it can express, and keeps the bound plan in a cache keyed by the schema, which
is why schemas must hash.

The text form, one field per comma-separated item::

    name:type [asc|desc] [nulls first|last] [key=value ...]

``nulls`` is where NULL sits in the final key order, whatever the direction (SQL's NULLS
FIRST/LAST); left out it is the format's natural placement, NULL as the lowest value (first
when ascending, last when descending). ``key=value`` options are format knobs kept for the
codec to validate: integers and ``true``/``false`` are read as such, anything else is a
string (double quotes allow spaces and commas). The dict form is what vector files use:
``{"name": ..., "type": ..., "order": "asc"|"desc", "nulls": ..., <options>...}``.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import ItemsView, Iterable, Iterator, Mapping
from typing import Any, Final, Literal, cast, overload

import attrs

from .errors import SchemaError

__all__ = [
    "FIELD_TYPES",
    "Field",
    "KeySchema",
    "NullsPlacement",
    "OptionValue",
    "Options",
]

#: Every field type a schema may name. Codecs declare the subset they support. The Rust
#: formats' own: ``int128``/``uint128``, ``char`` (one Unicode scalar value, a ``str`` of
#: length 1) and ``variant`` (an enum's variant index, a non-negative ``int``; the format
#: fixes its width, and a variant's payload is written as the fields after it).
FIELD_TYPES: Final[tuple[str, ...]] = (
    "string", "bytes", "bool",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "int",
    "int128", "uint128",
    "float32", "float64", "decimal", "uuid", "timestamp", "duration", "tuple",
    "char", "variant",
)

#: Keys of the dict form that are not options.
_RESERVED_KEYS: Final = frozenset({"name", "type", "order", "nulls", "options", "descending"})

NullsPlacement = Literal["first", "last"]
OptionValue = str | int | bool

_NAME_RE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*\Z")


class Options(Mapping[str, OptionValue]):
    """An immutable, hashable mapping of field options (``length=8``, ``final=true``)."""

    __slots__ = ("_by_name", "_items", "_key")
    _items: tuple[tuple[str, OptionValue], ...]
    #: the items as a dict: codecs look their options up on every bind
    _by_name: dict[str, OptionValue]
    #: the items with each value's type: what equality and the hash compare (True == 1 in
    #: Python, but final=true and final=1 are different options). Made once: a codec finds
    #: its bound schema by the schema, so these run on every encode given an equal schema
    _key: tuple[tuple[str, type, OptionValue], ...]

    def __init__(self, items: Mapping[str, OptionValue] | Iterable[tuple[str, OptionValue]] = ()
                 ) -> None:
        pairs = dict(items)
        for key, value in pairs.items():
            if not isinstance(key, str) or not _NAME_RE.match(key):
                raise SchemaError("bad option name", value=key,
                                  expected="a name of letters, digits, '_', '.', '-'")
            if key in _RESERVED_KEYS:
                raise SchemaError("reserved word used as an option name", value=key,
                                  expected="an option name other than " +
                                  ", ".join(sorted(_RESERVED_KEYS)))
            if not isinstance(value, (str, int)):  # bool is an int
                raise SchemaError(f"option {key!r} has a value of type {type(value).__name__}",
                                  value=value, expected="a str, int or bool")
        self._items = tuple(sorted(pairs.items()))
        self._key = tuple((k, type(v), v) for k, v in self._items)
        self._by_name = dict(self._items)

    def __getitem__(self, key: str) -> OptionValue:
        return self._by_name[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self._by_name.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._by_name

    def items(self) -> ItemsView[str, OptionValue]:
        return self._by_name.items()

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Options):
            return self._key == other._key
        if isinstance(other, Mapping):
            try:
                return self == Options(other)
            except SchemaError:  # a mapping that is no valid Options is unequal, not an error
                return False
        return NotImplemented

    def __repr__(self) -> str:
        return f"Options({dict(self._items)!r})"


def _to_options(value: Mapping[str, OptionValue] | Options | None) -> Options:
    if isinstance(value, Options):
        return value
    return Options(value or {})


def _check_nulls(instance: Field, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value not in (None, "first", "last"):
        raise SchemaError("bad nulls placement", field_name=instance.name, value=value,
                          expected="'first', 'last' or None")


def _close(word: str, choices: Iterable[str], n: int) -> list[str]:
    """The choices *word* most likely meant: the same word in another case first (``INT64``,
    ``DESC``), else the nearest spellings."""
    choices = list(choices)
    same = [c for c in choices if c.casefold() == word.casefold()]
    return same or difflib.get_close_matches(word.casefold(), choices, n=n)


def _check_type(instance: Field, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value not in FIELD_TYPES:
        close = _close(str(value), FIELD_TYPES, 2)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise SchemaError(f"unknown field type{hint}", field_name=instance.name, value=value,
                          expected="one of " + ", ".join(FIELD_TYPES))


def _check_name(instance: Field, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str) or not _NAME_RE.match(value):
        raise SchemaError("bad field name", value=value,
                          expected="a letter or '_' then letters, digits, '_', '.', '-'")


def _check_bool(instance: Field, attribute: attrs.Attribute[Any], value: Any) -> None:
    if type(value) is not bool:
        raise SchemaError("descending must be a bool", field_name=instance.name, value=value,
                          expected="True or False")


@attrs.frozen(cache_hash=True)
class Field:
    """One field of a key.

    >>> Field("ts", "int64", descending=True)
    Field('ts', 'int64', descending=True)
    >>> Field("ts", "int64", descending=True).effective_nulls
    'last'
    """

    name: str = attrs.field(validator=_check_name)
    type: str = attrs.field(validator=_check_type)
    descending: bool = attrs.field(default=False, validator=_check_bool)
    nulls: NullsPlacement | None = attrs.field(default=None, validator=_check_nulls)
    options: Options = attrs.field(factory=Options, converter=_to_options)

    def __repr__(self) -> str:
        # the call that builds it, defaults left out
        extra = "".join(f", {name}={value!r}" for name, value in (
            ("descending", self.descending), ("nulls", self.nulls),
            ("options", dict(self.options))) if value)
        return f"Field({self.name!r}, {self.type!r}{extra})"

    @property
    def effective_nulls(self) -> NullsPlacement:
        """Where NULL sits in the key order: the explicit ``nulls`` or the natural placement."""
        if self.nulls is not None:
            return self.nulls
        return "last" if self.descending else "first"

    @property
    def natural_nulls(self) -> bool:
        """True when NULL sits where the lowest value of the type would (no explicit override)."""
        return self.effective_nulls == ("last" if self.descending else "first")

    def to_text(self) -> str:
        parts = [f"{self.name}:{self.type}"]
        if self.descending:
            parts.append("desc")
        if self.nulls is not None:
            parts.append(f"nulls {self.nulls}")
        for key, value in self.options.items():
            parts.append(f"{key}={_option_text(value)}")
        return " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "type": self.type}
        if self.descending:
            out["order"] = "desc"
        if self.nulls is not None:
            out["nulls"] = self.nulls
        out.update(self.options)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, default_name: str | None = None) -> Field:
        """Build from the dict form; *default_name* names a field that has no ``name``."""
        if not isinstance(data, Mapping):
            raise SchemaError("a field must be a mapping", value=data,
                              expected='{"name": ..., "type": ...}')
        name = data.get("name", default_name)
        if name is None:
            raise SchemaError("field has no name", value=dict(data), expected='a "name" key')
        if "type" not in data:
            raise SchemaError("field has no type", field_name=str(name), value=dict(data),
                              expected='a "type" key')
        order = data.get("order", "asc")
        if "descending" in data:
            descending = data["descending"]
        elif order in ("asc", "desc"):
            descending = order == "desc"
        else:
            raise SchemaError("bad order", field_name=str(name), value=order,
                              expected="'asc' or 'desc'")
        options: dict[str, Any] = dict(data.get("options") or {})
        for key, value in data.items():
            if key not in _RESERVED_KEYS:
                options[key] = value
        return cls(name, data["type"], descending, data.get("nulls"), options)


def _option_text(value: OptionValue) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if re.fullmatch(r"[A-Za-z0-9_.\-+/]+", value) and value not in ("true", "false") \
            and not re.fullmatch(r"[+-]?\d+", value):
        return value
    return json.dumps(value)


def _to_fields(fields: Any) -> tuple[Field, ...]:
    if isinstance(fields, (str, bytes)) or not isinstance(fields, Iterable):
        raise SchemaError("fields must be a sequence of Field", value=fields,
                          expected="a tuple of Field")
    return tuple(fields)


def _check_fields(instance: KeySchema, attribute: attrs.Attribute[Any],
                  value: tuple[Field, ...]) -> None:
    if not value:
        raise SchemaError("a schema needs at least one field", expected="one or more fields")
    seen: set[str] = set()
    for i, f in enumerate(value):
        if not isinstance(f, Field):
            raise SchemaError("not a Field", field=i, value=f, expected="a lexcodecs Field")
        if f.name in seen:
            raise SchemaError("duplicate field name", field=i, field_name=f.name,
                              value=f.name, expected="unique names")
        seen.add(f.name)


@attrs.frozen(cache_hash=True)
class KeySchema:
    """An ordered, hashable tuple of fields.

    >>> s = KeySchema.parse("tenant:string, ts:int64 desc, score:float64 nulls last")
    >>> s.names
    ('tenant', 'ts', 'score')
    >>> str(s)
    'tenant:string, ts:int64 desc, score:float64 nulls last'
    >>> s
    KeySchema.parse('tenant:string, ts:int64 desc, score:float64 nulls last')
    >>> KeySchema.from_dict(s.to_dict()) == s
    True
    """

    fields: tuple[Field, ...] = attrs.field(converter=_to_fields, validator=_check_fields)

    def __repr__(self) -> str:
        # the text form is the short, exact description; parse() builds the schema from it
        return f"KeySchema.parse({self.to_text()!r})"

    @classmethod
    def of(cls, *fields: Field) -> KeySchema:
        return cls(fields)

    @classmethod
    def parse(cls, text: str) -> KeySchema:
        """Read the text form of a schema.

        The grammar (white space is free between the parts)::

            schema   := field ("," field)*
            field    := NAME ":" TYPE modifier*       each modifier kind at most once,
            modifier := "asc" | "desc"                   in any order
                      | "nulls" ("first" | "last")
                      | OPTION "=" VALUE
            NAME, OPTION := a letter or "_", then letters, digits, "_", "." or "-"
            TYPE     := string | bytes | bool | int8 | int16 | int32 | int64 | uint8
                      | uint16 | uint32 | uint64 | int | int128 | uint128 | float32
                      | float64 | decimal | uuid | timestamp | duration | tuple | char
                      | variant
            VALUE    := a word of letters, digits and _ . - + /  (true/false: a bool,
                        an optional sign and digits: an int, else a string)
                      | a double-quoted JSON string (spaces, commas)

        ``asc`` is the default order. ``nulls first|last`` is where NULL sits in the
        final key order, whatever the direction (as SQL's NULLS FIRST/LAST); left out, NULL
        is the lowest value (first ascending, last descending). Options are codec knobs
        (``key=partition``, ``length=8``) the codec binding the schema validates; the
        option names ``name``, ``type``, ``order``, ``nulls``, ``options`` and
        ``descending`` are reserved. Keywords and types are lower case.

        >>> str(KeySchema.parse("tenant:string, ts:timestamp desc nulls last, id:int64 key=range"))
        'tenant:string, ts:timestamp desc nulls last, id:int64 key=range'

        Every error is a :class:`~lexcodecs.errors.SchemaError` carrying the column and what
        was expected there, with hints for the usual slips (a missing comma, a type or
        keyword in the wrong case).
        """
        return cls(_Parser(text).schema())

    @classmethod
    def coerce(cls, schema: KeySchema | str | Mapping[str, Any] | Iterable[Any]) -> KeySchema:
        """Accept a schema, its text form, its dict form or a list of field dicts."""
        if isinstance(schema, KeySchema):
            return schema
        if isinstance(schema, str):
            return cls.parse(schema)
        if isinstance(schema, Mapping):
            return cls.from_dict(schema)
        return cls.from_dict({"fields": list(schema)})

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(f.type for f in self.fields)

    def __len__(self) -> int:
        return len(self.fields)

    def __iter__(self) -> Iterator[Field]:
        return iter(self.fields)

    @overload
    def __getitem__(self, index: int) -> Field: ...
    @overload
    def __getitem__(self, index: slice) -> KeySchema: ...
    def __getitem__(self, index: int | slice) -> Field | KeySchema:
        if isinstance(index, slice):
            return KeySchema(self.fields[index])
        return self.fields[index]

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def index(self, name: str) -> int:
        return self.names.index(name)

    def to_text(self) -> str:
        return ", ".join(f.to_text() for f in self.fields)

    __str__ = to_text

    def to_dict(self) -> dict[str, Any]:
        return {"fields": [f.to_dict() for f in self.fields]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> KeySchema:
        """From ``{"fields": [...]}`` (JSON, TOML); unnamed fields are called f0, f1, ..."""
        if not isinstance(data, Mapping) or "fields" not in data:
            raise SchemaError("a schema dict needs a 'fields' list", value=data,
                              expected='{"fields": [...]}')
        raw = data["fields"]
        if isinstance(raw, (str, bytes)) or not isinstance(raw, Iterable):
            raise SchemaError("'fields' must be a list", value=raw, expected="a list of fields")
        return cls(tuple(Field.from_dict(f, default_name=f"f{i}") for i, f in enumerate(raw)))

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_json(cls, text: str) -> KeySchema:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SchemaError(f"not JSON: {exc.msg}", text=text, position=exc.pos,
                              expected="a JSON object") from None
        return cls.from_dict(cast(Mapping[str, Any], data))


class _Parser:
    """Recursive descent over the text form; every error says where and what was expected."""

    _TOKEN = re.compile(r'\s*(?:(?P<word>[A-Za-z0-9_.\-+/]+)|(?P<str>"(?:[^"\\]|\\.)*")'
                        r'|(?P<punct>[:,=]))')

    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise SchemaError("schema text must be a str", value=text, expected="str")
        self.text = text
        self.pos = 0

    def error(self, reason: str, expected: str, at: int | None = None) -> SchemaError:
        at = self.pos if at is None else at
        return SchemaError(reason, text=self.text, position=at, expected=expected)

    def skip_ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> tuple[str, str, int] | None:
        """(kind, text, start) of the next token, without consuming it."""
        self.skip_ws()
        if self.pos >= len(self.text):
            return None
        m = self._TOKEN.match(self.text, self.pos)
        if m is None or m.lastgroup is None:
            return ("bad", self.text[self.pos], self.pos)
        return (m.lastgroup, m.group(m.lastgroup), m.start(m.lastgroup))

    def take(self) -> tuple[str, str, int]:
        tok = self.peek()
        assert tok is not None
        self.pos = tok[2] + len(tok[1])
        return tok

    def expect(self, kind: str, expected: str, value: str | None = None) -> tuple[str, str, int]:
        tok = self.peek()
        if tok is None:
            raise self.error("schema ends early", expected)
        if tok[0] != kind or (value is not None and tok[1] != value):
            raise self.error(f"unexpected {tok[1]!r}", expected, tok[2])
        return self.take()

    def schema(self) -> tuple[Field, ...]:
        fields = [self.field(0)]
        while True:
            tok = self.peek()
            if tok is None:
                return tuple(fields)
            if tok[:2] != ("punct", ","):
                raise self.error(f"unexpected {tok[1]!r}",
                                 "',' between fields, or a modifier (asc, desc, nulls first, "
                                 "nulls last, key=value)", tok[2])
            self.take()
            fields.append(self.field(len(fields)))

    def field(self, index: int) -> Field:
        _, name, name_at = self.expect("word", "a field name")
        if not _NAME_RE.match(name):
            raise self.error(f"bad field name {name!r}",
                             "a letter or '_' then letters, digits, '_', '.', '-'", name_at)
        self.expect("punct", f"':' after the field name {name!r}", ":")
        _, type_, type_at = self.expect("word", "a field type")
        if type_ not in FIELD_TYPES:
            close = _close(type_, FIELD_TYPES, 2)
            hint = f" (did you mean {' or '.join(close)}?)" if close else ""
            raise self.error(f"unknown field type {type_!r}{hint}",
                             "one of " + ", ".join(FIELD_TYPES), type_at)
        descending: bool | None = None
        nulls: str | None = None
        options: dict[str, OptionValue] = {}
        while True:
            tok = self.peek()
            if tok is None or tok[:2] == ("punct", ","):
                break
            kind, word, at = tok
            if kind != "word":
                raise self.error(f"unexpected {word!r}", "a modifier or ','", at)
            self.take()
            nxt = self.peek()
            if nxt is not None and nxt[:2] == ("punct", "="):
                self.take()
                if word in options:
                    raise self.error(f"option {word!r} given twice", "each option once", at)
                if not _NAME_RE.match(word) or word in _RESERVED_KEYS:
                    raise self.error(f"bad option name {word!r}", "an option name", at)
                options[word] = self.option_value()
            elif word in ("asc", "desc"):
                if descending is not None:
                    raise self.error(f"order given twice ({word!r})", "one of asc, desc", at)
                descending = word == "desc"
            elif word == "nulls":
                if nulls is not None:
                    raise self.error("nulls given twice", "one nulls placement", at)
                nxt = self.peek()
                if nxt is None or nxt[:2] not in (("word", "first"), ("word", "last")):
                    close = _close(nxt[1], ("first", "last"), 1) if nxt else []
                    hint = f" (did you mean {close[0]!r}?)" if close else ""
                    raise self.error(f"'nulls' needs a placement{hint}", "'first' or 'last'",
                                     nxt[2] if nxt else None)
                nulls = self.take()[1]
            elif nxt is not None and nxt[:2] == ("punct", ":"):
                # "a:int64 b:string": the next field, without the comma before it
                raise self.error(f"{word!r} starts another field: missing a comma before "
                                 f"{word!r}?",
                                 "',' between fields", at)
            else:
                close = _close(word, ("asc", "desc", "nulls"), 1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise self.error(f"unknown modifier {word!r}{hint}",
                                 "asc, desc, nulls first, nulls last or key=value", at)
        return Field(name, type_, bool(descending), cast(Any, nulls), options)

    def option_value(self) -> OptionValue:
        tok = self.peek()
        if tok is None or tok[0] not in ("word", "str"):
            raise self.error("option has no value", "a value after '='",
                             tok[2] if tok else None)
        kind, text, at = self.take()
        if kind == "str":
            try:
                return cast(str, json.loads(text))
            except json.JSONDecodeError:
                raise self.error("bad quoted string", 'a JSON string like "a b"', at) from None
        if text in ("true", "false"):
            return text == "true"
        if re.fullmatch(r"[+-]?\d+", text):
            return int(text)
        return text
