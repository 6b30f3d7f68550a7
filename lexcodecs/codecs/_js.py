"""What the JavaScript key formats (ordered-binary, bytewise, charwise) bind alike.

A bound schema of any of them writes its values as the format writes a JS value: one field
bare unless the codec's ``array`` option is on, several fields as a JS array. Each value is
first checked against its field's type by the format's own ``check_value`` (``None`` is null
in every field; a ``bool`` is not an ``int``). Decoding is each format's own. The codecs
share their binding too (:class:`JsCodec`): the ``array`` option, each field's plan, the
compiled bound class where the format's module is built (``CompiledBound``, of
``_js_bound.pxi``, which each format's ``_compiled.pyx`` includes), and the columnar pieces by
``array``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar, Final

from .. import _impl
from ..codec import BaseCodec, BoundKey, FieldPlan, plain_value
from ..errors import DecodeError, EncodeError, LexCodecError, UnsupportedTypeError, with_article
from ..pieces import CodecPieces
from ..schema import Field, KeySchema

__all__ = ["FIELD_PY_TYPES", "JsBound", "JsCodec", "field_value", "plain_js_value"]


# -- values as the formats take them (their reference encoders read these) ------------------

#: schema field type -> the exact Python types its values have (None is null in every field):
#: bytewise's and ordered-binary's; charwise's, but bytes (it writes no Buffers)
FIELD_PY_TYPES: Final[dict[str, tuple[type, ...]]] = {
    "string": (str,),
    "bytes": (bytes, bytearray, memoryview),
    "bool": (bool,),
    "float64": (float,),
    "int": (int,),
}


def plain_js_value(value: Any, writers: Collection[type]) -> Any:
    """A value of a subclass (or a typed int, a Float32) as the plain value a JS format
    writes (read by :func:`~lexcodecs.codec.plain_value`, never through a method the
    subclass overrides), or ``None`` when it is none of them. *writers*: the exact types the
    format writes (a ``bool`` is not an ``int`` here)."""
    plain = plain_value(value)
    kind = type(plain)
    if kind in writers or kind is tuple or kind is list:
        return plain
    if issubclass(kind, int) and kind is not bool:  # a typed int: its number
        return int.__index__(plain)
    if issubclass(kind, float):  # a Float32: its value
        return float.__float__(plain)
    return None


def field_value(codec: str, kinds: Mapping[str, tuple[type, ...]], writers: Collection[type],
                field_type: str, value: Any) -> Any:
    """*value* as a field of *field_type* takes it (a subclass as its base type's value);
    anything else refused with an UnsupportedTypeError naming the field's types. *kinds*:
    each field type's exact Python types (None is null in every field)."""
    types = kinds[field_type]
    if value is None or type(value) in types:
        return value
    kind = type(value)
    if kind not in writers and kind is not tuple and kind is not list:
        plain = plain_js_value(value, writers)
        if type(plain) in types:
            return plain
    raise UnsupportedTypeError(
        f"{with_article(type(value).__name__)} is not a value of {with_article(field_type)}"
        " field", codec=codec, value=value,
        expected=" or ".join(k.__name__ for k in types) + " or None")


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

    def _written_back(self, data: bytes, values: tuple[Any, ...]) -> tuple[Any, ...]:
        """*values*, read from *data*, if they write *data* again, else a DecodeError: a
        bound decode gives back exactly the values a key was written from (keys that
        several value tuples share decode to the one the reader finds first)."""
        try:
            again = self.write(values, self._array)
        except EncodeError:
            again = None
        if again != data:
            raise DecodeError("the values read do not encode back to this key: not a key "
                              f"{self.NAME} writes for the schema {self.schema}",
                              codec=self.NAME, offset=0, found=data,
                              expected=f"a key of ({self.schema})")
        return values

    def encode(self, values: Sequence[Any]) -> bytes:
        checked = self._checked(self._check_arity(values))
        try:
            return self.write(checked, self._array)
        except LexCodecError as exc:
            if exc.field is not None and exc.field_name is None:  # name the schema's field
                f = self.schema.fields[exc.field]
                exc.field_name, exc.field_type = f.name, f.type
            raise exc.add_context(codec=self.NAME) from None


class JsCodec(BaseCodec):
    """The codec side the JS formats share; a format's subclass sets ``BOUND`` (its reference
    bound class, whose compiled twin of the same name is in the module of ``PACKAGE``)."""

    BOUND: ClassVar[type[JsBound]]
    PACKAGE: ClassVar[str]
    #: the columnar pieces with the option ``array`` on (every key an array), or None
    ARRAY_COLUMNAR: ClassVar[CodecPieces | None] = None
    #: the bound class of the option ``reading="reference"`` (the package's own reading, in
    #: Python: the compiled readers are strict), for a format that has the option
    REFERENCE_BOUND: ClassVar[type[JsBound] | None] = None

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.array: bool = self.options["array"]
        #: "strict", or "reference" (bytewise's and charwise's option; strict elsewhere)
        self.reading: str = self.options.get("reading", "strict")

    def columnar(self) -> CodecPieces | None:
        """:attr:`COLUMNAR`, or :attr:`ARRAY_COLUMNAR` with the option ``array``, when the
        other options that change the keys written are at their defaults (an option of
        ``reading`` changes only how they are read)."""
        if any(value != self.OPTIONS[key].default for key, value in self.options.items()
               if key != "array" and not self.OPTIONS[key].reading):
            return None
        return self.ARRAY_COLUMNAR if self.array else self.COLUMNAR

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        field_type, bound = field.type, self.BOUND

        def check(value: Any) -> bytes:
            # one value as its field takes it, written as in an array (the bound object
            # writes the key whole, separators and the bare form included)
            return bound.write((bound.check_value(field_type, value),), True)

        return FieldPlan(index, field, check, None)

    def make_bound(self, schema: KeySchema, plans: Sequence[FieldPlan]) -> BoundKey:
        if self.reading == "reference" and self.REFERENCE_BOUND is not None:
            return self.REFERENCE_BOUND(self, schema, plans)
        compiled = _impl.compiled(self.PACKAGE)
        cls = self.BOUND if compiled is None else compiled.CompiledBound
        return cls(self, schema, plans)
