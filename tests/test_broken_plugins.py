"""Plugin codecs against the conformance harness, and the project against plugins.

* every broken codec of tests/broken_codecs.py is caught: from pytest, through the schemas the
  harness plans from its declarations, and from ``lexcodecs conformance`` with the codecs
  installed through an entry point (a ``*.dist-info`` on PYTHONPATH, as pip would leave it);
  a correct plugin keeps every claim;
* the harness plans a schema for every claim each built-in codec declares;
* with third-party codecs installed, the project's own tests and doc examples still hold.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

import pytest
from broken_codecs import (
    BROKEN,
    ENTRY_POINTS,
    BrokenOrderInt8,
    BrokenOrderUInt32,
    NarrowThirdParty,
    PlugCodec,
)
from hypothesis import HealthCheck, Phase, settings

from lexcodecs import KeySchema, LexCodecError, Option, get_codec
from lexcodecs.registry import BUILTIN_CODECS, ENTRY_POINT_GROUP
from lexcodecs.schema import Field
from lexcodecs.testing.checks import ConformanceError
from lexcodecs.testing.claims import plan
from lexcodecs.testing.conformance import applicable, run_property
from lexcodecs.testing.matrix import ALL_KEPT, run_matrix
from lexcodecs.testing.strategies import GENERATED_TYPES

ROOT = Path(__file__).resolve().parent.parent
#: few examples, no shrinking: enough to catch every broken codec here, and cheap
QUICK = settings(max_examples=2, derandomize=True, deadline=None, database=None,
                 print_blob=False, phases=[Phase.explicit, Phase.generate],
                 suppress_health_check=list(HealthCheck))


def install(tmp_path: Path, names: list[str]) -> dict[str, str]:
    """An environment in which the codecs *names* of broken_codecs are installed plugins: a
    copy of the module and a dist-info declaring its entry points, on PYTHONPATH."""
    shutil.copy(Path(__file__).with_name("broken_codecs.py"), tmp_path)
    dist = tmp_path / "lexcodecs_test_plugins-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: lexcodecs-test-plugins\n"
                                   "Version: 1.0\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\n" + "".join(f"{n} = {ENTRY_POINTS[n]}\n" for n in names),
        encoding="utf-8")
    path = [str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}


def run(env: Mapping[str, str], *argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *argv], cwd=cwd, env=dict(env), capture_output=True,
                          text=True, check=False)


# -- the plan: a schema for every declared claim --------------------------------------------


@pytest.mark.parametrize("name", sorted(BUILTIN_CODECS))
def test_every_declared_claim_of_a_builtin_is_planned(name: str) -> None:
    codec = get_codec(name)
    caps = codec.capabilities
    planned = plan(codec)
    texts = {str(s) for s in planned.schemas}
    for t in caps.field_types & set(GENERATED_TYPES):
        assert any(s == f"f0:{t}" or s.startswith(f"f0:{t} nulls") for s in texts), t
        if caps.descending:
            assert any(s.startswith(f"f0:{t} desc") and "," not in s for s in texts), t
        # somewhere not last: where a field without a terminator shows
        assert any(f.type == t for s in planned.schemas if len(s) > 1
                   for f in s.fields[:-1]), t
    claims = {c.name: c for c in planned.claims}
    for t in caps.field_types:
        claim = claims[f"type {t}"]
        assert bool(claim.schemas) == (claim.untested is None), claim
    for claim in planned.claims:
        assert set(claim.schemas) <= texts
        assert claim.schemas or claim.untested, f"{claim.name}: no schema and no reason"
    for key, option in getattr(codec, "FIELD_OPTIONS", {}).items():
        for choice in option.choices or ():
            assert any(n.startswith(f"option {key}=") for n in claims), (key, choice)


def test_what_cannot_be_tested_says_why() -> None:
    fdb = {c.name: c for c in plan(get_codec("fdb-tuple")).claims}
    assert "draws no values of type 'tuple'" in (fdb["type tuple"].untested or "")
    orderly = {c.name: c for c in plan(get_codec("orderly")).claims}
    assert "declares no choices" in (orderly["option length"].untested or "")
    assert orderly["option encoding=fixed"].schemas  # an option with choices is planned
    # options without choices, planned through the codec's own conformance_schemas
    for option in ("option reserved_bits", "option reserved_value"):
        assert orderly[option].untested is None, orderly[option]
        assert all("reserved_bits=" in s for s in orderly[option].schemas)


class Optioned(PlugCodec):
    """``plug`` with field options: ``width`` (choices, one of which is never accepted) and
    ``salt`` (no choices)."""

    name = "optioned"
    FIELD_OPTIONS: ClassVar[Mapping[str, Option]] = {
        "width": Option(8, choices=(8, 16)),
        "salt": Option(0, check=lambda v: None if isinstance(v, int) else "an int"),
    }

    def check_field(self, index: int, field: Field, schema: KeySchema) -> None:
        if field.options.get("width") == 16:
            raise self.refuse(index, field, "width=16 is not done yet")
        super().check_field(index, field, schema)


def test_field_options_are_planned_or_said_untested() -> None:
    claims = {c.name: c for c in plan(Optioned()).claims}
    assert claims["option width=8"].schemas == ("f0:string width=8, f1:string",
                                                "f0:bytes width=8, f1:string")
    assert claims["option width=16"].untested == "no schema of its declared types binds with it"
    assert "declares no choices" in (claims["option salt"].untested or "")

    class WithOwnSchemas(Optioned):
        conformance_schemas = ("a:int64 salt=3, b:string",)

    planned = plan(WithOwnSchemas())
    claims = {c.name: c for c in planned.claims}
    assert claims["option salt"].schemas == ("a:int64 salt=3, b:string",)
    assert str(planned.schemas[-1]) == "a:int64 salt=3, b:string"  # in addition to the rest
    assert len(planned.schemas) > 1


def test_the_issue_codec_gets_its_uint32_schemas() -> None:
    """The plugin of the issue (uint32 and bool, both directions): once, only f0:bool ran."""
    texts = [str(s) for s in plan(BrokenOrderUInt32()).schemas]
    assert {"f0:uint32", "f0:uint32 desc", "f0:bool", "f0:bool desc"} <= set(texts)
    assert any(t.startswith("f0:uint32, ") for t in texts)


# -- each broken codec is caught, from pytest --------------------------------------------------


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_each_broken_codec_fails_its_claim(name: str) -> None:
    factory, column = BROKEN[name]
    codec = factory()
    caught = []
    for schema in plan(codec).schemas:
        if column == "bind":
            try:
                codec.bind(schema)
            except LexCodecError:
                caught.append(column)
            continue
        if applicable(column, codec, schema) is not None:
            continue
        try:
            run_property(column, codec, schema, settings_=QUICK)
        except ConformanceError as exc:
            caught.append(exc.check)
    assert caught, f"{name}: no planned schema caught it with the {column} check"
    assert set(caught) == {column}


def test_the_matrix_fails_the_issue_codec_and_names_the_claim() -> None:
    # ten examples: hypothesis' first is the simplest batch (NULLs), and telling which of a
    # failing schema's types is at fault takes a failure of the type's own schema too
    matrix = run_matrix([BrokenOrderUInt32(), NarrowThirdParty()], examples=10, shrink=False)
    assert not matrix.ok
    claims = matrix.claims["broken-order-uint32"]
    assert claims["type uint32"] == "FAIL: order on (f0:uint32)"
    assert claims["type uint32 desc"].startswith("FAIL: order on ")
    # bool sits next to the misordered uint32, but its own schemas pass
    assert claims["type bool"] == claims["type bool desc"] == "kept"
    assert set(matrix.claims["thirdparty-narrow"].values()) == {"kept"}
    text = matrix.render()
    assert "failures:" in text
    assert "broken-order-uint32 [f0:uint32] order: [order] broken-order-uint32" in text
    assert ALL_KEPT not in text
    assert text.splitlines()[-1] == (f"{len(matrix.failures)} failure(s): not every claim is "
                                     "shown to hold")
    data = json.loads(json.dumps(matrix.to_dict()))
    assert (data["ok"], data["complete"], data["untested"]) == (False, False, {})


def test_the_first_failure_of_a_check_is_shrunk() -> None:
    matrix = run_matrix([BrokenOrderInt8()], examples=3)
    first = next(f for f in matrix.failures if "[f0:int8] order" in f)
    assert "(-1,) < (0,) in the natural order" in first


# -- ... and from the command line, installed through an entry point -----------------------


def test_lexcodecs_conformance_fails_each_installed_broken_plugin(tmp_path: Path) -> None:
    names = [*sorted(BROKEN), "plug"]
    env = install(tmp_path, names)
    argv = [a for n in names for a in ("-c", n)]
    done = run(env, "-m", "lexcodecs", "conformance", *argv, "--json", "--examples", "2",
               "--no-shrink", "--no-progress", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stderr == ""
    data = json.loads(done.stdout)
    assert (data["ok"], data["errors"]) == (False, {})
    for name in BROKEN:
        _, column = BROKEN[name]
        failed = [schema for schema, row in data["cells"][name].items()
                  if row.get(column, "").startswith("FAIL")]
        assert failed, f"{name}: no {column} failure; cells: {data['cells'][name]}"
        assert any(v.startswith("FAIL") for v in data["claims"][name].values()), name
    # the correct plugin, in the same run, keeps every claim it makes
    assert set(data["claims"]["plug"].values()) == {"kept"}
    assert "plug" not in data["untested"]
    assert not any(v.startswith("FAIL") for row in data["cells"]["plug"].values()
                   for v in row.values())
    assert list(tmp_path.glob(".hypothesis")) == []


# -- the project's tests and docs hold with third-party codecs installed --------------------

#: the modules that list the available codecs (or once did), and from each the cheap tests
#: to run with third-party codecs installed; any of their tests parametrized over a plugin
#: is selected too, and fails the sweep (built-in tests iterate BUILTIN_CODECS)
SWEEP: dict[str, tuple[str, ...]] = {
    # the pages whose examples list the codecs (tests/test_docs.py runs every page's)
    "tests/test_docs.py": ("test_pycon_examples[README.md]", "test_pycon_examples[quickstart.md]",
                           "test_pycon_examples[choosing.md]"),
    "conformance/test_cross_codec.py": ("test_every_codec_expresses_some_schema",
                                        "test_lexkey_collisions_are_its_declared_ones"),
    "tests/test_compare.py": ("test_the_three_stores_give_the_same_report",),
    "tests/test_cli_commands.py": ("test_compare_json_has_one_result_per_codec",),
    "tests/test_huge_values.py": (),  # collected only: none of its tests on a plugin
    "tests/test_registry.py": ("test_registry",),  # the whole module
}


def test_the_project_holds_with_third_party_codecs_installed(tmp_path: Path) -> None:
    env = install(tmp_path, ["thirdparty", "thirdparty-narrow"])
    seen = run(env, "-c", "import lexcodecs; print(' '.join(lexcodecs.available_codecs()))")
    assert {"thirdparty", "thirdparty-narrow"} <= set(seen.stdout.split()), seen.stderr
    # the pages that list codecs, not the harness reference again
    chosen = " or ".join([*(name for names in SWEEP.values() for name in names), "thirdparty"])
    done = run(env, "-m", "pytest", "-n0", "-p", "no:cacheprovider", "-q", "-rA",
               "--no-header", *SWEEP, "-k", chosen)
    summary = done.stdout.strip().splitlines()[-1]
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "failed" not in summary, summary
    assert "error" not in summary, summary
    ran = [line for line in done.stdout.splitlines() if line.startswith("PASSED ")]
    for names in SWEEP.values():
        for name in names:
            assert any(name in line for line in ran), f"{name} did not run: {summary}"
    assert not [line for line in ran if "thirdparty" in line], "built-in tests ran on a plugin"
