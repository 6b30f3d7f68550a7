"""Types of the compiled ``ordered-binary`` module (``_compiled.pyx``), for mypy."""

from collections.abc import Callable, Sequence
from typing import Any

from .codec import BoundOrderedBinary as ReferenceBoundOrderedBinary

def encode(values: Sequence[Any], array: bool,
           ref_encode: Callable[[Sequence[Any], bool], bytes]) -> bytes: ...
def decode(key: bytes, ref_decode: Callable[[bytes], tuple[Any, ...]]) -> tuple[Any, ...]: ...

class CompiledBound(ReferenceBoundOrderedBinary): ...
