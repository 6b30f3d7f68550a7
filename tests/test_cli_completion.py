"""``lexcodecs completion bash|zsh|fish`` (issue 32): scripts written from the parser itself.

Each script must name every subcommand and every option of the parser, and offer the
registry's codec names. The bash script is loaded in a real bash and asked for completions;
zsh and fish are checked for syntax when installed, and by their text otherwise.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from lexcodecs import available_codecs
from lexcodecs.cli import build_parser, main
from lexcodecs.cli.completion import SHELLS, completion_script

BASH, ZSH, FISH = (shutil.which(shell) for shell in SHELLS)
PARSER = build_parser()
CODECS = available_codecs()


def parsers() -> dict[str, argparse.ArgumentParser]:
    """The top level ("") and every subcommand, by name."""
    found = {"": PARSER}
    for action in PARSER._actions:
        if isinstance(action, argparse._SubParsersAction):
            found.update(action.choices)
    return found


def option_strings(parser: argparse.ArgumentParser) -> list[str]:
    return [flag for action in parser._actions for flag in action.option_strings]


@pytest.fixture(scope="module", params=SHELLS)
def script(request: pytest.FixtureRequest) -> tuple[str, str]:
    return request.param, completion_script(request.param)


def test_the_command_prints_the_script(capsys: pytest.CaptureFixture[str]) -> None:
    for shell in SHELLS:
        assert main(["completion", shell]) == 0
        out, err = capsys.readouterr()
        assert (out, err) == (completion_script(shell), "")


def test_an_unknown_shell_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "tcsh"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "invalid choice: 'tcsh'" in err


def words(text: str) -> set[str]:
    """The words of a script, its quotes, brackets, = and * (zsh's "repeatable") taken for
    spaces."""
    return set(re.sub(r"['=\[()*]", " ", text).split())


def test_every_subcommand_and_option_is_named(script: tuple[str, str]) -> None:
    shell, text = script
    found = words(text)
    for name, parser in parsers().items():
        if name:
            assert name in found, (shell, name)
        for flag in option_strings(parser):
            # fish names an option by its letters: -l codec, -s c
            wanted = flag if shell != "fish" else flag.lstrip("-")
            assert wanted in found, (shell, name, flag)


def test_every_codec_is_offered(script: tuple[str, str]) -> None:
    shell, text = script
    assert CODECS
    assert set(CODECS) <= words(text), shell


def test_a_codec_name_a_shell_cannot_hold_is_left_out() -> None:
    for shell in SHELLS:
        text = completion_script(shell, codecs=["good-one", "bad name", "it's"])
        assert "good-one" in text
        assert "bad name" not in text
        assert "it's" not in text


# -- bash: loaded and asked ------------------------------------------------------------------

needs_bash = pytest.mark.skipif(BASH is None, reason="bash is not installed")


def bash(program: str, *args: str) -> str:
    assert BASH is not None
    done = subprocess.run([BASH, "--norc", "--noprofile", "-c", program, "bash", *args],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout


def complete(*words: str) -> list[str]:
    """What the bash script offers for the command line *words* (the last one being typed)."""
    program = completion_script("bash") + textwrap.dedent("""
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
        _lexcodecs
        printf '%s\\n' "${COMPREPLY[@]}"
    """)
    return bash(program, "lexcodecs", *words).split()


@needs_bash
def test_bash_loads_it() -> None:
    out = bash(completion_script("bash") + "\ncomplete -p lexcodecs")
    assert out == "complete -F _lexcodecs lexcodecs\n"


@needs_bash
@pytest.mark.parametrize(("words", "offered"), [
    (("",), [*parsers()][1:]),
    (("en",), ["encode"]),
    (("--v",), ["--version"]),
    (("encode", "--c"), ["--codec"]),
    (("encode", "-c", ""), list(CODECS)),
    (("encode", "-c", "sk"), [c for c in CODECS if c.startswith("sk")]),
    (("migrate", "--to", ""), list(CODECS)),
    (("compare", "--keys-codec", ""), list(CODECS)),
    (("compare", "--codec", "=", ""), list(CODECS)),  # --codec=: bash splits at the =
    (("compare", "--store", ""), ["sqlite", "lmdb", "rocksdb", "memory"]),
    (("conformance", "--no-s"), ["--no-shrink"]),
    (("completion", ""), list(SHELLS)),
    (("encode", "-s", ""), []),  # free text: nothing to offer
    (("list", "--json", ""), []),
])
def test_bash_offers(words: tuple[str, ...], offered: list[str]) -> None:
    assert complete(*words) == offered


@needs_bash
def test_bash_offers_files_for_a_path(tmp_path: Path) -> None:
    assert complete("compare", "--records", f"{tmp_path}/") == []  # an empty directory
    (tmp_path / "records.jsonl").write_text("", encoding="utf-8")
    assert complete("compare", "--records", f"{tmp_path}/") == [f"{tmp_path}/records.jsonl"]


# -- quoting: help texts with quotes, brackets and backslashes -------------------------------


def odd_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lexcodecs")
    commands = parser.add_subparsers(dest="command", help="what to do")
    odd = commands.add_parser("odd", help="it's odd: [x]")
    odd.add_argument("--path", metavar="FILE", help="it's [odd] \\ 'quoted'")
    return parser


ODD_HELP = "it's [odd] \\ 'quoted'"


@needs_bash
def test_bash_survives_odd_help() -> None:
    text = completion_script("bash", odd_parser(), ["c"])
    bash(text + "\ncomplete -p lexcodecs")


def test_zsh_escapes_odd_help() -> None:
    text = completion_script("zsh", odd_parser(), ["c"])
    assert "'(--path)--path=[it'\\''s \\[odd\\] \\\\ '\\''quoted'\\'']:FILE:_files'" in text
    assert "'odd:it'\\''s odd: [x]'" in text
    if ZSH:
        done = subprocess.run([ZSH, "-n"], input=text, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


def test_fish_escapes_odd_help() -> None:
    text = completion_script("fish", odd_parser(), ["c"])
    assert "-l path -r -F -d 'it\\'s [odd] \\\\ \\'quoted\\''" in text
    if FISH:
        done = subprocess.run([FISH, "-n"], input=text, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


# -- zsh and fish: their syntax when installed, their shape always ---------------------------


@pytest.mark.skipif(ZSH is None, reason="zsh is not installed")
def test_zsh_syntax() -> None:
    assert ZSH is not None
    done = subprocess.run([ZSH, "-n"], input=completion_script("zsh"), capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(FISH is None, reason="fish is not installed")
def test_fish_syntax() -> None:
    assert FISH is not None
    done = subprocess.run([FISH, "-n"], input=completion_script("fish"), capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr


def test_zsh_shape() -> None:
    lines = completion_script("zsh").splitlines()
    assert lines[0] == "#compdef lexcodecs"  # what compinit looks for in $fpath
    codecs = "(" + " ".join(CODECS) + ")"
    for name in [*parsers()][1:]:
        assert f"        {name})" in lines
    assert any(line.endswith(f"]:NAME:{codecs}' \\") for line in lines)
    assert any(line.endswith(f"]:CODEC:{codecs}' \\") for line in lines)
    assert "            ':SHELL:(bash zsh fish)' ;;" in lines
    assert lines[-2:] == ['if [[ $funcstack[1] == _lexcodecs ]]; then _lexcodecs "$@"',
                          "else compdef _lexcodecs lexcodecs; fi"]


def test_fish_shape() -> None:
    lines = completion_script("fish").splitlines()
    assert "complete -c lexcodecs -f" in lines  # no file names unless an option takes one
    codecs = "'" + " ".join(CODECS) + "'"
    migrate = "complete -c lexcodecs -n '__fish_seen_subcommand_from migrate'"
    assert any(line.startswith(f"{migrate} -l to -x -a {codecs} -d ") for line in lines)
    assert any(line.startswith(f"{migrate} -l sqlite -r -F -d ") for line in lines)
    assert ("complete -c lexcodecs -n '__fish_seen_subcommand_from completion' "
            "-a 'bash zsh fish' -d 'the shell to complete in'") in lines
    assert all(line.startswith(("#", "complete -c lexcodecs ")) for line in lines)
