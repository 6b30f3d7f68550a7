"""The codec registry: names to codec factories, with plugins found through entry points.

Theory of operation: a registry maps a codec name to a *factory* (usually the codec class)
called with the codec's options. Names come from three places, looked up in this order:

1. codecs registered in code with :func:`register_codec` (decorator or call);
2. the built-in codecs of lexcodecs, listed in :data:`BUILTIN_CODECS` as import paths so that
   ``import lexcodecs`` imports none of them;
3. the ``lexcodecs.codecs`` entry point group of installed distributions, read lazily the
   first time a name is not found or the full list is asked for.

Nothing is replaced silently: registering a name that is taken (by code, a built-in or a
plugin) raises :class:`~lexcodecs.errors.RegistryError` unless ``replace=True``, and two
installed plugins claiming one name is an error that names both distributions.
"""

from __future__ import annotations

import difflib
import importlib
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, TypeVar, overload

import attrs

from .codec import Codec
from .errors import RegistryError, UnknownCodecError

__all__ = [
    "BUILTIN_CODECS",
    "ENTRY_POINT_GROUP",
    "CodecSource",
    "Registry",
    "available_codecs",
    "default_registry",
    "get_codec",
    "register_codec",
    "unregister",
]

ENTRY_POINT_GROUP: Final = "lexcodecs.codecs"

#: Built-in codecs: name -> "module:attribute", imported on first use.
BUILTIN_CODECS: Final[Mapping[str, str]] = {
    "fdb-tuple": "lexcodecs.codecs.fdb_tuple:FdbTupleCodec",
    "lexkey": "lexcodecs.codecs.lexkey:LexKeyCodec",
    "lexkey-legacy": "lexcodecs.codecs.lexkey:LexKeyLegacyCodec",
    "skv": "lexcodecs.codecs.skv:SkvCodec",
    "orderly": "lexcodecs.codecs.orderly:OrderlyCodec",
    "sqlite4": "lexcodecs.codecs.sqlite4:Sqlite4Codec",
    "orderedcode": "lexcodecs.codecs.orderedcode:OrderedCodeCodec",
    "ordered-binary": "lexcodecs.codecs.ordered_binary:OrderedBinaryCodec",
    "hbase-orderedbytes": "lexcodecs.codecs.hbase_orderedbytes:HBaseOrderedBytesCodec",
    "bytewise": "lexcodecs.codecs.bytewise:BytewiseCodec",
    "charwise": "lexcodecs.codecs.charwise:CharwiseCodec",
    "tidb": "lexcodecs.codecs.tidb:TidbCodec",
    "memcomparable": "lexcodecs.codecs.memcomparable:MemcomparableCodec",
    "storekey": "lexcodecs.codecs.storekey:StorekeyCodec",
}

CodecFactory = Callable[..., Codec]
F = TypeVar("F", bound=CodecFactory)


@attrs.frozen
class CodecSource:
    """Where a registered name comes from: ``"code"``, ``"builtin"`` or ``"plugin"``."""

    name: str
    kind: str
    target: str  # import path, or the factory's qualified name
    distribution: str | None = None


def _qualname(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}:{getattr(obj, '__qualname__', repr(obj))}"


def _load(path: str, name: str) -> CodecFactory:
    module, _, attr = path.partition(":")
    try:
        target: Any = importlib.import_module(module)
        for part in attr.split(".") if attr else ():
            target = getattr(target, part)
    except Exception as exc:
        raise RegistryError(f"codec {name!r} failed to load from {path!r}: "
                            f"{type(exc).__name__}: {exc}") from exc
    if not callable(target):
        raise RegistryError(f"codec {name!r} from {path!r} is not callable")
    return target  # type: ignore[no-any-return]


