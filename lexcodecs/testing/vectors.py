"""Load the JSON test vectors of ``conformance/vectors/`` into Python values.

Theory of operation: every codec ships a vector file whose bytes were produced by the format's
reference implementation (``vectors/FORMAT.md`` in the shared design folder says how). A file
is a JSON object::

    {"codec": "skv", "oracle": "what produced the bytes", "notes": ...,
     "cases": [{"fields": [{"type": "int32"}], "values": [{"int": "-5"}],
                "hex": "0302fffffffa0001"}, ...],
     "<extra list>": [...], ...}

A *case* is one whole key: ``values[i]`` is the value of ``fields[i]``; ``hex`` is the
expected key, or ``error`` says the case must be refused. ``fields`` is absent for schemaless
codecs. ``note``, ``source`` and ``options`` (codec options for that case) may appear on any
case. Each codec's file has extra top-level lists (``ranges``, ``helpers``,
``decode_errors``, ``sorted_order`` ...) described in that codec's spec; they are kept raw and
read with :meth:`VectorFile.section`.

Values are *typed* JSON objects with exactly one type key, so that every value is exact
(64-bit floats as bits, integers as decimal strings of any size)::

    {"null": null}  {"bool": true}  {"int": "-5"}  {"int": "-5", "width": "int8"}
    {"f64": "400921fb54442d18"}  {"f32": "40490fdb"}  {"str": "abc"}  {"bytes": "00ff"}
    {"uuid": "550e8400-..."}  {"decimal": "-1.230"}  {"ts_ns": "1700000000000000000"}
    {"dur_ns": "42000"}  {"tuple": [...]}  {"end": null}  {"infinity": null}  {"undefined": null}
    {"some": {"null": null}}
    {"vs": {"tr": "0102030405060708090a", "user": 657}}

(``{"infinity": null}`` is Google orderedcode's ``Infinity``,
:data:`~lexcodecs.types.INFINITY`: a string-field value above every string.)

:func:`typed_value` turns one into the Python value the codecs take:

>>> typed_value({"int": "-5", "width": "int8"})
Int8(-5)
>>> typed_value({"f64": "8000000000000000"})
-0.0
>>> typed_value({"decimal": "-1.230"})
Decimal('-1.230')
>>> typed_value({"tuple": [{"str": "a"}, {"null": None}]})
('a', None)
>>> typed_value({"infinity": None})
INFINITY
>>> typed_value({"ts_ns": "1700000000000000000"})
datetime.datetime(2023, 11, 14, 22, 13, 20, tzinfo=datetime.timezone.utc)
>>> typed_value({"dur_ns": "42"})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
lexcodecs.testing.vectors.Unrepresentable: dur_ns 42 is not a whole number ... nanoseconds

Python's ``datetime`` and ``timedelta`` have microsecond resolution, so an instant or a
duration that is not a multiple of 1000 ns raises :class:`Unrepresentable`; the case loader
then sets ``values=None`` and ``skip_reason`` (a Python harness skips such a case).

An *error* case may hold a value that lexcodecs refuses as soon as it is built, such as
``{"int": "128", "width": "int8"}`` (``Int8(128)`` raises ``EncodeError``): the refusal the
case asks for has then already happened. The loader keeps such a case with ``values=None``
and the message in ``build_error``; codec tests count it as refused. A value that cannot be
built in a case that expects bytes is a broken file and raises :class:`VectorFormatError`.

The API: :func:`load_vectors` (a path or a codec name), :class:`VectorFile`,
:class:`VectorCase`, :func:`typed_value`, :func:`typed_values`, :func:`schema_from_fields`,
:func:`hex_to_bytes`, :func:`find_vectors_dir`.

>>> vf = load_vectors("skv")                                 # doctest: +SKIP
>>> [c.key.hex() for c in vf.cases if c.key][:1]             # doctest: +SKIP
['0302fffffffa0001']
"""

from __future__ import annotations

import datetime
import decimal
import difflib
import json
import os
import re
import struct
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import attrs

from ..errors import LexCodecError
from ..schema import KeySchema
from ..types import END, INFINITY, INT_TYPES, UNDEFINED, WIDE_INT_TYPES, Float32, Some, Versionstamp

