"""Which format and schema wrote these keys: :func:`identify`.

Given keys nobody documented, :func:`identify` tries every registered codec (plugins too,
through what they declare) and returns the candidates, best first: the codec, the schema
that explains the keys, how many keys decode, whether every decoded key re-encodes to its
own bytes, whether the values' natural order is the keys' byte order, how specific the
schema is (the share of random bytes it would decode too), a confidence and its evidence.
How the schemas are found is :mod:`lexcodecs.identification.search`'s docstring;
``docs/identify.md`` says how it decides and what bytes cannot tell.

>>> from lexcodecs import get_codec
>>> skv = get_codec("skv").bind("tenant:string, ts:int64 desc")
>>> keys = [skv.encode((t, n)) for t in ("acme", "bolt", "cave") for n in range(5)]
>>> best = identify(keys).candidates[0]
>>> best.codec, best.schema, best.confidence
('skv', 'f0:string, f1:int64 desc', 'high')
"""

from __future__ import annotations

import contextlib
import functools
import gc
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Final

import attrs

from ..codec import Codec, as_key_bytes
from ..errors import DecodeError, LexCodecError, describe_value
from ..registry import available_codecs, get_codec
from .search import (
    CONTROL,
    SAMPLE,
    SEARCHES,
    Binder,
    FieldOption,
    Found,
    Search,
    Spec,
    field_variants,
    fields_where,
    looseness,
    plainness,
    refine,
    same_value,
    schema_of,
    schema_text,
    search_schemas,
    specificity,
    spread,
    unlikely_fields,
    verify,
)

__all__ = ["CATCH_ALL", "EXAMPLES", "Candidate", "Identification", "codec_variants", "identify"]

#: a schema that decodes at least this share of random byte strings explains nothing
CATCH_ALL: Final = 0.5
#: at most this share, and it is specific enough for a high confidence (many keys that all
#: decode under it are then no accident: 0.1 ** 10 for ten)
SPECIFIC: Final = 0.1
#: a schema that takes at least this share of the keys' near misses has a loose tail
LOOSE: Final = 0.5
#: fewer keys than this are too few for a high confidence
FEW_KEYS: Final = 5
#: the schemas of each codec checked on every key (the best on the sample)
CHECKED: Final = 4
#: decoded keys shown per candidate
EXAMPLES: Final = 3


