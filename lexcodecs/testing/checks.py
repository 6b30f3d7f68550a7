"""Property checks: each takes a codec, a schema and concrete values, and raises
:class:`ConformanceError` with a counterexample when the codec breaks a claim.

Theory of operation: the checks are plain functions over concrete examples, so they can be
called directly, from hypothesis (:mod:`lexcodecs.testing.conformance` drives them), or from
a codec's own tests. Expected order always comes from :mod:`lexcodecs.testing.model`, never
from encoding. A disagreement is forgiven only when one of the codec's declared anomalies
explains that very pair (``Anomaly.explains``); everything else is reported with the values,
their keys in hex and what was expected.

=================  =============================================================
check              claim
=================  =============================================================
round_trip         decode(encode(v)) is v again (model-equal, declared type)
order              a < b in values  =>  key(a) < key(b); a == b => same key
injective          a != b in values  =>  key(a) != key(b)
prefix_free        no key is a proper prefix of another (where claimed)
prefix_range       prefix_range(p) holds exactly the keys extending p
null_placement     NULL sorts first/last in a field as the schema says
descending         a descending field reverses its values' order
decode_junk        decoding any bytes raises DecodeError or succeeds (the one place this
                   property is held; the harness runs it on both implementations)
schemaless         encode(v) without a schema orders as the types of v's values say
columnar           encode_arrow of a batch is the row API's keys, where the codec
                   declares a columnar layout (the kernel writes what it declares)
refusals           what the capabilities rule out is refused with a typed error
anomalies          every declared anomaly really happens (its witness)
=================  =============================================================
"""

from __future__ import annotations

import datetime as _dt
import decimal
import uuid
from collections.abc import Sequence
from typing import Any, Final

from ..codec import Anomaly, Codec
from ..errors import DecodeError, LexCodecError, NotDecodableError, SchemaError
from ..model import ModelError, model_equal, natural_key
from ..schema import FIELD_TYPES, Field, KeySchema
from ..types import Some

__all__ = [
    "ConformanceError",
    "check_anomalies",
    "check_columnar",
    "check_decode_junk",
    "check_descending",
    "check_injective",
    "check_null_placement",
    "check_order",
    "check_prefix_free",
    "check_prefix_range",
    "check_refusals",
    "check_round_trip",
    "check_schemaless",
    "check_self_describing",
    "order_schema",
]

#: Python types a decoded value of each field type may have (NULL aside).
DECODED_TYPES: Final[dict[str, tuple[type, ...]]] = {
    "string": (str,),
    "bytes": (bytes,),
    "bool": (bool,),
    **{t: (int,) for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                           "uint64", "int", "int128", "uint128", "variant")},
    "char": (str,),
    "float32": (float,),
    "float64": (float,),
    "decimal": (decimal.Decimal,),
    "uuid": (uuid.UUID,),
    "timestamp": (_dt.datetime,),
    "duration": (_dt.timedelta,),
    "tuple": (tuple,),
}


class ConformanceError(AssertionError):
    """A codec broke one of its claims; the message holds a counterexample."""

    def __init__(self, check: str, codec: Codec, schema: KeySchema | None, message: str) -> None:
        where = f"[{check}] {codec.name}"
        if schema is not None:
            where += f" with schema ({schema})"
        super().__init__(f"{where}: {message}")
        self.check = check
        self.detail = message


def _hex(key: bytes | None) -> str:
    return "None (unbounded)" if key is None else (key.hex(" ") or "(empty)")


def _show(values: Sequence[Any]) -> str:
    return repr(tuple(values))


def _encode(check: str, codec: Codec, schema: KeySchema | None, values: Sequence[Any]) -> bytes:
    try:
        return codec.encode(values, schema)
    except LexCodecError as exc:
        raise ConformanceError(check, codec, schema,
                               f"encode refused generated values {_show(values)}: {exc}"
                               ) from exc


def _policy(codec: Codec) -> Any:
    return codec.capabilities.float_policy


