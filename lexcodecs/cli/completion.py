"""``lexcodecs completion bash|zsh|fish``: a completion script for that shell, written from
the command's own parser (:func:`completion_script`), so it always knows every subcommand and
option. It offers the registry's codec names after an option whose METAVAR is ``NAME`` or
``CODEC``, file names after ``FILE``, ``DB`` or ``PATH``, and an option's choices. The codec
names are the ones installed when the script is written: write it again after installing a
plugin.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from typing import Final, NamedTuple

from ..registry import available_codecs
from .arguments import Subparsers

__all__ = ["SHELLS", "completion_script"]

#: the shells ``lexcodecs completion`` writes a script for
SHELLS: Final = ("bash", "zsh", "fish")

_COMPLETION_HELP: Final = """\
load it for this session:
  bash:  source <(lexcodecs completion bash)
  zsh:   source <(lexcodecs completion zsh)
  fish:  lexcodecs completion fish | source
or install it for good:
  bash:  lexcodecs completion bash > ~/.local/share/bash-completion/completions/lexcodecs
  zsh:   lexcodecs completion zsh > "${fpath[1]}/_lexcodecs"
  fish:  lexcodecs completion fish > ~/.config/fish/completions/lexcodecs.fish
The codec names are the ones registered when the script is written: write it again after
installing a codec plugin."""

#: an option whose METAVAR is one of these takes a codec name (-c NAME, --from CODEC), ...
_CODEC_METAVARS: Final = frozenset({"NAME", "CODEC"})
#: ... or a path (--records FILE, --sqlite DB, --lmdb PATH)
_PATH_METAVARS: Final = frozenset({"FILE", "DB", "PATH"})
#: what a word offered to a shell may hold: a name with spaces or quotes would need quoting
#: three ways, and no codec or option is called that
_WORD: Final = re.compile(r"[A-Za-z0-9_.+-]+")
#: descriptions are cut to this many characters: a shell shows them beside each candidate
_BRIEF: Final = 76


class _Option(NamedTuple):
    """One option (or positional, when *flags* is empty) as a shell completes it."""

    flags: tuple[str, ...]
    help: str
    metavar: str | None  # None: a flag, taking no value
    words: tuple[str, ...]  # the values to offer: codec names, choices
    codec: bool  # the words are the codec names
    path: bool  # offer file names
    repeat: bool
    optional: bool  # a positional that may be left out


class _Command(NamedTuple):
    name: str
    help: str
    options: tuple[_Option, ...]


def _brief(text: str | None) -> str:
    words = " ".join((text or "").split())
    if len(words) <= _BRIEF:
        return words
    return words[:words.rfind(" ", 0, _BRIEF - 3)] + "..."


def _option(action: argparse.Action, codecs: tuple[str, ...]) -> _Option:
    metavar = None if action.nargs == 0 else str(action.metavar or action.dest.upper())
    codec = action.choices is None and metavar in _CODEC_METAVARS
    if action.choices is not None:
        words = tuple(str(c) for c in action.choices if _WORD.fullmatch(str(c)))
    else:
        words = codecs if codec else ()
    return _Option(tuple(action.option_strings), _brief(action.help), metavar, words, codec,
                   metavar in _PATH_METAVARS and action.choices is None,
                   isinstance(action, (argparse._AppendAction, argparse._CountAction)),
                   action.nargs in ("?", "*"))


def _options(parser: argparse.ArgumentParser, codecs: tuple[str, ...]) -> tuple[_Option, ...]:
    return tuple(_option(a, codecs) for a in parser._actions
                 if not isinstance(a, argparse._SubParsersAction))


def _commands(parser: argparse.ArgumentParser, codecs: tuple[str, ...]
              ) -> tuple[tuple[_Option, ...], tuple[_Command, ...]]:
    """The top-level options, and each subcommand with its options, from *parser*."""
    found: list[_Command] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            found += [_Command(name, _brief(helps.get(name)), _options(sub, codecs))
                      for name, sub in action.choices.items()]
    return _options(parser, codecs), tuple(found)


def completion_script(shell: str, parser: argparse.ArgumentParser | None = None,
                      codecs: Sequence[str] | None = None) -> str:
    """The completion script of *shell* (one of :data:`SHELLS`) for *parser* (default: the
    ``lexcodecs`` command's), offering *codecs* (default: the registry's names)."""
    names = tuple(n for n in (available_codecs() if codecs is None else codecs)
                  if _WORD.fullmatch(n))
    if parser is None:
        from .command import build_parser  # the command's parser holds this subcommand too

        parser = build_parser()
    top, commands = _commands(parser, names)
    if shell == "bash":
        return _bash(top, commands, names)
    return {"zsh": _zsh, "fish": _fish}[shell](top, commands)


def run_completion(args: argparse.Namespace) -> int:
    print(completion_script(args.shell), end="")
    return 0


# bash: one function; the subcommand is the first word not an option (the top level has no
# option that takes a value), then the word before the cursor says what is wanted

def _bash_values(option: _Option) -> str:
    if option.codec:
        return 'COMPREPLY=($(compgen -W "$codecs" -- "$cur"))'
    if option.words:
        return f'COMPREPLY=($(compgen -W {_sh(" ".join(option.words))} -- "$cur"))'
    if option.path:
        return 'COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null'
    return "COMPREPLY=()"  # free text: nothing to offer


def _bash_case(options: tuple[_Option, ...], positional: str) -> list[str]:
    """A subcommand's branch: the value an option before the cursor takes (its options
    grouped by what they offer), else its options or its positional's choices."""
    offers: dict[str, list[str]] = {}
    for option in options:
        if option.flags and option.metavar is not None:
            offers.setdefault(_bash_values(option), []).extend(option.flags)
    lines = []
    if offers:
        lines += ["            case $prev in",
                  *(f"                {'|'.join(flags)}) {offer}; return ;;"
                    for offer, flags in offers.items()),
                  "            esac"]
    return [*lines, f"            if [[ $cur == -* ]]; then words={_sh(_flags(options))};"
                    f" else words={_sh(positional)}; fi ;;"]


