# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled LexKey encoder and decoder: the work of the reference code, for every type.

Theory of operation: a bound schema becomes a :class:`Plan`, one C struct per field (its kind
from :mod:`.format`, its width, its integer range) built once from the layout the codec
planned; encode and decode are a loop over the fields with a ``switch`` on the kind, one
stack :c:type:`Buf` (``lexcodecs/_engine.pxd``) and ``PyTuple_New``. Schemaless encoding
(:class:`SchemalessEncoder`) dispatches on the value's exact type instead. The writers of each
type are in ``_write.pxi`` and the readers in ``_read.pxi``, included here.

Everything here checks the exact type before it reads an object's internals: an ``int`` or one
of the eight typed ints (read by value and range-checked), a ``float`` or ``Float32`` (read by
its float value, never its ``bits`` slot), a ``UUID`` whose ``int`` is an exact ``int`` of 128
bits, an exact ``datetime`` (its offset from ``utcoffset()``) or ``timedelta``, ``str``,
``bytes``, ``bytearray``, ``memoryview``. Anything else, any value the reference refuses and
any key it does not read (including every malformed one) is handed to the reference code for
the whole key: a writer or reader returns ``0`` (``None`` for readers) without an exception,
and the caller counts the hand-over (``lexcodecs._impl.HANDOVERS``) and returns the reference's answer,
the same bytes or its typed error. So no message is shaped here and no foreign exception
(``OverflowError``, ``TypeError`` ...) leaves this module. Decoding is linear: the widths
from the plan, checked against the key's length once, bound every read.
"""

from cpython.buffer cimport PyBUF_SIMPLE, PyBuffer_Release, PyObject_GetBuffer
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
from cpython.exc cimport PyErr_Clear
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_CheckExact, PyFloat_FromDouble
from cpython.long cimport (
    PyLong_AsLongLongAndOverflow, PyLong_AsUnsignedLongLong, PyLong_AsUnsignedLongLongMask,
    PyLong_CheckExact, PyLong_FromLongLong, PyLong_FromUnsignedLongLong,
)
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.object cimport PyObject_GenericSetAttr
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.unicode cimport PyUnicode_CheckExact, PyUnicode_DecodeUTF8
from libc.math cimport INFINITY
from libc.string cimport memcpy

from lexcodecs._engine cimport (
    Buf, bits_double, buf_bytes, buf_free, buf_init, buf_put, buf_put_be, buf_put_n,
    double_bits, get_be, utf8_of, values_of,
)
# the IEEE order transform, shared with the other formats and the columnar kernel
from lexcodecs._raw cimport raw_order

import datetime as _dt
import uuid as _uuid
from functools import partial as _partial

from lexcodecs.codecs.lexkey import format as _format
from lexcodecs.codecs.lexkey.bound import BoundLexKey as _ReferenceBound
from lexcodecs.types import END as _END
from lexcodecs.types import Float32 as _Float32
from lexcodecs.types import Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64
from lexcodecs._impl import HANDOVERS

cdef extern from *:
    """
    /* object.__new__(type) and float.__new__(type, x), as their tp_new do it */
    static PyObject *lexkey_alloc(PyObject *type) {
        PyTypeObject *t = (PyTypeObject *)type;
        return t->tp_alloc(t, 0);
    }
    static PyObject *lexkey_float_of_type(PyObject *type, double x) {
        PyTypeObject *t = (PyTypeObject *)type;
        PyObject *o = t->tp_alloc(t, 0);
        if (o != NULL) ((PyFloatObject *)o)->ob_fval = x;
        return o;
    }
    """
    object lexkey_alloc(object type)
    object lexkey_float_of_type(object type, double x)

import_datetime()

# -- the plan's kinds: format.py's, through the _format.pxd the build writes from it
# (lexcodecs/_pxdgen.py), under this module's names for them ---------------------------------

from lexcodecs.codecs.lexkey._format cimport (
    KIND_BOOL as K_BOOL, KIND_BYTES as K_BYTES, KIND_DURATION as K_DURATION,
    KIND_FLOAT32 as K_FLOAT32, KIND_FLOAT64 as K_FLOAT64, KIND_SIGNED as K_SIGNED,
    KIND_STRING as K_STRING, KIND_TIMESTAMP as K_TIMESTAMP, KIND_UNSIGNED as K_UNSIGNED,
    KIND_UUID as K_UUID,
)

cdef unsigned long long SIGN64 = 0x8000000000000000ULL
cdef unsigned long long ALL64 = 0xFFFFFFFFFFFFFFFFULL
cdef unsigned long long GO_NAN64 = 0x7FF8000000000001ULL
cdef unsigned int GO_NAN32 = 0x7FC00001U
cdef unsigned long long PY_NAN_BITS = 0x7FF8000000000000ULL   # float("nan")
cdef unsigned int F32_NAN_BITS = 0x7FC00000U                   # Float32(float("nan")).bits
cdef long long US_MIN = _format.US_MIN
cdef long long US_MAX = _format.US_MAX
cdef long long US_PER_DAY = 86400000000LL
# a timedelta beyond this many days is outside the int64 nanoseconds anyway
cdef long long DAYS_MAX = US_MAX // 86400000000LL + 1
cdef double FLT_MAX_ = 3.4028234663852886e38
cdef double FLT_ROUNDS_TO_INF = 3.4028235677973366e38           # 2**128 - 2**103, the midpoint

# the exact types this module reads
cdef object UUID = _uuid.UUID
cdef object SAFE_UNKNOWN = _uuid.SafeUUID.unknown
cdef object FLOAT32 = _Float32
cdef object END_TYPE = type(_END)
cdef object UTC = _dt.timezone.utc
cdef object MEMORYVIEW = memoryview
cdef tuple TYPED = (Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64)
cdef long long TYPED_MIN[8]
cdef long long TYPED_MAX[8]
cdef unsigned long long TYPED_UMAX[8]
cdef int TYPED_WIDTH[8]
cdef bint TYPED_SIGNED[8]
for _i, _cls in enumerate(TYPED):
    TYPED_SIGNED[_i] = _cls.signed
    TYPED_WIDTH[_i] = _cls.bits // 8
    if _cls.signed:
        TYPED_MIN[_i], TYPED_MAX[_i], TYPED_UMAX[_i] = _cls.min, _cls.max, 0
    else:
        TYPED_MIN[_i], TYPED_MAX[_i], TYPED_UMAX[_i] = 0, 0, _cls.max

cdef str NAME_INT = "int"
cdef str NAME_IS_SAFE = "is_safe"
cdef str NAME_BITS = "bits"

# -- hand-overs -----------------------------------------------------------------------------

#: hand-overs are counted in lexcodecs._impl.HANDOVERS under this package's name
cdef str PACKAGE = "lexkey"






cdef inline void _count() noexcept:
    HANDOVERS[PACKAGE] += 1

# -- values: writing and reading each type (_write.pxi, _read.pxi) ---------------------------


cdef inline float to_binary32(double x) noexcept:
    """*x* rounded to binary32, overflow to ±inf, as ``Float32(x)`` does (and without the
    undefined behaviour of casting an out-of-range double)."""
    if x > FLT_MAX_ or x < -FLT_MAX_:
        if x < FLT_ROUNDS_TO_INF and x > -FLT_ROUNDS_TO_INF:
            return <float>(FLT_MAX_ if x > 0 else -FLT_MAX_)
        return <float>(INFINITY if x > 0 else -INFINITY)
    return <float>x


include "_write.pxi"
include "_read.pxi"

# -- a bound schema -------------------------------------------------------------------------

ctypedef struct FieldSpec:
    int kind
    int width            # 0: variable length
    long long lo         # signed range
    long long hi
    unsigned long long uhi  # unsigned range


cdef class Plan:
    """A bound schema's fields as C data, with its encode and decode."""

    cdef FieldSpec *fields
    cdef Py_ssize_t n
    cdef Py_ssize_t fixed      # bytes of the fixed parts and separators
    cdef bint variable         # one variable-length field
    cdef bint decodable        # at most one
    cdef bint go_nan
    cdef object reference_encode
    cdef object reference_decode
    cdef object reference_prefix

    def __cinit__(self, layout, go_nan, reference_encode, reference_decode, reference_prefix):
        cdef Py_ssize_t i, variables = 0
        cdef FieldSpec *f
        self.n = len(layout)
        self.fields = <FieldSpec *>PyMem_Malloc(max(self.n, 1) * sizeof(FieldSpec))
        if self.fields == NULL:
            raise MemoryError()
        self.fixed = self.n - 1
        for i, field in enumerate(layout):
            f = &self.fields[i]
            f.kind = field.kind
            f.width = 0 if field.width is None else field.width
            f.lo = f.hi = 0
            f.uhi = 0
            if f.kind == K_SIGNED:
                f.lo, f.hi = field.lo, field.hi
            elif f.kind == K_UNSIGNED:
                f.uhi = field.hi
            if field.width is None:
                variables += 1
            else:
                self.fixed += f.width
        self.variable = variables == 1
        self.decodable = variables <= 1
        self.go_nan = go_nan
        self.reference_encode = reference_encode
        self.reference_decode = reference_decode
        self.reference_prefix = reference_prefix

    def __dealloc__(self):
        PyMem_Free(self.fields)

    cdef int put_field(self, Buf *b, FieldSpec *f, object v) except -1:
        """One field's value (None is 00 in every field): 1, or 0 to hand over."""
        cdef long long x
        cdef unsigned long long u
        cdef double d
        cdef int kind = f.kind
        if v is None:
            buf_put(b, 0)
            return 1
        if kind == K_STRING:
            return put_text(b, v)
        elif kind == K_SIGNED:
            if (type(v) is int or typed_index(type(v)) >= 0) and signed_of(v, &x) \
                    and f.lo <= x <= f.hi:
                return put_signed(b, x, f.width)
        elif kind == K_UNSIGNED:
            if (type(v) is int or typed_index(type(v)) >= 0) and unsigned_of(v, &u) \
                    and u <= f.uhi:
                buf_put_be(b, u, f.width)
                return 1
        elif kind == K_FLOAT64:
            if PyFloat_CheckExact(v) or type(v) is FLOAT32:
                return put_float64(b, PyFloat_AS_DOUBLE(v), self.go_nan)
            if PyLong_CheckExact(v) and signed_of(v, &x):
                # an int a float64 holds exactly (2**63 rounds out of range: not exact)
                if <double>x < 9223372036854775808.0 and <long long><double>x == x:
                    return put_float64(b, <double>x, self.go_nan)
        elif kind == K_FLOAT32:
            if type(v) is FLOAT32:
                return put_float32(b, PyFloat_AS_DOUBLE(v), f.width == 4, self.go_nan)
            if PyFloat_CheckExact(v):  # rounds to binary32, as Float32(v)
                d = PyFloat_AS_DOUBLE(v)
                if d == d:
                    d = <double>to_binary32(d)
                return put_float32(b, d, f.width == 4, self.go_nan)
            if PyLong_CheckExact(v) and signed_of(v, &x):  # one rounding, as Float32(v)
                return put_float32(b, <double><float>x, f.width == 4, self.go_nan)
        elif kind == K_BOOL:
            if v is True or v is False:
                buf_put(b, v is True)
                return 1
        elif kind == K_BYTES:
            return put_buffer(b, v)
        elif kind == K_UUID:
            if type(v) is UUID:
                return put_uuid(b, v)
        elif kind == K_TIMESTAMP:
            if PyDateTime_CheckExact(v):
                return put_instant(b, v)
        elif kind == K_DURATION:
            if PyDelta_CheckExact(v):
                return put_duration(b, v)
        return 0

    cdef object join(self, tuple values, Py_ssize_t count):
        """The parts of the first *count* fields joined by 00, or None: hand over."""
        cdef Buf b
        cdef Py_ssize_t i
        buf_init(&b)
        try:
            for i in range(count):
                if i:
                    buf_put(&b, 0)
                if self.put_field(&b, &self.fields[i], values[i]) != 1:
                    return None
            return buf_bytes(&b)
        finally:
            buf_free(&b)

    def encode(self, values):
        """The key of *values* (one per field)."""
        cdef tuple seq
        seq = values_of(values)
        if seq is not None and len(seq) == self.n:
            key = self.join(seq, self.n)
            if key is not None:
                return key
        _count()
        return self.reference_encode(values)

    def encode_prefix(self, values):
        """The parts of a prefix of the fields (1..n values, checked by the caller)."""
        cdef tuple seq
        seq = values_of(values)
        if seq is not None and 0 < len(seq) <= self.n:
            key = self.join(seq, len(seq))
            if key is not None:
                return key
        _count()
        return self.reference_prefix(values)

    cdef object read_field(self, FieldSpec *f, const unsigned char *p, Py_ssize_t size):
        """One field's value, or None: hand over (a decoded value is never None)."""
        cdef unsigned long long u
        cdef long long x
        cdef double d
        cdef int kind = f.kind
        if kind == K_SIGNED:
            u = get_be(p, f.width, 0)
            if f.width == 8:
                x = <long long>(u ^ SIGN64)
            else:
                x = <long long>u - (1LL << (8 * f.width - 1))
            if f.lo <= x <= f.hi:
                return PyLong_FromLongLong(x)
        elif kind == K_UNSIGNED:
            u = get_be(p, f.width, 0)
            if u <= f.uhi:
                return PyLong_FromUnsignedLongLong(u)
        elif kind == K_STRING:
            try:
                return PyUnicode_DecodeUTF8(<char *>p, size, NULL)
            except UnicodeDecodeError:
                PyErr_Clear()
        elif kind == K_BYTES:
            return PyBytes_FromStringAndSize(<char *>p, size)
        elif kind == K_BOOL:
            if p[0] <= 1:
                return p[0] == 1
        elif kind == K_FLOAT64:
            if read_float64(p, self.go_nan, &d):
                return PyFloat_FromDouble(d)
        elif kind == K_FLOAT32:
            return read_float32(p, f.width, self.go_nan)
        elif kind == K_TIMESTAMP:
            return read_ns(p, True)
        elif kind == K_DURATION:
            return read_ns(p, False)
        elif kind == K_UUID:
            return make_uuid(p)
        return None

    def decode(self, key):
        """The values of *key* (spec §6)."""
        cdef const unsigned char *p
        cdef Py_ssize_t size, var_len, pos = 0, i, width
        cdef FieldSpec *f
        if self.decodable and PyBytes_CheckExact(key):
            p = <const unsigned char *>PyBytes_AS_STRING(key)
            size = PyBytes_GET_SIZE(key)
            var_len = size - self.fixed
            if var_len >= 0 and (self.variable or var_len == 0):
                out = PyTuple_New(self.n)
                for i in range(self.n):
                    f = &self.fields[i]
                    width = f.width if f.width else var_len
                    value = self.read_field(f, p + pos, width)
                    if value is None:
                        break
                    Py_INCREF(value)
                    PyTuple_SET_ITEM(out, i, value)
                    pos += width
                    if i < self.n - 1:
                        if p[pos] != 0:
                            break
                        pos += 1
                else:
                    return out
        _count()
        return self.reference_decode(key)


