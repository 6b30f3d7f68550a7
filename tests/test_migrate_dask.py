"""The distributed recipe: a Transcoder over the partitions of a Dask bag, on a local cluster
of processes (``scheduler="processes"``), gives the keys ``transcode_many`` gives, in order.

The transcoder crosses into the worker processes by pickling, and an error raised inside a
worker comes back to the caller as the lexcodecs error it was. Dask calls
``func(partition, *args)``, so ``transcode_partition(keys, transcoder)`` takes the partition
first. The recipe as docs/migrating.md shows it is run here too.
"""

from __future__ import annotations

import doctest
import math
import os
import re
from pathlib import Path

import pytest

from lexcodecs import get_codec
from lexcodecs.errors import DecodeError, LexCodecError
from lexcodecs.migrate import MigrationError, Transcoder, transcode_partition

dask_bag = pytest.importorskip("dask.bag")

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = "tenant:string, n:int64, x:float64"
FDB = get_codec("fdb-tuple").bind(SCHEMA)
N = 3000


def source_keys(n: int = N) -> list[bytes]:
    tenants = ["acme", "", "b\x00c", "zeta", "中文"]
    return [FDB.encode((tenants[i % 5], (i * 7919) % (4 * n) - 2 * n, i / 7 - 100))
            for i in range(n)]


def worker_pid(_: object) -> list[int]:
    return [os.getpid()]


def test_partitions_run_in_other_processes() -> None:
    bag = dask_bag.from_sequence(range(8), npartitions=4)
    pids = bag.map_partitions(worker_pid).compute(scheduler="processes")
    assert len(pids) == 4
    assert os.getpid() not in pids


@pytest.mark.parametrize("target", ["skv", "orderly"])
def test_recipe_on_a_process_cluster_matches_transcode_many(target: str) -> None:
    t = Transcoder("fdb-tuple", target, SCHEMA)
    keys = source_keys()
    bag = dask_bag.from_sequence(keys, npartitions=4)
    assert bag.npartitions == 4
    result = bag.map_partitions(transcode_partition, t).compute(
        scheduler="processes")
    expected = list(t.transcode_many(keys))
    assert result == expected  # the same keys, in the same order
    assert len(result) == N
    tgt = get_codec(target).bind(SCHEMA)
    assert [tgt.decode(k) for k in result[:50]] == [FDB.decode(k) for k in keys[:50]]


def test_error_in_a_worker_surfaces() -> None:
    t = Transcoder("fdb-tuple", "skv", SCHEMA)
    keys = source_keys(200)
    keys.insert(150, b"\xff\xfe not a key")
    bag = dask_bag.from_sequence(keys, npartitions=4)
    with pytest.raises(LexCodecError) as info:
        bag.map_partitions(transcode_partition, t).compute(
            scheduler="processes")
    assert isinstance(info.value, DecodeError)
    assert info.value.codec == "fdb-tuple"


def test_refusal_by_the_target_in_a_worker_surfaces() -> None:
    """sqlite4 writes -0.0 like 0.0: the transcoder's check refuses it, in the worker too."""
    schema = "x:float64"
    fdb = get_codec("fdb-tuple").bind(schema)
    t = Transcoder("fdb-tuple", "sqlite4", schema)
    keys = [fdb.encode((v,)) for v in (1.0, 2.5, -math.inf, -0.0, 3.0)]
    bag = dask_bag.from_sequence(keys, npartitions=2)
    with pytest.raises(MigrationError, match="cannot hold") as info:
        bag.map_partitions(transcode_partition, t).compute(
            scheduler="processes")
    assert info.value.codec == "sqlite4"


def _recipe_block() -> str:
    doc = ROOT / "docs" / "migrating.md"
    assert doc.is_file(), "docs/migrating.md, the documented Dask recipe, does not exist"
    blocks = re.findall(r"```pycon\n(.*?)```", doc.read_text(encoding="utf-8"), re.DOTALL)
    recipe = [b for b in blocks if "map_partitions" in b]
    assert len(recipe) == 1, "docs/migrating.md should show the recipe in one pycon block"
    return recipe[0]


def test_documented_recipe_runs() -> None:
    """The pycon block of docs/migrating.md that holds the recipe, run as a doctest."""
    block = _recipe_block()
    assert "transcode_partition" in block
    assert re.search(r"scheduler\s*=\s*[\"']processes[\"']", block)
    test = doctest.DocTestParser().get_doctest(
        block, {"get_codec": get_codec, "Transcoder": Transcoder}, "migrating.md recipe",
        "docs/migrating.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    output: list[str] = []
    result = runner.run(test, out=output.append)
    assert result.attempted > 0
    assert result.failed == 0, "".join(output)
