"""Hostile subclasses and released buffers, for every codec (issue 30, items 7 and 8).

Item 7: a subclass of a type a codec takes (int, float, str, bytes, bytearray, Decimal, the
datetime types, UUID, tuple, list, the typed ints, Float32) whose every overridable method
and attribute raises. The docs say a subclass is written as its plain type, so a codec reads
it as the plain type without calling any of its methods: encoding it gives exactly what the
plain value gives (the same key, or a lexcodecs error of the same class), on both
implementations, schemaless where the codec allows it and in every field type. The hostile
exception never escapes.

Item 8: decoding a released ``memoryview`` is refused with ``DecodeError`` (naming the codec
and the reason) by every decode entry point of every codec, on both implementations.
"""

from __future__ import annotations

import datetime as dt
import functools
import inspect
import uuid
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import pytest

from lexcodecs import Versionstamp, get_codec
from lexcodecs.codecs.lexkey import helpers as lexkey_helpers
from lexcodecs.codecs.sqlite4.index import SecondaryIndex, parse_index_key
from lexcodecs.errors import DecodeError, EncodeError, LexCodecError, NotDecodableError
from lexcodecs.registry import BUILTIN_CODECS
from lexcodecs.schema import KeySchema
from lexcodecs.testing.differential import same
from lexcodecs.types import INT_TYPES, Float32

pytestmark = pytest.mark.usefixtures("impl")

CODECS = tuple(sorted(BUILTIN_CODECS))


class Boom(Exception):
    """What every hostile method raises; it must never leave a codec."""


#: never overridden: needed to build the object, or not a method a codec could call
_KEEP = frozenset({
    "__new__", "__init__", "__init_subclass__", "__getattribute__", "__getattr__",
    "__setattr__", "__delattr__", "__class__", "__subclasshook__", "__dir__", "__sizeof__",
    "__reduce__", "__reduce_ex__", "__getnewargs__", "__getnewargs_ex__", "__getstate__",
    "__setstate__", "__doc__", "__module__", "__slots__", "__dict__", "__weakref__",
    "__class_getitem__", "__instancecheck__", "__subclasscheck__", "__annotations__",
    "__qualname__", "__name__", "__abstractmethods__", "_abc_impl", "__match_args__",
    "__copy__", "__deepcopy__",
})


def _raising_method(name: str) -> Callable[..., Any]:
    def method(*args: Any, **kwargs: Any) -> Any:
        raise Boom(name)
    method.__name__ = name
    return method


def _raising_property(name: str) -> property:
    def get(self: Any) -> Any:
        raise Boom(name)
    return property(get)


@functools.cache
def hostile_class(base: type) -> type:
    """A subclass of *base* whose every method and attribute (``__abs__``, ``__float__``,
    ``__int__``, ``__index__``, ``__add__``, ``__eq__``, ``__hash__``, ``__bool__``,
    ``__repr__``, ``__len__``, ``__iter__``, ``encode``, ``as_tuple``, ``utcoffset``, ``year``,
    ``int``, ``bits`` ...) raises :class:`Boom`."""
    namespace: dict[str, Any] = {"__slots__": ()} if hasattr(base, "__slots__") else {}
    for name in dir(base):
        if name in _KEEP:
            continue
        attr = getattr(base, name)
        if isinstance(attr, (property, type(dt.datetime.year), type(uuid.UUID.int))):
            namespace[name] = _raising_property(name)
        elif callable(attr):
            namespace[name] = _raising_method(name)
        # a plain class attribute (a typed int's ``bits``, ``min``) is the type's, kept
    for name in ("__bytes__", "__int__", "__float__", "__index__", "__complex__",
                 "__round__", "__trunc__", "__floor__", "__ceil__", "__len__", "__iter__",
                 "__buffer__", "__fspath__", "__str__", "__repr__", "__format__"):
        namespace.setdefault(name, _raising_method(name))
    return type(f"Hostile{base.__name__}", (base,), namespace)


def _hostile(base: type, plain: Any) -> tuple[Any, Any]:
    """*plain* and a hostile subclass instance of *base* holding the same value."""
    return plain, base.__new__(hostile_class(base), plain)


_UUID_INT = 0x1234_5678_9ABC_DEF0_0FED_CBA9_8765_4321


