"""A comparison as people and programs read it: the verdict first, then the table, then what
each codec cannot do and the counterexamples.

Theory of operation: :class:`Comparison` holds the results and the verdict; it renders them
four ways from the same data. :meth:`Comparison.to_dict` is the JSON contract (``--json``, and
the input of the HTML report); :meth:`~Comparison.renderables` are rich renderables for a
terminal (:mod:`lexcodecs._console`); :meth:`~Comparison.to_text` is the same as plain text
(pipes, tests); :meth:`~Comparison.to_markdown` is for a design document. The text and
markdown forms put the verdict first because it is what a person came for; the table and the
detail lines are the evidence.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

import attrs

if TYPE_CHECKING:  # rich is imported when a report is drawn, not when the CLI starts
    from rich.console import RenderableType

from .._console import table as console_table
from .._console import to_text
from .defaults import WRAP
from .results import CodecResult
from .verdict import Verdict

__all__ = ["COLUMNS", "Comparison"]

#: the terminal table's columns (headers on two lines keep it within about 90 columns; which
#: codecs ran compiled is on the line above it, per codec in JSON and markdown)
COLUMNS: Final = ("codec", "ok", "refused", "key bytes\navg/p99/max", "enc\nns", "dec\nns",
                  "round\ntrip", "colli-\nsions", "wrong\npairs", "prefix\nscans")


def _ok(r: CodecResult) -> str:
    if not r.expressible:
        return "no"
    if not r.records:
        return "none"  # every record refused: nothing was measured, nothing agrees
    return "yes" if r.agrees else "DIFF"


def _prefix(r: CodecResult) -> str:
    if not r.prefix_scans:
        return "-"
    return "exact" if r.prefix_exact else "LEAKS"


def _row(label: str, r: CodecResult) -> list[str]:
    if not r.expressible:
        return [label, "no", *("-" * (len(COLUMNS) - 2))]
    if not r.records:
        return [label, _ok(r), f"{r.refused:,}", *("-" * (len(COLUMNS) - 3))]
    ks = r.key_size
    return [
        label, _ok(r), f"{r.refused:,}",
        f"{ks.mean:.1f}/{ks.p99}/{ks.max}" if ks is not None else "-",
        f"{r.encode_ns.batch:,.0f}" if r.encode_ns is not None else "-",
        f"{r.decode_ns.batch:,.0f}" if r.decode_ns is not None else "-",
        "n/a" if r.round_trip_failures is None else
        ("ok" if not r.round_trip_failures else f"{r.round_trip_failures:,} fail"),
        f"{r.collisions:,}", f"{r.order_pairs_wrong:,}", _prefix(r),
    ]


def _details(r: CodecResult, label: str) -> list[str]:
    """The counterexamples of one measured codec, one line each."""
    lines = []
    if r.refused:
        lines.append(f"{label}: refused {r.refused:,} record(s), e.g. {r.refused_example}")
    if r.round_trip_failures:
        lines.append(f"{label}: round trip: {r.round_trip_example}")
    if r.collisions:
        lines.append(f"{label}: collision: {r.collision_example}")
    if r.order_pairs_wrong:
        explained = ", ".join(f"{name} ({n})" for name, n in r.order_explained.items())
        lines.append(f"{label}: order: {r.order_example}"
                     + (f"; declared anomalies seen: {explained}" if explained else "")
                     + (f"; {r.order_unexplained} adjacent pair(s) NOT explained by a "
                        "declared anomaly" if r.order_unexplained else ""))
    for scan in r.prefix_scans:
        if not scan.exact:
            lines.append(f"{label}: prefix scans on {scan.fields} field(s): "
                         + (scan.error or f"{scan.leaked:,} key(s) leaked in and "
                            f"{scan.missed:,} missed over {scan.prefixes} prefixes, e.g. "
                            f"{scan.example}"))
    return lines


def _blocker_lines(codec: str, b: Any, wrap: int) -> list[str]:
    """A blocker as text: the problem first, the workaround below it."""
    lines = textwrap.wrap(f"{codec}: cannot express the schema: {b.where()}: {b.problem}",
                          wrap, subsequent_indent="  ")
    work = ("no workaround" if b.workaround is None else
            f"workaround: {b.workaround}" + (" (inexact)" if b.exact is False else ""))
    return lines + textwrap.wrap(work, wrap, initial_indent="    ", subsequent_indent="      ")


def _code(text: str) -> str:
    """*text* as inline code, whatever backticks it holds (a fence one longer than its
    longest run)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _md(text: Any) -> str:
    """A markdown table cell: pipes escaped, one line."""
    return str(text).replace("|", "\\|").replace("\n", " ")