class Registry:
    """A set of named codec factories. :data:`default_registry` is the one the API uses."""

    def __init__(self, builtins: Mapping[str, str] | None = None, *,
                 entry_points: bool = True) -> None:
        self._lock = threading.RLock()
        self._factories: dict[str, CodecFactory] = {}
        self._sources: dict[str, CodecSource] = {}
        self._builtins = dict(BUILTIN_CODECS if builtins is None else builtins)
        self._use_entry_points = entry_points
        self._plugins: dict[str, CodecSource] | None = None  # read lazily
        self._plugin_conflicts: dict[str, list[CodecSource]] = {}
        self._removed: set[str] = set()

    # -- entry points ----------------------------------------------------------------------

    def _scan_plugins(self) -> dict[str, CodecSource]:
        if self._plugins is not None:
            return self._plugins
        found: dict[str, CodecSource] = {}
        conflicts: dict[str, list[CodecSource]] = {}
        if self._use_entry_points:
            # imported here: importlib.metadata costs about 30 ms, a fifth of importing
            # lexcodecs, and most runs use only built-in codecs
            from importlib import metadata

            for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
                dist = getattr(getattr(ep, "dist", None), "name", None)
                src = CodecSource(ep.name, "plugin", ep.value, dist)
                if ep.name in found and found[ep.name].target != ep.value:
                    conflicts.setdefault(ep.name, [found[ep.name]]).append(src)
                found.setdefault(ep.name, src)
        self._plugins, self._plugin_conflicts = found, conflicts
        return found

    def refresh(self) -> None:
        """Forget what was read from entry points (after installing a plugin at run time)."""
        with self._lock:
            self._plugins = None
            for name in [n for n, s in self._sources.items() if s.kind == "plugin"]:
                del self._sources[name]
                del self._factories[name]

    # -- registration ----------------------------------------------------------------------

    def _taken_by(self, name: str) -> CodecSource | None:
        if name in self._sources:
            return self._sources[name]
        if name in self._removed:
            return None
        if name in self._builtins:
            return CodecSource(name, "builtin", self._builtins[name])
        return self._scan_plugins().get(name)

    @overload
    def register(self, factory: F, *, name: str | None = ..., replace: bool = ...) -> F: ...
    @overload
    def register(self, factory: None = ..., *, name: str | None = ..., replace: bool = ...
                 ) -> Callable[[F], F]: ...
    def register(self, factory: F | None = None, *, name: str | None = None,
                 replace: bool = False) -> F | Callable[[F], F]:
        """Register a codec factory under ``name`` (default: ``factory.name``).

        Usable as ``register(Cls)``, ``@register`` or ``@register(name=..., replace=True)``.
        """
        def decorate(f: F) -> F:
            own = getattr(f, "name", None)
            key = name if name is not None else own
            if not isinstance(key, str) or not key:
                raise RegistryError(f"{_qualname(f)} has no codec name; give name= or set a "
                                    "class attribute 'name'")
            if isinstance(own, str) and own and own != key:
                # config() names the codec by its own name: under another name,
                # get_codec(**codec.config()) would build something else
                raise RegistryError(f"{_qualname(f)} calls itself {own!r}, not {key!r}; "
                                    "register it under its own name")
            with self._lock:
                taken = self._taken_by(key)
                if taken is not None and not replace:
                    where = taken.target + (f" (distribution {taken.distribution})"
                                            if taken.distribution else "")
                    raise RegistryError(
                        f"codec name {key!r} is already registered ({taken.kind}: {where}); "
                        "pass replace=True to replace it")
                self._factories[key] = f
                self._sources[key] = CodecSource(key, "code", _qualname(f))
                self._removed.discard(key)
            return f

        return decorate if factory is None else decorate(factory)

    def unregister(self, name: str) -> None:
        """Remove *name* (from code, built-ins or plugins alike); unknown names raise."""
        with self._lock:
            if self._taken_by(name) is None:
                raise self._unknown(name)
            self._factories.pop(name, None)
            self._sources.pop(name, None)
            self._removed.add(name)

    # -- lookup ----------------------------------------------------------------------------

    def factory(self, name: str) -> CodecFactory:
        with self._lock:
            if name in self._factories:
                return self._factories[name]
            if name in self._removed:
                raise self._unknown(name)
            if name in self._builtins:
                src = CodecSource(name, "builtin", self._builtins[name])
            else:
                plugins = self._scan_plugins()
                if name in self._plugin_conflicts:
                    who = ", ".join(f"{s.target} ({s.distribution or 'unknown distribution'})"
                                    for s in self._plugin_conflicts[name])
                    raise RegistryError(f"codec name {name!r} is provided by several installed "
                                        f"plugins: {who}; uninstall one, or register the one "
                                        "you want with replace=True")
                if name not in plugins:
                    raise self._unknown(name)
                src = plugins[name]
            factory = _load(src.target, name)
            self._factories[name] = factory
            self._sources[name] = src
            return factory

    def get(self, name: str, **options: Any) -> Codec:
        """Build the codec *name* with *options*: ``get("lexkey", nan="go")``."""
        if not isinstance(name, str):
            raise UnknownCodecError(repr(name), available=self.names())
        codec = self.factory(name)(**options)
        if getattr(codec, "name", name) != name:
            raise RegistryError(f"the codec registered as {name!r} calls itself "
                                f"{codec.name!r}; its config() would not rebuild it")
        return codec

    def names(self) -> tuple[str, ...]:
        """Every available name, sorted, without importing any codec."""
        with self._lock:
            names = set(self._factories) | set(self._builtins) | set(self._scan_plugins())
            return tuple(sorted(names - self._removed))

    def source(self, name: str) -> CodecSource:
        with self._lock:
            src = self._taken_by(name)
            if src is None:
                raise self._unknown(name)
            return src

    def _unknown(self, name: str) -> UnknownCodecError:
        names = self.names()
        return UnknownCodecError(name, available=names, close_matches=_close_matches(name, names))

    def __repr__(self) -> str:
        names = self.names()
        return f"<Registry of {len(names)} codecs: {', '.join(names)}>"

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.names()

    def __iter__(self) -> Iterable[str]:
        return iter(self.names())


