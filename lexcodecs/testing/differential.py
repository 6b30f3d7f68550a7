"""Differential conformance: a codec's compiled path and its reference code give the same
answers, whatever they are given; :class:`DifferentialConformance`, the pytest base class.

Theory of operation: a codec written twice (readable Python, the executable spec, and a
compiled module that hands whatever it does not take as its own over to the Python) is only
as good as the agreement of the two. :func:`both` runs one operation under each
implementation (``lexcodecs._impl.use``) and fails on any difference: in bytes, in decoded
values (:func:`same`: types compared, floats and Float32s by their bits, Decimals by their
text, UUIDs, datetimes and versionstamps field by field), or in the error's class and message.
Nothing but a :class:`~lexcodecs.errors.LexCodecError` may leave either implementation.

:class:`DifferentialConformance` drives it with hypothesis, under the active profile, over
every field type (and field option) the codec declares, both orders and every NULL placement:

* ``test_encode_agrees``: schemas around a subject field; values valid and hostile
  (:func:`~lexcodecs.testing.hostile.hostile_values`), given as a tuple, a list, a tuple
  subclass or no sequence at all; the bound ``encode`` (also one value short and one too
  many), ``encode`` through the codec, ``prefix_range``, and the schemaless ``encode`` and
  ``prefix_range`` where the codec claims them;
* ``test_decode_agrees``: valid keys and their near misses
  (:func:`~lexcodecs.testing.hostile.near_misses`), random bytes, as ``bytes``,
  ``bytearray`` or ``memoryview``, read by the schema they were written with, by another
  schema, and without a schema where keys describe themselves;
* ``test_every_odd_value_agrees`` (deterministic): each odd value alone in a field of every
  type and order, under the codec and each of its variants, and twice and between two valid
  fields under the codec; schemaless too;
* ``test_odd_keys_agree`` (deterministic): keys that are not ``bytes``, and the codec's own
  hand-picked keys;
* where the compiled module is built: ``test_compiled_is_in_use`` (the bound class is the
  compiled module's) and ``test_valid_values_never_hand_over`` and
  ``test_schemaless_values_never_hand_over`` (valid exact-type values of every type, order
  and NULL placement stay on the compiled path -- ``lexcodecs._impl.HANDOVERS`` stays 0 --
  and give the reference's keys and values).

**One property lives here**: encoding any object raises
:class:`~lexcodecs.errors.EncodeError` (its :class:`~lexcodecs.errors.UnsupportedTypeError`
too) or :class:`~lexcodecs.errors.SchemaError`, with a bounded message, or succeeds; every
encode this class runs is held to it, on both implementations. Its twin for decoding
("decoding any bytes raises only DecodeError, or succeeds") lives in the conformance harness
(:func:`~lexcodecs.testing.checks.check_decode_junk`, the ``decode_junk`` property, which runs
each key on both implementations); here decoding is held to agreement.

A plugin author with a compiled path writes::

    from lexcodecs.testing import DifferentialConformance

    class TestMyCodecDifferential(DifferentialConformance):
        codec = MyCodec()
        compiled_module = "my_package._compiled"   # what binding gives under "compiled"

The codec consults ``lexcodecs._impl.current`` (``"compiled"`` or ``"reference"``) when it
binds a schema, as the built-in codecs do, and counts its hand-overs in
``lexcodecs._impl.HANDOVERS[handover_key]``.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import importlib
import os
import struct
import uuid
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from types import ModuleType
from typing import Any, ClassVar, Final

from hypothesis import given, settings
from hypothesis import strategies as st

from .. import _impl
from ..codec import Codec
from ..errors import EncodeError, LexCodecError, SchemaError, describe_value
from ..schema import Field, KeySchema
from ..types import Float32, Versionstamp
from .claims import NULL_VARIANTS
from .conformance import schemaless_types
from .hostile import TupleSub, hostile_values, near_misses, odd_values, pick, released_view
from .strategies import Overrides, keys, values_for

__all__ = [
    "COMPARED",
    "ENCODE_ERRORS",
    "MAX_MESSAGE",
    "DifferentialConformance",
    "Operation",
    "Outcome",
    "both",
    "check_encode_outcome",
    "outcome",
    "same",
]

#: ``("ok", result)`` or ``("error", class, message)``
Outcome = tuple[Any, ...]
#: a named operation, run under each implementation
Operation = tuple[str, Callable[[], Any]]

#: what an encoder may raise: a value it cannot write, or a schema it cannot express
ENCODE_ERRORS: Final = (EncodeError, SchemaError)
#: the longest message a refusal may have: it names a value, never prints a huge one whole
MAX_MESSAGE: Final = 1000

_D: Final = struct.Struct(">d")


def same(a: Any, b: Any) -> bool:
    """The same value, down to types; floats and Float32s by their bits, Decimals by their
    text, UUIDs, datetimes and versionstamps by their fields, tuples and lists item by item."""
    if type(a) is not type(b):
        return False
    if type(a) in (tuple, list):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, Float32):
        return (type(getattr(a, "bits", None)) is int and type(getattr(b, "bits", None)) is int
                and a.bits == b.bits and _D.pack(a) == _D.pack(b))
    if isinstance(a, float):
        return _D.pack(a) == _D.pack(b)
    if isinstance(a, decimal.Decimal):
        return str(a) == str(b)
    if isinstance(a, uuid.UUID):
        return (type(a.int) is type(b.int) is int and a.int == b.int
                and a.is_safe == b.is_safe)
    if isinstance(a, _dt.datetime):
        return (a == b and a.tzinfo is b.tzinfo and a.fold == b.fold
                and a.isoformat() == b.isoformat())
    if isinstance(a, Versionstamp):
        return same((a.tr_version, a.user_version), (b.tr_version, b.user_version))
    return bool(a == b)


def outcome(op: Callable[[], Any]) -> Outcome:
    """What *op* gives: ``("ok", result)`` or ``("error", class, message)``. Any exception
    but a :class:`~lexcodecs.errors.LexCodecError` escapes (and fails the test)."""
    try:
        return ("ok", op())
    except LexCodecError as exc:
        return ("error", type(exc), str(exc))


def _show(result: Outcome) -> str:
    if result[0] == "ok":
        return f"ok {describe_value(result[1])}"
    return f"{result[1].__name__}: {result[2]}"


def _say(what: Any, text: str) -> str:
    return text if what is None else f"{describe_value(what)}: {text}"


def both(op: Callable[[], Any], what: Any = None) -> Outcome:
    """*op* under each implementation; they must give the same outcome (:func:`same`
    results, or the same error class and message). Returns the reference's outcome. *what*
    names the input in a failure's message."""
    with _impl.use("compiled"):
        compiled = outcome(op)
    with _impl.use("reference"):
        reference = outcome(op)
    # the messages are built only on failure, and bounded: the repr of a huge int fails
    if compiled[0] != reference[0] or (
            not same(compiled[1], reference[1]) if compiled[0] == "ok"
            else compiled != reference):
        raise AssertionError(_say(what, f"compiled {_show(compiled)}; reference "
                                        f"{_show(reference)}"))
    return reference