__all__ = [
    "ENV_VAR",
    "EPOCH",
    "Unrepresentable",
    "VectorCase",
    "VectorFile",
    "VectorFormatError",
    "check_each",
    "find_vectors_dir",
    "hex_to_bytes",
    "load_vectors",
    "schema_from_fields",
    "typed_value",
    "typed_values",
]

#: Environment variable naming a directory of ``<codec>.json`` vector files.
ENV_VAR: Final = "LEXCODECS_VECTORS"

#: The Unix epoch as an aware UTC datetime; ``ts_ns`` values are offsets from it.
EPOCH: Final = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)

_HEX_RE: Final = re.compile(r"(?:[0-9a-fA-F]{2})*\Z")
_INT_RE: Final = re.compile(r"-?[0-9]+\Z")
_NAME_RE: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*\Z")
_F64: Final = struct.Struct(">d")
_U64: Final = struct.Struct(">Q")
_NOTE_LIMIT: Final = 40


class Unrepresentable(ValueError):
    """A typed value that has no exact Python form (a nanosecond ``ts_ns`` or ``dur_ns``)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class VectorFormatError(ValueError):
    """A vector file, case or typed value that does not follow ``FORMAT.md``."""


# -- typed values ---------------------------------------------------------------------------


def hex_to_bytes(text: str) -> bytes:
    """Bytes from an even-length hex string (no spaces or ``0x``).

    >>> hex_to_bytes("00ff")
    b'\\x00\\xff'
    """
    if not isinstance(text, str) or not _HEX_RE.match(text):
        raise ValueError(f"not an even-length hex string: {text!r}")
    return bytes.fromhex(text)


def _int_text(key: str, raw: Any) -> int:
    """An integer from a decimal string (or a JSON number that is an int, not a bool)."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and _INT_RE.match(raw):
        return int(raw)
    raise VectorFormatError(f"{key!r} needs a decimal integer string, got {raw!r}")


def _bits(key: str, raw: Any, digits: int) -> int:
    if not isinstance(raw, str) or len(raw) != digits or not _HEX_RE.match(raw):
        raise VectorFormatError(f"{key!r} needs {digits} hex digits, got {raw!r}")
    return int(raw, 16)


def _expect(key: str, raw: Any, kind: type | tuple[type, ...], what: str) -> None:
    if not isinstance(raw, kind) or (kind is not bool and isinstance(raw, bool)):
        raise VectorFormatError(f"{key!r} needs {what}, got {raw!r}")


def _from_int(obj: Mapping[str, Any]) -> Any:
    number = _int_text("int", obj["int"])
    width = obj.get("width")
    if width is None or width == "int":
        return number
    widths = {**INT_TYPES, **WIDE_INT_TYPES}
    cls = widths.get(width) if isinstance(width, str) else None
    if cls is None:
        raise VectorFormatError(
            f"unknown int width {width!r}; expected 'int' or one of {', '.join(widths)}")
    return cls(number)  # out of range raises lexcodecs EncodeError


def _from_f64(obj: Mapping[str, Any]) -> Any:
    return float(_F64.unpack(_U64.pack(_bits("f64", obj["f64"], 16)))[0])


def _from_f32(obj: Mapping[str, Any]) -> Any:
    return Float32.from_bits(_bits("f32", obj["f32"], 8))


def _from_null(obj: Mapping[str, Any]) -> Any:
    if obj["null"] is not None:
        raise VectorFormatError(f"'null' needs null, got {obj['null']!r}")
    return None


def _from_bool(obj: Mapping[str, Any]) -> Any:
    _expect("bool", obj["bool"], bool, "true or false")
    return obj["bool"]


def _from_str(obj: Mapping[str, Any]) -> Any:
    _expect("str", obj["str"], str, "a string")
    return obj["str"]


def _from_bytes(obj: Mapping[str, Any]) -> Any:
    try:
        return hex_to_bytes(obj["bytes"])
    except ValueError as exc:
        raise VectorFormatError(f"'bytes': {exc}") from None


def _from_uuid(obj: Mapping[str, Any]) -> Any:
    _expect("uuid", obj["uuid"], str, "a UUID string")
    try:
        return uuid.UUID(obj["uuid"])
    except ValueError:
        raise VectorFormatError(f"'uuid': not a UUID: {obj['uuid']!r}") from None


