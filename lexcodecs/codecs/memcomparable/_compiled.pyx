# cython: language_level=3, boundscheck=False, wraparound=False
"""The compiled ``memcomparable`` engine: every field type, order and Option nesting, both ways.

Theory of operation: a bound schema hands this module one row of ints per field
(``format.FieldLayout.row``: kind, width, direction mask, Option layers, integer range), built
from the same table the reference code reads. :class:`Engine` copies the rows into a C array
once, then encodes and decodes with a ``switch`` per field on the kind, one :c:type:`Buf`, and
the bytes written by ``_layout.pxi`` (a decimal by ``lexcodecs/_centimal.pxi``).

The protocol is ``lexcodecs/_engine.pxd``'s: a descending field is written ascending, then
inverted; read through ``mask``. Exact types are checked before any internals are read.
Anything this module does not take as its own -- a subclass, a value to refuse, a decimal
near rust_decimal's limits, a malformed or non-canonical key (the crate's lenient readings
included) -- hands the *whole* key to the reference ``careful_*`` method, which gives the same
answer or raises the typed error. This module never words an error;
``lexcodecs._impl.HANDOVERS`` counts the hand-overs.

Files: this one (constants, the plan and the bound objects), ``_layout.pxi`` (the bytes,
shared layouts below it), ``_write.pxi`` (the writers of Python values) and ``_read.pxi``
(the readers), included below: one extension module.
"""

import decimal

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_CheckExact, PyByteArray_GET_SIZE
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_CheckExact, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_CheckExact, PyFloat_FromDouble
from cpython.long cimport PyLong_CheckExact, PyLong_FromLongLong, PyLong_FromUnsignedLongLong
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE, PyTuple_New, PyTuple_SET_ITEM
from cpython.unicode cimport PyUnicode_CheckExact, PyUnicode_DecodeUTF8
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.float cimport FLT_MAX
from libc.math cimport fabs, isinf
from libc.string cimport memcpy

from lexcodecs._engine cimport (
    Buf, bits_double, buf_bytes, buf_free, buf_init, buf_invert, buf_put, buf_put_n,
    buf_room, get_be, int64_of, uint64_of, utf8_of, values_of,
)
from lexcodecs._raw cimport SLACK

from lexcodecs.codecs.memcomparable._format cimport (
    CHAR_MAX, DEC_NAN, DEC_SCALE_MAX, K_BOOL, K_BYTES, K_CHAR, K_DECIMAL, K_FLOAT32, K_FLOAT64,
    K_INT, K_INT128, K_SEQ, K_STRING, K_UINT, K_UINT128, K_VARIANT, MORE, SURROGATE_FIRST,
    SURROGATE_LAST,
)
from lexcodecs._centimal_format cimport (
    NEG_INF as H_NEG_INF, NEG_LARGE as H_NEG_LARGE, NEG_MEDIUM as H_NEG_MEDIUM,
    NEG_SMALL as H_NEG_SMALL, POS_INF as H_POS_INF, POS_LARGE as H_POS_LARGE,
    POS_MEDIUM as H_POS_MEDIUM, POS_SMALL as H_POS_SMALL, ZERO as H_ZERO,
)

# the layouts below the codecs: Ryu's shortest digits (the base-100 number's file needs
# them), the base-100 number, then this format's own
include "../../_shortest.pxi"
_shortest_init()
include "../../_centimal.pxi"
include "_layout.pxi"

from lexcodecs.types import Float32, Some
from .codec import BoundMemcomparable
from lexcodecs._impl import HANDOVERS

cdef extern from "Python.h":
    ctypedef struct PyFloatObject:
        double ob_fval
    object PyType_GenericAlloc(PyTypeObject *type, Py_ssize_t nitems)
    object PyUnicode_FromOrdinal(int ordinal)
    object PyObject_Str(object v)
    Py_ssize_t PyUnicode_GET_LENGTH(object s)
    Py_UCS4 PyUnicode_READ_CHAR(object s, Py_ssize_t index)

