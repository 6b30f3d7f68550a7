# cython: language_level=3
"""Raw-buffer primitives of the compiled layouts: stores into a ``uint8_t*``, nogil.

Theory of operation: a layout (``lexcodecs/_centimal.pxi``, the columnar kernel's writers)
writes a piece at ``p`` and returns the end of what it wrote. The buffer has :data:`SLACK`
bytes of room past the bound of what a writer writes, so that a field of up to 8 bytes goes
out as one fixed-size store and a piece's last store may pass its end: the bytes past it are
the next piece's to write, or lie beyond the key. The row engine (``_engine.pxd``) grows its
``Buf`` by the piece's bound plus :data:`SLACK` before calling a layout
(:c:func:`buf_room`).
"""

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy

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
