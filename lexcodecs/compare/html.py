"""The single-file HTML report of ``lexcodecs compare --html``.

Theory of operation: the report is drawn from :meth:`lexcodecs.compare.Comparison.to_dict`
only -- the JSON-able dict that ``--json`` prints -- so a saved JSON report can be rendered
again later, and nothing here reaches back into codecs. The page reads top-down in the order
a person deciding on a key format asks: the verdict (headline, why, runners-up), what each
other codec cannot do (every blocker by field, with the nearest workaround), charts, the
results table, prefix-scan exactness, the declared anomalies, and sample keys annotated
byte by byte as ``lexcodecs inspect`` explains them.

One file, nothing fetched: the CSS is inline, there is no script at all, and a
Content-Security-Policy of ``default-src 'none'`` makes the browser refuse any request the
page might still try. The charts are drawn by matplotlib with its object-oriented API (a
:class:`~matplotlib.figure.Figure`, never ``pyplot``, so no GUI backend is chosen and the
caller's global matplotlib state is left alone) and embedded as inline SVG. The SVG is made
deterministic and portable: text is drawn as paths in the bundled DejaVu Sans (it looks the
same on every machine, with no font to fetch), ``svg.hashsalt`` fixes the generated ids, the
date is left out of the metadata, and every id is prefixed with its chart's name so that two
charts in one page never share one. The same dict therefore gives the same bytes.

Every string in the report is user data (codec names from plugins, values from the user's
records, error messages quoting them) and is escaped with :func:`html.escape`; in the charts
it is drawn as glyphs, never interpreted (matplotlib's ``$math$`` parsing is off). Codecs that
cannot express the schema have no sizes or speeds: the charts show the codecs that ran. When
none expresses the schema as written, the closest codec, measured on its rewritten schema,
stands wherever the page would show the recommended one (charts, results, prefix scans,
anomalies, sample keys), labelled "(rewritten)" (:func:`_measured`).

Each codec has one colour, the same in every chart (:func:`_colours`), and no two codecs shown
share one: what a chart tells apart by colour (encode and decode, records kept and refused)
it tells apart by fill and hatching instead.
"""

from __future__ import annotations

import colorsys
import contextlib
import html
import io
import math
import os
import re
import tempfile
import warnings
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from ..errors import LexCodecError, describe_int
from ..sources.paths import special_kind_at
from .measure import cut_text

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

__all__ = ["render_html", "require_charts", "write_html"]

# -- tables -----------------------------------------------------------------------------------

#: what a missing plotting library is told to do (the ``report`` extra in pyproject.toml)
INSTALL_HINT: Final = "pip install 'lexcodecs[report]'"

#: the page's sections, in reading order: (id, heading)
SECTIONS: Final = (
    ("verdict", "Verdict"),
    ("cannot", "What the other codecs cannot do"),
    ("charts", "Charts"),
    ("results", "Results"),
    ("prefix-scans", "Prefix scans"),
    ("anomalies", "Declared anomalies"),
    ("samples", "Sample keys"),
)

#: one colour per codec, the same in every chart: Okabe & Ito's colour-blind-safe palette, then
#: Paul Tol's muted one, black and yellow last (a chart's lines are near black, and yellow is
#: faint on white); a page with more codecs gets more colours (:func:`_colours`)
CODEC_COLOURS: Final = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00",
                        "#332288", "#882255", "#44AA99", "#999933", "#AA4499", "#117733",
                        "#DDCC77", "#000000", "#F0E442")
#: what the charts draw that is no codec's: lines and text, and what a codec refused
INK: Final = "#1b1f24"
REFUSED_COLOUR: Final = "#d0d7de"
#: the legends' keys, which show a fill or a hatching, not a codec
LEGEND_GREY: Final = "#8c959f"

#: part roles of ``inspect`` (lexcodecs.inspection.Part) -> CSS class of their colour; a role
#: not listed (a plugin's own) gets a colour from a stable hash of its name
ROLE_CLASSES: Final[Mapping[str, str]] = {
    "type": "r-type", "header": "r-type", "prefix": "r-type",
    "payload": "r-data", "data": "r-data", "digits": "r-data", "mantissa": "r-data",
    "value": "r-data", "bytes": "r-data",
    "terminator": "r-end", "separator": "r-end", "separator?": "r-end",
    "nested terminator": "r-end",
    "escape": "r-escape", "nul": "r-escape",
    "null": "r-null",
    "length": "r-meta", "exponent": "r-meta", "sign": "r-meta",
}
#: the colour classes a role without an entry above is spread over
OTHER_ROLE_CLASSES: Final = ("r-x0", "r-x1", "r-x2", "r-x3")

#: a codec's declared ``decoding`` in words (the report's "decodes" column)
DECODING: Final[Mapping[str, str]] = {
    "self-describing": "alone", "schema": "with the schema", "none": "no"}

#: the rcParams every chart is drawn and saved under (the module docstring says why); in force
#: from the figure's creation, as text reads its font and math parsing when it is made
CHART_RC: Final[dict[RcKeyType, Any]] = {
    "svg.fonttype": "path",
    "svg.hashsalt": "lexcodecs-html-report",
    "font.family": "DejaVu Sans",
    "font.size": 9.0,
    "text.parse_math": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.facecolor": "white",
    "savefig.facecolor": "white",
}
#: SVG metadata: no date (it would change the bytes every run)
SVG_METADATA: Final[Mapping[str, str | None]] = {"Date": None, "Creator": "lexcodecs"}

#: longest codec name or label drawn in a chart; the page shows the whole text
CHART_LABEL_CHARS: Final = 28
#: the most characters of one text the page shows (``compare`` cuts sample keys and values
#: shorter already: this bounds a report from elsewhere); the rest is cut, saying so
MAX_TEXT_CHARS: Final = 2000
#: the most parts of one sample key the page lists; the rest are counted
MAX_SAMPLE_PARTS: Final = 100

