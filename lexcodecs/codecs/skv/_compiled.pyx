# cython: language_level=3, boundscheck=False, wraparound=False
"""The compiled ``skv`` engine: every field type, order and NULL placement, both ways.

Theory of operation: a bound schema hands this module one row of ints per field
(``format.FieldLayout.row``: type byte, string or bytes, direction mask, NULL byte, width,
integer range and the signed rule's numbers), built from the same tables the reference code
reads. :class:`Engine` copies the rows into a C array once and then encodes and decodes with a
branch per field on the type byte, one :c:type:`Buf`, and no Python call on the usual path.
A signed int's sign byte and payload are ``_layout.pxi``'s, which the columnar kernel
includes too.

The protocol is ``lexcodecs/_engine.pxd``'s: descending is "write ascending, then invert the
field" on encode and "read every byte through ``mask``" on decode; exact types are checked
before any internals are read (a :class:`~lexcodecs.types.Float32` is read through its float
value, never its ``bits`` slot); anything this module does not take as its own -- a subclass,
a bool in an int field, a NaN, an inexact float32, an out-of-range int, a malformed key --
hands the *whole* key to the reference ``careful_*`` method, which gives the same answer or
raises the typed error. This module never words an error. ``lexcodecs._impl.HANDOVERS`` counts the
hand-overs, so the tests can assert that valid values never take one.
"""

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_CheckExact, PyByteArray_GET_SIZE
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_CheckExact, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_CheckExact, PyFloat_FromDouble
from cpython.list cimport PyList_CheckExact
from cpython.long cimport PyLong_CheckExact, PyLong_FromLongLong, PyLong_FromUnsignedLongLong
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_INCREF
from cpython.sequence cimport PySequence_Fast_ITEMS
from cpython.tuple cimport PyTuple_CheckExact, PyTuple_New, PyTuple_SET_ITEM
from cpython.unicode cimport PyUnicode_CheckExact, PyUnicode_DecodeUTF8
from libc.float cimport FLT_MAX
from libc.math cimport fabs, isinf
from libc.string cimport memchr, memcpy

from lexcodecs._engine cimport (
    Buf, bits_double, buf_bytes, buf_free, buf_init, buf_invert, buf_put, buf_put_be,
    buf_put_escaped, buf_put_n, buf_room, double_bits, get_be, int64_of, order_bits, uint64_of,
    unorder_bits, utf8_of,
)
from lexcodecs._raw cimport SLACK

from lexcodecs.types import Float32

# the type bytes: format.py's, through the _format.pxd the build writes from it
# (lexcodecs/_pxdgen.py)
from lexcodecs.codecs.skv._format cimport (
    BOOL, DOUBLE, FLOAT, INT16, INT64, SIGN_NEGATIVE, SIGN_NONNEGATIVE, STRING, UINT16, UINT64,
)

# the signed integers' layout, shared with the columnar kernel
include "_layout.pxi"

from . import format as _format
from .codec import BoundSkv
from lexcodecs._impl import HANDOVERS

cdef extern from "Python.h":
    ctypedef struct PyFloatObject:
        double ob_fval
    object PyType_GenericAlloc(PyTypeObject *type, Py_ssize_t nitems)

#: the largest int a double holds exactly, with every int below it
cdef long long EXACT_INT = 1LL << 53

ctypedef struct FieldSpec:
    unsigned char t             # ascending type byte
    unsigned char text          # a string field: STRING is str, not bytes
    unsigned char mask          # 0xff descending, 0 ascending
    unsigned char null          # first byte of the NULL marker
    int width                   # fixed payload width (after a signed int's sign byte)
    long long lo                # an int type's range
    unsigned long long hi
    unsigned long long bias     # the signed rule: payload of v < 0 is bias + v
    unsigned long long nonneg_max
    unsigned long long neg_min
    unsigned long long neg_max

cdef type Float32_t = Float32
cdef object HANDOVER = object()   # what a reader answers for bytes it does not take
#: hand-overs are counted in lexcodecs._impl.HANDOVERS under this package's name
cdef str PACKAGE = "skv"






cdef int fill_spec(FieldSpec *f, tuple row) except -1:
    f.t, f.text, f.mask, f.null, f.width = row[0], row[1], row[2], row[3], row[4]
    f.lo, f.hi = row[5], row[6]
    f.bias, f.nonneg_max, f.neg_min, f.neg_max = row[7], row[8], row[9], row[10]
    return 0

# -- writing --------------------------------------------------------------------------------


cdef inline int f32_exact(double d) noexcept:
    """Whether *d* (not NaN) is a binary32 value; the range is checked before the cast."""
    if isinf(d):
        return 1
    if fabs(d) > FLT_MAX:
        return 0
    return <double> (<float> d) == d


