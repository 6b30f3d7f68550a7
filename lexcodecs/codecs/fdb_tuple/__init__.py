"""``fdb-tuple``: the FoundationDB tuple layer, byte-identical with ``fdb.tuple`` (8.0.0).

The package, one job per module:

* ``format``: type codes, limits and per-type tables, with the format's theory of operation;
* ``reference_encode`` / ``reference_decode``: the readable Python encoder and decoder, the
  executable spec and the only code that shapes an error;
* ``codec``: :class:`FdbTupleCodec` (options, capabilities, the schemaless API, binding) and
  the module-level shortcuts;
* ``explain``: ``inspect``, the reference decoder run with an annotation sink;
* ``anomalies``: the declared anomalies (none);
* ``_compiled`` (``_compiled.pyx``, Cython): the same encoder and decoder, compiled, handing
  anything it does not take as its own to the reference code.
"""

from __future__ import annotations

from .codec import BoundTuple, FdbTupleCodec, decode, encode, encode_with_versionstamp, prefix_range

__all__ = ["BoundTuple", "FdbTupleCodec", "decode", "encode", "encode_with_versionstamp",
           "prefix_range"]
