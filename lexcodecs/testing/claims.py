"""What a codec claims, and the schemas that test each claim: the plan of ``lexcodecs
conformance``.

Theory of operation: a codec's claims are read from what it *declares* -- never from a list
of favourite types. Its ``capabilities`` give the field types, descending fields, the NULL
placements (:data:`NULL_VARIANTS`), prefix-freeness, decoding and schemaless encoding; its
``FIELD_OPTIONS`` give field options, each choice of which is a claim too. :func:`plan`
builds the schemas that exercise them:

* every field type alone, ascending and (when declared) descending;
* one three-field schema per type, ``f0:T, f1:T' desc, f2:T''`` (the next types in turn), so
  that every type also sits in a non-last position, ascending and descending: a
  variable-length field that is not last is where prefix-freeness and terminator bugs show.
  The NULL placements the codec declares rotate through these fields;
* for a schemaless codec, one schema of the types a schemaless encode chooses;
* for each choice of each field option, the first schemas of declared types that bind with
  it (first of two fields, else last of two, else alone);
* the codec's own ``conformance_schemas``, in addition.

A :class:`Claim` then names the planned schemas that exercise it (every schema with a field
of that type, direction, placement or option; every schema for whole-codec claims) and the
property that must have run on one of them. A claim the harness cannot exercise -- a type it
has no values for, an option without declared choices, a choice no schema binds with -- is
planned as *untested* with the reason, and is never reported as kept.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import attrs

from ..codec import Codec
from ..errors import SchemaError
from ..schema import FIELD_TYPES, Field, KeySchema, NullsPlacement
from .conformance import schemaless_types
from .strategies import GENERATED_TYPES

__all__ = ["NULL_VARIANTS", "Claim", "Plan", "plan"]

#: per NULL-support mode: the (descending, ``nulls``) field variants it allows, natural
#: placement (``None``) first; a codec without descending fields gets the ascending ones
NULL_VARIANTS: Final[Mapping[str, tuple[tuple[bool, NullsPlacement | None], ...]]] = {
    "first": ((False, None), (True, "first")),
    "last": ((False, "last"), (True, None)),
    "both": ((False, None), (False, "last"), (True, None), (True, "first")),
    "fixed": ((False, None), (True, None)),
    "none": ((False, None), (True, None)),
}

#: how many schemas a field option choice is tried on (of different types), at most
OPTION_SCHEMAS: Final = 2

FieldTest = Callable[[Field], bool]
#: an option claim: its name, and the test of a field that exercises it or why there is none
OptionClaim = tuple[str, FieldTest | None, str]


@attrs.frozen
class Claim:
    """One declared claim: ``schemas`` (their text) exercise it; it is tested when
    ``needs`` (a property name; ``None``: any property) ran on one of them, and broken by a
    failure of one of the ``breaks`` columns there (``None``: of any property). ``untested``
    says why the harness cannot test it (then ``schemas`` is empty)."""

    name: str
    schemas: tuple[str, ...] = ()
    needs: str | None = None
    breaks: tuple[str, ...] | None = None
    untested: str | None = None


@attrs.frozen
class Plan:
    """The schemas to check a codec with (each once, in order), and its claims."""

    schemas: tuple[KeySchema, ...]
    claims: tuple[Claim, ...]


def plan(codec: Codec) -> Plan:
    """The schemas and claims of *codec*, from what it declares (see the module text)."""
    caps = codec.capabilities
    types = [t for t in FIELD_TYPES if t in caps.field_types and t in GENERATED_TYPES]
    directions = (False, True) if caps.descending else (False,)
    variants = [v for v in NULL_VARIANTS[caps.nulls] if v[0] in directions]
    schemas: list[KeySchema] = []

    def add(fields: Sequence[Field]) -> None:
        schema = KeySchema(tuple(fields))
        if schema not in schemas:
            schemas.append(schema)

    for t in types:
        for desc in directions:
            add([_field(0, t, desc, variants, 0)])
    # the middle field descending where the codec has descending fields; the first and last
    # ascending, their NULL variants one turn apart, so that each type meets each variant
    shape = (False, caps.descending, False)
    for i in range(max(len(types), len(variants)) if types else 0):
        add([_field(p, types[(i + p) % len(types)], desc, variants, i + p // 2)
             for p, desc in enumerate(shape)])
    chosen = [t for t in types if t in schemaless_types(codec)]
    if len(chosen) > 1:
        add([Field(f"f{i}", t) for i, t in enumerate(chosen)])
    options = _options(codec, types, add)
    for schema in getattr(codec, "conformance_schemas", None) or ():
        add(KeySchema.coerce(schema).fields)
    return Plan(tuple(schemas), _claims(codec, schemas, variants, options))


def _claims(codec: Codec, schemas: Sequence[KeySchema],
            variants: Sequence[tuple[bool, NullsPlacement | None]],
            options: Sequence[OptionClaim]) -> tuple[Claim, ...]:
    """Every declared claim, with the planned schemas that exercise it."""
    caps = codec.capabilities

    def having(test: FieldTest) -> tuple[str, ...]:
        return tuple(str(s) for s in schemas if any(test(f) for f in s.fields))

    claims: list[Claim] = []
    for t in (t for t in FIELD_TYPES if t in caps.field_types):
        if t not in GENERATED_TYPES:
            claims.append(Claim(f"type {t}", untested=f"the harness draws no values of type "
                                f"{t!r} by itself (test it with CodecConformance and "
                                "value_strategies)"))
            continue
        claims.append(Claim(f"type {t}", having(_of_type(t))))
        if caps.descending:
            claims.append(Claim(f"type {t} desc", having(_of_type(t, descending=True)),
                                needs="descending"))
    if caps.nulls != "none":
        for desc, nulls in variants:
            where = nulls or ("last" if desc else "first")
            claims.append(Claim(f"nulls {where} ({'desc' if desc else 'asc'})",
                                having(_placed(desc, where)), needs="null_placement",
                                breaks=("null_placement",)))
    every = tuple(str(s) for s in schemas)
    whole = [  # (declared, name, the property that must run, the columns that break it)
        (caps.prefix_free, "prefix-free", "prefix_free", ("prefix_free",)),
        (caps.decoding != "none", f"decoding {caps.decoding}", "round_trip",
         ("round_trip", "decode_junk")),
        (caps.decoding == "self-describing", "decodes without a schema", "self_describing",
         ("self_describing",)),
        (caps.schemaless, "schemaless encoding", "schemaless", ("schemaless",)),
        (_declares_columnar(codec), "columnar layout", "columnar", ("columnar",)),
        (True, "refuses what it does not declare", "refusals", ("refusals",)),
    ]
    claims += [Claim(name, every, needs=needs, breaks=breaks)
               for declared, name, needs, breaks in whole if declared]
    claims += [Claim(name, having(test)) if test is not None else Claim(name, untested=why)
               for name, test, why in options]
    return tuple(claims)


def _declares_columnar(codec: Codec) -> bool:
    from ..columnar.pieces import declared

    return declared(codec) is not None


def _field(index: int, field_type: str, descending: bool,
           variants: Sequence[tuple[bool, NullsPlacement | None]], turn: int) -> Field:
    """Field *index*, with the NULL placement of its direction's variant number *turn*."""
    mine = [nulls for desc, nulls in variants if desc == descending]
    return Field(f"f{index}", field_type, descending, mine[turn % len(mine)] if mine else None)


