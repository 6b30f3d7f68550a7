# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The compiled ``tidb`` codec: the plan of ``codec.py`` run in C, both ways.

Theory of operation: :class:`CompiledBound` is the reference ``BoundTidb`` whose ``encode``
and ``decode`` are those of an :class:`Engine`, built once at bind from the same plan data
(``FieldCode``: kind, precision, frac) into a C array, with the codec's head (``t`` table
``_r``/``_i`` ...) and whether the key is an int handle. Encoding writes the head and then
each datum through ``_layout.pxi`` into one ``Buf`` (``lexcodecs/_engine.pxd``); decoding
checks the head and reads each datum by its flag.

Files: this one (constants, the plan, the engine and the bound object), ``_layout.pxi`` (the
bytes), ``_write.pxi`` (the writers, a decimal's digits included) and ``_read.pxi`` (the
readers), included below: one extension module.

Exact types only: ``int``, ``float``, ``Float32``, ``str``, ``bytes``/``bytearray``,
``decimal.Decimal`` (read from its ``str()``, C code and far cheaper than ``as_tuple()``;
written from its digits in C),
``datetime.timedelta`` and a ``datetime.datetime`` whose tzinfo is ``datetime.UTC`` itself.
Anything else -- a subclass, a bool, a value to refuse (out of range, a lone surrogate, a
naive or non-UTC datetime, a decimal that does not fit), the value encodings (``08``, ``09``,
``02``), a malformed key -- hands the *whole* key to the reference ``careful_*`` methods,
which give the same answer or raise the typed error. This module never words an error.
``lexcodecs._impl.HANDOVERS`` counts the hand-overs.
"""

import datetime as _dt
import decimal

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_CheckExact, PyByteArray_GET_SIZE
from cpython.bytes cimport (
    PyBytes_AS_STRING, PyBytes_CheckExact, PyBytes_FromStringAndSize, PyBytes_GET_SIZE,
)
from cpython.datetime cimport (
    PyDateTime_CheckExact, PyDateTime_DATE_GET_HOUR, PyDateTime_DATE_GET_MICROSECOND,
    PyDateTime_DATE_GET_MINUTE, PyDateTime_DATE_GET_SECOND, PyDateTime_DELTA_GET_DAYS,
    PyDateTime_DELTA_GET_MICROSECONDS, PyDateTime_DELTA_GET_SECONDS, PyDateTime_GET_DAY,
    PyDateTime_GET_MONTH, PyDateTime_GET_YEAR, PyDelta_CheckExact, datetime_new,
    datetime_tzinfo, import_datetime, timedelta_new,
)
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_CheckExact, PyFloat_FromDouble
from cpython.long cimport PyLong_FromLongLong, PyLong_FromUnsignedLongLong
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.object cimport PyTypeObject
from cpython.unicode cimport PyUnicode_CheckExact
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.string cimport memcmp, memcpy

from lexcodecs._engine cimport (
    Buf, buf_bytes, buf_free, buf_init, buf_put_n, buf_room, int64_of, uint64_of, utf8_of,
    values_of,
)
from lexcodecs._raw cimport SLACK, raw_be

include "_layout.pxi"

from lexcodecs._impl import HANDOVERS
from lexcodecs.types import Float32

# the flags and kinds: format.py's, through the _format.pxd the build writes from it
from lexcodecs.codecs.tidb._format cimport (
    BYTES_FLAG, DECIMAL_FLAG, DECIMAL_SIGN, DIGITS_PER_WORD, DURATION_FLAG, FLOAT_FLAG,
    HMS_BITS, HOUR_SHIFT, INT_FLAG, KIND_BYTES, KIND_DECIMAL, KIND_DURATION, KIND_FLOAT32,
    KIND_FLOAT64, KIND_INT64, KIND_STRING, KIND_TIMESTAMP, KIND_UINT64, MAX_FRAC,
    MAX_PRECISION, MICRO_BITS, MIN_MARKER, MINUTE_SHIFT, MONTHS_PER_YEAR_SLOT, NIL_FLAG,
    INT_HANDLE_KEY_LEN, NS_PER_US, UINT_FLAG, WORD_SIZE,
)

from . import format as _format
from .codec import BoundTidb

cdef extern from "Python.h":
    ctypedef struct PyFloatObject:
        double ob_fval
    object PyType_GenericAlloc(PyTypeObject *type, Py_ssize_t nitems)
    object PyUnicode_DecodeUTF8(const char *s, Py_ssize_t size, const char *errors)

import_datetime()

__all__ = ["CompiledBound", "Engine"]

ctypedef struct FieldSpec:
    int kind
    int precision   # a decimal's fixed (precision, frac); 0: the value's own shape
    int frac

cdef type Float32_t = Float32
cdef object Decimal_t = decimal.Decimal
cdef object UTC_ = _dt.UTC
cdef object HANDOVER = object()   # what a reader answers for bytes it does not take
cdef str PACKAGE = "tidb"
cdef int DIG2BYTES_[10]
cdef unsigned int POW10_[10]
cdef int DAYS_[13]

for _i, _n in enumerate(_format.DIG2BYTES):  # format.py's table, into C
    DIG2BYTES_[_i] = _n
    POW10_[_i] = 10 ** _i
for _i, _n in enumerate((0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)):
    DAYS_[_i] = _n


def field_row(code):
    """The C row of one field's plan data (``codec.FieldCode``)."""
    return (code.kind, code.precision, code.frac)


