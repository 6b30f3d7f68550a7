"""``ordered-binary``: npm ordered-binary 1.6.3, the key encoding of lmdb-js, byte-identical.

The package, one job per module:

* ``format``: control bytes, number lengths, the 8 KiB buffer's limits and :class:`JsSymbol`,
  with the format's theory of operation;
* ``reference_encode`` / ``reference_decode``: the readable Python encoder and decoder (the
  decoder reproduces lmdb-js's lossy reader), the executable spec and the only code that
  shapes an error;
* ``codec``: :class:`OrderedBinaryCodec` (the option ``array``, capabilities, the
  schemaless API);
* ``explain``: ``inspect``, the reference decoder run with an annotation sink;
* ``anomalies``: the declared anomalies (-0.0, long strings, raw bytes, flat arrays, what the
  reader normalises).
"""

from __future__ import annotations

from .codec import OrderedBinaryCodec
from .format import JsSymbol

__all__ = ["JsSymbol", "OrderedBinaryCodec"]
