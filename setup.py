"""Build of the compiled codec modules; everything else is in pyproject.toml.

Each built-in codec has one Cython module, ``lexcodecs/codecs/<name>/_compiled.pyx``, and they
share the inline machinery of ``lexcodecs/_engine.pxd``; ``lexcodecs/migrate/_compiled.pyx`` does
the migration's per-key work, and ``lexcodecs/columnar/_kernel.pyx`` writes the keys of whole
Arrow batches. The normal install builds them. Without a C compiler (or without Cython) the
build warns once and leaves them out, and lexcodecs runs its reference Python, with the same
results (``lexcodecs._impl`` warns again at run time).
``LEXCODECS_REQUIRE_COMPILED=1`` turns a failed build into an error: ``.ci/run`` sets it, so a
broken build cannot hide behind the reference code.
"""

from __future__ import annotations

import glob
import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
REQUIRE = bool(os.environ.get("LEXCODECS_REQUIRE_COMPILED"))


def _warn(message: str) -> None:
    if REQUIRE:
        raise SystemExit(f"lexcodecs: {message} (LEXCODECS_REQUIRE_COMPILED is set)")
    print(f"WARNING: lexcodecs: {message}; the reference Python code will run instead",
          file=sys.stderr)


class OptionalBuildExt(build_ext):
    """build_ext that skips a module it cannot compile, unless the build is required."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler at all
            _warn(f"the compiled codec modules were not built ({exc})")

    def build_extension(self, ext: Extension) -> None:
        if ext.name == "lexcodecs.columnar._kernel" and self.compiler.compiler_type == "unix":
            # The kernel's loops are fused builds (a writer x a way each) that rely on their
            # inline writers being inlined; at GCC's default growth budget for the module
            # any new loop made it stop inlining some writer somewhere (fdb-tuple's int32 +
            # float64 6.7 -> 8.9 ns a row, lexkey-legacy's uint32 + float32 6.5 -> 13.2).
            # GCC's option, whatever the compiler is called; one that refuses it builds the
            # kernel with its own defaults.
            plain = ext.extra_compile_args
            ext.extra_compile_args = [*plain, "--param=inline-unit-growth=200"]
            try:
                super().build_extension(ext)
                return
            except Exception:
                ext.extra_compile_args = plain
        try:
            super().build_extension(ext)
        except Exception as exc:
            _warn(f"{ext.name} was not built ({exc})")


def _extensions() -> list[Extension]:
    sources = sorted(glob.glob("lexcodecs/codecs/*/_compiled.pyx", root_dir=ROOT))
    sources.append("lexcodecs/migrate/_compiled.pyx")  # the migration's per-key work
    sources.append("lexcodecs/columnar/_kernel.pyx")  # keys of whole Arrow batches
    extensions = [
        Extension(source[:-len(".pyx")].replace("/", "."), [source],
                  extra_compile_args=["-O2"])
        for source in sources
    ]
    try:
        from Cython.Build import cythonize
    except ImportError:
        _warn("Cython is not installed, so the compiled codec modules were not built")
        return []
    return list(cythonize(extensions, compiler_directives={"language_level": 3},
                          include_path=[str(ROOT)], quiet=True))


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
