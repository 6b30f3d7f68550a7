# cython: language_level=3
"""Raw-buffer primitives of the compiled layouts: stores into a ``uint8_t*``, nogil.

Theory of operation: a layout (``lexcodecs/_centimal.pxi``, a codec's
``codecs/<pkg>/_layout.pxi``) writes a piece at ``p`` and returns the end of what it wrote. The buffer has :data:`SLACK`
bytes of room past the bound of what a writer writes, so that a field of up to 8 bytes goes
out as one fixed-size store and a piece's last store may pass its end: the bytes past it are
the next piece's to write, or lie beyond the key. The row engine (``_engine.pxd``) grows its
``Buf`` by the piece's bound plus :data:`SLACK` before calling a layout
(:c:func:`buf_room`).

The primitives here are the byte rules several formats share, written once for the row
engines (through ``_engine.pxd``'s ``Buf``) and the columnar kernel alike: a big-endian store
(:c:func:`raw_be`), ones' complement (:c:func:`raw_invert`), the IEEE order transform
(:c:func:`raw_order`), ``00`` escaping (:c:func:`raw_escape00`) and 7-bit groups
(:c:func:`raw_seven`).
"""

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memchr, memcpy

cdef extern from *:
    int __builtin_clzll(unsigned long long x) nogil
    int __builtin_ctzll(unsigned long long x) nogil
    uint64_t __builtin_bswap64(uint64_t x) nogil
    uint32_t __builtin_bswap32(uint32_t x) nogil
    uint16_t __builtin_bswap16(uint16_t x) nogil


cdef enum:
    #: bytes of room a writer may store past the end of what it writes
    SLACK = 16


cdef inline uint8_t* raw_be(uint8_t* p, uint64_t v, int width) noexcept nogil:
    """The low *width* bytes of *v*, big-endian: one 8-byte store (the buffer has SLACK)."""
    cdef uint64_t w
    if width == 0:
        return p
    w = __builtin_bswap64(v << (64 - 8 * width))
    memcpy(p, &w, 8)
    return p + width


cdef inline int bit_length(uint64_t m) noexcept nogil:
    return 0 if m == 0 else 64 - __builtin_clzll(m)


cdef inline int nbytes(uint64_t m) noexcept nogil:
    return (bit_length(m) + 7) >> 3


cdef inline uint8_t* copy4(uint8_t* p, const uint8_t* src, int n) noexcept nogil:
    """The first *n* (<= 4) of the 4 bytes at *src*: one fixed-size store (SLACK)."""
    memcpy(p, src, 4)
    return p + n


cdef inline void raw_invert(uint8_t* p, uint8_t* end) noexcept nogil:
    """Every byte of ``p..end`` inverted, 8 at a time (the last store may pass *end*:
    SLACK; the bytes past it are written again later or lie beyond the data)."""
    cdef uint64_t w
    while p < end:
        memcpy(&w, p, 8)
        w = ~w
        memcpy(p, &w, 8)
        p += 8


cdef inline uint64_t raw_order(uint64_t bits, uint64_t negative, int width) noexcept nogil:
    """The IEEE order transform of a float's *width* (4 or 8) bytes of *bits*: every bit
    inverted where *negative* (1 or 0: the sign bit for IEEE order, ``x < 0`` for LexKey's
    literal rule, which leaves -0.0 beside +0.0), else the sign bit set. By a mask, not a
    branch: on random signs a branch is mispredicted half the time, which costs more than the
    rest. A float32's in 32-bit arithmetic (the width is a constant where it counts: the
    kernel's float32 loop took an instruction and a register more in 64 bits)."""
    if width == 4:
        return <uint32_t>bits ^ (<uint32_t>(0 - negative) | 0x80000000U)
    return bits ^ ((0 - negative) | 0x8000000000000000ULL)


