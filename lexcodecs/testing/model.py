"""The natural order of key values: :mod:`lexcodecs.model`, under its harness name.

The model lives in the core package because ``compare`` and ``migrate`` need it at run time,
where hypothesis (which the rest of :mod:`lexcodecs.testing` uses) may not be installed.
"""

from ..model import (
    DEFAULT_POLICY,
    VALUE_KEYS,
    Desc,
    ModelError,
    field_key,
    identical,
    key_function,
    model_equal,
    natural_key,
    value_key,
)

__all__ = [
    "DEFAULT_POLICY",
    "VALUE_KEYS",
    "Desc",
    "ModelError",
    "field_key",
    "identical",
    "key_function",
    "model_equal",
    "natural_key",
    "value_key",
]
