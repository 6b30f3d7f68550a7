# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The compiled ``hbase-orderedbytes`` codec: the plan of ``codec.py`` run in C, both ways.

Theory of operation: :class:`CompiledBound` is the reference ``BoundHBase`` whose ``encode``
and ``decode`` are those of an :class:`Engine`, built once at bind from the same plan data
(``FieldCode``: kind, descending, nullable, field type, with the widths, ranges and headers
of ``format.py``) into a C array. Encoding writes each field ascending into one ``Buf``
(``lexcodecs/_engine.pxd``) and complements a descending field's bytes; decoding reads every
byte of a descending field through ``mask = 0xff``. Under ``api="struct"`` trailing NULLs of
nullable fields are dropped and a missing tail of nullable fields reads as NULL.

Numbers are written from decimal digits, as the reference writes them: an int's (C
arithmetic up to 64 bits, ``str()`` beyond), a float's shortest round-trip digits (Ryu, the
digits of ``repr()``: ``lexcodecs/_shortest.pxi``, included), a Decimal's from its
``str()``; then rounded half-up to 31 digits and cut into centimal digits. Decoding builds
digit text and lets ``strtod`` (floats, after an exact fast path), the ``Decimal``
constructor or ``int`` read it: linear in the key.

Exact types only: ``int``, ``float``, ``Float32``, ``decimal.Decimal``, ``str``,
``bytes``/``bytearray`` are read after an exact type check. Anything else -- a subclass,
bool, a refused value (U+0000 in text, out of range, an inexact float32, an exponent beyond
HBase's range, a one-digit subnormal double, whose Java digits differ from ``repr``), a
malformed or non-canonical key -- hands the *whole* key to the reference ``careful_*``
methods, which give the same answer or raise the typed error. This module never words an
error. ``lexcodecs._impl.HANDOVERS`` counts the hand-overs.

Files: this one (constants, the plan, the engine and the bound object), ``_layout.pxi``
(BlobVar's bytes, shared with the columnar kernel), ``_write.pxi`` (the writers) and
``_read.pxi`` (the readers), included below: one extension module.
"""

import decimal

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_CheckExact, PyByteArray_GET_SIZE
from cpython.bytes cimport (
    PyBytes_AS_STRING, PyBytes_CheckExact, PyBytes_FromStringAndSize, PyBytes_GET_SIZE,
)
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_CheckExact, PyFloat_FromDouble
from cpython.long cimport PyLong_CheckExact, PyLong_FromLongLong
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.unicode cimport PyUnicode_CheckExact
from libc.float cimport DBL_MIN, FLT_MAX
from libc.math cimport fabs, isinf
from libc.string cimport memchr, memcpy

from lexcodecs._engine cimport (
    Buf, bits_double, buf_bytes, buf_free, buf_init, buf_invert, buf_put, buf_put_be,
    buf_put_n, buf_room, double_bits, get_be, int64_of, order_bits, unorder_bits, utf8_of,
    values_of,
)

# the layouts below the codecs: Ryu's shortest digits, then SQLite4's base-100 number; then
# this format's own (BlobVar), shared with the columnar kernel
include "../../_shortest.pxi"
include "../../_centimal.pxi"
include "_layout.pxi"

from lexcodecs._impl import HANDOVERS
from lexcodecs.types import Float32

# the kinds and header bytes: format.py's, through the _format.pxd the build writes from it
# (lexcodecs/_pxdgen.py), under this module's names for them
from lexcodecs.codecs.hbase_orderedbytes._format cimport (
    BLOB_COPY as H_BLOB_COPY, BLOB_VAR as H_BLOB_VAR, INT_VIA_STR_BITS, KIND_BIGINT,
    KIND_BLOB_COPY, KIND_BLOB_VAR, KIND_DECIMAL, KIND_FIXED_FLOAT, KIND_FIXED_INT,
    KIND_NUM_FLOAT32, KIND_NUM_FLOAT64, KIND_NUM_INT64, KIND_STRING, MAX_DIGITS, MAX_E,
    MAX_INT_DIGITS, MEDIUM_MIN_E, MIN_EXP, NAN as H_NAN, NULL_ as H_NULL, TEXT as H_TEXT,
)
# the number's class bytes: lexcodecs/centimal.py's (this format.py re-exports them)
from lexcodecs._centimal_format cimport (
    MEDIUM_MAX_E, NEG_INF as H_NEG_INF, NEG_LARGE as H_NEG_LARGE, NEG_MEDIUM as H_NEG_MEDIUM,
    NEG_SMALL as H_NEG_SMALL, POS_INF as H_POS_INF, POS_LARGE as H_POS_LARGE,
    POS_MEDIUM as H_POS_MEDIUM, POS_SMALL as H_POS_SMALL, ZERO as H_ZERO,
)

from . import format as _format
from .codec import BoundHBase

cdef extern from "Python.h":
    ctypedef struct PyFloatObject:
        double ob_fval
    object PyType_GenericAlloc(PyTypeObject *type, Py_ssize_t nitems)
    double PyOS_string_to_double(const char *s, char **endptr,
                                 PyObject *overflow_exception) except? -1.0
    object PyUnicode_DecodeUTF8(const char *s, Py_ssize_t size, const char *errors)
    object PyObject_Str(object v)

__all__ = ["CompiledBound", "Engine"]

ctypedef struct FieldSpec:
    int kind
    unsigned char mask          # 0xff descending, 0 ascending
    unsigned char nullable
    unsigned char header        # a fixed-width type's header byte
    int width                   # a fixed-width type's payload width
    long long lo                # a fixed int's range
    long long hi

cdef type Float32_t = Float32
cdef object Decimal_t = decimal.Decimal
cdef object DECIMAL_ZERO = decimal.Decimal(0)
cdef object HANDOVER = object()   # what a reader answers for bytes it does not take
cdef str PACKAGE = "hbase_orderedbytes"
cdef double NAN_ = float("nan")
cdef double INF_ = float("inf")
cdef double POW10[23]
cdef object TEN = 10
cdef object INT64_MIN = -(1 << 63)
cdef object INT64_MAX = (1 << 63) - 1

_shortest_init()
for _i in range(23):
    POW10[_i] = float(10 ** _i)


def field_row(code):
    """The C row of one field's plan data (``codec.FieldCode``)."""
    header, width, lo, hi = 0, 0, 0, 0
    if code.kind == KIND_FIXED_INT:
        header, width, lo, hi = _format.FIXED_INTS[code.field_type]
    elif code.kind == KIND_FIXED_FLOAT:
        header, width, _ = _format.FIXED_FLOATS[code.field_type]
    return (code.kind, 0xFF if code.descending else 0, 1 if code.nullable else 0, header,
            width, lo, hi)


include "_write.pxi"
include "_read.pxi"

# -- the engine of one bound schema ---------------------------------------------------------


cdef class Engine:
    """``encode`` and ``decode`` of a bound schema, for its field rows."""

    cdef FieldSpec *fields
    cdef Py_ssize_t count
    cdef bint is_struct
    cdef object careful_encode, careful_decode

    def __cinit__(self, rows, bint is_struct, careful_encode, careful_decode):
        cdef Py_ssize_t i
        rows = tuple(rows)
        self.count = len(rows)
        self.fields = <FieldSpec *> PyMem_Malloc(max(self.count, 1) * sizeof(FieldSpec))
        if self.fields == NULL:
            raise MemoryError()
        for i in range(self.count):
            row = rows[i]
            self.fields[i].kind = row[0]
            self.fields[i].mask = row[1]
            self.fields[i].nullable = row[2]
            self.fields[i].header = row[3]
            self.fields[i].width = row[4]
            self.fields[i].lo = row[5]
            self.fields[i].hi = row[6]
        self.is_struct = is_struct
        self.careful_encode = careful_encode
        self.careful_decode = careful_decode

    def __dealloc__(self):
        PyMem_Free(self.fields)

    cdef object _encode(self, tuple values):
        cdef Py_ssize_t i, end = self.count
        cdef Buf b
        if self.is_struct:
            while end > 0 and values[end - 1] is None and self.fields[end - 1].nullable:
                end -= 1
        buf_init(&b)
        try:
            for i in range(end):
                if not write_field(&b, &self.fields[i], values[i]):
                    return None
            return buf_bytes(&b)
        finally:
            buf_free(&b)

    def encode(self, values):
        cdef tuple items = values_of(values)
        cdef object key
        if items is not None and len(items) == self.count:
            key = self._encode(items)
            if key is not None:
                return key
        HANDOVERS[PACKAGE] += 1
        return self.careful_encode(values)

    cdef object _decode(self, bytes key):
        cdef const unsigned char *p = <const unsigned char *> PyBytes_AS_STRING(key)
        cdef Py_ssize_t n = PyBytes_GET_SIZE(key), i, pos = 0
        cdef object out = PyTuple_New(self.count), value
        for i in range(self.count):
            if self.is_struct and pos == n and self.fields[i].nullable:
                value = None
            else:
                value = read_field(&self.fields[i], p, n, &pos)
                if value is HANDOVER:
                    return None
            Py_INCREF(value)
            PyTuple_SET_ITEM(out, i, value)
        if pos != n:
            return None
        return out

    def decode(self, key):
        cdef object out
        if PyBytes_CheckExact(key):
            try:
                out = self._decode(key)
            except (ArithmeticError, ValueError, TypeError):  # never expected: hand over
                out = None
            if out is not None:
                return out
        HANDOVERS[PACKAGE] += 1
        return self.careful_decode(key)


class CompiledBound(BoundHBase):
    """A bound ``hbase-orderedbytes`` schema whose encode and decode run in :class:`Engine`."""

    __slots__ = ("decode", "encode", "engine")

    def __init__(self, codec, schema, plans):
        BoundHBase.__init__(self, codec, schema, plans)
        engine = Engine([field_row(code) for code in self.codes], self.struct,
                        self.careful_encode, self.careful_decode)
        self.engine = engine
        self.encode = engine.encode
        self.decode = engine.decode
