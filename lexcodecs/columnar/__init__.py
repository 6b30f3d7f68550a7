"""Columnar encoding: keys for a whole Arrow table at once (the ``arrow`` extra, pyarrow).

:func:`encode_arrow` turns the key columns of a ``pyarrow.Table`` or ``RecordBatch`` into one
``pyarrow.BinaryArray`` of keys, byte-identical to the row API (``codec.bind(schema).encode``);
:func:`decode_arrow` turns such keys back into typed columns. See ``docs/columnar.md``.
"""

from .arrow import INSTALL_HINT, arrow_type_for, decode_arrow, encode_arrow, kernel_available

__all__ = ["INSTALL_HINT", "arrow_type_for", "decode_arrow", "encode_arrow", "kernel_available"]
