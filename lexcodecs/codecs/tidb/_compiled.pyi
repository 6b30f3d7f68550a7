"""Typed stub of ``_compiled.pyx``, the compiled ``tidb`` codec (mypy reads this)."""

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ...codec import FieldPlan
from ...schema import KeySchema
from .codec import BoundTidb, FieldCode, TidbCodec

__all__ = ["CompiledBound", "Engine"]

def field_row(code: FieldCode) -> tuple[int, int, int]: ...

class Engine:
    def __init__(
        self,
        rows: Iterable[tuple[int, int, int]],
        head: bytes,
        int_handle: bool,
        no_null: bool,
        careful_encode: Callable[[Sequence[Any]], bytes],
        careful_decode: Callable[[bytes], tuple[Any, ...]],
    ) -> None: ...
    def encode(self, values: Sequence[Any]) -> bytes: ...
    def decode(self, key: bytes) -> tuple[Any, ...]: ...

class CompiledBound(BoundTidb):
    engine: Engine
    def __init__(self, codec: TidbCodec, schema: KeySchema,
                 plans: Sequence[FieldPlan]) -> None: ...