def order_schema(codec: Codec, schema: KeySchema) -> KeySchema:
    """The schema whose natural order the codec's keys of *schema* follow: *schema* itself,
    unless the bound codec says otherwise with ``order_schema`` (Orderly's
    ``struct_order=desc`` flips every field)."""
    try:
        other = getattr(codec.bind(schema), "order_schema", None)
    except Exception:
        return schema
    return other if isinstance(other, KeySchema) else schema


def _same_point(codec: Codec, schema: KeySchema, values: Sequence[Any],
                back: Sequence[Any]) -> bool:
    """*back* (a decode) is the point of the natural order *values* is. A decoded value the
    model cannot place (a ``str`` where the schema has bytes, say) is not: the caller then
    asks the codec's declared round-trip anomalies, as for any other difference."""
    try:
        return model_equal(values, back, schema, _policy(codec))
    except ModelError:
        return False


def check_round_trip(codec: Codec, schema: KeySchema, values: Sequence[Any]) -> None:
    """decode(encode(values)) gives values back: equal in the model, of the declared types."""
    key = _encode("round_trip", codec, schema, values)
    try:
        back = codec.decode(key, schema)
    except LexCodecError as exc:
        # a declared round-trip anomaly may also mean "does not decode at all"; it is asked
        # with nothing decoded
        if codec.capabilities.explained(("round-trip",), schema, tuple(values), ()):
            return
        raise ConformanceError("round_trip", codec, schema,
                               f"{_show(values)} encodes to {_hex(key)}, which does not "
                               f"decode: {exc}") from exc
    caps = codec.capabilities
    if not isinstance(back, tuple) or not _same_point(codec, order_schema(codec, schema),
                                                      values, back):
        if caps.explained(("round-trip",), schema, tuple(values), tuple(back)):
            return
        raise ConformanceError("round_trip", codec, schema,
                               f"{_show(values)} -> {_hex(key)} -> {back!r}: not the same values")
    for i, (f, v) in enumerate(zip(schema.fields, back)):
        want = DECODED_TYPES[f.type]
        if v is not None and type(v) is not Some and (not isinstance(v, want) or
                              (f.type != "bool" and isinstance(v, bool))):
            raise ConformanceError("round_trip", codec, schema,
                                   f"field {i} {f.name!r} ({f.type}) decoded as "
                                   f"{type(v).__name__} {v!r}; expected "
                                   + " or ".join(t.__name__ for t in want))


def _keyed(check: str, codec: Codec, schema: KeySchema, batch: Sequence[Sequence[Any]]
           ) -> list[tuple[Any, bytes, tuple[Any, ...]]]:
    out = []
    model_schema = order_schema(codec, schema)
    for values in batch:
        try:
            model = natural_key(values, model_schema, _policy(codec))
        except ModelError as exc:
            raise ConformanceError(check, codec, schema,
                                   f"the model cannot order {_show(values)}: {exc}") from exc
        out.append((model, _encode(check, codec, schema, values), tuple(values)))
    return out


Pairs = Sequence[tuple[Sequence[Any], Sequence[Any]]]


def _all_pairs(check: str, codec: Codec, schema: KeySchema, batch: Sequence[Sequence[Any]],
               pairs: Pairs) -> Any:
    rows = _keyed(check, codec, schema, batch)
    for i, a in enumerate(rows):
        for b in rows[i + 1:]:
            yield a, b
    for a_values, b_values in pairs:
        yield tuple(_keyed(check, codec, schema, [a_values, b_values]))