cdef type Float32_t = Float32
cdef type Some_t = Some
cdef type Decimal_t = decimal.Decimal
cdef object DECIMAL_NAN = decimal.Decimal("NaN")
cdef object DECIMAL_INF = decimal.Decimal("Infinity")
cdef object DECIMAL_NEG_INF = decimal.Decimal("-Infinity")
cdef object DECIMAL_ZERO = decimal.Decimal(0)
#: 2**127 and 2**128: a 128-bit field's bias and range, as Python ints
cdef object BIAS128 = 1 << 127
cdef object SPAN128 = 1 << 128
cdef object HANDOVER = object()   # what a reader answers for bytes it does not take
#: hand-overs are counted in lexcodecs._impl.HANDOVERS under this package's name
cdef str PACKAGE = "memcomparable"

ctypedef struct FieldSpec:
    int kind
    int width                   # a fixed-width type's bytes
    unsigned char mask          # 0xff descending, 0 ascending
    int layers                  # Option layers: 0, 1 or 2
    long long lo                # an int type's range (64 bits and below)
    unsigned long long hi

include "_write.pxi"
include "_read.pxi"

# -- the engine of one bound schema ---------------------------------------------------------


cdef class Engine:
    """``encode`` and ``decode`` of a bound schema (see ``codec.py``), for its field rows."""

    cdef FieldSpec *fields
    cdef Py_ssize_t count
    cdef object careful_encode, careful_decode

    def __cinit__(self, rows, careful_encode, careful_decode):
        cdef Py_ssize_t i
        rows = tuple(rows)
        self.count = len(rows)
        self.fields = <FieldSpec *> PyMem_Malloc(max(self.count, 1) * sizeof(FieldSpec))
        if self.fields == NULL:
            raise MemoryError()
        for i in range(self.count):
            row = rows[i]
            self.fields[i].kind, self.fields[i].width = row[0], row[1]
            self.fields[i].mask, self.fields[i].layers = row[2], row[3]
            self.fields[i].lo, self.fields[i].hi = row[4], row[5]
        self.careful_encode = careful_encode
        self.careful_decode = careful_decode

    def __dealloc__(self):
        PyMem_Free(self.fields)

    def encode(self, values):
        """The key of *values* (a tuple or list, one value per field)."""
        cdef tuple items = values_of(values)
        cdef Py_ssize_t i
        cdef Buf b
        if items is not None and PyTuple_GET_SIZE(items) == self.count:
            buf_init(&b)
            try:
                for i in range(self.count):
                    if not write_field(&b, &self.fields[i],
                                       <object> PyTuple_GET_ITEM(items, i)):
                        break
                else:
                    return buf_bytes(&b)
            finally:
                buf_free(&b)
        HANDOVERS[PACKAGE] += 1
        return self.careful_encode(values)

    def decode(self, key):
        """The values of *key* (bytes), one per field."""
        cdef const unsigned char *p
        cdef Py_ssize_t n, pos = 0, i
        cdef object out, value
        if PyBytes_CheckExact(key):
            p = <const unsigned char *> PyBytes_AS_STRING(key)
            n = PyBytes_GET_SIZE(key)
            out = PyTuple_New(self.count)
            for i in range(self.count):
                value = read_field(&self.fields[i], p, n, &pos)
                if value is HANDOVER:
                    break
                Py_INCREF(value)
                PyTuple_SET_ITEM(out, i, value)
            else:
                if pos == n:
                    return out
        HANDOVERS[PACKAGE] += 1
        return self.careful_decode(key)


class CompiledBoundMemcomparable(BoundMemcomparable):
    """A bound ``memcomparable`` schema whose ``encode`` and ``decode`` run in :class:`Engine`."""

    __slots__ = ("engine",)

    def __init__(self, codec, schema, plans):
        BoundMemcomparable.__init__(self, codec, schema, plans)
        engine = Engine([layout.row() for layout in self.layouts], self.careful_encode,
                        self.careful_decode)
        self.engine = engine
        self.encode = engine.encode
        self.decode = engine.decode