def check_encode_outcome(result: Outcome, what: Any = None) -> None:
    """An encode either succeeded or refused with :data:`ENCODE_ERRORS` and a message of less
    than :data:`MAX_MESSAGE` characters; anything else fails with what was expected."""
    if result[0] == "ok":
        return
    cls, message = result[1], result[2]
    if not issubclass(cls, ENCODE_ERRORS):
        raise AssertionError(_say(what, f"encode raised {cls.__name__}: {message[:300]}; "
                                        "expected EncodeError, UnsupportedTypeError or "
                                        "SchemaError"))
    if len(message) >= MAX_MESSAGE:
        raise AssertionError(_say(what, f"a refusal's message of {len(message)} characters "
                                        f"({message[:200]}...); expected fewer than "
                                        f"{MAX_MESSAGE}"))


def field_text(name: str, spec: str, descending: bool = False, nulls: str | None = None
               ) -> str:
    """The schema text of field *name* of *spec* (a type, then its options:
    ``"bytes encoding=blobcopy"``), with its order and NULL placement."""
    field_type, _, options = spec.partition(" ")
    text = f"{name}:{field_type}"
    if descending:
        text += " desc"
    if nulls is not None:
        text += f" nulls {nulls}"
    return f"{text} {options}" if options else text


#: keys that are no bytes at all, or odd bytes-likes: each decode refuses or reads them alike
ODD_KEYS: Final = ("00", 5, None, [0], (0,), bytearray(b"\x00"), memoryview(b"\x00\x01"),
                   memoryview(b"\x00\x01\x02\x03")[::2], b"")

#: the operations whose answers the never-hand-over tests compare with the reference's
COMPARED: Final = frozenset({"encode(tuple)", "encode(values)", "bind(schema).decode",
                            "decode(key)", "prefix_range(values[:1])", "prefix_range(values)"})

#: the shapes a caller gives the values of a key in: mostly a tuple
_SHAPES: Final = ("tuple", "tuple", "tuple", "tuple", "list", "sub", "str", "none", "dict",
                  "odd")