include "_write.pxi"
include "_read.pxi"

# -- the engine of one bound schema ---------------------------------------------------------


cdef class Engine:
    """``encode`` and ``decode`` of a bound schema, for its field rows and head."""

    cdef FieldSpec *fields
    cdef Py_ssize_t count
    cdef bytes head
    cdef bint int_handle, no_null
    cdef object careful_encode, careful_decode

    def __cinit__(self, rows, bytes head, bint int_handle, bint no_null, careful_encode,
                  careful_decode):
        cdef Py_ssize_t i
        rows = tuple(rows)
        self.count = len(rows)
        self.fields = <FieldSpec *> PyMem_Malloc(max(self.count, 1) * sizeof(FieldSpec))
        if self.fields == NULL:
            raise MemoryError()
        for i in range(self.count):
            self.fields[i].kind = rows[i][0]
            self.fields[i].precision = rows[i][1]
            self.fields[i].frac = rows[i][2]
        self.head = head
        self.int_handle = int_handle
        self.no_null = no_null
        self.careful_encode = careful_encode
        self.careful_decode = careful_decode

    def __dealloc__(self):
        PyMem_Free(self.fields)

    cdef object _encode(self, tuple values):
        cdef Py_ssize_t i
        cdef long long i64
        cdef Buf b
        buf_init(&b)
        try:
            buf_put_n(&b, <const unsigned char*>PyBytes_AS_STRING(self.head),
                      PyBytes_GET_SIZE(self.head))
            if self.int_handle:  # one int64, no flag
                if not int64_of(values[0], &i64):
                    return None
                buf_room(&b, 8 + SLACK)
                b.n = raw_be(b.p + b.n, <uint64_t>i64 ^ TI_SIGN, 8) - b.p
                return buf_bytes(&b)
            for i in range(self.count):
                if self.no_null and values[i] is None:
                    return None
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
        cdef const uint8_t* p = <const uint8_t*> PyBytes_AS_STRING(key)
        cdef Py_ssize_t n = PyBytes_GET_SIZE(key), i, hn = PyBytes_GET_SIZE(self.head)
        cdef Py_ssize_t pos = hn
        cdef object out, value
        if n < hn or memcmp(p, PyBytes_AS_STRING(self.head), hn) != 0:
            return None
        if self.int_handle:
            if n != INT_HANDLE_KEY_LEN:
                return None
            return (PyLong_FromLongLong(<long long>(get_u64(p + hn) ^ TI_SIGN)),)
        out = PyTuple_New(self.count)
        for i in range(self.count):
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
            except (ArithmeticError, ValueError, TypeError):  # invalid UTF-8: hand over
                out = None
            if out is not None:
                return out
        HANDOVERS[PACKAGE] += 1
        return self.careful_decode(key)


class CompiledBound(BoundTidb):
    """A bound ``tidb`` schema whose encode and decode run in :class:`Engine`."""

    __slots__ = ("decode", "encode", "engine")

    def __init__(self, codec, schema, plans):
        BoundTidb.__init__(self, codec, schema, plans)
        engine = Engine([field_row(code) for code in self.codes], self.head, self.int_handle,
                        self.int_handle or self.common_handle, self.careful_encode,
                        self.careful_decode)
        self.engine = engine
        self.encode = engine.encode
        self.decode = engine.decode
