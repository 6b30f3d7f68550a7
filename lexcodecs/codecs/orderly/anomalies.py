"""The declared anomalies of ``orderly``: where byte order and value order knowingly disagree.

Theory of operation: Orderly's Java library has quirks a byte-compatible writer must copy
(spec §13, §14.8). Each is declared as data, an :class:`~lexcodecs.codec.Anomaly` with a witness
pair and, for the order and prefix-leak kinds, an *explainer*: a predicate the conformance
harness and ``compare`` call to tell a declared quirk from a bug. Which anomalies exist depends
on the codec's options (``struct_order``, ``struct_termination``), so :func:`anomalies` builds
them for one codec.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...codec import Anomaly
from ...errors import LexCodecError
from ...schema import KeySchema
from .format import AUTO, DEC_EXP_MAX, MUST, SHOULD_NOT
from .reference_decimal import adjusted_exponent, decimal_parts

if TYPE_CHECKING:
    from .codec import OrderlyCodec

# Each explainer is as narrow as its quirk: it looks at the first field where the two keys'
# values differ and says yes only when that field is written the quirky way in this codec's
# configuration (its effective order and termination in that very key).


def _same_value(x: Any, y: Any) -> bool:
    """One point of the natural order (NaNs are one value, -0.0 is not +0.0)."""
    if isinstance(x, float) and isinstance(y, float):
        if x != x and y != y:
            return True
        return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)
    if (x is None) != (y is None):
        return False
    try:
        return bool(x == y)
    except Exception:
        return False


def _first_difference(a: Sequence[Any], b: Sequence[Any]) -> int | None:
    for i, (x, y) in enumerate(zip(a, b)):
        if not _same_value(x, y):
            return i
    return None


def _unterminated(codec: OrderlyCodec, schema: KeySchema, values: Sequence[Any], i: int
                  ) -> bool:
    """Field *i* of the key of *values* is written without its terminator (t false)."""
    bound = codec.bind(schema)
    term = bound.declared[i]
    if term != SHOULD_NOT:
        padded = list(values) + [None] * (len(schema) - len(values))
        try:
            later = bound.field_lengths(padded)[i + 1:]
        except LexCodecError:
            return False
        term = MUST if any(later) else str(codec.options["struct_termination"])
    return term == SHOULD_NOT or (term == AUTO and not bound.codecs[i].desc)


def _negative_even(v: Any) -> tuple[str, int] | None:
    """(digits, adjusted exponent) of a negative Decimal with an even digit count."""
    if not isinstance(v, decimal.Decimal) or not v.is_finite():
        return None
    parts = decimal_parts(v)
    if parts is None or not parts[0]:
        return None
    return parts[1], adjusted_exponent(parts)


def _decimal_prefix_pair(x: Any, y: Any) -> bool:
    """x is negative with an even digit count, y negative with the same adjusted exponent
    and digits that strictly extend x's: x's unterminated digits are a prefix of y's."""
    px = _negative_even(x)
    if px is None or len(px[0]) % 2 or not isinstance(y, decimal.Decimal) or \
            not y.is_finite():
        return False
    py = decimal_parts(y)
    return (py is not None and py[0] and adjusted_exponent(py) == px[1]
            and len(py[1]) > len(px[0]) and py[1].startswith(px[0]))


