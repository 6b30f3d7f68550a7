"""The codec x property matrix of ``lexcodecs conformance``: the harness on installed codecs.

Theory of operation: each codec is checked on a few schemas -- its own
``conformance_schemas`` when it has that attribute, else ones built from its capabilities
(up to four of its types, then the same with every other field descending, then with NULLs
last where it can place them) -- with every property of
:data:`~lexcodecs.testing.conformance.PROPERTIES`, each a hypothesis run of a fixed number of
examples, derandomized so that two runs agree. Every declared anomaly is checked to occur.
A property that does not apply is a skip with its reason; a failure keeps the shrunk
counterexample's message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import attrs
from hypothesis import HealthCheck, settings

from ..codec import Codec
from ..registry import get_codec
from ..schema import KeySchema
from .checks import ConformanceError, check_anomaly
from .conformance import PROPERTIES, applicable, run_property

__all__ = ["Matrix", "run_matrix", "schemas_for"]

#: field types in the order automatic schemas take them
_PREFERRED: Final = ("string", "int64", "float64", "bytes", "bool", "uuid", "int32", "decimal",
                     "uint64", "float32", "timestamp", "duration", "int")
#: column heads of the rendered matrix
_SHORT: Final = {"round_trip": "round", "order": "order", "injective": "inj",
                 "prefix_free": "pfree", "prefix_range": "prange", "null_placement": "nulls",
                 "descending": "desc", "decode_junk": "junk", "self_describing": "self"}


def schemas_for(codec: Codec) -> list[KeySchema]:
    """The schemas ``lexcodecs conformance`` checks *codec* with."""
    custom = getattr(codec, "conformance_schemas", None)
    if custom:
        return [KeySchema.coerce(s) for s in custom]
    caps = codec.capabilities
    types: list[str] = [str(t) for t in _PREFERRED if t in caps.field_types][:4]
    if not types:
        types = sorted(caps.field_types)[:4]
    fields = [f"f{i}:{t}" for i, t in enumerate(types)]
    texts = [", ".join(fields)]
    if caps.descending and len(fields) > 1:
        texts.append(", ".join(f + (" desc" if i % 2 else "") for i, f in enumerate(fields)))
    if caps.nulls == "both":
        texts.append(", ".join(f + (" nulls last" if i == 0 else "")
                               for i, f in enumerate(fields)))
    # a format that decodes one variable-length field at most (LexKey) gets one with only
    # the string, and the next types in place of bytes
    rest = [t for t in _PREFERRED if t in caps.field_types and t not in types]
    if "string" in types and "bytes" in types and rest:
        swapped = [rest[0] if t == "bytes" else t for t in types]
        texts.append(", ".join(f"f{i}:{t}" for i, t in enumerate(swapped)))
    return [KeySchema.parse(t) for t in texts]


@attrs.define
class Matrix:
    """Results: ``cells[codec][schema][property]`` is ``ok``, ``skip: why`` or ``FAIL: why``;
    ``anomalies[codec][name]`` is ``occurs`` or ``FAIL: why``."""

    cells: dict[str, dict[str, dict[str, str]]] = attrs.field(factory=dict)
    anomalies: dict[str, dict[str, str]] = attrs.field(factory=dict)
    errors: dict[str, str] = attrs.field(factory=dict)

    @property
    def ok(self) -> bool:
        every = [v for c in self.cells.values() for s in c.values() for v in s.values()]
        every += [v for c in self.anomalies.values() for v in c.values()]
        return not self.errors and not any(v.startswith("FAIL") for v in every)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "cells": self.cells, "anomalies": self.anomalies,
                "errors": self.errors}

    def render(self) -> str:
        names = list(PROPERTIES)
        lines = ["properties: " + ", ".join(f"{_SHORT[n]}={n}" for n in names),
                 "cells: ok, - (does not apply), FAIL", ""]
        details: list[str] = []
        for codec, by_schema in self.cells.items():
            lines.append(codec)
            width = max(len(s) for s in by_schema)
            lines.append("  " + "schema".ljust(width) + "  "
                         + "  ".join(_SHORT[n].ljust(6) for n in names))
            for schema, results in by_schema.items():
                marks = []
                for n in names:
                    value = results.get(n, "-")
                    mark = "ok" if value == "ok" else "-" if value.startswith("skip") \
                        else "FAIL"
                    marks.append(mark.ljust(6))
                    if mark == "FAIL":
                        details.append(f"{codec} [{schema}] {n}: {value[6:]}")
                lines.append("  " + schema.ljust(width) + "  " + "  ".join(marks))
            for name, value in self.anomalies.get(codec, {}).items():
                lines.append(f"  anomaly {name}: {value}")
                if value.startswith("FAIL"):
                    details.append(f"{codec} anomaly {name}: {value[6:]}")
            lines.append("")
        for codec, error in self.errors.items():
            details.append(f"{codec}: {error}")
        if details:
            lines += ["failures:", *("  " + d for d in details)]
        else:
            lines.append("every codec keeps every claim it makes")
        return "\n".join(lines).rstrip()


def run_matrix(names: Sequence[str], *, examples: int = 30,
               progress: Callable[[int], None] | None = None) -> Matrix:
    """Check every codec of *names* on its schemas with every property."""
    config = settings(max_examples=examples, derandomize=True, deadline=None, database=None,
                      suppress_health_check=list(HealthCheck))
    matrix = Matrix()
    done = 0
    for name in names:
        try:
            codec = get_codec(name)
            schemas = schemas_for(codec)
        except Exception as exc:  # a broken plugin must not hide the others
            matrix.errors[name] = f"{type(exc).__name__}: {exc}"
            continue
        by_schema: dict[str, dict[str, str]] = {}
        for schema in schemas:
            results: dict[str, str] = {}
            for prop in PROPERTIES:
                reason = applicable(prop, codec, schema)
                if reason is not None:
                    results[prop] = f"skip: {reason}"
                else:
                    results[prop] = _run(prop, codec, schema, config)
                done += 1
                if progress is not None:
                    progress(done)
            by_schema[str(schema)] = results
        matrix.cells[name] = by_schema
        matrix.anomalies[name] = {}
        for anomaly in codec.capabilities.anomalies:
            try:
                check_anomaly(codec, anomaly)
                shown = "occurs" if anomaly.kind != "interop" else "declared (interop: " \
                    "shown by the vectors)"
                matrix.anomalies[name][anomaly.name] = shown
            except ConformanceError as exc:
                matrix.anomalies[name][anomaly.name] = f"FAIL: {exc}"
    return matrix


def _run(prop: str, codec: Codec, schema: KeySchema, config: settings) -> str:
    try:
        run_property(prop, codec, schema, settings_=config)
    except ConformanceError as exc:
        return f"FAIL: {str(exc).splitlines()[0]}"
    except Exception as exc:
        return f"FAIL: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return "ok"