def check_order(codec: Codec, schema: KeySchema, batch: Sequence[Sequence[Any]],
                pairs: Pairs = ()) -> None:
    """Sorting the keys as bytes gives the natural order of the values.

    Every pair of the batch (and each extra pair) is compared: values in natural order must
    have keys in byte order, and values that are equal in the natural order must have equal
    keys. Pairs with equal keys but different values are left to :func:`check_injective`.
    """
    caps = codec.capabilities
    for (ma, ka, va), (mb, kb, vb) in _all_pairs("order", codec, schema, batch, pairs):
        if ma == mb:
            if ka != kb and not (caps.explained(("order",), schema, va, vb) or
                                 caps.explained(("order",), schema, vb, va)):
                raise ConformanceError(
                    "order", codec, schema,
                    f"{_show(va)} and {_show(vb)} are equal values but have different "
                    f"keys {_hex(ka)} and {_hex(kb)}")
            continue
        lo, hi = ((va, ka), (vb, kb)) if ma < mb else ((vb, kb), (va, ka))
        if lo[1] > hi[1] and not caps.explained(("order",), schema, lo[0], hi[0]):
            raise ConformanceError(
                "order", codec, schema,
                f"{_show(lo[0])} < {_show(hi[0])} in the natural order, but their keys "
                f"sort the other way: {_hex(lo[1])} > {_hex(hi[1])}")


def check_injective(codec: Codec, schema: KeySchema, batch: Sequence[Sequence[Any]],
                    pairs: Pairs = ()) -> None:
    """Different values (in the natural order) never share a key."""
    caps = codec.capabilities
    for (ma, ka, va), (mb, kb, vb) in _all_pairs("injective", codec, schema, batch, pairs):
        if ka == kb and ma != mb and not (caps.explained(("collision",), schema, va, vb) or
                                          caps.explained(("collision",), schema, vb, va)):
            raise ConformanceError(
                "injective", codec, schema,
                f"{_show(va)} and {_show(vb)} are different values with the same "
                f"key {_hex(ka)}")


def check_columnar(codec: Codec, schema: KeySchema, batch: Sequence[Sequence[Any]],
                   pairs: Pairs = ()) -> None:
    """The keys :func:`lexcodecs.columnar.encode_arrow` writes for *batch* (and the second
    key of each pair: the neighbours, where -0.0 meets 0.0), as an Arrow table, are the row
    API's, byte for byte: a codec's columnar declaration (``codec.columnar()``,
    :mod:`lexcodecs.pieces`) is checked, not trusted. A batch whose values Arrow cannot hold
    as the field types' columns is passed over (the row API needs no columns to be right);
    needs ``pyarrow``."""
    import pyarrow as pa

    from ..columnar.arrow import _array, encode_arrow

    rows = [tuple(values) for values in batch] + [tuple(near) for _, near in pairs]
    if not rows:
        return
    try:
        table = pa.table({f.name: _array(pa, [row[i] for row in rows], f.type)
                          for i, f in enumerate(schema.fields)})
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return  # values Arrow does not hold as these columns: nothing to compare
    expected = [_encode("columnar", codec, schema, row) for row in rows]
    try:
        written = encode_arrow(table, schema, codec).to_pylist()
    except LexCodecError as exc:
        raise ConformanceError("columnar", codec, schema,
                               f"encode_arrow refused the batch the row API writes: {exc}"
                               ) from exc
    for row, want, got in zip(rows, expected, written):
        if got != want:
            raise ConformanceError(
                "columnar", codec, schema,
                f"encode_arrow wrote {_hex(got)} for {_show(row)}, the row API {_hex(want)}")


def check_prefix_free(codec: Codec, schema: KeySchema, batch: Sequence[Sequence[Any]],
                      pairs: Pairs = ()) -> None:
    """No key of the schema is a proper byte prefix of another (for codecs that claim it):
    between any two keys of the batch, and within each extra pair (a string and the same
    string one character longer is the pair that finds a missing terminator)."""
    def keyed(values: Sequence[Any]) -> tuple[bytes, Sequence[Any]]:
        return _encode("prefix_free", codec, schema, values), values

    rows = [keyed(values) for values in batch]  # no model: bytes are all this check needs
    every = [(a, b) for i, a in enumerate(rows) for b in rows[i + 1:]]
    every += [(keyed(a), keyed(b)) for a, b in pairs]
    for (ka, va), (kb, vb) in every:
        for (k1, v1), (k2, v2) in (((ka, va), (kb, vb)), ((kb, vb), (ka, va))):
            if len(k1) < len(k2) and k2.startswith(k1):
                raise ConformanceError(
                    "prefix_free", codec, schema,
                    f"the key {_hex(k1)} of {_show(v1)} is a proper prefix of the key "
                    f"{_hex(k2)} of {_show(v2)}")