cdef inline bint raw_has00(const uint8_t* s, Py_ssize_t n) noexcept nogil:
    """Whether the *n* bytes at *s* hold a ``00``. A short string 8 bytes at a time (a word
    holds a zero byte when ``(w - 0x01..) & ~w & 0x80..`` is not 0; the last word overlaps
    the one before), never reading past *s*: a call of ``memchr`` cost more than the search
    (a quarter of fdb-tuple's string, int64, bytes keys); a long one by ``memchr``."""
    cdef uint64_t w
    cdef Py_ssize_t k = 0
    if n > 64:
        return memchr(s, 0, n) != NULL
    if n < 8:
        for k in range(n):
            if s[k] == 0:
                return True
        return False
    while True:
        memcpy(&w, s + k, 8)
        if (w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL:
            return True
        if k + 8 >= n:
            return False
        k = min(k + 8, n - 8)


cdef inline int raw_lead00(uint64_t w) noexcept nogil:
    """How many bytes of *w* (little-endian: its first in its low byte) are ``00`` and all
    before its first other byte (z), or -1 when a ``00`` comes after that byte too. Exact
    per byte: ``((w & 7f..) + 7f..) | w`` sets the high bit of each non-zero byte, with no
    carry between bytes."""
    cdef uint64_t high = 0x8080808080808080ULL
    cdef uint64_t nonzero = (((w & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL) | w) & high
    cdef int z = __builtin_ctzll(nonzero | (1ULL << 63)) >> 3  # 7 when only byte 7 or none
    if nonzero == 0:
        return 8
    if (~nonzero & high) >> (8 * z) != 0:
        return -1
    return z


cdef inline uint8_t* raw_lead00_word(uint8_t* p, uint64_t w, int z) noexcept nogil:
    """The 8 bytes of *w* escaped, its first *z* (:func:`raw_lead00`) ``00`` and the rest
    none: the ``00 ff`` pairs from a constant, then the rest of *w* shifted, two stores in
    place of a byte loop (a big-endian integer as binary: ids, counters). The stores pass
    the end by up to 8 bytes (SLACK)."""
    cdef uint64_t pairs = 0xFF00FF00FF00FF00ULL  # 00 ff 00 ff ... in memory
    memcpy(p, &pairs, 8)
    memcpy(p + 8, &pairs, 8)
    p += 2 * z
    w = (w >> (4 * z)) >> (4 * z)  # z = 8: nothing left (one shift of 64 is undefined)
    memcpy(p, &w, 8)
    return p + 8 - z


cdef inline uint8_t* raw_escape00(uint8_t* p, const uint8_t* s, Py_ssize_t n) noexcept nogil:
    """*s* with every ``00`` followed by ``ff`` (at most 2n bytes; its stores may pass them
    by 8 bytes: SLACK): one copy when it holds no ``00`` (most strings), else
    :func:`raw_escape00_some`."""
    if not raw_has00(s, n):
        memcpy(p, s, n)
        return p + n
    return raw_escape00_some(p, s, n)


cdef inline uint8_t* raw_escape00_some(uint8_t* p, const uint8_t* s,
                                       Py_ssize_t n) noexcept nogil:
    """:func:`raw_escape00` of an *s* known to hold a ``00`` (the kernel's short strings
    find it as they are read). 8 bytes at a time while each word's ``00`` bytes all lead
    it (:func:`raw_lead00_word`), then byte by byte (not a copy up to the first ``00`` and
    the bytes after: a call of ``memcpy`` for a few bytes cost the kernel's 8-byte binaries
    with leading zeros 15%)."""
    cdef Py_ssize_t k = 0
    cdef uint64_t w
    cdef int z
    cdef uint8_t c
    while k + 8 <= n:
        memcpy(&w, s + k, 8)
        z = raw_lead00(w)
        if z < 0:
            break
        p = raw_lead00_word(p, w, z)
        k += 8
    for k in range(k, n):
        c = s[k]
        p[0] = c
        p += 1
        if c == 0:
            p[0] = 0xFF
            p += 1
    return p


cdef inline uint8_t* raw_seven(uint8_t* p, const uint8_t* s, Py_ssize_t n) noexcept nogil:
    """The bits of *s* in 7-bit groups, a byte each with its high bit set, the last group
    padded with zero bits: ``(8n + 6) // 7`` bytes, stored exactly (sqlite4's binary;
    HBase's BlobVar then clears the last byte's high bit)."""
    cdef uint32_t acc = 0
    cdef int nbits = 0
    cdef Py_ssize_t k = 0
    cdef uint64_t v
    # seven bytes at a time while eight can be read: their 56 bits spread into the low 7
    # bits of eight bytes by three halvings (28-bit halves into 32-bit lanes, 14 into 16, 7
    # into 8), one store; 56 bits are eight whole groups, so the bytes after start afresh
    while n - k >= 8:
        memcpy(&v, s + k, 8)
        v = __builtin_bswap64(v) >> 8
        v = ((v & 0x00FFFFFFF0000000ULL) << 4) | (v & 0x000000000FFFFFFFULL)
        v = ((v & 0x0FFFC0000FFFC000ULL) << 2) | (v & 0x00003FFF00003FFFULL)
        v = ((v & 0x3F803F803F803F80ULL) << 1) | (v & 0x007F007F007F007FULL)
        v = __builtin_bswap64(v | 0x8080808080808080ULL)
        memcpy(p, &v, 8)
        p += 8
        k += 7
    for k in range(k, n):
        acc = ((acc << 8) | s[k]) & 0x7FFF
        nbits += 8
        while nbits >= 7:
            nbits -= 7
            p[0] = 0x80 | ((acc >> nbits) & 0x7F)
            p += 1
    if nbits:
        p[0] = 0x80 | ((acc << (7 - nbits)) & 0x7F)
        p += 1
    return p
