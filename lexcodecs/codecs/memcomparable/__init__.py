"""``memcomparable``: RisingWave's memcomparable crate 0.2.0, the serde key format of
RisingWave and GreptimeDB, byte-identical with the crate.

The package, one job per module: ``format.py`` (the format as constants and tables, with the
theory of operation), ``reference_encode.py`` and ``reference_decode.py`` (the readable
encoder and decoder, the executable spec), ``codec.py`` (:class:`MemcomparableCodec`:
capabilities, field options, binding), ``explain.py`` (``inspect``), ``anomalies.py`` (the
declared anomalies), ``_layout.pxi`` and ``_compiled.pyx`` (the same work in Cython).
"""

from __future__ import annotations

from .codec import CAPABILITIES, BoundMemcomparable, MemcomparableCodec
from .reference_encode import encode_bytes, encode_decimal

__all__ = ["CAPABILITIES", "BoundMemcomparable", "MemcomparableCodec", "encode_bytes",
           "encode_decimal"]
