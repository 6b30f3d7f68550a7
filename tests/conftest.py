"""Shared set-up for the unit tests: ``import toys`` works, and hypothesis profiles.

Profiles: ``ci`` (the default; derandomized, quick) and ``dev`` (more examples). Choose one
with the environment variable ``HYPOTHESIS_PROFILE``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

TESTS_DIR = Path(__file__).resolve().parent


def _put_tests_on_path() -> None:
    path = str(TESTS_DIR)
    if path not in sys.path:
        sys.path.insert(0, path)


def register_hypothesis_profiles() -> None:
    """Register the ``ci`` and ``dev`` profiles and load the one ``HYPOTHESIS_PROFILE`` names.

    Independent of lexcodecs, so a repository-root conftest may call or copy it; registering
    a profile twice just replaces it.
    """
    settings.register_profile(
        "ci",
        derandomize=True,
        max_examples=60,
        deadline=None,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    settings.register_profile("dev", max_examples=300, deadline=None)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


_put_tests_on_path()
register_hypothesis_profiles()
