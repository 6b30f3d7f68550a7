"""Every reason a codec cannot express a schema, field by field, and the nearest workaround.

Theory of operation: binding stops at the first field a codec refuses, which tells a person
choosing a format one problem of several. So each field is checked against what the codec
declares -- its field types, descending fields, NULL placement (``capabilities``) and its field
options (``FIELD_OPTIONS``, when it has that table) -- and every problem becomes a
:class:`~lexcodecs.compare.results.Blocker`. Each blocker gets the nearest workaround from the
tables below: a type the codec lacks is stored as another one (:data:`TYPE_SUBSTITUTES`), a
descending field as an ascending transform of its value (:data:`DESCENDING`), a NULL placement
the codec cannot give as a flag field in front (:func:`_null_flag`), an option of another format
is left out.

Workarounds are data with a value converter, so they can be *applied*: :func:`plan` rewrites
the schema and gives the function that converts a record, and the comparison can measure the
codec on the rewritten schema. Whatever only ``bind`` knows (an option combination, skv's
partition-key rule, a plugin's own rules) is found by binding the rewritten schema: each
refusal is one more blocker, and the field it names is set aside to look for the next.
"""

from __future__ import annotations

import datetime as dt
import decimal
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import attrs

from ..codec import NULL_SUPPORT, Capabilities, Codec
from ..errors import LexCodecError, SchemaError, with_article
from ..schema import Field, KeySchema
from ..types import INT_TYPES, Float32
from .results import Blocker

__all__ = ["DESCENDING", "TYPE_SUBSTITUTES", "Plan", "Reversal", "Substitute", "plan"]

Convert = Callable[[Any], Any]

# -- value converters -----------------------------------------------------------------------

_EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_US: Final = dt.timedelta(microseconds=1)
_UUID_MAX: Final = (1 << 128) - 1


def _epoch_us(t: dt.datetime) -> int:
    # a naive datetime is read as UTC, as the natural-order model reads it
    aware = t if t.tzinfo is not None else t.replace(tzinfo=dt.UTC)
    return (aware - _EPOCH) // _US


def _duration_us(d: dt.timedelta) -> int:
    return d // _US


def _utf8(s: str) -> bytes:
    # surrogatepass: a lone surrogate keeps its code point order too
    return s.encode("utf-8", "surrogatepass")


def _inverted_terminated(data: bytes) -> bytes:
    """00 written 00 ff, then 00 00 to end it (prefix-free and order-keeping), then every
    byte inverted: ascending order of the result is descending order of *data*."""
    body = data.replace(b"\x00", b"\x00\xff") + b"\x00\x00"
    return bytes(0xFF - b for b in body)


def _negate_float(x: float) -> float:
    return Float32(-x) if type(x) is Float32 else -x


def _uuid_reversed(u: Any) -> Any:
    return type(u)(int=_UUID_MAX - u.int)


def _null_kept(convert: Convert) -> Convert:
    """*convert*, with NULL passed through: a NULL stays a NULL in the rewritten field."""
    def run(value: Any) -> Any:
        return None if value is None else convert(value)
    return run


# -- the tables -----------------------------------------------------------------------------


@attrs.frozen
class Substitute:
    """A type a codec lacks, stored as ``type``: ``how`` says what is stored."""

    type: str
    how: str
    convert: Convert = attrs.field(eq=False)
    exact: bool = True
    #: what a person should know about it (what it loses, a better way by hand)
    note: str = ""

    def text(self) -> str:
        return f"{self.how} ({self.note})" if self.note else self.how


def _int_widenings() -> dict[str, tuple[Substitute, ...]]:
    """Each integer type, stored in any wider one that holds its whole range (the narrowest
    first, the same signedness first), then as an arbitrary ``int`` or a ``decimal``."""
    out: dict[str, tuple[Substitute, ...]] = {}
    for name, cls in INT_TYPES.items():
        wider = sorted((other for other, o in INT_TYPES.items()
                        if other != name and o.min <= cls.min and o.max >= cls.max),
                       key=lambda other: (INT_TYPES[other].bits,
                                          (INT_TYPES[other].min < 0) != (cls.min < 0)))
        out[name] = (*(Substitute(other, f"{with_article(other)} (it holds every {name})", int)
                       for other in wider),
                     Substitute("int", "an int of the same value", int),
                     Substitute("decimal", "a decimal of the same integer", decimal.Decimal))
    return out


