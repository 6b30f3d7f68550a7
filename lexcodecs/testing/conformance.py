"""Hypothesis-driven conformance: every check of :mod:`lexcodecs.testing.checks`, as a
property over generated values, and :class:`CodecConformance`, the pytest base class.

Theory of operation: :data:`PROPERTIES` maps a check name to a function that builds a
hypothesis test for one codec and one schema; :func:`run_property` runs it (shrinking a
failure to a minimal counterexample, which the :class:`~.checks.ConformanceError` shows).
:func:`applicable` says which checks make sense for a codec and schema (no round trip for a
codec that cannot decode, no descending check without a descending field).

A plugin author writes::

    from lexcodecs.testing import CodecConformance

    class TestMyCodec(CodecConformance):
        codec = MyCodec()
        schemas = ["tenant:string, ts:int64 desc", "id:uuid, score:float64 nulls last"]

and pytest runs every check on every schema, under the active hypothesis profile.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Final

from hypothesis import given, settings
from hypothesis import strategies as st

from .. import _impl
from ..codec import Codec
from ..errors import NotDecodableError
from ..schema import KeySchema
from . import checks
from .strategies import Overrides, batches, junk_keys, keys, neighbour_pairs, prefixes, values_for

__all__ = [
    "BATCH_CHECKS",
    "PROPERTIES",
    "SCHEMALESS_TYPES",
    "CodecConformance",
    "applicable",
    "run_batch_checks",
    "run_property",
    "schemaless_types",
]

PropertyBuilder = Callable[[Codec, KeySchema, Overrides], Callable[[], None]]


def _nullable(codec: Codec, schema: KeySchema) -> tuple[bool, ...] | None:
    """Per field, whether it takes NULL: a bound codec may say so with ``nullable`` (Orderly's
    fixed-width fields have none); None when it does not say."""
    try:
        flags = getattr(codec.bind(schema), "nullable", None)
    except Exception:
        return None  # test_schema_binds reports it
    return None if flags is None else tuple(bool(f) for f in flags)


def _round_trip(codec: Codec, schema: KeySchema, ov: Overrides) -> Callable[[], None]:
    caps = codec.capabilities

    @given(keys(schema, caps, ov, nullable=_nullable(codec, schema)))
    def prop(values: tuple[Any, ...]) -> None:
        checks.check_round_trip(codec, schema, values)
        # and the keys one step away, where lossy corner cases live (a trailing space...)
        for _, near in neighbour_pairs([values], schema, caps, ov):
            checks.check_round_trip(codec, schema, near)
    return prop


#: the checks over one batch of keys: name -> (check, whether it takes the neighbour pairs)
BATCH_CHECKS: Final[Mapping[str, tuple[Callable[..., None], bool]]] = {
    "order": (checks.check_order, True),
    "injective": (checks.check_injective, True),
    "prefix_free": (checks.check_prefix_free, True),
    "columnar": (checks.check_columnar, True),
}


#: CodecConformance's tests of the batch checks
_BATCH_TESTS: Final = frozenset(f"test_{name}" for name in BATCH_CHECKS)


def _batch_property(*names: str) -> PropertyBuilder:
    """The checks *names* of :data:`BATCH_CHECKS`, in order, on each drawn batch."""
    def build(codec: Codec, schema: KeySchema, ov: Overrides) -> Callable[[], None]:
        caps = codec.capabilities

        @given(batches(schema, caps, ov, nullable=_nullable(codec, schema)))
        def prop(batch: list[tuple[Any, ...]]) -> None:
            pairs = None
            for name in names:
                check, with_pairs = BATCH_CHECKS[name]
                if with_pairs:
                    if pairs is None:
                        pairs = neighbour_pairs(batch, schema, caps, ov)
                    check(codec, schema, batch, pairs)
                else:
                    check(codec, schema, batch)
        return prop
    return build


def _prefix_range(codec: Codec, schema: KeySchema, ov: Overrides) -> Callable[[], None]:
    caps = codec.capabilities

    nullable = _nullable(codec, schema)

    @given(prefixes(schema, caps, ov, nullable=nullable),
           batches(schema, caps, ov, max_size=8, nullable=nullable))
    def prop(prefix: tuple[Any, ...], batch: list[tuple[Any, ...]]) -> None:
        # keys one step away from extending the prefix: where sloppy ranges leak
        n = len(prefix)
        extended = [(*prefix, *row[n:]) for row in batch[:2]]
        near = [b for _, b in neighbour_pairs(extended, schema, caps, ov)]
        checks.check_prefix_range(codec, schema, prefix, [*batch, *near])
    return prop


def _one_field(schema: KeySchema, indexes: Sequence[int], codec: Codec, ov: Overrides, *,
               nullable: bool | None) -> st.SearchStrategy[tuple[int, Any]]:
    """(field index, a value for that field), for one of *indexes*."""
    caps = codec.capabilities
    takes_null = _nullable(codec, schema)
    return st.one_of(*(st.tuples(st.just(i), values_for(
        schema.fields[i], caps, ov,
        nullable=False if takes_null is not None and not takes_null[i] else nullable))
        for i in indexes))


def _null_indexes(codec: Codec, schema: KeySchema) -> list[int]:
    takes_null = _nullable(codec, schema)
    return [i for i in range(len(schema)) if takes_null is None or takes_null[i]]


def _null_placement(codec: Codec, schema: KeySchema, ov: Overrides) -> Callable[[], None]:
    @given(keys(schema, codec.capabilities, ov, nullable=_nullable(codec, schema)),
           _one_field(schema, _null_indexes(codec, schema), codec, ov, nullable=False))
    def prop(values: tuple[Any, ...], change: tuple[int, Any]) -> None:
        index, value = change
        row = list(values)
        row[index] = value
        checks.check_null_placement(codec, schema, row, index)
    return prop


def _descending(codec: Codec, schema: KeySchema, ov: Overrides) -> Callable[[], None]:
    desc = [i for i, f in enumerate(schema.fields) if f.descending]

    @given(keys(schema, codec.capabilities, ov, nullable=_nullable(codec, schema)),
           _one_field(schema, desc, codec, ov, nullable=None))
    def prop(values: tuple[Any, ...], change: tuple[int, Any]) -> None:
        index, other = change
        checks.check_descending(codec, schema, values, index, other)
    return prop


def _decode_junk(codec: Codec, schema: KeySchema, ov: Overrides) -> Callable[[], None]:
    caps = codec.capabilities

    def encode(values: Any) -> bytes:
        return codec.encode(values, schema)

    @given(junk_keys(schema, caps, encode, ov, nullable=_nullable(codec, schema)),
           st.booleans())
    def prop(data: bytes, schemaless: bool) -> None:
        use_schema = None if schemaless and caps.decoding == "self-describing" else schema
        # on both implementations: this check is the one place the property is held, for a
        # codec's compiled path too (a codec without one runs the same code twice)
        for implementation in _impl.IMPLEMENTATIONS:
            with _impl.use(implementation):
                try:
                    checks.check_decode_junk(codec, use_schema, data)
                except checks.ConformanceError as exc:
                    raise checks.ConformanceError(
                        "decode_junk", codec, use_schema,
                        f"{exc.detail} (the {implementation} implementation)") from exc
    return prop


def _schemaless(codec: Codec, schema: KeySchema, ov: Overrides) -> Callable[[], None]:
    caps = codec.capabilities

    @given(batches(schema, caps, ov, nullable=_nullable(codec, schema)))
    def prop(batch: list[tuple[Any, ...]]) -> None:
        # the keys one step away, as the order checks with a schema have them: a batch of
        # random ints seldom holds the pair (x, -x) that shows a sign written wrong
        checks.check_schemaless(codec, schema, batch,
                                neighbour_pairs(batch, schema, caps, ov))
    return prop


def _self_describing(codec: Codec, schema: KeySchema, ov: Overrides) -> Callable[[], None]:
    @given(keys(schema, codec.capabilities, ov, nullable=_nullable(codec, schema)))
    def prop(values: tuple[Any, ...]) -> None:
        checks.check_self_describing(codec, schema, values)
    return prop


#: check name -> builder of its hypothesis test for (codec, schema, overrides)
PROPERTIES: Final[Mapping[str, PropertyBuilder]] = {
    "round_trip": _round_trip,
    "order": _batch_property("order"),
    "injective": _batch_property("injective"),
    "prefix_free": _batch_property("prefix_free"),
    "prefix_range": _prefix_range,
    "null_placement": _null_placement,
    "descending": _descending,
    "decode_junk": _decode_junk,
    "self_describing": _self_describing,
    "schemaless": _schemaless,
    "columnar": _batch_property("columnar"),
}

#: the field type a schemaless encoder is taken to choose for a value of each Python type;
#: ``int`` is ``int64`` for a codec without the arbitrary-size ``int`` type
SCHEMALESS_TYPES: Final[Mapping[str, str]] = {
    "str": "string", "bytes": "bytes", "bool": "bool", "float": "float64", "int": "int",
}


def schemaless_types(codec: Codec) -> frozenset[str]:
    """The field types *codec* is taken to choose when it encodes without a schema."""
    caps = codec.capabilities
    if not caps.schemaless:
        return frozenset()
    chosen = {t if t != "int" or "int" in caps.field_types else "int64"
              for t in SCHEMALESS_TYPES.values()}
    return frozenset(chosen & caps.field_types)


def _schemaless_reason(codec: Codec, schema: KeySchema) -> str | None:
    if not codec.capabilities.schemaless:
        return "the codec does not claim schemaless encoding"
    chosen = schemaless_types(codec)
    if any(f.type not in chosen or f.descending or f.nulls is not None or f.options
           for f in schema.fields):
        return ("not a schema a schemaless encode can choose (ascending "
                + ", ".join(sorted(chosen)) + " fields only, no options)")
    return None


def applicable(name: str, codec: Codec, schema: KeySchema) -> str | None:
    """``None`` when check *name* applies to codec and schema, else the reason it does not."""
    caps = codec.capabilities
    decodes = caps.decoding != "none"
    reasons: dict[str, str | None] = {
        "round_trip": None if decodes else "the codec does not decode",
        "order": None,
        # a codec that is not injective still runs it: only its declared collisions are
        # forgiven
        "injective": None,
        "prefix_free": None if caps.prefix_free and _bound_prefix_free(codec, schema)
        else "the codec does not claim prefix-freeness (for this schema)",
        "prefix_range": None,
        "null_placement": None if caps.nulls != "none" and _null_indexes(codec, schema)
        else "the codec has no NULL (in this schema)",
        "descending": None if any(f.descending for f in schema.fields)
        else "the schema has no descending field",
        "decode_junk": None if decodes else "the codec does not decode",
        "self_describing": None if caps.decoding == "self-describing"
        else "keys are not self-describing",
        "schemaless": _schemaless_reason(codec, schema),
        "columnar": _columnar_reason(codec),
    }
    reason = reasons[name]
    if reason is None and name in ("round_trip", "decode_junk") and \
            caps.decoding == "schema" and not _decodes(codec, schema):
        reason = "the codec cannot decode keys of this schema (NotDecodableError)"
    return reason


def _columnar_reason(codec: Codec) -> str | None:
    """Why the columnar check does not apply, or None: the codec declares a columnar layout
    and the kernel that writes it runs here (pyarrow, the compiled modules)."""
    from ..columnar.pieces import declared

    if declared(codec) is None:
        return "the codec declares no columnar layout (encode_arrow uses its row API)"
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return "pyarrow is not installed (pip install 'lexcodecs[arrow]')"
    from ..columnar import kernel_available

    if not kernel_available() or _impl.current != "compiled":
        return "the columnar kernel does not run here (the reference implementation)"
    return None


def _bound_prefix_free(codec: Codec, schema: KeySchema) -> bool:
    """A bound codec may narrow the codec's claim for one schema with ``prefix_free``: keys
    ending in SQLite4's final binary, or an Orderly field without a terminator, are not."""
    try:
        bound = codec.bind(schema)
    except Exception:
        return True  # test_schema_binds reports it
    return bool(getattr(bound, "prefix_free", True))