cdef inline int float_of(object v, unsigned char t, double *out) noexcept:
    """The value of *v* in a FLOAT or DOUBLE field: 1, or 0 to hand over (another type, a
    NaN, an inexact float32, an int a double does not hold exactly)."""
    cdef double d
    cdef long long x
    if PyFloat_CheckExact(v) or type(v) is Float32_t:
        d = PyFloat_AS_DOUBLE(v)
    elif PyLong_CheckExact(v):
        if not int64_of(v, &x) or x > EXACT_INT or x < -EXACT_INT:
            return 0
        d = <double> x
    else:
        return 0
    if d != d or (t == FLOAT and not f32_exact(d)):
        return 0
    out[0] = d
    return 1


cdef int write_value(Buf *b, const FieldSpec *f, object v) except -1:
    """Write *v* as field *f*: its NULL marker, or the value (inverted when descending).
    1 when written, 0 to hand the key over (the bytes written so far are then dropped)."""
    cdef Py_ssize_t start = b.n, n
    cdef const unsigned char *s
    cdef long long x
    cdef unsigned long long u
    cdef double d
    cdef float g
    cdef unsigned int g_bits
    cdef unsigned char t = f.t
    if v is None:
        buf_put(b, f.null)
        buf_put(b, 0x00)
        buf_put(b, 0x01)
        return 1
    buf_put(b, t)
    if t == STRING:
        if f.text:
            if not PyUnicode_CheckExact(v) or not utf8_of(v, &s, &n):
                return 0
        elif PyBytes_CheckExact(v):
            s = <const unsigned char *> PyBytes_AS_STRING(v)
            n = PyBytes_GET_SIZE(v)
        elif PyByteArray_CheckExact(v):
            s = <const unsigned char *> PyByteArray_AS_STRING(v)
            n = PyByteArray_GET_SIZE(v)
        else:
            return 0
        buf_put_escaped(b, s, n)
    elif t <= INT64:
        if not int64_of(v, &x) or x < f.lo or x > <long long> f.hi:
            return 0
        buf_room(b, 1 + f.width + SLACK)  # the sign byte and the payload (_layout.pxi)
        b.n = skv_int(b.p + b.n, x < 0, <unsigned long long> x, 0, f.width) - b.p
    elif t <= UINT64:
        if not uint64_of(v, &u) or u > f.hi:
            return 0
        buf_put_be(b, u, f.width)
    elif t == BOOL:
        if v is True:
            buf_put(b, 0x01)
        elif v is False:
            buf_put(b, 0x00)
        else:
            return 0
    else:
        if not float_of(v, t, &d):
            return 0
        if t == DOUBLE:
            buf_put_be(b, order_bits(double_bits(d), 8), 8)
        else:
            g = <float> d
            memcpy(&g_bits, &g, 4)
            buf_put_be(b, order_bits(g_bits, 4), 4)
    buf_put(b, 0x00)
    buf_put(b, 0x01)
    if f.mask:
        buf_invert(b, start)
    return 1

# -- reading --------------------------------------------------------------------------------


cdef object make_bytes(const FieldSpec *f, const unsigned char *s, Py_ssize_t n):
    """A STRING payload as the field's value: str (strict UTF-8) or bytes."""
    if not f.text:
        return PyBytes_FromStringAndSize(<const char *> s, n)
    try:
        return PyUnicode_DecodeUTF8(<char *> s, n, NULL)
    except UnicodeDecodeError:
        return HANDOVER


cdef object read_string(const FieldSpec *f, const unsigned char *p, Py_ssize_t n,
                        Py_ssize_t *at):
    """The STRING field at ``at[0]``: unescaped (and un-inverted), ``at[0]`` moved past it.
    Linear: every byte is looked at once (``memchr`` finds the next escape byte)."""
    cdef unsigned char m = f.mask, follow
    cdef Py_ssize_t i = at[0] + 1, j, start
    cdef const unsigned char *q
    cdef Buf b
    q = <const unsigned char *> memchr(p + i, m, n - i)
    if q == NULL or q - p + 1 >= n:
        return HANDOVER
    j = q - p
    if m == 0 and p[j + 1] == 0x01:  # ascending, no escaped 00: the bytes as they are
        at[0] = j + 2
        return make_bytes(f, p + i, j - i)
    buf_init(&b)
    try:
        while True:
            start = b.n
            buf_put_n(&b, p + i, j - i)
            if m:
                buf_invert(&b, start)
            follow = p[j + 1] ^ m
            if follow == 0x01:
                break
            if follow != 0xFF:
                return HANDOVER
            buf_put(&b, 0x00)
            i = j + 2
            q = <const unsigned char *> memchr(p + i, m, n - i)
            if q == NULL or q - p + 1 >= n:
                return HANDOVER
            j = q - p
        at[0] = j + 2
        return make_bytes(f, b.p, b.n)
    finally:
        buf_free(&b)


