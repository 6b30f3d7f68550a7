"""``orderedcode``: Google's ``github.com/google/orderedcode`` keys, byte-identical with its
``Append`` and read as its ``Parse`` reads.

The package, one job per module: ``format.py`` (the format as constants and tables, with the
theory of operation), ``reference_encode.py`` and ``reference_decode.py`` (the readable encoder
and decoder, the executable spec), ``codec.py`` (:class:`OrderedCodeCodec`: field options,
capabilities, binding), ``explain.py`` (``inspect``) and ``anomalies.py`` (the declared
anomalies).
"""

from __future__ import annotations

from .codec import CAPABILITIES, BoundOrderedCode, OrderedCodeCodec
from .format import INFINITY_BYTES, TERMINATOR, FieldCode

__all__ = [
    "CAPABILITIES",
    "INFINITY_BYTES",
    "TERMINATOR",
    "BoundOrderedCode",
    "FieldCode",
    "OrderedCodeCodec",
]
