"""What a comparison measured, codec by codec: frozen records, each with its JSON form.

Theory of operation: :func:`lexcodecs.compare.measure.measure` fills one
:class:`CodecResult` per codec that expresses the schema; a codec that cannot has only its
:class:`Blocker` list. The parts (:class:`KeySize`, :class:`Timing`, :class:`PrefixScan`,
:class:`SampleKey`) are separate records so that the report, the verdict and the HTML report
read one shape. ``to_dict()`` is the data contract of ``lexcodecs compare --json`` and of the
HTML report: keys are added, never renamed (docs/choosing.md lists them).
"""

from __future__ import annotations

from typing import Any

import attrs

__all__ = [
    "Blocker",
    "CodecResult",
    "KeySize",
    "PrefixScan",
    "SampleKey",
    "SamplePart",
    "Timing",
]


def _tuple(items: Any) -> tuple[Any, ...]:
    return tuple(items)


@attrs.frozen
class Blocker:
    """One thing a codec cannot do with the schema: a field (or, ``index=None``, the schema
    as a whole), the problem, and the nearest workaround (``None``: there is none).

    ``exact`` is whether the workaround keeps every value and the order exactly (``None``
    when there is no workaround).
    """

    field: str | None
    index: int | None
    problem: str
    workaround: str | None = None
    exact: bool | None = None

    def where(self) -> str:
        return "the schema" if self.index is None else f"field {self.index} {self.field!r}"

    def to_text(self) -> str:
        text = f"{self.where()}: {self.problem}"
        if self.workaround is None:
            return text + "; no workaround"
        return text + f"; workaround: {self.workaround}" + (
            " (inexact)" if self.exact is False else "")

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "index": self.index, "problem": self.problem,
                "workaround": self.workaround, "exact": self.exact}


@attrs.frozen
class KeySize:
    """Key lengths in bytes over the accepted records; ``histogram``: (size, count), sorted."""

    min: int
    mean: float
    p50: int
    p99: int
    max: int
    histogram: tuple[tuple[int, int], ...] = attrs.field(converter=_tuple)

    @classmethod
    def of(cls, sizes: list[int]) -> KeySize:
        ordered = sorted(sizes)
        counts: dict[int, int] = {}
        for size in ordered:
            counts[size] = counts.get(size, 0) + 1
        return cls(ordered[0], sum(ordered) / len(ordered), percentile(ordered, 50),
                   percentile(ordered, 99), ordered[-1], tuple(counts.items()))

    def to_dict(self) -> dict[str, Any]:
        return {"min": self.min, "mean": self.mean, "p50": self.p50, "p99": self.p99,
                "max": self.max, "histogram": [list(pair) for pair in self.histogram]}


