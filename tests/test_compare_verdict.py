"""The verdict of lexcodecs.compare: the recommended codec on schemas where the answer is
known, every blocker by field with its workaround, the workarounds' converters, the
measurements behind the verdict, and the report's forms (text, JSON, markdown, the CLI).

The comparisons use the built-in codecs by name (so an installed plugin changes nothing),
few records, the memory store where the store does not matter, and no timing
(``repeats=0``) where speed must not decide: the verdicts are then a function of the data.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from toys import ToyCodec

from lexcodecs import KeySchema, _impl, get_codec
from lexcodecs.cli import main
from lexcodecs.compare import (
    DEFAULT_SCHEMA,
    DESCENDING,
    RANKING,
    TYPE_SUBSTITUTES,
    Comparison,
    compare,
    generate_records,
)
from lexcodecs.compare.blockers import plan
from lexcodecs.errors import LexCodecError
from lexcodecs.model import value_key

ROOT = Path(__file__).resolve().parent.parent
#: the codecs these verdicts were worked out for: a codec added later would change the answers
#: (a new runner-up, another smallest key), not the rules they check
BUILTINS = ["fdb-tuple", "lexkey", "lexkey-legacy", "skv", "orderly", "sqlite4"]


def run(schema: str, n: int = 150, **kwargs: Any) -> Comparison:
    kwargs.setdefault("codecs", BUILTINS)
    kwargs.setdefault("store", "memory")
    kwargs.setdefault("repeats", 0)
    return compare(schema, n=n, **kwargs)


def blockers_of(report: Comparison, codec: str) -> list[tuple[int | None, str]]:
    found = dict(report.verdict.cannot)[codec]
    return [(b.index, b.problem) for b in found]


# -- verdicts where the answer is known -------------------------------------------------------


def test_timestamp_desc_and_nulls_last_no_codec_closest_is_skv() -> None:
    """No built-in codec has a descending timestamp with NULLs last in a string: skv lacks
    only the timestamp type, so it is closest, measured on the rewritten schema."""
    report = run("user_id:int64, created:timestamp desc, email:string nulls last")
    v = report.verdict
    assert v.recommended is None
    assert not any(r.expressible for r in report.results)
    assert v.headline.startswith("No codec expresses this schema as written. Closest: skv")
    assert v.closest is not None
    assert v.closest.codec == "skv"
    assert v.closest.schema == "user_id:int64, created:int64 desc, email:string nulls last"
    assert v.closest.exact
    measured = v.closest.result
    assert (measured.records, measured.refused, measured.sound) == (150, 0, True)
    assert "skv*" in report.to_text()  # its measured row, marked
    # every blocker of every codec, by field: not only the first
    assert blockers_of(report, "skv") == [(1, "type 'timestamp' is not supported")]
    assert blockers_of(report, "fdb-tuple") == [
        (1, "type 'timestamp' is not supported"), (1, "descending fields are not supported"),
        (2, "NULL cannot sort last here (NULL is the lowest value: first ascending, last "
            "descending)")]
    lexkey = dict(v.cannot)["lexkey"]
    assert [(b.index, b.problem.split(" ")[0]) for b in lexkey] == [(1, "descending"),
                                                                  (2, "NULL")]
    assert lexkey[0].workaround is not None
    assert lexkey[0].workaround.startswith("an int64 of microseconds since the epoch, negated")
    assert "created_null" in lexkey[0].workaround  # NULL must stay last once ascending
    assert {name for name, _ in v.cannot} == set(BUILTINS)


def test_only_skv_has_nulls_last_with_descending() -> None:
    report = run("user_id:int64, created:int64 desc, email:string nulls last")
    v = report.verdict
    assert v.recommended == "skv"
    assert v.headline.startswith("Use skv: it is the only codec that expresses every field; "
                                 "it refuses none of the 150 records, keeps the natural order")
    assert v.runners_up == ()
    assert {name for name, _ in v.cannot} == set(BUILTINS) - {"skv"}
    for name, found in v.cannot:
        assert (2, "email") in {(b.index, b.field) for b in found}, name
    fdb = dict(v.cannot)["fdb-tuple"]
    assert fdb[0].problem == "descending fields are not supported"
    assert fdb[0].workaround is not None
    assert fdb[0].workaround.startswith("its bitwise complement ~x (-x - 1), ascending")


def test_int64_desc_alone_goes_to_the_smallest_keys() -> None:
    """Three codecs express it, all correct and refusing nothing: size decides."""
    report = run("created:int64 desc", n=200)
    v = report.verdict
    measured = {r.codec: r for r in report.results if r.measured}
    assert set(measured) == {"orderly", "skv", "sqlite4"}
    assert all(r.sound and not r.refused for r in measured.values())
    smallest = min(measured.values(), key=lambda r: r.key_bytes_mean or math.inf)
    assert v.recommended == smallest.codec == "orderly"
    assert [(r.codec, r.decided_by) for r in v.runners_up] == [("sqlite4", "size"),
                                                               ("skv", "size")]
    assert "has the smallest keys" in v.headline


def test_decimal_and_float32_only_orderly_others_get_exact_or_inexact_workarounds() -> None:
    report = run("amount:decimal, ratio:float32")
    v = report.verdict
    assert v.recommended == "orderly"
    cannot = dict(v.cannot)
    (sqlite4,) = cannot["sqlite4"]
    assert (sqlite4.index, sqlite4.exact) == (1, True)
    assert sqlite4.workaround == "a float64 of the same value (every float32 is one)"
    for name in ("fdb-tuple", "skv", "lexkey"):
        (decimal_blocker,) = cannot[name]
        assert (decimal_blocker.index, decimal_blocker.exact) == (0, False)
        assert decimal_blocker.workaround is not None
        assert decimal_blocker.workaround.startswith("the nearest float64")


def test_decimal_and_float64_two_codecs() -> None:
    report = run("amount:decimal, score:float64")
    assert {r.codec for r in report.results if r.expressible} == {"orderly", "sqlite4"}
    v = report.verdict
    assert v.recommended in {"orderly", "sqlite4"}
    (runner,) = v.runners_up
    assert runner.codec == ({"orderly", "sqlite4"} - {v.recommended}).pop()
    assert runner.decided_by is not None


def test_default_schema_orderly_refuses_nothing() -> None:
    """skv refuses NaN scores and sqlite4 NUL characters in the tenant; orderly takes every
    record, so it wins on the second criterion whatever the sizes."""
    report = run(DEFAULT_SCHEMA, n=200)
    v = report.verdict
    assert v.recommended == "orderly"
    results = {r.codec: r for r in report.results}
    assert results["orderly"].refused == 0
    assert results["skv"].refused > 0
    assert results["sqlite4"].refused > 0
    assert [(r.codec, r.decided_by) for r in v.runners_up] == [("skv", "complete"),
                                                               ("sqlite4", "complete")]
    assert v.runners_up[0].versus.startswith("refuses ")
    assert v.why[:3] == ("expresses every field", "refuses none of the 200 records",
                         "keeps the natural order: no pair out of order, no collision, every "
                         "key decodes back")
    for name in ("fdb-tuple", "lexkey", "lexkey-legacy"):
        assert blockers_of(report, name) == [(1, "descending fields are not supported")]


def test_closest_with_a_flag_field_and_complement_keeps_the_order() -> None:
    """fdb-tuple and lexkey lack descending fields: the workaround (a NULL flag, then ~ts) is
    applied and measured; fdb-tuple's rewritten keys keep the natural order exactly."""
    report = run(DEFAULT_SCHEMA, n=200, codecs=["lexkey", "fdb-tuple"])
    v = report.verdict
    assert v.closest is not None
    assert v.closest.codec == "fdb-tuple"
    assert v.closest.schema == "tenant:string, ts_null:bool, ts:int64, id:bytes, score:float64"
    assert v.closest.result.sound
    assert v.closest.result.refused == 0
    assert [o.codec for o in v.closest.others] == ["lexkey"]
    assert v.closest.others[0].decided_by == "correct"


