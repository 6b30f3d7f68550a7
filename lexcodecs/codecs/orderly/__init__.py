"""``orderly``: Orderly's HBase row keys, byte-identical with the Java library (quirks included).

The package, one module per job (the format itself is described in ``format.py``):

* ``format.py``: the theory of operation, the constants and tables;
* ``reference_field.py`` (the base class), ``reference_numbers.py``, ``reference_decimal.py``
  and ``reference_bytes.py``: the field codecs in readable Python, the executable spec, one
  module per value type (each field codec writes and reads its type);
* ``bound.py``: the struct of a bound schema (terminations, the ``RowKey`` operations);
* ``codec.py``: :class:`OrderlyCodec`: options, capabilities, schema checks, binding;
* ``_compiled.pyx``: the compiled ``encode``/``decode`` of a bound schema;
* ``explain.py``: ``inspect``, a reference decode whose readers report each part to a sink,
  worded there; ``anomalies.py``: the declared quirks.
"""

from __future__ import annotations

from .bound import BoundOrderly
from .codec import OrderlyCodec
from .format import TERMINATIONS, VARINTS, VarIntLayout

__all__ = [
    "TERMINATIONS",
    "VARINTS",
    "BoundOrderly",
    "OrderlyCodec",
    "VarIntLayout",
]
