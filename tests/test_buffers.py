"""The compiled row engines write only inside the buffers they allocate.

A layout may store past the end of what it writes (``SLACK``, ``lexcodecs/_raw.pxd``: an
8-byte store for a 3-byte field, the ``00 ff`` pairs of an escaped word as 16 bytes), and
each caller must make room for that. A missing ``SLACK`` corrupts the heap silently, and no
byte of a key shows it. CPython's debug allocator does (``PYTHONMALLOC=debug``): it puts
guard bytes around every ``PyMem`` block and checks them when the block is freed or resized,
aborting the process on a write past the end.

So the test runs in a subprocess under that allocator. It encodes, with every built-in codec
and every string and bytes field it has (ascending and descending, alone and after an int),
values made of the bytes the layouts escape. Their lengths span the row buffer's inline size
(256) and its growth steps. The keys are compared with the reference implementation's, so
the subprocess checks bytes as well as bounds. Then every vector of every codec, each field
type's edges, is encoded and decoded, and the keys the references refuse are decoded.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import lexcodecs
from lexcodecs import _impl

SCRIPT = r'''
import sys
from lexcodecs import _impl, get_codec
from lexcodecs.errors import LexCodecError
from lexcodecs.registry import BUILTIN_CODECS

LENGTHS = [*range(0, 40), *range(120, 136), *range(248, 264), *range(504, 520), 1000, 1007,
           1008, 1009, 2047, 2048]
UNITS = [b"\x00", b"\xff", b"\x01", b"\x00\x00\x00\x00\x00abc", b"!\"?", b"a\x00", b"\x00\xff"]


def values(field_type):
    for n in LENGTHS:
        for unit in UNITS:
            raw = (unit * (n // len(unit) + 1))[:n]
            yield raw.decode("latin-1") if field_type == "string" else raw


checked = 0
for name in BUILTIN_CODECS:
    codec = get_codec(name)
    for field_type in ("string", "bytes"):
        for order in ("", " desc"):
            for text in (f"s:{field_type}{order}", f"n:int64, s:{field_type}{order}"):
                try:
                    bound = codec.bind(text)
                    with _impl.use("reference"):
                        reference = codec.bind(text)
                except LexCodecError:
                    continue
                for v in values(field_type):
                    row = (v,) if text.startswith("s:") else (7, v)
                    try:
                        key = bound.encode(row)
                    except LexCodecError:
                        continue
                    assert key == reference.encode(row), (name, text, row)
                    checked += 1
# every vector of every codec, encoded and decoded, and the keys the references refuse
from lexcodecs.testing.vectors import load_vectors, hex_to_bytes
for name in BUILTIN_CODECS:
    try:
        vectors = load_vectors(name)
    except Exception:  # a codec without its own file (lexkey-legacy shares lexkey's)
        continue
    for case in vectors.cases:
        if not case.runnable or case.expects_error:
            continue
        try:
            codec = get_codec(name, **case.options)
            if case.schema is None:
                key = codec.encode(case.values)
                back = codec.decode(key)
            else:
                bound = codec.bind(case.schema)
                key = bound.encode(case.values)
                back = bound.decode(key)
        except LexCodecError:
            continue
        assert case.key is None or key == case.key, (name, case.index)
        checked += 1
    for entry in vectors.section("decode_errors"):
        try:
            get_codec(name).decode(hex_to_bytes(entry["hex"]))
        except LexCodecError:
            pass
        checked += 1
print(checked)
'''


@pytest.mark.skipif(not _impl.compiled_available(), reason="the compiled modules are not built")
def test_the_row_engines_write_inside_their_buffers() -> None:
    root = str(Path(lexcodecs.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONMALLOC="debug",
               PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, cwd=root,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert int(done.stdout) > 40_000  # keys written and checked: the loops ran
