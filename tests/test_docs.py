"""Every example in ``docs/`` and the README whose output is shown is run, and its output
compared: the pages cannot drift from the code again.

Two kinds of example have output:

- ``pycon`` blocks: a page's blocks, in order, are one doctest session (``...`` elides, as
  doctest's ELLIPSIS), run in a fresh directory that holds the page's files
  (:data:`FILES`).
- ``console`` blocks: each ``$ command`` (continued by a trailing ``\\`` or an open quote)
  runs in bash in that same directory, ``lexcodecs`` being this checkout's; what it prints
  (stdout, then stderr) is compared with the lines below it, up to the next ``$``. A page's
  blocks are one session: a file one command writes, the next one reads, and ``$?`` is the
  status of the command before.

What changes from run to run is masked on both sides before comparing (:func:`mask`):
timings (``0.25 s``, ``85 ns``, the ``ns`` columns of compare's table, a --json report's
seconds), rates (shown or not by how long a phase took), the temporary directory. What the
speed of a run decides (compare's wording of a speed tie) is elided in the page with
``...``. A command shown without output is run when it is one a test can run
here; :data:`NOT_RUN` lists the ones it cannot (installs, the project's own test run) and
why, and nothing else is skipped.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"),
                *(ROOT / "docs" / "codecs").glob("*.md")])

#: commands shown but not run, by a part of their text: what each would do that a test
#: must not, or cannot here, and where its output is tested instead
NOT_RUN: dict[str, str] = {
    "pip install .": "installs this package (the README's set-up is CI's own job)",
    "pip install '.[test]'": "installs this package (the README's set-up is CI's own job)",
    "--sqlite big.db": "stopped by a Ctrl-C typed during the run: tests/test_migrate_kill.py "
                       "sends SIGINT to a real run and checks this message",
}


# -- reading the pages ------------------------------------------------------------------------

def _blocks(text: str, kind: str) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```", text, re.S | re.M)


def _complete(command: str) -> bool:
    """Whether *command* is a whole shell command: no trailing ``\\``, no open quote."""
    if command.endswith("\\"):
        return False
    try:
        shlex.split(command)
    except ValueError:
        return False
    return True


def console_steps(text: str) -> Iterator[tuple[str, str]]:
    """(command, expected output) for every ``$`` line of the page's console blocks."""
    for block in _blocks(text, "console"):
        lines = block.splitlines()
        i = 0
        while i < len(lines):
            if not lines[i].startswith("$ "):
                raise AssertionError(f"console block line without a command: {lines[i]!r}")
            command = lines[i][2:]
            i += 1
            while not _complete(command) and i < len(lines):
                command += "\n" + lines[i]
                i += 1
            output = []
            while i < len(lines) and not lines[i].startswith("$ "):
                output.append(lines[i])
                i += 1
            yield command, "\n".join(output)


# -- masking what moves -----------------------------------------------------------------------

_TIME = re.compile(r"\b\d[\d,]*(?:\.\d+)?\s?(?:ns|µs|us|ms|s)\b")
#: a rate, with its parentheses: it is shown only for a phase long enough to time
_RATE = re.compile(r" ?\(\d[\d,]*(?:\.\d+)? keys/s\)")
#: the times and rates of a migration's --json report
_JSON_TIMES = re.compile(r'("(?:seconds|copy_s|verify_s|swap_s|other_s)": )[0-9.e-]+')
_JSON_RATES = re.compile(r'"keys_per_s": \{[^}]*\}')


def _mask_ns_columns(text: str) -> str:
    """compare's table: the numbers under a header cell ``ns`` (encode and decode times)."""
    lines = text.split("\n")
    for h, header in enumerate(lines):
        ends = [m.end() for m in re.finditer(r"\bns\b", header)]
        if not ends or "codec" not in header:
            continue
        for r in range(h + 1, len(lines)):
            row = lines[r]
            if not row.strip():
                break
            chars = list(row)
            for end in ends:  # the number ending there, and the spaces that align it, as " #"
                k = end
                while 0 < k <= len(chars) and chars[k - 1] in "0123456789.,":
                    k -= 1
                if k == end or end > len(chars):
                    continue
                j = k
                while j > 1 and chars[j - 1] == " " and chars[j - 2] == " ":
                    j -= 1
                chars[j:end] = [" "] * (end - 1 - j) + ["#"]
            lines[r] = "".join(chars)
    return "\n".join(lines)


