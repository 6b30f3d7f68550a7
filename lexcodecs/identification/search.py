"""Which codec and schema wrote these keys: the search.

Theory of operation. Every registered codec is tried with its default options, through its
public API only (what it declares: capabilities, field types; plugins take part the same
way, and nothing here names a built-in codec):

1. **Keys that decode alone** (a self-describing codec): each key decoded without a schema
   gives its values. Where every key has the same number of values, a schema is sought
   field by field: the field types that hold each position's values
   (:data:`TYPES_OF_VALUE`, in order of preference), in each order the codec has, the
   choice that most keys re-encode under to their own bytes (a coordinate search: the
   other fields held, one field's choices tried in turn, twice over).
2. **A schema search** (every codec that decodes keys with a schema): a beam search that
   grows a schema a field at a time. A schema *explains* a key when it decodes all of it,
   or exactly a prefix of it: decoding stops with a :class:`~lexcodecs.errors.DecodeError`
   at byte X, and the first X bytes decode alone (a schema too short for the key); or,
   for a format that checks a key's whole length first, when the schema with a string or
   bytes field added (a *probe*, which takes the rest of a key in such formats) decodes
   the key. Schemas that explain every sampled key are kept, the most bytes explained
   first; the ones that decode whole keys are the candidates.

3. **Options** (only when the defaults leave no strong candidate; the round is driven by
   ``lexcodecs.identification.identify``): the codec under each other value of its
   declared options, and the field options it declares (:func:`field_variants`), tried in
   the schema search where a field fails without one, and by :func:`refine` on the best
   schemas, field by field.

Every candidate is then checked on every key (:func:`verify`): how many decode, whether
each decoded key re-encodes to its own bytes, whether the values' natural order is the
keys' byte order, and how *specific* the schema is: the share of random byte strings (of
the keys' lengths, a fixed seed) it decodes (:func:`specificity`), and the share of the
keys themselves, cut short by a byte or lengthened by one, that still decode
(:func:`looseness`: a raw tail field takes them all; a structured schema, with its
terminators, lengths and type bytes, few). A schema that decodes anything explains
nothing, and never outranks one that does. Among schemas that explain the bytes equally
well, the simpler reading wins (:func:`plainness`): the shorter values (1000, not
4.94e-321), then the more telling types (:data:`TYPE_ORDER`: a string before bytes, the
commonest integer and float first).
"""

from __future__ import annotations

import functools
import itertools
import math
import random
import uuid
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, Final, NamedTuple

from ..codec import Codec
from ..errors import DecodeError, describe_value
from ..model import ModelError, key_function
from ..schema import Field, KeySchema
from ..types import Float32

__all__ = [
    "BEAM",
    "MAX_FIELDS",
    "RANDOM_KEYS",
    "SAMPLE",
    "TYPES_OF_VALUE",
    "TYPE_ORDER",
    "Binder",
    "FieldOption",
    "Found",
    "Search",
    "Spec",
    "field_variants",
    "fields_where",
    "looseness",
    "plainness",
    "refine",
    "same_value",
    "schemaless_schemas",
    "search_schemas",
    "specificity",
    "spread",
    "unlikely_fields",
    "verify",
]

#: the keys the searches look at (spread through the input); every key is checked after
SAMPLE: Final = 24
#: schemas kept per field count in the schema search, and the most fields it tries
BEAM: Final = 10
MAX_FIELDS: Final = 6
#: field types that may take the rest of a key when they come last (a raw string, say), so
#: that a schema ending in one is judged only once a field follows it
GREEDY_TYPES: Final = frozenset({"string", "bytes"})
#: random byte strings a candidate's specificity is measured on
RANDOM_KEYS: Final = 200

#: the field types, the most telling first: a reading of the bytes as earlier types is the
#: likelier one when two read them equally well (bytes, which any byte string is, last)
TYPE_ORDER: Final = ("string", "int64", "int", "float64", "bool", "uuid", "timestamp",
                     "duration", "int32", "uint64", "uint32", "int16", "uint16", "int8", "uint8",
                     "float32", "decimal", "tuple", "bytes")

#: the field types that hold a decoded value of each Python type, in order of preference
#: (the first that round-trips wins: a codec that writes int8 and int64 alike gets int64)
TYPES_OF_VALUE: Final[dict[type, tuple[str, ...]]] = {
    bool: ("bool",),
    int: ("int64", "int", "uint64", "int32", "uint32", "int16", "uint16", "int8", "uint8"),
    float: ("float64", "float32", "int"),  # a JS number field may read back as an int
    Float32: ("float32",),
    str: ("string",),
    bytes: ("string", "bytes"),  # a codec may decode its text as bytes without a schema
    uuid.UUID: ("uuid",),
    Decimal: ("decimal",),
    datetime: ("timestamp",),
    timedelta: ("duration",),
    tuple: ("tuple",),
}