def _bash(top: tuple[_Option, ...], commands: tuple[_Command, ...], codecs: tuple[str, ...]
          ) -> str:
    lines = [
        "# bash completion for lexcodecs (written by: lexcodecs completion bash)",
        "# load it with: source <(lexcodecs completion bash)",
        "_lexcodecs() {",
        '    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}',
        "    local command='' words='' i",
        f"    local codecs={_sh(' '.join(codecs))}",
        "    # --option=value: bash splits the word at the =",
        '    if [[ $cur == = ]]; then cur=""',
        '    elif [[ $prev == = ]]; then prev=${COMP_WORDS[COMP_CWORD-2]}; fi',
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        '        case ${COMP_WORDS[i]} in -*) ;; *) command=${COMP_WORDS[i]}; break ;; esac',
        "    done",
        "    case $command in",
        f"        '') if [[ $cur == -* ]]; then words={_sh(_flags(top))};"
        f" else words={_sh(' '.join(c.name for c in commands))}; fi ;;",
    ]
    for command in commands:
        positional = " ".join(w for o in command.options if not o.flags for w in o.words)
        lines += [f"        {command.name})", *_bash_case(command.options, positional)]
    lines += [
        "    esac",
        '    COMPREPLY=($(compgen -W "$words" -- "$cur"))',
        "}",
        "complete -F _lexcodecs lexcodecs",
    ]
    return "\n".join(lines) + "\n"


def _flags(options: tuple[_Option, ...]) -> str:
    return " ".join(f for o in options for f in o.flags)


def _sh(text: str) -> str:
    """*text* as one single-quoted word of bash or zsh."""
    return "'" + text.replace("'", "'\\''") + "'"


# zsh: _arguments, a spec per option and positional, under a state per subcommand; the file
# works both autoloaded from $fpath (as _lexcodecs) and sourced