#: a field type a codec lacks -> what to store instead, the nearest first; the first one the
#: codec has is the workaround. Types not listed (bytes, tuple) have none.
TYPE_SUBSTITUTES: Final[Mapping[str, tuple[Substitute, ...]]] = {
    "timestamp": (Substitute("int64", "an int64 of microseconds since the epoch", _epoch_us),),
    "duration": (Substitute("int64", "an int64 of microseconds", _duration_us),),
    "uuid": (Substitute("bytes", "bytes: its 16 bytes, big-endian (UUID.bytes)",
                        operator.attrgetter("bytes")),),
    "bool": tuple(Substitute(t, f"{with_article(t)}: 0 for false, 1 for true", int)
                  for t in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                            "uint64", "int")),
    "float32": (Substitute("float64", "a float64 of the same value (every float32 is one)",
                           float),),
    "float64": (Substitute("decimal", "a decimal of its exact value", decimal.Decimal,
                           exact=False, note="-0.0 becomes 0"),),
    "decimal": (Substitute("float64", "the nearest float64", float, exact=False,
                           note="about 17 significant digits, and 1.50 becomes 1.5; for exact "
                           "amounts, an int64 of the value times 10**scale"),),
    "int": (Substitute("decimal", "a decimal of the same integer", decimal.Decimal),
            Substitute("int64", "an int64", int, exact=False,
                       note="when every value fits in 64 bits; the others are refused")),
    "string": (Substitute("bytes", "bytes: its UTF-8, which keeps code-point order", _utf8),),
    **_int_widenings(),
}


@attrs.frozen
class Reversal:
    """A descending field written ascending: ``convert`` reverses the order of the values;
    ``type`` is the type written (``None``: the field's own)."""

    how: str
    convert: Convert = attrs.field(eq=False)
    type: str | None = None
    exact: bool = True


def _signed_complement(value: int) -> int:
    return ~value


def _from_max(top: int) -> Convert:
    def run(value: int) -> int:
        return top - value
    return run


_INVERTED_BYTES: Final = ("with each 00 written 00 ff and 00 00 at the end, every byte then "
                          "inverted (0xff - b)")

#: a field type -> how to write it ascending in reverse order, for a codec without descending
#: fields. A ``type`` changes the field's type (timestamps become negated microseconds).
DESCENDING: Final[Mapping[str, Reversal]] = {
    **{name: Reversal("its bitwise complement ~x (-x - 1), ascending", _signed_complement)
       for name, cls in INT_TYPES.items() if cls.min < 0},
    **{name: Reversal(f"{cls.max} - x, ascending", _from_max(cls.max))
       for name, cls in INT_TYPES.items() if cls.min == 0},
    "int": Reversal("-x, ascending", operator.neg),
    "decimal": Reversal("-x, ascending", operator.neg),
    "float64": Reversal("-x, ascending (IEEE order reverses exactly; where the codec puts "
                        "every NaN at one end, NaN stays there)", _negate_float),
    "float32": Reversal("-x, ascending (IEEE order reverses exactly)", _negate_float),
    "bool": Reversal("not x, ascending", operator.not_),
    "uuid": Reversal("the UUID of 2**128 - 1 - its int, ascending", _uuid_reversed),
    "timestamp": Reversal("an int64 of microseconds since the epoch, negated",
                          lambda t: -_epoch_us(t), type="int64"),
    "duration": Reversal("an int64 of microseconds, negated", lambda d: -_duration_us(d),
                         type="int64"),
    "string": Reversal(f"bytes: its UTF-8 {_INVERTED_BYTES}, ascending",
                       lambda s: _inverted_terminated(_utf8(s)), type="bytes"),
    "bytes": Reversal(f"its bytes {_INVERTED_BYTES}, ascending", _inverted_terminated),
}

#: the types a NULL flag field may have, the best first
_FLAG_TYPES: Final = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                      "uint64", "int")


# -- one field ------------------------------------------------------------------------------


@attrs.frozen
class _FieldFix:
    """A field's blockers and, when every one has a workaround, what replaces the field."""

    blockers: tuple[Blocker, ...]
    fields: tuple[Field, ...] | None
    convert: Callable[[Any], tuple[Any, ...]] | None


def _nulls_ok(support: str, field: Field) -> bool:
    placement = field.effective_nulls
    return {"both": True, "first": placement == "first", "last": placement == "last",
            "fixed": field.natural_nulls, "none": field.nulls is None}.get(support, False)


def _null_flag(caps: Capabilities, name: str, last: bool
               ) -> tuple[Field, Callable[[Any], Any], str] | None:
    """A flag field in front of a field, for a NULL placement the codec cannot give: it
    sorts NULL before (``last=False``) or after every value whatever the codec does."""
    kind = next((t for t in _FLAG_TYPES if t in caps.field_types), None)
    if kind is None:
        return None
    as_type: Callable[[bool], Any] = bool if kind == "bool" else int

    def flag(value: Any) -> Any:
        return as_type((value is None) == last)
    true = "true" if kind == "bool" else "1"
    text = f"a flag field {name}:{kind} in front of it, {true} for {'NULL' if last else 'a value'}"
    return Field(name, kind), flag, text