cdef object new_float32(double value, unsigned long long bits):
    """``Float32.from_bits(bits)`` without the Python call: the object built as float's own
    ``__new__`` builds a subclass instance, then its ``bits`` slot set."""
    cdef object out = PyType_GenericAlloc(<PyTypeObject *> Float32_t, 0)
    (<PyFloatObject *> out).ob_fval = value
    out.bits = bits
    return out


cdef object read_value(const FieldSpec *f, const unsigned char *p, Py_ssize_t n,
                       Py_ssize_t *at):
    """The non-NULL field at ``at[0]`` (its type byte already checked), ``at[0]`` moved past
    it; ``HANDOVER`` when it is not well formed or not canonical."""
    cdef unsigned char t = f.t, m = f.mask, sign
    cdef Py_ssize_t pos = at[0], end
    cdef unsigned long long u
    cdef unsigned int g_bits
    cdef float g
    cdef object value
    if t == STRING:
        return read_string(f, p, n, at)
    if t <= INT64:
        end = pos + 2 + f.width
        if end + 2 > n:
            return HANDOVER
        sign = p[pos + 1] ^ m
        u = get_be(p + pos + 2, f.width, m)
        if sign == SIGN_NONNEGATIVE and u <= f.nonneg_max:
            value = PyLong_FromLongLong(<long long> u)
        elif sign == SIGN_NEGATIVE and f.neg_min <= u <= f.neg_max:
            value = PyLong_FromLongLong(<long long> (u - f.bias))
        else:
            return HANDOVER
    elif t <= UINT64:
        end = pos + 1 + f.width
        if end + 2 > n:
            return HANDOVER
        value = PyLong_FromUnsignedLongLong(get_be(p + pos + 1, f.width, m))
    elif t == BOOL:
        end = pos + 2
        if end + 2 > n:
            return HANDOVER
        sign = p[pos + 1] ^ m
        if sign > 1:
            return HANDOVER
        value = sign == 1
    else:
        end = pos + 1 + f.width
        if end + 2 > n:
            return HANDOVER
        u = unorder_bits(get_be(p + pos + 1, f.width, m), f.width)
        if t == DOUBLE:
            if (u & 0x7FF0000000000000ULL) == 0x7FF0000000000000ULL and \
                    (u & 0x000FFFFFFFFFFFFFULL):
                return HANDOVER
            value = PyFloat_FromDouble(bits_double(u))
        else:
            if (u & 0x7F800000ULL) == 0x7F800000ULL and (u & 0x007FFFFFULL):
                return HANDOVER
            g_bits = <unsigned int> u
            memcpy(&g, &g_bits, 4)
            value = new_float32(<double> g, u)
    if (p[end] ^ m) != 0x00 or (p[end + 1] ^ m) != 0x01:
        return HANDOVER
    at[0] = end + 2
    return value


cdef object read_field(const FieldSpec *f, const unsigned char *p, Py_ssize_t n,
                       Py_ssize_t *at):
    """Field *f* of a schema at ``at[0]``: None for its NULL marker, else its value."""
    cdef Py_ssize_t pos = at[0]
    cdef unsigned char c
    if pos >= n:
        return HANDOVER
    c = p[pos]
    if c == f.null:
        if pos + 3 > n or p[pos + 1] != 0x00 or p[pos + 2] != 0x01:
            return HANDOVER
        at[0] = pos + 3
        return None
    if c != (f.t ^ f.mask):
        return HANDOVER
    return read_value(f, p, n, at)

# -- the engine of one bound schema ---------------------------------------------------------


