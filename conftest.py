"""Repository-wide pytest set-up: hypothesis profiles, the ``impl`` fixture, ``import toys``.

``impl`` runs a test once on the compiled codec modules and once on the reference Python
(``lexcodecs._impl``), in the same pytest run, as cbor2's conftest does. A module opts in
with ``pytestmark = pytest.mark.usefixtures("impl")`` or by taking ``impl`` as an argument.
Where the compiled modules are not built the compiled run is skipped, unless
``LEXCODECS_REQUIRE_COMPILED`` is set (``.ci/run`` sets it): then it fails.

Profiles: ``ci`` (the default: derandomized and bounded, so the whole suite stays within
minutes on two cores) and ``dev`` (more examples, random). Choose one with the environment
variable ``HYPOTHESIS_PROFILE``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from lexcodecs import _impl

ROOT = Path(__file__).resolve().parent

for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))


# About 250 tests run ``python -m lexcodecs`` (or a migration child) in a subprocess, as a user
# would. Where PYTHONDONTWRITEBYTECODE is set (this project's CI image sets it), each of those
# interpreters compiled every lexcodecs module from source again: about 0.2 s of a 0.5 s start.
# The children write and reuse bytecode in a cache outside the tree instead (PEP 3147's
# PYTHONPYCACHEPREFIX; a .pyc is checked against its source's mtime and size, so a stale one is
# never used). This process itself is unchanged: both variables are read at interpreter start.
if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
    import tempfile

    os.environ.pop("PYTHONDONTWRITEBYTECODE")
    os.environ["PYTHONPYCACHEPREFIX"] = os.path.join(
        tempfile.gettempdir(), f"lexcodecs-test-pycache-{os.getuid()}")

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


@pytest.fixture(params=_impl.IMPLEMENTATIONS)
def impl(request: pytest.FixtureRequest) -> Iterator[str]:
    """The implementation in force for this test: ``"compiled"`` or ``"reference"``."""
    name: _impl.Implementation = request.param
    if name == "compiled" and not _impl.compiled_available():
        if os.environ.get(_impl.ENV_REQUIRE):
            pytest.fail(f"the compiled codec modules are not built and {_impl.ENV_REQUIRE} "
                        "is set")
        pytest.skip("the compiled codec modules are not built")
    with _impl.use(name):
        yield name
