"""What the Rust serde formats (memcomparable, storekey) share: Option layers, ``char``,
the ``repr`` of a byte vector.

Theory of operation: a serde key is its fields' values back to back, each written as its Rust
type says. Two things about a field are not its value type, so they are field options here,
one object each, that both codecs put in their ``FIELD_OPTIONS``:

* ``nullable``: how many ``Option`` layers wrap the type. ``false`` (the default): ``T``, no
  NULL at all. ``true``: ``Option<T>``, ``None`` → ``00``, a value → ``01`` and the value.
  ``2``: ``Option<Option<T>>``, where ``Some(None)`` (:class:`~lexcodecs.types.Some`) is the
  inner None → ``01 00``, and a value → ``01 01`` and the value. Each layer is one tag byte::

      layers=2:   None ─ 00           Some(None) ─ 01 00          7 ─ 01 01 ‹7›

* ``repr``: ``bytes`` (serde_bytes: ``serialize_bytes``, each format's own byte-string layout)
  or ``seq`` (a plain ``Vec<u8>``, which serde writes as a sequence of ``u8`` elements).

A ``char`` is one Unicode scalar value (a ``str`` of length 1, not a surrogate); a
``variant`` is an enum's variant index, written at the format's own width.
"""

from __future__ import annotations

from typing import Any, Final, cast

from ..codec import Option
from ..errors import EncodeError, UnsupportedTypeError
from ..schema import Field
from ..types import Some

__all__ = ["NULLABLE", "REPR", "char_problem", "layers_of", "option_tags", "option_value"]

#: Option<T> (``true``) or Option<Option<T>> (``2``); the deepest nesting either corpus or
#: either system writes
NULLABLE: Final = Option(False, "Rust Option layers: false (T), true (Option<T>) or 2 "
                         "(Option<Option<T>>, where Some(None) is a value)",
                         choices=(False, True, 2))
#: how a bytes field's Vec<u8> is serialized
REPR: Final = Option("bytes", "a bytes field's serde form: bytes (serde_bytes) or seq (a "
                     "plain Vec<u8>, a sequence of u8)", choices=("bytes", "seq"))

#: option value -> Option layers
_LAYERS: Final[dict[Any, int]] = {False: 0, True: 1, 2: 2}


def layers_of(field: Field) -> int:
    """The number of Option layers around *field*'s type (0: not nullable)."""
    value = field.options.get("nullable", False)
    for key, layers in _LAYERS.items():
        if type(key) is type(value) and key == value:
            return layers
    raise ValueError(f"nullable={value!r} was not validated")  # the codec validates options


def option_tags(value: object, layers: int) -> tuple[int, bool]:
    """How a value of a field of *layers* Option layers is written: ``(ones, present)``,
    ``ones`` tags ``01``, then the value when ``present``, else a ``00`` tag. ``None`` is
    ``(0, False)``, ``Some(None)`` ``(1, False)``, a plain value ``(layers, True)``.
    Raises EncodeError for a NULL or ``Some`` the field's type cannot hold."""
    if value is None:
        if layers:
            return 0, False
        raise EncodeError("NULL in a field that is not nullable", value=value,
                          expected="a value (set nullable=true for Option<T>)")
    if type(value) is not Some:
        return layers, True
    depth, inner = 0, cast(Any, value)
    while type(inner) is Some:
        depth, inner = depth + 1, inner.value
    if inner is not None:
        raise UnsupportedTypeError("Some wraps only None or another Some (write a present "
                                   "value plainly)", value=value, expected="Some(None)")
    if depth >= layers:
        raise EncodeError(f"Some(None) needs {depth + 1} Option layers, the field has "
                          f"{layers}", value=value, expected=f"nullable={depth + 1}")
    return depth, False


def option_value(ones: int) -> Any:
    """The value read from ``ones`` tags ``01`` and then a ``00``: None, Some(None), ..."""
    value: Any = None
    for _ in range(ones):
        value = Some(value)
    return value


def char_problem(value: str) -> str | None:
    """``None`` for a ``str`` holding one Unicode scalar value, else what was expected."""
    if len(value) != 1:
        return f"one character, not {len(value)}"
    if 0xD800 <= ord(value) <= 0xDFFF:
        return "a Unicode scalar value, not a surrogate"
    return None