def _options(codec: Codec, types: Sequence[str],
             add: Callable[[Sequence[Field]], None]) -> list[OptionClaim]:
    """One claim per field option choice, with the schemas that bind with it added."""
    options: Mapping[str, Any] = getattr(codec, "FIELD_OPTIONS", None) or {}
    own = [KeySchema.coerce(s) for s in getattr(codec, "conformance_schemas", None) or ()]
    out: list[OptionClaim] = []
    for key, option in options.items():
        choices = getattr(option, "choices", None)
        if not choices:
            if any(key in f.options for s in own for f in s.fields):
                out.append((f"option {key}", _with_option(key), ""))
            else:
                out.append((f"option {key}", None, "it declares no choices, so the harness "
                            "cannot choose its values (give the codec conformance_schemas "
                            "that use it, where the field then takes every value of its "
                            "type; an option that narrows the values needs a test with "
                            "value_strategies)"))
            continue
        for choice in choices:
            try:
                name = "option " + Field("v", "bool", options={key: choice}).to_text(
                    ).split(" ")[1]
            except SchemaError:  # a choice no schema text can hold (None, a float)
                out.append((f"option {key}={choice!r}", None, "a schema cannot hold it"))
                continue
            found = _binding(codec, types, key, choice)
            for fields in found:
                add(fields)
            if found:
                out.append((name, _with_option(key, choice), ""))
            else:
                out.append((name, None, "no schema of its declared types binds with it"))
    return out


def _of_type(field_type: str, *, descending: bool | None = None) -> FieldTest:
    def test(f: Field) -> bool:
        return f.type == field_type and (descending is None or f.descending == descending)
    return test


def _placed(descending: bool, nulls: str) -> FieldTest:
    def test(f: Field) -> bool:
        return f.descending == descending and f.effective_nulls == nulls
    return test


_ANY: Final = object()


def _with_option(key: str, choice: Any = _ANY) -> FieldTest:
    """Fields with option *key* (set to *choice*, compared with its type: true is not 1)."""
    def test(f: Field) -> bool:
        if key not in f.options:
            return False
        value = f.options[key]
        return choice is _ANY or (type(value) is type(choice) and value == choice)
    return test


def _binding(codec: Codec, types: Sequence[str], key: str, choice: Any
             ) -> list[list[Field]]:
    """Up to :data:`OPTION_SCHEMAS` schemas, of different types, binding with key=choice."""
    found: list[list[Field]] = []
    for t in types:
        other = types[0]
        tagged = Field("f0", t, options={key: choice})
        # first of two (where a terminator matters), then last of two, then alone
        for fields in ([tagged, Field("f1", other)],
                       [Field("f0", other), attrs.evolve(tagged, name="f1")], [tagged]):
            try:
                codec.bind(KeySchema(tuple(fields)))
            except Exception:  # refused: try the next shape
                continue
            found.append(fields)
            break
        if len(found) == OPTION_SCHEMAS:
            break
    return found
