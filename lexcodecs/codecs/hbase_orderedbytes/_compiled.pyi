"""Typed stub of ``_compiled.pyx``, the compiled ``hbase-orderedbytes`` codec (mypy reads this)."""

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ...codec import FieldPlan
from ...schema import KeySchema
from .codec import BoundHBase, FieldCode, HBaseOrderedBytesCodec

__all__ = ["CompiledBound", "Engine"]

def field_row(code: FieldCode) -> tuple[int, ...]: ...

class Engine:
    def __init__(
        self,
        rows: Iterable[tuple[int, ...]],
        is_struct: bool,
        careful_encode: Callable[[Sequence[Any]], bytes],
        careful_decode: Callable[[bytes], tuple[Any, ...]],
    ) -> None: ...
    def encode(self, values: Sequence[Any]) -> bytes: ...
    def decode(self, key: bytes) -> tuple[Any, ...]: ...

class CompiledBound(BoundHBase):
    engine: Engine
    def __init__(self, codec: HBaseOrderedBytesCodec, schema: KeySchema,
                 plans: Sequence[FieldPlan]) -> None: ...