CSS: Final = """
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #ffffff; --muted: #57606a;
  --line: #d0d7de; --panel: #f6f8fa; --good: #1a7f37; --bad: #cf222e; --accent: #0969da;
  --verdict: #dafbe1; --none: #fff1e5; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d; --panel: #161b22;
    --good: #3fb950; --bad: #f85149; --accent: #4493f8; --verdict: #12361f; --none: #3d2611; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 72rem; padding: 1.5rem; color: var(--fg);
  background: var(--bg); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 1.6rem; margin: 0 0 .3rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .6rem; padding-bottom: .2rem;
  border-bottom: 1px solid var(--line); }
h3 { font-size: 1.05rem; margin: 1.2rem 0 .4rem; }
code, .mono { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace;
  font-size: .9em; overflow-wrap: anywhere; }
nav ul { display: flex; flex-wrap: wrap; gap: .3rem 1rem; list-style: none; padding: 0; }
a { color: var(--accent); }
.meta { color: var(--muted); margin: 0; }
.verdict { background: var(--verdict); border-radius: .5rem; padding: .8rem 1.2rem; }
.verdict.none { background: var(--none); }
.headline { font-size: 1.3rem; font-weight: 600; margin: .2rem 0 .5rem; }
.versus { color: var(--muted); }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; margin: .4rem 0 1rem; }
caption { caption-side: bottom; text-align: left; color: var(--muted); font-size: .85rem;
  padding-top: .3rem; }
.nowrap { white-space: nowrap; }
th, td { border-bottom: 1px solid var(--line); padding: .3rem .6rem; text-align: left;
  vertical-align: top; }
th { background: var(--panel); }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.recommended td { background: var(--verdict); }
.good { color: var(--good); }
.bad { color: var(--bad); font-weight: 600; }
.muted { color: var(--muted); }
figure { margin: 1rem 0; padding: .6rem; background: #ffffff; color: #1b1f24;
  border: 1px solid var(--line); border-radius: .5rem; }
figure svg { display: block; width: 100%; height: auto; }
figure svg * { stroke-linejoin: round; stroke-linecap: butt; }
figcaption { font-size: .9rem; margin-top: .4rem; }
dl.details dt { font-weight: 600; margin-top: .5rem; }
dl.details dd { margin-left: 1.2rem; }
.key { display: flex; flex-wrap: wrap; gap: .5rem .25rem; margin: .4rem 0; }
.field { display: inline-flex; flex-direction: column; align-items: stretch; }
.field > .name { font-size: .75rem; text-align: center; color: var(--muted);
  border-top: 2px solid var(--muted); margin-top: .15rem; }
.parts { display: inline-flex; gap: 1px; }
.part { display: inline-block; padding: .1rem .3rem; border-radius: .25rem; color: #1b1f24;
  font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .9rem; }
.swatch { display: inline-block; width: .9em; height: .9em; border-radius: .2em;
  vertical-align: -.1em; margin-right: .3em; }
.r-type { background: #b6d7ff; } .r-data { background: #b8eec5; } .r-end { background: #ffd8a8; }
.r-escape { background: #ffc1c7; } .r-null { background: #d8dee4; }
.r-meta { background: #e2ccff; } .r-x0 { background: #fff3a3; } .r-x1 { background: #a8ecec; }
.r-x2 { background: #f5c7a9; } .r-x3 { background: #d5e8a0; }
footer { margin-top: 2.5rem; color: var(--muted); font-size: .85rem; }
"""

# -- text helpers -----------------------------------------------------------------------------

#: C0 controls (but tab and newline) and DEL, shown as escapes: a NUL is not HTML text
_CONTROLS: Final = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F) if c not in (0x09, 0x0A)}


def _text(value: Any) -> str:
    """*value* as text that can be written as UTF-8: lone surrogates and controls escaped,
    and cut after :data:`MAX_TEXT_CHARS` characters, saying so (a report of an older
    version, or edited, may hold a value of megabytes)."""
    text = cut_text(value if isinstance(value, str) else str(value), MAX_TEXT_CHARS)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text.translate(_CONTROLS)


def _e(value: Any) -> str:
    """*value* as HTML text or attribute value: every string in the report is user data."""
    return html.escape(_text(value), quote=True)


def _number(value: Any) -> float | None:
    """*value* if it is a finite real number that fits a float (bools and text are not),
    else ``None``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int beyond the float range
        return None
    return number if math.isfinite(number) else None


def _fmt(value: Any, digits: int = 1) -> str:
    """A number for a table cell (thousands separated), ``-`` for none, text escaped."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        # a huge int is described, not converted to digits (quadratic, and refused by Python
        # beyond 4300 of them)
        return f"{value:,}" if abs(value) < 10**18 else _e(describe_int(value))
    if isinstance(value, float) and math.isfinite(value):
        return f"{value:,.{digits}f}"
    return _e(value)


def _mapping(value: Any) -> Mapping[str, Any]:
    """*value* if it is a mapping, else an empty one (a field the contract leaves ``null``)."""
    return value if isinstance(value, Mapping) else {}


def _items(value: Any) -> list[Any]:
    """*value* if it is a list (or tuple), else an empty list."""
    return list(value) if isinstance(value, (list, tuple)) else []


def _label(value: Any) -> str:
    """*value* for a chart: printable, and cut to :data:`CHART_LABEL_CHARS`."""
    text = _text(value)
    if not text.isprintable():
        text = text.encode("unicode_escape").decode("ascii")
    return text if len(text) <= CHART_LABEL_CHARS else text[:CHART_LABEL_CHARS - 1] + "…"


def _role_class(role: str) -> str:
    known = ROLE_CLASSES.get(role)
    if known is not None:
        return known
    # crc32, not hash(): the same role gets the same colour in every run and process
    return OTHER_ROLE_CLASSES[zlib.crc32(_text(role).encode()) % len(OTHER_ROLE_CLASSES)]


