"""The README's two set-up commands are the ones CI runs and the package really provides."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section)


def test_readme_has_exactly_two_setup_commands() -> None:
    commands = _commands()
    assert len(commands) == 2, commands
    install, tests = commands
    assert install.endswith("lexcodecs compare")
    assert "[test]" in tests
    assert "pytest" in tests


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert _commands()[1] in ci.splitlines()


def test_console_script_and_test_extra_are_declared() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["scripts"]["lexcodecs"] == "lexcodecs.cli:main"
    extras = project["optional-dependencies"]
    test = " ".join(extras["test"])
    for needed in ("pytest", "hypothesis", "foundationdb", "lmdb", "dask", "pyarrow",
                   "matplotlib", "selenium"):
        assert needed in test
    # the linters are a dev extra (.ci/run installs it), and nothing unused is in the tests'
    for unwanted in ("ruff", "mypy", "pytest-benchmark"):
        assert unwanted not in test
    dev = " ".join(extras["dev"])
    for needed in ("lexcodecs[test]", "ruff", "mypy"):
        assert needed in dev
    assert (ROOT / "lexcodecs" / "py.typed").exists()
