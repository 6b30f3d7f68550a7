# cython: language_level=3
"""Shared machinery of the compiled codecs, written once and inlined into each of them.

Theory of operation: a compiled codec module (``lexcodecs/codecs/<name>/_compiled.pyx``)
``cimport``s this file. Everything here is ``cdef inline``, so no shared extension module has
to be built or loaded: each codec module carries its own copy of these few lines.

* **Writing.** A key is written into a :c:type:`Buf` on the caller's C stack: the first
  ``BUF_INLINE`` bytes live inside the struct, longer keys move to the heap. A ``Buf`` is only
  ever used through a pointer (``p`` points into the struct itself). Finish with
  :c:func:`buf_bytes` then :c:func:`buf_free` (always, also on errors: use ``try/finally``).
  The bytes themselves are the layouts' (``lexcodecs/_raw.pxd``, ``lexcodecs/_centimal.pxi``,
  a codec's ``_layout.pxi``), which the columnar kernel writes with too: a writer here, or a
  row engine's, makes room (:c:func:`buf_room`) and calls one.
* **Descending order, one strategy.** Encode: write the field ascending, then
  :c:func:`buf_invert` the bytes from the field's start (ones' complement). Decode: read every
  byte of a descending field as ``p[i] ^ mask`` with ``mask = 0xff`` (``0`` ascending); the
  readers below take the mask.
* **Handing over.** A compiled writer or reader that meets anything it does not take as its
  own (a subclass, a tampered object, a value to refuse, a malformed key) returns ``0``
  (``NULL`` for readers) *without* an exception; the bound object then runs the reference
  Python for the whole key, which either gives the same bytes or raises the typed error. So
  compiled code never shapes an error message, and both implementations refuse alike. ``-1``
  (or ``NULL`` with an exception set) is a real failure such as ``MemoryError``.
* **Exact types first.** Compiled code reads an object's internals only after checking its
  exact type (``PyLong_CheckExact`` and friends, ``type(v) is T``); a subclass is handed over.
"""

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_CheckExact, PyByteArray_GET_SIZE
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_CheckExact, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.exc cimport PyErr_Clear, PyErr_NoMemory
from cpython.list cimport PyList_AsTuple, PyList_CheckExact
from cpython.long cimport PyLong_CheckExact
from cpython.tuple cimport PyTuple_CheckExact
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from libc.string cimport memcpy

# the byte rules the formats share, over raw buffers: the Buf's writers below call them
from lexcodecs._raw cimport SLACK, raw_be, raw_escape00, raw_order

cdef extern from "Python.h":
    const char *PyUnicode_AsUTF8AndSize(object s, Py_ssize_t *size) except? NULL
    long long PyLong_AsLongLongAndOverflow(object v, int *overflow) except? -1
    unsigned long long PyLong_AsUnsignedLongLong(object v) except? -1

# -- writing --------------------------------------------------------------------------------

cdef enum:
    BUF_INLINE = 256

ctypedef struct Buf:
    unsigned char *p        # the bytes written so far: into inline_, or a heap block
    Py_ssize_t n            # how many
    Py_ssize_t cap          # room at p
    unsigned char inline_[BUF_INLINE]


cdef inline void buf_init(Buf *b) noexcept:
    b.p = b.inline_
    b.n = 0
    b.cap = BUF_INLINE


cdef inline void buf_free(Buf *b) noexcept:
    if b.p != b.inline_:
        PyMem_Free(b.p)
    b.p = b.inline_
    b.n = 0
    b.cap = BUF_INLINE


cdef inline int buf_grow(Buf *b, Py_ssize_t extra) except -1:
    """Room for *extra* more bytes (doubling; the inline bytes are copied out once)."""
    cdef Py_ssize_t need = b.n + extra
    cdef Py_ssize_t cap = b.cap * 2
    cdef unsigned char *q
    if need <= b.cap:
        return 0
    if cap < need:
        cap = need
    if b.p == b.inline_:
        q = <unsigned char *> PyMem_Malloc(cap)
        if q == NULL:
            PyErr_NoMemory()
            return -1
        memcpy(q, b.p, b.n)
    else:
        q = <unsigned char *> PyMem_Realloc(b.p, cap)
        if q == NULL:
            PyErr_NoMemory()
            return -1
    b.p = q
    b.cap = cap
    return 0


cdef inline int buf_room(Buf *b, Py_ssize_t extra) except -1:
    """Room for *extra* more bytes at ``b.p + b.n``, for a layout that writes there directly
    (``lexcodecs/_raw.pxd``: its bound plus SLACK)."""
    if b.n + extra > b.cap:
        buf_grow(b, extra)
    return 0


cdef inline int buf_put(Buf *b, unsigned char c) except -1:
    if b.n >= b.cap:
        buf_grow(b, 1)
    b.p[b.n] = c
    b.n += 1
    return 0


cdef inline int buf_put_n(Buf *b, const unsigned char *s, Py_ssize_t n) except -1:
    if b.n + n > b.cap:
        buf_grow(b, n)
    memcpy(b.p + b.n, s, n)
    b.n += n
    return 0


