""":class:`~lexcodecs.testing.DifferentialConformance` has teeth, for a plugin codec as much as
for a built-in one: the toy plugin with a "compiled path" of ``toy_compiled.py`` passes it,
and each broken variant is caught by the test that matches its defect, with a message that
says what was expected and what came."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from hypothesis import Phase, settings
from toy_compiled import ForeignErrorFast, HandsEverythingOver, ToyWithCompiledPath, WrongBytesFast

from lexcodecs import EncodeError, _impl
from lexcodecs.codec import Codec
from lexcodecs.errors import DecodeError
from lexcodecs.testing import DifferentialConformance
from lexcodecs.testing.differential import check_encode_outcome


class TestToyWithCompiledPath(DifferentialConformance):
    """The toy plugin's fast path (int64 fields) agrees with its reference and stays fast."""

    codec = ToyWithCompiledPath()
    fields = ("int64",)
    context = (("a:int64", 7), ("b:int64", -5))
    valid_values: ClassVar[dict[str, list[Any]]] = {"int64": [0, -1, 2**63 - 1, -(2**63)]}
    compiled_module = "toy_compiled"
    handover_key = "toy_compiled"
    example_share = 0.5


def _case(codec: Codec) -> DifferentialConformance:
    """The toy's differential tests on *codec*, short and without shrinking: the failure
    is what matters here, not its smallest example."""

    class Case(TestToyWithCompiledPath):
        def property_settings(self, share: float | None = None) -> settings:
            return settings(max_examples=40, derandomize=True, database=None,
                            phases=[Phase.generate], print_blob=False)

    Case.codec = codec
    return Case()


def test_a_fast_path_writing_other_bytes_is_caught() -> None:
    with pytest.raises(AssertionError, match=r"compiled ok .*; reference ok "):
        _case(WrongBytesFast()).test_encode_agrees("int64")


def test_a_foreign_exception_from_the_fast_path_escapes() -> None:
    with pytest.raises(TypeError, match="bool is not an int here"):
        _case(ForeignErrorFast()).test_every_odd_value_agrees("int64")


def test_a_fast_path_that_hands_valid_values_over_is_caught() -> None:
    with pytest.raises(AssertionError, match=r"handed over to the reference 1 time\(s\); "
                                             "expected to stay on the compiled path"):
        _case(HandsEverythingOver()).test_valid_values_never_hand_over("int64")


def test_a_bound_class_of_another_module_is_caught() -> None:
    case = _case(ToyWithCompiledPath())
    type(case).compiled_module = "toys"  # the module the compiled path is said to be in
    with pytest.raises(AssertionError, match="expected a class of toys"):
        case.test_compiled_is_in_use()


def test_an_encoder_may_raise_only_encode_or_schema_errors() -> None:
    check_encode_outcome(("ok", b"\x01"))
    check_encode_outcome(("error", EncodeError, "no"))
    with pytest.raises(AssertionError, match="encode raised DecodeError: no; expected "
                                             "EncodeError, UnsupportedTypeError or SchemaError"):
        check_encode_outcome(("error", DecodeError, "no"))
    with pytest.raises(AssertionError, match="a refusal's message of 1000 characters"):
        check_encode_outcome(("error", EncodeError, "x" * 1000))


def test_the_toy_counts_its_hand_overs() -> None:
    codec = ToyWithCompiledPath()
    with _impl.use("compiled"):
        before = _impl.HANDOVERS["toy_compiled"]
        assert codec.encode((1,), "n:int64") == codec.encode([1], "n:int64")
        assert _impl.HANDOVERS["toy_compiled"] == before
        codec.encode(("a",), "s:string")
        assert _impl.HANDOVERS["toy_compiled"] == before + 1
