"""Typed stub of ``_compiled.pyx``, the compiled ``memcomparable`` engine (mypy reads this)."""

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ...schema import KeySchema
from .codec import BoundMemcomparable, MemcomparableCodec, MemcomparableFieldPlan

class Engine:
    def __init__(
        self,
        rows: Iterable[tuple[int, ...]],
        careful_encode: Callable[[Sequence[Any]], bytes],
        careful_decode: Callable[[bytes], tuple[Any, ...]],
    ) -> None: ...
    def encode(self, values: Sequence[Any]) -> bytes: ...
    def decode(self, key: bytes) -> tuple[Any, ...]: ...

class CompiledBoundMemcomparable(BoundMemcomparable):
    engine: Engine
    def __init__(self, codec: MemcomparableCodec, schema: KeySchema,
                 plans: Sequence[MemcomparableFieldPlan]) -> None: ...