class DifferentialConformance:
    """Subclass with ``codec`` to hold a codec's compiled path to its reference code under
    pytest (see the module docstring for the tests).

    * ``codec``: a codec instance (or a zero-argument factory); ``variants``: the same codec
      with other options, drawn in turn by the hypothesis tests and all run by the
      deterministic ones;
    * ``fields``: the subjects, one test case each: field types with options, as a schema
      writes them (``"bytes encoding=blobcopy"``); default: the declared field types (a class
      that draws a subject's options in :meth:`schemas` names kinds here, and its field specs
      for the deterministic tests in :meth:`specs`);
    * ``extra_odd_values``: the codec's own hostile values, beside
      :func:`~lexcodecs.testing.hostile.odd_values`; ``odd_keys``: its hand-picked keys,
      read by a field of every subject and by ``odd_key_schemas``;
    * ``value_strategies``: as :class:`~lexcodecs.testing.CodecConformance`'s, per field name
      or type, for valid values the capabilities cannot describe;
    * ``notable_bytes``: the bytes that mean something in the format, for near-miss keys;
    * ``context``: two ``(field, value)`` pairs a subject is put between in the deterministic
      tests; default: a string and an int64 (or the first declared types);
    * ``valid_values``: per spec, hand-picked valid exact-type values that must stay on
      the compiled path (beside the ones hypothesis draws); ``schemaless_values``: the same
      for a schemaless encode;
    * ``compiled_module``: the module the bound class comes from under ``"compiled"``;
      default ``<the codec's package>._compiled``; ``handover_key``: its key in
      ``lexcodecs._impl.HANDOVERS``, default the package's name;
    * ``compared_operations``: the operations whose answers on valid values the
      never-hand-over tests compare with the reference's;
    * ``example_share``, ``handover_share``: how many of the hypothesis profile's examples the
      properties run (see :meth:`property_settings`).

    Hooks: :meth:`schemas` (the schema strategy), :meth:`specs`, :meth:`valid_schemas`,
    :meth:`valid_keys`, :meth:`extra_encode_operations` and :meth:`extra_decode_operations`
    (a codec's own methods, run and compared with the others), :meth:`hands_over` (valid
    values that leave the compiled path by design), :meth:`known_bug` (odd values the
    odd-value tests pass over, each with its own strict ``xfail`` test),
    :meth:`property_settings`.

    The class name does not start with ``Test``, so pytest collects only subclasses.
    """

    codec: ClassVar[Codec | Callable[[], Codec]]
    variants: ClassVar[Sequence[Codec]] = ()
    fields: ClassVar[Sequence[str]] = ()
    extra_odd_values: ClassVar[Sequence[Any]] = ()
    odd_keys: ClassVar[Sequence[Any]] = ()
    odd_key_schemas: ClassVar[Sequence[str]] = ()
    value_strategies: ClassVar[Overrides] = {}
    notable_bytes: ClassVar[Sequence[int]] = (0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF)
    context: ClassVar[Sequence[tuple[str, Any]]] = ()
    valid_values: ClassVar[Mapping[str, Sequence[Any]]] = {}
    schemaless_values: ClassVar[Sequence[Any]] = ()
    compiled_module: ClassVar[str | None] = None
    handover_key: ClassVar[str | None] = None
    max_fields: ClassVar[int] = 4
    #: the operations whose answers on valid values the never-hand-over tests compare with
    #: the reference's (the codec's own may be added)
    compared_operations: ClassVar[frozenset[str]] = COMPARED
    #: the share of the hypothesis profile's examples each property runs per subject (a
    #: codec with many subjects takes less); the drawn part of the never-hand-over test runs
    #: ``handover_share`` of them
    example_share: ClassVar[float] = 1.0
    handover_share: ClassVar[float] = 0.25

    #: (class, field type) -> its hostile values; (class, spec) -> whether it binds anywhere
    _hostile: ClassVar[dict[tuple[type, str], st.SearchStrategy[Any]]] = {}
    _anywhere: ClassVar[dict[tuple[type, str], bool]] = {}
    #: strategies made once: (class, what, codec, subject or schema) -> strategy
    _strategies: ClassVar[dict[tuple[Any, ...], st.SearchStrategy[Any]]] = {}

    # -- configuration ------------------------------------------------------------------------

    def pytest_generate_tests(self, metafunc: Any) -> None:
        if "subject" in metafunc.fixturenames:
            metafunc.parametrize("subject", list(self.subjects()))
        if "spec" in metafunc.fixturenames:
            metafunc.parametrize("spec", list(self.specs()))

    def get_codec(self) -> Codec:
        return _built(type(self).codec)

    def codecs(self) -> list[Codec]:
        """The codec and its variants."""
        return [self.get_codec(), *(_built(c) for c in self.variants)]

    def subjects(self) -> Sequence[str]:
        """The subjects of the hypothesis tests: ``fields``, or the declared field types. A
        class whose :meth:`schemas` draws a subject's options may name kinds here."""
        return self.fields or sorted(self.get_codec().capabilities.field_types)

    def specs(self) -> Sequence[str]:
        """The field specs of the deterministic tests (a type and its options, as a schema
        writes them); default: the subjects."""
        return self.subjects()

    def property_settings(self, share: float | None = None) -> settings | None:
        """Settings for this class's properties: the active hypothesis profile, with
        *share* (default ``example_share``) of its examples; None: the profile as it is."""
        share = self.example_share if share is None else share
        if share == 1:
            return None
        return settings(max_examples=max(1, round(settings().max_examples * share)))

    def compiled_module_name(self) -> str:
        if self.compiled_module is not None:
            return self.compiled_module
        return type(self.get_codec()).__module__.rsplit(".", 1)[0] + "._compiled"

    def handovers_key(self) -> str:
        return self.handover_key or self.compiled_module_name().rsplit(".", 2)[-2]

    def context_fields(self) -> Sequence[tuple[str, Any]]:
        """The two ``(field, value)`` pairs a subject is put between."""
        if self.context:
            return self.context
        types = sorted(self.get_codec().capabilities.field_types)
        first = ("s:string", "acme") if "string" in types else (f"s:{types[0]}", None)
        second = next(((f"n:{t}", -5) for t in ("int64", "int") if t in types),
                      (f"n:{types[-1]}", None))
        return (first, second)

    # -- hooks ----------------------------------------------------------------------------------

    def schemas(self, codec: Codec, subject: str) -> st.SearchStrategy[KeySchema]:
        """Schemas of 1 to ``max_fields`` fields, one of them *subject*, the others of the
        subjects that may stand anywhere; each field in either order (where the codec has
        descending fields) and every NULL placement it declares. A schema the codec does not
        bind (a field that must come last, say) becomes the subject last, then alone."""
        variants = self._variants(codec)
        others = [s for s in self.subjects() if self._binds_anywhere(codec, s)] or [subject]

        @st.composite
        def draw(draw: st.DrawFn) -> KeySchema:
            n = draw(st.integers(1, self.max_fields))
            at = draw(st.integers(0, n - 1))
            texts = [field_text(f"f{i}", subject if i == at else draw(st.sampled_from(others)),
                                *draw(st.sampled_from(variants))) for i in range(n)]
            return self._binding(codec, texts, at)
        return draw()

    def valid_keys(self, codec: Codec, schema: KeySchema) -> st.SearchStrategy[tuple[Any, ...]]:
        """Valid values of a whole key of *schema* (the harness's strategy)."""
        nullable = getattr(_bind(codec, schema), "nullable", None)
        return keys(schema, codec.capabilities, self.value_strategies,
                    nullable=None if nullable is None else tuple(bool(n) for n in nullable))

    def extra_encode_operations(self, codec: Codec, schema: KeySchema, values: Any, k: int,
                                data: st.DataObject | None = None) -> Sequence[Operation]:
        """The codec's own encode-side operations on *values* (and their first *k*), each
        binding under the implementation in force; held to agreement and to the encode
        property. *data* draws more input, where a hypothesis test calls it."""
        return ()

    def extra_decode_operations(self, codec: Codec, schema: KeySchema, key: Any,
                                data: st.DataObject | None = None) -> Sequence[Operation]:
        """The codec's own decode-side operations on *key*; held to agreement."""
        return ()

    def hands_over(self, field: Field, value: Any) -> bool:
        """Whether a valid *value* of *field* leaves the compiled path by design."""
        return False

    def known_bug(self, field: Field | None, value: Any) -> str | None:
        """Why encoding odd *value* in *field* (None: schemaless) is a known bug that the
        odd-value tests pass over, or None. Each one deserves its own strict ``xfail`` test,
        so that the fix is noticed."""
        return None

    # -- the differential properties --------------------------------------------------------------

    def test_encode_agrees(self, subject: str) -> None:
        """Schemas around *subject*, values valid and (about one field in three) hostile, in
        every shape: every encode-side operation agrees, and refuses only as an encoder may."""
        @given(st.data())
        def prop(data: st.DataObject) -> None:
            codec = self._draw_codec(data)
            schema = data.draw(self._schemas(codec, subject), label="schema")
            values = list(data.draw(self._valid_keys(codec, schema), label="valid values"))
            for i, f in enumerate(schema.fields):  # about one field in three hostile
                if data.draw(st.integers(0, 2), label=f"hostile {f.name}?") == 0:
                    value = data.draw(self._hostile_values(f.type), label=f.name)
                    if self.known_bug(f, value) is None:
                        values[i] = value
            given_values = self._shaped(data.draw(st.sampled_from(_SHAPES), label="shape"),
                                        values, data)
            k = data.draw(st.integers(0, len(schema)), label="prefix length")
            for name, op in self.encode_operations(codec, schema, given_values, k, data):
                what = (name, _Shown(schema), given_values)
                check_encode_outcome(both(op, what), what)
        self._run(prop)

    def test_decode_agrees(self, subject: str) -> None:
        """Valid keys of schemas around *subject* (schemaless ones too), their near misses and
        random bytes, as any bytes-like: every decode-side operation agrees, by the schema
        they were written with and by another."""
        @given(st.data())
        def prop(data: st.DataObject) -> None:
            codec = self._draw_codec(data)
            caps = codec.capabilities
            schema = data.draw(self._schemas(codec, subject), label="schema")
            values = data.draw(self._valid_keys(codec, schema), label="values")
            schemaless = caps.schemaless and data.draw(st.booleans(), label="schemaless key")
            with _impl.use("reference"):
                try:
                    key = codec.encode(values) if schemaless else codec.encode(values, schema)
                except LexCodecError:  # a value the strategy drew that the codec refuses
                    key = b""
            raw = data.draw(near_misses(key, self.notable_bytes), label="key")
            kind = data.draw(st.sampled_from([bytes, bytes, bytearray, memoryview]),
                             label="key type")
            other = data.draw(self._schemas(codec, data.draw(st.sampled_from(self.subjects()))),
                              label="another schema")
            for name, op in self.decode_operations(codec, schema, kind(raw), other, data):
                both(op, (name, _Shown(schema), raw))
        self._run(prop)

    def test_every_odd_value_agrees(self, spec: str) -> None:
        """Each odd value alone in a field of *spec* of each order, under the codec and each
        variant; under the codec also twice (``[v, v]``: one too many) and between two valid
        fields: deterministic, so none is missed."""
        (c0, v0), (c1, v1) = self.context_fields()
        for n, codec in enumerate(self.codecs()):
            bound = [(alone, self._parse(codec, [c0, field_text("v", spec, d), c1]))
                     for d in self._orders(codec)
                     if (alone := self._parse(codec, [field_text("v", spec, d)])) is not None]
            assert bound, f"{codec.name} binds no schema with a field {spec!r}"
            for alone, between in bound:
                field = alone.fields[0]
                for value in [*odd_values(), *self.extra_odd_values]:
                    if self.known_bug(field, value) is not None:
                        continue
                    ops: list[Operation] = [
                        ("encode((v,))", partial(_encode, codec, alone, (value,)))]
                    if n == 0:
                        ops.append(("encode([v, v])",
                                    partial(_encode, codec, alone, [value, value])))
                        if between is not None:
                            ops.append(("encode(between)", partial(
                                _encode, codec, between, (v0, value, v1))))
                    for name, op in ops:
                        what = (name, codec, _Shown(alone), value)
                        check_encode_outcome(both(op, what), what)

    def test_every_odd_value_agrees_schemaless(self) -> None:
        """Each odd value in a schemaless key (where the codec claims one), alone under the
        codec and each variant, and twice under the codec."""
        import pytest

        if not self.get_codec().capabilities.schemaless:
            pytest.skip("the codec does not claim schemaless encoding")
        for n, codec in enumerate(self.codecs()):
            for value in [*odd_values(), *self.extra_odd_values]:
                if self.known_bug(None, value) is not None:
                    continue
                ops: list[Operation] = [("encode((v,))", partial(_encode, codec, None, (value,)))]
                if n == 0:
                    ops.append(("encode([v, v])", partial(_encode, codec, None, [value, value])))
                for name, op in ops:
                    what = (name, codec, value)
                    check_encode_outcome(both(op, what), what)

    def test_odd_keys_agree(self) -> None:
        """Keys that are not bytes, views of odd shapes, and the codec's own hand-picked
        keys, read by a field of every subject and without a schema."""
        for codec in self.codecs():
            texts = [[field_text("v", spec)] for spec in self.specs()]
            texts += [[text] for text in self.odd_key_schemas]
            schemas = [s for s in (self._parse(codec, t) for t in texts) if s is not None]
            for key in [*ODD_KEYS, released_view(), *self.odd_keys]:
                for schema in schemas:
                    both(partial(_decode, codec, schema, key), (_Shown(schema), key))
                    for name, op in self.extra_decode_operations(codec, schema, key):
                        both(op, (name, _Shown(schema), key))
                if codec.capabilities.decoding == "self-describing":
                    both(partial(_decode, codec, None, key), key)

    # -- the compiled path is in use --------------------------------------------------------------

    def require_compiled(self) -> ModuleType:
        """The compiled module, or skip the test (fail where ``LEXCODECS_REQUIRE_COMPILED``
        is set)."""
        import pytest

        name = self.compiled_module_name()
        try:
            return importlib.import_module(name)
        except ImportError as exc:
            if os.environ.get(_impl.ENV_REQUIRE):
                pytest.fail(f"{name} is not built ({exc}) and {_impl.ENV_REQUIRE} is set")
            pytest.skip(f"{name} is not built")
            raise  # pragma: no cover - skip raises

    def test_compiled_is_in_use(self) -> None:
        """Binding a field of every subject and order gives the compiled module's class under
        ``"compiled"``, and another under ``"reference"``."""
        module = self.require_compiled()
        for codec in self.codecs():
            for spec in self.specs():
                schemas = [s for s in (self._parse(codec, [field_text("v", spec, d)])
                                       for d in self._orders(codec)) if s is not None]
                assert schemas, f"{codec.name} binds no schema with a field {spec!r}"
                for schema in schemas:
                    with _impl.use("compiled"):
                        compiled = type(codec.bind(schema))
                    with _impl.use("reference"):
                        reference = type(codec.bind(schema))
                    assert compiled.__module__ == module.__name__, (
                        f"{schema}: bound as {compiled.__module__}.{compiled.__qualname__} "
                        f"under 'compiled'; expected a class of {module.__name__}")
                    assert reference.__module__ != module.__name__, (
                        f"{schema}: bound as {reference.__qualname__} of the compiled module "
                        "under 'reference'")

    def test_valid_values_never_hand_over(self, spec: str) -> None:
        """Valid exact-type values of *spec* -- the hand-picked ones and drawn ones, NULL
        too -- alone, between two fields and last, in every order and NULL placement, stay on
        the compiled path in every operation the reference accepts, with the same answers."""
        self.require_compiled()
        for codec in self.codecs():
            for schema, at in self.valid_schemas(codec, spec):
                row = self.context_row(schema)
                for value in [*self.valid_values.get(spec, ()), None]:
                    row[at] = value
                    self.assert_stays_compiled(codec, schema, tuple(row))

        @given(st.data())
        def prop(data: st.DataObject) -> None:
            codec = self._draw_codec(data)
            schema, _ = data.draw(st.sampled_from(self.valid_schemas(codec, spec)),
                                  label="schema")
            values = data.draw(self._valid_keys(codec, schema), label="values")
            if not any(self.hands_over(f, v) for f, v in zip(schema.fields, values)):
                self.assert_stays_compiled(codec, schema, values)
        self._run(prop, self.example_share * self.handover_share)

    def test_schemaless_values_never_hand_over(self) -> None:
        """Valid values of the types a schemaless encode chooses (hand-picked and drawn), one
        and several to a key, stay on the compiled path when encoded without a schema (and
        decoded so, where keys describe themselves)."""
        import pytest

        codec = self.get_codec()
        if not codec.capabilities.schemaless:
            pytest.skip("the codec does not claim schemaless encoding")
        self.require_compiled()
        for c in self.codecs():
            for value in self.schemaless_values:
                self.assert_stays_compiled(c, None, (value,))
                self.assert_stays_compiled(c, None, [value, value])
            if self.schemaless_values:
                self.assert_stays_compiled(c, None, tuple(self.schemaless_values))
        chosen = sorted(schemaless_types(codec))
        if not chosen:
            return

        @given(st.data())
        def prop(data: st.DataObject) -> None:
            c = self._draw_codec(data)
            types = data.draw(st.lists(st.sampled_from(chosen), min_size=1, max_size=4),
                              label="types")
            values = tuple(data.draw(values_for(Field(f"f{i}", t), c.capabilities,
                                                self.value_strategies), label=f"f{i}")
                           for i, t in enumerate(types))
            if not any(self.hands_over(Field("x", t), v) for t, v in zip(types, values)):
                self.assert_stays_compiled(c, None, values)
        self._run(prop, self.handover_share)

    def assert_stays_compiled(self, codec: Codec, schema: KeySchema | None, values: Any
                              ) -> None:
        """Every operation on valid *values* runs on the compiled path without one hand-over
        (``lexcodecs._impl.HANDOVERS``), or is refused by the reference too (a refusal is the
        reference's by design); the answers of ``compared_operations`` (keys, decoded values,
        ranges) are the reference's. (The other operations' answers are compared on drawn
        values by the differential tests: running the reference beside each one here would
        double this test's time.)"""
        with _impl.use("reference"):
            key = outcome(lambda: codec.encode(values) if schema is None
                          else codec.bind(schema).encode(values))
        ops = self.valid_operations(codec, schema, values,
                                    key[1] if key[0] == "ok" else None)
        counter = self.handovers_key()
        for name, op in ops:
            with _impl.use("compiled"):
                before = _impl.HANDOVERS[counter]
                compiled = outcome(op)
                handed = _impl.HANDOVERS[counter] - before
            reference: Outcome | None = None
            if compiled[0] != "ok" or name in self.compared_operations:
                with _impl.use("reference"):
                    reference = outcome(op)
                if compiled[0] != "ok" and reference[:2] == compiled[:2]:
                    continue  # refused alike: the reference's refusal, by design
            if handed:
                raise AssertionError(_say((name, _Shown(schema), values),
                                          f"handed over to the reference {handed} time(s); "
                                          "expected to stay on the compiled path"))
            if reference is not None and (
                    compiled[0] != "ok" or not same(compiled[1], reference[1])):
                raise AssertionError(_say((name, _Shown(schema), values),
                                          f"compiled {_show(compiled)}; reference "
                                          f"{_show(reference)}"))

    # -- operations -------------------------------------------------------------------------------

    def encode_operations(self, codec: Codec, schema: KeySchema, values: Any, k: int,
                          data: st.DataObject | None = None) -> list[Operation]:
        """Every encode-side operation on *values*: bound and through the codec, one value
        short and one too many, ``prefix_range`` of the first *k*, schemaless where claimed,
        and the codec's own."""
        sequence = isinstance(values, (tuple, list))
        prefix = values[:k] if sequence else values  # a prefix that is no sequence, too
        ops: list[Operation] = [
            ("bind(schema).encode", lambda: codec.bind(schema).encode(values)),
            ("encode(values, schema)", lambda: codec.encode(values, schema)),
            ("bind(schema).prefix_range", lambda: codec.bind(schema).prefix_range(prefix)),
            ("prefix_range(values, schema)", lambda: codec.prefix_range(prefix, schema)),
        ]
        if sequence:
            ops += [
                ("encode one value short", lambda: codec.bind(schema).encode(values[:-1])),
                ("encode one value too many", lambda: codec.bind(schema).encode(
                    [*values, values[0] if values else None])),
            ]
        if codec.capabilities.schemaless:
            ops += [("encode(values)", lambda: codec.encode(values)),
                    ("prefix_range(values)", lambda: codec.prefix_range(prefix))]
        return ops + list(self.extra_encode_operations(codec, schema, values, k, data))

    def decode_operations(self, codec: Codec, schema: KeySchema, key: Any,
                          other: KeySchema | None = None, data: st.DataObject | None = None
                          ) -> list[Operation]:
        """Every decode-side operation on *key*: bound and through the codec, by *other*
        schema too, without a schema where keys describe themselves, and the codec's own."""
        ops: list[Operation] = [
            ("bind(schema).decode", lambda: codec.bind(schema).decode(key)),
            ("decode(key, schema)", lambda: codec.decode(key, schema)),
        ]
        if other is not None:
            ops.append((f"decode by ({other})", lambda: codec.bind(other).decode(key)))
        if codec.capabilities.decoding == "self-describing":
            ops.append(("decode(key)", lambda: codec.decode(key)))
        return ops + list(self.extra_decode_operations(codec, schema, key, data))

    def valid_operations(self, codec: Codec, schema: KeySchema | None, values: Any,
                         key: bytes | None) -> list[Operation]:
        """What valid *values* (and their *key*, if the reference wrote one) go through on
        the compiled path: encode as a tuple and a list, ``prefix_range`` of the first,
        decode (without the schema too, where keys describe themselves), and the codec's own
        operations."""
        ops: list[Operation]
        if schema is None:
            ops = [("encode(values)", lambda: codec.encode(values)),
                   ("prefix_range(values)", lambda: codec.prefix_range(values))]
            if key is not None and codec.capabilities.decoding == "self-describing":
                ops.append(("decode(key)", lambda: codec.decode(key)))
            return ops
        ops = [("encode(tuple)", lambda: codec.bind(schema).encode(tuple(values))),
               ("encode(list)", lambda: codec.bind(schema).encode(list(values))),
               ("prefix_range(values[:1])", partial(_prefix_range, codec, schema,
                                                    tuple(values[:1])))]
        ops += self.extra_encode_operations(codec, schema, tuple(values), 1)
        if key is not None:
            ops.append(("bind(schema).decode", partial(_decode, codec, schema, key)))
            if codec.capabilities.decoding == "self-describing":
                ops.append(("decode(key)", partial(_decode, codec, None, key)))
            ops += self.extra_decode_operations(codec, schema, key)
        return ops

    # -- the parts --------------------------------------------------------------------------------

    def _run(self, prop: Callable[[], None], share: float | None = None) -> None:
        config = self.property_settings(share)
        (config(prop) if config is not None else prop)()

    def _schemas(self, codec: Codec, subject: str) -> st.SearchStrategy[KeySchema]:
        """:meth:`schemas`, made once per codec and subject: building a composite strategy
        reflects on its function, and a new strategy is validated on its first draw."""
        return _cached(self._strategies, (type(self), "schemas", codec, subject),
                       lambda: self.schemas(codec, subject))

    def _valid_keys(self, codec: Codec, schema: KeySchema) -> st.SearchStrategy[Any]:
        return _cached(self._strategies, (type(self), "keys", codec, schema),
                       lambda: self.valid_keys(codec, schema))

    def _draw_codec(self, data: st.DataObject) -> Codec:
        codecs = self.codecs()
        if len(codecs) == 1:
            return codecs[0]
        return codecs[data.draw(st.integers(0, len(codecs) - 1), label="codec")]

    def _hostile_values(self, field_type: str) -> st.SearchStrategy[Any]:
        key = (type(self), field_type)
        strategy = self._hostile.get(key)
        if strategy is None:
            strategy = self._hostile[key] = hostile_values(field_type, self.extra_odd_values)
        return strategy

    def _shaped(self, shape: str, values: list[Any], data: st.DataObject) -> Any:
        if shape == "list":
            return values
        if shape == "sub":
            return TupleSub(values)
        if shape == "str":
            return "ab"
        if shape == "none":
            return None
        if shape == "dict":
            return {f"f{i}": v for i, v in enumerate(values)}
        if shape == "odd":
            key = (type(self), "")  # the odd values themselves
            strategy = self._hostile.get(key)
            if strategy is None:
                strategy = self._hostile[key] = pick([*odd_values(), *self.extra_odd_values])
            return data.draw(strategy, label="odd values")
        return tuple(values)

    @staticmethod
    def _orders(codec: Codec) -> tuple[bool, ...]:
        return (False, True) if codec.capabilities.descending else (False,)

    @staticmethod
    def _variants(codec: Codec) -> list[tuple[bool, str | None]]:
        """The (descending, ``nulls``) variants of a field the codec declares."""
        caps = codec.capabilities
        return [(d, n) for d, n in NULL_VARIANTS[caps.nulls] if caps.descending or not d]

    def _binds_anywhere(self, codec: Codec, spec: str) -> bool:
        """Whether a field of *spec* binds before another one (a BlobCopy, a trailing string
        or a final binary does not)."""
        key = (type(self), spec)
        if key not in self._anywhere:
            self._anywhere[key] = self._parse(
                codec, [field_text("a", spec), field_text("b", spec)]) is not None
        return self._anywhere[key]

    @staticmethod
    def _parse(codec: Codec, texts: Sequence[str]) -> KeySchema | None:
        """The schema of *texts* if the codec binds it (under the reference), else None."""
        try:
            schema = KeySchema.parse(", ".join(texts))
            with _impl.use("reference"):
                codec.bind(schema)
        except SchemaError:
            return None
        return schema

    def _binding(self, codec: Codec, texts: list[str], at: int) -> KeySchema:
        subject = texts[at]
        last = [t for i, t in enumerate(texts) if i != at] + [subject]
        for candidate in (texts, last, [subject], [subject.split(" ", 1)[0]]):
            schema = self._parse(codec, candidate)
            if schema is not None:
                return schema
        raise SchemaError(f"{codec.name} binds no schema with the field {subject!r}")

    def valid_schemas(self, codec: Codec, spec: str) -> list[tuple[KeySchema, int]]:
        """A field of *spec* (every order and NULL placement) alone, between the context
        fields and last after one: the schemas the codec binds, each with the field's index
        (the context fields take the field's order)."""
        (c0, _), (c1, _) = self.context_fields()
        out = []
        for descending, nulls in self._variants(codec):
            v = field_text("v", spec, descending, nulls)
            c0d, c1d = (_reordered(c, descending) for c in (c0, c1))
            for texts, at in (([v], 0), ([c0d, v, c1d], 1), ([c0d, v], 1)):
                schema = self._parse(codec, texts)
                if schema is not None:
                    out.append((schema, at))
        if not out:
            raise SchemaError(f"{codec.name} binds no schema with the field {spec!r}")
        return out

    def context_row(self, schema: KeySchema) -> list[Any]:
        """A row of *schema* with the context fields' values (by name), None elsewhere."""
        given = {text.partition(":")[0]: value for text, value in self.context_fields()}
        return [given.get(f.name) for f in schema.fields]


