"""``sqlite4``: the SQLite4 key encoding, byte-identical with the 2019 trunk ``vdbecodec.c``.

The package, top-down: ``format.py`` (the format's constants and tables, with the theory of
operation), ``reference_encode.py`` and ``reference_decode.py`` (the readable encoder and
decoder: the executable spec, the only code that shapes an error), ``codec.py`` (the codec,
its options and capabilities, and the binding of a schema into a plan), ``_compiled.pyx`` (the
same plan, compiled; it hands anything unusual to the reference), ``explain.py`` (``inspect``:
a reference decode with an annotation sink), ``anomalies.py`` (the declared anomalies) and
``index.py`` (secondary-index keys on this encoding).
"""

from .anomalies import ANOMALIES
from .codec import CAPABILITIES, BoundSqlite4, Sqlite4Codec
from .format import EMPTY_PREFIX_STOP, HEADER_NAMES, MAX_INT_DIGITS
from .reference_decode import decode_number, decode_varint, read_binary_body, read_descending
from .reference_encode import encode_binary_body, encode_number, encode_varint

__all__ = [
    "ANOMALIES",
    "CAPABILITIES",
    "EMPTY_PREFIX_STOP",
    "HEADER_NAMES",
    "MAX_INT_DIGITS",
    "BoundSqlite4",
    "Sqlite4Codec",
    "decode_number",
    "decode_varint",
    "encode_binary_body",
    "encode_number",
    "encode_varint",
    "read_binary_body",
    "read_descending",
]
