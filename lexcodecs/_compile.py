"""Writing one Python function per bound schema, as attrs writes ``__init__``.

Theory of operation: once a schema is bound, each field's type is known, so the per-value
dispatch of a generic path is wasted work. A codec describes each field's common case as a
*guard* (a test on the value) and an *expression* (its bytes); :func:`compile_encode` writes
a function that unpacks the values, checks every guard, and joins the expressions. Whatever a
guard does not admit, or any exception, goes to the codec's careful path for the whole key,
so the compiled code never explains an error and never accepts what the careful path refuses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["compile_encode", "compile_function", "value_names"]


def value_names(n: int) -> tuple[list[str], str]:
    """The variable names of *n* field values, and the unpacking target for them."""
    names = [f"v{i}" for i in range(n)]
    return names, ", ".join(names) + ("," if n == 1 else "")


def compile_function(source: str, name: str, label: str, namespace: dict[str, Any]
                     ) -> Callable[..., Any]:
    """Execute *source* in *namespace* and return the function *name* it defines; *label*
    names it in tracebacks (``<skv bound to a:int64>``)."""
    exec(compile(source + "\n", f"<{label}>", "exec"), namespace)
    function: Callable[..., Any] = namespace[name]
    return function


def compile_encode(label: str, guards: Sequence[str], exprs: Sequence[str], joiner: bytes,
                   careful: Callable[[Sequence[Any]], bytes], namespace: dict[str, Any]
                   ) -> Callable[[Sequence[Any]], bytes]:
    """``encode(values)``: the fields' expressions joined by *joiner* when every guard holds
    (guards and expressions use the names of :func:`value_names`), else ``careful(values)``."""
    _, unpack = value_names(len(guards))
    source = "\n".join([
        "def encode(values):",
        "    if type(values) is tuple or type(values) is list:",
        "        try:",
        f"            {unpack} = values",
        f"            if {' and '.join(guards)}:",
        f"                return {joiner!r}.join(({', '.join(exprs)},))",
        "        except Exception:",
        "            pass",
        "    return careful(values)",
    ])
    return compile_function(source, "encode", label, {**namespace, "careful": careful})
