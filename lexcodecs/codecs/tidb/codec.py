"""The ``tidb`` codec: options (the table/index/handle framing), capabilities, and binding.

Theory of operation: binding checks each field (no descending order: TiDB has none; a
decimal's ``precision`` and ``frac`` both or neither; an int handle is one int64 field) and
turns it into plan data, a :class:`FieldCode` ``(kind, precision, frac, field_type)`` from the
tables of ``format.py``, with the reference writer and reader made from it
(``reference_encode.field_writer`` / ``reference_decode.field_reader``). The codec's options
fix the *head* every key starts with (spec §8): none for bare datums, ``t`` int(table)
``_r`` for a row key, ``t`` int(table) ``_i`` int(index) for an index key; an int handle is
then written without its flag byte. The bound object is :class:`BoundTidb` (the reference)
or, when ``lexcodecs._impl.compiled("tidb")`` gives the compiled module, its
``CompiledBound``, built from the same plan data, which hands anything it does not take as
its own to the reference ``careful_*`` methods for the whole key. Keys decode without a
schema too: each datum's flag says what it is (an int handle is an int).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final, NamedTuple

from ... import _impl
from ..._bytes import strinc
from ...codec import (
    BaseCodec,
    BoundKey,
    Capabilities,
    FieldPlan,
    FloatPolicy,
    Option,
    SchemaLike,
    as_key_bytes,
)
from ...errors import DecodeError, EncodeError, LexCodecError, OptionError
from ...inspection import Inspection, Part
from ...pieces import FLAGS, INT64_MIN, UINT64_MAX, WRITERS, CodecPieces, Piece
from ...schema import Field, KeySchema
from .anomalies import ANOMALIES
from .format import (
    FIELD_KINDS,
    HANDLE_COMMON,
    HANDLE_INT,
    HEAD_LEN,
    INDEX_MARK,
    INT64_MAX,
    INT_HANDLE_KEY_LEN,
    KIND_DECIMAL,
    MAX_FRAC,
    MAX_PRECISION,
    NAME,
    RECORD_MARK,
    SEP,
    SIGN_BIT,
    TABLE_PREFIX,
    WIDTH,
)
from .reference_decode import field_reader, read_any
from .reference_encode import field_writer, int_part

__all__ = ["CAPABILITIES", "BoundTidb", "FieldCode", "TidbCodec", "columnar_piece",
           "field_code"]

#: the package of the compiled module (``lexcodecs/codecs/tidb/_compiled.pyx``)
PACKAGE: Final = "tidb"


class FieldCode(NamedTuple):
    """The plan data of one field, shared by the reference tables and the compiled module."""

    kind: int
    precision: int  # a decimal's fixed precision and frac; 0, 0: the value's own shape
    frac: int
    field_type: str


def field_code(field: Field) -> FieldCode:
    precision = field.options.get("precision")
    frac = field.options.get("frac")
    return FieldCode(FIELD_KINDS[field.type], precision or 0, frac or 0, field.type)


def _check_id(value: Any) -> str | None:
    if value is None or (type(value) is int and -SIGN_BIT <= value <= INT64_MAX):
        return None
    return "None or an int64 id"


def _check_precision(value: Any) -> str | None:
    if value is None or (type(value) is int and 1 <= value <= MAX_PRECISION):
        return None
    return f"an int 1..{MAX_PRECISION} (the oracle's largest: [types:1]Bad Number beyond)"


def _check_frac(value: Any) -> str | None:
    if value is None or (type(value) is int and 0 <= value <= MAX_FRAC):
        return None
    return f"an int 0..{MAX_FRAC} (TiDB caps frac at 30)"


# -- the columnar kernel's pieces (lexcodecs.pieces) -----------------------------------------

_NULL_BYTES: Final = b"\x00"


def columnar_piece(field: Field) -> Piece | None:
    """*field*'s piece for the columnar kernel: int64 (``03``, sign bit flipped), uint64
    (``04``), duration (``07``, int64 nanoseconds), floats (``05``, the IEEE transform of
    the float64 value with -0.0 as +0.0: TiDB ORs the sign bit into a value >= 0) and
    strings and bytes (``01``, the 8-byte groups of ``_layout.pxi``); NULL is ``00``.
    Timestamps are TiDB's packed time (``04``, ``tidb_time``); decimals take the row API."""
    t = field.type
    if t == "timestamp":
        return Piece(WRITERS["be"], WIDTH, FLAGS["tidb_time"], b"\x04", b"", 0, UINT64_MAX,
                     null=_NULL_BYTES, time=True)
    if t in ("float32", "float64"):
        return Piece(WRITERS["float"], WIDTH, FLAGS["zero_up"], b"\x05", null=_NULL_BYTES)
    if t in ("string", "bytes"):
        return Piece(WRITERS["bytes"], 9, FLAGS["tidb_groups"], b"\x01", null=_NULL_BYTES)
    if t == "int64":
        return Piece(WRITERS["be"], WIDTH, FLAGS["signflip"], b"\x03", b"", INT64_MIN,
                     INT64_MAX, null=_NULL_BYTES)
    if t == "uint64":
        return Piece(WRITERS["be"], WIDTH, 0, b"\x04", b"", 0, UINT64_MAX, null=_NULL_BYTES)
    if t == "duration":
        return Piece(WRITERS["be"], WIDTH, FLAGS["signflip"], b"\x07", b"", INT64_MIN,
                     INT64_MAX, null=_NULL_BYTES, time=True)
    return None


