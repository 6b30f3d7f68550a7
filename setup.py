"""Build of the optional C extension; everything else is in pyproject.toml.

``lexcodecs._speedups`` holds C fast paths for the common case of the fdb-tuple codec. It
is optional: without a C compiler the build skips it and lexcodecs runs in pure Python with
the same results (the C code only ever answers what the Python code would). Set
``LEXCODECS_PURE=1`` at run time to ignore a built extension.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("lexcodecs._speedups", ["lexcodecs/_speedups.c"], optional=True,
                  extra_compile_args=["-O2"]),
    ],
)
