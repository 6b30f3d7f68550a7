"""``bytewise``: npm bytewise 1.1.0 (bytewise-core 1.2.3), the LevelDB key encoding.

The package, one job per module:

* ``format``: the type tags, escapes and limits, with the format's theory of operation;
* ``reference_encode`` / ``reference_decode``: the readable Python encoder and the strict
  decoder, the executable spec and the only code that shapes an error;
* ``lenient_decode``: bytewise's own reading (spec §7), for the option
  ``reading="reference"``;
* ``codec``: :class:`BytewiseCodec` (the options ``array`` and ``reading``, capabilities,
  the schemaless API, binding);
* ``explain``: ``inspect``, the reference decoder run with an annotation sink;
* ``anomalies``: the declared anomalies (-0, lone surrogates, several values as one array,
  bare strings, the collation notes).
"""

from __future__ import annotations

from .codec import BytewiseCodec

__all__ = ["BytewiseCodec"]
