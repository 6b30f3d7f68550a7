"""``fdb.tuple``'s API on the ``fdb-tuple`` codec: a drop-in module for fdb.tuple users.

>>> from lexcodecs import fdbtuple
>>> key = fdbtuple.pack(("user", 42), prefix=b"\\x15\\x07")
>>> key.hex(" ")
'15 07 02 75 73 65 72 00 15 2a'
>>> fdbtuple.unpack(key, prefix_len=2)
('user', 42)
>>> fdbtuple.range(("user",))
slice(b'\\x02user\\x00\\x00', b'\\x02user\\x00\\xff', None)
>>> fdbtuple.compare(("user", 42), ("user", 7))
1

Theory of operation: every function has the name, parameters and defaults of its namesake in
``fdb.tuple`` (FoundationDB 8.0.0) and gives the same bytes, values and answers for what both
accept. The work is the codec's schemaless path (``FdbTupleCodec``'s ``encode`` and
``decode``), so it runs the compiled module where it is built and the reference code under
``lexcodecs._impl.use("reference")`` or ``LEXCODECS_PURE``; this module only checks the
arguments ``fdb.tuple`` checks (a tuple where it wants one) and the ones it leaves unchecked
(``prefix_len``, a prefix that is not bytes), and translates ``prefix_len`` into the codec's
``prefix=``.

Where ``fdb.tuple`` accepts a malformed key, this module refuses it: every refusal is a
:class:`~lexcodecs.errors.LexCodecError`. The ones a drop-in user meets are ``EncodeError``
(a ``ValueError``), ``UnsupportedTypeError`` (a ``TypeError`` and a ``ValueError``) and
``DecodeError`` (a ``ValueError``), so ``except ValueError`` still catches what it caught
around ``fdb.tuple``. Decoded values are lexcodecs types: ``Float32`` for a binary32 element
(``fdb.tuple.SingleFloat``) and :class:`~lexcodecs.types.Versionstamp`; ``fdb.tuple``'s own
``SingleFloat`` and ``Versionstamp`` objects, and ctypes floats, are accepted on the way in.
The differences are listed in ``docs/codecs/fdb-tuple.md`` ("A drop-in module").
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, Final

from .codecs.fdb_tuple import format as _format
from .codecs.fdb_tuple.codec import FdbTupleCodec
from .codecs.fdb_tuple.reference_decode import as_bytes
from .codecs.fdb_tuple.reference_encode import check_depth, foreign, items
from .errors import DecodeError, EncodeError, UnsupportedTypeError
from .types import Float32, Versionstamp

__all__ = [
    "BYTES_CODE",
    "DOUBLE_CODE",
    "FALSE_CODE",
    "FLOAT_CODE",
    "INT_ZERO_CODE",
    "NEG_INT_START",
    "NESTED_CODE",
    "NULL_CODE",
    "POS_INT_END",
    "STRING_CODE",
    "TRUE_CODE",
    "UUID_CODE",
    "VERSIONSTAMP_CODE",
    "Float32",
    "SingleFloat",
    "Versionstamp",
    "compare",
    "has_incomplete_versionstamp",
    "pack",
    "pack_with_versionstamp",
    "range",
    "unpack",
]


def __dir__() -> list[str]:
    """``dir()`` of this module, and so tab completion: the public names (``__all__``, what
    ``fdb.tuple`` has and ``Float32``), not the helpers it imports (``Any``, ``operator``)."""
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})

# -- fdb.tuple's names for the type codes -------------------------------------------------

NULL_CODE: Final = _format.NULL
BYTES_CODE: Final = _format.BYTES
STRING_CODE: Final = _format.STRING
NESTED_CODE: Final = _format.NESTED
NEG_INT_START: Final = _format.NEG_BIG
INT_ZERO_CODE: Final = _format.INT_ZERO
POS_INT_END: Final = _format.POS_BIG
FLOAT_CODE: Final = _format.FLOAT
DOUBLE_CODE: Final = _format.DOUBLE
FALSE_CODE: Final = _format.FALSE
TRUE_CODE: Final = _format.TRUE
UUID_CODE: Final = _format.UUID
VERSIONSTAMP_CODE: Final = _format.VERSIONSTAMP

#: ``fdb.tuple.SingleFloat``'s counterpart: a ``float`` holding a binary32 value, what a
#: ``20`` element decodes to. It has no ``.value``: it *is* the number (``float(x)``).
SingleFloat: Final = Float32

# -- the codec ----------------------------------------------------------------------------

#: the default options (``max_u64_form="python"``: fdb.tuple's bytes for ±(2**64-1))
_CODEC: Final = FdbTupleCodec()
# its compiled ``encode``/``decode`` when built (instance attributes that read
# ``_impl.current`` on every call), bound once: one attribute lookup less per call
_encode: Final = _CODEC.encode
_decode: Final = _CODEC.decode
#: an incomplete stamp's ten transaction-version bytes, as written in a key
_UNSET: Final = b"\xff" * 10


def _tuple(t: Any, function: str) -> None:
    """Refuse what ``fdb.tuple``'s *function* refuses: anything but a tuple."""
    if not issubclass(type(t), tuple):
        raise UnsupportedTypeError(f"{function}() expects a tuple, got {type(t).__name__}",
                                   codec=_format.NAME, value=t, expected="a tuple")