class _Blockers:
    """The blockers of one field, as they are found."""

    def __init__(self, field: Field, position: int) -> None:
        self.field = field
        self.position = position
        self.items: list[Blocker] = []

    def add(self, problem: str, workaround: str | None, exact: bool | None = None) -> int:
        """Add a blocker; its index in :attr:`items`."""
        self.items.append(Blocker(self.field.name, self.position, problem, workaround,
                                  None if workaround is None else exact))
        return len(self.items) - 1


def _retype(caps: Capabilities, field: Field, found: _Blockers
            ) -> tuple[str, Convert, int | None] | None:
    """The type a field is written as, and how a value becomes one, where the codec lacks
    the field's type or descending fields; also the index of the descending blocker (the
    NULL placement may need a word there). ``None``: no workaround."""
    kind = field.type
    convert: Convert = _identity
    type_problem = f"type {field.type!r} is not supported"
    desc_problem = "descending fields are not supported"
    desc_missing = field.descending and not caps.descending
    reversal = DESCENDING.get(kind) if desc_missing else None
    if reversal is not None and reversal.type not in (None, kind) and \
            reversal.type in caps.field_types:
        # one rule changes the type and reverses the order (timestamp desc: negated micros)
        if kind not in caps.field_types:
            found.add(type_problem, reversal.how, reversal.exact)
        at = found.add(desc_problem, reversal.how, reversal.exact)
        return str(reversal.type), reversal.convert, at
    how = ""
    if kind not in caps.field_types:
        sub = next((s for s in TYPE_SUBSTITUTES.get(kind, ()) if s.type in caps.field_types),
                   None)
        if sub is None:
            found.add(type_problem, None)
            if desc_missing:
                found.add(desc_problem, None)
            return None
        how = sub.how
        found.add(type_problem, sub.text() + (", descending" if field.descending and
                                              caps.descending else ""), sub.exact)
        kind, convert = sub.type, sub.convert
    if not desc_missing:
        return kind, convert, None
    reversal = DESCENDING.get(kind)
    if reversal is None or (reversal.type is not None and
                            reversal.type not in caps.field_types):
        found.add(desc_problem, None)
        return None
    exact = reversal.exact and all(b.exact for b in found.items)
    at = found.add(desc_problem, f"{how}, then {reversal.how}" if how else reversal.how, exact)
    return reversal.type or kind, _then(convert, reversal.convert), at


def _options(codec: Codec, field: Field, owners: Mapping[str, Sequence[str]],
             found: _Blockers) -> dict[str, Any] | None:
    """The field's options the codec keeps: another format's option is left out; a value
    the codec does not allow has no automatic workaround (``None``)."""
    options = dict(field.options)
    table = getattr(codec, "FIELD_OPTIONS", None)
    if not isinstance(table, Mapping):  # a plugin without the table: bind will tell
        return options
    fixable = True
    for key, value in field.options.items():
        option = table.get(key)
        if option is None:
            known = [name for name in owners.get(key, ()) if name != codec.name]
            found.add(f"unknown field option {key}={value!r}",
                      "leave it out" + (f" (an option of {', '.join(known)})" if known else ""),
                      True)
            del options[key]
            continue
        expected = option.problem(value)
        if expected is not None:
            found.add(f"field option {key}={value!r} is not allowed", f"{key}: {expected}")
            fixable = False
    return options if fixable else None


def _fix_field(codec: Codec, caps: Capabilities, index: int, field: Field, names: set[str],
               owners: Mapping[str, Sequence[str]]) -> _FieldFix:
    found = _Blockers(field, index)
    retyped = _retype(caps, field, found)
    options = _options(codec, field, owners, found)
    kind, convert, desc_at = retyped if retyped is not None else (field.type, _identity, None)
    # the rewritten field keeps the NULL placement asked for, in the final order
    placement = field.effective_nulls
    written = Field(field.name, kind, field.descending and caps.descending, None,
                    options or {})
    if written.effective_nulls != placement:
        written = attrs.evolve(written, nulls=placement)
    flag = None
    nulls_fixable = True
    if not _nulls_ok(caps.nulls, written):
        flag = _null_flag(caps, _free_name(f"{field.name}_null", names),
                          last=placement == "last")
        nulls_fixable = flag is not None
        workaround = None if flag is None else flag[2]
        if not _nulls_ok(caps.nulls, field):
            found.add(f"NULL cannot sort {placement} here "
                      f"({NULL_SUPPORT.get(caps.nulls, '?')})", workaround, True)
        elif desc_at is not None and workaround is not None:
            # the rewrite itself moved NULL (descending -> ascending): say what keeps it
            was = found.items[desc_at]
            found.items[desc_at] = attrs.evolve(was, workaround=f"{was.workaround}; and, as NULL "
                                          f"sorts {placement} here, {workaround}")
        written = attrs.evolve(written, nulls=None)
    if retyped is None or options is None or not nulls_fixable:
        return _FieldFix(tuple(found.items), None, None)
    value_of = _null_kept(convert)
    if flag is None:
        return _FieldFix(tuple(found.items), (written,), lambda v: (value_of(v),))
    flag_field, flag_of, _ = flag
    return _FieldFix(tuple(found.items), (flag_field, written),
                     lambda v: (flag_of(v), value_of(v)))


