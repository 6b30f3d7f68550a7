"""The public conformance harness for codecs: lexcodecs' own, and yours.

>>> from lexcodecs import KeySchema
>>> from lexcodecs.testing import natural_key
>>> schema = KeySchema.parse("s:string")
>>> natural_key(("b",), schema) > natural_key(("a",), schema)
True

* :class:`CodecConformance`: subclass it with ``codec`` and ``schemas`` to run every check;
* :class:`DifferentialConformance`: subclass it with ``codec`` to hold a codec's compiled path
  to its reference code, answer for answer, on valid and hostile values and keys;
* :func:`run_property`: run one check as a hypothesis property;
* :func:`run_matrix`: every claim a codec declares, on schemas :func:`plan` derives from its
  declarations (what ``lexcodecs conformance`` runs), with the claims it cannot test said so;
* :mod:`~lexcodecs.testing.checks`: the checks over concrete values, and
  :class:`ConformanceError`;
* :mod:`~lexcodecs.testing.model`: the natural order, written without any codec;
* :mod:`~lexcodecs.testing.strategies`: hypothesis strategies shaped by capabilities;
* :mod:`~lexcodecs.testing.hostile`: the values and keys a careless or hostile caller passes
  (:func:`odd_values`, :func:`hostile_values`, :func:`near_misses`);
* :mod:`~lexcodecs.testing.vectors`: the loader for reference vector files.
"""

from .checks import ConformanceError
from .claims import Claim, Plan, plan
from .conformance import PROPERTIES, CodecConformance, applicable, run_property
from .differential import DifferentialConformance
from .hostile import hostile_values, near_misses, odd_values
from .matrix import Matrix, run_matrix
from .model import identical, model_equal, natural_key
from .strategies import batches, keys, prefixes, values_for
from .vectors import VectorCase, VectorFile, load_vectors

__all__ = [
    "PROPERTIES",
    "Claim",
    "CodecConformance",
    "ConformanceError",
    "DifferentialConformance",
    "Matrix",
    "Plan",
    "VectorCase",
    "VectorFile",
    "applicable",
    "batches",
    "hostile_values",
    "identical",
    "keys",
    "load_vectors",
    "model_equal",
    "natural_key",
    "near_misses",
    "odd_values",
    "plan",
    "prefixes",
    "run_matrix",
    "run_property",
    "values_for",
]