def _prefix(prefix: Any) -> bytes:
    """*prefix* as bytes; ``None`` is no prefix. The codec tests a prefix for truth, so
    anything else that is not bytes-like (``0``, ``""``) is refused here, not ignored."""
    if type(prefix) is bytes:
        return prefix
    return b"" if prefix is None else as_bytes(prefix, "prefix")

# -- fdb.tuple's functions ----------------------------------------------------------------


def pack(t: tuple[Any, ...], prefix: bytes | None = None) -> bytes:
    """``prefix ‖ enc(t)``: the key of the tuple *t*, as ``fdb.tuple.pack``.

    An incomplete versionstamp is refused (``EncodeError``): use
    :func:`pack_with_versionstamp`.
    """
    if type(t) is not tuple:
        _tuple(t, "pack")
    if prefix is None:
        return _encode(t)
    return _encode(t, None, _prefix(prefix))


def unpack(key: bytes, prefix_len: int = 0) -> tuple[Any, ...]:
    """The tuple packed in *key* after its first *prefix_len* bytes, as ``fdb.tuple.unpack``.

    The whole rest of the key must be well-formed elements (else ``DecodeError``), and
    *prefix_len* must be an int from 0 to the key's length.
    """
    if type(prefix_len) is int:
        if not prefix_len:
            return _decode(key)
        if type(key) is bytes and 0 < prefix_len <= len(key):
            # the prefix is the key's own first bytes, so the codec's check of it passes,
            # and the offset in a DecodeError counts from the key's start
            return _decode(key, None, key[:prefix_len])
    return _unpack_checked(key, prefix_len)


def _unpack_checked(key: Any, prefix_len: Any) -> tuple[Any, ...]:
    """:func:`unpack` of a key that is not exact bytes, or a *prefix_len* to check."""
    if type(prefix_len) is bool or not issubclass(type(prefix_len), int):
        raise UnsupportedTypeError("prefix_len must be an int", codec=_format.NAME,
                                   value=prefix_len, expected="an int from 0 to len(key)")
    data = as_bytes(key)
    n = operator.index(prefix_len)
    if not 0 <= n <= len(data):
        raise DecodeError("prefix_len is outside the key", codec=_format.NAME,
                          offset=min(max(n, 0), len(data)), found=b"",
                          expected=f"a prefix_len from 0 to {len(data)} (the key's length)")
    return unpack(data, n)


