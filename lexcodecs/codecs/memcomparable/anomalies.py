"""The declared anomalies of ``memcomparable``: where its keys knowingly depart from the
values they were written from, or from what another reader expects.

Theory of operation: the float merges (-0.0 and +0.0 one key, every NaN one key above +inf)
are the codec's :class:`~lexcodecs.codec.FloatPolicy` (``nan="highest"``,
``negative_zero="equal"``), so they are not declared again here. A decimal's scale is not
stored (``1.0``, ``1.00`` and ``1`` are all ``18 02``, and decode as ``1``): the natural order
counts those as one value, so it is a layout fact, not a collision the harness could witness.
Byte order and value order never disagree otherwise, so every anomaly is ``interop``.
"""

from __future__ import annotations

from typing import Final

from ...codec import Anomaly

__all__ = ["ANOMALIES"]

ANOMALIES: Final[tuple[Anomaly, ...]] = (
    Anomaly("decimal-scale-not-stored", "interop",
            "a decimal's scale is not in the key: Decimal('1.0'), Decimal('1.00') and "
            "Decimal('1') are all 18 02, and decoding gives the shortest form (1.50 -> 1.5, "
            "100.00 -> 100, 0.000 -> 0), as the crate's deserialize_decimal does"),
    Anomaly("option-decimal-tag-is-a-convention", "interop",
            "Decimal has no serde impl, so an Option<Decimal> has no form the crate defines: "
            "a nullable decimal field takes the 00/01 tag serde's Option writes, which is "
            "what RisingWave writes around its datums"),
    Anomaly("decimal-nan-moved-in-0.2", "interop",
            "Decimal NaN is 24, above +Infinity (23), since crate 0.2.0; keys written by "
            "0.1.x hold NaN as 06, below -Infinity, and read differently"),
    Anomaly("lenient-like-the-crate", "interop",
            "decoding accepts what the crate's Deserializer accepts although no value "
            "encodes to it: non-zero padding after a last group's real bytes, NaN payloads "
            "(kept), decimal digits that are not minimal or not below 100; re-encoding such "
            "a key gives the canonical bytes"),
)