def _uuid(cls: type) -> Any:
    u = object.__new__(cls)
    uuid.UUID.__dict__["int"].__set__(u, _UUID_INT)
    uuid.UUID.__dict__["is_safe"].__set__(u, uuid.SafeUUID.unknown)
    return u


def _float32(cls: type) -> Any:
    f = float.__new__(cls, 1.5)
    Float32.__dict__["bits"].__set__(f, Float32(1.5).bits)
    return f


def _stamp(cls: type, tr_version: bytes | None) -> Any:
    v = object.__new__(cls)
    Versionstamp.__dict__["tr_version"].__set__(v, tr_version)
    Versionstamp.__dict__["user_version"].__set__(v, 7)
    return v


def _bytearray(plain: bytearray) -> Any:
    value = bytearray.__new__(hostile_class(bytearray))
    bytearray.__init__(value, plain)  # a bytearray's contents are set by __init__
    return value


def hostile_values() -> list[tuple[Any, Any]]:
    """(plain value, hostile subclass instance holding it) pairs; built afresh."""
    when = dt.datetime(2021, 3, 4, 5, 6, 7, 890123)
    pairs = [
        _hostile(int, 5), _hostile(int, -7), _hostile(int, 0), _hostile(int, 2**63),
        _hostile(int, 2**64 + 3), _hostile(int, -(10**30)),
        _hostile(float, 2.5), _hostile(float, -0.0), _hostile(float, float("nan")),
        _hostile(float, float("-inf")), _hostile(float, 1e300), _hostile(float, 0.1),
        _hostile(str, "héllo\x00"), _hostile(str, ""), _hostile(str, "\ud800"),
        _hostile(bytes, b"a\x00\xffb"), _hostile(bytes, b""),
        (bytearray(b"xy\x00"), _bytearray(bytearray(b"xy\x00"))),
        _hostile(Decimal, Decimal("-12.5")), _hostile(Decimal, Decimal("1E+40")),
        _hostile(Decimal, Decimal("NaN")), _hostile(Decimal, Decimal("0")),
        _hostile(Decimal, Decimal("7")),
        (when, dt.datetime.__new__(hostile_class(dt.datetime), 2021, 3, 4, 5, 6, 7, 890123)),
        (when.replace(tzinfo=dt.UTC),
         dt.datetime.__new__(hostile_class(dt.datetime), 2021, 3, 4, 5, 6, 7, 890123,
                             tzinfo=dt.UTC)),
        (dt.date(2021, 3, 4), dt.date.__new__(hostile_class(dt.date), 2021, 3, 4)),
        (dt.timedelta(days=2, microseconds=5),
         dt.timedelta.__new__(hostile_class(dt.timedelta), days=2, microseconds=5)),
        (uuid.UUID(int=_UUID_INT), _uuid(hostile_class(uuid.UUID))),
        (Float32(1.5), _float32(hostile_class(Float32))),
        (Versionstamp(b"\x01" * 10, 7), _stamp(hostile_class(Versionstamp), b"\x01" * 10)),
        *((cls(3), int.__new__(hostile_class(cls), 3)) for cls in INT_TYPES.values()),
        ((1, "a"), tuple.__new__(hostile_class(tuple), (1, "a"))),
        ((), tuple.__new__(hostile_class(tuple), ())),
        ([2.5, b"x"], _list([2.5, b"x"])),
    ]
    return pairs


def _list(plain: list[Any]) -> Any:
    value = list.__new__(hostile_class(list))
    list.__init__(value, plain)
    return value


def _schemas(name: str) -> list[KeySchema | None]:
    codec = get_codec(name)
    caps = codec.capabilities
    out: list[KeySchema | None] = [None] if caps.schemaless else []
    for t in sorted(caps.field_types):
        out.append(KeySchema.parse(f"v:{t}"))
        if caps.descending:
            out.append(KeySchema.parse(f"v:{t} desc"))
    return out


def _sample(field_type: str) -> Any:
    """A plain value of *field_type*."""
    if field_type in INT_TYPES:
        return INT_TYPES[field_type](3)
    return {"string": "s", "bytes": b"b", "bool": True, "float32": Float32(1.5),
            "float64": 1.5, "decimal": Decimal("1.5"), "uuid": uuid.UUID(int=3),
            "timestamp": dt.datetime(2020, 1, 1, tzinfo=dt.UTC),
            "duration": dt.timedelta(seconds=3), "tuple": (1,)}.get(field_type, 3)


