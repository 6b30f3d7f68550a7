"""Tests of the ``lexcodecs`` command (lexcodecs.cli), mostly through ``main([...])``.

Expected keys are written out by hand from the toy format (tests/toys.py docstring), never
computed by calling the codec.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from toys import ToyCodec

import lexcodecs
import lexcodecs.registry
from lexcodecs import (
    END,
    Float32,
    Int8,
    Int16,
    Int32,
    Int64,
    Registry,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Versionstamp,
)
from lexcodecs.cli import CliError, main, parse_hex, parse_option, parse_values

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = "a:string, b:int64 desc nulls first, c:float64 nulls last, d:bytes, e:bool"
TOY_TYPES = "string, bytes, bool, int64, float64"  # in FIELD_TYPES order


@pytest.fixture
def toy() -> Iterator[None]:
    lexcodecs.register_codec(ToyCodec, name="toy")
    yield
    lexcodecs.unregister("toy")


def isolate(monkeypatch: pytest.MonkeyPatch, **builtins: str) -> Registry:
    """Replace the default registry with one holding only *builtins* (no plugins)."""
    registry = Registry(builtins=builtins, entry_points=False)
    monkeypatch.setattr(lexcodecs.registry, "default_registry", registry)
    return registry


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run a command that must fail: exit 2, nothing on stdout, one error line on stderr."""
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("lexcodecs: error: ")
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


# -- list ------------------------------------------------------------------------------------


@pytest.mark.usefixtures("toy")
def test_list_shows_the_toy_codec(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "list")
    assert (code, err) == (0, "")
    line = next(line for line in out.splitlines() if line.split()[0] == "toy")
    assert ToyCodec.CAPABILITIES.summary() in line
    assert line.endswith(f"types: {TOY_TYPES}")


