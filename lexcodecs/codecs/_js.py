"""What the JavaScript key formats (ordered-binary, bytewise, charwise) bind alike.

A bound schema of any of them writes its values as the format writes a JS value: one field
bare unless the codec's ``array`` option is on, several fields as a JS array. Each value is
first checked against its field's type by the format's own ``check_value`` (``None`` is null
in every field; a ``bool`` is not an ``int``). Decoding is each format's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from ..codec import BaseCodec, BoundKey, FieldPlan
from ..errors import LexCodecError
from ..schema import KeySchema

__all__ = ["JsBound"]


class JsBound(BoundKey):
    """The binding the JS formats share; a format's subclass sets ``NAME``, ``check_value``
    and ``write`` (its field check and its writer of checked values)."""

    __slots__ = ("_array", "_types")
    NAME: ClassVar[str]

    @staticmethod
    def check_value(field_type: str, value: Any) -> Any:
        raise NotImplementedError

    @staticmethod
    def write(values: Sequence[Any], array: bool) -> bytes:
        raise NotImplementedError

    def __init__(self, codec: BaseCodec, schema: KeySchema, plans: Sequence[FieldPlan]) -> None:
        super().__init__(codec, schema, plans)
        self._types = tuple(f.type for f in schema.fields)
        self._array: bool = codec.options["array"] or len(self._types) != 1

    def _checked(self, values: Sequence[Any]) -> list[Any]:
        out = []
        for i, (field_type, value) in enumerate(zip(self._types, values)):
            try:
                out.append(self.check_value(field_type, value))
            except LexCodecError as exc:
                raise self._context(exc, i) from None
        return out

    def encode(self, values: Sequence[Any]) -> bytes:
        checked = self._checked(self._check_arity(values))
        try:
            return self.write(checked, self._array)
        except LexCodecError as exc:
            if exc.field is not None and exc.field_name is None:  # name the schema's field
                f = self.schema.fields[exc.field]
                exc.field_name, exc.field_type = f.name, f.type
            raise exc.add_context(codec=self.NAME) from None
