# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled ``fdb-tuple`` codec: the reference encoder and decoder, in Cython.

Theory of operation: the format is the one of ``format.py``; this module writes and reads it
for the exact Python types the reference code dispatches on, and hands anything else to the
reference code for the *whole* key (the protocol of ``lexcodecs/_engine.pxd``):

* writers (``put_*``) return 1 (written), 0 (hand over, no exception) or -1 (a real error,
  such as MemoryError); readers (``read_*``) return the value, or :data:`HAND` to hand over;
* values are read only after their exact type is checked: a ``Float32`` through its float
  value and a ``bits`` slot that must agree with it, a ``UUID``'s ``int`` and a
  ``Versionstamp``'s fields only when they are the exact types and in range;
* nested tuples recurse at most the codec's ``max_depth`` levels, and never more than
  :data:`MAX_DEPTH`; deeper ones are handed over, and the reference code refuses what is
  deeper than ``max_depth`` (with the error and its offset) or reads it with an explicit
  stack. A hostile run of ``05`` is handed over after *limit* bytes, before anything big is
  built, and the reference code stops at the byte where ``max_depth`` is crossed;
* every hand-over is counted (``lexcodecs._impl.HANDOVERS``), so a test can assert that valid values of
  every supported type never take it.

The writers are in ``_write.pxi`` and the readers in ``_read.pxi``, included below, and the
integers' bytes in ``_layout.pxi``, which the columnar kernel includes too (one module, four
files). The entry points: :class:`Schemaless` (a codec instance's ``encode``
and ``decode``, which read ``lexcodecs._impl.current`` on every call), :class:`BoundTuple` (a
bound schema, from the plan ``codec.py`` makes: a kind per field, ``format.FIELD_KINDS``, and
the integer ranges) and :func:`encode_with_versionstamp`.
"""

import types as _types
import uuid as _uuid

from cpython.bytes cimport (
    PyBytes_AS_STRING, PyBytes_CheckExact, PyBytes_FromStringAndSize, PyBytes_GET_SIZE,
)
from cpython.dict cimport PyDict_GetItem
from cpython.exc cimport PyErr_Clear
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_FromDouble
from cpython.list cimport PyList_AsTuple, PyList_GET_ITEM, PyList_GET_SIZE
from cpython.long cimport (
    PyLong_CheckExact, PyLong_FromDouble, PyLong_FromLongLong, PyLong_FromUnsignedLongLong,
)
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.object cimport Py_TYPE, PyObject, PyTypeObject
from cpython.ref cimport Py_DECREF, Py_INCREF
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE, PyTuple_New, PyTuple_SET_ITEM
from libc.math cimport isinf
from libc.string cimport memchr, memcmp, memcpy

from lexcodecs._engine cimport (
    Buf, bits_double, buf_bytes, buf_free, buf_grow, buf_init, buf_put, buf_put_be,
    buf_put_escaped, buf_put_n, buf_room, double_bits, get_be, order_bits, uint64_of,
    unorder_bits, utf8_of,
)
from lexcodecs._raw cimport SLACK

# the integers' layout, shared with the columnar kernel
include "_layout.pxi"

from lexcodecs import _impl
from lexcodecs.types import Float32, Versionstamp
from lexcodecs._impl import HANDOVERS

cdef extern from "Python.h":
    PyTypeObject PyUnicode_Type
    PyTypeObject PyLong_Type
    PyTypeObject PyBytes_Type
    PyTypeObject PyFloat_Type
    PyTypeObject PyBool_Type
    PyTypeObject PyTuple_Type
    PyTypeObject PyList_Type
    PyObject *PyUnicode_DecodeUTF8(const char *s, Py_ssize_t size, const char *errors)
    long long PyLong_AsLongLongAndOverflow(object v, int *overflow)
    unsigned long long PyLong_AsUnsignedLongLong(object v)
    double PyLong_AsDouble(object v)
    PyObject *PyErr_Occurred()
    int PyObject_RichCompareBool(object a, object b, int op)
    PyObject **PySequence_Fast_ITEMS(object o)

cdef extern from *:
    """
    /* object.__new__(t) for a type whose __new__ is object's, float's for a float subclass;
       the slots of __slots__ classes are read and written through their member descriptors,
       as object.__getattribute__ / object.__setattr__ do, without the attribute lookup */
    static PyObject *lc_alloc(PyTypeObject *t) { return t->tp_alloc(t, 0); }
    static PyObject *lc_new_float(PyTypeObject *t, double d) {
        PyObject *o = t->tp_alloc(t, 0);
        if (o) ((PyFloatObject *)o)->ob_fval = d;
        return o;
    }
    static int lc_slot_set(PyObject *descr, PyObject *obj, PyObject *value) {
        return Py_TYPE(descr)->tp_descr_set(descr, obj, value);
    }
    static PyObject *lc_slot_get(PyObject *descr, PyObject *obj) {
        return Py_TYPE(descr)->tp_descr_get(descr, obj, (PyObject *)Py_TYPE(obj));
    }
    static PyObject *lc_long_from_be(const unsigned char *p, size_t n) {
        return _PyLong_FromByteArray(p, n, 0, 0);
    }
    /* the unsigned big-endian n bytes of v; -1 with an exception (negative, too large) */
    static int lc_long_to_be(PyObject *v, unsigned char *out, size_t n) {
    #if PY_VERSION_HEX >= 0x030D0000
        return _PyLong_AsByteArray((PyLongObject *)v, out, n, 0, 0, 1);
    #else
        return _PyLong_AsByteArray((PyLongObject *)v, out, n, 0, 0);
    #endif
    }
    static long long lc_num_bits(PyObject *v) { return (long long)_PyLong_NumBits(v); }
    """
    object lc_alloc(PyTypeObject *t)
    object lc_new_float(PyTypeObject *t, double d)
    int lc_slot_set(PyObject *descr, object obj, object value)
    PyObject *lc_slot_get(PyObject *descr, object obj)
    object lc_long_from_be(const unsigned char *p, size_t n)
    int lc_long_to_be(object v, unsigned char *out, size_t n)
    long long lc_num_bits(object v)

# -- plan data and module state -------------------------------------------------------------

# the field kinds (format.FIELD_KINDS) and the nesting bound: format.py's, through the
# _format.pxd the build writes from it (lexcodecs/_pxdgen.py). MAX_DEPTH, the default of the
# max_depth option, is the most nesting written or read here (the recursion bound); deeper
# tuples go to the reference code
from lexcodecs.codecs.fdb_tuple._format cimport (
    KIND_BOOL as K_BOOL, KIND_BYTES as K_BYTES, KIND_FLOAT32 as K_FLOAT32,
    KIND_FLOAT64 as K_FLOAT64, KIND_INT as K_INT, KIND_STRING as K_STRING,
    KIND_TUPLE as K_TUPLE, KIND_UUID as K_UUID, MAX_DEPTH,
)

ctypedef struct FieldPlan:
    int kind
    bint ranged                  # an int field with a range of its own
    unsigned long long max_neg   # largest magnitude of a negative value
    unsigned long long max_pos   # largest positive value

ctypedef struct IntInfo:
    bint neg
    bint big                     # magnitude over 64 bits
    unsigned long long mag

#: what a reader returns to hand the key over (writers return 0)
cdef object HAND = object()
#: hand-overs are counted in lexcodecs._impl.HANDOVERS under this package's name
cdef str PACKAGE = "fdb_tuple"

cdef dict IMPL = vars(_impl)
cdef str COMPILED = "compiled"
cdef object ZERO = 0
cdef object SAFE_UNKNOWN = _uuid.SafeUUID.unknown

cdef type F32_TYPE = Float32
cdef type UUID_TYPE = _uuid.UUID
cdef type STAMP_TYPE = Versionstamp


def _slot(cls, name):
    descr = cls.__dict__.get(name)
    if type(descr) is not _types.MemberDescriptorType:
        raise ImportError(f"{cls.__name__}.{name} is not a __slots__ member; "
                          "the compiled fdb-tuple module does not know this class")
    return descr


cdef object F32_BITS = _slot(Float32, "bits")
cdef object UUID_INT = _slot(_uuid.UUID, "int")
cdef object UUID_SAFE = _slot(_uuid.UUID, "is_safe")
cdef object STAMP_TR = _slot(Versionstamp, "tr_version")
cdef object STAMP_USER = _slot(Versionstamp, "user_version")






cdef inline bint compiled_in_force():
    cdef PyObject *current = PyDict_GetItem(IMPL, "current")
    if current == <PyObject *> COMPILED:
        return True
    return current != NULL and (<object> current) == COMPILED


cdef inline int depth_limit(int max_depth) noexcept:
    """How deep this module nests for a codec with this ``max_depth``."""
    return max_depth if 0 <= max_depth < MAX_DEPTH else (0 if max_depth < 0 else MAX_DEPTH)


cdef inline object steal(PyObject *p):
    """A new reference, owned."""
    cdef object o = <object> p
    Py_DECREF(o)
    return o


cdef inline object slot(object descr, object obj):
    """A __slots__ member of *obj* (exact type checked by the caller), or HAND when unset."""
    cdef PyObject *p = lc_slot_get(<PyObject *> descr, obj)
    if p == NULL:
        PyErr_Clear()
        return HAND
    return steal(p)

# -- values ---------------------------------------------------------------------------------


cdef inline double f32_value(unsigned long long bits) noexcept:
    """The float a Float32 with these bits holds (types._f32_value: NaNs widened by hand)."""
    cdef unsigned int b32 = <unsigned int> bits
    cdef float f
    if (b32 & 0x7F800000) == 0x7F800000 and (b32 & 0x007FFFFF):
        return bits_double(((<unsigned long long> (b32 & 0x80000000)) << 32) |
                           0x7FF0000000000000ULL |
                           ((<unsigned long long> (b32 & 0x007FFFFF)) << 29))
    memcpy(&f, &b32, 4)
    return <double> f


cdef inline unsigned long long f32_bits(double d) noexcept:
    """The binary32 bits of *d* rounded to nearest (types._f32_bits: NaNs narrowed by hand)."""
    cdef unsigned long long bits = double_bits(d)
    cdef float f
    cdef unsigned int b32
    if d != d:
        return ((bits >> 32) & 0x80000000) | 0x7FC00000 | ((bits >> 29) & 0x003FFFFF)
    f = <float> d
    memcpy(&b32, &f, 4)
    return b32


cdef inline object int_of_mag(bint neg, unsigned long long mag):
    if not neg:
        return PyLong_FromUnsignedLongLong(mag)
    if mag == 0:
        return ZERO
    if mag <= 0x8000000000000000ULL:
        return PyLong_FromLongLong(-<long long> (mag - 1) - 1)
    return -PyLong_FromUnsignedLongLong(mag)


cdef object make_float32(unsigned long long bits):
    cdef object f = lc_new_float(<PyTypeObject *> F32_TYPE, f32_value(bits))
    lc_slot_set(<PyObject *> F32_BITS, f, PyLong_FromUnsignedLongLong(bits))
    return f


cdef object make_uuid(const unsigned char *p):
    cdef object u = lc_alloc(<PyTypeObject *> UUID_TYPE)
    lc_slot_set(<PyObject *> UUID_INT, u, lc_long_from_be(p, 16))
    lc_slot_set(<PyObject *> UUID_SAFE, u, SAFE_UNKNOWN)
    return u


cdef object make_stamp(const unsigned char *p):
    cdef object s = lc_alloc(<PyTypeObject *> STAMP_TYPE)
    cdef int i
    cdef object tr = None
    for i in range(10):
        if p[i] != 0xFF:
            tr = PyBytes_FromStringAndSize(<const char *> p, 10)
            break
    lc_slot_set(<PyObject *> STAMP_TR, s, tr)
    lc_slot_set(<PyObject *> STAMP_USER, s, PyLong_FromUnsignedLongLong(get_be(p + 10, 2, 0)))
    return s


include "_write.pxi"
include "_read.pxi"


# -- schemaless -----------------------------------------------------------------------------


cdef class Schemaless:
    """A codec instance's ``encode`` and ``decode``, compiled. Under the reference
    implementation, with a schema, or for anything they do not take, they call the
    instance's reference methods."""

    cdef object ref_encode
    cdef object ref_decode
    cdef bint java
    cdef int limit

    def __init__(self, ref_encode, ref_decode, bint java, int max_depth):
        self.ref_encode = ref_encode
        self.ref_decode = ref_decode
        self.java = java
        self.limit = depth_limit(max_depth)

    def encode(self, values, schema=None, prefix=b""):
        """``prefix ‖ enc(values)``, as ``fdb.tuple.pack(values, prefix=prefix)``."""
        cdef object key
        if schema is None and compiled_in_force():
            if PyBytes_CheckExact(prefix):
                key = encode_elements(values, prefix, self.java, self.limit, NULL)
                if key is not HAND:
                    return key
            HANDOVERS[PACKAGE] += 1
        return self.ref_encode(values, schema, prefix)

    def decode(self, key, schema=None, prefix=b""):
        """The values of *key* (after *prefix*, which must be there)."""
        cdef object values
        if schema is None and compiled_in_force():
            if PyBytes_CheckExact(key) and PyBytes_CheckExact(prefix):
                values = decode_elements(key, prefix, self.limit)
                if values is not HAND:
                    return values
            HANDOVERS[PACKAGE] += 1
        return self.ref_decode(key, schema, prefix)


