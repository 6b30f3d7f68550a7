"""The ``skv`` codec under the conformance harness, on mixed schemas (every type, both
orders, NULLs first and last, the partition/range split).

It runs on the implementation in force (compiled where built); ``test_skv_differential.py``
holds the reference implementation to the compiled one's answers.
"""

from __future__ import annotations

from test_skv import CODEC, SCHEMAS

from lexcodecs.testing import CodecConformance


class TestSkvConformance(CodecConformance):
    codec = CODEC
    schemas = SCHEMAS
