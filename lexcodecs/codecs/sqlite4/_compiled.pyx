# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The compiled ``sqlite4`` codec: the plan of ``codec.py`` run in C, every type and order.

Theory of operation: :class:`CompiledBound` is the reference ``BoundSqlite4`` whose ``encode``
and ``decode`` are those of a :class:`Plan`, built once at bind from the same plan data
(``FieldCode``: kind, descending, int range) into a C array. Encoding writes each field
ascending into one ``Buf`` (``lexcodecs/_engine.pxd``) and complements a descending field's
bytes; decoding reads every byte of a descending field through ``mask = 0xff``. The kinds and
header bytes are ``format.py``'s, cimported from the ``_format.pxd`` the build writes from it
(``lexcodecs/_pxdgen.py``), under the names this module has always used for them.

Exact types only: ``int``, ``float``, ``decimal.Decimal``, ``str``, ``bytes``/``bytearray``
are read after an exact type check; anything else -- a subclass, bool, a refused value (NUL
in text, out of range, a NaN payload, an int of more than 10,000 digits), a malformed or
unusual key -- makes the writer or reader return ``HAND_OVER`` / ``0`` and the *whole* key
goes to the reference methods, which give the same bytes or raise the typed error. This
module never shapes an error and lets none of its own escape. ``lexcodecs._impl.HANDOVERS`` counts the
hand-overs.

Numbers are exact, as in the reference: an int through its digits (up to 64 bits the
number layout of ``lexcodecs/_centimal.pxi``, shared with HBase and the columnar kernel;
``str()`` beyond), a float through its shortest repr (Ryu, ``lexcodecs/_shortest.pxi``: the
digits of ``repr()``; the number by ``_layout.pxi``, shared with the kernel), a Decimal through ``str()`` -- libmpdec's to-scientific-string, the
sign, coefficient digits and exponent of ``as_tuple()`` spelled out, with no rounding and no
context (but the case of the ``E``) -- because ``as_tuple()`` costs a named-tuple call, 13
times ``str()``. Decoding builds digit text and lets Python's correctly rounded ``strtod``
(floats), the ``Decimal`` constructor (no context) or ``int`` read it.