def check_prefix_range(codec: Codec, schema: KeySchema, prefix: Sequence[Any],
                       batch: Sequence[Sequence[Any]]) -> None:
    """``prefix_range(prefix)`` holds every key that extends *prefix* and no other key.

    Keys of the batch are rewritten so that some extend the prefix and some differ from it in
    one field only, the ones a sloppy range takes in by mistake.
    """
    caps = codec.capabilities
    try:
        start, stop = codec.prefix_range(prefix, schema)
    except LexCodecError as exc:
        raise ConformanceError("prefix_range", codec, schema,
                               f"prefix_range{_show(prefix)} raised {exc}") from exc
    if stop is not None and not start < stop:
        raise ConformanceError("prefix_range", codec, schema,
                               f"prefix_range{_show(prefix)} is empty: start {_hex(start)} >= "
                               f"stop {_hex(stop)}")
    n = len(prefix)
    policy = _policy(codec)
    model_schema = order_schema(codec, schema)
    candidates = []
    for values in batch:
        candidates.append(tuple(values))
        candidates.append(tuple(prefix) + tuple(values[n:]))
        for j in range(n):  # a near miss: the prefix with one field from elsewhere
            candidates.append((*prefix[:j], values[j], *prefix[j + 1:], *values[n:]))
    for values in candidates:
        key = _encode("prefix_range", codec, schema, values)
        extends = model_equal(values[:n], prefix, model_schema, policy)
        inside = start <= key and (stop is None or key < stop)
        if extends == inside:
            continue
        if not extends and caps.explained(("prefix-leak",), schema, tuple(prefix), values):
            continue
        # a declared collision between the prefix and these values leaks by nature
        twin = (*prefix, *values[n:])
        if not extends and (caps.explained(("collision",), schema, twin, values) or
                            caps.explained(("collision",), schema, values, twin)):
            continue
        what = ("extends the prefix but its key falls outside" if extends
                else "does not extend the prefix but its key falls inside")
        raise ConformanceError(
            "prefix_range", codec, schema,
            f"{_show(values)} {what} prefix_range{_show(prefix)} = [{_hex(start)}, "
            f"{_hex(stop)}): key {_hex(key)}")


def check_null_placement(codec: Codec, schema: KeySchema, values: Sequence[Any],
                         index: int) -> None:
    """With every other field equal, NULL in field *index* sorts where the field says."""
    f = order_schema(codec, schema).fields[index]
    if values[index] is None:
        return
    with_null = list(values)
    with_null[index] = None
    k_null = _encode("null_placement", codec, schema, with_null)
    k_value = _encode("null_placement", codec, schema, values)
    want_first = f.effective_nulls == "first"
    if (k_null < k_value) != want_first or k_null == k_value:
        caps = codec.capabilities
        pair = (tuple(with_null), tuple(values))
        if caps.explained(("order", "collision"), schema, *pair) or \
                caps.explained(("order", "collision"), schema, *pair[::-1]):
            return
        raise ConformanceError(
            "null_placement", codec, schema,
            f"field {index} {f.name!r} says nulls {f.effective_nulls}, but "
            f"{_show(with_null)} -> {_hex(k_null)} sorts "
            f"{'after' if k_null > k_value else 'with'} {_show(values)} -> {_hex(k_value)}")