class TidbCodec(BaseCodec):
    """TiDB/TiKV datum keys (registry name ``tidb``); see ``format.py`` and ``docs/codecs/tidb.md``.

    >>> codec = TidbCodec()
    >>> codec.encode((1, "abc"), "n:int64, s:string").hex(" ")
    '03 80 00 00 00 00 00 00 01 01 61 62 63 00 00 00 00 00 fa'
    >>> TidbCodec(table_id=1, handle="int").encode((2,), "h:int64").hex()
    '7480000000000000015f728000000000000002'
    """

    name: ClassVar[str] = NAME
    COLUMNAR: ClassVar = CodecPieces(b"", columnar_piece)
    OPTIONS: ClassVar = {
        "table_id": Option(None, "the table id: keys start with 't' int(table_id) (None: bare "
                           "datums)", check=_check_id),
        "index_id": Option(None, "an index key: 't' int(table) '_i' int(index_id) then the "
                           "datums (needs table_id; not with handle)", check=_check_id),
        "handle": Option(None, "a row key: 'int' (one int64 field, written without its flag) "
                         "or 'common' (the datums of a clustered primary key) after 't' "
                         "int(table) '_r' (needs table_id)",
                         choices=(None, HANDLE_INT, HANDLE_COMMON)),
    }
    FIELD_OPTIONS: ClassVar = {
        "precision": Option(None, "a decimal's DECIMAL(precision, frac): both or neither "
                            "(neither: the value's own shape)", check=_check_precision),
        "frac": Option(None, "a decimal's digits after the point (with precision)",
                       check=_check_frac),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        table, index, handle = (self.options[k] for k in ("table_id", "index_id", "handle"))
        if index is not None and handle is not None:
            raise OptionError("index_id and handle exclude each other (an index key or a row "
                              "key)", codec=NAME, option="index_id", value=index,
                              expected="index_id=None with a handle")
        if table is None and (index is not None or handle is not None):
            which = "index_id" if index is not None else "handle"
            raise OptionError(f"{which} needs table_id (the key starts 't' int(table_id))",
                              codec=NAME, option=which, value=self.options[which],
                              expected="table_id set as well")
        #: the bytes every key starts with
        self.head: bytes = b""
        if table is not None:
            self.head = bytes((TABLE_PREFIX,)) + int_part(table)
            if index is not None:
                self.head += bytes((SEP, INDEX_MARK)) + int_part(index)
            elif handle is not None:
                self.head += bytes((SEP, RECORD_MARK))
        self.int_handle: bool = handle == HANDLE_INT
        self.common_handle: bool = handle == HANDLE_COMMON

    def check_field(self, index: int, field: Field, schema: KeySchema) -> None:
        if field.descending:
            raise self.refuse(index, field, "TiDB has no descending order: its datum encoding "
                              "has none (INDEX (c DESC) is parsed and ignored)",
                              "an ascending field")
        super().check_field(index, field, schema)
        opts = field.options
        if ("precision" in opts or "frac" in opts) and field.type != "decimal":
            raise self.refuse(index, field, "precision and frac are a decimal's options",
                              "a decimal field")
        if ("precision" in opts) != ("frac" in opts):
            raise self.refuse(index, field, "precision and frac go together (a DECIMAL column "
                              "always has both)", "both precision and frac, or neither")
        if "precision" in opts and int(opts["frac"]) > int(opts["precision"]):
            raise self.refuse(index, field, f"frac {opts['frac']} is above precision "
                              f"{opts['precision']}", "frac <= precision")
        if self.int_handle and (len(schema) != 1 or field.type != "int64"):
            raise self.refuse(index, field, "an int handle is exactly one int64 field",
                              "one int64 field (handle='int')")

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        code = field_code(field)
        p, f = (code.precision, code.frac) if code.kind == KIND_DECIMAL and code.precision \
            else (None, None)
        return FieldPlan(index, field, field_writer(code.kind, field.type, p, f),
                         field_reader(code.kind, field.type))  # type: ignore[arg-type]

    def make_bound(self, schema: KeySchema, plans: Sequence[FieldPlan]) -> BoundKey:
        module = _impl.compiled(PACKAGE)
        if module is not None:
            return module.CompiledBound(self, schema, plans)  # type: ignore[no-any-return]
        return BoundTidb(self, schema, plans)

    def bind(self, schema: SchemaLike) -> BoundTidb:
        return self.bind_as(schema, BoundTidb)

    @property
    def capabilities(self) -> Capabilities:
        return CAPABILITIES

    # -- framing --------------------------------------------------------------------------

    def check_head(self, key: bytes, parts: list[Part] | None = None) -> int:
        """The offset after the key's head (the options' ``t``, table id, row or index
        marker ...)."""
        key = as_key_bytes(NAME, key)
        head = self.head
        if key.startswith(head):
            if parts is not None and head:
                parts.append(Part(0, 1, "prefix", "74 't': a table key"))
                parts.append(Part(1, 9, "table", f"table id {self.options['table_id']}"))
                mark = "'_i': an index key" if head[10] == INDEX_MARK else "'_r': a row key"
                parts.append(Part(9, 11, "marker", mark))
                if len(head) > HEAD_LEN:
                    parts.append(Part(11, 19, "index", f"index id {self.options['index_id']}"))
            return len(head)
        at = next((i for i in range(min(len(head), len(key))) if key[i] != head[i]), len(key))
        what = {0: "'t' (a table key)"}.get(at) or ("the table id" if at < 9 else
                                                    "'_r' or '_i'" if at < HEAD_LEN
                                                    else "the index id")
        if at == len(key):
            raise DecodeError(f"invalid key: it ends inside the head, at {what}", offset=at,
                              found=b"", expected=head.hex(" "))
        raise DecodeError(f"invalid key: {what} differs from the codec's options", offset=at,
                          found=key[at:at + 1], expected=head.hex(" "))

    def decode_schemaless(self, key: bytes, annotate: list[list[Part]] | None = None
                          ) -> tuple[Any, ...]:
        """Every datum, typed by its flag alone: 01 bytes, 03/04/08/09 int, 05 float, 06
        Decimal, 07 timedelta (an int handle: an int)."""
        key = as_key_bytes(NAME, key)
        try:
            head: list[Part] | None = [] if annotate is not None else None
            pos = self.check_head(key, head)
            if self.int_handle:
                return (self._read_int_handle(key, pos, head, annotate),)
            if pos >= len(key):
                raise DecodeError("invalid encoded key: no datum", offset=pos, found=b"",
                                  expected="a datum")
            out: list[Any] = []
            while pos < len(key):
                parts: list[Part] | None = None
                if annotate is not None:
                    parts = (head or []) if not out else []
                    annotate.append(parts)
                value, pos = read_any(key, pos, parts)
                out.append(value)
        except LexCodecError as exc:
            raise exc.add_context(codec=NAME) from None
        return tuple(out)

    def _read_int_handle(self, key: bytes, pos: int, head: list[Part] | None,
                         annotate: list[list[Part]] | None) -> int:
        if len(key) != INT_HANDLE_KEY_LEN:
            raise DecodeError(f"invalid key: an int-handle row key is {INT_HANDLE_KEY_LEN} "
                              f"bytes, not {len(key)}", offset=min(len(key), INT_HANDLE_KEY_LEN),
                              found=key[INT_HANDLE_KEY_LEN:],
                              expected=f"{INT_HANDLE_KEY_LEN} bytes")
        if annotate is not None:
            parts = head if head is not None else []
            parts.append(Part(pos, pos + WIDTH, "payload", "the int handle: int64, sign bit "
                              "flipped, no flag byte"))
            annotate.append(parts)
        return int.from_bytes(key[pos:], "big") - SIGN_BIT

    # -- inspect --------------------------------------------------------------------------

    def inspect(self, key: bytes, schema: SchemaLike | None = None) -> Inspection:
        """Each datum's flag, payload (groups and markers, decimal header ...) or NULL, and
        the head of a framed key (``t``, table id, row or index marker, index id) with the
        first datum."""
        from .explain import inspect

        return inspect(self, key, schema)


class BoundTidb(BoundKey):
    """A bound ``tidb`` schema, the reference implementation: the head, then the datums."""

    __slots__ = ("codes", "common_handle", "head", "int_handle")

    def __init__(self, codec: TidbCodec, schema: KeySchema, plans: Sequence[FieldPlan]) -> None:
        super().__init__(codec, schema, plans)
        self.head = codec.head
        self.int_handle = codec.int_handle
        self.common_handle = codec.common_handle
        #: the plan data of each field (the compiled module is built from it)
        self.codes = tuple(field_code(f) for f in schema.fields)

    @property
    def nullable(self) -> tuple[bool, ...]:
        """Per field, whether it takes NULL: not in a handle (a primary key is NOT NULL)."""
        return tuple(not (self.int_handle or self.common_handle) for _ in self.codes)

    def encode(self, values: Sequence[Any]) -> bytes:
        return self.careful_encode(values)

    def decode(self, key: bytes) -> tuple[Any, ...]:
        return self.careful_decode(key)

    def _refuse_null(self, values: Sequence[Any]) -> None:
        if self.int_handle or self.common_handle:
            for i, v in enumerate(values):
                if v is None:
                    raise self._context(EncodeError(
                        "a handle is never NULL (it is the row's primary key)", value=None,
                        expected="a value"), i)

    def careful_encode(self, values: Sequence[Any]) -> bytes:
        """The head, then the datums (an int handle without its flag), every refusal typed."""
        values = self._check_arity(values)
        self._refuse_null(values)
        body = BoundKey.encode(self, values)
        return self.head + (body[1:] if self.int_handle else body)

    def careful_decode(self, key: bytes, annotate: list[list[Part]] | None = None
                       ) -> tuple[Any, ...]:
        """The head checked, then every field; every byte must be read."""
        codec = self.codec
        assert isinstance(codec, TidbCodec)
        data = as_key_bytes(NAME, key)
        head: list[Part] | None = [] if annotate is not None else None
        try:
            pos = codec.check_head(data, head)
            if self.int_handle:
                return (codec._read_int_handle(data, pos, head, annotate),)
        except LexCodecError as exc:
            raise exc.add_context(codec=NAME) from None
        out = []
        for i, plan in enumerate(self.plans):
            parts: list[Part] | None = None
            if annotate is not None:
                parts = (head or []) if i == 0 else []
                annotate.append(parts)
            read: Any = plan.decode
            try:
                value, pos = read(data, pos, parts)
            except LexCodecError as exc:
                raise self._context(exc, i) from None
            out.append(value)
        if pos != len(data):
            raise DecodeError("bytes left after the last field", codec=NAME, offset=pos,
                              found=data[pos:], expected="end of key")
        return tuple(out)

    def prefix_range(self, values: Sequence[Any]) -> tuple[bytes, bytes | None]:
        """``[P, strinc(P))`` with P the head and the prefix's datums (every datum is
        prefix-free)."""
        values = self._check_arity(values, prefix=True)
        self._refuse_null(values)
        body = self._encode_prefix(values)
        start = self.head + (body[1:] if self.int_handle else body)
        return start, strinc(start)


CAPABILITIES: Final = Capabilities(
    field_types=set(FIELD_KINDS),
    decoding="self-describing",
    descending=False,
    nulls="fixed",
    injective=False,
    prefix_free=True,
    schemaless=False,
    float_policy=FloatPolicy(nan="total", negative_zero="distinct"),
    anomalies=ANOMALIES,
    int_range=None,
    text_nul=True,
    notes="byte-identical with TiDB's util/codec EncodeKey and tablecodec (2018 master, checked "
          "against today's source and tikv/client-java); strings are raw UTF-8 (binary "
          "collation); keys are the TiDB datum/table keys, not TiKV's MVCC-wrapped RocksDB keys",
    readers=("Go (TiDB, TiDB Lightning, BR, TiCDC)", "Rust (TiKV coprocessor)",
             "Java (tikv/client-java, TiSpark)", "C++ (TiFlash)", "Python (lexcodecs)"),
)
