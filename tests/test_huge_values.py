"""Huge values (issue 15, item 3): whatever its size, a value is refused with a typed error
whose message stays short, or written, with work that grows linearly with its size.

For every built-in codec, every field type it declares (both orders) and its schemaless
encode, on both implementations (the ``impl`` fixture): huge ints (past every codec's range),
Decimals with long coefficients, long strings and bytes, long tuples.

The work is counted, never timed (a time bound fails when the machine is busy): see
``work.py``. What each count proves:

* the reference implementation runs as Python, so its traced events and the bytes it copies
  grow with any loop it runs per digit, char or item, and with any slice it copies per step:
  4 times the size may cost at most 8 times the events and bytes (quadratic work would cost
  16 times);
* the quadratic primitive of CPython, int <-> decimal text, is never attempted on a huge int:
  under Python's smallest digit limit every attempt raises, and the tracer sees the raise
  even where the error is caught -- so with no limit at all, none runs;
* the compiled implementation cannot be traced: a huge value it refuses is handed over to the
  reference (``lexcodecs._impl.HANDOVERS`` counts it), whose work is what the counts above
  measure; one it writes itself is held to linear growth of the memory it allocates (its
  high-water marks and peak, which ``tracemalloc`` sees, compiled code included).

The property that encoding any object raises only ``EncodeError``/``SchemaError`` (or
succeeds) lives in :class:`~lexcodecs.testing.DifferentialConformance`, which every codec's
``test_*_differential.py`` runs on both implementations; here the huge values are held to it
only in passing.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from work import Work, assert_linear, huge_int_conversions, int_digits_limit, measure

from lexcodecs import _impl, get_codec
from lexcodecs.registry import BUILTIN_CODECS
from lexcodecs.schema import KeySchema
from lexcodecs.testing.differential import check_encode_outcome, outcome

pytestmark = pytest.mark.usefixtures("impl")

CODECS = tuple(sorted(BUILTIN_CODECS))  # a plugin's strictness is its own tests' business
KINDS = ("int", "negint", "decimal", "decimal-int", "str", "bytes", "tuple")
#: the size of each kind's smaller value; the larger is FACTOR times larger. An int's is in
#: bits, past every codec's range (SQLite4's and HBase's 10,000 digits are 33,220 bits)
SMALL = {"int": 40_000, "negint": 40_000, "decimal": 2_000, "decimal-int": 2_000,
         "str": 600, "bytes": 1_000, "tuple": 200}
#: the kinds that hold a number an encoder might turn into decimal text
NUMBERS = ("int", "negint", "decimal", "decimal-int")
FACTOR = 4


def _huge(kind: str, n: int) -> Any:
    """A value of size *n* (bits of an int, digits of a Decimal, chars of a string, bytes,
    items), built in linear time."""
    if kind == "int":
        return (1 << n) - 1
    if kind == "negint":
        return -(1 << n)
    if kind == "decimal":
        return decimal.Decimal("1." + "7" * n)
    if kind == "decimal-int":
        return decimal.Decimal("9" * n)
    if kind == "str":
        return "é" * n
    if kind == "bytes":
        return b"\x00\xff" * (n // 2)
    if kind == "tuple":
        return (0,) * n
    raise AssertionError(kind)


def _schemas(name: str) -> list[KeySchema | None]:
    caps = get_codec(name).capabilities
    out: list[KeySchema | None] = []
    for t in sorted(caps.field_types):
        out.append(KeySchema.parse(f"v:{t}"))
        if caps.descending:
            out.append(KeySchema.parse(f"v:{t} desc"))
    if caps.schemaless:
        out.append(None)
    return out


def _encodes(name: str) -> Iterator[tuple[str, Callable[[Any], Any]]]:
    """(what, encode one value) for each schema of the codec, schemaless last."""
    codec = get_codec(name)
    for schema in _schemas(name):
        if schema is None:
            yield "schemaless", lambda v: codec.encode((v,))
        else:
            yield str(schema), lambda v, s=schema: codec.encode((v,), s)


@pytest.mark.parametrize("name", CODECS)
def test_huge_values_are_refused_or_written_alike_under_any_int_limit(name: str) -> None:
    """Python's digit limit (4,300 by default) changes nothing: the same answer with it and
    without, a typed error with a short message or a key."""
    failures = []
    for what, encode in _encodes(name):
        for kind in KINDS:
            for n in (SMALL[kind], FACTOR * SMALL[kind]):
                value = _huge(kind, n)
                with int_digits_limit(4300):
                    limited = outcome(lambda e=encode, v=value: e(v))
                with int_digits_limit(0):
                    unlimited = outcome(lambda e=encode, v=value: e(v))
                try:
                    check_encode_outcome(limited, (name, what, kind))
                    assert limited[:2] == unlimited[:2], (
                        f"{name} {what} {kind}: {limited[0]} {limited[1]!s:.60} under the "
                        f"4,300-digit limit, {unlimited[0]} {unlimited[1]!s:.60} without")
                except AssertionError as exc:
                    failures.append(str(exc))
    assert not failures, "\n".join(failures)


def _measured(encode: Callable[[Any], Any], kind: str, n: int, *, warm: bool = False
              ) -> tuple[tuple[Any, ...], Work, int]:
    """The outcome, the work and the hand-overs of encoding a huge value of size *n* (after
    an unmeasured run, with *warm*: the first size fills the bind caches)."""
    value = _huge(kind, n)
    before = sum(_impl.HANDOVERS.values())
    result, work = measure(lambda: encode(value), warm=warm)
    return result, work, sum(_impl.HANDOVERS.values()) - before


@pytest.mark.parametrize("name", CODECS)
def test_huge_values_cost_linear_work(name: str, impl: str) -> None:
    """4 times the size costs at most 8 times the work (see the module docstring for what
    is counted), no huge int is ever turned into decimal text, and under the compiled
    implementation a refused huge value is the reference's to refuse. Where the two sizes
    fall on either side of a codec's limit (written, then refused), the larger is compared
    with one 4 times larger again."""
    with int_digits_limit(0):
        for what, encode in _encodes(name):
            for kind in KINDS:
                sizes = [SMALL[kind] * FACTOR ** i for i in range(3)]
                small = _measured(encode, kind, sizes[0], warm=True)
                big = _measured(encode, kind, sizes[1])
                if small[0][0] != big[0][0]:  # a limit between them: measure past it
                    small, big = big, _measured(encode, kind, sizes[2])
                label = f"{name} {what} {kind} ({impl})"
                assert small[0][0] == big[0][0], f"{label}: written at one size, not the next"
                assert_linear(small[1], big[1], FACTOR, label)
                if impl == "compiled" and big[0][0] == "error":
                    assert big[2] >= 1, (f"{label}: refused by the compiled module itself; "
                                         "expected it handed over to the reference")
                if impl == "reference" and kind in NUMBERS:  # compiled code cannot be traced
                    value = _huge(kind, sizes[1])
                    converted = huge_int_conversions(lambda e=encode, v=value: e(v))
                    assert not converted, (f"{label}: turned an int of more than 640 digits "
                                           f"into decimal text (quadratic) at {converted}")
