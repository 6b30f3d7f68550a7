"""Which implementation runs: the compiled codec modules or the reference Python.

Theory of operation: every built-in codec exists twice, from one set of tables. The
reference encoder and decoder are readable Python, always present: they are the executable
spec and the only code that shapes an error. The compiled module
``lexcodecs/codecs/<package>/_compiled.pyx`` (Cython 3, built by the normal install) does
the same work for every field type and order the codec supports, and hands anything it does
not take as its own (a subclass, a tampered object, a refusal) to the reference path for the
whole key, so both give the same bytes and the same errors.

The migration's per-key work (:mod:`lexcodecs.migrate.kernel`) has its compiled twin too,
``lexcodecs/migrate/_compiled.pyx``, found by :func:`compiled_module` (:data:`OTHER_MODULES`).

A codec asks :func:`compiled` for its module when it binds a schema; the answer depends on
:data:`current`, which is ``"compiled"`` when the modules are built and ``"reference"``
otherwise. Tests and benchmarks switch it with :func:`use` (the ``impl`` fixture runs a test
on both); the bind caches are kept per implementation, so a switch never serves a plan bound
under the other one.

Environment: ``LEXCODECS_PURE=1`` runs the reference code even when the modules are built;
``LEXCODECS_REQUIRE_COMPILED=1`` (set by ``.ci/run``) turns a missing module into an error
instead of a warning, so a broken build cannot hide behind the reference code.

A missing module is a :class:`CompiledUnavailableWarning`, once a process, whose one line says
what is missing, what runs instead and how to get the modules. pip shows nothing of a build
that succeeds, even one that left the modules out, so this is where a user learns of it; it is
charged to the first line of the user's code on the stack (not to this module, whose source
line would mean nothing to them), and the command line prints it as one line of its own.
"""

from __future__ import annotations

import importlib
import os
import sys
import warnings
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType, ModuleType
from typing import Final, Literal

__all__ = [
    "HANDOVERS",
    "IMPLEMENTATIONS",
    "CompiledUnavailableWarning",
    "compiled",
    "compiled_available",
    "compiled_module",
    "compiled_packages",
    "current",
    "module",
    "use",
]

Implementation = Literal["compiled", "reference"]

#: the two implementations, the compiled one first
IMPLEMENTATIONS: Final[tuple[Implementation, ...]] = ("compiled", "reference")


#: how many keys each compiled module handed to the reference code, by package; tests read it
#: to prove that valid values of every supported type and order never leave the compiled path
HANDOVERS: Final[Counter[str]] = Counter()

ENV_PURE: Final = "LEXCODECS_PURE"
ENV_REQUIRE: Final = "LEXCODECS_REQUIRE_COMPILED"


class CompiledUnavailableWarning(RuntimeWarning):
    """A codec's compiled module is not built; the reference Python runs instead."""


class CompiledMissingError(ImportError):
    """``LEXCODECS_REQUIRE_COMPILED`` is set and a compiled module is not built."""


_modules: dict[str, ModuleType | None] = {}
_warned = False


def _load(package: str) -> ModuleType | None:
    return _load_module(f"lexcodecs.codecs.{package}._compiled")


def _load_module(name: str) -> ModuleType | None:
    if name in _modules:
        return _modules[name]
    global _warned
    module: ModuleType | None
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        if os.environ.get(ENV_REQUIRE):
            raise CompiledMissingError(
                f"{name} is not built ({exc}); "
                f"{ENV_REQUIRE} is set, so the reference code may not stand in for it") from exc
        module = None
        if not _warned:
            _warned = True
            _warn_outside(missing_message(exc))
    _modules[name] = module
    return module


