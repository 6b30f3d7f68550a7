"""The declared anomalies of ``ordered-binary``: where lmdb-js's keys knowingly surprise.

Theory of operation: ordered-binary keeps JS values in order for the common cases, but its
format has no tags for raw bytes, no escaping in long strings, no marker for nested arrays,
the sign bit of -0 read as a type byte, and a reader that normalises what it cannot tell
apart. Each such place is declared here as data, with a witness the conformance harness (and
``tests/test_ordered_binary.py``) checks, and an ``explains`` predicate kept as narrow as the
anomaly. Witnesses are schemaless (``schema=None``): the codec has no schema binding.

The byte-exact facts behind them are in the vectors (their ``decoded`` values) and in the spec
``ordered-binary.md`` §7-§8.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from typing import Any, Final

from ...codec import Anomaly
from ...schema import KeySchema
from .format import JsSymbol

__all__ = ["ANOMALIES", "LONG_STRING", "NO_CARRY_WITNESS"]

_D: Final = struct.Struct(">d")
_Q: Final = struct.Struct(">Q")
_LONE: Final = re.compile("[\ud800-\udfff]")

#: UTF-16 units from which a string is written unescaped (``format.LONG_STRING_UNITS``)
LONG_STRING: Final = 64

#: a negative int whose nearest double rounds towards zero and has all-ones low 32 bits:
#: ordered-binary steps it down without a carry (see ``reference_encode._write_int``)
NO_CARRY_WITNESS: Final = -(2**52 + 2**32 - 1) * 4 - 1


def _negative_zero(x: Any) -> bool:
    return type(x) is float and x == 0.0 and _D.pack(x)[0] & 0x80 != 0


def _units(text: str) -> int:
    return len(text) + sum(1 for c in text if c > "\uffff")


def _long_with_low_controls(x: Any) -> bool:
    """A string written unescaped (64+ UTF-16 units) holding a character 00..04."""
    return type(x) is str and _units(x) >= LONG_STRING and any(c <= "\x04" for c in x)


def _raw_bytes(x: Any) -> bool:
    return type(x) in (bytes, bytearray, memoryview)


def _nested(x: Any) -> bool:
    return type(x) in (tuple, list)


def _anywhere(test: Callable[[Any], bool]) -> Callable[..., bool]:
    """An explainer: some value of either side (nested ones included) passes *test*."""

    def walk(values: Any) -> bool:
        return any(test(v) or (_nested(v) and walk(v)) for v in values)

    def explains(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
        return walk(a) or walk(b)

    return explains


def _late_null(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """A null from the third value on: the reader may take its 00 for a separator."""
    return any(v is None for v in a[2:])


def _symbol_then_null(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]
                      ) -> bool:
    return any(type(a[i]) is JsSymbol and a[i + 1] is None for i in range(len(a) - 1))


def _long_with_surrogate(x: Any) -> bool:
    return type(x) is str and _units(x) >= LONG_STRING and _LONE.search(x) is not None


def _empty_key(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return tuple(b) == ("",) and all(v == b"" or (_nested(v) and not v) for v in a)


def _steps_without_carry(x: Any) -> bool:
    """An int that ordered-binary steps down to the wrong double (no carry)."""
    if type(x) is not int or x >= 0:
        return False
    try:
        nearest = float(x)
    except OverflowError:
        return False
    return int(nearest) > x and _Q.unpack(_D.pack(nearest))[0] & 0xFFFF_FFFF == 0xFFFF_FFFF


ANOMALIES: Final[tuple[Anomaly, ...]] = (
    Anomaly("negative-zero-above-nan", "order",
            "-0.0 has the sign bit but is not < 0, so ordered-binary writes it as a "
            "non-negative number with the sign bit: 18 00 00 00, above +0.0, every number, "
            "+inf and NaN (17 ff 80 00), and below the strings",
            witness=((-0.0,), (0.0,)), explains=_anywhere(_negative_zero)),
    Anomaly("negative-zero-decodes-as-string", "round-trip",
            "-0.0 (18 00 00 00) is read back as the string '\\x18' followed by nulls",
            witness=((-0.0,),), explains=_anywhere(_negative_zero)),
    Anomaly("long-strings-unescaped-order", "order",
            "strings of 64 UTF-16 units or more are plain UTF-8: a character 00..04 is not "
            "escaped (04 c) as in shorter strings, so such a string can sort below a shorter "
            "one it extends: 'a'*62 + '\\x01' > 'a'*62 + '\\x01b' as keys",
            witness=(("a" * 62 + "\x01",), ("a" * 62 + "\x01b",)),
            explains=_anywhere(_long_with_low_controls)),
    Anomaly("long-strings-unescaped-collision", "collision",
            "an unescaped 00 in a long string is the array separator: ('a'*64 + '\\x00b',) "
            "and ('a'*64, 'b') are the same key",
            witness=(("a" * 64 + "\x00b",), ("a" * 64, "b")),
            explains=_anywhere(_long_with_low_controls)),
    Anomaly("long-strings-split-on-decode", "round-trip",
            "a long string holding 00..03 is read back cut there (the reader ends a string at "
            "any byte 00..03): 'y'*63 + '\\x00' decodes as 'y'*63",
            witness=(("y" * 63 + "\x00",),), explains=_anywhere(_long_with_low_controls)),
    Anomaly("long-strings-prefix-leak", "prefix-leak",
            "the key of ('a'*64 + '\\x00b',) lies in the prefix range of ('a'*64,)",
            witness=(("a" * 64,), ("a" * 64 + "\x00b",)),
            explains=_anywhere(_long_with_low_controls)),
    Anomaly("bytes-not-self-describing", "collision",
            "a Buffer is written raw, with no type byte: b'a' and 'a' are both 61, b'\\x00' "
            "and None both 00, and bytes interleave with every other type in the order",
            witness=((b"a",), ("a",)), explains=_anywhere(_raw_bytes)),
    Anomaly("bytes-interleave", "order",
            "raw bytes sort by their bytes among every other value: b'' (no bytes) sorts "
            "below None (00), b'\\x07' with True, b'a' with 'a'",
            witness=((None,), (b"",)), schema="r:bytes", explains=_anywhere(_raw_bytes)),
    Anomaly("bytes-decode-as-other-values", "round-trip",
            "raw bytes are read as whatever their first byte says (a string, null, a number, "
            "a boolean); only a first byte 01, 03, 04 or 05 gives bytes back, and then the "
            "whole rest of the key",
            witness=((b"abc",),), explains=_anywhere(_raw_bytes)),
    Anomaly("bytes-prefix-leak", "prefix-leak",
            "raw bytes holding 00 look like an array: the key of (b'a\\x00b',) lies in the "
            "prefix range of ('a',)",
            witness=(("a",), (b"a\x00b",)), explains=_anywhere(_raw_bytes)),
    Anomaly("nested-arrays-written-flat", "collision",
            "nested arrays are written flat, with no marker: ('a', ('b', 3.0)) is the key of "
            "('a', 'b', 3.0)",
            witness=(("a", ("b", 3.0)), ("a", "b", 3.0)), explains=_anywhere(_nested)),
    Anomaly("nested-arrays-decode-flat", "round-trip",
            "a nested array is read back as its elements, in line",
            witness=(("a", ("b", 3.0)),), explains=_anywhere(_nested)),
    Anomaly("nested-arrays-prefix-leak", "prefix-leak",
            "the key of (('a', 'b'),) lies in the prefix range of ('a',)",
            witness=(("a",), (("a", "b"),)), explains=_anywhere(_nested)),
    Anomaly("late-nulls-decode-wrong", "round-trip",
            "from the second value on the reader skips a 00 after each value twice (inside "
            "and outside its nested read), so a null from the third value on is taken for a "
            "separator and the 00 after it read as the null; at the end of the key it reads "
            "an empty string instead: ('a', False, None) decodes as ('a', False, ''), "
            "('a', None, None, None) as ('a', None, None)",
            witness=(("a", None, None),), explains=_late_null),
    Anomaly("symbol-swallows-separator", "round-trip",
            "a symbol's description is read with its terminator, and the 00 after it is "
            "then skipped as a separator: (JsSymbol('s'), None) decodes as (JsSymbol('s'),)",
            witness=((JsSymbol("s"), None),), explains=_symbol_then_null),
    Anomaly("long-strings-lone-surrogates-replaced", "round-trip",
            "a lone surrogate in a string of 64 units or more is written as U+FFFD "
            "(Buffer.utf8Write), and read back as U+FFFD",
            witness=(("\ud800" + "q" * 63,),), explains=_anywhere(_long_with_surrogate)),
    Anomaly("empty-key-decodes-as-empty-string", "round-trip",
            "the empty key (no values, b'' or an empty array) decodes as ('',)",
            witness=((),), explains=_empty_key),
    Anomaly("empty-key-collision", "collision",
            "no values, (b'',) and ((),) all give the empty key",
            witness=((), (b"",)), explains=_anywhere(lambda v: v == b"" or v == ())),
    Anomaly("negative-int-step-without-carry", "round-trip",
            "an int below -2**53 whose nearest double rounds towards zero and has all-ones low "
            "32 bits is stepped down by ordered-binary without a carry into the high half "
            "(it tests an Int32Array element against 0xffffffff): the key holds another "
            f"number; {NO_CARRY_WITNESS} decodes as -18014398509481981",
            witness=((NO_CARRY_WITNESS,),), explains=_anywhere(_steps_without_carry)),
    Anomaly("negative-int-step-without-carry-order", "order",
            "the same ints sort where the number ordered-binary stepped to sorts: "
            f"{NO_CARRY_WITNESS} sorts above {NO_CARRY_WITNESS + 1}",
            witness=((NO_CARRY_WITNESS,), (NO_CARRY_WITNESS + 1,)),
            explains=_anywhere(_steps_without_carry)),
    Anomaly("ints-decode-as-numbers", "interop",
            "an int that is exactly a double is written as that JS number (1 and 1.0 share "
            "the key 13 ff 00 00) and decodes as a float; other ints decode as ints"),
    Anomaly("decoder-reads-past-the-end", "interop",
            "the reader never checks a key: a number at the end reads zeros for missing "
            "bytes, a UTF-8 lead byte at the end reads zeros; a number whose first 4 bytes "
            "run past the key's length rounded up to 4 makes lmdb-js throw (RangeError), as "
            "a fractional number followed by a byte above 00 does: these keys are refused "
            "with DecodeError"),
)
