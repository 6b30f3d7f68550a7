"""``orderly``: Orderly's HBase row keys, byte-identical with the Java library (quirks included).

The package, one module per job (the format itself is described in ``format.py``):

* ``format.py``: the theory of operation, the constants and tables;
* ``reference.py``: the field codecs in readable Python, the executable spec;
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