cdef inline int buf_put_be(Buf *b, unsigned long long x, int width) except -1:
    """The low *width* (0..8) bytes of *x*, big-endian (``_raw.pxd``'s :c:func:`raw_be`: one
    8-byte store)."""
    if b.n + width + SLACK > b.cap:
        buf_grow(b, width + SLACK)
    b.n = raw_be(b.p + b.n, x, width) - b.p
    return 0


cdef inline int buf_put_escaped(Buf *b, const unsigned char *s, Py_ssize_t n) except -1:
    """*s* with every ``00`` followed by ``ff`` (``_raw.pxd``'s :c:func:`raw_escape00`, whose
    stores may pass its 2n bytes: SLACK)."""
    if b.n + 2 * n + SLACK > b.cap:
        buf_grow(b, 2 * n + SLACK)
    b.n = raw_escape00(b.p + b.n, s, n) - b.p
    return 0


cdef inline void buf_invert(Buf *b, Py_ssize_t start) noexcept:
    """Descending order: the ones' complement of every byte written since *start*."""
    cdef Py_ssize_t i
    for i in range(start, b.n):
        b.p[i] = b.p[i] ^ 0xFF


cdef inline bytes buf_bytes(Buf *b):
    return PyBytes_FromStringAndSize(<char *> b.p, b.n)

# -- reading --------------------------------------------------------------------------------

cdef inline unsigned long long get_be(const unsigned char *p, int width,
                                      unsigned char mask) noexcept:
    """*width* bytes at *p*, big-endian, each read through *mask*."""
    cdef unsigned long long x = 0
    cdef int i
    for i in range(width):
        x = (x << 8) | (p[i] ^ mask)
    return x

# -- values ---------------------------------------------------------------------------------

cdef inline tuple values_of(object values):
    """The values of a key as a tuple, when they come as an exact ``tuple`` or ``list``;
    ``None`` for anything else (a subclass, another sequence: hand the key over)."""
    if PyTuple_CheckExact(values):
        return <tuple> values
    if PyList_CheckExact(values):
        return PyList_AsTuple(values)
    return None


cdef inline int utf8_of(object s, const unsigned char **out, Py_ssize_t *n) noexcept:
    """The UTF-8 of an exact ``str`` (cached inside the object): 1, or 0 when it has none
    (a lone surrogate); the caller has checked ``PyUnicode_CheckExact``."""
    cdef const char *p
    try:
        p = PyUnicode_AsUTF8AndSize(s, n)
    except BaseException:
        PyErr_Clear()
        return 0
    out[0] = <const unsigned char *> p
    return 1


cdef inline int bytes_of(object v, const unsigned char **s, Py_ssize_t *n) noexcept:
    """The contents of an exact ``bytes`` or ``bytearray``: 1, else 0 (hand over)."""
    if PyBytes_CheckExact(v):
        s[0] = <const unsigned char *> PyBytes_AS_STRING(v)
        n[0] = PyBytes_GET_SIZE(v)
        return 1
    if PyByteArray_CheckExact(v):
        s[0] = <const unsigned char *> PyByteArray_AS_STRING(v)
        n[0] = PyByteArray_GET_SIZE(v)
        return 1
    return 0


cdef inline int int64_of(object v, long long *out) noexcept:
    """An exact ``int`` in -2**63..2**63-1: 1 and the value, else 0 (hand over)."""
    cdef int overflow = 0
    cdef long long x
    if not PyLong_CheckExact(v):
        return 0
    try:
        x = PyLong_AsLongLongAndOverflow(v, &overflow)
    except BaseException:
        PyErr_Clear()
        return 0
    if overflow:
        return 0
    out[0] = x
    return 1


cdef inline int uint64_of(object v, unsigned long long *out) noexcept:
    """An exact ``int`` in 0..2**64-1: 1 and the value, else 0 (hand over)."""
    cdef unsigned long long x
    if not PyLong_CheckExact(v):
        return 0
    try:
        x = PyLong_AsUnsignedLongLong(v)  # OverflowError for a negative int too
    except BaseException:
        PyErr_Clear()
        return 0
    out[0] = x
    return 1


cdef inline unsigned long long double_bits(double x) noexcept:
    cdef unsigned long long bits
    memcpy(&bits, &x, 8)
    return bits


cdef inline double bits_double(unsigned long long bits) noexcept:
    cdef double x
    memcpy(&x, &bits, 8)
    return x


cdef inline unsigned long long order_bits(unsigned long long bits, int width) noexcept:
    """IEEE bits of *width* bytes in sortable form: negatives (by the sign bit) inverted,
    others sign-set (``_raw.pxd``'s :c:func:`raw_order`)."""
    return raw_order(bits, (bits >> (8 * width - 1)) & 1, width)


cdef inline unsigned long long unorder_bits(unsigned long long bits, int width) noexcept:
    """Inverse of :c:func:`order_bits`."""
    cdef unsigned long long sign = 1ULL << (8 * width - 1)
    cdef unsigned long long all_ = sign | (sign - 1)
    if bits & sign:
        return bits ^ sign
    return bits ^ all_