def mask(text: str, tmp: Path) -> str:
    """*text* with what changes between runs replaced by fixed marks."""
    text = text.replace(str(tmp), "<tmp>")
    text = _RATE.sub("", text)
    text = _JSON_TIMES.sub(r"\1<time>", text)
    text = _JSON_RATES.sub('"keys_per_s": <rates>', text)
    text = _TIME.sub("<time>", text)
    return "\n".join(line.rstrip() for line in _mask_ns_columns(text).split("\n")).strip("\n")


def same(expected: str, actual: str) -> bool:
    """doctest's rule with ELLIPSIS: ``...`` in *expected* stands for any text."""
    checker = doctest.OutputChecker()
    return checker.check_output(expected + "\n", actual + "\n", doctest.ELLIPSIS)


class MaskedChecker(doctest.OutputChecker):
    """doctest's checker, on both outputs masked (:func:`mask`), and its report of them."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        return super().check_output(mask(want, self.tmp) + "\n", mask(got, self.tmp) + "\n",
                                    optionflags)

    def output_difference(self, example: doctest.Example, got: str, optionflags: int) -> str:
        masked = doctest.Example(example.source, mask(example.want, self.tmp) + "\n")
        return super().output_difference(masked, mask(got, self.tmp) + "\n", optionflags)


# -- the pages' files ---------------------------------------------------------------------------

def _no_files(tmp: Path) -> None:
    """A page whose examples make their own files."""


def _stores(tmp: Path) -> None:
    """The SQLite table and LMDB environment of LexKey keys that docs/migrating.md's own
    script makes (``setup_stores.py``)."""
    page = (ROOT / "docs" / "migrating.md").read_text(encoding="utf-8")
    script = next(b for b in _blocks(page, "python") if 'connect("shop.db")' in b)
    (tmp / "setup_stores.py").write_text(script, encoding="utf-8")
    subprocess.run([sys.executable, "setup_stores.py"], cwd=tmp, check=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})


def _cli(tmp: Path) -> None:
    """docs/cli.md: migrating.md's stores, a records file, and a directory named ``data``."""
    _stores(tmp)
    (tmp / "records.jsonl").write_text(
        '["acme", 1700000000, {"bytes": "00ff"}, 2.5]\n'
        '["acme", 1700000000, {"bytes": "00"}, {"float": "-0.0"}]\n'
        '["acme", 1690000000, {"bytes": ""}, {"float": "-inf"}]\n'
        '["a\\u0000", 5, null, 1]\n'
        '\n'
        '["b", null, {"bytes": "ff"}, {"float": "nan"}]\n', encoding="utf-8")
    (tmp / "data").mkdir()


def _migrating(tmp: Path) -> None:
    """docs/migrating.md: its key files, and its stores made by the page's own script."""
    (tmp / "keys.hex").write_text("02610015ff\n0261636d6500152a\n\n02620013fe\n",
                                  encoding="utf-8")
    (tmp / "bad.hex").write_text("02610015ff\n026100ff001501\n", encoding="utf-8")
    _stores(tmp)


def _page_files(tmp: Path, page: str) -> None:
    """The files a page spells out, each a fenced block after a line ``**`path`**``."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    for path, body in re.findall(r"^\*\*`([^`]+)`\*\*\n.*?^```\w*\n(.*?)^```", text,
                                 re.S | re.M):
        (tmp / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp / path).write_text(body, encoding="utf-8")


def _plugin(tmp: Path) -> None:
    """docs/writing-a-plugin.md: the plugin project the page writes, file by file."""
    _page_files(tmp, "writing-a-plugin.md")


def _install_plugin(tmp: Path, env: dict[str, str]) -> None:
    """``pip install -e .`` of the page's plugin, as pip's editable install leaves it: the
    project on the path and a ``.dist-info`` whose entry points are the page's
    ``pyproject.toml``'s (no package is downloaded or built)."""
    import tomllib

    project = tomllib.loads((tmp / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = tmp / "site" / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                   f"Version: {project['version']}\n", encoding="utf-8")
    groups = project["entry-points"]
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in points.items())
        for group, points in groups.items()), encoding="utf-8")
    env["PYTHONPATH"] = os.pathsep.join([str(tmp), str(tmp / "site"), env["PYTHONPATH"]])