def check_descending(codec: Codec, schema: KeySchema, values: Sequence[Any], index: int,
                     other: Any) -> None:
    """Two keys that differ only in field *index* sort as that field's direction says."""
    model_schema = order_schema(codec, schema)
    f = model_schema.fields[index]
    a, b = list(values), list(values)
    b[index] = other
    ka = _encode("descending", codec, schema, a)
    kb = _encode("descending", codec, schema, b)
    ma = natural_key(a, model_schema, _policy(codec))
    mb = natural_key(b, model_schema, _policy(codec))
    if ma == mb or ka == kb:
        return  # equal values, or a collision: the order and injective checks cover those
    caps = codec.capabilities
    lo, hi = ((a, ka), (b, kb)) if ma < mb else ((b, kb), (a, ka))
    if lo[1] > hi[1] and not caps.explained(("order",), schema, tuple(lo[0]), tuple(hi[0])):
        direction = "descending" if f.descending else "ascending"
        raise ConformanceError(
            "descending", codec, schema,
            f"field {index} {f.name!r} is {direction}: {_show(lo[0])} must sort before "
            f"{_show(hi[0])}, but {_hex(lo[1])} > {_hex(hi[1])}")


def check_decode_junk(codec: Codec, schema: KeySchema | None, data: bytes) -> None:
    """Decoding arbitrary bytes raises DecodeError or succeeds; nothing else escapes.

    This is the one place the property is held: the ``decode_junk`` property of
    :mod:`~lexcodecs.testing.conformance` runs it on random and mutated keys under both
    implementations, and a codec's own tests need not repeat it."""
    try:
        codec.decode(data, schema)
    except DecodeError:
        return
    except NotDecodableError:
        if codec.capabilities.decoding == "none" or (
                schema is None and codec.capabilities.decoding != "self-describing"):
            return
        raise ConformanceError("decode_junk", codec, schema,
                               f"decode({data!r}) raised NotDecodableError for a schema it "
                               "should decode") from None
    except Exception as exc:
        raise ConformanceError(
            "decode_junk", codec, schema,
            f"decode({data!r}) raised {type(exc).__name__}: {exc}; only DecodeError may "
            "escape a decode") from exc


def check_self_describing(codec: Codec, schema: KeySchema, values: Sequence[Any]) -> None:
    """A self-describing codec decodes its keys without the schema, to as many values."""
    key = _encode("self_describing", codec, schema, values)
    try:
        back = codec.decode(key)
    except LexCodecError as exc:
        if codec.capabilities.explained(("round-trip",), schema, tuple(values), ()):
            return
        raise ConformanceError("self_describing", codec, schema,
                               f"{_show(values)} -> {_hex(key)} does not decode without a "
                               f"schema: {exc}") from exc
    # a declared round-trip anomaly (a lossy reader) may explain a decode that lost a value
    if len(back) != len(values) and not codec.capabilities.explained(
            ("round-trip",), schema, tuple(values), tuple(back)):
        raise ConformanceError("self_describing", codec, schema,
                               f"{_show(values)} -> {_hex(key)} decodes without a schema to "
                               f"{len(back)} values: {back!r}")


class _WithoutSchema:
    """*codec*, seen through ``encode(values)`` without a schema: what the order checks see
    when they run on it is the schemaless encoding, judged by the model of *schema*."""

    def __init__(self, codec: Codec) -> None:
        self.codec = codec
        self.name = codec.name
        self.capabilities = codec.capabilities

    def encode(self, values: Sequence[Any], schema: Any = None) -> bytes:
        return self.codec.encode(values)

    def bind(self, schema: Any) -> Any:
        return self.codec.bind(schema)