def test_every_record_refused_is_never_ok() -> None:
    report = compare("f:float64", [(math.nan,), (-math.nan,)], codecs=["skv"], store="memory")
    (skv,) = report.results
    assert (skv.expressible, skv.records, skv.refused) == (True, 0, 2)
    assert not skv.agrees
    assert not skv.to_dict()["ok"]
    assert report.verdict.recommended is None
    assert report.verdict.headline == ("Nothing to recommend: skv express the schema, but they "
                                       "refused every record.")
    ((name, (blocker,)),) = report.verdict.cannot
    assert name == "skv"
    assert blocker.problem.startswith("refused every one of the 2 records, e.g. (nan,)")
    row = next(line for line in report.to_text().splitlines() if line.startswith("skv "))
    assert row.split()[1:3] == ["none", "2"]


def test_the_best_of_unsound_codecs_is_named_with_its_problems() -> None:
    report = run("name:string, n:int64", codecs=["lexkey"])
    v = report.verdict
    assert v.recommended == "lexkey"
    assert ", but it puts " in v.headline
    assert "declared anomalies" in v.headline


def test_a_sound_codec_beats_a_smaller_unsound_one() -> None:
    report = run("name:string, n:int64", codecs=["lexkey", "fdb-tuple"])
    assert report.verdict.recommended == "fdb-tuple"
    (runner,) = report.verdict.runners_up
    assert (runner.codec, runner.decided_by) == ("lexkey", "correct")