#: what each page's examples expect to find in their directory, by page name
FILES: dict[str, Callable[[Path], None]] = {"cli.md": _cli, "migrating.md": _migrating,
                                             "writing-a-plugin.md": _plugin}

#: what a page's console session sets up before its first command, by page name: the
#: plugin page's commands show the plugin installed (its ``pip install -e .``, in section
#: 8, is then already done)
BEFORE_CONSOLE: dict[str, Callable[[Path, dict[str, str]], None]] = {
    "writing-a-plugin.md": _install_plugin,
}

#: commands a test does in its own way, with the same effect (see each function)
EMULATED: dict[str, Callable[[Path, dict[str, str]], None]] = {
    "pip install -e .": lambda tmp, env: None,  # BEFORE_CONSOLE did it
}


# -- the tests ---------------------------------------------------------------------------------

def _shim(tmp: Path) -> dict[str, str]:
    """An environment whose ``lexcodecs`` is this checkout's, with a fixed width."""
    bin_dir = tmp.parent / f"{tmp.name}-bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "lexcodecs"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m lexcodecs "$@"\n',
                      encoding="utf-8")
    script.chmod(0o755)
    env = dict(os.environ)
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
               PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])]),
               COLUMNS="100", NO_COLOR="1", LC_ALL="C.UTF-8")
    for name in [n for n in env if n.startswith("PYTEST_")] + ["LEXCODECS_DEBUG"]:
        env.pop(name, None)  # a user's shell has none of this run's (xdist's worker, ...)
    return env


def _pages_with(kind: str) -> list[Path]:
    return [p for p in PAGES if _blocks(p.read_text(encoding="utf-8"), kind)]


@pytest.mark.parametrize("page", _pages_with("console"), ids=lambda p: p.name)
def test_console_examples(page: Path, tmp_path: Path) -> None:
    """Each ``$`` command of the page prints what the page shows (masked)."""
    text = page.read_text(encoding="utf-8")
    FILES.get(page.name, _no_files)(tmp_path)
    env = _shim(tmp_path)
    if page.name in BEFORE_CONSOLE:
        BEFORE_CONSOLE[page.name](tmp_path, env)
    ran, skipped, wrong, status = 0, 0, [], 0
    for command, expected in console_steps(text):
        if any(part in command for part in NOT_RUN):
            skipped += 1
            continue
        if command in EMULATED:
            EMULATED[command](tmp_path, env)
            continue
        done = subprocess.run(["bash", "-c", f"(exit {status}); {command}"], cwd=tmp_path,
                              env=env, capture_output=True, text=True)
        status = done.returncode  # what the next command's $? says
        want, got = mask(expected, tmp_path), mask(done.stdout + done.stderr, tmp_path)
        if not same(want, got):
            wrong.append(f"$ {command}\n--- shown\n{want}\n--- printed\n{got}\n")
        ran += 1
    assert not wrong, f"{page.name}: {len(wrong)} of {ran} outputs differ\n\n" + "\n".join(wrong)
    assert ran + skipped > 0


@pytest.mark.parametrize("page", _pages_with("pycon"), ids=lambda p: p.name)
def test_pycon_examples(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's pycon blocks, in order, are one doctest session that passes."""
    from lexcodecs import available_codecs, unregister

    text = page.read_text(encoding="utf-8")
    FILES.get(page.name, _no_files)(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), str(ROOT), *sys.path])
    source = "\n".join(_blocks(text, "pycon"))
    test = doctest.DocTestParser().get_doctest(source, {}, page.name, str(page), 0)
    output: list[str] = []
    before = set(available_codecs())
    try:
        runner = doctest.DocTestRunner(checker=MaskedChecker(tmp_path),
                                       optionflags=doctest.ELLIPSIS)
        result = runner.run(test, out=output.append)
    finally:  # the codecs and modules a page makes (quickstart's toy) must not outlive it
        for name in set(available_codecs()) - before:
            unregister(name)
        for name, module in list(sys.modules.items()):
            if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path)):
                del sys.modules[name]
    assert result.attempted > 0
    assert result.failed == 0, "".join(output)
