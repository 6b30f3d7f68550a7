"""Odd values and the two-implementation check shared by the differential tests (issue 14).

Each ``test_*_differential.py`` runs the same call under ``_impl.use("compiled")`` and
``_impl.use("reference")`` and requires the same outcome. What they share lives here:

* values a careless or hostile caller passes: subclasses of int/str/bytes/float/Decimal whose
  overridden methods lie (a codec must read them for what they are, never through those
  methods), an IntEnum, an object that lies about its class, Float32s and UUIDs tampered with
  or never finished, a released memoryview;
* :func:`pick`, a strategy over a list of such values (by index: some cannot be hashed);
* :func:`same`, :func:`outcome` and :func:`both`, the comparison: types compared, floats and
  Float32s by their bits (so NaN payloads and ``-0.0`` count), Decimals by their text, UUIDs,
  datetimes and versionstamps field by field, errors by class and message. Nothing but a
  :class:`~lexcodecs.errors.LexCodecError` may leave either implementation.

The odd values each codec meets, and its strategies, stay in its own test file.
"""

from __future__ import annotations

import datetime as dt
import enum
import struct
import uuid
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

from lexcodecs import LexCodecError, Versionstamp, _impl
from lexcodecs.types import Float32

__all__ = [
    "Colour",
    "Liar",
    "MyBytes",
    "MyDecimal",
    "MyFloat",
    "MyInt",
    "MyStr",
    "both",
    "outcome",
    "pick",
    "released_view",
    "same",
    "tampered_float32",
    "tampered_uuid",
    "unset_float32",
    "unset_uuid",
    "uuid_without_int",
]

_D = struct.Struct(">d")

# -- odd values -------------------------------------------------------------------------------


class MyInt(int):
    """An int subclass whose ``__index__`` and ``__str__`` lie."""

    def __index__(self) -> int:
        return 99

    def __str__(self) -> str:
        return "99"


class MyStr(str):
    """A str subclass whose ``encode`` and ``__str__`` lie."""

    def encode(self, *args: Any, **kwargs: Any) -> bytes:  # type: ignore[override]
        return b"never read"

    def __str__(self) -> str:
        return "not me"


class MyBytes(bytes):
    """A bytes subclass whose ``__bytes__`` lies."""

    def __bytes__(self) -> bytes:
        return b"never read"


class MyFloat(float):
    """A float subclass whose ``__float__`` and ``__repr__`` lie."""

    def __float__(self) -> float:
        return 12345.0

    def __repr__(self) -> str:
        return "1.0"


class MyDecimal(Decimal):
    pass


class Colour(enum.IntEnum):
    RED = 1
    BIG = 2**40
    HUGE = 2**70