def percentile(ordered: list[Any], p: float) -> Any:
    """The nearest-rank *p*-th percentile of a sorted, non-empty list."""
    rank = max(1, -(-len(ordered) * p // 100))  # ceil(n * p / 100), at least the first
    return ordered[int(rank) - 1]


@attrs.frozen
class Timing:
    """Nanoseconds per key: ``loops`` are the timed loops over every record, each divided by
    their number, in the order they ran, and ``batch`` is the fastest of them; ``p50``/``p99``
    are over records, each record's time the least of a few runs, less the cost of reading
    the clock. The spread of the loops is the noise the verdict weighs speed against."""

    batch: float
    p50: float
    p99: float
    loops: tuple[float, ...] = attrs.field(default=(), converter=_tuple)

    @property
    def slowest(self) -> float:
        """The slowest loop (``batch`` when the loops were not kept)."""
        return max(self.loops, default=self.batch)

    def to_dict(self) -> dict[str, Any]:
        return {"batch": self.batch, "p50": self.p50, "p99": self.p99,
                "loops": list(self.loops)}


@attrs.frozen
class PrefixScan:
    """Range scans over ``prefix_range`` of the first ``fields`` values of sampled records:
    ``leaked`` keys the scans returned whose records do not start with the prefix, ``missed``
    records that start with it but were not returned (``error``: prefix_range refused)."""

    fields: int
    prefixes: int
    leaked: int = 0
    missed: int = 0
    example: str | None = None
    error: str | None = None

    @property
    def exact(self) -> bool:
        return self.error is None and not self.leaked and not self.missed

    def to_dict(self) -> dict[str, Any]:
        return {"fields": self.fields, "prefixes": self.prefixes, "exact": self.exact,
                "leaked": self.leaked, "missed": self.missed, "example": self.example,
                "error": self.error}


@attrs.frozen
class SamplePart:
    """Bytes of a sample key and what they are, from ``inspect``."""

    span: str
    hex: str
    role: str
    text: str
    #: the name of the field the bytes belong to
    field: str = ""

    def to_dict(self) -> dict[str, Any]:
        return attrs.asdict(self)


@attrs.frozen
class SampleKey:
    """One record's key, annotated as ``lexcodecs inspect`` does."""

    values: str
    hex: str
    parts: tuple[SamplePart, ...] = attrs.field(default=(), converter=_tuple)

    def to_dict(self) -> dict[str, Any]:
        return {"values": self.values, "hex": self.hex,
                "parts": [p.to_dict() for p in self.parts]}


@attrs.frozen
class CodecResult:
    """What one codec did with the records. A codec that cannot express the schema has
    ``expressible=False`` and its ``blockers``; everything else is left at its default."""

    codec: str
    expressible: bool
    blockers: tuple[Blocker, ...] = attrs.field(default=(), converter=_tuple)
    notes: str = ""
    self_describing: bool = False
    #: "self-describing", "schema" or "none", as the codec declares
    decoding: str = "schema"
    readers: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    #: the bound codec is the compiled class of its package (``lexcodecs._impl``)
    compiled: bool = False
    store: str = "sqlite"
    records: int = 0
    refused: int = 0
    refused_examples: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    key_size: KeySize | None = None
    encode_ns: Timing | None = None
    decode_ns: Timing | None = None
    round_trip_failures: int | None = None
    #: round-trip failures no declared anomaly explains
    round_trip_unexplained: int = 0
    round_trip_example: str | None = None
    collisions: int = 0
    #: collisions no declared anomaly explains
    collisions_unexplained: int = 0
    collision_example: str | None = None
    order_pairs_wrong: int = 0
    #: adjacent disagreements in store order, by the declared anomaly that explains them
    order_explained: dict[str, int] = attrs.field(factory=dict)
    #: adjacent disagreements no declared anomaly explains: a codec bug, or a missing claim
    order_unexplained: int = 0
    order_example: str | None = None
    prefix_scans: tuple[PrefixScan, ...] = attrs.field(default=(), converter=_tuple)
    anomalies: tuple[tuple[str, str, str], ...] = attrs.field(default=(), converter=_tuple)
    sample_keys: tuple[SampleKey, ...] = attrs.field(default=(), converter=_tuple)

    @property
    def reason(self) -> str | None:
        """Why the schema cannot be expressed: every blocker, in one line."""
        if self.expressible:
            return None
        return "; ".join(f"{b.where()}: {b.problem}" for b in self.blockers) or \
            "the codec cannot express the schema"

    @property
    def refused_example(self) -> str | None:
        return self.refused_examples[0] if self.refused_examples else None

    @property
    def key_bytes_mean(self) -> float | None:
        return None if self.key_size is None else self.key_size.mean

    @property
    def key_bytes_max(self) -> int | None:
        return None if self.key_size is None else self.key_size.max

    @property
    def measured(self) -> bool:
        """It expressed the schema and accepted at least one record to measure."""
        return self.expressible and self.records > 0

    @property
    def sound(self) -> bool:
        """On the records it accepted: no pair out of order, no collision, no round trip
        that failed (a declared anomaly still counts: the data is what it is)."""
        return self.measured and not self.order_pairs_wrong and not self.collisions and \
            not self.round_trip_failures

    @property
    def agrees(self) -> bool:
        """:attr:`sound`: never true when nothing was measured (every record refused)."""
        return self.sound

    @property
    def prefix_exact(self) -> bool:
        return all(scan.exact for scan in self.prefix_scans)

    def to_dict(self) -> dict[str, Any]:
        return {
            "codec": self.codec,
            "expressible": self.expressible,
            "reason": self.reason,
            "blockers": [b.to_dict() for b in self.blockers],
            "notes": self.notes,
            "self_describing": self.self_describing,
            "decoding": self.decoding,
            "readers": list(self.readers),
            "compiled": self.compiled,
            "store": self.store,
            "ok": self.agrees,
            "records": self.records,
            "refused": self.refused,
            "refused_example": self.refused_example,
            "refused_examples": list(self.refused_examples),
            "key_size": None if self.key_size is None else self.key_size.to_dict(),
            "encode_ns": None if self.encode_ns is None else self.encode_ns.to_dict(),
            "decode_ns": None if self.decode_ns is None else self.decode_ns.to_dict(),
            "round_trip_failures": self.round_trip_failures,
            "round_trip_unexplained": self.round_trip_unexplained,
            "round_trip_example": self.round_trip_example,
            "collisions": self.collisions,
            "collisions_unexplained": self.collisions_unexplained,
            "collision_example": self.collision_example,
            "order_pairs_wrong": self.order_pairs_wrong,
            "order_explained": dict(self.order_explained),
            "order_unexplained": self.order_unexplained,
            "order_example": self.order_example,
            "prefix_scans": [s.to_dict() for s in self.prefix_scans],
            "anomalies": [{"name": n, "kind": k, "description": d}
                          for n, k, d in self.anomalies],
            "sample_keys": [k.to_dict() for k in self.sample_keys],
        }