def anomalies(codec: OrderlyCodec) -> tuple[Anomaly, ...]:
    struct_desc = codec.struct_desc

    def ascending_decimal(schema: KeySchema, i: int) -> bool:
        f = schema.fields[i]
        return f.type == "decimal" and f.descending == struct_desc

    def negative_prefix(schema: KeySchema | None, a: tuple[Any, ...],
                        b: tuple[Any, ...]) -> bool:
        if schema is None:
            return False
        i = _first_difference(a, b)
        if i is None or not ascending_decimal(schema, i):
            return False
        # b < a as keys: b's value is the short, unterminated one
        return _decimal_prefix_pair(b[i], a[i]) and _unterminated(codec, schema, b, i)

    def prefix_parts(schema: KeySchema, prefix: tuple[Any, ...]) -> list[bytes] | None:
        """Each prefix field's bytes in the range's start (a k-field struct)."""
        bound = codec.bind(schema)
        try:
            checked = bound._checked(prefix, prefix=True)
        except LexCodecError:
            return None
        return bound._parts(checked, str(codec.options["struct_termination"]))

    def negative_prefix_range(schema: KeySchema | None, prefix: tuple[Any, ...],
                              values: tuple[Any, ...]) -> bool:
        if schema is None or not prefix:
            return False
        parts = prefix_parts(schema, prefix)
        written = [j for j, p in enumerate(parts or ()) if p]
        if not written:
            return False
        i = written[-1]  # the last prefix field with bytes in the start
        return (ascending_decimal(schema, i) and _first_difference(values, prefix) == i
                and _decimal_prefix_pair(prefix[i], values[i]))

    def scale_overflow(schema: KeySchema | None, a: tuple[Any, ...],
                       b: tuple[Any, ...]) -> bool:
        i = _first_difference(a, b)
        if i is None or (schema is not None and schema.fields[i].type != "decimal"):
            return False
        for v in (a[i], b[i]):
            if isinstance(v, decimal.Decimal) and v.is_finite():
                parts = decimal_parts(v)
                if parts is not None and parts[2] == DEC_EXP_MAX:
                    return True
        return False

    def variable_length(schema: KeySchema, i: int) -> bool:
        f = schema.fields[i]
        return f.type in ("string", "decimal") or (
            f.type == "bytes" and f.options.get("encoding", "var") == "var")

    def should_not_desc(schema: KeySchema | None, a: tuple[Any, ...],
                        b: tuple[Any, ...]) -> bool:
        if schema is None:
            return False
        i = _first_difference(a, b)
        if i is None or schema.fields[i].descending == struct_desc:
            return False  # not effectively descending
        if not (variable_length(schema, i) or a[i] is None or b[i] is None):
            return False
        bound = codec.bind(schema)
        return any(bound.declared[i] == SHOULD_NOT or (
            codec.options["struct_termination"] == SHOULD_NOT
            and _unterminated(codec, schema, v, i)) for v in (a, b))

    def should_not_desc_range(schema: KeySchema | None, prefix: tuple[Any, ...],
                              values: tuple[Any, ...]) -> bool:
        if schema is None or not prefix or codec.options["struct_termination"] != SHOULD_NOT:
            return False
        d = _first_difference(values, prefix)
        parts = prefix_parts(schema, prefix)
        if d is None or parts is None or any(parts[d + 1:]):
            return False  # the leak comes from the last prefix bytes written, or none
        # field d, effectively descending, is written unterminated (a variable-length value)
        # or not at all (NULL) in the start of the range
        return schema.fields[d].descending != struct_desc and (
            not parts[d] or variable_length(schema, d))

    overflow = decimal.Decimal("1E+2147483648")
    # witness schemas name the direction that is *effective* in this configuration
    asc, desc = (" desc", "") if struct_desc else ("", " desc")
    term = codec.options["struct_termination"]
    found: list[Anomaly] = [
        Anomaly("decimal-negative-prefix", "order",
                "an ascending decimal written without a terminator (the last non-empty "
                "field, not MUST) whose value is negative with an even digit count is a "
                "byte prefix of longer negatives with the same exponent, so it sorts first "
                "although it is larger: -1.2 -> 5f dc < -1.23 -> 5f dc bf",
                witness=((decimal.Decimal("-1.23"),), (decimal.Decimal("-1.2"),)),
                schema=f"d:decimal{asc} termination=SHOULD_NOT", explains=negative_prefix),
    ]
    if term != MUST:  # under MUST the start of a range is terminated too
        found.append(Anomaly(
            "decimal-negative-prefix-range", "prefix-leak",
            "the same quirk seen by prefix ranges: the range of a negative decimal with an "
            "even digit count holds the longer negatives it is a byte prefix of: prefix "
            "(-1.2,) holds (-1.23, None)",
            witness=((decimal.Decimal("-1.2"),), (decimal.Decimal("-1.23"), None)),
            schema=f"d:decimal{asc}, x:int64{asc}", explains=negative_prefix_range))
    found += [
        Anomaly("decimal-scale-overflow", "order",
                "a decimal whose exponent is +2**31 (Java scale -2**31) is written with an "
                "overflowed adjusted exponent and sorts among tiny numbers: 1E+2147483648 "
                "-> c3 80 00 00 00 20 < 1 -> e0 20",
                witness=((decimal.Decimal(1),), (overflow,)), schema=f"d:decimal{asc}",
                explains=scale_overflow),
        Anomaly("should-not-descending", "order",
                "with SHOULD_NOT on a descending field, variable-length values lose their "
                "terminator and NULL becomes empty, so a value sorts before its extensions "
                "and NULL first: 'a' -> 9c < 'ab' -> 9c 9b, though descending wants 'ab' "
                "first",
                witness=(("ab",), ("a",)), schema=f"s:string{desc} termination=SHOULD_NOT",
                explains=should_not_desc),
    ]
    if term == SHOULD_NOT:
        found.append(Anomaly(
            "should-not-descending-range", "prefix-leak",
            "the same quirk seen by prefix ranges under struct_termination=SHOULD_NOT: the "
            "range of an unterminated descending prefix value holds its extensions",
            witness=(("a",), ("ab", None)), schema=f"s:string{desc}, t:string{asc}",
            explains=should_not_desc_range))
    return (
        *found,
        Anomaly("long-9-byte-negative-header", "interop",
                "int64 values below -2**58 have header data bits 00 instead of the sign "
                "extension 11 (header 04 ascending, fb descending); order is unaffected, "
                "and a byte-compatible writer must copy it (see the vectors)"),
        Anomaly("varbytes-null-java-undecodable", "interop",
                "Java writes an explicit NULL for variable-length bytes (00 ascending when "
                "terminated, ff descending) that its own decoder and skip cannot read; "
                "lexcodecs decodes it as None"),
    )
