"""``skv``: K2 SKV type-tagged keys, byte-identical with K2's encoder (chogori-platform).

The package, one job per module: ``format.py`` (the format as constants and tables, with the
theory of operation), ``reference_encode.py`` and ``reference_decode.py`` (the readable encoder
and decoder, the executable spec), ``codec.py`` (:class:`SkvCodec`: options, capabilities,
binding, the K2 key helpers), ``explain.py`` (``inspect``), ``anomalies.py`` (the declared
anomalies) and ``_compiled.pyx`` (the same work in Cython, for every type, order and NULL
placement).
"""

from __future__ import annotations

from .codec import CAPABILITIES, BoundSkv, SkvCodec
from .format import (
    DESC_TYPE_BYTES,
    EMPTY_PREFIX_STOP,
    NULL_FIRST,
    NULL_LAST,
    TERMINATOR,
    TYPE_BYTES,
)

__all__ = [
    "CAPABILITIES",
    "DESC_TYPE_BYTES",
    "EMPTY_PREFIX_STOP",
    "NULL_FIRST",
    "NULL_LAST",
    "TERMINATOR",
    "TYPE_BYTES",
    "BoundSkv",
    "SkvCodec",
]