# -- blockers that only bind knows --------------------------------------------------------------


def test_bind_only_blockers_are_found_after_the_declared_ones() -> None:
    schema = KeySchema.parse("a:int64 key=range, b:bytes final=true, c:string")
    skv = get_codec("skv")
    with pytest.raises(LexCodecError) as refusal:
        skv.bind(schema)
    found = plan(skv, schema, refusal.value, {"final": ["sqlite4"], "key": ["skv"]})
    assert [(b.index, b.problem.split(":")[0]) for b in found.blockers] == [
        (0, "No partitionKeyFields defined"), (1, "unknown field option final=True")]
    assert found.blockers[0].workaround == "key=partition"  # what the codec expects
    assert found.blockers[1].workaround == "leave it out (an option of sqlite4)"
    assert found.schema is None  # a refusal only bind knows has no automatic rewrite


def test_a_plugin_codec_gets_its_blockers_and_workarounds() -> None:
    report = compare("x:int64, y:uuid desc", [(1, None)], codecs=[ToyCodec()], store="memory")
    assert report.verdict.cannot == (("toy", dict(report.verdict.cannot)["toy"]),)
    (blocker,) = dict(report.verdict.cannot)["toy"]
    assert (blocker.index, blocker.problem) == (1, "type 'uuid' is not supported")
    assert blocker.workaround is not None
    assert blocker.workaround.startswith("bytes: its 16 bytes")


# -- the workarounds keep their promises --------------------------------------------------------


def _ranks(keys: list[Any]) -> list[int]:
    """Dense ranks of *keys* (equal keys, equal rank)."""
    distinct = sorted(set(keys))
    return [distinct.index(k) for k in keys]


@pytest.mark.parametrize("field_type", sorted(DESCENDING))
def test_descending_workarounds_reverse_the_order(field_type: str) -> None:
    reversal = DESCENDING[field_type]
    values = [v for (v,) in generate_records(f"x:{field_type}", 120, seed=3, null_share=0)
              if not (isinstance(v, float) and math.isnan(v))]
    target = reversal.type or field_type
    natural = [value_key(v, field_type) for v in values]
    written = [value_key(reversal.convert(v), target) for v in values]
    assert _ranks(written) == [max(_ranks(natural)) - r for r in _ranks(natural)]


EXACT_SUBSTITUTES = sorted((t, i) for t, subs in TYPE_SUBSTITUTES.items()
                           for i, s in enumerate(subs) if s.exact and t != "tuple")


@pytest.mark.parametrize(("field_type", "which"), EXACT_SUBSTITUTES)
def test_exact_type_substitutes_keep_order_and_values_apart(field_type: str, which: int
                                                            ) -> None:
    sub = TYPE_SUBSTITUTES[field_type][which]
    values = [v for (v,) in generate_records(f"x:{field_type}", 80, seed=4, null_share=0)]
    natural = [value_key(v, field_type) for v in values]
    written = [value_key(sub.convert(v), sub.type) for v in values]
    assert _ranks(written) == _ranks(natural)


# -- what is measured ---------------------------------------------------------------------------


