"""The two implementations: the compiled modules are built and in use, and the switch works.

Under ``LEXCODECS_REQUIRE_COMPILED`` (set by ``.ci/run``) a compiled module that is not built
fails these tests instead of skipping them, so CI cannot pass on the reference code alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lexcodecs import _impl, get_codec
from lexcodecs.registry import BUILTIN_CODECS

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = "name:string, n:int64"
#: for a codec without int64 (ordered-binary: JavaScript numbers and BigInts)
SCHEMA_INT = "name:string, n:int"


def schema_of(codec_name: str) -> str:
    return SCHEMA if "int64" in get_codec(codec_name).capabilities.field_types else SCHEMA_INT


def package_of(codec_name: str) -> str:
    """``lexcodecs.codecs.lexkey:LexKeyCodec`` -> ``lexkey``."""
    module = BUILTIN_CODECS[codec_name].split(":")[0]
    return module.split(".")[2]


def require_built() -> None:
    if not _impl.compiled_available():
        if os.environ.get(_impl.ENV_REQUIRE):
            pytest.fail("the compiled codec modules are not built and "
                        f"{_impl.ENV_REQUIRE} is set")
        pytest.skip("the compiled codec modules are not built")


def test_every_builtin_codec_has_a_compiled_package() -> None:
    # every built-in's package, read from the registry's "lexcodecs.codecs.<package>:Class"
    # (a codec added later joins without an edit here)
    packages = {target.split(":")[0].split(".")[2] for target in BUILTIN_CODECS.values()}
    assert {"fdb_tuple", "lexkey", "orderly", "skv", "sqlite4"} <= packages
    assert set(_impl.compiled_packages()) == packages
    for package in _impl.compiled_packages():
        assert (ROOT / "lexcodecs" / "codecs" / package / "_compiled.pyx").is_file(), package


def test_ci_requires_the_compiled_modules() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert f"export {_impl.ENV_REQUIRE}=1" in ci.splitlines()


@pytest.mark.parametrize("name", sorted(BUILTIN_CODECS))
def test_the_compiled_module_is_in_use(name: str) -> None:
    require_built()
    compiled_module = f"lexcodecs.codecs.{package_of(name)}._compiled"
    codec = get_codec(name)
    schema = schema_of(name)
    with _impl.use("compiled"):
        assert type(codec.bind(schema)).__module__ == compiled_module
    with _impl.use("reference"):
        assert type(codec.bind(schema)).__module__ != compiled_module


@pytest.mark.parametrize("name", sorted(BUILTIN_CODECS))
def test_both_implementations_give_the_same_key(name: str) -> None:
    codec = get_codec(name)
    schema = schema_of(name)
    keys = []
    for implementation in _impl.IMPLEMENTATIONS:
        with _impl.use(implementation):
            key = codec.encode(("acme", -5), schema)
            assert codec.decode(key, schema) == ("acme", -5)
            keys.append(key)
    assert keys[0] == keys[1]


def test_use_restores_the_implementation() -> None:
    before = _impl.current

    def inside() -> None:
        with _impl.use("reference"):
            assert _impl.current == "reference"
            assert _impl.compiled(_impl.compiled_packages()[0]) is None
            raise RuntimeError

    with pytest.raises(RuntimeError):
        inside()
    assert _impl.current == before
    with pytest.raises(ValueError, match="expected one of"):
        _impl.use("fast").__enter__()  # type: ignore[arg-type]
    assert _impl.current == before


def run_without_module(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Python with one compiled module unimportable, encoding one skv key."""
    script = textwrap.dedent("""
        import sys, warnings
        sys.modules["lexcodecs.codecs.skv._compiled"] = None   # as if it was not built
        warnings.simplefilter("default")
        from lexcodecs import get_codec
        codec = get_codec("skv")
        for _ in range(3):
            print(codec.encode(("a", 1), "a:string, b:int64").hex())
    """)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, env=env)


def test_a_missing_module_warns_once_and_runs_the_reference_code() -> None:
    env = {k: v for k, v in os.environ.items() if k not in (_impl.ENV_REQUIRE, _impl.ENV_PURE)}
    done = run_without_module(env)
    assert done.returncode == 0, done.stderr
    assert len(set(done.stdout.split())) == 1
    assert done.stderr.count("CompiledUnavailableWarning") == 1, done.stderr


