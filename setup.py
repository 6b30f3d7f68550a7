"""Build of the compiled codec modules; everything else is in pyproject.toml.

Each built-in codec has one Cython module, ``lexcodecs/codecs/<name>/_compiled.pyx``, and they
share the inline machinery of ``lexcodecs/_engine.pxd``; each cimports its format's constants
from the ``_format.pxd`` written here first from its ``format.py`` (``lexcodecs/_pxdgen.py``).
``lexcodecs/migrate/_compiled.pyx`` does the migration's per-key work, and
``lexcodecs/columnar/_kernel.pyx`` writes the keys of whole Arrow batches. The normal install
builds them. Without a C compiler (or without Cython) the build warns once and leaves them
out, and lexcodecs runs its reference Python, with the same results (``lexcodecs._impl`` warns
again at run time).
``LEXCODECS_REQUIRE_COMPILED=1`` turns a failed build into an error: ``.ci/run`` sets it, so a
broken build cannot hide behind the reference code.

The build is parallel: Cython translates the modules in worker processes, and build_ext
compiles them on every CPU, largest first (pip runs it without ``-j``; a ``-j N`` given to
``setup.py build_ext`` still rules), without debug information (see :func:`_gcc_options`).
A fresh clone's ``setup.py build``, Cython included, on this project's 2-core host: 32-35 s
before, 15-16 s after.
"""

from __future__ import annotations

import glob
import os
import platform
import runpy
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
REQUIRE = bool(os.environ.get("LEXCODECS_REQUIRE_COMPILED"))


def _jobs() -> int:
    """How many modules to translate or compile at once: the CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _cython_jobs() -> int:
    """Worker processes for Cython: only forked ones, since a spawned worker would run this
    setup.py again (0: translate in this process)."""
    import multiprocessing

    return _jobs() if multiprocessing.get_start_method() == "fork" else 0


def _warn(message: str) -> None:
    if REQUIRE:
        raise SystemExit(f"lexcodecs: {message} (LEXCODECS_REQUIRE_COMPILED is set)")
    print(f"WARNING: lexcodecs: {message}; the reference Python code will run instead",
          file=sys.stderr)


class OptionalBuildExt(build_ext):
    """build_ext that skips a module it cannot compile, unless the build is required, and
    compiles the modules in parallel."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:  # no -j, as under pip: every CPU (in threads, each a cc)
            self.parallel = _jobs()

    def run(self) -> None:
        # the largest first, so that the last module to finish is a short one (the ten
        # modules' C files run from 0.6 to 1.8 MB, their compile times along)
        self.extensions = sorted(self.extensions or [], key=_c_size, reverse=True)
        try:
            super().run()
        except Exception as exc:  # no compiler at all
            _warn(f"the compiled codec modules were not built ({exc})")

    def build_extension(self, ext: Extension) -> None:
        if self.compiler.compiler_type == "unix":
            plain = ext.extra_compile_args
            debug = [] if self.debug or "-g" in os.environ.get("CFLAGS", "").split() else ["-g0"]
            kernel = ext.name == "lexcodecs.columnar._kernel"
            for options in [*_gcc_options(ext.name, kernel), []]:
                ext.extra_compile_args = [*plain, *debug, *options]
                try:
                    super().build_extension(ext)
                    return
                except Exception:
                    pass
            ext.extra_compile_args = plain
        try:
            super().build_extension(ext)
        except Exception as exc:
            _warn(f"{ext.name} was not built ({exc})")


def _c_size(ext: Extension) -> int:
    return sum(os.path.getsize(s) for s in ext.sources if os.path.exists(s))


#: the codec modules whose jumps are padded for the JCC erratum (see :func:`_gcc_options`)
JUMP_PADDED = frozenset({"lexcodecs.codecs.sqlite4._compiled"})


def _gcc_options(name: str, kernel: bool) -> list[list[str]]:
    """A module's extra compiler options, the sets to try in turn (a compiler that refuses
    one gets the next, then its own defaults). GCC's, whatever the compiler is called.
    ``build_extension`` puts ``-g0`` before them (Python's own flags ask for ``-g``): GCC's
    debug information never changes the code (every module's disassembly is the same with
    and without it), and writing it took over a quarter of the compile time (the ten
    modules 24.2 -> 17.5 s of CPU, the kernel 4.2 -> 2.9 s) and made the modules 5 to 7
    times larger (the kernel 1.27 MB -> 186 KB); ``--debug`` or ``-g`` in ``CFLAGS`` keeps
    it. The optimisation level stays ``-O2``, the modules' own (Python's is ``-O3``): no
    measurement here says another level pays.

    - The columnar kernel's loops are fused builds (a writer x a way each) that rely on
      their inline writers being inlined; at GCC's default growth budget for the module any
      new loop made it stop inlining some writer somewhere (fdb-tuple's int32 + float64
      6.7 -> 8.9 ns a row, lexkey-legacy's uint32 + float32 6.5 -> 13.2).
    - On x86-64, the kernel's code laid out for Intel's "JCC erratum": since its 2019
      microcode, a Skylake-derived core (this project's host, a Xeon with AVX-512) does not
      cache the decoded instructions of a 32-byte block where a jump crosses or ends on the
      boundary, so a loop's speed hung on where it happened to land. The assembler pads such
      jumps, and loops start on 32 bytes. Kernel alone, in turns, with the options and
      without: lexkey two int64 10.0 -> 6.3 ns a row, lexkey ``uint32 + float32`` 11.4 ->
      8.6, skv ``int64 desc`` with NULLs 7.3 -> 5.4, none slower beyond the noise (3%); and
      an unrelated change (sqlite4's two-value digit step) no longer moves other loops.
    - The codec modules start their loops on 32 bytes too (``-falign-loops=32``), and
      sqlite4's pads its jumps as well (:data:`JUMP_PADDED`): when sqlite4's writers moved
      to the shared layouts, its decode of ``s:string, b:int64`` went 95 -> 107 ns a key
      with no change to the reader's code, and its encode 74 -> 80 with loops aligned
      alone; with both, 91 and 72. The jump padding took ordered-binary's string decode
      183 -> 225 ns, so the other modules go without it (aligned alone: no row encode or
      decode of any codec slower than before the move, measured in turns).
    """
    padded = kernel or name in JUMP_PADDED
    inline = ["--param=inline-unit-growth=200"] if kernel else []
    layout = (["-Wa,-mbranches-within-32B-boundaries", "-falign-loops=32"] if padded
              else ["-falign-loops=32"])
    if platform.machine().lower() in ("x86_64", "amd64"):
        return [[*inline, *layout], inline] if inline else [layout]
    return [inline] if inline else []


def _format_tables() -> None:
    """Each format's ``_format.pxd``, written from its ``format.py`` (``lexcodecs/_pxdgen.py``,
    loaded by its path: the package itself needs more than a build has) before Cython runs:
    the compiled modules cimport their constants from it, so a format's table is written
    once."""
    runpy.run_path(str(ROOT / "lexcodecs" / "_pxdgen.py"))["write_all"](ROOT)


def _extensions() -> list[Extension]:
    _format_tables()
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
                          include_path=[str(ROOT)], quiet=True, nthreads=_cython_jobs()))


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
