"""The declared anomalies of ``fdb-tuple``: none.

Theory of operation: an anomaly (:class:`~lexcodecs.codec.Anomaly`) is a place where byte
order and value order knowingly disagree, declared with a witness that the conformance harness
checks. The tuple layer has none to declare. Its order is its own and is claimed as such in the
capabilities rather than excused here: types order by type code first (every int below every
Float32 below every float), floats in IEEE total order (NaN payloads and -0.0 kept), and keys
are injective. It is not prefix-free (``(b"",)`` is ``01 00``, a proper prefix of
``(b"\\x00",)``, ``01 00 ff 00``), which the capabilities say with ``prefix_free=False``;
ranges stay exact because ``ff`` never starts an element.
"""

from __future__ import annotations

from typing import Final

from ...codec import Anomaly

__all__ = ["ANOMALIES"]

ANOMALIES: Final[tuple[Anomaly, ...]] = ()
