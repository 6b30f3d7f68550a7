"""Every option, positional and subcommand of the ``lexcodecs`` command says what it is for in
``--help`` (issue 32): the parser is walked, so a new option without help fails here."""

from __future__ import annotations

import argparse

import pytest

from lexcodecs.cli import build_parser


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return {name: sub for action in parser._actions
            if isinstance(action, argparse._SubParsersAction)
            for name, sub in action.choices.items()}


PARSER = build_parser()
COMMANDS = subcommands(PARSER)


def without_help(parser: argparse.ArgumentParser) -> list[str]:
    """The arguments of *parser* (its own, not its subcommands') that have no help text."""
    return ["/".join(a.option_strings) or str(a.metavar or a.dest)
            for a in parser._actions if not (a.help or "").strip()]


def test_the_top_level_has_help() -> None:
    assert without_help(PARSER) == []


def test_every_subcommand_has_help() -> None:
    helps = {a.dest: a.help for action in PARSER._actions
             if isinstance(action, argparse._SubParsersAction)
             for a in action._choices_actions}
    assert set(helps) == set(COMMANDS)
    assert [name for name, text in helps.items() if not (text or "").strip()] == []


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_option_has_help(name: str) -> None:
    assert without_help(COMMANDS[name]) == []
    assert not subcommands(COMMANDS[name]), "a nested subcommand: walk it too"