@attrs.frozen
class Candidate:
    """One codec and schema that explain (some of) the keys."""

    codec: str
    options: dict[str, Any]
    #: the schema, as text (field names f0, f1, ... : bytes do not carry names)
    schema: str
    decoded: int
    total: int
    #: every key decodes and re-encodes to its own bytes
    roundtrip: bool
    #: the decoded values' natural order is the keys' byte order
    ordered: bool
    #: the share of random byte strings of the keys' lengths that the schema decodes
    random_decodes: float
    #: the share of the keys, cut short by a byte or lengthened by one, that still decode
    loose_decodes: float
    confidence: str
    evidence: tuple[str, ...]
    #: (key in hex, the values it decodes to) for the first keys
    examples: tuple[tuple[str, str], ...]
    #: other codecs and schemas that read every key as the same values, with the same bytes
    same_bytes_as: tuple[str, ...] = ()
    #: for a codec whose keys decode alone: the Python types seen at each position
    element_types: tuple[tuple[str, ...], ...] | None = None
    #: the fields (by index) whose string or bytes values hold control bytes in most keys
    control_fields: tuple[int, ...] = ()
    #: the fields whose values are no likely data in most keys (text with control
    #: characters, floats like 7.4e-258): more likely other bytes read as these types
    unlikely_fields: tuple[int, ...] = ()
    #: the codec, its options off their defaults and the schema, for people
    #: (``"sqlite4 table=10 f0:string"``); not in :meth:`to_dict`, which has each part
    label: str = attrs.field(default="", eq=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        out = attrs.asdict(self, recurse=False)
        del out["label"]
        out["evidence"] = list(self.evidence)
        out["examples"] = [{"hex": h, "values": v} for h, v in self.examples]
        out["same_bytes_as"] = list(self.same_bytes_as)
        if self.element_types is not None:
            out["element_types"] = [list(t) for t in self.element_types]
        return out


@attrs.frozen
class Identification:
    """The candidates for a set of keys, best first; ``known`` is False when none is better
    than a low confidence ("no known format")."""

    total: int
    candidates: tuple[Candidate, ...]

    @property
    def known(self) -> bool:
        return bool(self.candidates) and self.candidates[0].confidence != "low"

    def to_dict(self) -> dict[str, Any]:
        return {"total": self.total, "known": self.known,
                "candidates": [c.to_dict() for c in self.candidates]}


def identify(keys: Iterable[bytes], *, codecs: Sequence[str] | None = None,
             limit: int = 10) -> Identification:
    """The codecs and schemas that explain *keys*, best first (at most *limit*), each with
    its confidence and evidence. *codecs*: the registry names to try (default: every
    available codec, plugins included).

    Every codec is tried with its default options first. When no candidate is then strong
    (every key decoding, re-encoding, in order, under a specific schema, no field holding
    another format's control bytes), the options each
    codec declares are tried too: its other option values (:func:`codec_variants`) and its
    field options (:func:`~lexcodecs.identification.search.field_variants`).

    Python's cyclic garbage collector is paused while it searches (:func:`_collector_paused`).
    """
    with _collector_paused():
        return _identify(keys, codecs, limit)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the block, as it was after it. A search
    binds tens of thousands of schemas and keeps each (a :class:`Binder` binds one once),
    about a million objects for 40 random keys, all alive until the search ends: each full
    collection walked them all again, and collections came as they grew. 40 random keys
    (every option of every codec tried): 4.6 s -> 2.1 s, the same peak memory. Refcounting
    still frees what is not in a cycle; the cycles left are freed by the next collection."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _identify(keys: Iterable[bytes], codecs: Sequence[str] | None,
              limit: int) -> Identification:
    keys = [as_key_bytes("identify", k) for k in keys]
    names = list(available_codecs() if codecs is None else codecs)
    lengths = [len(k) for k in keys]
    sample = spread(keys, SAMPLE)
    scored: dict[tuple[str, str, str], _Scored] = {}
    binders: dict[tuple[str, str], Binder] = {}  # by codec and options: each schema bound once
    first: dict[str, list[tuple[Spec, ...]]] = {}

    def add(order: int, name: str, codec: Codec, found: Found, rate: float, loose: float
            ) -> None:
        candidate = _candidate(name, codec, found, rate, loose, keys)
        ident = (repr(sorted(candidate.options.items())), candidate.schema)
        if (name, *ident) in scored:
            return
        values = tuple(describe_value(v, 10**6) for v in found.values)
        extra = len(_options(codec, changed=True)) + sum(len(s.options) for s in found.specs)
        scored[(name, *ident)] = ((*_rank(found, rate, loose, extra), order, candidate.schema),
                                  candidate, values, plainness(found.specs, found))

    unexplained = set()  # codecs whose keys decode alone, yet no schema of theirs holds them
    for order, name in enumerate(names):
        codec = get_codec(name)
        first[name] = []
        whole = False
        for found, rate, loose in _best_of(codec, keys, sample, lengths, binders):
            first[name].append(found.specs)
            whole = whole or (found.decoded == len(keys) and found.roundtrip)
            add(order, name, codec, found, rate, loose)
        if not whole and _decode_alone(codec, sample):
            unexplained.add(name)
    strong = any(_strong(c, len(keys)) and not c.control_fields for _, c, _, _ in scored.values())
    # the options round: for every codec when nothing is strong; else for a codec that reads
    # every key without a schema but finds no schema for them (its options may say how: a
    # key that decodes as one array may hold fields under an option that reads arrays so)
    for order, name in enumerate(names):
        if not strong or name in unexplained:
            default = get_codec(name)
            variants = field_variants(default)
            # field options join the default options' schema search; under other codec
            # options, they refine what a plain search finds (each a search of its own cost
            # seconds on keys no codec explains)
            for codec in (default, *codec_variants(name, default, sample)):
                start, searching = first[name], True
                if codec is not default:
                    # options that read keys as the defaults do, or as the defaults do each
                    # field in the other order (a struct-wide order): no search of their own
                    if _decodes_alike(default, codec, sample):
                        searching = False
                    elif _decodes_alike(default, codec, sample, flipped=True):
                        start, searching = [_flipped(s) for s in start], False
                for found, rate, loose in _best_of(
                        codec, keys, sample, lengths, binders, start=start,
                        searching=searching, variants=variants,
                        search_variants=variants if codec is default else ()):
                    add(order, name, codec, found, rate, loose)
    ranked = sorted(scored.values(), key=lambda s: s[0])
    return Identification(len(keys), tuple(_judged(ranked, len(keys))[:limit]))