def test_sizes_timings_and_samples() -> None:
    records = [(x, s) for x in (-1, 0, 7, None) for s in ("", "ab", None)]
    (toy,) = compare("x:int64, s:string", records, codecs=[ToyCodec()], store="sqlite",
                     repeats=2).results
    # 02 + 8 bytes or a 1-byte NULL; 02 + text + 00 01 or a 1-byte NULL
    sizes = sorted((1 if x is None else 9) + (1 if s is None else 3 + len(s))
                   for x, s in records)
    ks = toy.key_size
    assert ks is not None
    assert (ks.min, ks.max, ks.mean) == (sizes[0], sizes[-1], sum(sizes) / len(sizes))
    assert ks.histogram == tuple((n, sizes.count(n)) for n in sorted(set(sizes)))
    assert ks.p50 == sizes[len(sizes) // 2 - 1 + len(sizes) % 2]
    for timing in (toy.encode_ns, toy.decode_ns):
        assert timing is not None
        assert timing.batch > 0
        assert 0 <= timing.p50 <= timing.p99
    assert not toy.compiled  # a plugin's bound codec is not a compiled class
    assert 1 <= len(toy.sample_keys) <= 3
    sample = toy.sample_keys[0]  # the shortest key first, the longest last
    assert len(sample.hex) == 3 * ks.min - 1
    assert len(toy.sample_keys[-1].hex) == 3 * ks.max - 1
    assert all(p.span and p.hex for p in sample.parts)
    (scan,) = toy.prefix_scans
    assert (scan.fields, scan.prefixes, scan.exact) == (1, 4, True)
    assert compare("x:int64", [(1,)], codecs=[ToyCodec()], repeats=0).results[0].encode_ns \
        is None


def test_prefix_scans_show_a_declared_leak() -> None:
    report = run("name:string, n:int64", codecs=["lexkey", "skv"])
    lexkey, skv = report.results
    assert skv.prefix_exact
    assert not lexkey.prefix_exact
    assert lexkey.prefix_scans[0].leaked > 0
    assert lexkey.prefix_scans[0].example is not None


def test_compiled_flag_follows_the_implementation(impl: str) -> None:
    report = run("name:string, n:int64", n=20, codecs=["skv", "fdb-tuple"])
    assert report.implementation == impl == _impl.current
    assert [r.compiled for r in report.results] == [impl == "compiled"] * 2


# -- the report's forms -------------------------------------------------------------------------

CONTRACT = {"schema", "records", "source", "store", "implementation", "chosen", "verdict",
            "results"}
VERDICT_KEYS = {"recommended", "headline", "why", "runners_up", "cannot", "speed_tie"}
RESULT_KEYS = {
    "codec", "expressible", "blockers", "notes", "self_describing", "readers", "compiled",
    "records", "refused", "refused_examples", "key_size", "encode_ns", "decode_ns",
    "round_trip_failures", "round_trip_example", "collisions", "collision_example",
    "order_pairs_wrong", "order_explained", "order_unexplained", "order_example",
    "prefix_scans", "anomalies", "sample_keys"}


def test_to_dict_keeps_the_contract() -> None:
    report = run("tenant:string, ts:int64 desc", n=60, repeats=1)
    data = json.loads(json.dumps(report.to_dict()))
    assert set(data) >= CONTRACT
    assert set(data["verdict"]) >= VERDICT_KEYS
    assert data["source"] == "generated: 60 records, seed 0"
    for r in data["results"]:
        assert set(r) >= RESULT_KEYS
    skv = next(r for r in data["results"] if r["codec"] == "skv")
    assert set(skv["key_size"]) == {"min", "mean", "p50", "p99", "max", "histogram"}
    assert set(skv["encode_ns"]) == {"batch", "p50", "p99", "loops"}
    assert len(skv["encode_ns"]["loops"]) == 1  # one per timed loop: --repeats
    assert skv["encode_ns"]["batch"] == min(skv["encode_ns"]["loops"])
    assert skv["prefix_scans"][0]["fields"] == 1
    assert len(skv["sample_keys"]) <= 3
    assert {"span", "hex", "role", "text"} <= set(skv["sample_keys"][0]["parts"][0])
    fdb = next(c for c in data["verdict"]["cannot"] if c["codec"] == "fdb-tuple")
    assert fdb["blockers"][0] == {
        "field": "ts", "index": 1, "problem": "descending fields are not supported",
        "workaround": fdb["blockers"][0]["workaround"], "exact": True}
    assert [c["criterion"] for c in data["verdict"]["ranking"]] == [c.name for c in RANKING]


def test_markdown_has_verdict_table_and_blockers() -> None:
    report = run("user_id:int64, created:int64 desc, email:string nulls last", n=40)
    text = report.to_markdown()
    lines = text.splitlines()
    assert lines[0] == "### Key format for `user_id:int64, created:int64 desc, email:string " \
        "nulls last`"
    assert lines[2] == f"**{report.verdict.headline}**"
    assert "| codec | ok | refused | key bytes avg |" in text
    assert re.search(r"^\| skv \| yes \| 0 \| ", text, re.M)
    assert "| fdb-tuple | email | NULL cannot sort last here" in text
    # every blocker is a row of the blockers table, which follows its heading
    start = lines.index("What the others cannot do:") + 4
    rows = lines[start:lines.index("", start)]
    assert len(rows) == sum(len(b) for _, b in report.verdict.cannot)
    assert all(row.startswith("| ") and row.count(" | ") == 3 for row in rows)


def test_terminal_text_puts_the_verdict_first() -> None:
    text = run(DEFAULT_SCHEMA, n=60).to_text()
    lines = text.splitlines()
    assert lines[0].startswith("schema: ")
    assert lines[1].startswith("source: generated: 60 records, seed 0    implementation: ")
    assert lines[3].startswith("Use orderly: ")
    assert lines.index("why:") < next(i for i, line in enumerate(lines)
                                      if line.startswith("codec "))


# -- the command line ---------------------------------------------------------------------------


def test_cli_markdown_json_and_refusals(capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    argv = ["compare", "-s", "a:string, n:int64", "-n", "30", "-c", "skv", "-c", "lexkey",
            "--store", "memory", "--repeats", "1", "--no-progress"]
    assert main([*argv, "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("### Key format for `a:string, n:int64`\n\n**Use skv: ")
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"]["recommended"] == "skv"
    assert main([*argv, "--json", "--markdown"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err
    assert main([*argv, "--html", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lexcodecs: error: --html ")
    assert "is a directory" in err
    assert main([*argv, "--html", str(tmp_path / "no" / "r.html")]) == 2
    assert "no such directory" in capsys.readouterr().err
    assert main(["compare", "-s", "t:tuple", "--no-progress"]) == 2
    assert capsys.readouterr().err.startswith(
        "lexcodecs: error: field 0 't' (tuple): no record generator for field type 'tuple'")
    with pytest.raises(LexCodecError, match="cannot generate -1 records"):
        compare("a:string", n=-1)


def test_cli_compares_an_sqlite_table_with_its_declared_types(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "app.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT, created TIMESTAMP)")
        conn.executemany("INSERT INTO users VALUES (?, ?, ?)",
                         [(i, f"u{i}@example.com", f"2024-01-0{1 + i % 9}T00:00:00+00:00")
                          for i in range(40)])
    conn.close()
    assert main(["compare", "--sqlite", str(db), "--table", "users", "--key",
                 "email, created desc", "-c", "skv", "-c", "sqlite4", "--store", "memory",
                 "--repeats", "0", "--json", "--no-progress"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "email:string, created:timestamp desc"
    assert data["records"] == 40
    assert data["source"].startswith("SQLite ")
    assert data["source"].endswith("key types proposed from the input's declared types")
    verdict = data["verdict"]
    assert verdict["recommended"] is None  # neither has a timestamp type
    assert verdict["closest"]["codec"] in {"skv", "sqlite4"}
    assert verdict["closest"]["schema"] == "email:string, created:int64 desc"
    assert verdict["closest"]["result"]["refused"] == 0


def test_cli_html_writes_the_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "report.html"
    assert main(["compare", "-s", "a:string, n:int64", "-n", "20", "-c", "skv", "--store",
                 "memory", "--repeats", "1", "--no-progress", "--html", str(target)]) == 0
    captured = capsys.readouterr()
    assert captured.err == f"HTML report written to {target}\n"
    assert captured.out.startswith("schema: a:string, n:int64")
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") or page.lower().startswith("<!doctype html>")
    assert "Use skv" in page


# -- capabilities a person reads --------------------------------------------------------------


@pytest.mark.parametrize("name", BUILTINS)
def test_capabilities_repr_fits_a_screen_and_readers_are_declared(name: str) -> None:
    caps = get_codec(name).capabilities
    text = repr(caps)
    assert len(text) < 700
    assert not re.search(r"\d{25}", text), "an int_range bound printed in full"
    assert caps.readers
    assert caps.to_dict()["readers"] == list(caps.readers)
    if name == "fdb-tuple":
        assert "int_range=-(2**2040 - 1)..2**2040 - 1" in text


# -- docs/choosing.md is true to the code ---------------------------------------------------------


def test_choosing_md_lists_the_ranking_as_the_code_has_it() -> None:
    text = (ROOT / "docs" / "choosing.md").read_text(encoding="utf-8")
    block = text.split("<!-- ranking: the rows below are lexcodecs.compare.RANKING, in order -->",
                       1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \| (.+) \|$", block, re.M)
    assert rows == [(c.name, c.rule) for c in RANKING]