def _decodes(codec: Codec, schema: KeySchema) -> bool:
    """False when the codec says keys of *schema* cannot be decoded at all."""
    try:
        codec.decode(b"", schema)
    except NotDecodableError:
        return False
    except Exception:
        pass
    return True


def run_property(name: str, codec: Codec, schema: KeySchema | str,
                 overrides: Overrides | None = None, *,
                 settings_: settings | None = None) -> None:
    """Run check *name* as a hypothesis property; a failure raises ConformanceError.

    The active hypothesis profile applies unless *settings_* is given. A failing example is
    shrunk before it is reported, so the error shows a small counterexample.
    """
    schema = KeySchema.coerce(schema)
    prop = PROPERTIES[name](codec, schema, overrides or {})
    if settings_ is not None:
        prop = settings_(prop)
    prop()


def run_batch_checks(names: Sequence[str], codec: Codec, schema: KeySchema | str,
                     overrides: Overrides | None = None, *,
                     settings_: settings | None = None) -> None:
    """Run several checks of :data:`BATCH_CHECKS` on the same drawn batches: what
    :func:`run_property` does for each, for the cost of one. The first check that fails
    raises; the ones after it did not run on that batch."""
    schema = KeySchema.coerce(schema)
    prop = _batch_property(*names)(codec, schema, overrides or {})
    if settings_ is not None:
        prop = settings_(prop)
    prop()