# -- binding schemas ----------------------------------------------------------------------------

#: a field option as the searches try it: (name, value); ``("nulls", "last")`` is the NULL
#: placement
FieldOption = tuple[str, Any]


class Spec(NamedTuple):
    """One field of a schema being sought (its name comes from its place)."""

    type: str
    descending: bool = False
    options: tuple[FieldOption, ...] = ()


def schema_text(specs: Sequence[Spec]) -> str:
    return str(schema_of(specs))


def schema_of(specs: Sequence[Spec]) -> KeySchema:
    """The schema of *specs*, built from its fields (parsing its text cost half the search)."""
    return KeySchema(tuple(_field(i, spec, _types(spec)) for i, spec in enumerate(specs)))


def _types(spec: Spec) -> tuple[type, ...]:
    """The types of a field's option values: part of what tells two fields apart, as in
    :class:`~lexcodecs.schema.Options` (True == 1 in Python, final=true is not final=1)."""
    return tuple(type(v) for _, v in spec.options)


@functools.lru_cache(maxsize=4096)
def _field(index: int, spec: Spec, types: tuple[type, ...]) -> Field:
    """Field *index* of a schema (made once: the searches bind tens of thousands)."""
    options = dict(spec.options)
    nulls = options.pop("nulls", None)
    return Field(f"f{index}", spec.type, descending=spec.descending, nulls=nulls,
                 options=options)


def field_variants(codec: Codec) -> tuple[FieldOption, ...]:
    """The field options worth trying on a codec's keys, from what it declares: each
    ``choices`` value of its ``FIELD_OPTIONS`` but the default, and NULL placement where a
    field chooses it."""
    out: list[FieldOption] = []
    for name, option in getattr(codec, "FIELD_OPTIONS", {}).items():
        out += [(name, v) for v in option.choices or () if not same_value(v, option.default)]
    if codec.capabilities.nulls == "both":
        out += [("nulls", "first"), ("nulls", "last")]
    return tuple(out)


def same_value(a: Any, b: Any) -> bool:
    """Equal and of one type (an option of True is not one of 1)."""
    return type(a) is type(b) and bool(a == b)


class Binder:
    """Bound codecs by field list, each bound once (None: the codec refuses the schema): one
    for all the searches and checks of a codec, whose binds are most of their cost."""

    def __init__(self, codec: Codec) -> None:
        self.codec = codec
        self._bound: dict[Any, Any] = {}

    def __call__(self, specs: tuple[Spec, ...]) -> Any:
        key = (specs, *(_types(s) for s in specs if s.options))
        if key not in self._bound:
            try:
                self._bound[key] = self.codec.bind(schema_of(specs))
            except Exception:
                self._bound[key] = None
        return self._bound[key]


def _decode(bound: Any, key: bytes) -> tuple[Any, ...] | None:
    try:
        return tuple(bound.decode(key))
    except Exception:
        return None


def explained(bound: Any, key: bytes, probes: Sequence[Any] = ()) -> int:
    """How many bytes of *key* the bound schema explains: all of them (it decodes the key),
    a prefix (decoding stops at byte X with a DecodeError, and the first X bytes decode
    alone; or a *probe*, the schema with a string or bytes field after it, decodes the key:
    the bytes before that field's value), or -1."""
    try:
        bound.decode(key)
        return len(key)
    except DecodeError as exc:
        x = exc.offset
        if x is not None and 0 < x < len(key) and _decode(bound, key[:x]) is not None:
            return x
    except Exception:
        pass
    for probe in probes:
        values = _decode(probe, key)
        if values is not None:
            tail = values[-1]
            size = len(tail.encode("utf-8", "surrogatepass") if isinstance(tail, str) else
                       tail) if isinstance(tail, (str, bytes)) else 0
            return max(len(key) - size, 0)
    return -1


# -- 1. keys that decode alone -----------------------------------------------------------------

