"""Unit-test set-up lives in the repository's root ``conftest.py`` (profiles, sys.path);
here, fixtures that several test modules share."""

from __future__ import annotations

import types
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def fdb_impl_stub() -> Iterator[None]:
    """``fdb.impl`` with an empty ``Value`` class: fdb.tuple reads ``fdb.impl.Value`` to pack a
    versionstamp, and it exists only after ``fdb.api_version()``, never called here (it needs
    the C client). For the modules that test against fdb.tuple."""
    import fdb

    missing = object()
    saved = getattr(fdb, "impl", missing)
    if saved is missing:
        fdb.impl = types.SimpleNamespace(Value=type("Value", (), {}))
    try:
        yield
    finally:
        if saved is missing:
            del fdb.impl
        else:
            fdb.impl = saved
