"""``charwise``: the compiled module and the reference code give the same answers.

:class:`~lexcodecs.testing.DifferentialConformance` runs the schemaless ``encode`` and
``decode`` (with and without the codec option ``array``) and a bound schema's ``encode``,
``decode`` and ``prefix_range`` under both implementations on valid and hostile values
(nested arrays among them) and keys, and checks the compiled path is in use. What is
charwise's own is here: UNDEFINED, the keys near its escapes and number texts, and the values
that must hand over.
"""

from __future__ import annotations

import math
import random
import struct
from typing import Any

import pytest

from lexcodecs import DecodeError, EncodeError, _impl
from lexcodecs.codecs.charwise import CharwiseCodec
from lexcodecs.testing import DifferentialConformance
from lexcodecs.testing.hostile import MyInt
from lexcodecs.types import UNDEFINED

PACKAGE = "charwise"

#: field spec -> valid exact-type values, which must stay on the compiled path
VALID: dict[str, list[Any]] = {
    "string": ["", "a", "\x00", "\x01\x00", "a!b\"c?d", "?@", "é", "\u20ac\U0001f600",
               "y" * 70, "a b"],
    "bool": [False, True],
    "float64": [0.0, -0.0, 1.0, -1.0, 0.1, -1e300, 5e-324, -5e-324, 2.0**60, math.inf,
                -math.inf, math.nan, 1.7976931348623157e308, 123.456],
    "int": [0, 1, -1, 2**53, -(2**53), 949939434, -12345678901],
}

ODD_KEYS = (b"", b"K", b"KJa", b'KJa"', b"FE500Mxyz", b"K!!", b'K""!', b"J\x01", b"CC",
            b"BBB", b"KJa?@!?", b"KKJa", b"K!!!!", b'KJa"KJb!', b"Z", b"A!", b'KJa"Z!',
            b"\x00", b"\xff", b" ", b"FE  00", b"DE", b"FE5", b"LL", b"KJa?x!", b"KJa?!",
            b"FE500M1.0000000000000000000", b"FE500M1.000000000000000000000",
            b"DE499M8.9999999999999999999", b"FE809M1.00000000000000000000",
            b"FE500M01.00000000000000000000", b"J\x00", b"KJ\x00!", b"J\xc3", b"K" * 300)


class TestCharwiseDifferential(DifferentialConformance):
    codec = CharwiseCodec()
    variants = (CharwiseCodec(array=True),)
    example_share = 0.3
    extra_odd_values = (UNDEFINED, (UNDEFINED, None), b"bytes", 2**53 + 2, 2**70)
    odd_keys = ODD_KEYS
    odd_key_schemas = ("x:float64, n:int", "s:string")
    context = (("s:string", "acme"), ("n:int", -5))
    valid_values = VALID
    schemaless_values: Any = (
        "", "a\x00", "é" * 70, False, True, 0.1, -0.0, math.nan, 2**53, UNDEFINED,
        (1.0, ("a", None)), ["a!", ['"']], (), None)

    def test_number_texts_are_the_references(self) -> None:
        """Ryu's digits and the text around them against repr's, on random doubles of every
        exponent, both signs."""
        self.require_compiled()
        rng = random.Random(34)
        values = [struct.unpack(">d", rng.getrandbits(64).to_bytes(8, "big"))[0]
                  for _ in range(4000)]
        values += [float(n) for n in range(-300, 300)] + [10.0**e for e in range(-320, 308)]
        codec = CharwiseCodec()
        with _impl.use("reference"):
            expected = [codec.encode((v,)) for v in values]
        with _impl.use("compiled"):
            got = [codec.encode((v,)) for v in values]
            assert got == expected
            back = [codec.decode(k)[0] for k in got]
        for v, b in zip(values, back):
            assert (math.isnan(v) and math.isnan(b)) or v == b

    def test_short_decimals_read_exactly(self) -> None:
        """The compiled reader's fast path (at most 15 significant digits, a power of ten up
        to 10**22 either way) against the reference on the decimals it takes and their
        neighbours just past its bounds (16 digits, 10**23), both signs: equal doubles, and
        no hand-over for a key the fast path reads."""
        self.require_compiled()
        rng = random.Random(35)
        texts = [f"{rng.randrange(1, 10**digits)}e{scale}"
                 for digits in (1, 2, 7, 15, 16) for scale in range(-25, 26)
                 for _ in range(6)]
        values = [sign * float(t) for t in texts for sign in (1.0, -1.0)]
        codec = CharwiseCodec()
        with _impl.use("reference"):
            keys = [codec.encode((v,)) for v in values]
            expected = [codec.decode(k) for k in keys]
        _impl.HANDOVERS.clear()
        with _impl.use("compiled"):
            assert [codec.decode(k) for k in keys] == expected == [(v,) for v in values]
        assert _impl.HANDOVERS[PACKAGE] == 0

    def test_odd_values_do_hand_over(self) -> None:
        self.require_compiled()
        codec = self.get_codec()
        _impl.HANDOVERS.clear()
        with _impl.use("compiled"):
            assert codec.encode((MyInt(1),)) == codec.encode((1.0,))  # 1 handed over
            assert codec.encode(("\ud83d\ude00",)) == codec.encode(("\U0001f600",))  # 1
            with pytest.raises(EncodeError):
                codec.encode((2**53 + 1,))  # 1
            with pytest.raises(DecodeError):
                codec.decode(b"CC")  # 1
        assert _impl.HANDOVERS[PACKAGE] == 4