def _outcome(op: Callable[[], Any]) -> tuple[Any, ...]:
    try:
        return ("ok", op())
    except LexCodecError as exc:
        str(exc)  # formatting the message must not call the hostile methods either
        repr(exc)
        return ("error", type(exc))


def _ops(codec: Any, schema: KeySchema | None
         ) -> Iterator[tuple[str, Callable[[Any], Any]]]:
    if schema is None:
        yield "encode", lambda v: codec.encode((v,))
        yield "encode-two", lambda v: codec.encode([v, v])
        yield "prefix_range", lambda v: codec.prefix_range((v,))
        yield "nested", lambda v: codec.encode([1, (v, [v])])
        return
    bound = codec.bind(schema)
    yield "encode", lambda v: codec.encode((v,), schema)
    yield "bound", lambda v: bound.encode((v,))
    yield "prefix_range", lambda v: codec.prefix_range((v,), schema)
    two = KeySchema.parse(f"{schema}, w:{schema.fields[0].type}")
    yield "encode-two", lambda v: codec.encode((v, v), two)
    if schema.fields[0].type == "tuple":
        yield "nested", lambda v: codec.encode(((v, [v]),), schema)


@pytest.mark.parametrize("name", CODECS)
def test_hostile_subclasses_are_written_as_their_plain_type(name: str) -> None:
    codec = get_codec(name)
    failures = []
    for schema in _schemas(name):
        for label, op in _ops(codec, schema):
            for i, (plain, value) in enumerate(hostile_values()):
                expected = _outcome(lambda o=op, p=plain: o(p))
                try:
                    got = _outcome(lambda o=op, v=value: o(v))
                except Exception as exc:
                    failures.append(f"{schema} {label} #{i} {type(plain).__name__}: "
                                    f"{type(exc).__name__} {exc!s:.100} escaped")
                    continue
                if got != expected:
                    failures.append(f"{schema} {label} #{i} {type(plain).__name__}: "
                                    f"got {got!r:.120}, the plain value gives {expected!r:.120}")
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:60])


@pytest.mark.parametrize("container", [tuple, list])
@pytest.mark.parametrize("name", CODECS)
def test_hostile_key_containers_are_read_as_plain(name: str, container: type) -> None:
    """The values of a key in a tuple or list subclass whose methods raise are read as the
    plain tuple or list."""
    codec = get_codec(name)
    failures = []
    for schema in _schemas(name):
        plain = (3 if schema is None else _sample(schema.fields[0].type),)
        cls = hostile_class(container)
        value = tuple.__new__(cls, plain) if container is tuple else list.__new__(cls)
        if container is list:
            list.__init__(value, plain)
        ops = [lambda v: codec.encode(v), lambda v: codec.prefix_range(v)] if schema is None else [
            lambda v, s=schema: codec.encode(v, s), lambda v, s=schema: codec.bind(s).encode(v),
            lambda v, s=schema: codec.prefix_range(v, s)]
        for op in ops:
            expected = _outcome(lambda o=op, p=plain: o(container(p)))
            try:
                got = _outcome(lambda o=op, v=value: o(v))
            except Exception as exc:
                failures.append(f"{schema}: {type(exc).__name__} {exc!s:.100} escaped")
                continue
            if got != expected:
                failures.append(f"{schema}: got {got!r:.120}, plain gives {expected!r:.120}")
    assert not failures, "\n".join(failures)


def test_hostile_values_in_fdb_versionstamp_keys(impl: str) -> None:
    codec = get_codec("fdb-tuple")
    plain = Versionstamp(None, 7)
    hostile = _stamp(hostile_class(Versionstamp), None)
    for other, value in [(plain, hostile), *hostile_values()]:
        expected = _outcome(lambda p=other: codec.encode_with_versionstamp([plain, p]))
        assert _outcome(lambda v=value: codec.encode_with_versionstamp([hostile, v])) == expected