@attrs.frozen
class Comparison:
    """Every codec's result on one schema and one set of records, and the verdict."""

    schema: str
    records: int
    store: str
    results: list[CodecResult]
    verdict: Verdict = attrs.field(factory=lambda: Verdict(None, ""))
    source: str = ""
    implementation: str = "compiled"
    #: seconds the comparison took
    seconds: float = 0.0

    def result(self, codec: str) -> CodecResult:
        for r in self.results:
            if r.codec == codec:
                return r
        raise KeyError(codec)

    def chosen(self) -> dict[str, Any] | None:
        """The codec to use, in one place whether it was recommended or only closest:
        ``{"codec", "why": "recommended" | "closest", "schema"}`` (the schema to use it with:
        the closest's rewritten one), or ``None`` when there is neither."""
        v = self.verdict
        if v.recommended is not None:
            return {"codec": v.recommended, "why": "recommended", "schema": self.schema}
        if v.closest is not None:
            return {"codec": v.closest.codec, "why": "closest", "schema": v.closest.schema}
        return None

    def to_dict(self) -> dict[str, Any]:
        return {"schema": self.schema, "records": self.records, "source": self.source,
                "store": self.store, "implementation": self.implementation,
                "seconds": self.seconds, "chosen": self.chosen(),
                "verdict": self.verdict.to_dict(),
                "results": [r.to_dict() for r in self.results]}

    # -- text ------------------------------------------------------------------------------

    def _rows(self) -> list[tuple[str, CodecResult]]:
        rows = [(r.codec, r) for r in self.results]
        closest = self.verdict.closest
        if closest is not None:
            rows.append((f"{closest.codec}*", closest.result))
        return rows

    def _verdict_lines(self, wrap: int) -> list[str]:
        v = self.verdict
        lines = textwrap.wrap(v.headline, wrap, subsequent_indent="  ")
        if v.why:
            lines.append("why:" if v.recommended else "measured:")
            for item in v.why:
                lines += textwrap.wrap(item, wrap, initial_indent="  - ",
                                       subsequent_indent="    ")
        runners = v.runners_up or (v.closest.others if v.closest is not None else ())
        if runners:
            lines.append("runners-up:" if v.recommended else "next closest:")
            for r in runners:
                lines += textwrap.wrap(f"{r.codec}: {r.versus}", wrap, initial_indent="  - ",
                                       subsequent_indent="    ")
        return lines

    def renderables(self, wrap: int = WRAP) -> list[RenderableType]:
        """The report for a terminal: the verdict, the table, blockers, counterexamples; the
        prose wrapped at *wrap* columns."""
        measured = [r for label, r in self._rows() if r.measured]
        slow = sorted({r.codec for r in measured if not r.compiled})
        ran = ("" if not measured else " (every measured codec ran compiled)" if not slow else
               f" (not compiled: {', '.join(slow)})")
        head = [f"schema: {self.schema}    records: {self.records}    store: {self.store}",
                f"source: {self.source}    implementation: {self.implementation}{ran}"]
        out: list[RenderableType] = ["\n".join(head), ""]
        verdict = self._verdict_lines(wrap)
        headline = len(textwrap.wrap(self.verdict.headline, wrap, subsequent_indent="  "))
        if verdict:
            from rich.text import Text

            out.append(Text("\n".join(verdict[:headline]), style="bold"))
            if verdict[headline:]:
                out.append("\n".join(verdict[headline:]))
            out.append("")
        grid = console_table(COLUMNS, [_row(label, r) for label, r in self._rows()])
        grid.columns[0].no_wrap = True  # a codec's name is never folded
        grid.collapse_padding = True  # one space between columns: 83 columns wide at most
        out.append(grid)
        closest = self.verdict.closest
        if closest is not None:
            out.append("\n".join(textwrap.wrap(
                f"* {closest.codec} measured on the rewritten schema {closest.schema}", wrap,
                subsequent_indent="  ")))
        blockers = [line for name, found in self.verdict.cannot for b in found
                    for line in _blocker_lines(name, b, wrap)]
        details = [line for label, r in self._rows() if r.measured
                   for line in _details(r, label)]
        if blockers:
            out += ["", "\n".join(blockers)]
        if details:
            out += ["", "\n".join(details)]
        return out

    def to_text(self, width: int = 1000) -> str:
        """:meth:`renderables` as plain text, *width* columns (the default: counterexamples
        stay on one line each, as a pipe or a log wants them)."""
        return to_text(*self.renderables(), width=width)

    def table(self) -> str:
        """The whole report as plain text (the name it has always had)."""
        return self.to_text()

    # -- markdown --------------------------------------------------------------------------

    def to_markdown(self) -> str:
        """The report for a design document: verdict, table, blockers, counterexamples."""
        v = self.verdict
        out = [f"### Key format for `{self.schema}`", "", f"**{v.headline}**", ""]
        if v.why:
            out += [("Why:" if v.recommended else "Measured:"), ""]
            out += [f"- {item}" for item in v.why] + [""]
        runners = v.runners_up or (v.closest.others if v.closest is not None else ())
        if runners:
            out += [("Runners-up:" if v.recommended else "Next closest:"), ""]
            out += [f"- **{r.codec}**: {r.versus}" for r in runners] + [""]
        out += ["| " + " | ".join(_md(c) for c in _MD_COLUMNS) + " |",
                "|" + "|".join("---:" if c in _MD_NUMERIC else "---" for c in _MD_COLUMNS)
                + "|"]
        for label, r in self._rows():
            out.append("| " + " | ".join(_md(c) for c in _md_row(label, r)) + " |")
        if v.closest is not None:
            out += ["", f"\\* measured on the rewritten schema `{v.closest.schema}`"]
        if v.cannot:
            out += ["", "What the others cannot do:", "",
                    "| codec | field | problem | workaround |", "|---|---|---|---|"]
            for name, found in v.cannot:
                for b in found:
                    work = "none" if b.workaround is None else b.workaround + (
                        " (inexact)" if b.exact is False else "")
                    out.append(f"| {_md(name)} | {_md(b.field or 'the schema')} | "
                               f"{_md(b.problem)} | {_md(work)} |")
        details = [line for label, r in self._rows() if r.measured
                   for line in _details(r, label)]
        if details:
            out += ["", "Counterexamples:", ""] + [f"- {_code(d)}" for d in details]
        out += ["", f"Measured on {self.records:,} records ({self.source}), "
                f"{self.store} store, {self.implementation} implementation. Ranking: "
                + "; then ".join(rule for _, rule in v.ranking) + "."]
        return "\n".join(out) + "\n"


