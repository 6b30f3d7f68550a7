"""Typed stub of ``_compiled.pyx``, the compiled twin of ``kernel.py`` (mypy reads this)."""

from collections.abc import Sequence
from typing import Any

from .kernel import Refuse
from .report import _OrderWatch
from .transcoder import Transcoder

class NewKey:
    t: Transcoder
    refuse: Refuse
    watch: _OrderWatch | None
    check: bool
    error: BaseException | None
    last_key: bytes | None
    def __init__(self, transcoder: Transcoder, refuse: Refuse,
                 watch: _OrderWatch | None = None, *, check: bool = True) -> None: ...
    def __call__(self, key: Any) -> bytes: ...

def same_values(a: Sequence[tuple[Any, ...]], b: Sequence[tuple[Any, ...]]) -> bool: ...
def plain_rising(batch: Sequence[tuple[Any, ...]]) -> bool: ...