def test_hostile_values_in_sqlite4_index_keys(impl: str) -> None:
    """sqlite4's secondary-index keys: column values, the values' container and the data key."""
    index = SecondaryIndex("t", ["bin", "-int"])
    makes: list[Callable[[Any], Any]] = [
        lambda x: index.key([x, 5], b"/d"), lambda x: index.key([b"x", x], b"/d"),
        lambda x: index.range([x]), lambda x: index.range([b"x", x]),
        lambda x: index.key([b"x", 5], x), lambda x: index.key(x, b"/d"),
    ]
    pairs = [*hostile_values(), ("/d", str.__new__(hostile_class(str), "/d")),
             (b"/d", bytes.__new__(hostile_class(bytes), b"/d")),
             ((b"x", 5), tuple.__new__(hostile_class(tuple), (b"x", 5)))]
    for i, (plain, value) in enumerate(pairs):
        for j, make in enumerate(makes):
            expected = _outcome(lambda m=make, p=plain: m(p))
            assert _outcome(lambda m=make, v=value: m(v)) == expected, (i, j)


# -- item 8: a released memoryview given to a decoder ----------------------------------------


def _released() -> memoryview:
    view = memoryview(b"\x01\x02")
    view.release()
    return view


def _key_readers(owner: Any, schema: str) -> Iterator[tuple[str, Callable[[Any], Any]]]:
    """Every public method of *owner* (a codec or a bound schema) whose first parameter is a
    key, with the other arguments filled in."""
    for attr in dir(owner):
        if attr.startswith("_"):
            continue
        method = getattr(owner, attr)
        if not callable(method):
            continue
        try:
            params = list(inspect.signature(method).parameters)
        except (TypeError, ValueError):
            continue
        if not params or params[0] not in ("key", "data"):
            continue
        kwargs = {p: schema if p == "schema" else 0 for p in params[1:]
                  if p in ("schema", "field", "offset", "pos")}
        yield attr, lambda k, m=method, kw=kwargs: m(k, **kw)


def _decoders(name: str) -> Iterator[tuple[str, Callable[[Any], Any]]]:
    """Every way to decode a key: ``decode`` with and without a schema, bound decoders of
    every field type, and every other public method of the codec and of a bound schema that
    takes a key (``inspect``, ``parse``, ``skip``, ``field_offsets``, ``decode_from`` ...)."""
    codec = get_codec(name)
    schemas = [s for s in _schemas(name) if s is not None]
    yield from ((f"codec.{a}", f) for a, f in _key_readers(codec, str(schemas[0])))
    yield from ((f"bound.{a}", f) for a, f in _key_readers(codec.bind(schemas[0]),
                                                            str(schemas[0])))
    for schema in schemas:
        yield "decode", lambda k, s=schema: codec.decode(k, s)
        yield "bind.decode", lambda k, s=schema: codec.bind(s).decode(k)
    yield "decode without a schema", lambda k: codec.decode(k)


@pytest.mark.parametrize("name", CODECS)
def test_decoding_a_released_memoryview_is_a_decode_error(name: str) -> None:
    self_describing = get_codec(name).capabilities.decoding == "self-describing"
    checked = []
    for label, decode in _decoders(name):
        with pytest.raises((DecodeError, NotDecodableError)) as info:
            decode(_released())
        if info.type is NotDecodableError:  # a hook of a codec that needs a schema
            assert label == "codec.decode_schemaless", label
            assert not self_describing, label
            continue
        assert info.value.codec in (name, "lexkey"), label
        assert "released memoryview" in str(info.value), (label, str(info.value))
        checked.append(label)
    assert "decode" in checked
    assert "bind.decode" in checked


def test_other_key_readers_refuse_a_released_memoryview(impl: str) -> None:
    readers: list[Callable[[Any], Any]] = [
        parse_index_key, SecondaryIndex("t", ["bin"]).parse, lexkey_helpers.decode_primary_key,
        lexkey_helpers.to_hex, lexkey_helpers.to_json,
        lambda k: get_codec("fdb-tuple").decode(k, prefix=b""),
    ]
    for read in readers:
        with pytest.raises(DecodeError, match="released memoryview"):
            read(_released())


