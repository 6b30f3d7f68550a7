"""Types of the compiled ``bytewise`` module (``_compiled.pyx``), for mypy."""

from collections.abc import Callable, Sequence
from typing import Any

from .codec import BoundBytewise as ReferenceBoundBytewise

def encode(values: Sequence[Any], array: bool,
           ref_encode: Callable[[Sequence[Any], bool], bytes]) -> bytes: ...
def decode(key: bytes, array: bool,
           ref_decode: Callable[[bytes], tuple[Any, ...]]) -> tuple[Any, ...]: ...

class CompiledBound(ReferenceBoundBytewise): ...