def check_schemaless(codec: Codec, schema: KeySchema, batch: Sequence[Sequence[Any]],
                     pairs: Pairs = ()) -> None:
    """``encode(values)`` without a schema (for a codec that claims ``schemaless``) orders
    and separates values as *schema* -- the types the codec chooses from the values (str:
    string, bytes, bool, float: float64, int) -- says, over the batch and each extra pair
    (as :func:`check_order` and :func:`check_injective` judge them); a self-describing codec
    decodes each such key of the batch without the schema back to the values."""
    plain: Any = _WithoutSchema(codec)
    try:
        check_order(plain, schema, batch, pairs)
        check_injective(plain, schema, batch, pairs)
    except ConformanceError as exc:
        raise ConformanceError("schemaless", codec, schema,
                               f"without a schema, {exc.detail}") from exc
    if codec.capabilities.decoding != "self-describing":
        return
    for values in batch:
        key = _encode("schemaless", plain, schema, values)
        try:
            back = codec.decode(key)
        except LexCodecError as exc:
            # as in check_round_trip: an anomaly may mean "does not decode at all"
            if codec.capabilities.explained(("round-trip",), None, tuple(values), ()):
                continue
            raise ConformanceError("schemaless", codec, schema,
                                   f"{_show(values)} -> {_hex(key)} (encoded without a "
                                   f"schema) does not decode without one: {exc}") from exc
        if not _same_point(codec, schema, values, back) and not \
                codec.capabilities.explained(("round-trip",), None, tuple(values), tuple(back)):
            raise ConformanceError("schemaless", codec, schema,
                                   f"{_show(values)} -> {_hex(key)} -> {back!r} without a "
                                   "schema: not the same values")


def _probes(codec: Codec, field: Field) -> list[tuple[Field, str]]:
    """Variants of *field* the capabilities say the codec cannot express, and why."""
    caps = codec.capabilities
    out = [(Field(field.name, t), f"type {t!r} is not among its field types")
           for t in FIELD_TYPES if t not in caps.field_types]
    t = field.type
    if not caps.descending:
        out.append((Field(field.name, t, descending=True), "it has no descending fields"))
    nulls_refused = {
        "both": [],
        "first": [(False, "last"), (True, "last")],
        "last": [(False, "first"), (True, "first")],
        "fixed": [(False, "last"), (True, "first")],
        "none": [(False, "first"), (False, "last")],
    }[caps.nulls]
    for desc, placement in nulls_refused:
        if desc and not caps.descending:
            continue
        out.append((Field(field.name, t, descending=desc, nulls=placement),  # type: ignore[arg-type]
                    f"its NULL placement is {caps.nulls!r}"))
    return out


def check_refusals(codec: Codec, schema: KeySchema) -> None:
    """What the capabilities say the codec cannot do, it refuses with a lexcodecs error.

    Each probe is *schema* with its first field changed into something the codec declares
    it cannot express (another type, descending, a NULL placement); binding it must raise
    SchemaError. A codec that does not decode, or decodes only with a schema, must say so
    with NotDecodableError; one that does not encode schemaless must refuse to.
    """
    caps = codec.capabilities
    for probe, why in _probes(codec, schema.fields[0]):
        changed = KeySchema((probe, *schema.fields[1:]))
        try:
            codec.bind(changed)
        except SchemaError:
            continue
        except Exception as exc:
            raise ConformanceError("refusals", codec, changed,
                                   f"binding raised {type(exc).__name__}: {exc}; a schema the "
                                   "codec cannot express must raise SchemaError") from exc
        if caps.nulls == "fixed" and probe.nulls is not None:
            # "fixed" is relative to the direction the keys really have: a codec that flips
            # every field (order_schema) expresses asc+nulls last as natural desc
            effective = order_schema(codec, changed).fields[0]
            if probe.nulls == ("last" if effective.descending else "first"):
                continue
        raise ConformanceError("refusals", codec, changed,
                               f"the codec declares {why}, but it bound this schema")
    probes: list[tuple[str, Any]] = []
    if caps.decoding == "none":
        probes.append(("decode(key, schema)", lambda: codec.decode(b"", schema)))
    if caps.decoding != "self-describing":
        probes.append(("decode(key) without a schema", lambda: codec.decode(b"")))
    for what, call in probes:
        try:
            call()
        except NotDecodableError:
            continue
        except Exception as exc:
            raise ConformanceError("refusals", codec, schema,
                                   f"{what} raised {type(exc).__name__}: {exc}; expected "
                                   "NotDecodableError") from exc
        raise ConformanceError("refusals", codec, schema,
                               f"{what} succeeded, but the codec declares decoding="
                               f"{caps.decoding!r}")
    if not caps.schemaless:
        try:
            codec.encode(())
        except LexCodecError:
            pass
        else:
            raise ConformanceError("refusals", codec, schema,
                                   "encode() without a schema succeeded, but the codec does "
                                   "not declare schemaless encoding")