@pytest.mark.parametrize("name", CODECS)
def test_a_hostile_bytes_subclass_key_decodes_as_its_bytes(name: str) -> None:
    codec = get_codec(name)
    hostile = hostile_class(bytes)
    for schema in _schemas(name):
        if schema is None:
            continue
        try:
            key = codec.encode((_sample(schema.fields[0].type),), schema)
        except LexCodecError:
            continue
        for label, decode in _decoders(name):
            expected = _outcome(lambda d=decode, k=key: d(k))
            got = _outcome(lambda d=decode, k=key: d(bytes.__new__(hostile, k)))
            assert same(got, expected), label  # by bits: a key may hold a NaN


def test_hostile_text_and_bytes_in_lexkey_helpers(impl: str) -> None:
    """LexKey's key helpers read a str or bytes subclass by its own data."""
    text, data = hostile_class(str), hostile_class(bytes)
    h = lexkey_helpers
    calls: list[tuple[Callable[..., Any], tuple[Any, ...], tuple[Any, ...]]] = [
        *((h.from_hex, (t,), (text(t),)) for t in ("6162", "zz", "616")),
        *((h.from_json, (j,), (text(j),)) for j in ('"6162"', '"zz"', "null", "[")),
        (h.from_json, (b'"6162"',), (data(b'"6162"'),)),
        (h.primary_key, (b"a", b"b"), (data(b"a"), data(b"b"))),
        (h.range_key, (b"a", b"b", b"c"), (data(b"a"), data(b"b"), data(b"c"))),
        (h.decode_primary_key, (b"a\x00b",), (data(b"a\x00b"),)),
        (h.to_hex, (b"ab",), (data(b"ab"),)),
    ]
    for call, plain, hostile in calls:
        assert _outcome(lambda c=call, a=hostile: c(*a)) == \
            _outcome(lambda c=call, a=plain: c(*a)), (call.__name__, plain)


def test_hostile_fdb_tuple_prefixes(impl: str) -> None:
    """fdb-tuple's ``prefix=`` in a bytes subclass is read by its own bytes."""
    codec = get_codec("fdb-tuple")
    bound = codec.bind("a:int64")
    key = codec.encode((5,), prefix=b"pre")
    calls: list[Callable[[Any], Any]] = [
        lambda p: codec.encode((5,), prefix=p), lambda p: codec.decode(key, prefix=p),
        lambda p: codec.prefix_range((5,), prefix=p), lambda p: bound.encode((5,), prefix=p),
        lambda p: bound.decode(key, prefix=p), lambda p: bound.prefix_range((5,), prefix=p),
        lambda p: codec.encode_with_versionstamp((Versionstamp(None, 1),), prefix=p),
    ]
    for plain in (b"pre", b""):
        hostile = bytes.__new__(hostile_class(bytes), plain)
        for call in calls:
            assert _outcome(lambda c=call, h=hostile: c(h)) == \
                _outcome(lambda c=call, p=plain: c(p))


def test_key_parts_given_as_a_released_memoryview_are_encode_errors(impl: str) -> None:
    """A released memoryview where a key is built from bytes (a prefix, a schema name, a
    partition, a data key) is an EncodeError naming the codec, not a ValueError."""
    skv, fdb = get_codec("skv"), get_codec("fdb-tuple")
    writers: list[tuple[str, Callable[[Any], Any]]] = [
        ("skv", lambda m: skv.storage_key(m, (1,), "a:int64")),
        ("skv", lambda m: skv.storage_prefix_range(m, (), "a:int64")),
        ("fdb-tuple", lambda m: fdb.encode((1,), prefix=m)),
        ("fdb-tuple", lambda m: fdb.bind("a:int64").encode((1,), prefix=m)),
        ("lexkey", lambda m: lexkey_helpers.primary_key(m, b"r")),
        ("sqlite4", lambda m: SecondaryIndex("t", ["bin"]).key([b"x"], m)),
        ("sqlite4", lambda m: SecondaryIndex("t", ["bin"]).key([m], b"/d")),
    ]
    for name, write in writers:
        with pytest.raises(EncodeError) as info:
            write(_released())
        assert info.value.codec == name
        assert "released memoryview" in str(info.value)
    for name in CODECS:  # and a released memoryview as a bytes field's value
        codec = get_codec(name)
        if "bytes" in codec.capabilities.field_types:
            with pytest.raises(EncodeError):
                codec.encode((_released(),), "v:bytes")
