"""Hostile nesting in ``fdb-tuple`` keys and values (issue 15, item 1): the ``max_depth`` option.

Every test runs on the compiled and on the reference implementation (the ``impl`` fixture in
``conftest.py``). Before the limit, a 400 KB key of ``05`` × 200,000 then ``00`` × 200,000
decoded to a 200,000-deep tuple whose ``hash()`` crashed the interpreter, and an unterminated
10 MB run of ``05`` took gigabytes and seconds before it was refused. Now a key is refused at
the ``05`` that crosses the limit, in time and memory bounded by the limit, and values nested
deeper than the limit are refused on encode.
"""

from __future__ import annotations

import collections
import os
import pickle
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from work import assert_linear, measure

from lexcodecs import DecodeError, EncodeError, OptionError, _impl, get_codec
from lexcodecs.codecs.fdb_tuple import FdbTupleCodec
from lexcodecs.codecs.fdb_tuple.format import DEPTH_CEILING, MAX_DEPTH
from lexcodecs.types import Versionstamp

pytestmark = pytest.mark.usefixtures("impl")

ROOT = Path(__file__).resolve().parent.parent
CODEC = FdbTupleCodec()


def deep_key(depth: int) -> bytes:
    return b"\x05" * depth + b"\x00" * depth


def deep_value(depth: int, leaf: Any = ()) -> Any:
    """A value whose innermost tuple is *depth* deep when it is an element of a key."""
    value: Any = leaf
    for _ in range(depth - 1):
        value = (value,)
    return value


def unwrap(value: Any, depth: int) -> Any:
    for _ in range(depth - 1):
        assert type(value) is tuple
        assert len(value) == 1
        value = value[0]
    return value


def refused(call: Any, kind: type[Exception] = DecodeError) -> Any:
    """The lexcodecs error *call* raises; anything else (RecursionError above all) fails."""
    error: Exception | None = None
    unexpected = ""
    try:
        call()
    except kind as exc:
        error = exc
    except Exception as exc:  # reported outside the handler: chained RecursionErrors are slow
        unexpected = f"{type(exc).__name__}: {str(exc)[:200]}"
    if unexpected:
        pytest.fail(f"raised {unexpected}, not {kind.__name__}")
    assert error is not None, f"no {kind.__name__}"
    return error


def test_default_is_documented_constant() -> None:
    assert MAX_DEPTH == 64
    assert CODEC.max_depth == MAX_DEPTH
    assert CODEC.config() == {"name": "fdb-tuple", "max_u64_form": "python", "max_depth": 64}
    codec = get_codec("fdb-tuple", max_depth=7, max_u64_form="java")
    assert codec.config() == {"name": "fdb-tuple", "max_u64_form": "java", "max_depth": 7}
    assert get_codec(**codec.config()) == codec
    assert pickle.loads(pickle.dumps(codec)) == codec


@pytest.mark.parametrize("bad", [-1, DEPTH_CEILING + 1, 10**6, True, False, 1.0, "64", None])
def test_max_depth_is_validated(bad: Any) -> None:
    with pytest.raises(OptionError):
        get_codec("fdb-tuple", max_depth=bad)


def test_400kb_key_refused() -> None:
    """The key from the issue: DecodeError at the 65th 05, not a 200,000-deep tuple."""
    key = deep_key(200_000)
    assert len(key) == 400_000
    calls = {
        "decode": lambda: CODEC.decode(key),
        "decode with a prefix": lambda: CODEC.decode(b"p" + key, prefix=b"p"),
        "decode with a schema": lambda: CODEC.decode(key, "t:tuple"),
        "inspect": lambda: CODEC.inspect(key),
    }
    for name, call in calls.items():
        exc = refused(call)
        shift = 1 if "prefix" in name else 0
        assert exc.offset == MAX_DEPTH + shift, (name, str(exc))
        assert exc.codec == "fdb-tuple", name
        assert "max_depth=64" in str(exc), (name, str(exc))