_MD_COLUMNS: Final = ("codec", "ok", "refused", "key bytes avg", "p99", "max",
                      "encode ns batch/p50/p99", "decode ns batch/p50/p99", "round trip",
                      "collisions", "wrong pairs", "prefix scans", "compiled", "readers")
#: the markdown columns aligned right (numbers)
_MD_NUMERIC: Final = frozenset({"refused", "key bytes avg", "p99", "max",
                                "encode ns batch/p50/p99", "decode ns batch/p50/p99",
                                "collisions", "wrong pairs"})


def _ns(timing: Any) -> str:
    if timing is None:
        return "-"
    return f"{timing.batch:,.0f} / {timing.p50:,.0f} / {timing.p99:,.0f}"


def _md_row(label: str, r: CodecResult) -> Sequence[str]:
    if not r.expressible or not r.records:
        return [label, _ok(r), "-" if not r.expressible else f"{r.refused:,}",
                *("-" * (len(_MD_COLUMNS) - 4)), "; ".join(r.readers) or "-"]
    ks = r.key_size
    assert ks is not None
    rt = ("n/a" if r.round_trip_failures is None else
          "ok" if not r.round_trip_failures else f"{r.round_trip_failures:,} fail")
    return [label, _ok(r), f"{r.refused:,}", f"{ks.mean:.1f}", str(ks.p99), str(ks.max),
            _ns(r.encode_ns), _ns(r.decode_ns), rt, f"{r.collisions:,}",
            f"{r.order_pairs_wrong:,}", _prefix(r), "yes" if r.compiled else "no",
            "; ".join(r.readers) or "-"]