def _zsh_spec(option: _Option) -> list[str]:
    text = option.help.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    if option.words:
        action = "(" + " ".join(option.words) + ")"
    else:
        action = "_files" if option.path else " "
    message = (option.metavar or "").replace(":", "\\:")
    if not option.flags:
        head = "*" if option.repeat else ("::" if option.optional else ":")
        return [_sh(f"{head}{message}:{action}")]
    exclusive = "*" if option.repeat else "(" + " ".join(option.flags) + ")"
    specs = []
    for flag in option.flags:
        if option.metavar is None:
            specs.append(f"{exclusive}{flag}[{text}]")
        else:
            equals = "=" if flag.startswith("--") else ""
            specs.append(f"{exclusive}{flag}{equals}[{text}]:{message}:{action}")
    return [_sh(spec) for spec in specs]


def _zsh(top: tuple[_Option, ...], commands: tuple[_Command, ...]) -> str:
    described = [_sh(f"{c.name.replace(':', chr(92) + ':')}:{c.help}") for c in commands]
    lines = [
        "#compdef lexcodecs",
        "# zsh completion for lexcodecs (written by: lexcodecs completion zsh)",
        "# load it with: source <(lexcodecs completion zsh)",
        "_lexcodecs() {",
        "  local curcontext=$curcontext state line",
        "  typeset -A opt_args",
        "  _arguments -C \\",
        *(f"    {spec} \\" for option in top for spec in _zsh_spec(option)),
        "    '1:command:->command' \\",
        "    '*::argument:->argument' && return",
        "  case $state in",
        "    command)",
        "      local -a commands=(",
        *(f"        {line}" for line in described),
        "      )",
        "      _describe -t commands command commands ;;",
        "    argument)",
        "      curcontext=${curcontext%:*:*}:lexcodecs-$words[1]:",
        "      case $words[1] in",
    ]
    for command in commands:
        specs = [spec for option in command.options for spec in _zsh_spec(option)]
        lines += [f"        {command.name})", "          _arguments \\",
                  *(f"            {spec} \\" for spec in specs[:-1]),
                  f"            {specs[-1]} ;;"]
    lines += [
        "      esac ;;",
        "  esac",
        "}",
        'if [[ $funcstack[1] == _lexcodecs ]]; then _lexcodecs "$@"',
        "else compdef _lexcodecs lexcodecs; fi",
    ]
    return "\n".join(lines) + "\n"


# fish: one `complete` line per option and subcommand, each under a condition saying which
# subcommand (or none yet) it belongs to

def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish_line(condition: str, option: _Option) -> str:
    parts = ["complete -c lexcodecs -n", _fish_quote(condition)]
    for flag in option.flags:
        if flag.startswith("--"):
            parts += ["-l", flag[2:]]
        else:
            parts += ["-s" if len(flag) == 2 else "-o", flag[1:]]
    if option.flags and option.metavar is not None:
        parts.append("-r -F" if option.path else "-x")
    if option.words:
        parts += ["-a", _fish_quote(" ".join(option.words))]
    if option.help:
        parts += ["-d", _fish_quote(option.help)]
    return " ".join(parts)


def _fish(top: tuple[_Option, ...], commands: tuple[_Command, ...]) -> str:
    none_yet = "not __fish_seen_subcommand_from " + " ".join(c.name for c in commands)
    lines = [
        "# fish completion for lexcodecs (written by: lexcodecs completion fish)",
        "# load it with: lexcodecs completion fish | source",
        "complete -c lexcodecs -f",
        *(_fish_line(none_yet, option) for option in top),
        *(f"complete -c lexcodecs -n {_fish_quote(none_yet)} -a {c.name}"
          f" -d {_fish_quote(c.help)}" for c in commands),
    ]
    for command in commands:
        within = f"__fish_seen_subcommand_from {command.name}"
        lines += [_fish_line(within, option) for option in command.options
                  if option.flags or option.words]
    return "\n".join(lines) + "\n"


def _add_completion(commands: Subparsers) -> None:
    p = commands.add_parser(
        "completion", help="print a shell completion script (bash, zsh or fish)",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_COMPLETION_HELP)
    p.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    p.set_defaults(run=run_completion)
