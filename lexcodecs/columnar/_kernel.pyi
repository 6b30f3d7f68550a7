"""Typed stub of ``_kernel.pyx``, the columnar kernel (mypy reads this)."""

from typing import Any

def capacity(plan: list[tuple[Any, ...]], n: int, sep: bytes,
             overrides: dict[int, bytes] | None) -> int: ...
def encode_rows(plan: list[tuple[Any, ...]], n: int, sep: bytes, tail: bool, data: int,
                capacity: int, offsets: int, overrides: dict[int, bytes] | None,
                max_key: int = 0) -> tuple[int, list[int], str, int]: ...
def shortest_digits(x: float) -> tuple[str, int]: ...
