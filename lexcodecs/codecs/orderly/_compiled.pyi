"""Typed stub of the compiled ``orderly`` module (``_compiled.pyx``)."""

from collections.abc import Sequence
from typing import Any

from ...codec import FieldPlan
from ...schema import KeySchema
from .bound import BoundOrderly
from .codec import OrderlyCodec

class Plan:
    def __init__(self, bound: BoundOrderly) -> None: ...
    def encode(self, values: Sequence[Any]) -> bytes: ...
    def decode(self, key: bytes) -> tuple[Any, ...]: ...

class CompiledOrderly(BoundOrderly):
    plan: Plan
    def __init__(self, codec: OrderlyCodec, schema: KeySchema,
                 plans: Sequence[FieldPlan]) -> None: ...