def test_list_without_codecs(capsys: pytest.CaptureFixture[str],
                             monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(monkeypatch)
    assert run(capsys, "list") == (
        0, "no codecs available: install a plugin, or register one with "
           "lexcodecs.register_codec\n", "")
    assert run(capsys, "list", "--json") == (
        0, '{\n  "format_version": 1,\n  "codecs": []\n}\n', "")


def test_list_survives_a_codec_that_fails_to_load(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    isolated = isolate(monkeypatch, ghost="lexcodecs_no_such_module:Codec")
    isolated.register(ToyCodec)

    def explode(**options: Any) -> Any:
        raise RuntimeError("plugin bug")

    isolated.register(explode, name="boom")
    code, out, err = run(capsys, "list")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == ["boom", "ghost", "toy"]
    assert lines[0] == "boom   error: RuntimeError: plugin bug"
    assert lines[1].startswith("ghost  error: codec 'ghost' failed to load")
    assert "ModuleNotFoundError" in lines[1]
    assert lines[2].startswith("toy    decodes with schema")


def test_list_json(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(monkeypatch, ghost="lexcodecs_no_such_module:Codec").register(ToyCodec)
    code, out, _ = run(capsys, "list", "--json")
    assert code == 0
    document = json.loads(out)
    assert list(document) == ["format_version", "codecs"]
    assert document["format_version"] == 1
    ghost, toy = document["codecs"]
    assert toy == {
        "name": "toy",
        "capabilities": json.loads(json.dumps(ToyCodec.CAPABILITIES.to_dict())),
        "config": {"name": "toy"},
    }
    assert toy["capabilities"]["field_types"] == TOY_TYPES.split(", ")
    assert ghost["name"] == "ghost"
    assert ghost["error"].startswith("codec 'ghost' failed to load")


# -- encode and decode -----------------------------------------------------------------------

# field by field: a (string asc), b (int64 desc, NULL 01), c (float64, NULL fe), d, e
ROUND_TRIPS = [
    ("('acme', 42, None, b'\\x00x', True)",
     "02 61636d65 0001"            # 'acme', terminated
     "fd 7fffffffffffffd5"         # ~(02 80000000_0000002a)
     "fe"                          # NULL, last
     "02 00ff78 0001"              # b'\x00x', 00 escaped
     "02 01"),                     # True
    ("('', -1, 1.5, b'', False)",
     "02 0001"
     "fd 8000000000000000"         # ~(02 7fffffffffffffff)
     "02 bff8000000000000"         # 1.5 = 3ff8..., sign bit set
     "02 0001"
     "02 00"),
    ("['a\\x00b', None, -2.0, b'\\xff', True]",
     "02 6100ff62 0001"
     "01"                          # NULL, first although descending
     "02 3fffffffffffffff"         # -2.0 = c000..., every bit inverted
     "02 ff0001"
     "02 01"),
]


@pytest.mark.usefixtures("toy")
@pytest.mark.parametrize(("values", "key"), ROUND_TRIPS)
def test_encode_decode_round_trip(capsys: pytest.CaptureFixture[str], values: str,
                                  key: str) -> None:
    key = key.replace(" ", "")
    assert run(capsys, "encode", "-c", "toy", "-s", SCHEMA, values) == (0, key + "\n", "")
    expected = repr(tuple(parse_values(values)))
    assert run(capsys, "decode", "-c", "toy", "-s", SCHEMA, key) == (0, expected + "\n", "")


@pytest.mark.usefixtures("toy")
def test_decode_accepts_0x_spaces_and_colons(capsys: pytest.CaptureFixture[str]) -> None:
    for text in ("0x0261000102 00", "  0X02:61:00:01:02:00 ", "02 61 00 01 02 00"):
        assert run(capsys, "decode", "-c", "toy", "-s", "a:string, b:bool", text) == (
            0, "('a', False)\n", "")


def test_parse_hex() -> None:
    assert parse_hex("0x02:61 00 01") == b"\x02a\x00\x01"
    assert parse_hex("") == b""
    with pytest.raises(CliError, match=r"'g' at character 5 is not a hex digit"):
        parse_hex("0x02g1")
    with pytest.raises(CliError, match=r"odd number of hex digits \(3\)"):
        parse_hex("abc")


@pytest.mark.usefixtures("toy")
@pytest.mark.parametrize(("text", "message"), [
    ("zz", "hex: 'z' at character 1 is not a hex digit"),
    ("02 6", "hex: odd number of hex digits (3)"),
    ("0x0x02", "hex: 'x' at character 4 is not a hex digit"),
])
def test_bad_hex(capsys: pytest.CaptureFixture[str], text: str, message: str) -> None:
    err = refused(capsys, "decode", "-c", "toy", "-s", "a:bool", text)
    assert message in err


@pytest.mark.usefixtures("toy")
def test_decode_error(capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(capsys, "decode", "-c", "toy", "-s", "a:int64", "02 00")
    assert "toy: field 0 'a' (int64)" in err
    assert "key ends inside a field" in err


@pytest.mark.usefixtures("toy")
def test_encode_error_is_one_line_without_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(capsys, "encode", "-c", "toy", "-s", "a:int64", "(9223372036854775808,)")
    assert err == ("lexcodecs: error: toy: field 0 'a' (int64): 9223372036854775808: "
                   "out of range; expected -2**63..2**63-1\n")
    err = refused(capsys, "encode", "-c", "toy", "-s", "a:int64, b:bool", "(1,)")
    assert "the schema has 2 field(s), got 1 value(s)" in err


@pytest.mark.usefixtures("toy")
def test_encode_without_schema_on_a_schema_codec(capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(capsys, "encode", "-c", "toy", "(1,)")
    assert "needs a schema" in err


@pytest.mark.usefixtures("toy")
def test_schema_error_keeps_the_caret(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "encode", "-c", "toy", "-s", "a:strng", "('x',)")
    assert (code, out) == (2, "")
    first, text, caret = err.splitlines()
    assert first.startswith("lexcodecs: error: unknown field type 'strng'")
    assert "did you mean string" in first
    assert (text, caret) == ("  a:strng", "    ^")


@pytest.mark.usefixtures("toy")
def test_unknown_codec_shows_close_matches(capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(capsys, "encode", "-c", "tyo", "('x',)")
    assert "unknown codec 'tyo'; did you mean 'toy'?" in err
    err = refused(capsys, "decode", "-c", "nothing-like-it", "00")
    assert "unknown codec 'nothing-like-it'" in err
    assert "did you mean" not in err


@pytest.mark.usefixtures("toy")
@pytest.mark.parametrize(("option", "message"), [
    ("colour=1", "toy: option 'colour': 1: unknown option"),
    ("colour", "option 'colour': write -o OPTION=VALUE"),
    ("=1", "option '=1': write -o OPTION=VALUE"),
    ("name=toy", "option 'name' is reserved"),
])
def test_bad_option(capsys: pytest.CaptureFixture[str], option: str, message: str) -> None:
    err = refused(capsys, "encode", "-c", "toy", "-s", "a:bool", "-o", option, "(True,)")
    assert message in err


@pytest.mark.usefixtures("toy")
def test_option_given_twice(capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(capsys, "encode", "-c", "toy", "-o", "a=1", "-o", "a=2", "(True,)")
    assert "option 'a' given twice" in err


@pytest.mark.parametrize(("text", "expected"), [
    ("width=8", ("width", 8)),
    ("flag=True", ("flag", True)),
    ("nan=go", ("nan", "go")),
    ("sep='a b'", ("sep", "a b")),
    ("empty=", ("empty", "")),
    ("path=/tmp/x", ("path", "/tmp/x")),
    ("pair=(1, 'b')", ("pair", (1, "b"))),
])
def test_parse_option(text: str, expected: tuple[str, Any]) -> None:
    assert parse_option(text) == expected


# -- VALUES ----------------------------------------------------------------------------------

UTC = dt.UTC


@pytest.mark.parametrize(("text", "expected"), [
    ("Int8(-128)", Int8(-128)),
    ("Int16(32767)", Int16(32767)),
    ("Int32(-5)", Int32(-5)),
    ("Int64(-9223372036854775808)", Int64(-(1 << 63))),
    ("UInt8(255)", UInt8(255)),
    ("UInt16(0)", UInt16(0)),
    ("UInt32(4294967295)", UInt32(4294967295)),
    ("UInt64(18446744073709551615)", UInt64((1 << 64) - 1)),
    ("Float32(0.1)", Float32(0.1)),
    ("Float32(-inf)", Float32(-math.inf)),
    ("UUID('12345678-1234-5678-1234-567812345678')",
     uuid.UUID(int=0x12345678123456781234567812345678)),
    ("Decimal('1.10')", Decimal("1.10")),
    ("END", END),
    ("Versionstamp(b'0123456789', 7)", Versionstamp(b"0123456789", 7)),
    ("Versionstamp(None, 3)", Versionstamp(None, 3)),
    ("datetime('2024-01-01T00:00:00+00:00')", dt.datetime(2024, 1, 1, tzinfo=UTC)),
    ("datetime('2024-06-30T12:00:00.5+02:00')",
     dt.datetime(2024, 6, 30, 10, 0, 0, 500000, tzinfo=UTC)),
    ("timedelta(seconds=90)", dt.timedelta(seconds=90)),
    ("timedelta(microseconds=-5)", dt.timedelta(microseconds=-5)),
    ("timedelta(seconds=1, microseconds=2)", dt.timedelta(seconds=1, microseconds=2)),
    ("inf", math.inf),
    ("-inf", -math.inf),
    ("+inf", math.inf),
    ("-3", -3),
    ("None", None),
    ("True", True),
    ("b'\\x00'", b"\x00"),
    ("'x'", "x"),
    ("('nested', (1, None))", ("nested", (1, None))),
])
def test_whitelisted_values(text: str, expected: Any) -> None:
    (value,) = parse_values(f"({text},)")
    assert value == expected
    assert type(value) is type(expected)


def test_exact_types_and_values() -> None:
    dec, f32, when, nan, negnan = parse_values(
        "[Decimal('1.10'), Float32(0.1), datetime('2024-01-01T00:00:00+00:00'), nan, -nan]")
    assert str(dec) == "1.10"
    assert f32.bits == 0x3DCCCCCD
    assert when.utcoffset() == dt.timedelta(0)
    assert math.isnan(nan)
    assert math.copysign(1, nan) == 1
    assert math.isnan(negnan)
    assert math.copysign(1, negnan) == -1


def test_values_list_and_whitespace() -> None:
    assert parse_values("  ['a', 1]  ") == ("a", 1)
    assert parse_values("()") == ()
    assert parse_values("(1,\n 2)") == (1, 2)


@pytest.mark.parametrize(("text", "message"), [
    ("__import__('os')", "values, column 1: '__import__' is not an allowed constructor"),
    ("(1, __import__('os').system('true'))", "values, column 5: attribute access is not allowed"),
    ("(os.system,)", "values, column 2: attribute access is not allowed"),
    ("(datetime.datetime(2024, 1, 1),)", "attribute access is not allowed"),
    ("(1, foo)", "values, column 5: unknown name 'foo'"),
    ("(__builtins__,)", "unknown name '__builtins__'"),
    ("(eval('1'),)", "'eval' is not an allowed constructor"),
    ("(Int8(*[1]),)", "*args and **kwargs are not allowed; write Int8(<integer>)"),
    ("(timedelta(**{'seconds': 1}),)", "*args and **kwargs are not allowed"),
    ("(*[1, 2],)", "unpacking with * is not allowed"),
    ("(Int8,)", "Int8 must be called: Int8(<integer>)"),
    ("(END(),)", "'END' is not an allowed constructor"),
    ("(1 + 2,)", "arithmetic is not allowed"),
    ("(-Int8(5),)", "a sign applies only to a plain number"),
    ("(-'a',)", "a sign applies only to a plain number"),
    ("((1).real,)", "attribute access is not allowed"),
    ("('abc'[0],)", "subscripting is not allowed"),
    ("(lambda: 0,)", "a lambda is not allowed"),
    ("([x for x in 'ab'],)", "a ListComp expression is not allowed"),
    ("({1: 2},)", "a dict is not allowed"),
    ("(1j,)", "the constant 1j is not a key value"),
    ("(...,)", "the constant Ellipsis is not a key value"),
    ("(Int8(300),)", "Int8: 300: out of range for Int8; expected -128..127"),
    ("(Int8(True),)", "bad arguments for Int8; write Int8(<integer>)"),
    ("(Int8(x=1),)", "bad arguments for Int8"),
    ("(Int8(1, 2),)", "bad arguments for Int8"),
    ("(Float32('1'),)", "bad arguments for Float32"),
    ("(UUID(5),)", "bad arguments for UUID"),
    ("(UUID('nope'),)", "UUID: badly formed hexadecimal UUID string"),
    ("(Decimal('abc'),)", "Decimal: not a decimal number: 'abc'"),
    ("(Decimal(1.5),)", "bad arguments for Decimal"),
    ("(Versionstamp(b'short', 1),)", "transaction version must be 10 bytes long"),
    ("(Versionstamp(b'0123456789'),)", "bad arguments for Versionstamp"),
    ("(datetime('2024-01-01T00:00:00'),)", "has no UTC offset; add one, such as +00:00"),
    ("(datetime('yesterday'),)", "Invalid isoformat string"),
    ("(timedelta(days=1),)", "bad arguments for timedelta"),
    ("(timedelta(),)", "bad arguments for timedelta"),
    ("(timedelta(seconds='1'),)", "bad arguments for timedelta"),
    ("(timedelta(seconds=1e300),)", "timedelta:"),
    ("('a', ", "values: not a Python literal"),
])
def test_refused_values(text: str, message: str) -> None:
    with pytest.raises(CliError) as info:
        parse_values(text)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("text", ["42", "'acme'", "None", "END", " Int8(1) "])
def test_bare_value_gets_a_hint(text: str) -> None:
    with pytest.raises(CliError, match=r"must be a tuple or a list") as info:
        parse_values(text)
    assert str(info.value).endswith(f"write ({text.strip()},)")


def test_values_are_never_evaluated(tmp_path: Path) -> None:
    target = tmp_path / "pwned"
    for text in (f"(__import__('pathlib').Path({str(target)!r}).touch(),)",
                 f"(open({str(target)!r}, 'w'),)"):
        with pytest.raises(CliError):
            parse_values(text)
    assert not target.exists()


@pytest.mark.usefixtures("toy")
@pytest.mark.parametrize(("values", "message"), [
    ("(__import__('os'),)", "values, column 2: '__import__' is not an allowed constructor"),
    ("(os.getcwd(),)", "values, column 2: attribute access is not allowed"),
    ("(spam,)", "values, column 2: unknown name 'spam'"),
    ("True", "values must be a tuple or a list; for a single value write (True,)"),
])
def test_refused_values_on_the_command_line(capsys: pytest.CaptureFixture[str], values: str,
                                            message: str) -> None:
    err = refused(capsys, "encode", "-c", "toy", "-s", "a:bool", values)
    assert err.startswith(f"lexcodecs: error: {message}")


# -- the program -----------------------------------------------------------------------------


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--version")
    assert (code, err) == (0, "")
    assert out.startswith(f"lexcodecs {lexcodecs.__version__} (")  # then the implementation


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys)
    assert (code, out) == (2, "")
    assert "usage: lexcodecs" in err
    code, _, err = run(capsys, "encode", "('x',)")
    assert code == 2
    assert "-c/--codec" in err


def test_console_script_runs_end_to_end() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, "-m", "lexcodecs", "list"], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.strip()
    assert "Traceback" not in done.stdout


def test_a_command_imports_only_what_it_runs() -> None:
    # the comparison, the migration, the harness, rich and the plugin scan (importlib.metadata)
    # are imported by the commands that use them (the parser reads only their defaults):
    # about half of a start-up otherwise
    script = (
        "import sys\n"
        "from lexcodecs.cli import main\n"
        "assert main(['encode', '-c', 'skv', '-s', 'a:int64', '(1,)']) == 0\n"
        "heavy = ('lexcodecs.compare.', 'lexcodecs.migrate.', 'lexcodecs.testing', 'rich',\n"
        "         'hypothesis', 'importlib.metadata')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == \
        "['lexcodecs.compare.defaults', 'lexcodecs.migrate.defaults']"
