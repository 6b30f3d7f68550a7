"""Repository-wide pytest set-up: hypothesis profiles, and ``import toys`` for tests.

Profiles: ``ci`` (the default: derandomized and bounded, so the whole suite stays within
minutes on two cores) and ``dev`` (more examples, random). Choose one with the environment
variable ``HYPOTHESIS_PROFILE``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent

for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=60,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("dev", max_examples=300, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