def schemaless_schemas(codec: Codec, keys: Sequence[bytes], bind: Binder | None = None
                       ) -> list[tuple[Spec, ...]]:
    """Schemas for keys the codec decodes without one: [] when they do not all decode to
    the same number of values; else the best schema of the coordinate search (and, when
    no choice makes every key round-trip, that one still: :func:`verify` says so)."""
    decoded = []
    for key in keys:
        try:
            decoded.append(tuple(codec.decode(key)))
        except Exception:
            return []
    if not decoded or len({len(v) for v in decoded}) != 1 or not decoded[0]:
        return []
    have = codec.capabilities.field_types
    orders = (False, True) if codec.capabilities.descending else (False,)
    choices: list[list[Spec]] = []
    for i in range(len(decoded[0])):
        kinds = {type(v[i]) for v in decoded if v[i] is not None}
        types = [t for t in _types_for(kinds) if t in have] or sorted(have - {"tuple"})
        choices.append([Spec(t, d) for t in types for d in orders])
    bind = bind or Binder(codec)
    best = [c[0] for c in choices]

    def score(specs: Sequence[Spec]) -> tuple[int, int]:
        """The keys that decode under the schema and re-encode to their own bytes (a
        schema's values, not the schemaless ones: text may decode as bytes without one),
        then the plainer values (an int field's 7 before a float64 field's 7.0)."""
        bound = bind(tuple(specs))
        if bound is None:
            return (-1, 0)
        hits = text = 0
        for key in keys:
            values = _decode(bound, key)
            if values is not None and _encodes(bound, values, key):
                hits += 1
                text += _text_length(values)
        return (hits, -text)

    for _ in range(2):
        for i, options in enumerate(choices):
            scored = [(score([*best[:i], o, *best[i + 1:]]), -k) for k, o in enumerate(options)]
            best[i] = options[-max(scored)[1]]
    return [tuple(best)]


def _text_length(values: Sequence[Any]) -> int:
    """The values' length as text, a bool as one character (the 0 or 1 it is written as)."""
    return sum(1 if type(v) is bool else len(describe_value(v)) for v in values)


def _types_for(kinds: set[type]) -> list[str]:
    """The field types that hold every kind of value seen at one position, preferred first."""
    if not kinds:
        return []
    lists = [TYPES_OF_VALUE.get(k, ()) for k in kinds]
    return [t for t in lists[0] if all(t in other for other in lists[1:])]


def _encodes(bound: Any, values: Sequence[Any], key: bytes) -> bool:
    try:
        return bool(bound.encode(values) == key)
    except Exception:
        return False


# -- 2. the schema search -----------------------------------------------------------------------

def search_schemas(codec: Codec, keys: Sequence[bytes], bind: Binder | None = None, *,
                   beam: int = BEAM, max_fields: int = MAX_FIELDS,
                   variants: Sequence[FieldOption] = ()) -> list[tuple[Spec, ...]]:
    """Schemas under which every key of *keys* decodes, from a beam search over field
    lists (see the module's docstring); at most *beam* for each field count. With
    *variants* (field options), each field may also take each of them."""
    have = sorted(codec.capabilities.field_types - {"tuple"})
    orders = (False, True) if codec.capabilities.descending else (False,)
    options = [Spec(t, d) for t in have for d in orders]
    # one probe: the first greedy type the codec has (a second took as many binds again, for
    # the same answers on every generated key set)
    tails = [Spec(t) for t in sorted(GREEDY_TYPES) if t in have][:1]
    bind = bind or Binder(codec)
    if _prefix_signal(bind, options, keys):
        tails = []  # a too-short schema says where it stopped: no probes needed
    # each field type and order with the field options it takes (as a key's one field: most
    # options are for some types only, and a refused bind costs as much as a good one)
    with_options = {o: [w for v in variants
                        if bind((w := o._replace(options=(v,)),)) is not None]
                    for o in options}
    found: list[tuple[Spec, ...]] = []
    level: list[tuple[Spec, ...]] = [()]
    after_whole = 0  # levels searched since one held whole keys: a greedy field may follow
    for _ in range(max_fields):
        scored, unjudged = [], []
        for parent in level:
            for option in options:
                # a field option is tried where the field without it fails: the options that
                # matter here change what a field reads (NULL placement, a raw tail); the
                # others change only how it is written, and refine() finds those
                for field in (option, *with_options[option]):
                    specs = (*parent, field)
                    bound = bind(specs)
                    if bound is None:
                        continue
                    probes = [p for p in (bind((*specs, tail)) for tail in tails)
                              if p is not None]
                    total, whole = 0, 0
                    for key in keys:  # fail fast: most schemas are wrong at the first key
                        n = explained(bound, key, probes)
                        if n < 0:
                            break
                        total += n
                        whole += n == len(key)
                    else:
                        scored.append((whole, total, specs))
                        break
                    if field.type in GREEDY_TYPES:
                        unjudged.append(specs)
        scored.sort(key=lambda s: (-s[0], -s[1], _type_rank(s[2])))
        found += [specs for n, _, specs in scored if n == len(keys)]
        after_whole += bool(found)
        # the beam: the schemas that explain the most bytes, and the plainest ones (a wrong
        # field that swallows many bytes, a float64 over an integer and what follows it,
        # explains more of a key for now than the right one)
        plainest = sorted(scored, key=lambda s: _type_rank(s[2]))
        level = list(dict.fromkeys([specs for _, _, specs in scored[:beam]]
                                   + [specs for _, _, specs in plainest[:beam]]))
        level += unjudged[:beam]
        if not level or after_whole > 2:
            break
    return found


