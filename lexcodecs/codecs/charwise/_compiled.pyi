"""Types of the compiled ``charwise`` module (``_compiled.pyx``), for mypy."""

from collections.abc import Callable, Sequence
from typing import Any

from .codec import BoundCharwise as ReferenceBoundCharwise

def encode(values: Sequence[Any], array: bool,
           ref_encode: Callable[[Sequence[Any], bool], bytes]) -> bytes: ...
def decode(key: bytes, array: bool,
           ref_decode: Callable[[Any, bool], tuple[Any, ...]]) -> tuple[Any, ...]: ...

class CompiledBound(ReferenceBoundCharwise): ...