class _Shown:
    """An object shown by its text (a schema) in a failure's message, made only then."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def __repr__(self) -> str:
        return str(self.obj)


def _reordered(text: str, descending: bool) -> str:
    """Field *text* (``"n:int64 key=range"``) in the given order."""
    if not descending:
        return text
    name, _, rest = text.partition(":")
    field_type, _, options = rest.partition(" ")
    return field_text(name, f"{field_type} {options}".strip(), True)


def _encode(codec: Codec, schema: KeySchema | None, values: Any) -> bytes:
    """*values* encoded, bound under the implementation in force (or schemaless)."""
    return codec.encode(values) if schema is None else codec.bind(schema).encode(values)


def _decode(codec: Codec, schema: KeySchema | None, key: Any) -> Any:
    return codec.decode(key) if schema is None else codec.bind(schema).decode(key)


def _prefix_range(codec: Codec, schema: KeySchema, values: Any) -> Any:
    return codec.bind(schema).prefix_range(values)


#: how many strategies :func:`_cached` keeps before it starts again
_CACHE_SIZE: Final = 4096


def _cached(cache: dict[tuple[Any, ...], st.SearchStrategy[Any]], key: tuple[Any, ...],
            make: Callable[[], st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    strategy = cache.get(key)
    if strategy is None:
        if len(cache) >= _CACHE_SIZE:
            cache.clear()
        strategy = cache[key] = make()
    return strategy


def _built(codec: Codec | Callable[[], Codec]) -> Codec:
    # a class also passes isinstance(..., Codec) (it has the attributes): build it
    if isinstance(codec, type) or not isinstance(codec, Codec):
        return codec()
    return codec


def _bind(codec: Codec, schema: KeySchema) -> Any:
    with _impl.use("reference"):
        try:
            return codec.bind(schema)
        except LexCodecError:
            return None