def _from_decimal(obj: Mapping[str, Any]) -> Any:
    _expect("decimal", obj["decimal"], str, "a decimal string")
    try:
        return decimal.Decimal(obj["decimal"])
    except decimal.InvalidOperation:
        raise VectorFormatError(f"'decimal': not a decimal: {obj['decimal']!r}") from None


def _microseconds(key: str, raw: Any, what: str) -> int:
    ns = _int_text(key, raw)
    micros, rest = divmod(ns, 1000)
    if rest:
        raise Unrepresentable(
            f"{key} {ns} is not a whole number of microseconds: {what} cannot hold nanoseconds")
    return micros


def _from_ts_ns(obj: Mapping[str, Any]) -> Any:
    micros = _microseconds("ts_ns", obj["ts_ns"], "datetime.datetime")
    try:
        return EPOCH + datetime.timedelta(microseconds=micros)
    except OverflowError:
        raise Unrepresentable(f"ts_ns {obj['ts_ns']} nanoseconds since the epoch is outside "
                              "datetime.datetime's range (years 1..9999)") from None


def _from_dur_ns(obj: Mapping[str, Any]) -> Any:
    micros = _microseconds("dur_ns", obj["dur_ns"], "datetime.timedelta")
    try:
        return datetime.timedelta(microseconds=micros)
    except OverflowError:
        raise Unrepresentable(f"dur_ns {obj['dur_ns']} nanoseconds is outside "
                              "datetime.timedelta's range") from None


def _from_tuple(obj: Mapping[str, Any]) -> Any:
    _expect("tuple", obj["tuple"], list, "a list of typed values")
    return typed_values(obj["tuple"])


def _from_end(obj: Mapping[str, Any]) -> Any:
    if obj["end"] is not None:
        raise VectorFormatError(f"'end' needs null, got {obj['end']!r}")
    return END


def _from_infinity(obj: Mapping[str, Any]) -> Any:
    if obj["infinity"] is not None:
        raise VectorFormatError(f"'infinity' needs null, got {obj['infinity']!r}")
    return INFINITY


def _from_some(obj: Mapping[str, Any]) -> Any:
    inner = typed_value(obj["some"])
    if inner is not None and type(inner) is not Some:
        raise VectorFormatError("'some' wraps null or another 'some' (a value present at "
                                f"every level is written plainly), got {obj['some']!r}")
    return Some(inner)


def _from_undefined(obj: Mapping[str, Any]) -> Any:
    if obj["undefined"] is not None:
        raise VectorFormatError(f"'undefined' needs null, got {obj['undefined']!r}")
    return UNDEFINED


def _from_vs(obj: Mapping[str, Any]) -> Any:
    raw = obj["vs"]
    if not isinstance(raw, Mapping) or set(raw) != {"tr", "user"}:
        raise VectorFormatError(f"'vs' needs {{\"tr\": hex or null, \"user\": int}}, got {raw!r}")
    tr = raw["tr"]
    if tr is not None:
        try:
            tr = hex_to_bytes(tr)
        except ValueError as exc:
            raise VectorFormatError(f"'vs' tr: {exc}") from None
    user = raw["user"]
    _expect("vs user", user, int, "an integer")
    return Versionstamp(tr, user)


_CONVERTERS: Final = {
    "null": _from_null,
    "bool": _from_bool,
    "int": _from_int,
    "f64": _from_f64,
    "f32": _from_f32,
    "str": _from_str,
    "bytes": _from_bytes,
    "uuid": _from_uuid,
    "decimal": _from_decimal,
    "ts_ns": _from_ts_ns,
    "dur_ns": _from_dur_ns,
    "tuple": _from_tuple,
    "end": _from_end,
    "infinity": _from_infinity,
    "some": _from_some,
    "undefined": _from_undefined,
    "vs": _from_vs,
}


