"""``storekey``: SurrealDB's storekey crate 0.5.0, the key format of every SurrealDB 2.x.

The package, one job per module: ``format.py`` (the format as constants and tables, with the
theory of operation), ``reference_encode.py`` and ``reference_decode.py`` (the readable encoder
and decoder, the executable spec), ``codec.py`` (:class:`StorekeyCodec`: field options,
capabilities, binding), ``explain.py`` (``inspect``), ``anomalies.py`` (the declared anomalies)
and the compiled engine (``_compiled.pyx``, its byte layout in ``_layout.pxi``).
"""

from __future__ import annotations

from .codec import CAPABILITIES, BoundStorekey, StorekeyCodec
from .format import FieldCode

__all__ = ["CAPABILITIES", "BoundStorekey", "FieldCode", "StorekeyCodec"]
