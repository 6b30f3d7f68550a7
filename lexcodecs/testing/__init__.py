"""The public conformance harness for codecs: lexcodecs' own, and yours.

>>> from lexcodecs import KeySchema
>>> from lexcodecs.testing import natural_key
>>> schema = KeySchema.parse("s:string")
>>> natural_key(("b",), schema) > natural_key(("a",), schema)
True

* :class:`CodecConformance`: subclass it with ``codec`` and ``schemas`` to run every check;
* :func:`run_property`: run one check as a hypothesis property;
* :mod:`~lexcodecs.testing.checks`: the checks over concrete values, and
  :class:`ConformanceError`;
* :mod:`~lexcodecs.testing.model`: the natural order, written without any codec;
* :mod:`~lexcodecs.testing.strategies`: hypothesis strategies shaped by capabilities;
* :mod:`~lexcodecs.testing.vectors`: the loader for reference vector files.
"""

from .checks import ConformanceError
from .conformance import PROPERTIES, CodecConformance, applicable, run_property
from .model import identical, model_equal, natural_key
from .strategies import batches, keys, prefixes, values_for
from .vectors import VectorCase, VectorFile, load_vectors

__all__ = [
    "PROPERTIES",
    "CodecConformance",
    "ConformanceError",
    "VectorCase",
    "VectorFile",
    "applicable",
    "batches",
    "identical",
    "keys",
    "load_vectors",
    "model_equal",
    "natural_key",
    "prefixes",
    "run_property",
    "values_for",
]
