"""Comparing codecs on one schema and one set of records, to choose a key format.

Theory of operation: every codec (plugins included) is asked to bind the schema. One that
cannot is listed with *every* blocker, field by field, and the nearest workaround
(:mod:`~lexcodecs.compare.blockers`). One that can encodes every record -- a value it refuses
is counted, with examples -- and then its claims are measured rather than read
(:mod:`~lexcodecs.compare.measure`): key sizes, encode and decode speed (batch and per
record), the round trip, collisions, the order of the keys in a real sorted store (SQLite,
LMDB or memory, :mod:`~lexcodecs.compare.stores`) against the natural order of the values
(:mod:`lexcodecs.model`), and prefix scans per leading field count. The verdict
(:mod:`~lexcodecs.compare.verdict`) ranks what was measured by a table of criteria and
recommends one codec, with the runners-up and what the others cannot do; when no codec
expresses the schema, the closest one is measured on the schema its workarounds give.

Records are generated from the schema with the values keys go wrong on, or given
(:mod:`~lexcodecs.compare.records`; JSON Lines and the other inputs:
:mod:`lexcodecs.sources`). The report (:mod:`~lexcodecs.compare.report`) is a JSON-able dict,
a terminal report, plain text and markdown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from .._lazy import exports
from .defaults import DEFAULT_SCHEMA, STORES

if TYPE_CHECKING:
    from .blockers import DESCENDING, TYPE_SUBSTITUTES, Plan
    from .html import render_html, write_html
    from .measure import is_compiled
    from .records import generate_records, records_from_json
    from .report import Comparison
    from .results import Blocker, CodecResult, KeySize, PrefixScan, SampleKey, SamplePart, Timing
    from .run import ProgressSink, compare
    from .verdict import CLOSEST_RANKING, RANKING, Criterion, Verdict

#: every other name of ``__all__`` -> the module it is imported from on first use (PEP 562):
#: importing the comparison is about half of what starting the command line costs, and only
#: ``lexcodecs compare`` needs it
_LAZY: Final = {
    "DESCENDING": "blockers", "TYPE_SUBSTITUTES": "blockers", "Plan": "blockers",
    "is_compiled": "measure", "render_html": "html", "write_html": "html",
    "generate_records": "records", "records_from_json": "records",
    "Comparison": "report",
    "Blocker": "results", "CodecResult": "results", "KeySize": "results",
    "PrefixScan": "results", "SampleKey": "results", "SamplePart": "results",
    "Timing": "results",
    "ProgressSink": "run", "compare": "run",
    "CLOSEST_RANKING": "verdict", "RANKING": "verdict", "Criterion": "verdict",
    "Verdict": "verdict",
}


__getattr__, __dir__ = exports(__name__, _LAZY)

__all__ = [
    "CLOSEST_RANKING",
    "DEFAULT_SCHEMA",
    "DESCENDING",
    "RANKING",
    "STORES",
    "TYPE_SUBSTITUTES",
    "Blocker",
    "CodecResult",
    "Comparison",
    "Criterion",
    "KeySize",
    "Plan",
    "PrefixScan",
    "ProgressSink",
    "SampleKey",
    "SamplePart",
    "Timing",
    "Verdict",
    "compare",
    "generate_records",
    "is_compiled",
    "records_from_json",
    "render_html",
    "write_html",
]
