"""``lexkey`` and ``lexkey-legacy``: LexKey, byte-identical with the Go reference.

The package, one module per job: :mod:`.format` (the byte format's constants and per-type
tables, with the theory of operation), :mod:`.reference_encode`, :mod:`.reference_decode` and
:mod:`.bound` (the readable encoder, readers and bound schema: the executable spec),
:mod:`.codec` (options, capabilities, binding), :mod:`.helpers` (the Go library's helpers on
encoded keys), :mod:`.explain` (``inspect``), :mod:`.anomalies` (the declared anomalies) and
``_compiled.pyx`` (the same work compiled, for every type).
"""

from __future__ import annotations

from .anomalies import ANOMALIES, GO_NAN_ANOMALIES, LEGACY_ANOMALIES
from .codec import (
    CAPABILITIES,
    LexKeyBase,
    LexKeyCodec,
    LexKeyLegacyCodec,
    encode_first,
    encode_last,
)
from .format import GO_NAN32, GO_NAN64, SEP, VARIABLE, WIDTHS
from .helpers import (
    decode_primary_key,
    from_hex,
    from_json,
    primary_key,
    range_key,
    to_hex,
    to_json,
)

__all__ = [
    "ANOMALIES",
    "CAPABILITIES",
    "GO_NAN32",
    "GO_NAN64",
    "GO_NAN_ANOMALIES",
    "LEGACY_ANOMALIES",
    "SEP",
    "VARIABLE",
    "WIDTHS",
    "LexKeyBase",
    "LexKeyCodec",
    "LexKeyLegacyCodec",
    "decode_primary_key",
    "encode_first",
    "encode_last",
    "from_hex",
    "from_json",
    "primary_key",
    "range_key",
    "to_hex",
    "to_json",
]