def _decode_alone(codec: Codec, keys: Sequence[bytes]) -> bool:
    """Whether the codec reads every key of *keys* without a schema."""
    if codec.capabilities.decoding != "self-describing":
        return False
    for key in keys:
        try:
            codec.decode(key)
        except Exception:
            return False
    return bool(keys)


def codec_variants(name: str, codec: Codec, keys: Sequence[bytes]) -> list[Codec]:
    """The codec *name* with one option changed, for each other value worth trying, from
    what it declares (``OPTIONS``): each ``choices`` value but the default, and each value
    its ``guess`` gives for *keys*; never an option of ``reading`` (it changes how keys are
    read, not what wrote them)."""
    out: list[Codec] = []
    for option_name, option in getattr(codec, "OPTIONS", {}).items():
        if getattr(option, "reading", False):
            continue
        values = [*(option.choices or ()), *(option.guess(keys) if option.guess else ())]
        for value in values:
            if same_value(value, option.default):
                continue
            try:
                out.append(get_codec(name, **{option_name: value}))
            except LexCodecError:
                continue
    return out


def _decodes_alike(default: Codec, other: Codec, keys: Sequence[bytes], *,
                   flipped: bool = False) -> bool:
    """Whether *other* (the codec under other options) reads *keys* as *default* does,
    without a schema and under every schema of one field or of one field twice (*flipped*:
    as *default* does under the same schema with each field's order reversed): the same
    values, or the same refusal at the same byte. Then a search under it finds what the
    search under the defaults found (options that change only how keys are written, or
    keys these options do not touch; *flipped*, the schemas found with each field
    reversed)."""
    if flipped and not default.capabilities.descending:
        return False
    if not flipped and default.capabilities.decoding == "self-describing":
        for key in keys:  # and without a schema
            if _outcome(default, key) != _outcome(other, key):
                return False
    have = sorted(default.capabilities.field_types - {"tuple"})
    orders = (False, True) if default.capabilities.descending else (False,)
    for specs in ((Spec(t, d),) * n for t in have for d in orders for n in (1, 2)):
        bound = [_bound_or_none(default, _flipped(specs) if flipped else specs),
                 _bound_or_none(other, specs)]
        if (bound[0] is None) != (bound[1] is None):
            return False
        if bound[0] is None:
            continue
        for key in keys:
            if _outcome(bound[0], key) != _outcome(bound[1], key):
                return False
    return True


def _flipped(specs: tuple[Spec, ...]) -> tuple[Spec, ...]:
    return tuple(s._replace(descending=not s.descending) for s in specs)


def _bound_or_none(codec: Codec, specs: tuple[Spec, ...]) -> Any:
    try:
        return codec.bind(schema_of(specs))
    except LexCodecError:
        return None


def _outcome(bound: Any, key: bytes) -> tuple[Any, ...]:
    try:
        return ("values", describe_value(tuple(bound.decode(key)), 10**6))
    except DecodeError as exc:
        return ("refused", exc.offset)
    except Exception as exc:  # any other failure is an outcome too
        return ("failed", type(exc).__name__)


def _rank(found: Found, rate: float, loose: float, options: int = 0) -> tuple[Any, ...]:
    """Better first: more keys decode, they round-trip, the schema explains something, the
    order holds, fewer fields hold unlikely values, it takes fewer of the keys' near misses,
    the plainer reading, then the one that needs fewer options (codec options off their
    defaults, and field options: a reading with one is no less likely when it explains
    the bytes better, an skv field's NULLs sorting last against a tag-less format's)."""
    return (-found.decoded, not found.roundtrip, rate >= CATCH_ALL, not found.ordered,
            len(unlikely_fields(found)), round(loose, 1), *plainness(found.specs, found),
            options)