Files: this one (constants, the plan and the bound objects), ``_layout.pxi`` (the bytes of
a number, shared with the columnar kernel), ``_write.pxi`` (the writers) and ``_read.pxi``
(the readers), included below: one extension module.
"""

import decimal
import math

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_CheckExact, PyByteArray_GET_SIZE
from cpython.bytes cimport (
    PyBytes_AS_STRING, PyBytes_CheckExact, PyBytes_FromStringAndSize, PyBytes_GET_SIZE,
)
from cpython.exc cimport PyErr_Clear
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_CheckExact
from cpython.list cimport PyList_Append, PyList_AsTuple
from cpython.long cimport PyLong_CheckExact, PyLong_FromLongLong, PyLong_FromUnsignedLongLong
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.object cimport PyObject
from cpython.ref cimport Py_DECREF, Py_INCREF
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE, PyTuple_New, PyTuple_SET_ITEM
from cpython.unicode cimport PyUnicode_CheckExact
from libc.string cimport memchr, memcmp

from lexcodecs._engine cimport (
    Buf, PyLong_AsLongLongAndOverflow, buf_bytes, buf_free, buf_grow, buf_init, buf_invert,
    buf_put, buf_put_n, buf_room, int64_of, uint64_of, utf8_of, values_of,
)
from lexcodecs._raw cimport SLACK, raw_has00, raw_seven

from lexcodecs.codecs.sqlite4._format cimport (
    BINARY as H_BINARY, FINAL_BINARY as H_FINAL, INT_FROM_STR_DIGITS, INT_VIA_DECIMAL_BITS,
    INT_VIA_STR_BITS, KIND_BYTES as K_BYTES, KIND_DECIMAL as K_DECIMAL, KIND_FINAL as K_FINAL,
    KIND_FLOAT64 as K_FLOAT64, KIND_INT as K_INT, KIND_STRING as K_STRING, MAX_INT_DIGITS,
    MEDIUM_MIN_E, NAN as H_NAN, NULL_ as H_NULL, TEXT as H_TEXT,
)
# the number's class bytes: lexcodecs/centimal.py's (sqlite4's format.py re-exports them)
from lexcodecs._centimal_format cimport (
    MEDIUM_MAX_E, NEG_INF as H_NEG_INF, NEG_LARGE as H_NEG_LARGE, NEG_MEDIUM as H_NEG_MEDIUM,
    NEG_SMALL as H_NEG_SMALL, POS_INF as H_POS_INF, POS_LARGE as H_POS_LARGE,
    POS_MEDIUM as H_POS_MEDIUM, POS_SMALL as H_POS_SMALL, ZERO as H_ZERO,
)

from .codec import BoundSqlite4
from lexcodecs._impl import HANDOVERS

cdef extern from "Python.h":
    double PyOS_string_to_double(const char *s, char **endptr,
                                 PyObject *overflow_exception) except? -1.0
    PyObject *PyUnicode_DecodeUTF8(const char *s, Py_ssize_t size, const char *errors)
    PyObject *PyUnicode_FromStringAndSize(const char *u, Py_ssize_t size)
    double PyLong_AsDouble(object v) except? -1.0
    object PyLong_FromDouble(double v)
    object PyObject_Str(object v)

__all__ = ["CompiledBound", "Plan", "Schemaless"]

# -- the format (format.py) -----------------------------------------------------------------

cdef enum:
    K_ANY = 6          # no schema: the type from the value, or from the header (not a field's)

# a varint exponent beyond this never comes from an encoder (a Decimal's reaches 1e18); such
# a key is handed over, so 2E fits a long long below
cdef unsigned long long MAX_VARINT_E = 1ULL << 61

cdef object Decimal = decimal.Decimal
cdef long long MIN_ETINY = decimal.MIN_ETINY
cdef long long MAX_EMAX = decimal.MAX_EMAX
cdef object FLOAT_NAN = math.nan
cdef object FLOAT_INF = math.inf
cdef object FLOAT_NEG_INF = -math.inf
cdef object DECIMAL_NAN = Decimal("NaN")
cdef object DECIMAL_INF = Decimal("Infinity")
cdef object DECIMAL_NEG_INF = Decimal("-Infinity")
cdef object DECIMAL_ZERO = Decimal(0)
cdef object TEN = 10

#: what a reader returns to hand the key over (``None`` is a value: NULL)
cdef object HAND_OVER = object()
#: hand-overs are counted in lexcodecs._impl.HANDOVERS under this package's name
cdef str PACKAGE = "sqlite4"






ctypedef struct FieldC:
    int kind
    unsigned char mask          # 0xff: descending
    bint bounded                # an int field with a range
    long long lo
    unsigned long long hi


# the layouts below the codecs: Ryu's shortest digits, then the base-100 number; then this
# format's own (its numbers), shared with the columnar kernel
include "../../_shortest.pxi"
_shortest_init()
include "../../_centimal.pxi"
include "_layout.pxi"

include "_write.pxi"
include "_read.pxi"

# -- the bound objects ----------------------------------------------------------------------


cdef class Plan:
    """A bound schema in C: one ``FieldC`` per field, the table prefix, and the reference
    methods that take the keys this code hands over."""

    cdef FieldC *fields
    cdef Py_ssize_t count
    cdef bytes prefix
    cdef object hand_encode, hand_decode

    def __cinit__(self, codes, bytes prefix, hand_encode, hand_decode):
        cdef Py_ssize_t i
        self.count = len(codes)
        self.fields = <FieldC *> PyMem_Malloc(max(self.count, 1) * sizeof(FieldC))
        if self.fields == NULL:
            raise MemoryError()
        for i, (kind, descending, lo, hi) in enumerate(codes):
            self.fields[i].kind = kind
            self.fields[i].mask = 0xFF if descending else 0
            self.fields[i].bounded = lo is not None
            self.fields[i].lo = lo if lo is not None else 0
            self.fields[i].hi = hi if hi is not None else 0
        self.prefix = prefix
        self.hand_encode = hand_encode
        self.hand_decode = hand_decode

    def __dealloc__(self):
        PyMem_Free(self.fields)

    def encode(self, values):
        """The key of *values* (a tuple or list, one value per field)."""
        cdef object key
        cdef tuple items = values_of(values)
        if items is not None and PyTuple_GET_SIZE(items) == self.count:
            key = encode_key(self.fields, self.count, self.prefix, items, 0)
            if key is not None:
                return key
        HANDOVERS[PACKAGE] += 1
        return self.hand_encode(values)

    def decode(self, key):
        """The values of *key* (bytes), one per field."""
        cdef const unsigned char *p
        cdef Py_ssize_t n, pos, i
        cdef object out, v
        cdef FieldC *f
        if PyBytes_CheckExact(key):
            p = <const unsigned char *> PyBytes_AS_STRING(key)
            n = PyBytes_GET_SIZE(key)
            if prefix_matches(p, n, self.prefix):
                pos = PyBytes_GET_SIZE(self.prefix)
                out = PyTuple_New(self.count)
                for i in range(self.count):
                    f = self.fields + i
                    v = read_value(p, n, &pos, f, f.mask)
                    if v is HAND_OVER:
                        break
                    Py_INCREF(v)
                    PyTuple_SET_ITEM(out, i, v)
                else:
                    if pos == n:
                        return out
        HANDOVERS[PACKAGE] += 1
        return self.hand_decode(key)


cdef class Schemaless:
    """Keys without a schema: types from the values, and from the header bytes."""

    cdef FieldC any_
    cdef bytes prefix
    cdef object hand_encode, hand_decode

    def __cinit__(self, bytes prefix, hand_encode, hand_decode):
        self.any_.kind = K_ANY
        self.any_.mask = 0
        self.any_.bounded = 0
        self.prefix = prefix
        self.hand_encode = hand_encode
        self.hand_decode = hand_decode

    def encode(self, values):
        """The key of *values* (a non-empty tuple or list), each typed by its value."""
        cdef object key
        cdef tuple items = values_of(values)
        if items is not None and PyTuple_GET_SIZE(items):
            key = encode_key(&self.any_, 1, self.prefix, items, 1)
            if key is not None:
                return key
        HANDOVERS[PACKAGE] += 1
        return self.hand_encode(values)

    def decode(self, key):
        """The values of *key*, each typed by its header."""
        cdef const unsigned char *p
        cdef Py_ssize_t n, pos
        cdef unsigned char b
        cdef list out
        cdef object v
        if PyBytes_CheckExact(key):
            p = <const unsigned char *> PyBytes_AS_STRING(key)
            n = PyBytes_GET_SIZE(key)
            pos = PyBytes_GET_SIZE(self.prefix)
            if pos < n and prefix_matches(p, n, self.prefix):
                out = []
                while pos < n:
                    b = p[pos]
                    if H_NULL <= b <= H_FINAL:
                        v = read_value(p, n, &pos, &self.any_, 0)
                    elif 0xFF ^ H_BINARY <= b <= 0xFF ^ H_NULL:
                        v = read_value(p, n, &pos, &self.any_, 0xFF)
                    else:
                        break
                    if v is HAND_OVER:
                        break
                    PyList_Append(out, v)
                else:
                    return PyList_AsTuple(out)
        HANDOVERS[PACKAGE] += 1
        return self.hand_decode(key)


class CompiledBound(BoundSqlite4):
    """``BoundSqlite4`` whose ``encode`` and ``decode`` run compiled (the slots shadow the
    reference methods, so a call reaches the C code with no Python frame between)."""

    __slots__ = ("decode", "encode", "plan")

    def __init__(self, codec, schema, plans):
        BoundSqlite4.__init__(self, codec, schema, plans)
        self.plan = Plan(self.codes, self.table_prefix, self.careful_encode,
                         self.careful_decode)
        self.encode = self.plan.encode
        self.decode = self.plan.decode
