"""``charwise``: npm charwise 3.0.1, the text key encoding of level, byte-identical.

The package, one job per module:

* ``format``: the type characters, the number text, the escapes, with the format's theory
  of operation;
* ``reference_encode`` / ``reference_decode``: the readable Python encoder and strict
  decoder, the executable spec and the only code that shapes an error;
* ``lenient_decode``: charwise's own reading (spec §5), for the option
  ``reading="reference"``;
* ``codec``: :class:`CharwiseCodec` (the options ``array`` and ``reading``, capabilities,
  the schemaless API);
* ``explain``: ``inspect``, the reference decoder run with an annotation sink;
* ``anomalies``: the declared anomalies (string escapes, array item ends, NaN, -0).
"""

from __future__ import annotations

from .codec import CharwiseCodec

__all__ = ["CharwiseCodec"]
