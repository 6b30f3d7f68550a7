"""``hbase-orderedbytes``: Apache HBase ``OrderedBytes`` row keys, byte-identical with HBase 2.6.7.

The package, one job per module: ``format.py`` (the format as constants and tables, with the
theory of operation), ``reference_encode.py`` / ``reference_decode.py`` (the readable encoder
and decoder, the executable spec), ``codec.py`` (:class:`HBaseOrderedBytesCodec`: options,
capabilities, binding, ``api="struct"``), ``explain.py`` (``inspect``) and ``anomalies.py``
(the declared anomalies).
"""

from __future__ import annotations

from .codec import (
    CAPABILITIES,
    STRUCT_CAPABILITIES,
    BoundHBase,
    FieldCode,
    HBaseOrderedBytesCodec,
    field_code,
)
from .format import HEADER_NAMES, MAX_DIGITS
from .reference_encode import encode_varint

__all__ = [
    "CAPABILITIES",
    "HEADER_NAMES",
    "MAX_DIGITS",
    "STRUCT_CAPABILITIES",
    "BoundHBase",
    "FieldCode",
    "HBaseOrderedBytesCodec",
    "encode_varint",
    "field_code",
]