def missing_message(exc: ImportError) -> str:
    """The one line that says a compiled module is missing (*exc*: why it did not import),
    what runs instead, and how to get the modules."""
    return (f"lexcodecs: the compiled codec modules are missing ({exc}), so the reference "
            "Python code runs (same results, slower); to build them, install a C compiler and "
            "the Python headers, then reinstall lexcodecs with pip's --force-reinstall "
            f"--no-cache-dir ({ENV_PURE}=1 runs the reference code without this warning)")


def _warn_outside(message: str) -> None:
    """Warn with *message*, charged to the innermost frame outside lexcodecs (and outside
    the import machinery): the user's line that needed a codec, as Python 3.12's
    ``skip_file_prefixes`` would do."""
    frame = sys._getframe(1)
    while frame.f_back is not None and _ours(frame):
        frame = frame.f_back
    # what warnings.warn passes for a frame; not module_globals, whose loader a `python -c`
    # script's __main__ cannot serve (get_source raises)
    globals_ = frame.f_globals
    warnings.warn_explicit(message, CompiledUnavailableWarning, frame.f_code.co_filename,
                           frame.f_lineno, module=globals_.get("__name__", "lexcodecs"),
                           registry=globals_.setdefault("__warningregistry__", {}))


def _ours(frame: FrameType) -> bool:
    """Whether *frame* runs lexcodecs' code or the import system's (``importlib._bootstrap``
    when the user's import of a module binds a codec)."""
    return str(frame.f_globals.get("__name__", "")).split(".", 1)[0] in ("lexcodecs", "importlib")


#: where the built-in codec packages are
_CODECS_DIR: Final = Path(__file__).resolve().parent / "codecs"


def compiled_packages() -> tuple[str, ...]:
    """The package of every built-in codec (``lexcodecs/codecs/<package>/``), each with its
    compiled module: the packages whose Cython source ships beside them, so a new built-in
    codec needs no line here, and this module needs nothing of the registry (which imports
    the codec layer, which imports this module)."""
    return tuple(sorted(p.parent.name for p in _CODECS_DIR.glob("*/_compiled.pyx")))


#: the compiled modules besides the codecs': the migration's per-key work
#: (:mod:`lexcodecs.migrate.kernel`) and the columnar kernel (:mod:`lexcodecs.columnar`)
OTHER_MODULES: Final = ("lexcodecs.migrate._compiled", "lexcodecs.columnar._kernel")


def compiled_available() -> bool:
    """Whether every compiled module is built (``LEXCODECS_PURE`` aside)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompiledUnavailableWarning)
        return (all(_load(p) is not None for p in compiled_packages())
                and all(_load_module(name) is not None for name in OTHER_MODULES))


def _initial() -> Implementation:
    if os.environ.get(ENV_PURE):
        return "reference"
    return "compiled"


#: the implementation in force; "compiled" means "compiled where built"
current: Implementation = _initial()


def module(package: str) -> ModuleType | None:
    """The compiled module of codec package *package* if it is built, whichever
    implementation is in force (for objects built once that check :data:`current` on every
    call); ``None`` when it is not built or ``LEXCODECS_PURE`` is set."""
    if os.environ.get(ENV_PURE):
        return None
    return _load(package)


def compiled(package: str) -> ModuleType | None:
    """The compiled module of codec package *package* when the compiled implementation is in
    force and the module is built; ``None`` means: run the reference code."""
    if current != "compiled":
        return None
    return _load(package)


def compiled_module(name: str) -> ModuleType | None:
    """The compiled module *name* (one of :data:`OTHER_MODULES`) when the compiled
    implementation is in force and the module is built; ``None``: run the reference code."""
    if current != "compiled":
        return None
    return _load_module(name)


@contextmanager
def use(implementation: Implementation) -> Iterator[None]:
    """Run the block with *implementation* in force (tests and benchmarks)."""
    global current
    if implementation not in IMPLEMENTATIONS:
        raise ValueError(f"implementation {implementation!r}; expected one of {IMPLEMENTATIONS}")
    before = current
    current = implementation
    try:
        yield
    finally:
        current = before
