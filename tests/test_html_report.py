"""The HTML report of ``lexcodecs compare --html`` (lexcodecs.compare.html).

Most of it is checked where it matters, in a real browser: Debian's chromium, headless,
driven by selenium, loads the file from disk and the tests look at what it shows -- the
verdict, each chart as a drawn SVG with its title, the blockers by field, the annotated
sample keys -- and at what it must not do: log an error, fetch anything, run a script from
the data. The browser starts once for the module. Without chromium and its driver the
browser tests are skipped, unless ``LEXCODECS_REQUIRE_BROWSER`` is set (``.ci/run`` sets it):
then they fail.

The rest needs no browser: escaping, determinism, the missing-matplotlib message, refusing
what is not a report, and the atomic write. ``compare_report.json`` is a realistic report
(``Comparison.to_dict()``, the contract in docs/html-report.md); one test renders a real
small comparison, on both implementations.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lexcodecs.compare.html import render_html, write_html
from lexcodecs.errors import LexCodecError

FIXTURE = Path(__file__).with_name("compare_report.json")
#: the titles of the charts, each an <svg> with a <title> (lexcodecs.compare.html._charts)
CHART_TITLES = ("Key size distribution per codec", "Encode and decode time per key, per codec",
                "Records kept and refused per codec")
#: the schema of the real comparison: three codecs cannot express the descending field
REAL_SCHEMA = "tenant:string, created:int64 desc, id:bytes"

ENV_REQUIRE_BROWSER = "LEXCODECS_REQUIRE_BROWSER"

# the whole module on one pytest-xdist worker (``--dist loadgroup``): its module fixtures (the
# browser, the rendered reports) take about 5 s to set up on each worker that runs a test
pytestmark = pytest.mark.xdist_group("html-report")


def _load() -> dict[str, Any]:
    report: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return report


def _ran(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in report["results"] if r["expressible"] and r["key_size"]]


def _nothing_ran() -> dict[str, Any]:
    """A report no codec could express: no charts, so no matplotlib time (for cheap tests)."""
    report = _load()
    report["results"] = [r for r in report["results"] if not r["expressible"]]
    report["verdict"] = {"recommended": None, "headline": "No codec expresses this schema.",
                         "why": [], "runners_up": [], "cannot": report["verdict"]["cannot"]}
    return report


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return _load()


@pytest.fixture(scope="module")
def hostile(report: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
            ) -> tuple[Path, str]:
    """The hostile report (:func:`_hostile`) written once: (its path, its text)."""
    path = tmp_path_factory.mktemp("hostile") / "hostile.html"
    write_html(_hostile(report), path)
    return path, path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def page(report: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The fixture report written once: (its path, its text)."""
    path = tmp_path_factory.mktemp("report") / "report.html"
    write_html(report, path)
    return path, path.read_text(encoding="utf-8")


# -- the browser --------------------------------------------------------------------------------


