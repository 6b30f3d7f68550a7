"""The codec registry: registration, lookup, lazy built-ins and real entry points."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from toys import ToyCodec

import lexcodecs
from lexcodecs import (
    BaseCodec,
    Capabilities,
    Option,
    OptionError,
    Registry,
    RegistryError,
    UnknownCodecError,
    available_codecs,
    get_codec,
    register_codec,
    unregister,
)
from lexcodecs.registry import ENTRY_POINT_GROUP, CodecSource

PLUGIN_MODULE = "lexcodecs_testplugin"
PLUGIN_MODULE_2 = "lexcodecs_testplugin2"
LAZY_MODULE = "lexcodecs_test_lazy_codecs"
TEST_MODULES = (PLUGIN_MODULE, PLUGIN_MODULE_2, LAZY_MODULE)


class KnobCodec(BaseCodec):
    """A codec with an option, to see options pass through the registry."""

    name = "knob"
    CAPABILITIES = Capabilities(field_types={"int64"}, decoding="schema")
    OPTIONS = {"level": Option(1, choices=(1, 2, 3))}  # noqa: RUF012


@pytest.fixture
def registry() -> Registry:
    return Registry(builtins={}, entry_points=False)


@pytest.fixture
def clean_modules() -> Iterator[None]:
    """Forget the modules the tests create, before and after."""
    for name in TEST_MODULES:
        sys.modules.pop(name, None)
    yield
    for name in TEST_MODULES:
        sys.modules.pop(name, None)
    importlib.invalidate_caches()


# -- registration ------------------------------------------------------------------------------


def test_register_as_call(registry: Registry) -> None:
    assert registry.register(ToyCodec) is ToyCodec
    assert registry.names() == ("toy",)
    assert "toy" in registry
    assert list(registry) == ["toy"]
    codec = registry.get("toy")
    assert isinstance(codec, ToyCodec)
    assert registry.factory("toy") is ToyCodec
    assert registry.source("toy") == CodecSource("toy", "code", "toys:ToyCodec")


def test_register_as_bare_decorator(registry: Registry) -> None:
    @registry.register
    class Deco(ToyCodec):
        name = "deco"

    assert isinstance(Deco, type)  # the decorator returns the class itself
    assert isinstance(registry.get("deco"), Deco)


def test_register_decorator_with_name(registry: Registry) -> None:
    @registry.register(name="renamed")
    class Named(ToyCodec):
        name = "renamed"

    assert registry.names() == ("renamed",)
    assert isinstance(registry.get("renamed"), Named)


def test_register_under_another_name_is_refused(registry: Registry) -> None:
    # config() names a codec by its own name; an alias would rebuild something else
    with pytest.raises(RegistryError, match="calls itself 'toy', not 'alias'"):
        registry.register(ToyCodec, name="alias")
    assert registry.names() == ()


def test_factory_building_a_codec_of_another_name_is_refused(registry: Registry) -> None:
    registry.register(lambda **options: ToyCodec(**options), name="sneaky")
    with pytest.raises(RegistryError, match="calls itself 'toy'"):
        registry.get("sneaky")


def test_register_function_factory(registry: Registry) -> None:
    def make(**options: Any) -> KnobCodec:
        return KnobCodec(**options)

    registry.register(make, name="knob")
    assert registry.get("knob", level=3) == KnobCodec(level=3)
    with pytest.raises(RegistryError, match="has no codec name"):
        registry.register(make)
    with pytest.raises(RegistryError, match="has no codec name"):
        registry.register(make, name="")


def test_duplicate_refused(registry: Registry) -> None:
    registry.register(ToyCodec)

    class Other(ToyCodec):
        pass

    with pytest.raises(RegistryError) as info:
        registry.register(Other)
    message = str(info.value)
    assert "'toy' is already registered" in message
    assert "code: toys:ToyCodec" in message
    assert "replace=True" in message
    assert registry.factory("toy") is ToyCodec  # nothing changed
    with pytest.raises(RegistryError):
        registry.register(name="toy")(Other)


def test_replace(registry: Registry) -> None:
    registry.register(ToyCodec)

    @registry.register(name="toy", replace=True)
    class Replacement(ToyCodec):
        pass

    assert registry.factory("toy") is Replacement
    assert registry.names() == ("toy",)
    assert registry.register(ToyCodec, replace=True) is ToyCodec
    assert registry.factory("toy") is ToyCodec
    registry.register(KnobCodec, replace=True)  # replace=True with nothing to replace
    assert registry.names() == (KnobCodec.name, "toy")


def test_unregister(registry: Registry) -> None:
    registry.register(ToyCodec)
    registry.register(KnobCodec)
    registry.unregister("toy")
    assert registry.names() == ("knob",)
    assert "toy" not in registry
    with pytest.raises(UnknownCodecError):
        registry.get("toy")
    with pytest.raises(UnknownCodecError) as info:
        registry.unregister("toy")
    assert info.value.name == "toy"
    registry.register(ToyCodec)  # free again: no replace needed
    assert isinstance(registry.get("toy"), ToyCodec)


def test_unregister_unknown(registry: Registry) -> None:
    with pytest.raises(UnknownCodecError) as info:
        registry.unregister("nothing")
    assert isinstance(info.value, LookupError)
    assert "unknown codec 'nothing'" in str(info.value)


def test_get_with_options(registry: Registry) -> None:
    registry.register(KnobCodec)
    codec = registry.get("knob", level=2)
    assert codec == KnobCodec(level=2)
    assert registry.get(**codec.config()) == codec
    with pytest.raises(OptionError) as info:
        registry.get("knob", level=True)
    assert info.value.option == "level"
    with pytest.raises(OptionError, match="did you mean 'level'"):
        registry.get("knob", levl=2)


def test_names_sorted(registry: Registry) -> None:
    assert registry.names() == ()
    for name in ("zeta", "alpha", "mid"):
        registry.register(type(name, (ToyCodec,), {"name": name}))
    assert registry.names() == ("alpha", "mid", "zeta")


def test_unknown_codec_close_matches(registry: Registry) -> None:
    registry.register(ToyCodec)
    registry.register(KnobCodec)
    with pytest.raises(UnknownCodecError) as info:
        registry.get("toyy")
    error = info.value
    assert isinstance(error, LookupError)
    assert error.close_matches == ("toy",)
    assert error.available == ("knob", "toy")
    assert str(error) == "unknown codec 'toyy'; did you mean 'toy'? (available: knob, toy)"
    with pytest.raises(UnknownCodecError) as info:
        registry.get("zzzzzz")
    assert info.value.close_matches == ()
    with pytest.raises(UnknownCodecError):
        registry.get(5)  # type: ignore[arg-type]
    with pytest.raises(UnknownCodecError):
        registry.source("toyy")
    assert 5 not in registry


def test_empty_registry_message() -> None:
    with pytest.raises(UnknownCodecError, match="no codecs are registered"):
        Registry(builtins={}, entry_points=False).get("x")


# -- lazy built-ins ------------------------------------------------------------------------------


def _write_lazy_module(directory: Path) -> None:
    (directory / f"{LAZY_MODULE}.py").write_text(textwrap.dedent("""
        from toys import ToyCodec

        class LazyCodec(ToyCodec):
            name = "lazy"

        NOT_CALLABLE = 42
    """))


@pytest.mark.usefixtures("clean_modules")
def test_builtin_loads_lazily(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write_lazy_module(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry(builtins={"lazy": f"{LAZY_MODULE}:LazyCodec"}, entry_points=False)
    assert registry.names() == ("lazy",)
    assert "lazy" in registry
    assert registry.source("lazy") == CodecSource("lazy", "builtin", f"{LAZY_MODULE}:LazyCodec")
    assert LAZY_MODULE not in sys.modules
    codec = registry.get("lazy")
    assert LAZY_MODULE in sys.modules
    assert type(codec).__name__ == "LazyCodec"
    assert codec.name == "lazy"
    assert registry.factory("lazy") is sys.modules[LAZY_MODULE].LazyCodec


@pytest.mark.usefixtures("clean_modules")
def test_builtin_name_is_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write_lazy_module(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry(builtins={"lazy": f"{LAZY_MODULE}:LazyCodec"}, entry_points=False)
    shadow = type("Shadow", (ToyCodec,), {"name": "lazy"})
    with pytest.raises(RegistryError, match=r"already registered \(builtin: "):
        registry.register(shadow)
    assert LAZY_MODULE not in sys.modules
    registry.register(shadow, replace=True)
    assert isinstance(registry.get("lazy"), shadow)
    assert LAZY_MODULE not in sys.modules
    registry.unregister("lazy")
    assert registry.names() == ()


@pytest.mark.usefixtures("clean_modules")
def test_builtin_can_be_unregistered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write_lazy_module(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry(builtins={"lazy": f"{LAZY_MODULE}:LazyCodec"}, entry_points=False)
    registry.unregister("lazy")
    assert registry.names() == ()
    with pytest.raises(UnknownCodecError):
        registry.get("lazy")
    assert LAZY_MODULE not in sys.modules


@pytest.mark.usefixtures("clean_modules")
@pytest.mark.parametrize(("target", "message"), [
    ("lexcodecs_no_such_module_xyz:Codec", "ModuleNotFoundError"),
    (f"{LAZY_MODULE}:Missing", "AttributeError"),
    (f"{LAZY_MODULE}:NOT_CALLABLE", "is not callable"),
])
def test_builtin_that_fails_to_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    target: str, message: str) -> None:
    _write_lazy_module(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry(builtins={"broken": target}, entry_points=False)
    assert registry.names() == ("broken",)
    with pytest.raises(RegistryError) as info:
        registry.get("broken")
    assert "'broken'" in str(info.value)
    assert target in str(info.value)
    assert message in str(info.value)


def test_builtin_codecs_are_import_paths() -> None:
    for name, target in lexcodecs.registry.BUILTIN_CODECS.items():
        assert ":" in target, name


# -- entry points, for real --------------------------------------------------------------------


def make_distribution(root: Path, dist: str, module: str, entry_points: dict[str, str],
                      codec_name: str = "toy-plugin") -> None:
    """Write an installed-looking distribution: a module and its .dist-info directory."""
    (root / f"{module}.py").write_text(textwrap.dedent(f"""
        from toys import ToyCodec

        class PluginCodec(ToyCodec):
            name = {codec_name!r}

        class OtherCodec(ToyCodec):
            name = {codec_name!r}
    """))
    info = root / f"{dist}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    lines = "".join(f"{name} = {target}\n" for name, target in entry_points.items())
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{lines}")


@pytest.fixture
def plugin_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                clean_modules: None) -> Path:
    make_distribution(tmp_path, PLUGIN_MODULE, PLUGIN_MODULE,
                      {"toy-plugin": f"{PLUGIN_MODULE}:PluginCodec"})
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_entry_point_found_without_import(plugin_path: Path) -> None:
    registry = Registry(builtins={})
    assert "toy-plugin" in registry.names()
    assert "toy-plugin" in registry
    assert PLUGIN_MODULE not in sys.modules
    source = registry.source("toy-plugin")
    assert source == CodecSource("toy-plugin", "plugin", f"{PLUGIN_MODULE}:PluginCodec",
                                 PLUGIN_MODULE)
    assert PLUGIN_MODULE not in sys.modules
    codec = registry.get("toy-plugin")
    assert PLUGIN_MODULE in sys.modules
    assert type(codec).__name__ == "PluginCodec"
    assert codec.name == "toy-plugin"
    assert isinstance(codec, ToyCodec)


def test_entry_points_disabled(plugin_path: Path) -> None:
    registry = Registry(builtins={}, entry_points=False)
    assert "toy-plugin" not in registry.names()
    with pytest.raises(UnknownCodecError):
        registry.get("toy-plugin")


def test_entry_point_name_is_taken(plugin_path: Path) -> None:
    registry = Registry(builtins={})

    class Mine(ToyCodec):
        name = "toy-plugin"

    with pytest.raises(RegistryError) as info:
        registry.register(Mine)
    message = str(info.value)
    assert "already registered (plugin: " in message
    assert f"{PLUGIN_MODULE}:PluginCodec" in message
    assert f"(distribution {PLUGIN_MODULE})" in message
    assert PLUGIN_MODULE not in sys.modules
    registry.register(Mine, replace=True)
    assert type(registry.get("toy-plugin")) is Mine
    assert registry.source("toy-plugin").kind == "code"
    assert registry.names().count("toy-plugin") == 1
    assert PLUGIN_MODULE not in sys.modules


def test_entry_point_unregister(plugin_path: Path) -> None:
    registry = Registry(builtins={})
    registry.unregister("toy-plugin")
    assert "toy-plugin" not in registry.names()
    with pytest.raises(UnknownCodecError):
        registry.get("toy-plugin")


def test_builtin_wins_over_entry_point(plugin_path: Path) -> None:
    registry = Registry(builtins={"toy-plugin": "toys:ToyCodec"})
    assert registry.factory("toy-plugin") is ToyCodec
    assert PLUGIN_MODULE not in sys.modules


def test_entry_point_conflict(plugin_path: Path) -> None:
    make_distribution(plugin_path, PLUGIN_MODULE_2, PLUGIN_MODULE_2,
                      {"toy-plugin": f"{PLUGIN_MODULE_2}:OtherCodec"})
    importlib.invalidate_caches()
    registry = Registry(builtins={})
    assert registry.names().count("toy-plugin") == 1
    with pytest.raises(RegistryError) as info:
        registry.get("toy-plugin")
    message = str(info.value)
    assert "several installed plugins" in message
    for dist, target in ((PLUGIN_MODULE, f"{PLUGIN_MODULE}:PluginCodec"),
                         (PLUGIN_MODULE_2, f"{PLUGIN_MODULE_2}:OtherCodec")):
        assert f"{target} ({dist})" in message
    assert PLUGIN_MODULE not in sys.modules
    assert PLUGIN_MODULE_2 not in sys.modules
    # choosing one in code settles it
    chosen = type("Chosen", (ToyCodec,), {"name": "toy-plugin"})
    registry.register(chosen, replace=True)
    assert type(registry.get("toy-plugin")) is chosen


def test_same_target_twice_is_no_conflict(plugin_path: Path) -> None:
    info = plugin_path / f"{PLUGIN_MODULE_2}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {PLUGIN_MODULE_2}\n"
                                   "Version: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\ntoy-plugin = {PLUGIN_MODULE}:PluginCodec\n")
    importlib.invalidate_caches()
    codec = Registry(builtins={}).get("toy-plugin")
    assert type(codec).__name__ == "PluginCodec"


def test_refresh_sees_new_plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  clean_modules: None) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry(builtins={})
    assert "toy-plugin" not in registry.names()
    make_distribution(tmp_path, PLUGIN_MODULE, PLUGIN_MODULE,
                      {"toy-plugin": f"{PLUGIN_MODULE}:PluginCodec"})
    importlib.invalidate_caches()
    assert "toy-plugin" not in registry.names()  # read once, until refreshed
    registry.refresh()
    assert "toy-plugin" in registry.names()
    assert registry.get("toy-plugin").name == "toy-plugin"


# -- the default registry ----------------------------------------------------------------------

DEFAULT_NAME = "lexcodecs-test-default"


class DefaultTestCodec(KnobCodec):
    name = DEFAULT_NAME


@pytest.fixture
def cleanup_default() -> Iterator[None]:
    yield
    if DEFAULT_NAME in lexcodecs.default_registry:
        unregister(DEFAULT_NAME)


@pytest.mark.usefixtures("cleanup_default")
def test_default_registry_functions() -> None:
    assert DEFAULT_NAME not in available_codecs()
    assert register_codec(DefaultTestCodec) is DefaultTestCodec
    assert DEFAULT_NAME in available_codecs()
    assert list(available_codecs()) == sorted(available_codecs())
    codec = get_codec(DEFAULT_NAME, level=3)
    assert codec == DefaultTestCodec(level=3)
    assert get_codec(**codec.config()) == codec
    with pytest.raises(RegistryError):
        register_codec(DefaultTestCodec)

    @register_codec(name=DEFAULT_NAME, replace=True)
    class Replacement(DefaultTestCodec):
        pass

    assert type(get_codec(DEFAULT_NAME)) is Replacement
    unregister(DEFAULT_NAME)
    assert DEFAULT_NAME not in available_codecs()
    with pytest.raises(UnknownCodecError) as info:
        get_codec(DEFAULT_NAME)
    assert isinstance(info.value, LookupError)
    with pytest.raises(UnknownCodecError):
        unregister(DEFAULT_NAME)


@pytest.mark.usefixtures("cleanup_default")
def test_default_registry_decorator() -> None:
    @register_codec
    class Decorated(KnobCodec):
        name = DEFAULT_NAME

    assert type(get_codec(DEFAULT_NAME)) is Decorated
    with pytest.raises(UnknownCodecError) as info:
        get_codec(DEFAULT_NAME + "x")
    assert DEFAULT_NAME in info.value.close_matches
