"""The codec x property matrix of ``lexcodecs conformance``: every claim a codec declares,
tested, and the ones that cannot be tested said so.

Theory of operation: :func:`~lexcodecs.testing.claims.plan` reads a codec's declarations and
gives the schemas to check and the claims they exercise. Each schema is bound first (a
schema built from the declarations that the codec refuses contradicts them: a failure), then
checked for refusals (:func:`~lexcodecs.testing.checks.check_refusals`) and with every
property of :data:`~lexcodecs.testing.conformance.PROPERTIES`, each a hypothesis run of a
fixed number of examples, derandomized so that two runs agree. Every declared anomaly is
checked to occur.

A cell is ``ok``, ``skip: why`` (the property does not apply) or ``FAIL: why`` (the shrunk
counterexample's message). A claim is then *kept* when none of its schemas failed and the
property it needs ran on one of them, *broken* (``FAIL``) when one failed, and *untested*
with the reason otherwise -- never kept by default. ``ok`` means nothing failed;
``complete`` means every claim was also tested.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

import attrs
from hypothesis import HealthCheck, Phase, settings

from .._console import Progress, table, to_text

if TYPE_CHECKING:
    from rich.console import RenderableType
from ..codec import Codec
from ..registry import get_codec
from ..schema import KeySchema
from .checks import ConformanceError, check_anomaly, check_refusals
from .claims import Claim, Plan, plan
from .conformance import BATCH_CHECKS, PROPERTIES, applicable, run_batch_checks, run_property

__all__ = ["COLUMNS", "Matrix", "run_matrix"]

#: every cell of a schema's row, in order, with its column head: the properties, then the
#: refusals (a plain check); "bind" is a row of its own when a schema does not bind
COLUMNS: Final[Mapping[str, str]] = {
    "round_trip": "round", "order": "order", "injective": "inj", "prefix_free": "pfree",
    "prefix_range": "prange", "null_placement": "nulls", "descending": "desc",
    "decode_junk": "junk", "self_describing": "self", "schemaless": "sless",
    "columnar": "col", "refusals": "refuse",
}
assert set(COLUMNS) == {*PROPERTIES, "refusals"}

KEPT: Final = "kept"
ALL_KEPT: Final = "every codec keeps every claim it makes"
#: wider than any row: a table is never folded, nor a line of text wrapped (it is
#: right-stripped); the kept claims, one long list, fold at their own width
_WIDTH: Final = 1000
_CLAIMS_WIDTH: Final = 100


@attrs.define
class Matrix:
    """Results per codec: ``cells[codec][schema][column]`` (``ok``, ``skip: why``,
    ``FAIL: why``; ``bind`` only when the schema did not bind), ``claims[codec][claim]``
    (``kept``, ``FAIL: why``, ``untested: why``), ``anomalies[codec][name]`` (``occurs``,
    ``declared (...)``, ``FAIL: why``) and ``errors[codec]`` (a codec that did not load)."""

    cells: dict[str, dict[str, dict[str, str]]] = attrs.field(factory=dict)
    claims: dict[str, dict[str, str]] = attrs.field(factory=dict)
    anomalies: dict[str, dict[str, str]] = attrs.field(factory=dict)
    errors: dict[str, str] = attrs.field(factory=dict)

    @property
    def failures(self) -> list[str]:
        """Every failure, one line each: codec, where, and the message."""
        out = [f"{codec} [{schema}] {column}: {value[6:]}"
               for codec, by_schema in self.cells.items()
               for schema, row in by_schema.items()
               for column, value in row.items() if value.startswith("FAIL")]
        out += [f"{codec} anomaly {name}: {value[6:]}"
                for codec, found in self.anomalies.items()
                for name, value in found.items() if value.startswith("FAIL")]
        return out + [f"{codec}: {error}" for codec, error in self.errors.items()]

    @property
    def untested(self) -> dict[str, dict[str, str]]:
        """``untested[codec][claim]``: why that declared claim was not tested."""
        return {codec: found for codec, found in (
            (codec, {claim: value.removeprefix("untested: ")
                     for claim, value in by_claim.items() if value.startswith("untested")})
            for codec, by_claim in self.claims.items()) if found}

    @property
    def ok(self) -> bool:
        """Nothing failed (claims may still be untested: see :attr:`complete`)."""
        return not self.failures

    @property
    def complete(self) -> bool:
        """Nothing failed and every declared claim was tested."""
        return self.ok and not self.untested

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "complete": self.complete, "cells": self.cells,
                "claims": self.claims, "untested": self.untested,
                "anomalies": self.anomalies, "errors": self.errors}

    def renderables(self) -> list[RenderableType | str]:
        """The report: the legend, then per codec its schema x property table, its claims
        and anomalies; then the failures, the untested claims and a verdict line."""
        legend = ", ".join(f"{short}={name}" for name, short in COLUMNS.items())
        out: list[RenderableType | str] = [
            f"properties: {legend}",
            "cells: ok, - (does not apply), FAIL; claims: kept, FAIL, untested", ""]
        for codec, by_schema in self.cells.items():
            claims = table(["result", "claims"], _claim_rows(self.claims.get(codec, {})),
                           title=f"{codec}: declared claims", justify=["left", "left"])
            claims.columns[1].max_width = _CLAIMS_WIDTH
            out += [_schema_table(codec, by_schema), "", claims]
            found = self.anomalies.get(codec, {})
            if found:
                out += ["", table(["anomaly", "result"], found.items(),
                                  title=f"{codec}: declared anomalies",
                                  justify=["left", "left"])]
            out.append("")
        failures, untested = self.failures, self.untested
        if failures:
            out += ["failures:", *(f"  {line}" for line in failures), ""]
        if untested:
            out += ["untested claims (declared, but not checked; never counted as kept):",
                    *(f"  {codec}: {claim}: {why}" for codec, found in untested.items()
                      for claim, why in found.items()), ""]
        out.append(self.verdict())
        return out

    def verdict(self) -> str:
        """One line: whether every claim was kept, or how many failed or went untested."""
        if self.complete:
            return ALL_KEPT
        broken = len(self.failures)
        open_ = sum(len(found) for found in self.untested.values())
        parts = [f"{broken} failure(s)"] if broken else ["no failure"]
        if open_:
            parts.append(f"{open_} declared claim(s) untested")
        return "; ".join(parts) + ": not every claim is shown to hold"

    def render(self) -> str:
        return to_text(*self.renderables(), width=_WIDTH)


def _schema_table(codec: str, by_schema: Mapping[str, Mapping[str, str]]) -> Any:
    def mark(value: str | None) -> str:
        if value is None or value.startswith("skip"):
            return "-"
        return "ok" if value == "ok" else "FAIL"

    rows = []
    for schema, row in by_schema.items():
        if "bind" in row:
            rows.append([schema, *(["FAIL (bind)"] + ["" for _ in range(len(COLUMNS) - 1)])])
        else:
            rows.append([schema, *(mark(row.get(column)) for column in COLUMNS)])
    return table(["schema", *COLUMNS.values()], rows, title=codec,
                 justify=["left"] * (len(COLUMNS) + 1))


def _claim_rows(claims: Mapping[str, str]) -> Iterable[tuple[str, str]]:
    """Each broken claim, then each untested one, with why; then the kept ones together."""
    rows = [(head, f"{claim}: {value.removeprefix(prefix)}")
            for head, prefix in (("FAIL", "FAIL: "), ("untested", "untested: "))
            for claim, value in claims.items() if value.startswith(prefix)]
    kept = [claim for claim, value in claims.items() if value == KEPT]
    if kept:
        rows.append((f"{KEPT} ({len(kept)})", ", ".join(kept)))
    return rows


def run_matrix(codecs: Sequence[str | Codec], *, examples: int = 10, shrink: bool = True,
               progress: Progress | None = None) -> Matrix:
    """Check every codec of *codecs* (names, or codec objects) on its planned schemas.

    *examples* is hypothesis's number of examples per property and schema. A failure is
    shrunk to a small counterexample the first time its property fails for a codec (later
    failures of that property show the example as found: shrinking is most of the cost of
    a broken codec); never when *shrink* is false. *progress*, when given, has its total
    set and is updated after each schema.
    """
    config = settings(max_examples=examples, derandomize=True, deadline=None, database=None,
                      print_blob=False, suppress_health_check=list(HealthCheck))
    quick = settings(config, phases=[p for p in config.phases if p != Phase.shrink])
    matrix = Matrix()
    loaded: list[tuple[str, Codec, Plan]] = []
    for entry in codecs:
        name = entry if isinstance(entry, str) else entry.name
        try:
            codec = get_codec(entry) if isinstance(entry, str) else entry
            loaded.append((name, codec, plan(codec)))
        except Exception as exc:  # a broken plugin must not hide the others
            matrix.errors[name] = f"{type(exc).__name__}: {_first_line(exc)}"
    total = sum(len(p.schemas) for _, _, p in loaded) * len(COLUMNS)
    if progress is not None:
        progress.set_total(total)
    done = 0
    for name, codec, planned in loaded:
        by_schema: dict[str, dict[str, str]] = {}
        shrunk: set[str] = set() if shrink else set(PROPERTIES)
        for schema in planned.schemas:
            row = _check_schema(codec, schema, config, quick, shrunk)
            shrunk.update(p for p, value in row.items() if value.startswith("FAIL"))
            by_schema[str(schema)] = row
            done += len(COLUMNS)
            if progress is not None:
                progress.update(done)
        matrix.cells[name] = by_schema
        matrix.claims[name] = _judge(planned.claims, by_schema)
        matrix.anomalies[name] = _anomalies(codec)
    return matrix


def _check_schema(codec: Codec, schema: KeySchema, config: settings, quick: settings,
                  shrunk: set[str]) -> dict[str, str]:
    """One schema's row: every column, or a ``bind`` failure alone. Properties in *shrunk*
    run with the *quick* settings (no shrinking)."""
    try:
        codec.bind(schema)
    except Exception as exc:
        return {"bind": f"FAIL: the codec refuses a schema its declarations allow: "
                        f"{type(exc).__name__}: {_first_line(exc)}"}
    row: dict[str, str] = {}
    reasons = {prop: applicable(prop, codec, schema) for prop in PROPERTIES}
    # the batch checks share their draws: one run for all of them while they pass; when
    # one fails, the others run on their own
    together = [p for p in BATCH_CHECKS if reasons[p] is None]
    if together:
        try:
            run_batch_checks(together, codec, schema, settings_=settings(
                quick if shrunk.intersection(together) else config, report_multiple_bugs=False))
            row.update(dict.fromkeys(together, "ok"))
        except ConformanceError as exc:
            row[exc.check] = f"FAIL: {_first_line(exc)}"
        except Exception:
            pass  # not a check's verdict: each runs alone below, and says which
    for prop, reason in reasons.items():
        if reason is not None:
            row[prop] = f"skip: {reason}"
        elif prop not in row:
            row[prop] = _run(prop, codec, schema, quick if prop in shrunk else config)
    row = {prop: row[prop] for prop in PROPERTIES}
    try:
        check_refusals(codec, schema)
        row["refusals"] = "ok"
    except ConformanceError as exc:
        row["refusals"] = f"FAIL: {_first_line(exc)}"
    return row


def _judge(claims: Sequence[Claim], by_schema: Mapping[str, Mapping[str, str]]
           ) -> dict[str, str]:
    """Each claim's result from the cells of its schemas.

    A claim is broken by a failure of one of its ``breaks`` columns on one of its schemas,
    except a failure on a schema of several fields that another claim's failure on a schema
    of one field, in the same column, explains (bool next to a misordered uint32 keeps its
    order claim).
    """
    def failures(claim: Claim) -> list[tuple[str, str]]:
        return [(schema, column) for schema in claim.schemas
                for column, value in by_schema[schema].items()
                if value.startswith("FAIL") and (column in claim.breaks if claim.breaks
                                                 is not None else column != "refusals")]

    # failures on one-field schemas, of the claims about fields (types, directions, options)
    alone = {(claim.name, column) for claim in claims if claim.breaks is None
             for schema, column in failures(claim) if len(KeySchema.parse(schema)) == 1}
    out: dict[str, str] = {}
    for claim in claims:
        if claim.untested is not None:
            out[claim.name] = f"untested: {claim.untested}"
            continue
        if not claim.schemas:
            out[claim.name] = "untested: no planned schema exercises it"
            continue
        for schema, column in failures(claim):
            explained = len(KeySchema.parse(schema)) > 1 and any(
                (other.name, column) in alone for other in claims
                if other is not claim and schema in other.schemas)
            if not explained:
                out[claim.name] = f"FAIL: {COLUMNS.get(column, column)} on ({schema})"
                break
        else:
            out[claim.name] = _tested(claim, by_schema)
    return out


def _tested(claim: Claim, by_schema: Mapping[str, Mapping[str, str]]) -> str:
    """``kept`` when the property the claim needs ran on one of its schemas."""
    for schema in claim.schemas:
        row = by_schema[schema]
        if (claim.needs is None and "ok" in row.values()) or row.get(claim.needs or "") == "ok":
            return KEPT
    reasons = sorted({by_schema[s].get(claim.needs or "", "") for s in claim.schemas})
    return f"untested: {claim.needs} did not apply ({reasons[0].removeprefix('skip: ')})"


def _anomalies(codec: Codec) -> dict[str, str]:
    found: dict[str, str] = {}
    for anomaly in codec.capabilities.anomalies:
        try:
            check_anomaly(codec, anomaly)
            found[anomaly.name] = ("occurs" if anomaly.kind != "interop"
                                   else "declared (interop: shown by the vectors)")
        except ConformanceError as exc:
            found[anomaly.name] = f"FAIL: {_first_line(exc)}"
    return found


def _run(prop: str, codec: Codec, schema: KeySchema, config: settings) -> str:
    try:
        run_property(prop, codec, schema, settings_=config)
    except ConformanceError as exc:
        return f"FAIL: {_first_line(exc)}"
    except Exception as exc:
        return f"FAIL: {type(exc).__name__}: {_first_line(exc)}"
    return "ok"


def _first_line(exc: BaseException) -> str:
    text = str(exc)
    return text.splitlines()[0] if text else ""
