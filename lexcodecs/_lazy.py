"""Package attributes imported on first use (PEP 562), for the packages the command line must
not load at start-up: :mod:`lexcodecs.compare` and :mod:`lexcodecs.migrate`.

A package names each attribute's module in a table and takes ``__getattr__`` and ``__dir__``
from :func:`exports`; its ``if TYPE_CHECKING:`` imports give the type checker the same names.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["exports"]


def exports(package: str, where: Mapping[str, str]
            ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for *package*: attribute name -> the submodule (relative
    to the package) that defines it. A name is imported once, then kept in the package."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *where})

    return __getattr__, __dir__