class BoundLexKey(_ReferenceBound):
    """The reference bound schema with the compiled encode and decode in front: the slots
    ``encode`` and ``decode`` hold the plan's methods, so a call reaches C with no Python
    frame between, and the plan hands anything it does not take to the reference methods."""

    __slots__ = ("_plan", "decode", "encode")

    def __init__(self, codec, schema, plans, layout):
        _ReferenceBound.__init__(self, codec, schema, plans, layout)
        plan = Plan(layout, codec.go_nan, _partial(_ReferenceBound.encode, self),
                    _partial(_ReferenceBound.decode, self),
                    _partial(_ReferenceBound.join_parts, self))
        self._plan = plan
        self.encode = plan.encode
        self.decode = plan.decode

    def prefix_parts(self, values):
        return self._plan.encode_prefix(values)


cdef class SchemalessEncoder:
    """Schemaless encode of one codec (width mode and NaN option): each value by its exact
    type; anything else hands the whole key to *reference*."""

    cdef bint native
    cdef bint go_nan
    cdef object reference

    def __init__(self, native, go_nan, reference):
        self.native = native
        self.go_nan = go_nan
        self.reference = reference

    def encode(self, values):
        cdef tuple seq
        cdef Py_ssize_t i, n
        cdef Buf b
        cdef int r = 0
        seq = values_of(values)
        if seq is not None and len(seq) > 0:
            n = len(seq)
            buf_init(&b)
            try:
                for i in range(n):
                    if i:
                        buf_put(&b, 0)
                    r = put_value(&b, seq[i], self.native, self.go_nan)
                    if r != 1:
                        break
                if r == 1:
                    return buf_bytes(&b)
            finally:
                buf_free(&b)
        _count()
        return self.reference(values)
