"""Set-up for the conformance tests: ``import lexcodecs`` works from a source checkout.

``python -m pytest`` puts the working directory on ``sys.path``; plain ``pytest conformance``
does not, so the repository root is added here when lexcodecs is not installed.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))
