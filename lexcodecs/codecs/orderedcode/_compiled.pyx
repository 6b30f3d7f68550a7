# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled ``orderedcode`` engine: every field kind and direction, both ways.

Theory of operation: a bound schema hands this module its plan data, one
:class:`~.format.FieldCode` ``(kind, mask)`` per field (``format.py``'s kinds; the reference
readers and writers are built from the same rows). :class:`Engine` copies them into a C
array once and then writes and reads keys with a branch per field on the kind, one
:c:type:`Buf`, and no Python call on the usual path:

* strings and bytes: the bytes with ``00`` -> ``00 ff`` and ``ff`` -> ``ff 00``, then
  ``00 01``; INFINITY is ``ff ff``; a trailing string is the raw bytes;
* int64: the shortest k-byte form (k one-bits, a zero bit, the value), of ``~x`` inverted
  for a negative; uint64: a length byte and the big-endian bytes; float64: the int64 of its
  bits (negatives as ``MinInt64 - bits``);
* reading is Go's ``Parse``, lenient where it is (non-minimal numbers, a 10-byte int64
  wrapping modulo 2**64).

The protocol is ``lexcodecs/_engine.pxd``'s: a descending item is written ascending and then
inverted, and read through ``mask``; exact types are checked before any internals are read;
anything this module does not take as its own -- a subclass, a bool, None, INFINITY in a
field without it, an int a float64 does not hold exactly, a memoryview, a malformed key,
bytes left over, text that is not UTF-8 -- hands the *whole* key to the reference
``careful_*`` method, which gives the same answer or raises the typed error. This module
never words an error; ``lexcodecs._impl.HANDOVERS`` counts the hand-overs.
"""

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_CheckExact, PyByteArray_GET_SIZE
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_CheckExact, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_CheckExact, PyFloat_FromDouble
from cpython.list cimport PyList_CheckExact
from cpython.long cimport PyLong_CheckExact, PyLong_FromLongLong, PyLong_FromUnsignedLongLong
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF
from cpython.sequence cimport PySequence_Fast_ITEMS
from cpython.tuple cimport PyTuple_CheckExact, PyTuple_New, PyTuple_SET_ITEM
from cpython.unicode cimport PyUnicode_CheckExact, PyUnicode_DecodeUTF8
from libc.stdint cimport INT64_MIN, uint64_t

from lexcodecs._engine cimport (
    Buf, bits_double, buf_bytes, buf_free, buf_grow, buf_init, buf_invert, buf_put, bytes_of,
    buf_put_be, buf_put_n, buf_room, double_bits, get_be, int64_of, uint64_of, utf8_of,
)
from lexcodecs._raw cimport SLACK

# the items' bytes, over raw buffers: shared with the columnar kernel
include "_layout.pxi"

from lexcodecs.types import INFINITY, Float32, InfinitySentinel

from .codec import BoundOrderedCode
from lexcodecs._impl import HANDOVERS

# the field kinds: format.py's, through the _format.pxd the build writes from it
# (lexcodecs/_pxdgen.py), under this module's names for them
from lexcodecs.codecs.orderedcode._format cimport (
    KIND_BYTES as BYTES, KIND_FLOAT64 as FLOAT64, KIND_INT64 as INT64, KIND_STRING as STRING,
    KIND_TRAILING_BYTES as TRAILING_BYTES, KIND_TRAILING_STRING as TRAILING_STRING,
    KIND_UINT64 as UINT64,
)

ctypedef struct FieldSpec:
    unsigned char kind
    unsigned char mask          # 0xff descending (Go's Decr), 0 ascending

cdef type Float32_t = Float32
cdef type Infinity_t = InfinitySentinel
cdef object INF = INFINITY
cdef object HANDOVER = object()   # what a reader answers for bytes it does not take
#: hand-overs are counted in lexcodecs._impl.HANDOVERS under this package's name
cdef str PACKAGE = "orderedcode"


# -- writing --------------------------------------------------------------------------------


# The items' bytes are _layout.pxi's (shared with the columnar kernel): these wrappers give
# them room in the Buf.

cdef inline int put_escaped(Buf *b, const unsigned char *s, Py_ssize_t n) except -1:
    """A string item: ``00`` -> ``00 ff``, ``ff`` -> ``ff 00``, then ``00 01`` (the
    layout's stores may pass its 2n bytes: SLACK)."""
    cdef unsigned char *q
    buf_room(b, 2 * n + 2 + SLACK)
    q = oc_escaped(b.p + b.n, s, n)
    q[0] = 0x00
    q[1] = 0x01
    b.n = (q + 2) - b.p
    return 0


cdef inline int put_int64(Buf *b, long long x) except -1:
    """The int64 item of *x*: the shortest k-byte form of x, or of ~x inverted."""
    buf_room(b, OC_INT64_MAX + SLACK)
    b.n = oc_int64(b.p + b.n, 0 - <uint64_t>(x < 0), <uint64_t>x, 0) - b.p
    return 0


cdef inline int put_uint64(Buf *b, unsigned long long u) except -1:
    """The uint64 item of *u*: its length byte, then its big-endian bytes."""
    buf_room(b, OC_UINT64_MAX + SLACK)
    b.n = oc_uint64(b.p + b.n, u, 0) - b.p
    return 0


cdef inline int float_of(object v, double *out) noexcept:
    """The value of *v* in a float64 field: 1, or 0 to hand over (another type, an int a
    float64 does not hold exactly)."""
    cdef long long x
    cdef double d
    if PyFloat_CheckExact(v) or type(v) is Float32_t:
        out[0] = PyFloat_AS_DOUBLE(v)
        return 1
    if not int64_of(v, &x):
        return 0
    d = <double> x
    if d >= 9223372036854775808.0 or <long long> d != x:
        return 0
    out[0] = d
    return 1




cdef int write_value(Buf *b, const FieldSpec *f, object v) except -1:
    """Write *v* as field *f* (inverted when descending): 1 when written, 0 to hand the key
    over (the bytes written so far are then dropped)."""
    cdef Py_ssize_t start = b.n, n
    cdef const unsigned char *s
    cdef long long x
    cdef unsigned long long u
    cdef double d
    cdef unsigned char kind = f.kind
    if kind == INT64:
        if not int64_of(v, &x):
            return 0
        put_int64(b, x)
    elif kind == STRING or kind == BYTES:
        if type(v) is Infinity_t:
            buf_put(b, 0xFF)
            buf_put(b, 0xFF)
        else:
            if kind == STRING:
                if not PyUnicode_CheckExact(v) or not utf8_of(v, &s, &n):
                    return 0
            elif not bytes_of(v, &s, &n):
                return 0
            put_escaped(b, s, n)
    elif kind == UINT64:
        if not uint64_of(v, &u):
            return 0
        put_uint64(b, u)
    elif kind == FLOAT64:
        if not float_of(v, &d):
            return 0
        put_int64(b, <long long> oc_float_bits(double_bits(d)))
    else:  # a trailing string: the raw bytes
        if kind == TRAILING_STRING:
            if not PyUnicode_CheckExact(v) or not utf8_of(v, &s, &n):
                return 0
        elif not bytes_of(v, &s, &n):
            return 0
        buf_put_n(b, s, n)
    if f.mask:
        buf_invert(b, start)
    return 1

# -- reading --------------------------------------------------------------------------------


cdef object make_value(unsigned char kind, const unsigned char *s, Py_ssize_t n):
    """A string payload as the field's value: str (strict UTF-8) or bytes."""
    if kind == BYTES or kind == TRAILING_BYTES:
        return PyBytes_FromStringAndSize(<const char *> s, n)
    try:
        return PyUnicode_DecodeUTF8(<char *> s, n, NULL)
    except UnicodeDecodeError:
        return HANDOVER


cdef object read_string(const FieldSpec *f, const unsigned char *p, Py_ssize_t n,
                        Py_ssize_t *at):
    """The string item at ``at[0]`` (INFINITY, or escaped bytes and ``00 01``), ``at[0]``
    moved past it. Linear: every byte is looked at once."""
    cdef unsigned char m = f.mask, c, follow
    cdef Py_ssize_t i = at[0], j, chunk
    cdef Buf b
    if i + 1 < n and (p[i] ^ m) == 0xFF and (p[i + 1] ^ m) == 0xFF:
        at[0] = i + 2
        return INF
    j = i
    while j < n and ((p[j] + 1) & 0xFE) != 0:
        j += 1
    if j + 1 >= n:
        return HANDOVER
    if m == 0 and p[j] == 0x00 and p[j + 1] == 0x01:  # ascending, no escape: as it is
        at[0] = j + 2
        return make_value(f.kind, p + i, j - i)
    buf_init(&b)
    try:
        while True:
            chunk = b.n
            buf_put_n(&b, p + i, j - i)
            if m:
                buf_invert(&b, chunk)
            c = p[j] ^ m
            follow = p[j + 1] ^ m
            if c == 0x00:
                if follow == 0x01:
                    break
                if follow != 0xFF:
                    return HANDOVER
            elif follow != 0x00:
                return HANDOVER
            buf_put(&b, c)
            i = j + 2
            j = i
            while j < n and ((p[j] + 1) & 0xFE) != 0:
                j += 1
            if j + 1 >= n:
                return HANDOVER
        at[0] = j + 2
        return make_value(f.kind, b.p, b.n)
    finally:
        buf_free(&b)


cdef int read_int64(const unsigned char *p, Py_ssize_t n, unsigned char m, Py_ssize_t *at,
                    long long *out) noexcept:
    """Go's ``parseInt64`` at ``at[0]``: 1 and the value (``at[0]`` moved past it), or 0
    when it is malformed. Non-minimal forms are read; a 10-byte form wraps modulo 2**64."""
    cdef Py_ssize_t pos = at[0], k, last
    cdef unsigned char c, d, bit
    cdef int negative
    cdef unsigned long long x
    if pos >= n:
        return 0
    c = p[pos] ^ m
    if 0x40 <= c < 0xC0:  # one byte
        out[0] = <long long> (c ^ 0x80) - (0x100 if c < 0x80 else 0)
        at[0] = pos + 1
        return 1
    negative = (c & 0x80) == 0
    d = m ^ 0xFF if negative else m  # read through this: a negative is inverted
    if negative:
        c ^= 0xFF
    k = 0
    if c == 0xFF:  # a whole byte of one-bits: 8 bytes or more
        if pos + 1 >= n:
            return 0
        pos += 1
        c = p[pos] ^ d
        if c > 0xC0:
            return 0
        k = 7
    bit = 0x80
    while c & bit:
        c &= ~bit
        k += 1
        bit >>= 1
    if n - pos < k:
        return 0
    x = c
    last = pos + k
    pos += 1
    while pos < last:  # unsigned: wraps modulo 2**64 as Go's int64 does
        x = (x << 8) | (p[pos] ^ d)
        pos += 1
    at[0] = last
    out[0] = ~(<long long> x) if negative else <long long> x
    return 1


cdef object read_field(const FieldSpec *f, const unsigned char *p, Py_ssize_t n,
                       Py_ssize_t *at):
    """Field *f* at ``at[0]``, ``at[0]`` moved past it; ``HANDOVER`` when malformed."""
    cdef unsigned char kind = f.kind, m = f.mask, length
    cdef Py_ssize_t pos = at[0], i
    cdef long long x
    cdef Buf b
    if kind == INT64:
        if not read_int64(p, n, m, at, &x):
            return HANDOVER
        return PyLong_FromLongLong(x)
    if kind == STRING or kind == BYTES:
        return read_string(f, p, n, at)
    if kind == UINT64:
        if pos >= n:
            return HANDOVER
        length = p[pos] ^ m
        if length > 8 or pos + 1 + length > n:
            return HANDOVER
        at[0] = pos + 1 + length
        return PyLong_FromUnsignedLongLong(get_be(p + pos + 1, length, m))
    if kind == FLOAT64:
        if not read_int64(p, n, m, at, &x):
            return HANDOVER
        if x < 0:
            x = INT64_MIN - x
        return PyFloat_FromDouble(bits_double(<unsigned long long> x))
    # a trailing string: the rest of the key
    at[0] = n
    if not m:
        return make_value(kind, p + pos, n - pos)
    buf_init(&b)
    try:
        buf_put_n(&b, p + pos, n - pos)
        buf_invert(&b, 0)
        return make_value(kind, b.p, b.n)
    finally:
        buf_free(&b)

# -- the engine of one bound schema ---------------------------------------------------------


cdef int load_spec(FieldSpec* spec, object code) except -1:
    """A field's code, ``(kind, mask)``, as its spec."""
    spec.kind, spec.mask = code
    return 0


# the Engine (hand-over protocol, field by field) is the one orderedcode and storekey share
include "../_fields_engine.pxi"


class CompiledBound(BoundOrderedCode):
    """A bound ``orderedcode`` schema whose operations run in :class:`Engine`."""

    __slots__ = ("engine",)

    def __init__(self, codec, schema, plans):
        BoundOrderedCode.__init__(self, codec, schema, plans)
        self.engine = bound_engine(self)