def _prefix_signal(bind: Binder, options: Sequence[Spec], keys: Sequence[bytes]) -> bool:
    """Whether one-field schemas that stop short of the keys say so by a DecodeError at the
    byte where they stopped (some formats check a key's whole length first)."""
    for option in options:
        bound = bind((option,))
        if bound is not None and keys and all(0 < explained(bound, k) < len(k) for k in keys):
            return True
    return False


def _type_rank(specs: Sequence[Spec]) -> int:
    order = {t: i for i, t in enumerate(TYPE_ORDER)}
    return sum(order.get(s.type, len(order)) + s.descending + len(s.options) for s in specs)


# -- field options -----------------------------------------------------------------------------

def refine(specs: tuple[Spec, ...], keys: Sequence[bytes], bind: Binder,
           variants: Sequence[FieldOption]) -> tuple[Spec, ...]:
    """*specs* with the field options under which the most keys decode and re-encode to
    their own bytes: a coordinate search (each field, each option value in turn, kept when
    more keys decode or round-trip; twice over). Decoders that read every form of a field
    (an orderly field terminated or not) decode keys that only the right option re-encodes."""
    def score(trial: tuple[Spec, ...]) -> tuple[int, int]:
        bound = bind(trial)
        if bound is None:
            return (-1, -1)
        values = [_decode(bound, key) for key in keys]
        return (sum(v is not None for v in values),
                sum(v is not None and _encodes(bound, v, k) for k, v in zip(keys, values)))

    best, best_score = specs, score(specs)
    perfect = (len(keys), len(keys))
    for _ in range(2):
        for i in range(len(best)):
            for variant in variants:
                if best_score == perfect:
                    return best
                if variant in best[i].options:
                    continue
                options = (*(o for o in best[i].options if o[0] != variant[0]), variant)
                trial = (*best[:i], best[i]._replace(options=options), *best[i + 1:])
                trial_score = score(trial)
                if trial_score > best_score:
                    best, best_score = trial, trial_score
    return best


# -- checking a candidate on every key ---------------------------------------------------------

class Found:
    """What one codec and schema make of every key (see :func:`verify`)."""

    __slots__ = ("decoded", "ordered", "roundtrip", "specs", "values")

    def __init__(self, specs: tuple[Spec, ...], values: list[tuple[Any, ...] | None],
                 roundtrip: bool, ordered: bool) -> None:
        self.specs = specs
        self.values = values
        self.decoded = sum(v is not None for v in values)
        self.roundtrip = roundtrip
        self.ordered = ordered


def verify(codec: Codec, specs: tuple[Spec, ...], keys: Sequence[bytes],
           bind: Binder | None = None) -> Found | None:
    """Every key decoded under the schema; whether each decoded key re-encodes to its own
    bytes; whether the decoded values, in the keys' byte order, never go down in the
    natural order (the codec's float policy). None when the codec refuses the schema."""
    bound = (bind or Binder(codec))(specs)
    if bound is None:
        return None
    values = [_decode(bound, key) for key in keys]
    roundtrip = all(v is not None and _encodes(bound, v, k) for k, v in zip(keys, values))
    natural = key_function(schema_of(specs), codec.capabilities.float_policy)
    ordered = True
    try:
        pairs = sorted((k, v) for k, v in zip(keys, values) if v is not None)
        ranks = [natural(v) for _, v in pairs]
        ordered = all(a <= b for a, b in itertools.pairwise(ranks))
    except (ModelError, TypeError, ValueError):
        ordered = False
    return Found(specs, values, roundtrip, ordered)


