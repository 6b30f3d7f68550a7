# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled ``storekey`` engine: every field kind and Option nesting, both ways.

Theory of operation: a bound schema hands this module its plan data, one
:class:`~.format.FieldCode` ``(kind, width, layers)`` per field (``format.py``'s kinds; the
reference readers and writers are built from the same rows). :class:`Engine` copies them into
a C array once and then writes and reads keys with a branch per field on the kind, one
:c:type:`Buf`, and no Python call on the usual path:

* Option tags: ``01`` per layer before a value; ``00`` for None, ``01 .. 00`` for
  ``Some(None)`` (its chain of exact ``Some`` read through their ``value`` slot);
* fixed-width values, strings, chars, bytes and sequences through ``_layout.pxi``;
* reading is ``storekey::deserialize``'s, lenient where it is (a non-zero bool byte is true,
  a char takes the first character of a longer string, a sequence may end at the end).

Exact types are checked before any internals are read; anything this module does not take as
its own -- a subclass, a value out of range or not exactly a binary32, a NULL where the field
has no Option, a char that is U+0000, a surrogate or not one character, a malformed key,
bytes left over, text that is not UTF-8, a key that is no exact ``bytes`` -- hands the *whole*
key to the reference ``careful_*`` method, which gives the same answer or raises the typed
error. This module never words an error; ``lexcodecs._impl.HANDOVERS`` counts the hand-overs.
"""

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_CheckExact, PyByteArray_GET_SIZE
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_CheckExact, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_CheckExact, PyFloat_FromDouble
from cpython.list cimport PyList_CheckExact
from cpython.long cimport PyLong_FromLongLong, PyLong_FromUnsignedLongLong
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF
from cpython.sequence cimport PySequence_Fast_ITEMS
from cpython.tuple cimport PyTuple_CheckExact, PyTuple_New, PyTuple_SET_ITEM
from cpython.unicode cimport PyUnicode_CheckExact, PyUnicode_DecodeUTF8
from libc.stdint cimport uint64_t
from libc.string cimport memchr, memcpy

from lexcodecs._engine cimport (
    Buf, bits_double, buf_bytes, buf_free, buf_init, buf_put, buf_room, bytes_of, double_bits,
    get_be,
    int64_of, uint64_of, unorder_bits, utf8_of,
)
from lexcodecs._raw cimport SLACK

# the fields' bytes, over raw buffers
include "_layout.pxi"

import types as _types

from lexcodecs.types import Float32, Some

from .codec import BoundStorekey
from lexcodecs._impl import HANDOVERS

# the field kinds and tags: format.py's, through the _format.pxd the build writes from it
# (lexcodecs/_pxdgen.py), under this module's names for them
from lexcodecs.codecs.storekey._format cimport (
    KIND_BOOL as BOOL, KIND_BYTES as BYTES, KIND_CHAR as CHAR, KIND_FLOAT32 as FLOAT32,
    KIND_FLOAT64 as FLOAT64, KIND_INT as INT, KIND_SEQ as SEQ, KIND_STRING as STRING,
    KIND_UINT as UINT, OPTION_NONE, OPTION_SOME,
)

cdef extern from "Python.h":
    ctypedef struct PyTypeObject:
        pass
    Py_ssize_t PyUnicode_GET_LENGTH(object s)
    Py_UCS4 PyUnicode_READ_CHAR(object s, Py_ssize_t i)
    object PyUnicode_Substring(object s, Py_ssize_t start, Py_ssize_t end)

cdef extern from *:
    """
    /* a Float32 made as Float32.from_bits makes it, without the call: float's allocation
       with its value, then its bits slot written through the slot's member descriptor */
    static PyObject *sk_new_float(PyTypeObject *t, double d) {
        PyObject *o = t->tp_alloc(t, 0);
        if (o) ((PyFloatObject *)o)->ob_fval = d;
        return o;
    }
    static int sk_slot_set(PyObject *descr, PyObject *obj, PyObject *value) {
        return Py_TYPE(descr)->tp_descr_set(descr, obj, value);
    }
    """
    object sk_new_float(PyTypeObject *t, double d)
    int sk_slot_set(PyObject *descr, object obj, object value) except -1

ctypedef struct FieldSpec:
    unsigned char kind
    unsigned char width         # fixed-width kinds: bytes
    unsigned char layers        # Option layers (0: no NULL)
    long long lo                # a signed kind's range
    long long hi
    unsigned long long umax     # an unsigned kind's largest value

cdef type Float32_t = Float32
cdef type Some_t = Some
cdef object F32_BITS = Float32.__dict__["bits"]
if type(F32_BITS) is not _types.MemberDescriptorType:
    raise ImportError("Float32.bits is not a __slots__ member; the compiled storekey module "
                      "does not know this Float32")
cdef object HANDOVER = object()   # what a reader answers for bytes it does not take
#: hand-overs are counted in lexcodecs._impl.HANDOVERS under this package's name
cdef str PACKAGE = "storekey"


# -- writing --------------------------------------------------------------------------------


cdef inline int double_of(object v, double *out) noexcept:
    """The value of *v* in a float field: an exact float or Float32 (its value, never its
    bits slot), or an exact int a double holds exactly; 0 to hand over."""
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


cdef inline int f32_bits_of(double d, uint64_t *out) noexcept:
    """The binary32 bits of a double that is one exactly (a NaN whose payload survives the
    narrowing, as Float32.from_bits widens it): 1, else 0 (hand over)."""
    cdef uint64_t bits = double_bits(d)
    cdef float f
    cdef unsigned int b32
    if d != d:
        if bits & ((1ULL << 29) - 1):
            return 0
        out[0] = ((bits >> 32) & 0x80000000ULL) | 0x7F800000ULL | ((bits >> 29) & 0x007FFFFFULL)
        return 1
    if (d > 3.4028234663852886e38 or d < -3.4028234663852886e38) and d - d == 0.0:
        return 0  # finite and beyond binary32 (the cast would be undefined); ±inf is exact
    f = <float> d
    if <double> f != d:
        return 0
    memcpy(&b32, &f, 4)
    out[0] = b32
    return 1




cdef inline int char_of(object v, const unsigned char **s, Py_ssize_t *n) noexcept:
    """The UTF-8 of an exact ``str`` of one Unicode scalar value other than U+0000: 1, else
    0 (hand over: the reference words the refusal)."""
    cdef Py_UCS4 c
    if not PyUnicode_CheckExact(v) or PyUnicode_GET_LENGTH(v) != 1:
        return 0
    c = PyUnicode_READ_CHAR(v, 0)
    if c == 0 or 0xD800 <= c <= 0xDFFF:
        return 0
    return utf8_of(v, s, n)


cdef int write_tags(Buf *b, const FieldSpec *f, object v) except -1:
    """The Option tags before a value (1: the value follows), or the whole of a None or
    ``Some(None)`` (2: written); 0 to hand over."""
    cdef int i, depth = 0
    cdef object inner
    if v is None:
        if not f.layers:
            return 0
        buf_put(b, OPTION_NONE)
        return 2
    if type(v) is Some_t:
        inner = v
        while type(inner) is Some_t:
            depth += 1
            inner = (<object> inner).value
        if inner is not None or depth >= f.layers:
            return 0
        for i in range(depth):
            buf_put(b, OPTION_SOME)
        buf_put(b, OPTION_NONE)
        return 2
    for i in range(f.layers):
        buf_put(b, OPTION_SOME)
    return 1


cdef int write_value(Buf *b, const FieldSpec *f, object v) except -1:
    """Write *v* as field *f*: 1 when written, 0 to hand the key over (the bytes written so
    far are then dropped)."""
    cdef Py_ssize_t n
    cdef const unsigned char *s
    cdef long long x
    cdef unsigned long long u
    cdef uint64_t bits
    cdef double d
    cdef unsigned char kind = f.kind
    cdef int tags = write_tags(b, f, v)
    if tags != 1:
        return 0 if tags == 0 else 1  # handed over, or a None / Some(None) written whole
    buf_room(b, 8 + SLACK)
    if kind == INT:
        if not int64_of(v, &x) or x < f.lo or x > f.hi:
            return 0
        b.n = sk_int(b.p + b.n, <uint64_t> x, f.width) - b.p
    elif kind == STRING:
        if not PyUnicode_CheckExact(v) or not utf8_of(v, &s, &n):
            return 0
        buf_room(b, n + 1)
        b.n = sk_text(b.p + b.n, s, n) - b.p
    elif kind == UINT:
        if not uint64_of(v, &u) or u > f.umax:
            return 0
        b.n = sk_uint(b.p + b.n, u, f.width) - b.p
    elif kind == FLOAT64:
        if not double_of(v, &d):
            return 0
        b.n = sk_float(b.p + b.n, double_bits(d), 8) - b.p
    elif kind == BOOL:
        if v is True:
            buf_put(b, 1)
        elif v is False:
            buf_put(b, 0)
        else:
            return 0
    elif kind == FLOAT32:
        if not double_of(v, &d) or not f32_bits_of(d, &bits):
            return 0
        b.n = sk_float(b.p + b.n, bits, 4) - b.p
    elif kind == BYTES:
        if not bytes_of(v, &s, &n):
            return 0
        buf_room(b, n + 8 + SLACK)
        b.n = sk_bytes(b.p + b.n, s, n) - b.p
    elif kind == SEQ:
        if not bytes_of(v, &s, &n):
            return 0
        buf_room(b, n + 1)
        b.n = sk_seq(b.p + b.n, s, n) - b.p
    else:  # CHAR
        if not char_of(v, &s, &n):
            return 0
        buf_room(b, n + 1)
        b.n = sk_text(b.p + b.n, s, n) - b.p
    return 1

# -- reading --------------------------------------------------------------------------------


cdef object text_at(const unsigned char *p, Py_ssize_t n, Py_ssize_t *at):
    """The UTF-8 text at ``at[0]`` up to its ``00`` (``at[0]`` moved past it), or HANDOVER
    (no ``00``, not UTF-8)."""
    cdef Py_ssize_t i = at[0]
    cdef const unsigned char *end = <const unsigned char *> memchr(p + i, 0, n - i)
    if end == NULL:
        return HANDOVER
    at[0] = (end - p) + 1
    try:
        return PyUnicode_DecodeUTF8(<const char *> (p + i), end - (p + i), NULL)
    except UnicodeDecodeError:
        return HANDOVER


cdef object float32_of(uint64_t bits):
    """``Float32.from_bits(bits)``: the value it widens to (a NaN by hand, as
    ``types._f32_value``: sign, then the payload shifted into the double's), its bits kept."""
    cdef unsigned int b32 = <unsigned int> bits
    cdef float f
    cdef double d
    cdef object out
    if (b32 & 0x7F800000) == 0x7F800000 and (b32 & 0x007FFFFF):
        d = bits_double(((<uint64_t> (b32 & 0x80000000)) << 32) | 0x7FF0000000000000ULL |
                        ((<uint64_t> (b32 & 0x007FFFFF)) << 29))
    else:
        memcpy(&f, &b32, 4)
        d = <double> f
    out = sk_new_float(<PyTypeObject *> Float32_t, d)
    sk_slot_set(<PyObject *> F32_BITS, out, PyLong_FromUnsignedLongLong(b32))
    return out


cdef object option_value(int ones):
    """None inside *ones* ``Some``: None, Some(None), ..."""
    cdef object value = None
    cdef int i
    for i in range(ones):
        value = Some(value)
    return value


cdef object read_field(const FieldSpec *f, const unsigned char *p, Py_ssize_t n,
                       Py_ssize_t *at):
    """Field *f* at ``at[0]``, ``at[0]`` moved past it; ``HANDOVER`` when malformed."""
    cdef unsigned char kind = f.kind, width = f.width
    cdef Py_ssize_t pos = at[0], i
    cdef unsigned long long u
    cdef const unsigned char *end
    cdef object text
    for i in range(f.layers):
        if pos >= n:
            return HANDOVER
        if p[pos] == OPTION_NONE:
            at[0] = pos + 1
            return option_value(i)
        if p[pos] != OPTION_SOME:
            return HANDOVER
        pos += 1
    if kind == STRING or kind == CHAR:
        at[0] = pos
        text = text_at(p, n, at)
        if kind == STRING or text is HANDOVER:
            return text
        if PyUnicode_GET_LENGTH(text) == 0:
            return HANDOVER
        return text if PyUnicode_GET_LENGTH(text) == 1 else PyUnicode_Substring(text, 0, 1)
    if kind == SEQ:
        end = <const unsigned char *> memchr(p + pos, 1, n - pos)
        if end == NULL:
            at[0] = n
            return PyBytes_FromStringAndSize(<const char *> (p + pos), n - pos)
        at[0] = (end - p) + 1
        return PyBytes_FromStringAndSize(<const char *> (p + pos), end - (p + pos))
    if kind == BYTES:
        if n - pos < 8:
            return HANDOVER
        u = get_be(p + pos, 8, 0)
        pos += 8
        if u > <unsigned long long> (n - pos):
            return HANDOVER
        at[0] = pos + <Py_ssize_t> u
        return PyBytes_FromStringAndSize(<const char *> (p + pos), <Py_ssize_t> u)
    if n - pos < width:
        return HANDOVER
    u = get_be(p + pos, width, 0)
    at[0] = pos + width
    if kind == INT:
        if width == 8:
            return PyLong_FromLongLong(<long long> (u ^ 0x8000000000000000ULL))
        return PyLong_FromLongLong(<long long> u - <long long> (1ULL << (8 * width - 1)))
    if kind == UINT:
        return PyLong_FromUnsignedLongLong(u)
    if kind == FLOAT64:
        return PyFloat_FromDouble(bits_double(unorder_bits(u, 8)))
    if kind == BOOL:
        return u != 0  # any non-zero byte is true, as the crate reads it
    return float32_of(unorder_bits(u, 4))  # FLOAT32

# -- the engine of one bound schema ---------------------------------------------------------


cdef int load_spec(FieldSpec* spec, object code) except -1:
    """A field's code (``reference_encode``'s) as its spec."""
    spec.kind = code.kind
    spec.width = code.width
    spec.layers = code.layers
    spec.lo = code.lo if code.kind == INT else 0
    spec.hi = code.hi if code.kind == INT else 0
    spec.umax = code.hi if code.kind == UINT else 0
    return 0


# the Engine (hand-over protocol, field by field) is the one orderedcode and storekey share
include "../_fields_engine.pxi"


class CompiledBound(BoundStorekey):
    """A bound ``storekey`` schema whose operations run in :class:`Engine`."""

    __slots__ = ("engine",)

    def __init__(self, codec, schema, plans):
        BoundStorekey.__init__(self, codec, schema, plans)
        self.engine = bound_engine(self)