@pytest.mark.parametrize("tail", [b"", b"\x00" * 100, b"\x02abc", b"\x15\x01" * 10])
def test_unterminated_10mb_run_refused_with_bounded_work(tail: bytes) -> None:
    """Refused at the byte where the limit is crossed, with the work of a 1 KB run: not the
    1.6 GB and 15 s it took to build 10 million nested lists first. Counted, not timed
    (``work.py``): events, bytes copied (a reader slicing the rest of the key at each level
    would copy 64 times 10 MB) and peak memory, compiled allocations included."""
    runs = [b"\x05" * size + tail for size in (1024, 10 * 1024 * 1024)]
    (small, w_small), (big, w_big) = (measure(lambda k=k: CODEC.decode(k)) for k in runs)
    assert small[:2] == big[:2] == ("error", DecodeError)
    for key in runs:
        assert refused(lambda k=key: CODEC.decode(k)).offset == MAX_DEPTH
    assert_linear(w_small, w_big, 1, "refusing a 10 MB run of 05 against a 1 KB one",
                  slack_events=100, slack_bytes=64 * 1024)
    tracemalloc.start()
    try:
        refused(lambda: CODEC.decode(runs[1]))
        refused(lambda: CODEC.decode(runs[1], "t:tuple"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, f"{peak} bytes traced while refusing a 10 MB run of 05"


@pytest.mark.parametrize("max_depth", [0, 1, 2, 5, 63, 64, 65, 100, DEPTH_CEILING])
def test_depth_at_limit_decodes_one_more_refused(max_depth: int) -> None:
    codec = FdbTupleCodec(max_depth=max_depth)
    if max_depth:
        key = deep_key(max_depth)
        value = codec.decode(key)
        assert unwrap(value[0], max_depth) == ()
        assert codec.decode(key, "t:tuple") == value
        assert codec.encode(value) == key
        assert codec.encode(value, "t:tuple") == key
        # a value at the limit is safe to hash, compare, print and pickle
        hash(value)
        assert value == codec.decode(key)
        assert repr(value).count("(") >= max_depth
        assert pickle.loads(pickle.dumps(value)) == value
        # the limit counts depth, not tuples: two siblings at the limit are fine
        twice = b"\x05" + deep_key(max_depth - 1) + deep_key(max_depth - 1) + b"\x00" \
            if max_depth > 1 else deep_key(1) * 2
        assert codec.encode(codec.decode(twice)) == twice
    over = deep_key(max_depth + 1)
    for key, offset in ((over, max_depth),
                        (b"\x02a\x00\x15\x01" + over, 5 + max_depth),
                        (b"\x05" * (max_depth + 1), max_depth),
                        (b"\x05\x00\xff" + b"\x05" * max_depth, 3 + max_depth - 1)
                        if max_depth else (b"\x05\x00\xff", 0)):
        exc = refused(lambda k=key: codec.decode(k))
        assert exc.offset == offset, (key[:16].hex(), str(exc))
        assert f"max_depth={max_depth}" in str(exc)
    exc = refused(lambda: codec.decode(over, "t:tuple"))
    assert exc.offset == max_depth, str(exc)
    assert exc.field == 0, str(exc)


def test_error_identical_on_both_paths(impl: str) -> None:
    key = b"\x15\x01" + deep_key(1000)
    messages = {}
    for name in _impl.IMPLEMENTATIONS:
        if name == "compiled" and not _impl.compiled_available():
            continue
        with _impl.use(name):
            messages[name] = str(refused(lambda: CODEC.decode(key)))
    assert len(set(messages.values())) == 1, messages


def test_default_depth_stays_on_the_compiled_path(impl: str) -> None:
    if impl != "compiled":
        pytest.skip("hand-overs are a compiled-path matter")
    before = _impl.HANDOVERS["fdb_tuple"]
    value = CODEC.decode(deep_key(MAX_DEPTH))
    assert CODEC.encode(value) == deep_key(MAX_DEPTH)
    assert _impl.HANDOVERS["fdb_tuple"] == before


def test_encode_too_deep_refused() -> None:
    """The same limit on encode, through every entry point; at the limit it encodes."""
    ok = deep_value(MAX_DEPTH)
    too_deep = deep_value(MAX_DEPTH + 1)
    assert CODEC.encode((ok,)) == deep_key(MAX_DEPTH)
    Pair = collections.namedtuple("Pair", "a b")
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    for value in (too_deep, deep_value(5000), deep_value(MAX_DEPTH + 1, []),
                  Pair(1, too_deep), cyclic):
        for name, call in {
            "encode": lambda v=value: CODEC.encode((1, v)),
            "encode a list": lambda v=value: CODEC.encode([1, v]),
            "encode with a schema": lambda v=value: CODEC.encode((1, v), "n:int, t:tuple"),
            "prefix_range": lambda v=value: CODEC.prefix_range((1, v)),
            "encode_with_versionstamp": lambda v=value: CODEC.encode_with_versionstamp(
                (1, v, Versionstamp())),
        }.items():
            exc = refused(call, EncodeError)
            assert "max_depth=64" in str(exc), (name, str(exc)[:300])
            assert exc.codec == "fdb-tuple", name
            assert exc.field == 1, (name, str(exc)[:300])


def test_encode_limit_follows_the_option() -> None:
    for max_depth in (0, 3, 100, DEPTH_CEILING):
        codec = FdbTupleCodec(max_depth=max_depth)
        assert codec.encode((1, "flat", None)) == CODEC.encode((1, "flat", None))
        if max_depth:
            assert codec.encode((deep_value(max_depth),)) == deep_key(max_depth)
        refused(lambda c=codec, d=max_depth: c.encode((deep_value(d + 1),)), EncodeError)
        refused(lambda c=codec, d=max_depth: c.encode([[deep_value(d, [])]]), EncodeError)


def test_cli_decode_deep_key_has_no_traceback() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run(
        [sys.executable, "-m", "lexcodecs", "decode", "-c", "fdb-tuple", deep_key(2000).hex()],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert done.returncode in (1, 2), (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.stdout == ""
    assert done.stderr.startswith("lexcodecs: error: "), done.stderr[-2000:]
    assert "max_depth=64" in done.stderr
    assert len(done.stderr) < 1000