class Liar:
    """An object that claims to be an int (``isinstance`` believes ``__class__``)."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        return int


def tampered_float32(bits: Any, value: float = 1.5) -> Float32:
    """A Float32 of *value* whose ``bits`` were overwritten with *bits*."""
    f = Float32(value)
    object.__setattr__(f, "bits", bits)
    return f


def unset_float32(value: float = 0.1) -> Float32:
    """A Float32 never given its bits (and 0.1 is no binary32 value at all)."""
    return float.__new__(Float32, value)


def tampered_uuid(value: Any) -> uuid.UUID:
    """A UUID whose ``int`` was overwritten with *value*."""
    u = uuid.UUID(int=5)
    object.__setattr__(u, "int", value)
    return u


def unset_uuid() -> uuid.UUID:
    """A UUID with no fields at all."""
    return object.__new__(uuid.UUID)


def uuid_without_int() -> uuid.UUID:
    """A UUID whose ``int`` was deleted (``is_safe`` is left)."""
    u = uuid.UUID(int=1)
    object.__delattr__(u, "int")
    return u


def released_view() -> memoryview:
    view = memoryview(b"abc")
    view.release()
    return view


def pick(values: list[Any]) -> st.SearchStrategy[Any]:
    """One of *values*, drawn by index: hypothesis hashes what it samples, and some odd
    values (a released memoryview) refuse to be hashed."""
    return st.integers(0, len(values) - 1).map(values.__getitem__)

# -- running both -----------------------------------------------------------------------------


def same(a: Any, b: Any) -> bool:
    """The same value, down to types; floats and Float32s by their bits, Decimals by their
    text, UUIDs, datetimes and versionstamps by their fields, tuples and lists item by item."""
    if type(a) is not type(b):
        return False
    if type(a) in (tuple, list):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, Float32):
        return (type(getattr(a, "bits", None)) is int and type(getattr(b, "bits", None)) is int
                and a.bits == b.bits and _D.pack(a) == _D.pack(b))
    if isinstance(a, float):
        return _D.pack(a) == _D.pack(b)
    if isinstance(a, Decimal):
        return str(a) == str(b)
    if isinstance(a, uuid.UUID):
        return (type(a.int) is type(b.int) is int and a.int == b.int
                and a.is_safe == b.is_safe)
    if isinstance(a, dt.datetime):
        return (a == b and a.tzinfo is b.tzinfo and a.fold == b.fold
                and a.isoformat() == b.isoformat())
    if isinstance(a, Versionstamp):
        return same((a.tr_version, a.user_version), (b.tr_version, b.user_version))
    return bool(a == b)


def outcome(op: Callable[[], Any]) -> tuple[Any, ...]:
    """What *op* gives: ``("ok", result)`` or ``("error", class, message)``. Any exception
    but a :class:`~lexcodecs.errors.LexCodecError` escapes and fails the test."""
    try:
        return ("ok", op())
    except LexCodecError as exc:
        return ("error", type(exc), str(exc))


def both(op: Callable[[], Any], what: Any = None) -> tuple[Any, ...]:
    """*op* under each implementation; they must give the same outcome (:func:`same`
    results, or the same error class and message). The reference's outcome. *what* names
    the input in a failure's message."""
    with _impl.use("compiled"):
        compiled = outcome(op)
    with _impl.use("reference"):
        reference = outcome(op)
    # the messages are built only on failure: repr of a huge int may itself fail
    assert compiled[0] == reference[0], _say(what, f"compiled {compiled}, reference {reference}")
    if compiled[0] == "ok":
        assert same(compiled[1], reference[1]), \
            _say(what, f"compiled {compiled[1]!r}, reference {reference[1]!r}")
    else:
        assert compiled == reference, _say(what, f"compiled {compiled}, reference {reference}")
    return reference


def _say(what: Any, text: str) -> str:
    return text if what is None else f"{what!r}: {text}"


def mutated(key: bytes, notable: Sequence[int], *, junk: int, bit_flips: bool = False
            ) -> st.SearchStrategy[bytes]:
    """*key* and its near misses, for a decoder: cut short, a byte replaced or inserted (one
    of the format's *notable* bytes, or any), a bit flipped (with *bit_flips*), a byte
    deleted, a short tail added; or up to *junk* random bytes."""
    at = st.integers(0, max(len(key) - 1, 0))
    byte = st.sampled_from(list(notable)) | st.integers(0, 255)
    flips = [st.tuples(at, st.integers(0, 7)).map(
        lambda p: key[:p[0]] + bytes((key[p[0]] ^ (1 << p[1]),)) + key[p[0] + 1:]
        if key else key)] if bit_flips else []
    return st.one_of(
        st.just(key),
        st.integers(0, len(key)).map(lambda i: key[:i]),
        st.tuples(at, byte).map(lambda p: key[:p[0]] + bytes((p[1],)) + key[p[0] + 1:]),
        st.tuples(at, byte).map(lambda p: key[:p[0]] + bytes((p[1],)) + key[p[0]:]),
        *flips,
        at.map(lambda i: key[:i] + key[i + 1:]),
        st.binary(min_size=1, max_size=3).map(lambda tail: key + tail),
        st.binary(max_size=junk),
    )