def _folded(name: str) -> str:
    """A name with the slips a person makes folded away: case, and ``_`` or a space for
    ``-`` (``FDB-TUPLE``, ``Fdb_Tuple``, ``fdb tuple``)."""
    return name.casefold().replace("_", "-").replace(" ", "-")


def _close_matches(name: str, names: Iterable[str]) -> tuple[str, ...]:
    """The names *name* most likely meant: one that differs only by a slip (see
    :func:`_folded`) alone, else the nearest spellings."""
    names = tuple(names)
    same = tuple(n for n in names if _folded(n) == _folded(name))
    if same:
        return same
    folded = {_folded(n): n for n in names}
    return tuple(folded[m] for m in difflib.get_close_matches(_folded(name), folded, n=3,
                                                              cutoff=0.5))


#: The registry behind :func:`get_codec`, :func:`register_codec` and the command line.
default_registry: Final = Registry()


@overload
def register_codec(factory: F, *, name: str | None = ..., replace: bool = ...) -> F: ...
@overload
def register_codec(factory: None = ..., *, name: str | None = ..., replace: bool = ...
                   ) -> Callable[[F], F]: ...
def register_codec(factory: F | None = None, *, name: str | None = None,
                   replace: bool = False) -> F | Callable[[F], F]:
    """Register a codec in the default registry (a decorator too).

    >>> from lexcodecs import BaseCodec
    >>> @register_codec
    ... class Mine(BaseCodec):
    ...     name = "mine-doc"
    >>> get_codec("mine-doc")
    <Mine 'mine-doc'>
    >>> unregister("mine-doc")
    """
    return default_registry.register(factory, name=name, replace=replace)


def unregister(name: str) -> None:
    """Remove *name* from the default registry."""
    default_registry.unregister(name)


def get_codec(name: str, **options: Any) -> Codec:
    """The codec registered as *name*, built with *options*.

    Raises :class:`~lexcodecs.errors.UnknownCodecError` (a ``LookupError``) with close
    matches when there is no such codec, and :class:`~lexcodecs.errors.OptionError` for a bad
    option. ``get_codec(**codec.config())`` rebuilds a codec.
    """
    return default_registry.get(name, **options)


def available_codecs() -> tuple[str, ...]:
    """Names of every available codec: registered, built in, or installed as a plugin."""
    return default_registry.names()
