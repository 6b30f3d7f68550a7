"""Typed stub of ``_compiled.pyx``, the compiled ``skv`` engine (mypy reads this)."""

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ...schema import KeySchema
from .codec import BoundSkv, SkvCodec, SkvFieldPlan

class Engine:
    def __init__(
        self,
        rows: Iterable[tuple[int, ...]],
        careful_encode: Callable[[Sequence[Any]], bytes],
        careful_decode: Callable[[bytes], tuple[Any, ...]],
        careful_encode_span: Callable[[Sequence[Any], int, int], bytes],
        careful_decode_from: Callable[[bytes, int], tuple[tuple[Any, ...], tuple[int, ...]]],
    ) -> None: ...
    def encode(self, values: Sequence[Any]) -> bytes: ...
    def encode_span(self, values: Sequence[Any], start: int, stop: int) -> bytes: ...
    def decode(self, key: bytes) -> tuple[Any, ...]: ...
    def decode_from(self, data: bytes, pos: int) -> tuple[tuple[Any, ...], tuple[int, ...]]: ...

class CompiledBoundSkv(BoundSkv):
    engine: Engine
    def __init__(self, codec: SkvCodec, schema: KeySchema, plans: Sequence[SkvFieldPlan],
                 partition_count: int) -> None: ...

def decode_schemaless(key: bytes, careful: Callable[[bytes], tuple[Any, ...]]
                      ) -> tuple[Any, ...]: ...
