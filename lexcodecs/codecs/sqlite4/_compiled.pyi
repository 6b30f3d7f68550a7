"""Types of the compiled ``sqlite4`` module (``_compiled.pyx``), for mypy."""

from collections.abc import Callable, Sequence
from typing import Any

from ...codec import FieldPlan
from ...schema import KeySchema
from .codec import BoundSqlite4, FieldCode, Sqlite4Codec

__all__ = ["CompiledBound", "Plan", "Schemaless"]



class Plan:
    def __init__(self, codes: Sequence[FieldCode], prefix: bytes,
                 hand_encode: Callable[[Sequence[Any]], bytes],
                 hand_decode: Callable[[bytes], tuple[Any, ...]]) -> None: ...
    def encode(self, values: Sequence[Any]) -> bytes: ...
    def decode(self, key: bytes) -> tuple[Any, ...]: ...

class Schemaless:
    def __init__(self, prefix: bytes, hand_encode: Callable[[Sequence[Any]], bytes],
                 hand_decode: Callable[[bytes], tuple[Any, ...]]) -> None: ...
    def encode(self, values: Sequence[Any]) -> bytes: ...
    def decode(self, key: bytes) -> tuple[Any, ...]: ...

class CompiledBound(BoundSqlite4):
    plan: Plan
    def __init__(self, codec: Sqlite4Codec, schema: KeySchema,
                 plans: Sequence[FieldPlan]) -> None: ...