def typed_value(json_obj: Mapping[str, Any]) -> Any:
    """The Python value of one typed JSON value (see the module docstring for the table).

    Raises :class:`Unrepresentable` for a ``ts_ns``/``dur_ns`` that Python cannot hold,
    :class:`VectorFormatError` (a ``ValueError``) for an unknown type key or a malformed
    payload, and the lexcodecs error of a wrapper that refuses its value (``Int8(128)``).
    """
    if not isinstance(json_obj, Mapping):
        raise VectorFormatError(f"a typed value is a JSON object, got {json_obj!r}")
    keys = [k for k in json_obj if k != "width"]
    if len(keys) != 1:
        raise VectorFormatError(
            f"a typed value has exactly one type key, got {sorted(json_obj)!r}")
    key = keys[0]
    convert = _CONVERTERS.get(key)
    if convert is None:
        close = difflib.get_close_matches(str(key), _CONVERTERS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise VectorFormatError(f"unknown typed value key {key!r}{hint}; expected one of "
                                f"{', '.join(_CONVERTERS)}")
    if "width" in json_obj and key != "int":
        raise VectorFormatError(f"'width' only goes with 'int', not with {key!r}")
    return convert(json_obj)


def typed_values(json_list: Sequence[Mapping[str, Any]]) -> tuple[Any, ...]:
    """A tuple of :func:`typed_value` results, for the ``values`` lists of cases and sections."""
    if isinstance(json_list, (str, bytes, Mapping)) or not isinstance(json_list, Sequence):
        raise VectorFormatError(f"values must be a list of typed values, got {json_list!r}")
    return tuple(typed_value(v) for v in json_list)


#: the Rust files' spellings of a serde type (a base type and a marker key) -> the schema's
#: type: ``{"type": "int", "width": "int128"}`` is an ``int128`` field, ``{"type": "string",
#: "char": true}`` a ``char``, ``{"type": "uint32", "variant": true}`` an enum's ``variant``
_MARKED_TYPES: Final[dict[str, tuple[str, dict[Any, str]]]] = {
    "width": ("int", {"int128": "int128", "uint128": "uint128"}),
    "char": ("string", {True: "char"}),
    "variant": ("uint32", {True: "variant"}),
}


def _field_dict(field: Mapping[str, Any]) -> Mapping[str, Any]:
    marks = [k for k in _MARKED_TYPES if k in field]
    if not marks:
        return field
    if len(marks) > 1:
        raise VectorFormatError(f"a field has one type marker, got {marks}: {dict(field)!r}")
    base, types = _MARKED_TYPES[marks[0]]
    mark = field[marks[0]]
    if field.get("type") != base or type(mark) not in (str, bool) or mark not in types:
        raise VectorFormatError(
            f"{marks[0]!r} goes with type {base!r} and one of {list(types)}: {dict(field)!r}")
    rest = {k: v for k, v in field.items() if k != marks[0]}
    return {**rest, "type": types[mark]}


def schema_from_fields(fields: Iterable[Mapping[str, Any]]) -> KeySchema:
    """The schema of a case's ``fields`` list; unnamed fields are called f0, f1, ...

    >>> str(schema_from_fields([{"type": "int", "width": "uint128"},
    ...                         {"type": "string", "char": True, "nullable": 2}]))
    'f0:uint128, f1:char nullable=2'
    """
    return KeySchema.from_dict({"fields": [_field_dict(f) for f in fields]})


# -- cases and files ------------------------------------------------------------------------


@attrs.frozen(eq=False)
class VectorCase:
    """One case of a vector file: a whole key, or a refusal.

    ``values`` is ``None`` when the values cannot be built: ``skip_reason`` then says why
    Python cannot hold one (nanoseconds), or ``build_error`` holds the refusal lexcodecs
    already raised while building them for an error case. ``key`` is the expected key
    (``None`` for an error case); ``schema`` is ``None`` for a schemaless case.
    """

    index: int
    values: tuple[Any, ...] | None
    value_json: list[Any]
    schema: KeySchema | None
    key: bytes | None
    error: str | None = None
    options: dict[str, Any] = attrs.field(factory=dict)
    note: str | None = None
    source: str | None = None
    skip_reason: str | None = None
    build_error: str | None = None
    raw: dict[str, Any] = attrs.field(factory=dict)

    @property
    def id(self) -> str:
        """A short readable test id: ``cases[12]`` and the start of the note."""
        text = f"cases[{self.index}]"
        if self.note:
            note = " ".join(self.note.split())
            if len(note) > _NOTE_LIMIT:
                note = note[: _NOTE_LIMIT - 1] + "…"
            text += f" {note}"
        return text

    @property
    def expects_error(self) -> bool:
        return self.error is not None

    @property
    def runnable(self) -> bool:
        """True when a codec can be run on the case (values built, nothing to skip)."""
        return self.values is not None

    @classmethod
    def from_json(cls, index: int, data: Mapping[str, Any]) -> VectorCase:
        """Build case *index* from its JSON object; malformed cases raise VectorFormatError."""
        where = f"cases[{index}]"
        if not isinstance(data, Mapping):
            raise VectorFormatError(f"{where}: a case is a JSON object, got {data!r}")
        if "values" not in data or not isinstance(data["values"], list):
            raise VectorFormatError(f"{where}: a case needs a 'values' list")
        has_hex, has_error = "hex" in data, "error" in data
        if has_hex == has_error:
            raise VectorFormatError(f"{where}: a case has exactly one of 'hex' and 'error'")
        key: bytes | None = None
        if has_hex:
            try:
                key = hex_to_bytes(data["hex"])
            except ValueError as exc:
                raise VectorFormatError(f"{where} hex: {exc}") from None
        error = data.get("error")
        if has_error and not isinstance(error, str):
            raise VectorFormatError(f"{where}: 'error' must be a string, got {error!r}")
        options = data.get("options", {})
        if not isinstance(options, Mapping):
            raise VectorFormatError(f"{where}: 'options' must be an object, got {options!r}")
        skip_reason: str | None = None
        build_error: str | None = None
        values: tuple[Any, ...] | None
        try:
            values = typed_values(data["values"])
        except Unrepresentable as exc:
            values, skip_reason = None, exc.reason
        except VectorFormatError as exc:
            raise VectorFormatError(f"{where}: {exc}") from exc
        except LexCodecError as exc:  # e.g. Int8(128): the refusal happens when it is built
            if not has_error:
                raise VectorFormatError(
                    f"{where}: a case with 'hex' has a value lexcodecs refuses: {exc}") from exc
            values, build_error = None, f"{type(exc).__name__}: {exc}"
        schema: KeySchema | None = None
        if "fields" in data:
            try:
                schema = schema_from_fields(data["fields"])
            except LexCodecError as exc:
                if not has_error:
                    raise VectorFormatError(f"{where}: bad fields: {exc}") from exc
                build_error = build_error or f"{type(exc).__name__}: {exc}"
        return cls(
            index=index,
            values=values,
            value_json=list(data["values"]),
            schema=schema,
            key=key,
            error=error,
            options=dict(options),
            note=data.get("note"),
            source=data.get("source"),
            skip_reason=skip_reason,
            build_error=build_error,
            raw=dict(data),
        )


@attrs.frozen(eq=False)
class VectorFile:
    """A parsed vector file: its cases, and the raw JSON for the codec's extra lists."""

    codec: str
    oracle: str | None
    notes: Any
    cases: tuple[VectorCase, ...]
    path: Path | None
    raw: dict[str, Any]

    def section(self, name: str) -> list[dict[str, Any]]:
        """The raw entries of an extra top-level list (``ranges``, ``helpers`` ...), or []."""
        entries = self.raw.get(name)
        if entries is None:
            return []
        if not isinstance(entries, list):
            raise VectorFormatError(f"{self.codec}: {name!r} is not a list")
        return entries

    @property
    def sections(self) -> tuple[str, ...]:
        """The names of the extra top-level lists (every list except ``cases``)."""
        return tuple(k for k, v in self.raw.items() if k != "cases" and isinstance(v, list))

    def __len__(self) -> int:
        return len(self.cases)

    @classmethod
    def from_json(cls, data: Mapping[str, Any], path: Path | None = None) -> VectorFile:
        where = str(path) if path is not None else "vector file"
        if not isinstance(data, Mapping):
            raise VectorFormatError(f"{where}: the top level is a JSON object")
        codec = data.get("codec")
        if not isinstance(codec, str):
            raise VectorFormatError(f"{where}: needs a 'codec' string")
        raw_cases = data.get("cases")
        if not isinstance(raw_cases, list):
            raise VectorFormatError(f"{where}: needs a 'cases' list")
        try:
            cases = tuple(VectorCase.from_json(i, c) for i, c in enumerate(raw_cases))
        except VectorFormatError as exc:
            raise VectorFormatError(f"{where}: {exc}") from exc
        oracle = data.get("oracle")
        return cls(codec=codec, oracle=oracle if isinstance(oracle, str) else None,
                   notes=data.get("notes"), cases=cases, path=path, raw=dict(data))


def check_each(cases: Iterable[VectorCase], check: Callable[[VectorCase], None]) -> None:
    """Run *check* on every case and fail once, naming each case that failed (its index,
    the start of its bytes) with its assertion: a test of a group of cases then reports
    all of the group's failures, not only the first.

    >>> def small(case: VectorCase) -> None:
    ...     assert len(case.raw["hex"]) <= 2, "too long"
    >>> cases = [VectorCase.from_json(i, {"values": [], "hex": h}) for i, h in
    ...          enumerate(["00", "0102"])]
    >>> check_each(cases, small)
    Traceback (most recent call last):
    ...
    AssertionError: cases[1] 0102: too long
    """
    failed = []
    for case in cases:
        try:
            check(case)
        except AssertionError as exc:
            failed.append(f"cases[{case.index}] {str(case.raw.get('hex'))[:40]}: {exc}")
    if failed:
        raise AssertionError("\n".join(failed))


# -- finding and loading files --------------------------------------------------------------


def _candidate_dirs() -> list[Path]:
    """``conformance/vectors`` directories above the working directory and above this file."""
    found: list[Path] = []
    for start in (Path.cwd(), Path(__file__).resolve().parent):
        for directory in (start, *start.parents):
            candidate = directory / "conformance" / "vectors"
            if candidate.is_dir() and candidate not in found:
                found.append(candidate)
    return found


def find_vectors_dir(codec_name: str | None = None) -> Path:
    """The directory holding ``<codec_name>.json`` (or any vector directory if no name).

    ``$LEXCODECS_VECTORS`` wins when set; otherwise the first ``conformance/vectors`` found
    walking up from the working directory, then from this module.
    """
    env = os.environ.get(ENV_VAR)
    if env:
        directory = Path(env)
        if codec_name is not None and not (directory / f"{codec_name}.json").is_file():
            raise FileNotFoundError(f"no {codec_name}.json in ${ENV_VAR}={env}"
                                    f"{_available_hint([directory], codec_name)}")
        if not directory.is_dir():
            raise FileNotFoundError(f"${ENV_VAR}={env} is not a directory")
        return directory
    candidates = _candidate_dirs()
    for directory in candidates:
        if codec_name is None or (directory / f"{codec_name}.json").is_file():
            return directory
    searched = ", ".join(map(str, candidates)) or "no conformance/vectors directory found"
    what = f"{codec_name}.json" if codec_name else "a vector directory"
    raise FileNotFoundError(f"cannot find {what} (searched: {searched}; set ${ENV_VAR})"
                            f"{_available_hint(candidates, codec_name)}")


def _available_hint(directories: list[Path], codec_name: str | None) -> str:
    names = sorted({p.stem for d in directories if d.is_dir() for p in d.glob("*.json")})
    if not names:
        return ""
    close = difflib.get_close_matches(codec_name or "", names, n=2)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    return f"; available: {', '.join(names)}{hint}"


def _is_name(arg: str | os.PathLike[str]) -> bool:
    return isinstance(arg, str) and not arg.endswith(".json") and bool(_NAME_RE.match(arg))


def load_vectors(path_or_codec_name: str | os.PathLike[str]) -> VectorFile:
    """Load a vector file from a path, or the bundled ``<codec>.json`` for a codec name.

    A string ending in ``.json`` or holding a path separator is a path; anything else is a
    codec name, looked up with :func:`find_vectors_dir`.
    """
    if _is_name(path_or_codec_name):
        name = str(path_or_codec_name)
        path = find_vectors_dir(name) / f"{name}.json"
    else:
        path = Path(path_or_codec_name)
    with path.open(encoding="utf-8") as handle:
        try:
            data = json.load(handle)
        except json.JSONDecodeError as exc:
            raise VectorFormatError(f"{path}: not JSON: {exc}") from None
    return VectorFile.from_json(data, path)
