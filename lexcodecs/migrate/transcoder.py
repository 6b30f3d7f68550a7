"""The transcoder: source keys to target keys for one schema, every new key checked.

Theory of operation: a :class:`Transcoder` decodes a key with the source codec and encodes the
values with the target codec, both bound to one schema. It refuses at construction when the
source cannot decode that schema, and it checks every new key: decoded by the target, it must
give back the values the old key held (a target that cannot hold them is a refusal, never a
silent change). It pickles as its codecs' configs and the schema, so a process pool or Dask
can ship it to workers (:func:`transcode_partition`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final

from ..codec import Codec
from ..errors import LexCodecError, NotDecodableError, describe_value
from ..model import ModelError, identical, model_equal
from ..registry import get_codec
from ..schema import KeySchema

__all__ = ["MigrationError", "Transcoder", "same_settings", "target_refusal",
           "transcode_partition"]


class MigrationError(LexCodecError):
    """A migration cannot go on; the original data is untouched (the message says why)."""

    __module__ = "lexcodecs.migrate"  # its public home, as tracebacks and docs name it


def _as_codec(codec: Codec | str | Mapping[str, Any]) -> Codec:
    if isinstance(codec, str):
        return get_codec(codec)
    if isinstance(codec, Mapping):
        return get_codec(**codec)
    return codec


class Transcoder:
    """Source keys to target keys for one schema; picklable, for process pools and Dask.

    *source* and *target* are codecs, registry names or ``config()`` dicts.

    >>> t = Transcoder("fdb-tuple", "skv", "tenant:string, n:int64")
    >>> t.transcode(bytes.fromhex("02 61 63 6d 65 00 15 2a")).hex(" ")
    '01 61 63 6d 65 00 01 04 03 00 00 00 00 00 00 00 2a 00 01'
    """

    def __init__(self, source: Codec | str | Mapping[str, Any],
                 target: Codec | str | Mapping[str, Any], schema: KeySchema | str | Any, *,
                 check: bool = True) -> None:
        self.source = _as_codec(source)
        self.target = _as_codec(target)
        self.schema = KeySchema.coerce(schema)
        self.check = check
        if self.source.capabilities.decoding == "none":
            raise NotDecodableError("the source format cannot be decoded, so its keys cannot "
                                    "be transcoded", codec=self.source.name)
        self._source = self.source.bind(self.schema)
        self._target = self.target.bind(self.schema)
        try:
            self._source.decode(b"")
        except NotDecodableError as exc:
            raise NotDecodableError(f"the source cannot decode keys of this schema: "
                                    f"{exc.reason}", codec=self.source.name,
                                    expected=exc.expected) from None
        except LexCodecError:
            pass  # b"" is not a key; the schema itself decodes
        self._policy = self.source.capabilities.float_policy

    def __repr__(self) -> str:
        return f"Transcoder({self.source.name!r} -> {self.target.name!r}, [{self.schema}])"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_transcoder, (self.source.config(), self.target.config(),
                                      self.schema.to_dict(), self.check))

    def values(self, key: bytes) -> tuple[Any, ...]:
        """The values of a source key."""
        return self._source.decode(key)

    def encode(self, values: tuple[Any, ...]) -> bytes:
        """The target key of *values*, checked to decode back to them."""
        new = self._target.encode(values)
        if self.check:
            back = self._target.decode(new)
            if not _same_values(values, back, self.schema, self._policy):
                raise MigrationError(
                    f"the target cannot hold these values: {values!r} is written "
                    f"{new.hex(' ')}, which decodes to {back!r}", codec=self.target.name)
        return new

    def transcode(self, key: bytes) -> bytes:
        """The target key holding the values of the source *key*."""
        return self.encode(self.values(key))

    def transcode_many(self, keys: Iterable[bytes]) -> Iterator[bytes]:
        """Transcode a stream of keys lazily (a Dask partition, a file, a cursor)."""
        for key in keys:
            yield self.transcode(key)


def target_refusal(t: Transcoder, exc: LexCodecError, dry_run: str) -> str:
    """The hint that ends a refusal of values by the target (*exc*, raised by
    :meth:`Transcoder.encode` for values the source read): the target codec, the value and
    the field, as the error names them (the value cut as the error cuts it), and the dry run
    that finds every key the target refuses without writing (``--dry-run``, or the library's
    function *dry_run*). It clears the source: its codec, options and schema read the key."""
    what = (f"the value {describe_value(exc.value)}" if exc.has_value
            else "the values it decodes to")
    if exc.field is not None or exc.field_name:
        what += " of field" + ("" if exc.field is None else f" {exc.field}") + (
            f" {exc.field_name!r}" if exc.field_name else "")
    return (f"the source read the key, but the target codec {exc.codec or t.target.name} "
            f"refused {what}; --dry-run ({dry_run}) finds every key the target refuses, "
            "writing nothing")


def _rebuild_transcoder(source: dict[str, Any], target: dict[str, Any],
                        schema: dict[str, Any], check: bool) -> Transcoder:
    return Transcoder(source, target, KeySchema.from_dict(schema), check=check)


#: the types whose ``==`` is the model's equality, and whose Python order is the natural
#: order for an ascending field: exact str, bytes, int and None (None compared to None);
#: the migration's kernel and verification use the same set
_PLAIN: Final[frozenset[type]] = frozenset({str, bytes, int, type(None)})
#: memo: whether a tuple of value types holds plain types only (few distinct tuples occur)
_plain_types: dict[tuple[type, ...], bool] = {}


def _same_values(a: tuple[Any, ...], b: tuple[Any, ...], schema: KeySchema,
                 policy: Any) -> bool:
    # the usual case, cheaply: equal, of the same types, and no zero whose sign may differ
    # (-0.0 == 0.0 for Python, but not for every codec's model); once per key of a
    # migration, so the types are compared as one tuple and judged once per tuple of types
    if a == b:
        types = tuple(map(type, a))
        if types == tuple(map(type, b)):
            plain = _plain_types.get(types)
            if plain is None:
                plain = _plain_types.setdefault(types, all(t in _PLAIN for t in types))
            if plain or not any(type(x) is float and x == 0.0 for x in a):
                return True
    try:
        return model_equal(a, b, schema, policy)
    except ModelError:
        return identical(a, b)


def transcode_partition(keys: Iterable[bytes], transcoder: Transcoder) -> list[bytes]:
    """One partition's keys, transcoded, for Dask and friends::

        dask.bag.from_sequence(keys, npartitions=8).map_partitions(
            transcode_partition, transcoder).compute(scheduler="processes")
    """
    return list(transcoder.transcode_many(keys))


def same_settings(saved: Mapping[str, Any], current: Mapping[str, Any]) -> bool:
    """Whether an unfinished migration's recorded settings are this run's: the same schema (and
    key column), and codecs that are equal once rebuilt from their configs, so that an option a
    codec gained since (at its default) is no difference, while a changed one is."""
    plain = [{k: v for k, v in d.items() if k not in ("source", "target")}
             for d in (saved, current)]
    if plain[0] != plain[1]:
        return False
    for side in ("source", "target"):
        try:
            if get_codec(**saved[side]) != get_codec(**current[side]):
                return False
        except (LexCodecError, KeyError, TypeError):
            return False
    return True