def _witness_schema(anomaly: Anomaly) -> KeySchema | None:
    return None if anomaly.schema is None else KeySchema.parse(anomaly.schema)


def check_anomaly(codec: Codec, anomaly: Anomaly) -> None:
    """The declared *anomaly* really happens: its witness shows it."""
    schema = _witness_schema(anomaly)
    model_schema = None if schema is None else order_schema(codec, schema)
    name = f"anomaly {anomaly.name!r}"
    w = anomaly.witness

    def fail(msg: str) -> ConformanceError:
        return ConformanceError("anomalies", codec, schema, f"{name} ({anomaly.kind}): {msg}")

    def enc(values: Any) -> bytes:
        try:
            return codec.encode(values, schema)
        except LexCodecError as exc:
            raise fail(f"its witness {values!r} does not encode: {exc}") from exc

    if anomaly.kind == "interop":
        return
    pair: tuple[Any, Any] = (w[0], w[-1])
    if anomaly.kind == "order":
        a, b = w
        if model_schema is not None and not natural_key(
                a, model_schema, _policy(codec)) < natural_key(b, model_schema, _policy(codec)):
            raise fail(f"witness {a!r} < {b!r} is not true in the natural order")
        ka, kb = enc(a), enc(b)
        if ka < kb:
            raise fail(f"does not happen: {a!r} -> {_hex(ka)} sorts before {b!r} -> {_hex(kb)}")
    elif anomaly.kind == "collision":
        a, b = w
        same = (model_equal(a, b, model_schema, _policy(codec)) if model_schema is not None
                else tuple(a) == tuple(b))
        if same:
            raise fail(f"witness values {a!r} and {b!r} are equal, not a collision")
        ka, kb = enc(a), enc(b)
        if ka != kb:
            raise fail(f"does not happen: {a!r} -> {_hex(ka)}, {b!r} -> {_hex(kb)}")
    elif anomaly.kind == "prefix-leak":
        prefix, values = w
        if model_schema is not None and model_equal(values[:len(prefix)], prefix, model_schema,
                                              _policy(codec)):
            raise fail(f"witness {values!r} extends the prefix {prefix!r}: not a leak")
        start, stop = codec.prefix_range(prefix, schema)
        key = enc(values)
        if not (start <= key and (stop is None or key < stop)):
            raise fail(f"does not happen: {values!r} -> {_hex(key)} is outside "
                       f"prefix_range{tuple(prefix)!r} = [{_hex(start)}, {_hex(stop)})")
    else:  # round-trip
        (values,) = w
        key = enc(values)
        try:
            back = codec.decode(key, schema)
        except LexCodecError:
            return  # not decoding back at all is a round-trip failure too
        same = (_same_point(codec, model_schema, values, back) if model_schema is not None
                else tuple(back) == tuple(values))
        if same:
            raise fail(f"does not happen: {values!r} decodes back to itself")
        pair = (values, back)
    if anomaly.explains is not None and not anomaly.applies(schema, tuple(pair[0]),
                                                            tuple(pair[1])):
        raise fail("its explains() does not accept its own witness")


def check_anomalies(codec: Codec) -> None:
    """Every declared anomaly happens, and every weaker claim is backed by an anomaly."""
    caps = codec.capabilities
    names = [a.name for a in caps.anomalies]
    if len(set(names)) != len(names):
        raise ConformanceError("anomalies", codec, None, f"anomaly names repeat: {names}")
    for anomaly in caps.anomalies:
        check_anomaly(codec, anomaly)
    if not caps.injective and not any(a.kind == "collision" for a in caps.anomalies):
        raise ConformanceError("anomalies", codec, None,
                               "declares it is not injective but no 'collision' anomaly "
                               "shows where")
