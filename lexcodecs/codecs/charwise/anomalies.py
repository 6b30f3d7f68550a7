"""The declared anomalies of ``charwise``: where its keys knowingly surprise (spec §5).

Theory of operation: charwise keeps JS values in order for the common cases, but its text
escapes strings in two ways that are not one-to-one (00/01 everywhere, ``?`` ``!`` ``"`` in
array items only when needed), ends an array item with characters (``"`` and ``!``) that
sort above a few that a string may hold, writes NaN between the negatives and zero, and -0 as
0. Each such place is declared here as data, with a witness the conformance harness (and
``tests/test_charwise.py``) checks, and an ``explains`` predicate kept as narrow as the
anomaly. The byte-exact facts are in the vectors (``decoded``, ``order_vs_bytewise``).

The codec options pick among them (:func:`reading_anomalies`): with ``array=True`` the
anomalies of several values against one array value go (:data:`ARRAY_OFF_ONLY`); with
``reading="reference"`` the strict reader's round trips and its refusal of charwise's lenient
readings (:data:`STRICT_ONLY`) give way to what charwise's own ``decode`` loses
(:data:`READING_REFERENCE`: no string unescaped, every array item unescaped).
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable
from typing import Any, Final

import attrs

from ...codec import Anomaly
from ...schema import KeySchema

__all__ = ["ANOMALIES", "ARRAY_OFF_ONLY", "READING_REFERENCE", "STRICT_ONLY", "reading_anomalies"]

_D: Final = struct.Struct(">d")
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
#: characters of an array string that its item's end (" or !) sorts above, or whose escape
#: (! -> ??, " -> ?%) sorts elsewhere
_BELOW_ITEM_END: Final = re.compile('[\x00-"]')
#: what charwise's decode undoes in every array item: ?@ ?? ?%
_ITEM_ESCAPES: Final = re.compile(r"\?[@?%]")


def _nested(x: Any) -> bool:
    return type(x) in (tuple, list)


def _walk(values: Any, test: Callable[[Any, bool], bool], in_array: bool) -> bool:
    return any(test(v, in_array) or (_nested(v) and _walk(v, test, True)) for v in values)


def _anywhere(test: Callable[[Any, bool], bool], array: bool = False) -> Callable[..., bool]:
    """An explainer: some value of either side (nested ones included) passes *test*, which
    is told whether the value sits in an array (several values are an array too, and with
    *array*, the codec option, one value also is)."""

    def explains(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
        return any(_walk(side, test, array or len(side) != 1) for side in (a, b))

    return explains


def _nul_or_01(x: Any, in_array: bool) -> bool:
    return type(x) is str and ("\x00" in x or "\x01" in x)


def _array_string_escape(x: Any, in_array: bool) -> bool:
    return in_array and type(x) is str and ("?" in x or "!" in x or '"' in x)


def _array_string_low(x: Any, in_array: bool) -> bool:
    return in_array and type(x) is str and _BELOW_ITEM_END.search(x) is not None


def _unescaped_item(x: Any, in_array: bool) -> bool:
    """An array string encode left as it is (no ! or ") that holds a ?@ ?? or ?%, which
    charwise's decode undoes all the same."""
    return in_array and type(x) is str and "!" not in x and '"' not in x and \
        _ITEM_ESCAPES.search(x) is not None


def _nan(x: Any, in_array: bool) -> bool:
    return type(x) is float and math.isnan(x)


def _negative_zero(x: Any, in_array: bool) -> bool:
    return type(x) is float and x == 0.0 and _D.pack(x)[0] & 0x80 != 0


def _surrogate(x: Any, in_array: bool) -> bool:
    return type(x) is str and _SURROGATE.search(x) is not None


def _several_values(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Several values (or none) against their array as one value: the same key."""
    return (len(a) != 1 and len(b) == 1 and _nested(b[0]) and tuple(b[0]) == tuple(a)) or \
        (len(b) != 1 and len(a) == 1 and _nested(a[0]) and tuple(a[0]) == tuple(b))


def _several_values_back(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]
                         ) -> bool:
    """Several values decode as one array of them (a loss the other anomalies may add to)."""
    return len(a) != 1 and len(b) == 1 and _nested(b[0]) and \
        len(b[0]) == len(a)


#: the anomalies of the option array=False only (the codec drops them with array=True)
ARRAY_OFF_ONLY: Final = frozenset({"several-values-are-one-array",
                                   "several-values-decode-as-one-array"})

ANOMALIES: Final[tuple[Anomaly, ...]] = (
    Anomaly("string-escape-collision", "collision",
            "a string's 01 is written 01 01 and its 00 as 01, so '\\x01' and '\\x00\\x00' "
            "share the key J 01 01 (in an array too)",
            witness=(("\x01",), ("\x00\x00",)), explains=_anywhere(_nul_or_01)),
    Anomaly("string-escape-round-trip", "round-trip",
            "of the strings sharing a key, decode gives the one read 01 01 -> 01, 01 -> 00 "
            "from the left: '\\x00\\x00' decodes as '\\x01' (charwise itself undoes nothing: "
            "'a\\x00b' comes back from it as 'a\\x01b')",
            witness=(("\x00\x00",),), explains=_anywhere(_nul_or_01)),
    Anomaly("string-escape-order", "order",
            "00 written as 01 sorts with the 01s: '\\x00\\x02' < '\\x01' as strings, but "
            "J 01 02 > J 01 01",
            witness=(("\x00\x02",), ("\x01",)), schema="s:string",
            explains=_anywhere(_nul_or_01)),
    Anomaly("array-string-escape-collision", "collision",
            "an array string is escaped (? -> ?@, ! -> ??, \" -> ?%) only when it holds a ! "
            "or a \", so ['a!'] and ['a??'] share KJa??!, ['a\"'] and ['a?%'] KJa?%!",
            witness=((("a!",),), (("a??",),)), explains=_anywhere(_array_string_escape)),
    Anomaly("array-string-escape-round-trip", "round-trip",
            "of the array strings sharing a key, decode gives the escaped one: ['a??'] "
            "decodes as ['a!'] (charwise itself also reads ['a?@'] as ['a?']; here it stays "
            "'a?@')",
            witness=((("a??",),),), explains=_anywhere(_array_string_escape)),
    Anomaly("array-terminator-order", "order",
            "an array item ends with \" (another item follows) or ! (the array ends), which "
            "sort above a space and the controls, and a ! or \" in a string is escaped with "
            "?: ['a'] < ['a '] as values but KJa! > KJa !; ['\"'] (KJ?%!) < ['!'] (KJ??!); "
            "('a', 'b') > ('a ', 'b')",
            witness=(("a", None), ("a ", None)), schema="s:string, t:string",
            explains=_anywhere(_array_string_low)),
    Anomaly("nan-between-negatives-and-zero", "order",
            "NaN is written DaN: above every negative number (DE…) and -Infinity (DD), "
            "below zero and the positives (F…), where no float policy puts it",
            witness=((math.nan,), (-1.0,)), schema="x:float64", explains=_anywhere(_nan)),
    Anomaly("negative-zero-collision", "collision",
            "-0 is written as 0 (FE  0M0)",
            witness=((-0.0,), (0.0,)), schema="x:float64",
            explains=_anywhere(_negative_zero)),
    Anomaly("negative-zero-order", "order",
            "-0.0 < 0.0 in the float policy, but both are FE  0M0: the same key",
            witness=((-0.0,), (0.0,)), schema="x:float64",
            explains=_anywhere(_negative_zero)),
    Anomaly("negative-zero-round-trip", "round-trip",
            "-0.0 decodes as 0.0", witness=((-0.0,),), schema="x:float64",
            explains=_anywhere(_negative_zero)),
    Anomaly("lone-surrogate-collision", "collision",
            "a JS string holds UTF-16 units: a lone surrogate is stored as U+FFFD (the UTF-8 "
            "of the text), so '\\ud800' and '\\ufffd' share J ef bf bd; a surrogate pair "
            "written as two code points is the character it encodes",
            witness=(("\ud800",), ("\ufffd",)), explains=_anywhere(_surrogate)),
    Anomaly("lone-surrogate-round-trip", "round-trip",
            "a lone surrogate decodes as U+FFFD", witness=(("\ud800",),),
            explains=_anywhere(_surrogate)),
    Anomaly("several-values-are-one-array", "collision",
            "a key of several values (or none) is the JS array of them (with the option "
            "array off, a single value is bare): ('a', 'b') and (('a', 'b'),) share KJa\"Jb!",
            witness=(("a", "b"), (("a", "b"),)), explains=_several_values),
    Anomaly("several-values-decode-as-one-array", "round-trip",
            "without a schema (option array off) a key decodes to its one value: ('a', 'b') "
            "comes back as (('a', 'b'),); a schema, or array=True, reads the items",
            witness=(("a", "b"),), explains=_several_values_back),
    Anomaly("ints-decode-as-numbers", "interop",
            "an int (|n| <= 2**53) is written as the JS number it equals (1 and 1.0 share "
            "FE500M1.00000000000000000000) and decodes without a schema as a float; an int "
            "field of a schema reads it back as an int"),
    Anomaly("utf8-versus-utf16-order", "interop",
            "a store compares the UTF-8 bytes (code point order), charwise's own tests JS "
            "strings (UTF-16 units): they disagree on U+E000-U+FFFF against characters above "
            "U+FFFF"),
    Anomaly("lenient-reference-decoder", "interop",
            "charwise's own decode accepts text its encode never writes ('' as '', K as [], "
            "CC as false, junk numbers as NaN, unterminated arrays): these keys are refused "
            "here with DecodeError, as is anything that does not encode back exactly"),
)

#: the strict reader's own anomalies, which reading="reference" does not have: its round
#: trips of escaped strings (the reference reader loses other values, below) and its refusal
#: of charwise's lenient readings
STRICT_ONLY: Final = frozenset({"string-escape-round-trip", "array-string-escape-round-trip",
                                "lenient-reference-decoder"})


def _reading_reference(array: bool) -> tuple[Anomaly, ...]:
    """What reading keys as charwise's own ``decode`` does gives up (spec §5, the vectors'
    ``decoded`` and ``decode_only``), under the option *array*."""
    return (
        Anomaly("reference-string-escapes-kept", "round-trip",
                "with reading='reference' a string comes back as charwise's decode gives it, "
                "its escapes not undone: 'a\\x00b' (Ja 01 b) decodes as 'a\\x01b' and "
                "'\\x01' (J 01 01) as '\\x01\\x01', at the top level and in arrays",
                witness=(("a\x00b",),), explains=_anywhere(_nul_or_01, array)),
        Anomaly("reference-array-items-unescaped", "round-trip",
                "with reading='reference' every array item has ?@ ?? ?% undone, also where "
                "encode escaped nothing (a string without ! or \"): ['a?@'] (KJa?@!) decodes "
                "as ['a?'], ['a??'] as ['a!'], ['a?%'] as ['a\"']",
                witness=((("a?@",),),), explains=_anywhere(_unescaped_item, array)),
        Anomaly("reference-decoding", "interop",
                "with reading='reference' a key decodes as charwise.decode reads it: text its "
                "encoder never writes is accepted ('' as '', K as [], CC as false, junk "
                "numbers as NaN, K!! as undefined, unterminated arrays), so several keys "
                "decode to one value and a decoded value need not encode back to its key "
                "(vectors: decode_only)"),
    )


#: the anomalies reading="reference" adds (with the option array off)
READING_REFERENCE: Final[tuple[Anomaly, ...]] = _reading_reference(False)


#: the anomalies of an array item's text, by the test of a value they explain: with the option
#: array=True one value is an array item too (['a'] < ['a '] as values, KJa! > KJa !), so
#: their explainers are built again for it
_ITEM_TESTS: Final[dict[str, Callable[[Any, bool], bool]]] = {
    "array-string-escape-collision": _array_string_escape,
    "array-string-escape-round-trip": _array_string_escape,
    "array-terminator-order": _array_string_low,
}


def reading_anomalies(reading: str, array: bool) -> tuple[Anomaly, ...]:
    """The declared anomalies under the codec options ``reading`` and ``array``."""
    kept = tuple(a for a in ANOMALIES if not (array and a.name in ARRAY_OFF_ONLY))
    if array:
        kept = tuple(attrs.evolve(a, explains=_anywhere(_ITEM_TESTS[a.name], True))
                     if a.name in _ITEM_TESTS else a for a in kept)
    if reading == "strict":
        return kept
    return tuple(a for a in kept if a.name not in STRICT_ONLY) + _reading_reference(array)
