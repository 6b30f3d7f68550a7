# The byte layout of bytewise (format.py), written once for its compiled code: the row engine
# (``_compiled.pyx``) includes this file.
#
# Theory of operation: a number or Date is its tag and the 8 big-endian IEEE bytes of the
# value (``x >= 0``, -0 as +0) or of its magnitude, complemented (``x < 0``): one 8-byte
# store (``lexcodecs/_raw.pxd``; the buffer has SLACK bytes past it). A string or Buffer in an
# array is its body with 00 and 01 (and a Buffer's fe and ff) escaped as two bytes.

from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memcpy

from lexcodecs._raw cimport raw_be
from lexcodecs.codecs.bytewise._format cimport (
    ESCAPE_HIGH as BW_ESCAPE_HIGH, ESCAPE_LOW as BW_ESCAPE_LOW,
)

cdef enum:
    #: a number's or Date's bytes: the tag and 8
    BW_NUMBER = 9


cdef inline uint8_t* bw_number(uint8_t* p, uint8_t negative_tag, uint8_t positive_tag,
                               double x) noexcept nogil:
    """The tag and 8 bytes of the finite double *x*. Without a branch on the sign (random
    signs mispredict half the time): for x < 0 the bytes of -x complemented are x's bytes
    with every bit but the sign flipped."""
    cdef uint64_t bits, negative
    x = x + 0.0  # -0.0 is written as +0.0
    memcpy(&bits, &x, 8)
    negative = bits >> 63
    p[0] = <uint8_t>(positive_tag - negative * (positive_tag - negative_tag))
    return raw_be(p + 1, bits ^ ((0 - negative) & 0x7FFFFFFFFFFFFFFFULL), 8)


cdef inline uint8_t* bw_escaped(uint8_t* p, const uint8_t* s, Py_ssize_t n,
                                bint buffer) noexcept nogil:
    """*s* escaped for an array element (at most 2n bytes): 00 -> 01 01, 01 -> 01 02, and for
    a Buffer fe -> fe fd, ff -> fe fe."""
    cdef Py_ssize_t i
    cdef uint8_t c
    for i in range(n):
        c = s[i]
        if c <= BW_ESCAPE_LOW:
            p[0] = BW_ESCAPE_LOW
            p[1] = c + 1
            p += 2
        elif buffer and c >= BW_ESCAPE_HIGH:
            p[0] = BW_ESCAPE_HIGH
            p[1] = c - 1
            p += 2
        else:
            p[0] = c
            p += 1
    return p
