"""Types of the compiled LexKey module (``_compiled.pyx``), for mypy."""

from collections.abc import Callable, Sequence
from typing import Any

from ...codec import FieldPlan
from ...schema import KeySchema
from .bound import BoundLexKey as _ReferenceBound
from .bound import FieldLayout

class Plan:
    def __init__(self, layout: Sequence[FieldLayout], go_nan: bool,
                 reference_encode: Callable[[Sequence[Any]], bytes],
                 reference_decode: Callable[[bytes], tuple[Any, ...]],
                 reference_prefix: Callable[[Sequence[Any]], bytes]) -> None: ...
    def encode(self, values: Sequence[Any]) -> bytes: ...
    def encode_prefix(self, values: Sequence[Any]) -> bytes: ...
    def decode(self, key: bytes) -> tuple[Any, ...]: ...

class BoundLexKey(_ReferenceBound):
    def __init__(self, codec: Any, schema: KeySchema, plans: Sequence[FieldPlan],
                 layout: Sequence[FieldLayout]) -> None: ...

class SchemalessEncoder:
    def __init__(self, native: bool, go_nan: bool,
                 reference: Callable[[Any], bytes]) -> None: ...
    def encode(self, values: Any) -> bytes: ...
