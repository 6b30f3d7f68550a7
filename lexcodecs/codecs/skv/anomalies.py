"""The declared anomalies of ``skv``: where its keys knowingly depart from what K2 reads.

Theory of operation: both are layout facts of the lexcodecs extensions (``interop``: no
witness pair; the vectors show the bytes). Byte order and value order never disagree in
``skv``, so there is no ``order`` or ``collision`` anomaly to declare.
"""

from __future__ import annotations

from typing import Final

from ...codec import Anomaly

ANOMALIES: Final[tuple[Anomaly, ...]] = (
    Anomaly("k2-cannot-read-floats", "interop",
            "float32/float64 fields (types 08/09) are a lexcodecs extension: K2 throws "
            "FieldNotSupportedAsKeyException for them, so K2 cannot read such keys"),
    Anomaly("k2-cannot-read-descending", "interop",
            "descending fields (inverted type bytes f5..fe) are a lexcodecs extension: "
            "K2 stores every key field ascending and cannot read such keys"),
)