class CodecConformance:
    """Subclass with ``codec`` and ``schemas`` to run every conformance check under pytest.

    * ``codec``: a codec instance (or a zero-argument factory);
    * ``schemas``: schemas (objects or text) to check; every check runs on each;
    * ``value_strategies``: optional hypothesis strategies per field name or field type, for
      values narrower than the capabilities say (a fixed-length bytes field, say).

    The class name does not start with ``Test``, so pytest collects only subclasses.

    The three checks over batches of keys (``order``, ``injective``, ``prefix_free``) run on
    the same drawn batches, as :func:`run_batch_checks` runs them: drawing the batches is most
    of their cost. The first of the three tests of a schema runs all three; each test reports
    its own check. Where the shared run found a failure of one check, that check's test raises
    it (shrunk), and the others run on batches of their own, as they would alone. Under
    pytest-xdist's ``--dist loadgroup`` the three go to one worker.
    """

    codec: ClassVar[Codec | Callable[[], Codec]]
    schemas: ClassVar[Sequence[KeySchema | str]] = ()
    value_strategies: ClassVar[Overrides] = {}

    #: (class, schema, implementation, examples, derandomized) -> what the shared run of the
    #: batch checks showed, by check: None (held on every batch) or the failure it raised
    _batch_outcomes: ClassVar[dict[tuple[Any, ...], dict[str, BaseException | None]]] = {}

    def pytest_generate_tests(self, metafunc: Any) -> None:
        if "schema" in metafunc.fixturenames:
            parsed = [KeySchema.coerce(s) for s in self.schemas]
            if not parsed:
                raise TypeError(f"{type(self).__name__}.schemas is empty: give the schemas "
                                "the codec is to be checked with")
            params: list[Any] = list(parsed)
            if metafunc.function.__name__ in _BATCH_TESTS and \
                    metafunc.config.pluginmanager.hasplugin("xdist"):
                import pytest

                # the schema by its index: xdist takes a group name ending in "]" for
                # part of a parametrized test's id, and would not group it
                cls = type(self)
                params = [pytest.param(s, marks=pytest.mark.xdist_group(
                    f"{cls.__module__}.{cls.__qualname__}.schema{i}"))
                    for i, s in enumerate(parsed)]
            metafunc.parametrize("schema", params, ids=[str(s) for s in parsed])

    def get_codec(self) -> Codec:
        codec = type(self).codec
        # a class also passes isinstance(..., Codec) (it has the attributes): build it
        if isinstance(codec, type) or not isinstance(codec, Codec):
            return codec()
        return codec

    def property_settings(self) -> settings | None:
        """Settings for this class's properties; None: the active hypothesis profile."""
        return None

    def check(self, name: str, schema: KeySchema) -> None:
        import pytest

        codec = self.get_codec()
        reason = applicable(name, codec, schema)
        if reason is not None:
            pytest.skip(reason)
        config = self.property_settings()
        if name in BATCH_CHECKS:
            outcome = self._batch_outcome(codec, schema, config)
            if name in outcome:
                failure = outcome[name]
                if failure is not None:
                    raise failure
                return
        run_property(name, codec, schema, self.value_strategies, settings_=config)

    def _batch_outcome(self, codec: Codec, schema: KeySchema, config: settings | None
                       ) -> dict[str, BaseException | None]:
        """The applicable batch checks of *schema*, run once on shared batches (see the class
        docstring); a check missing from the answer runs on its own."""
        active = config if config is not None else settings()
        key = (type(self), str(schema), _impl.current, active.max_examples, active.derandomize)
        outcome = self._batch_outcomes.get(key)
        if outcome is None:
            names = [n for n in BATCH_CHECKS if applicable(n, codec, schema) is None]
            outcome = {}
            try:
                run_batch_checks(names, codec, schema, self.value_strategies, settings_=config)
            except checks.ConformanceError as exc:
                outcome[exc.check] = exc
            except ExceptionGroup as group:  # hypothesis found distinct failures
                for failure in group.exceptions:
                    if isinstance(failure, checks.ConformanceError):
                        outcome.setdefault(failure.check, failure)
            except Exception:  # not a claim broken: each check runs alone and says
                pass
            else:
                outcome = dict.fromkeys(names)
            self._batch_outcomes[key] = outcome
        return outcome

    def test_schema_binds(self, schema: KeySchema) -> None:
        self.get_codec().bind(schema)

    def test_refuses_what_it_cannot_express(self, schema: KeySchema) -> None:
        checks.check_refusals(self.get_codec(), schema)

    def test_round_trip(self, schema: KeySchema) -> None:
        self.check("round_trip", schema)

    def test_order(self, schema: KeySchema) -> None:
        self.check("order", schema)

    def test_injective(self, schema: KeySchema) -> None:
        self.check("injective", schema)

    def test_prefix_free(self, schema: KeySchema) -> None:
        self.check("prefix_free", schema)

    def test_prefix_range(self, schema: KeySchema) -> None:
        self.check("prefix_range", schema)

    def test_null_placement(self, schema: KeySchema) -> None:
        self.check("null_placement", schema)

    def test_descending(self, schema: KeySchema) -> None:
        self.check("descending", schema)

    def test_decode_junk(self, schema: KeySchema) -> None:
        self.check("decode_junk", schema)

    def test_self_describing(self, schema: KeySchema) -> None:
        self.check("self_describing", schema)

    def test_schemaless(self, schema: KeySchema) -> None:
        self.check("schemaless", schema)

    def test_columnar(self, schema: KeySchema) -> None:
        self.check("columnar", schema)

    def test_declared_anomalies_occur(self) -> None:
        checks.check_anomalies(self.get_codec())

    def test_config_rebuilds(self) -> None:
        from ..registry import available_codecs, get_codec

        codec = self.get_codec()
        config = codec.config()
        assert config["name"] == codec.name, (
            f"config() names {config['name']!r}, the codec is {codec.name!r}")
        if codec.name in available_codecs():
            rebuilt = get_codec(**config)
            assert type(rebuilt) is type(codec), (
                f"get_codec(**config()) built {type(rebuilt).__name__}, not "
                f"{type(codec).__name__}")
        else:  # not registered (yet): the class itself must take its config back
            options = {k: v for k, v in config.items() if k != "name"}
            rebuilt = type(codec)(**options)
        assert rebuilt.config() == codec.config()
        assert rebuilt.capabilities == codec.capabilities
