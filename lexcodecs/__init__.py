"""lexcodecs: order-preserving binary keys, one protocol for many formats.

A codec turns a tuple of values into bytes whose byte order is the values' order, and back.
Name one with :func:`get_codec` (``available_codecs()`` lists them, plugins included),
describe the key with a :class:`KeySchema` (``KeySchema.parse("tenant:string, ts:int64
desc")``, its grammar in ``help(KeySchema.parse)``), then ``codec.encode(values, schema)``,
``codec.decode(key, schema)`` and ``codec.prefix_range(prefix, schema)``; ``codec.bind(schema)``
gives the same operations bound to one schema, for speed. What a codec can express is in
``codec.capabilities``; every refusal is a :class:`LexCodecError` subclass saying where and
why.

>>> from lexcodecs import KeySchema, get_codec
>>> schema = KeySchema.parse("tenant:string, ts:int64 desc")
>>> get_codec("skv").encode(("acme", 7), schema).hex(" ")
'01 61 63 6d 65 00 01 fb fc ff ff ff ff ff ff ff f8 ff fe'

The public modules: :mod:`lexcodecs.codec` (the protocol), :mod:`lexcodecs.schema`,
:mod:`lexcodecs.types` (typed widths, ``Float32``, ``Versionstamp``), :mod:`lexcodecs.errors`,
:mod:`lexcodecs.registry`, :mod:`lexcodecs.model` (natural order), :mod:`lexcodecs.identification`
(which format and schema wrote some keys: :func:`identify`), :mod:`lexcodecs.inspection`
(every byte of a key explained), :mod:`lexcodecs.compare` (which codec for a schema and data),
:mod:`lexcodecs.sources` (records to compare; the HTML page of a comparison is
:mod:`lexcodecs.compare.html`), :mod:`lexcodecs.migrate` (moving stored keys
to another format), :mod:`lexcodecs.fdbtuple` (a drop-in for ``fdb.tuple``),
:mod:`lexcodecs.testing` (the conformance harness), :mod:`lexcodecs.codecs` (the built-in
formats) and :mod:`lexcodecs.cli` (the ``lexcodecs`` command). Modules whose names start with
``_`` (listed by ``help()`` among the package contents, as it lists every file) are private.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .codec import (
    Anomaly,
    BaseCodec,
    BoundCodec,
    BoundKey,
    Capabilities,
    Codec,
    FieldPlan,
    FloatPolicy,
    Option,
)
from .errors import (
    DecodeError,
    EncodeError,
    LexCodecError,
    NotDecodableError,
    OptionError,
    RegistryError,
    SchemaError,
    UnknownCodecError,
    UnsupportedTypeError,
)
from .registry import (
    Registry,
    available_codecs,
    default_registry,
    get_codec,
    register_codec,
    unregister,
)
from .schema import FIELD_TYPES, Field, KeySchema
from .types import (
    END,
    Float32,
    Int8,
    Int16,
    Int32,
    Int64,
    Int128,
    Some,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    UInt128,
    Versionstamp,
)

if TYPE_CHECKING:
    from .identification import Identification

__version__ = "0.1.0"

__all__ = [
    "END",
    "FIELD_TYPES",
    "Anomaly",
    "BaseCodec",
    "BoundCodec",
    "BoundKey",
    "Capabilities",
    "Codec",
    "DecodeError",
    "EncodeError",
    "Field",
    "FieldPlan",
    "Float32",
    "FloatPolicy",
    "Int8",
    "Int16",
    "Int32",
    "Int64",
    "Int128",
    "KeySchema",
    "LexCodecError",
    "NotDecodableError",
    "Option",
    "OptionError",
    "Registry",
    "RegistryError",
    "SchemaError",
    "Some",
    "UInt8",
    "UInt16",
    "UInt32",
    "UInt64",
    "UInt128",
    "UnknownCodecError",
    "UnsupportedTypeError",
    "Versionstamp",
    "__version__",
    "available_codecs",
    "default_registry",
    "get_codec",
    "identify",
    "register_codec",
    "unregister",
]


def identify(keys: Iterable[bytes], *, codecs: Sequence[str] | None = None,
             limit: int = 10) -> Identification:
    """Which codec and schema wrote *keys*: the candidates, best first, each with its
    confidence and evidence (:func:`lexcodecs.identification.identify`, imported on first
    use; ``docs/identify.md`` says how it decides)."""
    from .identification import identify as run

    return run(keys, codecs=codecs, limit=limit)
