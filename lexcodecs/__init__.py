"""lexcodecs: order-preserving binary keys, one protocol for many formats.

>>> from lexcodecs import KeySchema
>>> KeySchema.parse("tenant:string, ts:int64 desc").names
('tenant', 'ts')
"""

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
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Versionstamp,
)

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
    "KeySchema",
    "LexCodecError",
    "NotDecodableError",
    "Option",
    "OptionError",
    "Registry",
    "RegistryError",
    "SchemaError",
    "UInt8",
    "UInt16",
    "UInt32",
    "UInt64",
    "UnknownCodecError",
    "UnsupportedTypeError",
    "Versionstamp",
    "__version__",
    "available_codecs",
    "default_registry",
    "get_codec",
    "register_codec",
    "unregister",
]