def _best_of(codec: Codec, keys: Sequence[bytes], sample: Sequence[bytes],
             lengths: Sequence[int], binders: dict[tuple[str, str], Binder], *,
             start: Sequence[tuple[Spec, ...]] = (),
             searching: bool = True, variants: Sequence[FieldOption] = (),
             search_variants: Sequence[FieldOption] = ()) -> list[tuple[Found, float, float]]:
    """The codec's best :data:`CHECKED` schemas on *sample*, then checked on every key:
    each with its specificity and looseness. The schemas: *start*'s, and the searches'
    when none of *start*'s decodes every sampled key (with *variants*, the field options
    to try: each schema's last field with each in the schema search, and every field's in
    a refinement of the best schemas)."""
    bind = binders.setdefault((type(codec).__qualname__, repr(sorted(codec.config().items()))),
                              Binder(codec))
    seen: dict[tuple[Spec, ...], tuple[Any, ...]] = {}

    def judge(pool: Iterable[tuple[Spec, ...]]) -> None:
        for specs in pool:
            if specs in seen:
                continue
            found = verify(codec, specs, sample, bind)
            if found is None or not found.decoded:
                continue
            seen[specs] = (*_rank(found, specificity(codec, specs, lengths, bind=bind),
                                  looseness(codec, specs, sample, bind),
                                  sum(len(s.options) for s in specs)), len(seen))

    judge(start)
    if searching and not any(r[0] == -len(sample) for r in seen.values()):
        searches: Sequence[Search] = (
            SEARCHES if not search_variants else
            (*SEARCHES[:-1], functools.partial(search_schemas, variants=search_variants)))
        for search in searches:
            judge(search(codec, sample, bind))
    best = sorted(seen, key=seen.__getitem__)[:CHECKED]
    if variants:
        judge(refine(specs, sample, bind, variants) for specs in best)
        best = sorted(seen, key=seen.__getitem__)[:CHECKED]
    out = []
    for specs in best:
        found = verify(codec, specs, keys if len(keys) > len(sample) else sample, bind)
        if found is not None and found.decoded:
            out.append((found, specificity(codec, specs, lengths, bind=bind),
                        looseness(codec, specs, sample, bind)))
    return out


def _candidate(name: str, codec: Codec, found: Found, rate: float, loose: float,
               keys: Sequence[bytes]) -> Candidate:
    examples = tuple((k.hex(), describe_value(v)) for k, v in zip(keys, found.values)
                     if v is not None)[:EXAMPLES]
    schema = schema_text(found.specs)
    changed = "".join(f" {k}={v}" for k, v in _options(codec, changed=True).items())
    return Candidate(codec=name, options=_options(codec), schema=schema,
                     label=f"{name}{changed} {schema}",
                     control_fields=_control_fields(found),
                     unlikely_fields=unlikely_fields(found),
                     decoded=found.decoded, total=len(keys), roundtrip=found.roundtrip,
                     ordered=found.ordered, random_decodes=rate, loose_decodes=loose,
                     confidence="low",
                     evidence=(), examples=examples, element_types=_element_types(codec, keys))


def _control_fields(found: Found) -> tuple[int, ...]:
    """The fields whose string or bytes values hold a control byte in most decoded keys:
    more likely another format's type bytes and terminators than this field's data."""
    return fields_where(found, _holds_control)


def _holds_control(value: Any) -> bool:
    data = value.encode("utf-8", "surrogatepass") if isinstance(value, str) else value
    return isinstance(data, (bytes, bytearray)) and not CONTROL.isdisjoint(data)


def _options(codec: Codec, *, changed: bool = False) -> dict[str, Any]:
    """The codec's options (*changed*: only those not at their declared default)."""
    config = dict(codec.config())
    config.pop("name", None)
    if changed:
        declared = getattr(codec, "OPTIONS", {})
        config = {k: v for k, v in config.items()
                  if k not in declared or not same_value(v, declared[k].default)}
    return config


def _element_types(codec: Codec, keys: Sequence[bytes]) -> tuple[tuple[str, ...], ...] | None:
    """The Python types of each position of the keys, decoded without a schema (None when
    the codec's keys do not decode alone)."""
    if codec.capabilities.decoding != "self-describing":
        return None
    seen: list[set[str]] = []
    for key in keys:
        try:
            values = codec.decode(key)
        except Exception:
            continue
        for i, v in enumerate(values):
            if i == len(seen):
                seen.append(set())
            seen[i].add(type(v).__name__)
    return tuple(tuple(sorted(s)) for s in seen) if seen else None