def _executable(name: str) -> str | None:
    path = f"/usr/bin/{name}"
    return path if os.access(path, os.X_OK) else shutil.which(name)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless chromium under selenium, once per module; skipped (or failed) without it."""
    chromium, driver_path = _executable("chromium"), _executable("chromedriver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        webdriver = None
    missing = [what for what, found in (("chromium", chromium), ("chromedriver", driver_path),
                                        ("selenium", webdriver)) if not found]
    if missing:
        why = f"no {' or '.join(missing)} for the browser tests"
        if os.environ.get(ENV_REQUIRE_BROWSER):
            pytest.fail(f"{why}, and {ENV_REQUIRE_BROWSER} is set")
        pytest.skip(why)
    options = webdriver.ChromeOptions()
    options.binary_location = str(chromium)
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update",
                     "--disable-sync", "--window-size=1280,1000",
                     f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(argument)
    # the page's console messages, and the DevTools events that show every request it makes
    # (Resource Timing leaves out file:// requests, which a page from disk would make)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(str(driver_path)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _open(driver: Any, path: Path) -> None:
    for log in ("browser", "performance"):
        driver.get_log(log)  # what came before is not this page's
    driver.get(path.as_uri())


def _problems(driver: Any) -> list[str]:
    """What the page did wrong: console errors and warnings, requests beyond its own file."""
    logged = [f"{e['level']}: {e['message']}" for e in driver.get_log("browser")
              if e["level"] in ("SEVERE", "WARNING")]
    events = [json.loads(e["message"])["message"] for e in driver.get_log("performance")]
    # this page's requests: the browser's own start page may still be loading its parts
    requested = {e["params"]["request"]["url"] for e in events
                 if e["method"] == "Network.requestWillBeSent"
                 and e["params"].get("documentURL") == driver.current_url}
    requested |= set(driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"))
    requested.discard(driver.current_url)
    return logged + [f"request: {url}" for url in sorted(requested)]


#: what a page shows of each element matching a selector, in one round trip (a WebDriver call
#: per element and property would take seconds)
_DESCRIBE = """
return Array.from(document.querySelectorAll(arguments[0]), e => {
  const box = e.getBoundingClientRect(), style = getComputedStyle(e);
  return {text: e.textContent, title: e.getAttribute('title'), width: box.width,
          height: box.height, background: style.backgroundColor,
          shown: style.visibility !== 'hidden' && style.display !== 'none' &&
                 e.getClientRects().length > 0};
});
"""


def _describe(driver: Any, selector: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = driver.execute_script(_DESCRIBE, selector)
    return found


def _by_css(driver: Any, selector: str) -> list[Any]:
    from selenium.webdriver.common.by import By
    return list(driver.find_elements(By.CSS_SELECTOR, selector))


def _shown(element: Any) -> bool:
    size = element.size
    return bool(element.is_displayed() and size["width"] > 0 and size["height"] > 0)


def _check_charts(driver: Any, ran: int) -> None:
    svgs = _by_css(driver, "figure > svg")
    titles = [svg.find_element("css selector", "title").get_attribute("textContent")
              for svg in svgs]
    assert titles == list(CHART_TITLES)
    for svg, title in zip(svgs, titles):
        assert _shown(svg), title
        assert svg.size["width"] > 600, (title, svg.size)
        assert svg.size["height"] > 100, (title, svg.size)
        labelled = svg.get_attribute("aria-labelledby")
        assert driver.execute_script(
            "return document.getElementById(arguments[0]).textContent", labelled) == title
        # drawn: glyphs, bars and axes are paths
        assert len(svg.find_elements("css selector", "path")) > 20, title
        caption = svg.find_element("xpath", "../figcaption")
        assert _shown(caption)
        assert caption.text.startswith(title)
    # one histogram per codec that ran, and only those
    assert len(_by_css(driver, '#chart-sizes g[id^="chart-sizes-axes_"]')) == ran


def test_the_report_in_a_browser(browser: Any, page: tuple[Path, str],
                                 report: dict[str, Any], tmp_path: Path) -> None:
    path, _ = page
    _open(browser, path)
    assert browser.title.startswith("Key format report: tenant:string")

    # the verdict first, as the page's first section
    headline = _by_css(browser, "#verdict .headline")[0]
    assert _shown(headline)
    assert headline.text == report["verdict"]["headline"]
    sections = [s.get_attribute("id") for s in _by_css(browser, "main > section")]
    assert sections[:2] == ["verdict", "cannot"]
    runners = _by_css(browser, "#verdict ol > li")
    assert [r.text.split()[0] for r in runners] == ["skv", "sqlite4"]

    _check_charts(browser, ran=len(_ran(report)))

    # every codec that cannot, each blocker by field, with its workaround
    cannot = _by_css(browser, "#cannot")[0]
    assert [h.text for h in _by_css(browser, "#cannot h3")] == \
        ["fdb-tuple", "lexkey", "lexkey-legacy"]
    rows = _by_css(browser, "#cannot tbody tr")
    assert len(rows) == sum(len(c["blockers"]) for c in report["verdict"]["cannot"]) == 4
    assert rows[0].text.startswith("created (field 1) descending fields are not supported")
    assert "the whole schema" in rows[3].text
    assert "none known" in rows[3].text
    assert "int64 of -created - 1" in cannot.text

    # sample keys: one coloured span per part, with its meaning on hover
    parts = _describe(browser, "#samples .key .part")
    expected = [p for r in report["results"] for s in r["sample_keys"] for p in s["parts"]]
    assert len(parts) == len(expected) == 63
    assert all(p["shown"] and p["width"] > 0 and p["height"] > 0 for p in parts)
    assert [p["text"] for p in parts] == [p["hex"] for p in expected]
    assert [p["title"] for p in parts] == [f"{p['span']} {p['role']}: {p['text']}"
                                           for p in expected]
    colours = {p["role"]: shown["background"] for p, shown in zip(expected, parts)}
    assert len({colours["payload"], colours["terminator"], colours["header"]}) == 3

    assert _problems(browser) == []

    shot = tmp_path / "report.png"
    assert browser.save_screenshot(str(shot))
    from PIL import Image
    with Image.open(shot) as image:
        assert image.size[0] >= 1000
        colours_seen = image.convert("RGB").getcolors(maxcolors=1 << 20)
    assert shot.stat().st_size > 20_000
    assert colours_seen is not None
    assert len(colours_seen) > 50


HOSTILE = '<script>window.pwned = 1</script><img src="x" onerror="window.pwned = 2">'


def _hostile(report: dict[str, Any]) -> dict[str, Any]:
    """The fixture with user data in every kind of place: names, values, reasons, roles."""
    bad = copy.deepcopy(report)
    skv = next(r for r in bad["results"] if r["codec"] == "skv")
    skv["codec"] = f"skv{HOSTILE}$\\frac{{"  # also matplotlib's math syntax, unbalanced
    skv["readers"] = [HOSTILE]
    skv["refused_examples"] = [f"('{HOSTILE}',): refused"]
    skv["sample_keys"][0]["values"] = f"('{HOSTILE}', 1)"
    skv["sample_keys"][0]["parts"][0]["role"] = HOSTILE
    skv["sample_keys"][0]["parts"][0]["text"] = '" onmouseover="window.pwned=3" x="'
    skv["anomalies"].append({"name": HOSTILE, "kind": "order", "description": HOSTILE})
    skv["collisions"] = 10**5000  # described, not written out (nor refused by int-to-str)
    skv["key_size"]["max"] = 10**400  # beyond a float: not charted, shown in the table
    bad["schema"] = f"a:string, {HOSTILE}\x00\ud800"
    bad["verdict"]["headline"] = f"Use <b>{HOSTILE}</b>"
    bad["verdict"]["runners_up"][0]["codec"] = skv["codec"]
    bad["verdict"]["cannot"][0]["blockers"][0]["workaround"] = HOSTILE
    return bad


def test_hostile_strings_are_text_in_a_browser(browser: Any, hostile: tuple[Path, str]
                                               ) -> None:
    _open(browser, hostile[0])
    assert browser.execute_script("return window.pwned") is None
    assert browser.execute_script("return document.scripts.length + document.images.length") \
        == 0
    assert _by_css(browser, "#verdict .headline")[0].text == f"Use <b>{HOSTILE}</b>"
    assert HOSTILE in _by_css(browser, "#cannot")[0].text
    _check_charts(browser, ran=3)
    assert _problems(browser) == []


def test_a_real_comparison_in_a_browser(impl: str, browser: Any, tmp_path: Path) -> None:
    from lexcodecs.compare import compare

    report = compare(REAL_SCHEMA, n=60, store="memory").to_dict()
    json.dumps(report)  # the contract: JSON-able
    assert report["implementation"] == impl
    path = tmp_path / "real.html"
    write_html(report, path)
    _open(browser, path)
    headline = _by_css(browser, "#verdict .headline")[0]
    assert _shown(headline)
    assert headline.text == report["verdict"]["headline"]
    # the page says which implementation measured the speeds
    assert f"implementation {impl}" in _by_css(browser, "header .meta")[0].text
    _check_charts(browser, ran=len(_ran(report)))
    blocked = [c["codec"] for c in report["verdict"]["cannot"]]
    assert {"fdb-tuple", "lexkey"} <= set(blocked)
    assert [h.text for h in _by_css(browser, "#cannot h3")] == blocked
    assert "created" in _by_css(browser, "#cannot")[0].text
    assert len(_by_css(browser, "#samples .key .part")) == sum(
        len(s["parts"]) for r in report["results"] for s in r["sample_keys"]) > 0
    assert _problems(browser) == []


# -- without a browser ------------------------------------------------------------------------


def test_hostile_strings_are_escaped(hostile: tuple[Path, str]) -> None:
    text = hostile[1]
    # the page has no script and no image at all: every tag in the data was escaped
    assert "<script" not in text
    assert "<img" not in text
    assert "<b>" not in text
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in text
    assert 'onmouseover="' not in text  # an attribute value cannot be closed early
    # a NUL and a lone surrogate become visible escapes: the page is valid UTF-8
    assert "\\x00\\ud800" in text
    assert "&lt;int of 16610 bits, about 1e5000&gt;" in text
    text.encode("utf-8")


def test_the_same_report_gives_the_same_bytes(report: dict[str, Any],
                                              page: tuple[Path, str]) -> None:
    assert render_html(copy.deepcopy(report)) == page[1]


def test_the_page_is_self_contained(page: tuple[Path, str]) -> None:
    text = page[1]
    # nothing is fetched: no external URL in any attribute or CSS, and a policy that forbids it
    assert re.search(r'(src|href)="(?!#)', text) is None
    assert "url(http" not in text
    assert "@import" not in text
    assert "<link" not in text
    assert "default-src 'none'" in text
    # ids are unique in the page (the charts' glyphs and clip paths are prefixed per chart)
    ids = re.findall(r'\bid="([^"]+)"', text)
    assert len(ids) == len(set(ids)) > 100
    assert all(ref in set(ids) for ref in re.findall(r'(?:href="#|url\(#)([^")]+)', text))
    # no date or tool version inside, which would change the bytes from run to run
    assert "<dc:date>" not in text


def test_codecs_that_did_not_run_are_not_charted(report: dict[str, Any],
                                                 page: tuple[Path, str]) -> None:
    text = page[1]
    assert text.count('<g id="chart-sizes-axes_') == len(_ran(report)) == 3
    assert "Not charted (cannot express the schema, or kept no record): fdb-tuple, lexkey, " \
        "lexkey-legacy." in text


def test_missing_matplotlib_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch,
                                                   report: dict[str, Any],
                                                   tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    target = tmp_path / "report.html"
    with pytest.raises(LexCodecError, match=re.escape("pip install 'lexcodecs[report]'")):
        write_html(report, target)
    assert list(tmp_path.iterdir()) == []
    # a report with nothing to chart needs no plotting library
    assert "No codec expresses this schema." in render_html(_nothing_ran())


@pytest.mark.parametrize(("bad", "message"), [
    ([], "a list, not a mapping"),
    ({"schema": "a:int64", "records": 1, "verdict": {}}, "no 'results'"),
    ({"schema": "a:int64", "records": 1, "verdict": [], "results": []}, "'verdict' is not"),
    ({"schema": "a:int64", "records": 1, "verdict": {}, "results": [{"codec": 5}]},
     r"results\[0\]"),
])
def test_what_is_not_a_report_is_refused(bad: Any, message: str) -> None:
    with pytest.raises(LexCodecError, match=message):
        render_html(bad)


def test_write_html_replaces_the_file_atomically(tmp_path: Path) -> None:
    report = _nothing_ran()
    target = tmp_path / "report.html"
    target.write_text("an older report")
    write_html(report, str(target))
    assert target.read_text(encoding="utf-8") == render_html(report)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]
    assert target.stat().st_mode & 0o777 == 0o666 & ~_umask()
    # a report that cannot be rendered leaves the older file as it was
    with pytest.raises(LexCodecError, match="not a compare report"):
        write_html({"schema": "x"}, target)
    assert target.read_text(encoding="utf-8") == render_html(report)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.mark.parametrize("where", ["missing/report.html", "."])
def test_write_html_says_why_it_cannot_write(tmp_path: Path, where: str) -> None:
    target = tmp_path / where
    with pytest.raises(LexCodecError, match="cannot write the HTML report"):
        write_html(_nothing_ran(), target)
    assert [p.name for p in tmp_path.iterdir()] == []  # no temporary file left behind


def test_blocker_and_prefix_scan_details(report: dict[str, Any]) -> None:
    """What the report may add -- an inexact workaround, a refused or leaking prefix scan,
    the field of each part of a sample key -- is shown, still with nothing charted."""
    bad = _nothing_ran()
    bad["verdict"]["cannot"][0]["blockers"][0]["exact"] = False
    orderly = copy.deepcopy(next(r for r in report["results"] if r["codec"] == "orderly"))
    orderly["key_size"] = None  # expressible, yet nothing kept: listed, not charted
    orderly["prefix_scans"] = [
        {"fields": 1, "prefixes": 30, "exact": False, "leaked": 2, "missed": 0,
         "example": "prefix ('a',) holds ('a\\x00',)"},
        {"fields": 2, "prefixes": 30, "exact": False, "leaked": 0, "missed": 0,
         "error": "prefix_range refused: <no>"}]
    for part, field in zip(orderly["sample_keys"][0]["parts"],
                           ("tenant", "tenant", "created", "created", "id")):
        part["field"] = field
    bad["results"].append(orderly)
    text = render_html(bad)
    assert "(not exact)" in text
    assert "leaked 2, missed 0" in text
    assert "prefix (&#x27;a&#x27;,) holds" in text
    assert "refused:</span> prefix_range refused: &lt;no&gt;" in text
    assert text.count('<span class="name">') == 3  # tenant, created, id under their bytes
    assert "<figure" not in text


def test_the_docs_name_every_section_and_chart() -> None:
    from lexcodecs.compare.html import SECTIONS

    doc = (Path(__file__).resolve().parent.parent / "docs" / "html-report.md").read_text(
        encoding="utf-8")
    for _, heading in SECTIONS:
        assert f"**{heading}" in doc, heading
    for title in CHART_TITLES:
        assert f"**{title}.**" in doc, title


def test_the_closest_codec_when_none_expresses_the_schema(report: dict[str, Any]) -> None:
    """No codec expresses the schema as written: the verdict names the closest, on its
    rewritten schema, and the charts show that one measurement."""
    bad = _nothing_ran()
    orderly = next(r for r in report["results"] if r["codec"] == "orderly")
    bad["verdict"]["closest"] = {
        "codec": "orderly", "schema": "tenant:string, created:int64, id:bytes", "exact": True,
        "workarounds": [{"field": "created", "index": 1, "problem": "descending fields are "
                         "not supported", "workaround": "its bitwise complement", "exact": True}],
        "result": orderly,
        "others": [{"codec": "skv", "why": ["refuses none"], "versus": "longer keys",
                    "decided_by": "size"}]}
    bad["verdict"]["ranking"] = [{"criterion": "correct", "rule": "keeps the natural order"}]
    text = render_html(bad)
    assert "<h3>Closest: orderly</h3>" in text
    assert "<code>tenant:string, created:int64, id:bytes</code>" in text
    assert "(behind on size)" in text
    assert "<strong>correct</strong>: keeps the natural order" in text
    assert text.count("<figure") == 3
    assert text.count('<g id="chart-sizes-axes_') == 1
    assert "Charted: the closest codec, on its rewritten schema" in text


def test_a_page_with_a_huge_value_stays_small() -> None:
    """One 1 MiB string among small records made a 78 MB page: every codec's sample keys
    showed it in full. The page now grows by a few KB a codec over the same page with a
    small value (the charts' size is the page's own), and says what it cut."""
    from lexcodecs.compare import compare

    def page(first: str) -> tuple[str, int]:
        records = [(first, 1), *((f"k{i}", i) for i in range(20))]
        report = compare("s:string, n:int64", records, repeats=0).to_dict()
        return render_html(report), len(report["results"])

    text, codecs = page("x" * 2**20)
    small, _ = page("x")
    grown = len(text.encode()) - len(small.encode())
    assert grown < 8_000 * codecs, (grown, codecs)
    assert "bytes, cut)" in text
    assert "characters, cut)" in text


def test_a_report_from_elsewhere_is_bounded_too() -> None:
    """A report dict holding megabytes in one sample (an older version's, or edited): each
    text is cut, and so is a long list of parts."""
    report = _nothing_ran()
    sample = {"values": "('" + "v" * 2**20 + "',)", "hex": "78 " * 2**20,
              "parts": [{"span": f"{i}..{i + 1}", "hex": "78", "role": "data",
                         "text": "t" * 10_000} for i in range(5000)]}
    ran = copy.deepcopy(_load()["results"][0])
    ran["key_size"] = None
    ran["sample_keys"] = [sample]
    report["results"].append(ran)
    text = render_html(report)
    assert len(text.encode()) < 600_000, len(text)
    assert f"({2**20 + 5:,} characters, cut)" in text
    assert "4,900 more parts, cut" in text


# -- issue 32: the closest codec shown everywhere, one colour per codec --------------------------


def test_the_closest_codec_stands_where_a_recommended_one_would() -> None:
    """No codec expresses a ``timestamp desc`` key as written: the verdict names the closest
    codec, and the page showed "No prefix scan was measured.", "None of the codecs that ran
    declares an anomaly." and "No sample keys." although the report had all three for it. The
    page now shows the closest codec's measurements wherever it would show a recommended
    one's, labelled as measured on the rewritten schema."""
    from lexcodecs.compare import compare

    report = compare("user_id:int64, created:timestamp desc, email:string", n=80,
                     codecs=["orderly", "skv"], store="memory", repeats=1).to_dict()
    closest = report["verdict"]["closest"]
    assert closest["codec"] == "orderly"
    measured = closest["result"]
    text = render_html(report)
    for absent in ("No prefix scan was measured.", "declares an anomaly.", "No sample keys.",
                   "No codec expressed the schema."):
        assert absent not in text, absent
    label = "orderly (rewritten)"
    sections = {sid: text[text.index(f'<section id="{sid}"'):] for sid in
                ("results", "prefix-scans", "anomalies", "samples")}
    for sid, body in sections.items():
        body = body[:body.index("</section>")]
        assert label in body, sid
        assert f"the closest codec, on its rewritten schema <code>{closest['schema']}</code>" \
            in body, sid
    assert '<tr class="recommended"><td><strong class="nowrap">orderly (rewritten)</strong>' \
        in sections["results"]
    assert "exact</span>" in sections["prefix-scans"]
    for anomaly in measured["anomalies"]:
        assert f"<code>{anomaly['name']}</code>" in sections["anomalies"]
    for sample in measured["sample_keys"]:
        assert f"key <code>{sample['hex']}</code>" in sections["samples"]


def _fills(svg: str) -> list[str]:
    """The colours an SVG fills or strokes with, but white, the ink and the greys of the
    legends and of refused records (what no codec owns)."""
    shared = {"#ffffff", "#000000", "#1b1f24", "#8c959f", "#d0d7de"}
    return [c for c in re.findall(r"(?:fill|stroke): (#[0-9a-f]{6})", svg) if c not in shared]


def _chart(text: str, chart_id: str) -> str:
    start = text.index(f'<figure id="{chart_id}-figure">')
    return text[start:text.index("</figure>", start)]


def test_every_codec_shown_has_its_own_colour_the_same_in_every_chart(
        report: dict[str, Any]) -> None:
    """Twelve codecs ran (more than the palette's first eight, after which fdb-tuple and
    sqlite4 were the same blue): each histogram of the key sizes has its own colour, and the
    speed and records charts draw each codec in those colours, and in no other."""
    many = copy.deepcopy(report)
    ran = _ran(many)
    many["results"] += [dict(copy.deepcopy(ran[i % len(ran)]), codec=f"plugin-{i}")
                        for i in range(12 - len(ran))]
    text = render_html(many)
    sizes = _chart(text, "chart-sizes")
    groups = re.split(r'<g id="chart-sizes-axes_\d+">', sizes)[1:]
    assert len(groups) == 12
    per_codec = [set(_fills(group)) for group in groups]
    assert all(len(colours) == 1 for colours in per_codec), per_codec
    colours = {colour for (colour,) in per_codec}
    assert len(colours) == 12  # no two codecs share one
    for chart_id in ("chart-speed", "chart-records"):
        assert set(_fills(_chart(text, chart_id))) == colours, chart_id