def encode_with_versionstamp(values, prefix, bint java, int max_depth):
    """``prefix ‖ key ‖ offset`` (see ``FdbTupleCodec.encode_with_versionstamp``), or None:
    the reference code does it (and refuses what is to be refused)."""
    cdef Py_ssize_t stamp = -1
    cdef object key
    if PyBytes_CheckExact(prefix):
        key = encode_elements(values, prefix, java, depth_limit(max_depth), &stamp)
        if key is not HAND:
            return key
    HANDOVERS[PACKAGE] += 1
    return None


# -- bound schemas --------------------------------------------------------------------------


cdef class BoundTuple:
    """A schema bound to the tuple layer, compiled: the plan's kinds and ranges in a C array.

    ``reference`` is the reference bound object (``codec.BoundTuple``) for the same schema;
    whatever this one does not take goes to it.
    """

    cdef FieldPlan *fields
    cdef Py_ssize_t nfields
    cdef bint java
    cdef int limit
    cdef readonly object reference
    cdef readonly object schema
    cdef readonly object codec

    def __cinit__(self):
        self.fields = NULL
        self.nfields = 0

    def __init__(self, reference, kinds, ranges, bint java, int max_depth):
        cdef Py_ssize_t i
        cdef Py_ssize_t n = len(kinds)
        if len(ranges) != n:
            raise ValueError("one range per field")
        self.reference = reference
        self.schema = reference.schema
        self.codec = reference.codec
        self.java = java
        self.limit = depth_limit(max_depth)
        self.fields = <FieldPlan *> PyMem_Malloc(max(n, 1) * sizeof(FieldPlan))
        if self.fields == NULL:
            raise MemoryError()
        self.nfields = n
        for i in range(n):
            self.fields[i].kind = kinds[i]
            self.fields[i].ranged = ranges[i] is not None
            self.fields[i].max_neg = ranges[i][0] if ranges[i] is not None else 0
            self.fields[i].max_pos = ranges[i][1] if ranges[i] is not None else 0

    def __dealloc__(self):
        PyMem_Free(self.fields)

    def __repr__(self):
        return f"<compiled BoundTuple {self.codec.name} [{self.schema}]>"

    @property
    def plans(self):
        return self.reference.plans

    cdef object _encode(self, object values, Py_ssize_t count, bytes prefix, int tail):
        """``prefix ‖`` the first *count* fields (then *tail* unless it is -1), or HAND."""
        cdef bint is_tuple = Py_TYPE(values) == &PyTuple_Type
        cdef Py_ssize_t i = 0
        cdef Buf b
        buf_init(&b)
        try:
            buf_put_n(&b, <const unsigned char *> PyBytes_AS_STRING(prefix),
                      PyBytes_GET_SIZE(prefix))
            while i < count:
                if i >= seq_size(values, is_tuple) or \
                        put_field(&b, &self.fields[i], seq_item(values, is_tuple, i),
                                  self.java, self.limit) == 0:
                    return HAND
                i += 1
            if tail >= 0:
                buf_put(&b, tail)
            return buf_bytes(&b)
        finally:
            buf_free(&b)

    cdef inline bint _takes(self, object values, object prefix, bint partial):
        cdef PyTypeObject *t = Py_TYPE(values)
        cdef Py_ssize_t n
        if not PyBytes_CheckExact(prefix):
            return False
        if t == &PyTuple_Type:
            n = PyTuple_GET_SIZE(values)
        elif t == &PyList_Type:
            n = PyList_GET_SIZE(values)
        else:
            return False
        return n <= self.nfields if partial else n == self.nfields

    def encode(self, values, prefix=b""):
        """``prefix ‖ key`` of *values*, one per field."""
        cdef object key
        if self._takes(values, prefix, False):
            key = self._encode(values, self.nfields, prefix, -1)
            if key is not HAND:
                return key
        HANDOVERS[PACKAGE] += 1
        return self.reference.encode(values, prefix)

    def decode(self, key, prefix=b""):
        """The values of ``prefix ‖ key``, one per field."""
        cdef const unsigned char *p
        cdef Py_ssize_t n, i
        cdef Py_ssize_t pos
        cdef object out, v
        if PyBytes_CheckExact(key) and PyBytes_CheckExact(prefix):
            p = <const unsigned char *> PyBytes_AS_STRING(key)
            n = PyBytes_GET_SIZE(key)
            pos = PyBytes_GET_SIZE(prefix)
            if has_prefix(p, n, prefix):
                out = PyTuple_New(self.nfields)
                for i in range(self.nfields):
                    if pos >= n:
                        break
                    v = read_field(&self.fields[i], p, n, &pos, self.limit)
                    if v is HAND:
                        break
                    Py_INCREF(v)
                    PyTuple_SET_ITEM(out, i, v)
                else:
                    if pos == n:
                        return out
        HANDOVERS[PACKAGE] += 1
        return self.reference.decode(key, prefix)

    def prefix_range(self, values, prefix=b""):
        """``(prefix+enc+00, prefix+enc+ff)`` for the leading fields *values*."""
        cdef object start
        cdef Py_ssize_t n
        if self._takes(values, prefix, True):
            n = len(values)
            start = self._encode(values, n, prefix, 0x00)
            if start is not HAND:
                return start, start[:PyBytes_GET_SIZE(start) - 1] + b"\xff"
        HANDOVERS[PACKAGE] += 1
        return self.reference.prefix_range(values, prefix)