def _identity(value: Any) -> Any:
    return value


def _then(first: Convert, second: Convert) -> Convert:
    def run(value: Any) -> Any:
        return second(first(value))
    return run


def _free_name(wanted: str, names: set[str]) -> str:
    name = wanted
    while name in names:
        name += "_"
    names.add(name)
    return name


# -- a whole schema -------------------------------------------------------------------------


@attrs.frozen
class Plan:
    """What a codec cannot do with a schema, and the rewritten schema its workarounds give
    (``schema=None`` when some blocker has no workaround that can be applied)."""

    codec: str
    blockers: tuple[Blocker, ...]
    schema: KeySchema | None = None
    converters: tuple[Callable[[Any], tuple[Any, ...]], ...] = attrs.field(default=(),
                                                                          eq=False)

    @property
    def exact(self) -> bool:
        return all(b.exact for b in self.blockers)

    def convert(self, row: Sequence[Any]) -> tuple[Any, ...]:
        """A record of the original schema, as a record of the rewritten one."""
        if len(row) != len(self.converters):
            raise ValueError(f"{len(row)} values for a schema of {len(self.converters)} "
                             "fields")
        return tuple(v for f, value in zip(self.converters, row) for v in f(value))


def plan(codec: Codec, schema: KeySchema, refusal: LexCodecError,
         owners: Mapping[str, Sequence[str]] = {}) -> Plan:
    """Every blocker of *codec* on *schema* (whose bind raised *refusal*), each with its
    workaround, and the rewritten schema when all of them can be applied.

    *owners* maps a field option to the codecs that know it, for "leave it out" hints.
    """
    caps = codec.capabilities
    names = set(schema.names)
    fixes = [_fix_field(codec, caps, i, f, names, owners) for i, f in enumerate(schema.fields)]
    blockers = [b for fix in fixes for b in fix.blockers]
    fixable = all(fix.fields is not None for fix in fixes)
    # what only bind knows: bind the rewritten schema (fields without a fix as written), and
    # set each field it refuses aside to find the next refusal
    fields: list[Field] = []
    origin: list[int] = []
    for i, (field, fix) in enumerate(zip(schema.fields, fixes)):
        replacement = fix.fields if fix.fields is not None else (field,)
        fields += replacement
        origin += [i] * len(replacement)
    blocked = {i for i, fix in enumerate(fixes) if fix.fields is None}

    def refused(error: LexCodecError, where: int | None) -> None:
        if not any(b.index == where and b.problem == error.reason for b in blockers):
            blockers.append(Blocker(None if where is None else schema.fields[where].name,
                                    where, error.reason, error.expected, None))

    if not blockers:  # nothing declared explains the refusal: it is the first blocker
        at = refusal.field if isinstance(refusal, SchemaError) else None
        where = at if at is not None and 0 <= at < len(schema) else None
        refused(refusal, where)
        fixable = False
        if where is None:
            fields = []
        blocked.add(-1 if where is None else where)
    while True:
        kept = [(f, o) for f, o in zip(fields, origin) if o not in blocked]
        if not kept:
            break
        try:
            codec.bind(KeySchema(tuple(f for f, _ in kept)))
        except LexCodecError as exc:
            at = exc.field if isinstance(exc, SchemaError) else None
            where = kept[at][1] if at is not None and 0 <= at < len(kept) else None
            refused(exc, where)
            fixable = False
            if where is None:
                break
            blocked.add(where)
        else:
            break
    blockers.sort(key=lambda b: (len(schema) if b.index is None else b.index))
    if not fixable:
        return Plan(codec.name, tuple(blockers))
    rewritten = KeySchema(tuple(fields))
    converters = tuple(fix.convert for fix in fixes if fix.convert is not None)
    return Plan(codec.name, tuple(blockers), rewritten, converters)
