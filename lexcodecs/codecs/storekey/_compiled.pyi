"""Typed stub of ``_compiled.pyx``, the compiled ``storekey`` engine (mypy reads this)."""

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ...schema import KeySchema
from .codec import BoundStorekey, StorekeyCodec, StorekeyFieldPlan
from .format import FieldCode

class Engine:
    def __init__(
        self,
        codes: Iterable[FieldCode],
        careful_encode: Callable[[Sequence[Any]], bytes],
        careful_decode: Callable[[bytes], tuple[Any, ...]],
        careful_parse: Callable[[bytes], tuple[tuple[Any, ...], bytes]],
        careful_encode_prefix: Callable[[Sequence[Any]], bytes],
    ) -> None: ...
    def encode(self, values: Sequence[Any]) -> bytes: ...
    def encode_prefix(self, values: Sequence[Any]) -> bytes: ...
    def decode(self, key: bytes) -> tuple[Any, ...]: ...
    def parse(self, key: bytes) -> tuple[tuple[Any, ...], bytes]: ...

class CompiledBound(BoundStorekey):
    engine: Engine
    def __init__(self, codec: StorekeyCodec, schema: KeySchema,
                 plans: Sequence[StorekeyFieldPlan]) -> None: ...
