"""``tidb``: TiDB/TiKV memcomparable datum keys (``util/codec``, ``tablecodec``).

The package, one job per module:

* ``format``: the flags, group markers, decimal and packed-time tables, with the format's
  theory of operation;
* ``reference_encode`` / ``reference_decode``: the readable Python encoder and the strict
  decoder, the executable spec and the only code that shapes an error;
* ``codec``: :class:`TidbCodec` (the options ``table_id``, ``index_id``, ``handle``; the
  field options ``precision``/``frac``; capabilities, binding, the schemaless decode);
* ``explain``: ``inspect``, the reference decoder run with an annotation list;
* ``anomalies``: the declared anomalies (-0.0, positive-sign NaNs, decimals without a fixed
  shape, the interop notes).
"""

from __future__ import annotations

from .codec import BoundTidb, TidbCodec

__all__ = ["BoundTidb", "TidbCodec"]
