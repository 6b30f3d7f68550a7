"""The declared anomalies of ``bytewise``: where its keys knowingly surprise.

Theory of operation: bytewise keeps JS values in order, but it writes ``-0`` as ``+0``, turns
lone UTF-16 surrogates into U+FFFD, writes a top-level string or Buffer with no terminator, and
(in lexcodecs' schemaless API) writes several values as the one JS array of them. Each such
place is declared here as data, with a witness the conformance harness (and
``tests/test_bytewise.py``) checks, and an ``explains`` predicate kept as narrow as the
anomaly. The facts behind them are in the spec ``bytewise.md`` §10 and the vectors
(``decoded``, ``js_only``, ``order_anomalies``).

The codec option ``reading`` picks the reader, and with it one anomaly: ``strict-decoding``
under ``"strict"``, ``reference-decoding`` under ``"reference"`` (:func:`reading_anomalies`).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from typing import Any, Final

from ...codec import Anomaly
from ...schema import KeySchema

__all__ = ["ANOMALIES", "ARRAY_OFF_ONLY", "READING_REFERENCE", "STRICT_ONLY", "reading_anomalies"]

_D: Final = struct.Struct(">d")
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _negative_zero(x: Any) -> bool:
    return type(x) is float and x == 0.0 and _D.pack(x)[0] & 0x80 != 0


def _surrogate(x: Any) -> bool:
    return type(x) is str and _SURROGATE.search(x) is not None


def _nested(x: Any) -> bool:
    return type(x) in (tuple, list)


def _anywhere(test: Callable[[Any], bool]) -> Callable[..., bool]:
    """An explainer: some value of either side (nested ones included) passes *test*."""

    def walk(values: Any, depth: int = 0) -> bool:
        return depth < 300 and any(test(v) or (_nested(v) and walk(v, depth + 1))
                                   for v in values)

    def explains(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
        return walk(a) or walk(b)

    return explains


def _one_array(values: tuple[Any, ...], other: tuple[Any, ...]) -> bool:
    """*other* is the one array of *values*, which are not one value."""
    return (len(values) != 1 and len(other) == 1 and _nested(other[0])
            and len(other[0]) == len(values))


def _several_as_array_collision(schema: KeySchema | None, a: tuple[Any, ...],
                                b: tuple[Any, ...]) -> bool:
    return schema is None and (_one_array(a, b) or _one_array(b, a))


def _several_as_array_round_trip(schema: KeySchema | None, a: tuple[Any, ...],
                                 b: tuple[Any, ...]) -> bool:
    return _one_array(a, b)


ANOMALIES: Final[tuple[Anomaly, ...]] = (
    Anomaly("negative-zero", "collision",
            "-0 is written as +0 (42 00 00 00 00 00 00 00 00), as bytewise writes it",
            witness=((-0.0,), (0.0,)), schema="x:float64", explains=_anywhere(_negative_zero)),
    Anomaly("negative-zero-order", "order",
            "-0.0 is below +0.0 in the natural order, but both have the same key",
            witness=((-0.0,), (0.0,)), schema="x:float64", explains=_anywhere(_negative_zero)),
    Anomaly("negative-zero-prefix-leak", "prefix-leak",
            "the key of (-0.0, 1.0) lies in the prefix range of (0.0,): -0.0 is written as 0.0",
            witness=((0.0,), (-0.0, 1.0)), schema="x:float64, y:float64",
            explains=_anywhere(_negative_zero)),
    Anomaly("negative-zero-decodes-as-zero", "round-trip",
            "-0.0 decodes as 0.0 (bytewise.decode gives 0)",
            witness=((-0.0,),), schema="x:float64", explains=_anywhere(_negative_zero)),
    Anomaly("lone-surrogate", "collision",
            "a lone UTF-16 surrogate is written as U+FFFD (Node's UTF-8): '\\ud800', '\\udc00' "
            "and '\\ufffd' are all 70 ef bf bd",
            witness=(("\ud800",), ("\ufffd",)), explains=_anywhere(_surrogate)),
    Anomaly("lone-surrogate-decodes-as-replacement", "round-trip",
            "a lone surrogate decodes as U+FFFD, a surrogate pair of code points as the one "
            "character it encodes in UTF-16",
            witness=(("\udc00",),), explains=_anywhere(_surrogate)),
    Anomaly("bare-strings-not-prefix-free", "interop",
            "a top-level string or Buffer has no terminator: 'a' (70 61) is a byte prefix of "
            "'ab' (70 61 62), so keys are not prefix-free and a range over a bare key's "
            "bytes holds longer strings. The codec's prefix_range works on arrays (and on one "
            "bare value, alone), so it never leaks"),
    Anomaly("several-values-are-one-array", "collision",
            "bytewise writes one JS value: the schemaless encode of several values (or none) "
            "writes the JS array of them, the key of that array as one value: ('a', 'b') and "
            "(('a', 'b'),) are both a0 70 61 00 70 62 00 00 (the option array=True keeps "
            "every key an array of its values, and takes them back)",
            witness=(("a", "b"), (("a", "b"),)), explains=_several_as_array_collision),
    Anomaly("several-values-decode-as-one-array", "round-trip",
            "a key of several values decodes, without a schema and without the option array, "
            "as the one array value it is: ('a', 'b') decodes as (('a', 'b'),)",
            witness=(("a", "b"),), explains=_several_as_array_round_trip),
    Anomaly("undefined-sorts-last", "interop",
            "undefined (f0) sorts after every value, as bytewise's README says; typewise's "
            "compare, the collation bytewise claims, puts it first (vectors: order_anomalies)"),
    Anomaly("strings-by-code-point", "interop",
            "strings sort by their UTF-8 bytes, i.e. by code point; JS compares UTF-16 units, "
            "so U+E000..U+FFFF and astral characters disagree with typewise's compare: "
            "'\\uffff' (70 ef bf bf) < '\\U0001f600' (70 f0 9f 98 80) as keys"),
    Anomaly("ints-are-numbers", "interop",
            "a JS number is a double: an int is written as the double it equals (1 and 1.0 "
            "share the key 42 3f f0 ...; ints no double equals are refused) and decodes "
            "without a schema as a float; an int field of a schema gives it back as an int"),
    Anomaly("strict-decoding", "interop",
            "bytewise.decode accepts bytes its encoder never writes (bytes after a null, "
            "a sign bit contradicting the tag, non-canonical escapes, unknown tags inside "
            "arrays); lexcodecs refuses them with DecodeError (vectors: decode_only)"),
)

#: the anomalies of the option reading="reference" in place of strict-decoding (which no
#: longer holds there): what reading keys as bytewise reads them gives up
READING_REFERENCE: Final[tuple[Anomaly, ...]] = (
    Anomaly("reference-decoding", "interop",
            "with reading='reference' a key decodes as bytewise.decode reads it (spec §7): "
            "bytes its encoder never writes are accepted, so several keys decode to one "
            "value (10 and 10 ff are both null; a0 05 00 00 and a0 a0 00 00 are both [[]]), "
            "a decoded value need not encode back to its key, and NaN (427ff8...) or -0.0 "
            "(41 ff..ff) can come out of a decode (vectors: decode_only)"),
)

#: the strict reader's own anomalies, dropped under reading="reference"
STRICT_ONLY: Final = frozenset({"strict-decoding"})


#: the anomalies of the option array=False only (the codec drops them with array=True, where
#: every key is the array of its values and decodes to them)
ARRAY_OFF_ONLY: Final = frozenset({"several-values-are-one-array",
                                   "several-values-decode-as-one-array"})


def reading_anomalies(reading: str, array: bool) -> tuple[Anomaly, ...]:
    """The declared anomalies under the codec options ``reading`` and ``array``."""
    kept = tuple(a for a in ANOMALIES if not (array and a.name in ARRAY_OFF_ONLY))
    if reading == "strict":
        return kept
    return tuple(a for a in kept if a.name not in STRICT_ONLY) + READING_REFERENCE
