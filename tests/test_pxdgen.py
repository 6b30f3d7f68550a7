"""The build's generator of each format's table for Cython (``lexcodecs/_pxdgen.py``): which
assignments of a ``format.py`` become constants, and the ``_format.pxd`` text."""

from __future__ import annotations

import shutil
from pathlib import Path

from lexcodecs import _pxdgen, centimal, pieces
from lexcodecs.codecs.sqlite4 import format as sqlite4_format
from lexcodecs.registry import BUILTIN_CODECS

SOURCE = '''
from typing import Final
NAME: Final = "x"
NULL, ONE = 0x05, 1
KIND_A, KIND_B, KIND_C = range(3)
TOP: Final = 2**64 - 1
LOW: Final = -(2**63)
NEG: Final = -7
SUM: Final = ONE + NULL * 2
TABLE: Final = {1: 2}
_PRIVATE: Final = 9
BYTES: Final = b"\\x00"
A, B = 1, "two"
BIG: Final = 2 ** 100000
LATER = UNKNOWN + 1
'''


def test_the_integer_assignments_become_constants_and_nothing_else() -> None:
    assert _pxdgen.constants(SOURCE) == {
        "NULL": 5, "ONE": 1, "KIND_A": 0, "KIND_B": 1, "KIND_C": 2, "TOP": 2**64 - 1,
        "LOW": -(2**63), "NEG": -7, "SUM": 11, "A": 1,
    }


def test_the_pxd_text() -> None:
    text = _pxdgen.pxd_text("toy", _pxdgen.constants(SOURCE))
    assert text.startswith(_pxdgen.HEADER)
    assert "    NULL_ = 5\n" in text  # a name Cython reserves
    assert "    KIND_C = 2\n" in text
    assert "    NEG = -7\n" in text
    assert "#define LEXCODECS_TOY_TOP 18446744073709551615ULL" in text
    assert 'const unsigned long long TOP "LEXCODECS_TOY_TOP"' in text
    assert "#define LEXCODECS_TOY_LOW (-9223372036854775807LL - 1)" in text
    assert 'const long long LOW "LEXCODECS_TOY_LOW"' in text


def test_a_constant_beyond_64_bits_stays_python() -> None:
    text = _pxdgen.pxd_text("toy", _pxdgen.constants("HUGE = 10**30\nLOWEST = -(2**63) - 1\n"))
    assert "HUGE" not in text
    assert "LOWEST" not in text


def test_a_format_table_holds_what_its_module_says() -> None:
    """sqlite4's header bytes and kinds, and the number's it shares with HBase
    (``centimal.py``), as the compiled modules cimport them; a name a format takes from the
    shared table is generated once, there."""
    values = _pxdgen.constants(Path(sqlite4_format.__file__).read_text(encoding="utf-8"))
    for name in ("NULL", "NAN", "KIND_FINAL", "MEDIUM_MIN_E"):
        assert values[name] == getattr(sqlite4_format, name), name
    shared = _pxdgen.constants(Path(centimal.__file__).read_text(encoding="utf-8"))
    for name in ("POS_MEDIUM", "NEG_MEDIUM", "VARINT_2", "VARINT_3_FIRST", "VARINT_MAX"):
        assert shared[name] == getattr(centimal, name), name
        assert name not in values, name
    assert sqlite4_format.POS_MEDIUM is centimal.POS_MEDIUM


def test_every_table_is_generated() -> None:
    """Each codec's ``format.py`` and each shared table, beside its ``.pxd``."""
    root = Path(_pxdgen.__file__).resolve().parent.parent
    found = {name: (source.relative_to(root).as_posix(), target.relative_to(root).as_posix())
             for name, source, target in _pxdgen.tables(root)}
    assert found["sqlite4"] == ("lexcodecs/codecs/sqlite4/format.py",
                                "lexcodecs/codecs/sqlite4/_format.pxd")
    assert found["centimal"] == ("lexcodecs/centimal.py", "lexcodecs/_centimal_format.pxd")
    assert found["pieces"] == ("lexcodecs/pieces.py", "lexcodecs/_pieces_format.pxd")
    # one table per codec package (lexkey's serves lexkey and lexkey-legacy)
    packages = {target.split(":")[0] for target in BUILTIN_CODECS.values()}
    assert len(found) == len(packages) + len(_pxdgen.SHARED)


def test_only_a_changed_table_is_written(tmp_path: Path) -> None:
    """An unchanged format rewrites nothing (Cython would recompile what depends on it)."""
    root = Path(_pxdgen.__file__).resolve().parent.parent
    package = tmp_path / "lexcodecs" / "codecs" / "toy"
    package.mkdir(parents=True)
    shutil.copy(root / "lexcodecs" / "codecs" / "skv" / "format.py", package / "format.py")
    assert _pxdgen.write_all(tmp_path) == [package / "_format.pxd"]
    assert _pxdgen.write_all(tmp_path) == []
    (package / "format.py").write_text((package / "format.py").read_text() + "\nEXTRA = 3\n")
    assert _pxdgen.write_all(tmp_path) == [package / "_format.pxd"]
    assert "    EXTRA = 3\n" in (package / "_format.pxd").read_text()


def test_the_kernels_writers_and_flags_are_the_pieces_table() -> None:
    """The columnar kernel's writer kinds and flags are generated from ``pieces.py``: every
    name a declaration uses (``WRITERS``, ``FLAGS``) is a constant the kernel cimports, with
    the same value, and the writers are numbered integers first, then floats (the kernel
    dispatches by ``<=``)."""
    values = _pxdgen.constants(Path(pieces.__file__).read_text(encoding="utf-8"))
    assert {v for n, v in values.items() if n.startswith("W_") and "LAST" not in n} == \
        set(pieces.WRITERS.values())
    assert {v for n, v in values.items() if n.startswith("F_")} == set(pieces.FLAGS.values())
    assert max(pieces.INT_WRITERS) < min(pieces.FLOAT_WRITERS)
    assert values["W_LAST_INT"] == max(pieces.INT_WRITERS)
    assert values["W_LAST_FLOAT"] == max(pieces.FLOAT_WRITERS)
    kernel = (Path(pieces.__file__).parent / "columnar" / "_kernel.pyx").read_text()
    assert "from lexcodecs._pieces_format cimport" in kernel
    for name in ("W_BE", "W_BYTES", "F_INVERT", "MAX_PIECE"):
        assert f"    {name} = " not in kernel, name  # not typed again in the kernel