def specificity(codec: Codec, specs: tuple[Spec, ...], lengths: Iterable[int],
                count: int = RANDOM_KEYS, seed: int = 0, bind: Binder | None = None) -> float:
    """The share of *count* random byte strings (lengths drawn from *lengths*, seeded) that
    the schema decodes: near 0 for a schema that explains structure, near 1 for one that
    decodes anything."""
    bound = (bind or Binder(codec))(specs)
    pool = sorted(lengths) or [0]
    if bound is None:
        return 0.0
    rng = random.Random(seed)
    hits = 0
    for _ in range(count):
        key = rng.randbytes(rng.choice(pool))
        hits += _decode(bound, key) is not None
    return hits / count


def looseness(codec: Codec, specs: tuple[Spec, ...], keys: Sequence[bytes],
              bind: Binder | None = None) -> float:
    """The share of *keys*, each cut short by its last byte or lengthened by a 00 or an ff,
    that still decode under the schema: near 1 when its last field takes any bytes at all."""
    bound = (bind or Binder(codec))(specs)
    if bound is None or not keys:
        return 0.0
    tried = hits = 0
    for key in keys:
        for variant in (key[:-1], key + b"\x00", key + b"\xff"):
            if variant:
                tried += 1
                hits += _decode(bound, variant) is not None
    return hits / tried if tried else 0.0


def plainness(specs: tuple[Spec, ...], found: Found) -> tuple[float, int]:
    """How plain a reading is, smaller first: the decoded values' mean length as text (a
    bool as one character, as the 0 or 1 it is written as: ``True`` is no longer a reading
    than ``1``), then the fields' places in :data:`TYPE_ORDER` (and a descending field after
    an ascending)."""
    texts = [_text_length(row) for row in found.values if row is not None]
    mean = sum(texts) / len(texts) if texts else 0.0
    return round(mean), _type_rank(specs)


#: bytes no text holds (C0 controls but tab, newline and carriage return)
CONTROL: Final = frozenset(range(0x20)) - {0x09, 0x0A, 0x0D}
#: a float whose binary exponent is beyond this, either way, is no likely value (1e±60):
#: other fields' bytes read as a float's
WILD_EXPONENT: Final = 200


def fields_where(found: Found, test: Callable[[Any], bool]) -> tuple[int, ...]:
    """The fields (by index) whose values pass *test* in most decoded keys."""
    rows = [v for v in found.values if v is not None]
    return tuple(i for i in range(len(found.specs))
                 if rows and sum(bool(test(row[i])) for row in rows) * 2 > len(rows))


def unlikely_fields(found: Found) -> tuple[int, ...]:
    """The fields whose values, in most decoded keys, are no likely data: text holding
    control characters, floats like 7.4e-258 or NaN, or integers of 8 bytes spelling text
    (``b"\\n$user0\\0"`` read as a uint64): other bytes read as these types."""
    return fields_where(found, _unlikely)


#: the bytes of words: ASCII letters and digits
ALNUM: Final = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
#: an integer whose 8 bytes hold this many letters or digits is text read as a number (a
#: random 64-bit value holds 1.9 on average, and 5 or more in 1.6% of draws)
TEXT_BYTES: Final = 5


def _unlikely(value: Any) -> bool:
    if type(value) is str:
        return not CONTROL.isdisjoint(value.encode("utf-8", "surrogatepass"))
    if isinstance(value, float) and math.isnan(value):
        return True  # a field of NaNs: other bytes (a payload kept, as storekey keeps it)
    if isinstance(value, float) and math.isfinite(value) and value:
        return abs(math.frexp(value)[1]) > WILD_EXPONENT
    if isinstance(value, int) and type(value) is not bool and 32 < value.bit_length() <= 64:
        # the value's bytes as a format writes them: as they are, or inverted (descending;
        # a sign bit flipped changes one byte, a letter's at most)
        word = value & 0xFFFFFFFFFFFFFFFF
        return any(sum(b in ALNUM for b in w.to_bytes(8, "big")) >= TEXT_BYTES
                   for w in (word, word ^ 0xFFFFFFFFFFFFFFFF))
    return False


def spread(keys: Sequence[bytes], n: int) -> list[bytes]:
    """Up to *n* of *keys*, evenly spread through them (the first and the last included)."""
    if len(keys) <= n:
        return list(keys)
    step = (len(keys) - 1) / (n - 1)
    return [keys[round(i * step)] for i in range(n)]


#: the searches, in the order they run: keys that decode alone, then the schema search
Search = Callable[[Codec, Sequence[bytes], Binder], list[tuple[Spec, ...]]]
SEARCHES: Final[tuple[Search, ...]] = (
    schemaless_schemas, search_schemas)