# -- the report's structure ---------------------------------------------------------------------


def _check(report: Any) -> None:
    """Refuse what is not a ``Comparison.to_dict()``, naming what is wrong."""
    def bad(what: str) -> LexCodecError:
        return LexCodecError(f"not a compare report (Comparison.to_dict()): {what}")
    if not isinstance(report, Mapping):
        raise bad(f"a {type(report).__name__}, not a mapping")
    for key in ("schema", "records", "verdict", "results"):
        if key not in report:
            raise bad(f"no {key!r}")
    if not isinstance(report["verdict"], Mapping):
        raise bad("'verdict' is not a mapping")
    if not isinstance(report["results"], (list, tuple)):
        raise bad("'results' is not a list")
    for i, result in enumerate(report["results"]):
        if not isinstance(result, Mapping) or not isinstance(result.get("codec"), str):
            raise bad(f"results[{i}] is not a mapping with a 'codec' name")


def _ran(results: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The codecs that expressed the schema and kept records: the ones with measurements."""
    return [r for r in results if r.get("expressible") and _mapping(r.get("key_size"))]


def _closest_result(report: Mapping[str, Any]) -> dict[str, Any] | None:
    """When no codec expresses the schema as written: the closest codec's result, on its
    rewritten schema, its name labelled "(rewritten)"; else ``None``."""
    if any(r.get("expressible") for r in report["results"]):
        return None
    closest = _mapping(_mapping(report["verdict"]).get("closest"))
    result = _mapping(closest.get("result"))
    if not result:
        return None
    name = result.get("codec", closest.get("codec", "?"))
    return {**result, "codec": f"{_text(name)} (rewritten)", "expressible": True}


def _measured(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The results the page shows measurements of: the codecs that expressed the schema, or,
    when none did, the closest codec on its rewritten schema (:func:`_closest_result`)."""
    closest = _closest_result(report)
    if closest is not None:
        return [closest]
    return [r for r in report["results"] if r.get("expressible")]


def _chosen(report: Mapping[str, Any]) -> str | None:
    """The name the page gives the codec to use: the recommended one, else the closest."""
    recommended = _mapping(report["verdict"]).get("recommended")
    if recommended is not None:
        return str(recommended)
    closest = _closest_result(report)
    return None if closest is None else str(closest["codec"])


def _rewritten_note(report: Mapping[str, Any], what: str) -> str:
    """A line saying that *what* is the closest codec's, on which schema ("" otherwise)."""
    if _closest_result(report) is None:
        return ""
    closest = _mapping(_mapping(report["verdict"]).get("closest"))
    return (f'<p class="muted">{what} the closest codec, on its rewritten schema '
            f'<code>{_e(closest.get("schema", ""))}</code>.</p>')


# -- charts -------------------------------------------------------------------------------------


def _matplotlib() -> type[Figure]:
    """The Figure class, or a LexCodecError saying how to install the plotting library."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise LexCodecError("the HTML report draws its charts with matplotlib, which is not "
                            f"installed: {INSTALL_HINT}") from None
    return Figure


def require_charts() -> None:
    """Raise :class:`~lexcodecs.errors.LexCodecError`, saying how to install it, when
    matplotlib (the ``report`` extra) is missing: ``compare --html`` asks before it compares,
    so that a long comparison is not lost to a missing library at its end."""
    _matplotlib()


_SVG_OPEN: Final = re.compile(r"<svg\b[^>]*>")
_SVG_ID: Final = re.compile(r'\bid="([^"]+)"')
_SVG_REF: Final = re.compile(r'(href="#|url\(#)([^")]+)')
#: matplotlib's stylesheet in every SVG; in an HTML page a <style> applies to the whole page, so
#: it is written once, for the charts only, in :data:`CSS`
_SVG_STYLE: Final = re.compile(r'<style type="text/css">[^<]*</style>')


def _svg(figure: Figure, chart_id: str, title: str) -> str:
    """*figure* as inline SVG (under :data:`CHART_RC`): ids prefixed with *chart_id*, titled."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata=dict(SVG_METADATA))
    text = buffer.getvalue()
    start = _SVG_OPEN.search(text)
    if start is None:  # pragma: no cover - matplotlib always writes an <svg> element
        raise LexCodecError("matplotlib wrote no <svg> element")
    # the XML declaration and DOCTYPE do not belong inside HTML
    opening, body = start.group(0), _SVG_STYLE.sub("", text[start.end():])
    # ids inside one page must be unique: glyphs and clip paths get the chart's prefix
    body = _SVG_ID.sub(lambda m: f'id="{chart_id}-{m.group(1)}"', body)
    body = _SVG_REF.sub(lambda m: f"{m.group(1)}{chart_id}-{m.group(2)}", body)
    opening = opening[:-1] + f' role="img" aria-labelledby="{chart_id}-title">'
    return (f'{opening}\n<title id="{chart_id}-title">{_e(title)}</title>'
            + body.rstrip() + "\n")


def _extra_colour(n: int) -> str:
    """The *n*-th colour past :data:`CODEC_COLOURS`: hues a golden angle apart, in two
    lightnesses."""
    red, green, blue = colorsys.hls_to_rgb((n * 0.618033988749895) % 1.0,
                                           0.35 if n % 2 else 0.55, 0.65)
    return f"#{round(red * 255):02X}{round(green * 255):02X}{round(blue * 255):02X}"


def _colours(results: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """One colour per codec shown, by its first place in *results*, used by every chart; no
    two the same (the palette first, then :func:`_extra_colour`)."""
    colours: dict[str, str] = {}
    used: set[str] = {INK.upper(), REFUSED_COLOUR.upper(), LEGEND_GREY.upper(), "#FFFFFF"}
    extra = 0
    for r in results:
        name = str(r["codec"])
        if name in colours:
            continue
        if len(colours) < len(CODEC_COLOURS):
            colour = CODEC_COLOURS[len(colours)]
        else:
            while (colour := _extra_colour(extra)) in used:
                extra += 1
        colours[name] = colour
        used.add(colour.upper())
    return colours


def _size_chart(figure_class: type[Figure], ran: Sequence[Mapping[str, Any]],
                colours: Mapping[str, str]) -> Figure:
    """Key-size distribution: one small histogram per codec over a shared byte axis."""
    figure = figure_class(figsize=(10, 0.7 + 0.8 * len(ran)), dpi=72, layout="constrained")
    axes = figure.subplots(len(ran), 1, sharex=True, squeeze=False)[:, 0]
    figure.suptitle("Key size distribution (bytes per key)", fontsize=11)
    for ax, result in zip(axes, ran):
        sizes = _mapping(result.get("key_size"))
        points = [(s, c) for s, c in (tuple(p) for p in _items(sizes.get("histogram"))
                                      if isinstance(p, (list, tuple)) and len(p) == 2)
                  if _number(s) is not None and _number(c) is not None]
        xs = [float(s) for s, _ in points]
        width = max(0.8, (max(xs) - min(xs)) / 120) if xs else 0.8
        ax.bar(xs, [float(c) for _, c in points], width=width,
               color=colours[str(result["codec"])])
        mean, p99 = _number(sizes.get("mean")), _number(sizes.get("p99"))
        if mean is not None:
            ax.axvline(mean, color=INK, linestyle="--", linewidth=1)
        if p99 is not None:
            ax.axvline(p99, color=INK, linestyle=":", linewidth=1)
        ax.set_ylabel(_label(result["codec"]), rotation=0, ha="right", va="center")
        ax.text(1.01, 0.5, f"mean {_fmt(mean)}\np99 {_fmt(p99, 0)}, max "
                f"{_fmt(_number(sizes.get('max')), 0)}", transform=ax.transAxes,
                ha="left", va="center", fontsize=8)
        ax.yaxis.set_major_locator(_locator(2))
        ax.tick_params(axis="y", labelsize=7)
    axes[-1].set_xlabel("key size in bytes (dashed: mean, dotted: p99); bar height: keys")
    return figure


def _locator(n: int) -> Any:
    from matplotlib.ticker import MaxNLocator
    return MaxNLocator(nbins=n, integer=True)


def _speed_chart(figure_class: type[Figure], ran: Sequence[Mapping[str, Any]],
                 colours: Mapping[str, str]) -> Figure:
    """Encode and decode time per key (batch), with the per-record p50..p99 range: each
    codec's bars in its colour, encode filled, decode hatched."""
    figure = figure_class(figsize=(10, 1.3 + 0.6 * len(ran)), dpi=72, layout="constrained")
    ax = figure.subplots()
    ax.set_title("Speed per codec: nanoseconds per key (shorter is faster)", fontsize=11)
    names = [_label(r["codec"]) for r in ran]
    rows = range(len(ran))
    for offset, key, what in ((-0.2, "encode_ns", "encode"), (0.2, "decode_ns", "decode")):
        for row, r in zip(rows, ran):
            y = row + offset
            timing = _mapping(r.get(key))
            b = _number(timing.get("batch"))
            p50, p99 = _number(timing.get("p50")), _number(timing.get("p99"))
            if b is None:
                ax.text(0, y, f"  no {what}r", va="center", fontsize=8, color="#57606a")
                continue
            colour = colours[str(r["codec"])]
            if what == "encode":
                ax.barh([y], [b], height=0.38, color=colour)
            else:
                ax.barh([y], [b], height=0.38, color="white", edgecolor=colour, hatch="////",
                        linewidth=1)
            if p50 is not None and p99 is not None:
                ax.plot([p50, p99], [y, y], color=INK, linewidth=1)
            if p99 is not None:
                ax.plot([p99], [y], marker="|", markersize=10, color=INK)
            ax.text(max(b, p99 or 0), y, f"  {what} {b:,.0f}"
                    + (f" (p99 {p99:,.0f})" if p99 else ""), va="center", fontsize=8)
    ax.set_yticks(list(rows), names)
    ax.invert_yaxis()
    ax.set_xlabel("ns per key")
    ax.margins(x=0.25)
    _legend(figure, [("encode, batch", "fill"), ("decode, batch", "////"),
                     ("one record: p50 to p99", "line")])
    return figure


def _legend(figure: Figure, keys: Sequence[tuple[str, str]]) -> None:
    """A legend below the chart whose keys are grey, as the colours are the codecs': each
    (label, "fill" | "line" | a hatch pattern | a colour)."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles: list[Any] = []
    for label, look in keys:
        if look == "line":
            handles.append(Line2D([], [], color=INK, marker="|", linewidth=1, label=label))
        elif look == "fill":
            handles.append(Patch(facecolor=LEGEND_GREY, label=label))
        elif look.startswith("#"):
            handles.append(Patch(facecolor=look, label=label))
        else:
            handles.append(Patch(facecolor="white", edgecolor=LEGEND_GREY, hatch=look,
                                 label=label))
    figure.legend(handles=handles, loc="outside lower center", ncols=len(handles),
                  fontsize=8, frameon=False)


def _records_chart(figure_class: type[Figure], ran: Sequence[Mapping[str, Any]],
                   total: int, colours: Mapping[str, str]) -> Figure:
    """What happened to the records: kept and round-tripped (filled, in the codec's colour),
    kept but failed (hatched in it), refused (grey)."""
    figure = figure_class(figsize=(10, 1.3 + 0.45 * len(ran)), dpi=72, layout="constrained")
    ax = figure.subplots()
    ax.set_title(f"Records each codec kept and refused (of {total:,})", fontsize=11)
    rows = list(range(len(ran)))
    kept = [_number(r.get("records")) or 0.0 for r in ran]
    failed = [min(k, _number(r.get("round_trip_failures")) or 0.0) for k, r in zip(kept, ran)]
    refused = [_number(r.get("refused")) or 0.0 for r in ran]
    good = [k - f for k, f in zip(kept, failed)]
    shades = [colours[str(r["codec"])] for r in ran]
    ax.barh(rows, good, color=shades)
    ax.barh(rows, failed, left=good, color="white", edgecolor=shades, hatch="//", linewidth=1)
    ax.barh(rows, refused, left=kept, color=REFUSED_COLOUR)
    for y, k, f, x in zip(rows, kept, failed, refused):
        text = f"  {k:,.0f} kept" + (f", {f:,.0f} failed" if f else "") + \
            (f", {x:,.0f} refused" if x else "")
        ax.text(k + x, y, text, va="center", fontsize=8)
    ax.set_yticks(rows, [_label(r["codec"]) for r in ran])
    ax.invert_yaxis()
    ax.set_xlabel("records")
    ax.margins(x=0.3)
    _legend(figure, [("kept", "fill"), ("kept, round trip failed", "//"),
                     ("refused", REFUSED_COLOUR)])
    return figure


def _charts(report: Mapping[str, Any]) -> str:
    results = list(report["results"])
    ran = _ran(_measured(report))
    note = _rewritten_note(report, "Charted:")
    if not ran:
        return ('<p class="muted">No codec expressed the schema and kept a record, so there '
                "is nothing to chart.</p>")
    colours = _colours(ran)
    figure_class = _matplotlib()
    skipped = [r["codec"] for r in results if r not in ran]
    total = _number(report.get("records")) or 0
    charts: list[tuple[str, str, Callable[[], Figure], str]] = [
        ("chart-sizes", "Key size distribution per codec",
         lambda: _size_chart(figure_class, ran, colours),
         "How many keys have each size, in bytes, per codec; dashed line: mean, dotted: p99."),
        ("chart-speed", "Encode and decode time per key, per codec",
         lambda: _speed_chart(figure_class, ran, colours),
         "Nanoseconds per key timed over the whole batch (bars: encode filled, decode "
         "hatched, in the codec's colour), and the per-record p50 to p99 range (line, tick "
         "at p99)."),
        ("chart-records", "Records kept and refused per codec",
         lambda: _records_chart(figure_class, ran, int(total), colours),
         "Records each codec encoded (and whether they decoded back) or refused."),
    ]
    import matplotlib

    out = []
    with warnings.catch_warnings(), matplotlib.rc_context(CHART_RC):
        # a codec name with a character DejaVu Sans lacks draws a box; the page has the text
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        for chart_id, title, draw, caption in charts:
            with matplotlib.rc_context({"svg.id": chart_id}):
                svg = _svg(draw(), chart_id, title)
            out.append(f'<figure id="{chart_id}-figure">\n{svg}<figcaption><strong>{_e(title)}.'
                       f"</strong> {_e(caption)}</figcaption>\n</figure>")
    if note:
        out.append(note)
    elif skipped:
        out.append(f'<p class="muted">Not charted (cannot express the schema, or kept no '
                   f"record): {_e(', '.join(map(str, skipped)))}.</p>")
    return "\n".join(out)


# -- sections -------------------------------------------------------------------------------


def _list(items: Iterable[Any], cls: str = "") -> str:
    entries = [f"<li>{_e(item)}</li>" for item in items]
    if not entries:
        return ""
    attr = f' class="{cls}"' if cls else ""
    return f"<ul{attr}>" + "".join(entries) + "</ul>"


def _table(head: Sequence[str], rows: Iterable[Sequence[str]], *, numeric: Sequence[int] = (),
           row_classes: Sequence[str] | None = None, caption: str = "") -> str:
    """An HTML table of cells already escaped; columns in *numeric* are right-aligned."""
    lines = ['<div class="table-wrap"><table>']
    if caption:
        lines.append(f"<caption>{caption}</caption>")
    lines.append("<thead><tr>" + "".join(f'<th scope="col">{h}</th>' for h in head)
                 + "</tr></thead><tbody>")
    for i, row in enumerate(rows):
        cls = row_classes[i] if row_classes is not None and row_classes[i] else ""
        cells = "".join(f'<td class="num">{c}</td>' if j in numeric else f"<td>{c}</td>"
                        for j, c in enumerate(row))
        lines.append((f'<tr class="{cls}">' if cls else "<tr>") + cells + "</tr>")
    lines.append("</tbody></table></div>")
    return "\n".join(lines)


def _runners_up(runners: Iterable[Mapping[str, Any]]) -> str:
    out = ["<ol>"]
    for r in runners:
        versus, decided = r.get("versus"), r.get("decided_by")
        out.append(f"<li><strong>{_e(r.get('codec', '?'))}</strong>"
                   + (f' <span class="versus">— {_e(versus)}</span>' if versus else "")
                   + (f' <span class="muted">(behind on {_e(decided)})</span>' if decided
                      else "")
                   + _list(_items(r.get("why"))) + "</li>")
    out.append("</ol>")
    return "".join(out)


def _closest(closest: Mapping[str, Any]) -> str:
    """No codec expresses the schema as written: the nearest one, on its rewritten schema."""
    result = _mapping(closest.get("result"))
    sizes = _mapping(result.get("key_size"))
    workarounds = [_mapping(b) for b in _items(closest.get("workarounds"))]
    out = [f'<h3>Closest: {_e(closest.get("codec", "?"))}</h3>',
           f'<p>No codec expresses the schema as written. {_e(closest.get("codec", "?"))} '
           f'does with {"exact" if closest.get("exact") else "these"} workarounds, on '
           f'<code>{_e(closest.get("schema", ""))}</code>.</p>']
    if workarounds:
        out.append(_table(("field", "problem", "workaround"),
                          [(_blocker_field(b), _e(b.get("problem", "")), _workaround(b))
                           for b in workarounds]))
    if result:
        out.append(f"<p>Measured on that schema: {_fmt(result.get('records'))} records kept, "
                   f"{_fmt(result.get('refused'))} refused; keys {_fmt(sizes.get('mean'))} "
                   f"bytes on average; encode {_timing(result.get('encode_ns'))} ns per key."
                   "</p>")
    others = [_mapping(o) for o in _items(closest.get("others"))]
    if others:
        out.append("<p>The others, on their own rewritten schemas:</p>" + _runners_up(others))
    return "\n".join(out)


def _verdict(verdict: Mapping[str, Any]) -> str:
    recommended = verdict.get("recommended")
    cls = "verdict" if recommended else "verdict none"
    out = [f'<div class="{cls}">',
           f'<p class="headline">{_e(verdict.get("headline") or "No verdict.")}</p>']
    why = _items(verdict.get("why"))
    if why:
        label = f"Why {_e(recommended)}" if recommended else "Why"
        out.append(f"<p><strong>{label}:</strong></p>{_list(why)}")
    out.append("</div>")
    runners = [_mapping(r) for r in _items(verdict.get("runners_up"))]
    if runners:
        out.append("<h3>Runners-up</h3>" + _runners_up(runners))
    closest = _mapping(verdict.get("closest"))
    if closest:
        out.append(_closest(closest))
    ranking = [_mapping(c) for c in _items(verdict.get("ranking"))]
    if ranking:
        out.append("<h3>How the codecs are ranked</h3><p>Criteria compared in order: the "
                   "first on which two codecs differ decides.</p><ol>"
                   + "".join(f"<li><strong>{_e(c.get('criterion', ''))}</strong>: "
                             f"{_e(c.get('rule', ''))}</li>" for c in ranking) + "</ol>")
    return "\n".join(out)


def _blocker_field(blocker: Mapping[str, Any]) -> str:
    index, name = blocker.get("index"), blocker.get("field")
    if index is None and name is None:
        return '<span class="muted">the whole schema</span>'
    named = f"<code>{_e(name)}</code>" if name is not None else ""
    numbered = f"field {_e(index)}" if index is not None else ""
    return (f'<span class="nowrap">{named} ({numbered})</span>' if named and numbered
            else named or numbered)


def _workaround(blocker: Mapping[str, Any]) -> str:
    workaround = blocker.get("workaround")
    if not workaround:
        return '<span class="muted">none known</span>'
    # "exact" (when the report has it): the workaround keeps every value and the order
    inexact = blocker.get("exact") is False
    return _e(workaround) + (' <span class="muted">(not exact)</span>' if inexact else "")


def _cannot(report: Mapping[str, Any]) -> str:
    verdict = _mapping(report["verdict"])
    entries = [_mapping(c) for c in _items(verdict.get("cannot"))]
    if not entries and "cannot" not in verdict:
        # a report without the list: every codec that did not express the schema
        entries = [{"codec": r["codec"], "blockers": r.get("blockers")}
                   for r in report["results"] if not r.get("expressible")]
    if not entries:
        return "<p>Every codec compared expresses this schema.</p>"
    out = []
    for entry in entries:
        blockers = [_mapping(b) for b in _items(entry.get("blockers"))]
        out.append(f'<h3 class="codec-cannot">{_e(entry.get("codec", "?"))}</h3>')
        if not blockers:
            out.append('<p class="muted">No blocker was reported.</p>')
            continue
        rows = [(_blocker_field(b), _e(b.get("problem", "")), _workaround(b)) for b in blockers]
        out.append(_table(("field", "problem", "nearest workaround"), rows))
    return "\n".join(out)


def _order_cell(result: Mapping[str, Any]) -> str:
    wrong = result.get("order_pairs_wrong")
    if not wrong:
        return '<span class="good">0</span>' if wrong == 0 else "-"
    explained = _mapping(result.get("order_explained"))
    unexplained = result.get("order_unexplained") or 0
    text = f'<span class="bad">{_fmt(wrong)}</span>'
    if explained:
        text += "<br>declared: " + ", ".join(f"{_e(k)} {_fmt(v)}" for k, v in explained.items())
    if unexplained:
        text += f'<br><span class="bad">{_fmt(unexplained)} not explained</span>'
    return text


def _count_cell(value: Any, none_text: str = "n/a") -> str:
    if value is None:
        return f'<span class="muted">{none_text}</span>'
    return f'<span class="{"good" if value == 0 else "bad"}">{_fmt(value)}</span>'


def _timing(value: Any) -> str:
    timing = _mapping(value)
    if not timing:
        return '<span class="muted">none</span>'
    return (f"{_fmt(timing.get('batch'), 0)} "
            f'<span class="muted">· p99 {_fmt(timing.get("p99"), 0)}</span>')


def _results(report: Mapping[str, Any]) -> str:
    """Two tables: what each codec that ran (or the closest) measured, then what each format
    is."""
    chosen = _chosen(report)
    results = list(report["results"])

    def row_class(r: Mapping[str, Any]) -> str:
        return "recommended" if chosen is not None and r["codec"] == chosen else ""

    ran = _measured(report)
    head = ("codec", "kept", "refused", "key bytes mean", "p50", "p99", "max",
            "encode ns/key", "decode ns/key", "round-trip failures", "collisions",
            "pairs in wrong order")
    rows = []
    for r in ran:
        sizes = _mapping(r.get("key_size"))
        rows.append((
            f'<strong class="nowrap">{_e(r["codec"])}</strong>', _fmt(r.get("records")),
            _count_cell(r.get("refused")),
            *(_fmt(sizes.get(k), 1 if k == "mean" else 0) for k in ("mean", "p50", "p99", "max")),
            _timing(r.get("encode_ns")), _timing(r.get("decode_ns")),
            _count_cell(r.get("round_trip_failures"), "no decoder"),
            _count_cell(r.get("collisions")), _order_cell(r)))
    implementation = report.get("implementation")
    caption = ("Encode and decode times: nanoseconds per key over the whole batch, and the 99th "
               "percentile of single records. Implementation in use: "
               f"{_e(implementation) if implementation else 'not recorded'}.")
    out = []
    if ran:
        out.append(_table(head, rows, numeric=tuple(range(1, 12)),
                          row_classes=[row_class(r) for r in ran], caption=caption))
        out.append(_rewritten_note(report, "Measured:"))
    else:
        out.append('<p class="muted">No codec expressed the schema.</p>')
    out.append("<h3>The formats</h3>")
    out.append(_table(
        ("codec", "expresses the schema", "self-describing", "decodes", "ran compiled",
         "read by", "notes"),
        [(f'<strong class="nowrap">{_e(r["codec"])}</strong>',
          '<span class="good">yes</span>' if r.get("expressible") else
          '<span class="bad">no</span>',
          _fmt(r.get("self_describing")),
          _e(DECODING.get(str(r.get("decoding")), r.get("decoding") or "-")),
          _fmt(r.get("compiled")) if r.get("expressible") else "-",
          _e(", ".join(map(str, _items(r.get("readers"))))) or "-",
          _e(r.get("notes") or "")) for r in results],
        row_classes=[row_class(r) for r in results]))
    details = []
    for r in ran:
        lines = []
        for key, what in (("refused_examples", "refused, for example"),
                          ("round_trip_example", "round trip"),
                          ("collision_example", "collision"),
                          ("order_example", "order")):
            value = r.get(key)
            examples = _items(value) if isinstance(value, (list, tuple)) else \
                ([value] if value else [])
            if examples:
                lines.append(f"<dd><em>{_e(what)}:</em> "
                             + "<br>".join(f"<code>{_e(x)}</code>" for x in examples)
                             + "</dd>")
        if lines:
            details.append(f"<dt>{_e(r['codec'])}</dt>" + "".join(lines))
    if details:
        out.append('<h3>Counterexamples</h3><dl class="details">' + "".join(details) + "</dl>")
    return "\n".join(out)


def _prefix_scans(report: Mapping[str, Any]) -> str:
    ran = _measured(report)
    depths = sorted({int(n) for r in ran for s in _items(r.get("prefix_scans"))
                     if (n := _number(_mapping(s).get("fields"))) is not None})
    if not ran or not depths:
        return '<p class="muted">No prefix scan was measured.</p>'
    rows, examples = [], []
    for r in ran:
        by_depth = {int(_number(s.get("fields")) or 0): s
                    for s in map(_mapping, _items(r.get("prefix_scans")))}
        cells = [f'<strong class="nowrap">{_e(r["codec"])}</strong>']
        for depth in depths:
            scan = by_depth.get(depth)
            if scan is None:
                cells.append('<span class="muted">not measured</span>')
            elif scan.get("error"):
                cells.append(f'<span class="bad">refused:</span> {_e(scan["error"])}')
            elif scan.get("exact"):
                cells.append(f'<span class="good">exact</span> '
                             f'<span class="muted">({_fmt(scan.get("prefixes"))} '
                             "prefixes)</span>")
            else:
                cells.append(f'<span class="bad">leaked {_fmt(scan.get("leaked"))}, missed '
                             f'{_fmt(scan.get("missed"))}</span> <span class="muted">of '
                             f'{_fmt(scan.get("prefixes"))} prefixes</span>')
            if scan is not None and not scan.get("exact") and scan.get("example"):
                examples.append(f"<dt>{_e(r['codec'])}, first {depth}</dt>"
                                f"<dd><code>{_e(scan['example'])}</code></dd>")
        rows.append(cells)
    head = ["codec", *(f"first {d} field" + ("" if d == 1 else "s") for d in depths)]
    return ("<p>A scan of the key range of a prefix of the first <em>k</em> fields must "
            "return exactly the records that start with those values: <em>leaked</em> "
            "counts records it returned that do not, <em>missed</em> records it left out."
            "</p>\n" + _table(head, rows) + _rewritten_note(report, "Scanned:")
            + (f'<dl class="details">{"".join(examples)}</dl>' if examples else ""))


def _anomalies(report: Mapping[str, Any]) -> str:
    out = []
    for r in _measured(report):
        anomalies = [_mapping(a) for a in _items(r.get("anomalies"))]
        if not anomalies:
            continue
        seen = _mapping(r.get("order_explained"))
        rows = [(f"<code>{_e(a.get('name', '?'))}</code>", _e(a.get("kind", "")),
                 _fmt(seen.get(str(a.get("name")), 0)) if a.get("kind") == "order" else
                 '<span class="muted">-</span>', _e(a.get("description", "")))
                for a in anomalies]
        out.append(f"<h3>{_e(r['codec'])}</h3>"
                   + _table(("anomaly", "kind", "seen in this run", "what happens"), rows,
                            numeric=(2,)))
    if not out:
        return "<p>None of the codecs that ran declares an anomaly.</p>"
    return ("<p>What each codec that ran declares it does differently from the values' "
            "natural order (its documented corner cases), and how often this run met each "
            "as a pair of neighbouring keys out of order.</p>\n" + "\n".join(out)
            + _rewritten_note(report, "Shown:"))


def _sample_key(sample: Mapping[str, Any]) -> str:
    parts = [_mapping(p) for p in _items(sample.get("parts"))]
    if len(parts) > MAX_SAMPLE_PARTS:
        more = len(parts) - MAX_SAMPLE_PARTS
        parts = [*parts[:MAX_SAMPLE_PARTS],
                 {"span": "…", "hex": "…", "role": "cut", "text": f"{more:,} more parts, cut"}]
    # consecutive parts of one field are grouped under its name, when the report names it
    groups: list[tuple[Any, list[Mapping[str, Any]]]] = []
    for part in parts:
        name = part.get("field")
        if groups and groups[-1][0] == name:
            groups[-1][1].append(part)
        else:
            groups.append((name, [part]))
    strip = []
    for name, members in groups:
        spans = "".join(
            f'<span class="part {_role_class(str(p.get("role", "")))}" title="'
            f'{_e(p.get("span", ""))} {_e(p.get("role", ""))}: {_e(p.get("text", ""))}">'
            f'{_e(p.get("hex") or "∅")}</span>' for p in members)
        label = f'<span class="name">{_e(name)}</span>' if name is not None else ""
        strip.append(f'<span class="field"><span class="parts">{spans}</span>{label}</span>')
    has_fields = any(p.get("field") is not None for p in parts)
    rows = [((_e(p.get("field") or ""),) if has_fields else ()) + (
             f'<span class="mono nowrap">{_e(p.get("span", ""))}</span>',
             f'<span class="mono">{_e(p.get("hex", ""))}</span>',
             f'<span class="nowrap"><span class="swatch {_role_class(str(p.get("role", "")))}">'
             f'</span>{_e(p.get("role", ""))}</span>', _e(p.get("text", ""))) for p in parts]
    head = ("field",) * has_fields + ("bytes", "hex", "role", "meaning")
    return (f'<div class="sample"><p>values <code>{_e(sample.get("values", ""))}</code> → '
            f'key <code>{_e(sample.get("hex", ""))}</code></p>\n'
            f'<div class="key" aria-label="the key\'s bytes, coloured by role">'
            + "".join(strip) + "</div>\n" + (_table(head, rows) if parts else "") + "</div>")


def _samples(report: Mapping[str, Any]) -> str:
    out = []
    closest = _closest_result(report)
    for r in report["results"] if closest is None else [closest]:
        samples = [_mapping(s) for s in _items(r.get("sample_keys"))]
        if samples:
            out.append(f"<h3>{_e(r['codec'])}</h3>" + "\n".join(map(_sample_key, samples)))
    if not out:
        return '<p class="muted">No sample keys.</p>'
    legend = " ".join(f'<span class="part {cls}">{_e(text)}</span>' for cls, text in (
        ("r-type", "type, header"), ("r-data", "payload, data"),
        ("r-end", "terminator, separator"), ("r-escape", "escape, NUL"), ("r-null", "NULL"),
        ("r-meta", "length, exponent, sign")))
    return ("<p>Keys of the first records, explained byte by byte as <code>lexcodecs "
            "inspect</code> does; hover a span for its meaning. Colours: " + legend
            + "</p>\n" + "\n".join(out) + _rewritten_note(report, "Shown:"))


# -- the page -------------------------------------------------------------------------------

_CSP: Final = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def render_html(report: Mapping[str, Any]) -> str:
    """The report as one self-contained HTML page (a ``Comparison.to_dict()`` in, text out).

    Raises :class:`~lexcodecs.errors.LexCodecError` for a dict that is not a compare report,
    and when matplotlib, which draws the charts, is not installed.
    """
    _check(report)
    verdict = _mapping(report["verdict"])
    schema = _e(report["schema"])
    meta = [f"<code>{schema}</code>", f"{_fmt(report['records'])} records"]
    for key, label in (("source", "from"), ("store", "sorted in"),
                       ("implementation", "implementation")):
        if report.get(key):
            meta.append(f"{label} {_e(report[key])}")
    seconds = _number(report.get("seconds"))
    if seconds is not None:
        meta.append(f"measured in {seconds:,.1f} s")
    bodies = {
        "verdict": _verdict(verdict),
        "cannot": _cannot(report),
        "charts": _charts(report),
        "results": _results(report),
        "prefix-scans": _prefix_scans(report),
        "anomalies": _anomalies(report),
        "samples": _samples(report),
    }
    nav = "".join(f'<li><a href="#{sid}">{_e(title)}</a></li>' for sid, title in SECTIONS)
    sections = "\n".join(f'<section id="{sid}" aria-labelledby="{sid}-h">\n'
                         f'<h2 id="{sid}-h">{_e(title)}</h2>\n{bodies[sid]}\n</section>'
                         for sid, title in SECTIONS)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="lexcodecs compare --html">
<title>Key format report: {schema}</title>
<style>{CSS}</style>
</head>
<body>
<header>
<h1>Which key format?</h1>
<p class="meta">{" · ".join(meta)}</p>
<nav aria-label="sections"><ul>{nav}</ul></nav>
</header>
<main>
{sections}
</main>
<footer>Made by <code>lexcodecs compare --html</code>; charts drawn with matplotlib.</footer>
</body>
</html>
"""


def write_html(report: Mapping[str, Any], path: str | os.PathLike[str]) -> None:
    """Render *report* and write it to *path* atomically: a temporary file in the same
    directory, renamed over *path*, so a reader never sees half a page and a failed render
    leaves an older report in place.

    Raises :class:`~lexcodecs.errors.LexCodecError` when the page cannot be rendered or
    written (the path's directory is missing, *path* is a directory, no permission), and
    when *path* is a named pipe, a socket or a device, which the rename would replace.
    """
    text = render_html(report)
    target = os.fspath(path)
    kind = special_kind_at(target)  # None: a file, or not there yet (the write says why)
    if kind is not None:
        # renaming the page over a named pipe, a socket or a device would replace the node
        raise LexCodecError(f"cannot write the HTML report {target!r}: it is {kind}, not a "
                            "regular file")
    directory = os.path.dirname(os.path.abspath(target))
    try:
        fd, temporary = tempfile.mkstemp(prefix=".lexcodecs-report-", suffix=".html",
                                         dir=directory)
    except OSError as exc:
        raise LexCodecError(f"cannot write the HTML report {target!r}: "
                            f"{exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        # mkstemp makes the file private (0600); a report gets the usual mode, as open() would
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
    except BaseException as exc:  # Ctrl-C included: no temporary file is left behind
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise LexCodecError(f"cannot write the HTML report {target!r}: "
                                f"{exc.strerror or exc}") from None
        raise