def range(t: tuple[Any, ...]) -> slice:
    """``slice(pack(t) + 00, pack(t) + ff)``: the keys of every tuple that extends *t* (not
    *t*'s own key), as ``fdb.tuple.range``."""
    if type(t) is not tuple:
        _tuple(t, "range")
    key = _encode(t)
    return slice(key + b"\x00", key + b"\xff")


def pack_with_versionstamp(t: tuple[Any, ...], prefix: bytes | None = None) -> bytes:
    """``prefix ‖ enc(t) ‖ offset``: *t* holds exactly one incomplete versionstamp, and
    ``offset`` is the 4-byte little-endian position of its first ``ff`` byte, counted from
    the start of the prefix, as ``fdb.tuple.pack_with_versionstamp`` (API version 520 and
    later) writes it for ``SET_VERSIONSTAMPED_KEY``."""
    _tuple(t, "pack_with_versionstamp")
    return _CODEC.encode_with_versionstamp(t, _prefix(prefix))


def _incomplete_stamp(value: Any) -> Versionstamp | None:
    """*value* as a lexcodecs stamp when it is an incomplete versionstamp (lexcodecs' or
    fdb.tuple's), else None."""
    if issubclass(type(value), Versionstamp):
        return value if value.tr_version is None else None
    found = foreign(value)
    if found is not None and found[0] == "versionstamp" and found[1].tr_version is None:
        stamp: Versionstamp = found[1]
        return stamp
    return None


def _walk_has_incomplete(values: Sequence[Any]) -> bool:
    for v in items(values):
        if issubclass(type(v), (tuple, list)):
            if _walk_has_incomplete(v):
                return True
        elif _incomplete_stamp(v) is not None:
            return True
    return False


def has_incomplete_versionstamp(t: tuple[Any, ...]) -> bool:
    """Whether *t* (or a tuple nested in it) holds an incomplete versionstamp, as
    ``fdb.tuple.has_incomplete_versionstamp``. Tuples nested deeper than the codec's limit
    (64) are refused, as :func:`pack` refuses them."""
    if not issubclass(type(t), (tuple, list)):
        raise UnsupportedTypeError(
            f"has_incomplete_versionstamp() expects a tuple, got {type(t).__name__}",
            codec=_format.NAME, value=t, expected="a tuple or list")
    check_depth(t, _CODEC.max_depth)  # so the recursive walk stays bounded
    return _walk_has_incomplete(t)


def _stamps_completed(values: Sequence[Any]) -> tuple[Any, ...]:
    """*values* with each incomplete stamp replaced by a complete one whose transaction
    version is the ``ff`` bytes an incomplete stamp is written with: the same bytes, so
    the same place in the order."""
    out: list[Any] = []
    for v in items(values):
        stamp = _incomplete_stamp(v)
        if stamp is not None:
            out.append(Versionstamp(_UNSET, stamp.user_version))
        elif issubclass(type(v), (tuple, list)):
            out.append(_stamps_completed(v))
        else:
            out.append(v)
    return tuple(out)


def _order_key(t: Any) -> bytes:
    """The key of *t*, with its incomplete stamps written in place (``ff`` * 10)."""
    try:
        return _encode(t)
    except EncodeError:  # the rare case, so the common one costs one encode
        if not (issubclass(type(t), (tuple, list)) and has_incomplete_versionstamp(t)):
            raise
    return _encode(_stamps_completed(t))


def compare(t1: tuple[Any, ...], t2: tuple[Any, ...]) -> int:
    """-1, 0 or 1 as *t1* sorts before, with or after *t2*, as ``fdb.tuple.compare``: the
    order of their keys, where an incomplete versionstamp sorts after every complete one.

    Both tuples must pack (or hold incomplete versionstamps): an element :func:`pack`
    refuses is refused here too, even past the first difference.
    """
    a, b = _order_key(t1), _order_key(t2)
    return (a > b) - (a < b)