#: how the warning of a missing compiled module starts
MISSING = "lexcodecs: the compiled codec modules are missing ("


def without_module_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (_impl.ENV_REQUIRE, _impl.ENV_PURE)}
    return {**env, "PYTHONPATH": str(ROOT)}


def test_a_missing_module_warns_in_one_line_charged_to_the_callers_line(tmp_path: Path) -> None:
    """Not to lexcodecs' own line (``return _load(package)``, issue 32): the warning names
    the user's line, says what runs instead and how to get the modules."""
    script = tmp_path / "app.py"
    script.write_text(textwrap.dedent("""\
        import sys
        sys.modules["lexcodecs.codecs.skv._compiled"] = None  # as if it was not built
        from lexcodecs import get_codec
        codec = get_codec("skv")
        key = codec.encode(("a", 1), "a:string, b:int64")
    """), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          cwd=tmp_path, env=without_module_env())
    assert done.returncode == 0, done.stderr
    warning, source = done.stderr.splitlines()  # Python's warning line, then the user's line
    assert warning.startswith(f"{script}:5: CompiledUnavailableWarning: {MISSING}"), warning
    assert source.strip() == 'key = codec.encode(("a", 1), "a:string, b:int64")'
    for needed in ("lexcodecs.codecs.skv._compiled", "the reference Python code runs",
                   "slower", "install a C compiler", "reinstall lexcodecs",
                   "--force-reinstall --no-cache-dir", f"{_impl.ENV_PURE}=1"):
        assert needed in warning, needed


def test_the_command_line_says_a_missing_module_in_one_line() -> None:
    script = textwrap.dedent("""
        import sys
        sys.modules["lexcodecs.codecs.skv._compiled"] = None
        from lexcodecs.cli import main
        sys.exit(main(["encode", "-c", "skv", "-s", "a:string", "('a',)"]))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, env=without_module_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout == get_codec("skv").encode(("a",), "a:string").hex() + "\n"
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("lexcodecs: warning: the compiled codec modules are missing (")


def test_a_missing_module_is_an_error_when_required() -> None:
    env = {**os.environ, _impl.ENV_REQUIRE: "1"}
    env.pop(_impl.ENV_PURE, None)
    done = run_without_module(env)
    assert done.returncode != 0
    assert "CompiledMissingError" in done.stderr
    assert "lexcodecs.codecs.skv._compiled is not built" in done.stderr


def test_pure_runs_the_reference_code_without_a_warning() -> None:
    env = {**os.environ, _impl.ENV_PURE: "1"}
    done = run_without_module(env)
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr


def test_the_migration_kernel_is_compiled_and_chosen_by_the_implementation() -> None:
    """``lexcodecs/migrate/_compiled.pyx`` is built with the codecs (setup.py), counted by
    ``compiled_available``, and used only while the compiled implementation is in force."""
    from lexcodecs.migrate import Transcoder, kernel

    assert "lexcodecs/migrate/_compiled.pyx" in (ROOT / "setup.py").read_text(encoding="utf-8")
    require_built()
    t = Transcoder("fdb-tuple", "skv", "a:int64")
    with _impl.use("compiled"):
        made = kernel.new_key(t, None)  # type: ignore[arg-type]
        assert type(made).__module__ == "lexcodecs.migrate._compiled"
    with _impl.use("reference"):
        assert type(kernel.new_key(t, None)) is kernel.NewKey  # type: ignore[arg-type]


def test_the_columnar_kernel_is_compiled_and_chosen_by_the_implementation() -> None:
    """``lexcodecs/columnar/_kernel.pyx`` is built with the others, counted by
    ``compiled_available``, and runs only while the compiled implementation is in force (the
    reference of a batch is the row API)."""
    pytest.importorskip("pyarrow")
    from lexcodecs.columnar import kernel_available

    assert "lexcodecs/columnar/_kernel.pyx" in (ROOT / "setup.py").read_text(encoding="utf-8")
    assert "lexcodecs.columnar._kernel" in _impl.OTHER_MODULES
    require_built()
    with _impl.use("compiled"):
        assert kernel_available()
    with _impl.use("reference"):
        assert not kernel_available()
