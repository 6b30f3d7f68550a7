"""``lexcodecs compare`` on the command line, for issue 32: what can be refused is refused
before the comparison runs, the report survives a failed HTML write, the progress bar's total
is right from its first line, and ``--json`` is a versioned document that names the codec to
use in one place.

Small comparisons: few records, the memory store, ``--repeats 0`` or 1 (no test here weighs a
time).
"""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

import lexcodecs.cli.compare
import lexcodecs.compare
import lexcodecs.compare.html
from lexcodecs._console import Progress
from lexcodecs.cli import main
from lexcodecs.errors import LexCodecError

#: no built-in codec has a descending timestamp: the closest is measured on a rewritten schema
NO_CODEC = "user_id:int64, created:timestamp desc, email:string"
CODECS = ["-c", "skv", "-c", "orderly", "-c", "fdb-tuple"]
QUICK = ["--store", "memory", "--repeats", "0", "-n", "30"]


def test_html_without_matplotlib_is_refused_before_comparing(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    """Without the plotting library, ``--html`` ran the whole comparison, then failed and
    lost the text report. It is now refused first, saying how to install the extra."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    compared: list[Any] = []
    monkeypatch.setattr(lexcodecs.compare, "compare",
                        lambda *a, **k: compared.append(a) or pytest.fail("compared"))
    target = tmp_path / "report.html"
    code = main(["compare", "-s", "a:string", *CODECS, *QUICK, "--no-progress", "--html",
                 str(target)])
    out, err = capsys.readouterr()
    assert code == 2
    assert compared == []
    assert out == ""
    assert err == ("lexcodecs: error: the HTML report draws its charts with matplotlib, which "
                   "is not installed: pip install 'lexcodecs[report]'\n")
    assert not target.exists()


def test_a_failed_html_write_keeps_the_report(capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    """The report is printed before the HTML file is written: a write that fails after a
    long comparison is one error line below the report, not the report lost."""
    pytest.importorskip("matplotlib")

    def fail(report: Any, path: Any) -> None:
        raise LexCodecError(f"cannot write the HTML report {str(path)!r}: No space left")

    monkeypatch.setattr(lexcodecs.compare.html, "write_html", fail)
    code = main(["compare", "-s", "a:string", *CODECS, *QUICK, "--no-progress", "--html",
                 str(tmp_path / "report.html")])
    out, err = capsys.readouterr()
    assert code == 2
    assert out.startswith("schema: a:string")
    assert "Use " in out
    assert err.startswith("lexcodecs: error: cannot write the HTML report")


@pytest.mark.parametrize("schema", ["a:string, n:int64", NO_CODEC])
def test_the_progress_total_is_right_from_the_first_line(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        schema: str) -> None:
    """``comparing 0/9``, then ``9/17``: when no codec expresses the schema, the codecs
    measured on their rewritten schema were added to the total halfway. The total is now
    known before the bar is drawn, and never changes."""
    drawn = io.StringIO()
    bars: list[tuple[Progress, int | None]] = []

    def bar(args: Any, label: str, total: int | None) -> Progress:
        made = Progress(label, total, stream=drawn, enabled=True)
        bars.append((made, total))
        return made

    monkeypatch.setattr(lexcodecs.cli.compare, "_progress_bar", bar)
    assert main(["compare", "-s", schema, *CODECS, *QUICK]) == 0
    capsys.readouterr()
    ((progress, first),) = bars
    assert progress.label == "comparing"
    assert first == progress.total == progress.done
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn.getvalue())  # colours, cursor
    assert re.split(r"[\r\n]+", text.strip())[0].startswith(f"comparing {'━' * 40} 0/{first} ")
    shown = {int(total) for total in re.findall(r"\b\d+/(\d+)\b", text)}
    assert shown == {first}
    # the codecs, and for a schema none expresses, each again on its rewritten schema (each of
    # the three has a workaround for every blocker)
    assert first == (3 if schema != NO_CODEC else 3 + 3)


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["compare", *argv, *CODECS, *QUICK, "--no-progress", "--json"]) == 0
    text = capsys.readouterr().out
    document: dict[str, Any] = json.loads(text)
    return document


def test_json_is_versioned_and_names_the_chosen_codec(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Every ``--json`` document starts with its ``format_version``; ``chosen`` names the
    codec to use, and the schema to use it with, whether it was recommended or only the
    closest; the keys the document had are all still there."""
    data = _json(capsys, "-s", "a:string, n:int64")
    assert next(iter(data)) == "format_version"
    assert data["format_version"] == 1
    assert data["chosen"] == {"codec": data["verdict"]["recommended"], "why": "recommended",
                              "schema": "a:string, n:int64"}
    assert {"schema", "records", "source", "store", "implementation", "seconds", "verdict",
            "results"} <= set(data)

    data = _json(capsys, "-s", NO_CODEC)
    closest = data["verdict"]["closest"]
    assert data["verdict"]["recommended"] is None
    assert data["chosen"] == {"codec": closest["codec"], "why": "closest",
                              "schema": closest["schema"]}
    assert data["chosen"]["schema"] != NO_CODEC  # the rewritten schema, to use it with
