"""How ``setup.py`` builds the compiled modules (issue 32: ``pip install .`` took 2 min 20 s on
2 cores): Cython and the C compiler run in parallel, largest module first, and without debug
information. Nothing is compiled here: setup.py runs with ``setup()``, ``cythonize`` and the
table writer stubbed, and the build_ext command is driven with a stand-in compiler.
"""

from __future__ import annotations

import multiprocessing
import os
import runpy
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from Cython import Build
from setuptools import Extension
from setuptools.command.build_ext import build_ext
from setuptools.dist import Distribution

ROOT = Path(__file__).resolve().parent.parent
JOBS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


@pytest.fixture
def setup_py(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """What setup.py hands to ``setup()``, and the keywords ``cythonize`` was called with."""
    seen: dict[str, Any] = {}

    def cythonize(extensions: list[Extension], **options: Any) -> list[Extension]:
        seen["cythonize"] = options
        for ext in extensions:  # as Cython leaves them: the C file for the .pyx
            ext.sources = [s.replace(".pyx", ".c") for s in ext.sources]
        return extensions

    real_run_path = runpy.run_path

    def run_path(path: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        if path.endswith("_pxdgen.py"):  # the tables are not rewritten in the repository
            return {"write_all": lambda root: None}
        return real_run_path(path, *args, **kwargs)

    monkeypatch.setattr(Build, "cythonize", cythonize)
    monkeypatch.setattr(runpy, "run_path", run_path)
    monkeypatch.setattr("setuptools.setup", lambda **kwargs: seen.update(kwargs))
    monkeypatch.chdir(ROOT)  # pip runs setup.py there: the sources are relative paths
    monkeypatch.delenv("CFLAGS", raising=False)
    real_run_path(str(ROOT / "setup.py"), run_name="__main__")
    return seen


def command(seen: dict[str, Any], **options: Any) -> Any:
    cmd = seen["cmdclass"]["build_ext"](Distribution({"ext_modules": seen["ext_modules"]}))
    cmd.initialize_options()
    for name, value in options.items():
        setattr(cmd, name, value)
    cmd.finalize_options()
    return cmd


def test_cython_translates_in_parallel(setup_py: dict[str, Any]) -> None:
    # in forked workers only: a spawned one would run setup.py again
    forked = multiprocessing.get_start_method() == "fork"
    assert setup_py["cythonize"]["nthreads"] == (JOBS if forked else 0)


def test_build_ext_compiles_on_every_cpu(setup_py: dict[str, Any]) -> None:
    assert command(setup_py).parallel == JOBS  # pip gives no -j
    assert command(setup_py, parallel=1).parallel == 1  # setup.py build_ext -j 1


def test_the_largest_module_is_compiled_first(setup_py: dict[str, Any],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    order: list[str] = []
    monkeypatch.setattr(build_ext, "run", lambda self: order.extend(
        e.sources[0] for e in self.extensions))
    command(setup_py).run()
    if not all(Path(source).exists() for source in order):
        pytest.skip("the C files are not generated in this checkout")
    sizes = [Path(source).stat().st_size for source in order]
    assert len(order) == len(setup_py["ext_modules"])
    assert sizes == sorted(sizes, reverse=True)


def compile_flags(setup_py: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
                  **options: Any) -> list[str]:
    """The extra compiler flags of the first attempt at building fdb-tuple's module."""
    tried: list[list[str]] = []
    monkeypatch.setattr(build_ext, "build_extension",
                        lambda self, ext: tried.append(list(ext.extra_compile_args)))
    cmd = command(setup_py, **options)
    cmd.compiler = SimpleNamespace(compiler_type="unix")
    ext = next(e for e in setup_py["ext_modules"] if e.name.endswith("fdb_tuple._compiled"))
    cmd.build_extension(ext)
    return tried[0]


def test_no_debug_information(setup_py: dict[str, Any],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    flags = compile_flags(setup_py, monkeypatch)
    assert flags[:2] == ["-O2", "-g0"]  # after Python's -g and -O3, so they win


def test_debug_information_when_asked(setup_py: dict[str, Any],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    assert "-g0" not in compile_flags(setup_py, monkeypatch, debug=1)
    monkeypatch.setenv("CFLAGS", "-g -Og")
    assert "-g0" not in compile_flags(setup_py, monkeypatch)