#: a candidate as identify ranks it: (its rank, the candidate, its decoded values as text,
#: its plainness)
_Scored = tuple[tuple[Any, ...], Candidate, tuple[Any, ...], tuple[float, int]]


def _judged(scored: list[_Scored], total: int) -> list[Candidate]:
    """The candidates, best first, with their confidence and evidence; candidates that read
    every key as the same values with the same bytes as a better one folded into it."""
    strong = [(plain, c) for _, c, _, plain in scored if _strong(c, total)]
    out: list[Candidate] = []
    by_values: dict[tuple[Any, ...], int] = {}
    readings: set[tuple[str, str, tuple[Any, ...]]] = set()
    for _, c, values, _ in scored:
        if (c.codec, c.schema, values) in readings:
            continue  # a better one reads the keys so, the same codec under other options
        readings.add((c.codec, c.schema, values))
        if c.decoded == total and c.roundtrip and values in by_values:
            first = out[by_values[values]]
            out[by_values[values]] = attrs.evolve(
                first, same_bytes_as=(*first.same_bytes_as, c.label))
            continue
        if c.decoded == total and c.roundtrip:
            by_values[values] = len(out)
        out.append(c)
    plain = {c.label: p for _, c, _, p in scored}
    judged: list[Candidate] = []
    for place, c in enumerate(out):
        # a rival reads the keys as other values, as plainly: the bytes cannot tell them apart
        rivals = [s for p, s in strong if p == plain[c.label]
                  and s.label not in c.same_bytes_as and s.label != c.label]
        judged.append(_confidence(c, total, rivals, better=judged[:1] if place else []))
    return judged


def _strong(c: Candidate, total: int) -> bool:
    return (c.decoded == total and c.roundtrip and c.ordered and c.random_decodes <= SPECIFIC
            and c.loose_decodes < LOOSE and not c.unlikely_fields)


def _confidence(c: Candidate, total: int, rivals: list[Candidate],
                better: list[Candidate]) -> Candidate:
    evidence = [f"{c.decoded} of {total} keys decode",
                "every decoded key re-encodes to its own bytes" if c.roundtrip else
                "some keys do not re-encode to their own bytes",
                "the values' natural order is the keys' byte order" if c.ordered else
                "the values' natural order is not the keys' byte order",
                f"{c.random_decodes:.0%} of random byte strings of these lengths decode too"]
    evidence.append(f"{c.loose_decodes:.0%} of the keys cut short or lengthened by a byte "
                    "decode too")
    if c.random_decodes >= CATCH_ALL:
        evidence.append("the schema decodes almost anything: it explains nothing")
    elif c.loose_decodes >= LOOSE:
        evidence.append("its last field takes any bytes: the bytes it covers are not "
                        "explained")
    if c.same_bytes_as:
        evidence.append("written identically by " + ", ".join(c.same_bytes_as))
    if c.unlikely_fields:
        evidence.append("field " + ", ".join(f"f{i}" for i in c.unlikely_fields)
                        + " holds unlikely values in most keys (text with control "
                          "characters, floats beyond 1e±60 or NaN, 8-byte integers spelling "
                          "text): other bytes read as these types")
    if c.control_fields:
        evidence.append("field " + ", ".join(f"f{i}" for i in c.control_fields)
                        + " holds control bytes in most keys: it may be another format's "
                          "structure")
    if (_strong(c, total) and not rivals and not better and total >= FEW_KEYS
            and not c.control_fields):
        level = "high"
    elif c.decoded >= 0.9 * total and c.roundtrip and c.random_decodes < CATCH_ALL:
        level = "medium"
        if total < FEW_KEYS:
            evidence.append(f"only {total} keys")
        if rivals:
            evidence.append("other schemas explain these bytes as well: "
                            + ", ".join(r.label for r in rivals[:3]))
        if better:
            evidence.append(f"a plainer reading comes first: {better[0].label}")
    else:
        level = "low"
    return attrs.evolve(c, confidence=level, evidence=tuple(evidence))