cdef class Engine:
    """The four operations of a bound schema (see ``codec.py``), for its field rows."""

    cdef FieldSpec *fields
    cdef Py_ssize_t count
    cdef object careful_encode, careful_decode, careful_encode_span, careful_decode_from

    def __cinit__(self, rows, careful_encode, careful_decode, careful_encode_span,
                  careful_decode_from):
        cdef Py_ssize_t i
        rows = tuple(rows)
        self.count = len(rows)
        self.fields = <FieldSpec *> PyMem_Malloc(max(self.count, 1) * sizeof(FieldSpec))
        if self.fields == NULL:
            raise MemoryError()
        for i in range(self.count):
            fill_spec(&self.fields[i], rows[i])
        self.careful_encode = careful_encode
        self.careful_decode = careful_decode
        self.careful_encode_span = careful_encode_span
        self.careful_decode_from = careful_decode_from

    def __dealloc__(self):
        PyMem_Free(self.fields)

    cdef object _encode(self, object values, Py_ssize_t start, Py_ssize_t stop):
        """Fields start..stop-1 of a tuple or list; None to hand over."""
        cdef PyObject **items = PySequence_Fast_ITEMS(values)
        cdef Py_ssize_t i
        cdef Buf b
        buf_init(&b)
        try:
            for i in range(start, stop):
                if not write_value(&b, &self.fields[i], <object> items[i]):
                    return None
            return buf_bytes(&b)
        finally:
            buf_free(&b)

    def encode(self, values):
        cdef object key
        if (PyTuple_CheckExact(values) or PyList_CheckExact(values)) and \
                len(values) == self.count:
            key = self._encode(values, 0, self.count)
            if key is not None:
                return key
        HANDOVERS[PACKAGE] += 1
        return self.careful_encode(values)

    def encode_span(self, values, Py_ssize_t start, Py_ssize_t stop):
        cdef object key
        if (PyTuple_CheckExact(values) or PyList_CheckExact(values)) and \
                0 <= start <= stop <= len(values) and stop <= self.count:
            key = self._encode(values, start, stop)
            if key is not None:
                return key
        HANDOVERS[PACKAGE] += 1
        return self.careful_encode_span(values, start, stop)

    cdef object _decode(self, bytes key, Py_ssize_t pos, list ends):
        """The values of the fields from *pos* to the end of *key* (and, into *ends*, the
        offset after each); None to hand over."""
        cdef const unsigned char *p = <const unsigned char *> PyBytes_AS_STRING(key)
        cdef Py_ssize_t n = PyBytes_GET_SIZE(key), i
        cdef object out = PyTuple_New(self.count), value
        for i in range(self.count):
            value = read_field(&self.fields[i], p, n, &pos)
            if value is HANDOVER:
                return None
            Py_INCREF(value)
            PyTuple_SET_ITEM(out, i, value)
            if ends is not None:
                ends.append(pos)
        if pos != n:
            return None
        return out

    def decode(self, key):
        cdef object out
        if PyBytes_CheckExact(key):
            out = self._decode(key, 0, None)
            if out is not None:
                return out
        HANDOVERS[PACKAGE] += 1
        return self.careful_decode(key)

    def decode_from(self, data, Py_ssize_t pos):
        cdef object out
        cdef list ends = []
        if PyBytes_CheckExact(data) and 0 <= pos <= len(data):
            out = self._decode(data, pos, ends)
            if out is not None:
                return out, tuple(ends)
        HANDOVERS[PACKAGE] += 1
        return self.careful_decode_from(data, pos)


class CompiledBoundSkv(BoundSkv):
    """A bound ``skv`` schema whose four operations run in :class:`Engine`."""

    __slots__ = ("engine",)

    def __init__(self, codec, schema, plans, partition_count):
        BoundSkv.__init__(self, codec, schema, plans, partition_count)
        engine = Engine([layout.row() for layout in self.layouts], self.careful_encode,
                        self.careful_decode, self.careful_encode_span,
                        self.careful_decode_from)
        self.engine = engine
        self.encode = engine.encode
        self.decode = engine.decode
        self.encode_span = engine.encode_span
        self.decode_from = engine.decode_from

# -- schemaless decode ----------------------------------------------------------------------

#: the spec of each type byte read without a schema: [descending][type byte]
cdef FieldSpec ANY_FIELD[2][BOOL + 1]


cdef int _fill_any() except -1:
    for byte, fmt in _format.FORMAT_OF_BYTE.items():
        for desc in (0, 1):
            fill_spec(&ANY_FIELD[desc][byte],
                      _format.FieldLayout(fmt, bool(desc), 0x00, False).row())
    return 0


_fill_any()


def decode_schemaless(key, careful):
    """Every field of *key* from its type bytes (STRING as bytes, NULL as None); anything
    not well formed goes to *careful*, the reference decode."""
    cdef const unsigned char *p
    cdef Py_ssize_t n, pos = 0
    cdef unsigned char c
    cdef list out
    cdef object value
    if PyBytes_CheckExact(key) and PyBytes_GET_SIZE(key) > 0:
        p = <const unsigned char *> PyBytes_AS_STRING(key)
        n = PyBytes_GET_SIZE(key)
        out = []
        while pos < n:
            c = p[pos]
            if c == 0x00 or c == 0xFF:
                if pos + 3 > n or p[pos + 1] != 0x00 or p[pos + 2] != 0x01:
                    break
                value = None
                pos += 3
            elif STRING <= c <= BOOL:
                value = read_value(&ANY_FIELD[0][c], p, n, &pos)
            elif (0xFF ^ BOOL) <= c <= (0xFF ^ STRING):
                value = read_value(&ANY_FIELD[1][c ^ 0xFF], p, n, &pos)
            else:
                break
            if value is HANDOVER:
                break
            out.append(value)
        else:
            return tuple(out)
    HANDOVERS[PACKAGE] += 1
    return careful(key)
