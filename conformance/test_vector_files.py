"""Every vector file loads with the public loader and is well formed, and no byte was edited.

The files in ``conformance/vectors`` are copies of the shared vectors (``../shared/vectors``
next to the repository, when present): they must stay byte-identical to them.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import pytest

from lexcodecs import available_codecs
from lexcodecs.testing.vectors import VectorCase, VectorFile, load_vectors

HERE = Path(__file__).resolve().parent
VECTORS_DIR = HERE / "vectors"
REPO_ROOT = HERE.parent
SHARED_DIR = REPO_ROOT.parent / "shared" / "vectors"

FILES = sorted(VECTORS_DIR.glob("*.json"))
LOWER_HEX = re.compile(r"(?:[0-9a-f]{2})*\Z")

by_file = pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])


def test_there_are_vector_files() -> None:
    assert FILES, f"no vector files in {VECTORS_DIR}"


@functools.cache
def vector_file(path: Path) -> VectorFile:
    """Each file is parsed once per session, whichever test asks first."""
    return load_vectors(path)


def with_raw(path: Path) -> list[tuple[VectorCase, dict[str, Any]]]:
    vf = vector_file(path)
    return list(zip(vf.cases, vf.raw["cases"], strict=True))


@by_file
def test_codec_matches_file_name(path: Path) -> None:
    vf = vector_file(path)
    assert vf.codec == path.stem
    assert vf.path == path


@by_file
def test_has_cases(path: Path) -> None:
    vf = vector_file(path)
    assert len(vf.cases) > 0
    assert len(vf.cases) == len(vf.raw["cases"])
    assert [c.index for c in vf.cases] == list(range(len(vf.cases)))


@by_file
def test_every_case_loads(path: Path) -> None:
    for case in vector_file(path).cases:
        if case.values is None:
            # the only reasons a case has no values: Python cannot hold nanoseconds, or an
            # error case whose value lexcodecs already refuses when it is built (Int8(128))
            if case.skip_reason is not None:
                assert "nanoseconds" in case.skip_reason, case.id
            else:
                assert case.build_error is not None, case.id
                assert case.error is not None, case.id
        else:
            assert case.skip_reason is None, case.id
            assert case.build_error is None, case.id
            assert len(case.values) == len(case.value_json), case.id


@by_file
def test_exactly_one_of_hex_and_error(path: Path) -> None:
    for case, raw in with_raw(path):
        assert ("hex" in raw) != ("error" in raw), case.id
        assert (case.key is None) == (case.error is not None), case.id
        if "error" in raw:
            assert isinstance(raw["error"], str), case.id
            assert raw["error"], case.id


@by_file
def test_hex_is_lowercase_even_length(path: Path) -> None:
    for case, raw in with_raw(path):
        if "hex" in raw:
            assert isinstance(raw["hex"], str), case.id
            assert LOWER_HEX.match(raw["hex"]), case.id
            assert case.key == bytes.fromhex(raw["hex"]), case.id


@by_file
def test_schema_matches_values(path: Path) -> None:
    for case, raw in with_raw(path):
        if "fields" not in raw:
            assert case.schema is None, case.id
            continue
        assert case.schema is not None, case.id
        assert len(case.schema) == len(raw["fields"]), case.id
        if case.error is None:
            # an error case may give the wrong number of values on purpose ("1 value for 2
            # fields"); a case with bytes may not
            assert len(case.schema) == len(case.value_json), case.id


@by_file
def test_identical_to_shared_copy(path: Path) -> None:
    if not SHARED_DIR.is_dir():
        pytest.skip(f"no shared vectors at {SHARED_DIR}")
    shared = SHARED_DIR / path.name
    assert shared.is_file(), f"{path.name} is not among the shared vectors"
    assert path.read_bytes() == shared.read_bytes(), (
        f"{path} differs from {shared}: vector files are copies and must not be edited")


#: shared vector files of codecs not built yet (the five formats of issue 34); each is copied
#: here, byte for byte, in the change that registers its codec
AWAITING_CODEC: set[str] = set()


def test_same_files_as_shared() -> None:
    if not SHARED_DIR.is_dir():
        pytest.skip(f"no shared vectors at {SHARED_DIR}")
    shared = sorted(p.name for p in SHARED_DIR.glob("*.json"))
    assert [p.name for p in FILES] == [name for name in shared if name not in AWAITING_CODEC]
    assert set(shared) >= AWAITING_CODEC


def test_awaited_codecs_are_not_registered() -> None:
    # once a codec of an awaited file is registered, its vectors must be copied and tested
    registered = set(available_codecs())
    assert not {name.removesuffix(".json") for name in AWAITING_CODEC} & registered
