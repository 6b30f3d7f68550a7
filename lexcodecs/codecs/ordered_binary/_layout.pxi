# The byte layout of ordered-binary's numbers (format.py), written once for its compiled
# users: the row engine (``_compiled.pyx``) and the columnar kernel
# (``lexcodecs/columnar/_kernel.pyx``) include this file.
#
# Theory of operation: a number is a float64, written as the 18 nibbles ``1 ‖ u ‖ 0`` (u its
# IEEE bits) when ``!(x < 0)``, ``0 ‖ (u XOR 7fff…ff) ‖ 0`` when ``x < 0``: a byte of marker
# and u's top nibble, then u's other 60 bits and a zero nibble as one 8-byte big-endian store
# (``lexcodecs/_raw.pxd``; the buffer has SLACK bytes past it). A bare non-negative number
# keeps fewer of the nine (the row engine's business: :data:`NUMBER_LENGTHS`). An integer no
# double equals adds its BigInt remainder; a string is its UTF-8 with a few bytes escaped.

from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.string cimport memcpy

from lexcodecs._raw cimport bit_length, raw_be
from lexcodecs.codecs.ordered_binary._format cimport (
    BIGINT_SHIFT as OB_BIGINT_SHIFT, ESCAPE as OB_ESCAPE,
    FIRST_PLAIN_UNIT as OB_FIRST_PLAIN_UNIT, LONG_STRING_UNITS as OB_LONG_STRING_UNITS,
    NEGATIVE_MASK as OB_NEGATIVE_MASK, STRING_PREFIX as OB_STRING_PREFIX,
)

cdef enum:
    #: a number's bytes in an array (and a negative one's, bare), and an integer's at most
    #: (the double's nine, then the remainder: below 2**11, at most two 7-bit groups)
    OB_NUMBER = 9
    OB_INT_MAX = 11

#: the largest magnitude below which every integer is a double's
cdef uint64_t OB_EXACT = 1ULL << 53


cdef inline uint8_t* ob_number(uint8_t* p, uint64_t bits, bint negative) noexcept nogil:
    """The 9-byte form of the number of IEEE bits *bits* (*negative*: ``x < 0``)."""
    cdef uint64_t u = bits ^ (OB_NEGATIVE_MASK & (0 - <uint64_t>negative))
    p[0] = <uint8_t>((0x10 & ~(0 - <uint64_t>negative)) | (u >> 60))
    return raw_be(p + 1, u << 4, 8)


cdef inline uint64_t ob_shl(uint64_t n, int by) noexcept nogil:
    """JS BigInt ``n << by`` for small non-negative *n* (a negative *by* shifts right)."""
    if by >= 0:
        return n << by if by < 64 else 0
    return n >> (-by) if by > -64 else 0


cdef inline uint8_t* ob_int(uint8_t* p, bint neg, uint64_t mag) noexcept nogil:
    """The bytes of an integer of magnitude *mag* (< 2**64; <= 2**63 when *neg*): the
    number's when a double equals it, else the 9-byte form of the double nearer zero (the
    largest below a positive; for a negative, the one lmdb-js picks), the remainder's top
    bits OR-ed into its last byte, then the rest in 7-bit groups ``80 | g`` (at most
    :data:`OB_INT_MAX` bytes in all). NULL where lmdb-js does not carry into the high half
    of the bits (the row API's)."""
    cdef double nearest
    cdef uint64_t bits, low
    cdef int sh, e
    if mag <= OB_EXACT:
        # a double equals it: the sign by a mask, not a branch (on random signs a branch
        # was mispredicted half the time: ordered-binary's 2 x int, 18.9 ns a row)
        nearest = <double><int64_t>mag
        memcpy(&bits, &nearest, 8)
        return ob_number(p, bits | (<uint64_t>neg << 63), neg)
    if neg:
        return _ob_negative_int(p, mag)
    # a positive one above 2**53: the double below it is *mag* cut to its 53 high bits, in
    # integers (no rounding to undo), the remainder its *sh* low bits; the remainder starts
    # at bit e of the double's (exponent 1075 + sh), at most 7: its top bits into the 9th
    # byte, the e bits below them in one group
    sh = bit_length(mag) - 53
    low = mag & ((1ULL << sh) - 1)
    bits = (<uint64_t>(1075 + sh) << 52) | ((mag >> sh) & 0xFFFFFFFFFFFFFULL)
    if low == 0:
        return ob_number(p, bits, False)
    ob_number(p, bits, False)
    e = 1075 + sh - OB_BIGINT_SHIFT
    if e <= 0:
        p[8] |= <uint8_t>(low << -e)
        p[9] = 0x80
    else:
        p[8] |= <uint8_t>(low >> e)
        p[9] = <uint8_t>(0x80 | ((low & ((1ULL << e) - 1)) << (7 - e)))
    return p + 10


cdef uint8_t* _ob_negative_int(uint8_t* p, uint64_t mag) noexcept nogil:
    """:func:`ob_int` of a negative integer no double equals: the double lmdb-js picks
    (``-Number(n)``, one further from zero when that rounded towards it), the remainder's
    groups while any of it is left. Not inline: inlined, it made :func:`ob_int` too big for
    GCC to inline into the kernel's loops, which then called it for every integer."""
    cdef double nearest = -<double>mag  # Number(n): to nearest, ties to even
    cdef double base
    cdef uint64_t bits, diff, top, group
    cdef int exponent
    cdef uint8_t* end
    memcpy(&bits, &nearest, 8)
    if <uint64_t>(-nearest) < mag:
        if (bits & 0xFFFFFFFFULL) == 0xFFFFFFFFULL:
            return NULL
        bits += 1
    memcpy(&base, &bits, 8)
    diff = <uint64_t>(-base) - mag
    end = ob_number(p, bits, True)
    if diff == 0:
        return end
    exponent = <int>((bits >> 52) & 0x7FF) - OB_BIGINT_SHIFT
    top = ob_shl(diff, -exponent)
    p[8] |= <uint8_t>top
    diff -= ob_shl(top, exponent)
    while True:
        exponent -= 7
        group = ob_shl(diff, -exponent)
        end[0] = <uint8_t>((group & 0xFF) | 0x80)
        end += 1
        diff -= ob_shl(group, exponent)
        if diff == 0:
            return end


cdef inline Py_ssize_t ob_units(const uint8_t* s, Py_ssize_t n) noexcept nogil:
    """The UTF-16 units of valid UTF-8, as far as :func:`ob_utf8` asks (whether they are 64
    or more): fewer than 64 bytes are fewer units, and count as their bytes; else each byte
    that is not a continuation byte (``10xxxxxx``) is one unit, a 4-byte sequence's lead
    (``11110xxx``) two, counted 8 bytes at a time, the bytes' top
    bits combined by shifts (a byte at a time took about 1 ns a byte, as much as the rest
    of a long string's encoding)."""
    cdef Py_ssize_t i = 0, units = n
    cdef uint64_t w, high = 0x8080808080808080ULL, ONES = 0x0101010101010101ULL
    if n < OB_LONG_STRING_UNITS:
        return n
    while i + 8 <= n:
        memcpy(&w, s + i, 8)
        # a mark per byte in its bit 7, moved to bit 0 and summed by one multiplication
        # (no popcount instruction without -mpopcnt)
        units -= (((w & ~(w << 1) & high) >> 7) * ONES) >> 56
        units += (((w & (w << 1) & (w << 2) & (w << 3) & high) >> 7) * ONES) >> 56
        i += 8
    while i < n:
        units += ((s[i] & 0xC0) == 0x80) * -1 + (s[i] >= 0xF0)
        i += 1
    return units


cdef inline uint8_t* ob_utf8(uint8_t* p, const uint8_t* s, Py_ssize_t n,
                             Py_ssize_t units) noexcept nogil:
    """The bytes of a string given as valid UTF-8 of *units* UTF-16 units (:func:`ob_units`;
    at most 2n + 1 bytes): ``1b`` first when it is empty or its first unit is below 28;
    fewer than 64 units: each byte <= 04 (a code point <= 4) written ``04 c``; 64 or more:
    the UTF-8 as it is."""
    cdef Py_ssize_t i
    if n == 0 or s[0] < OB_FIRST_PLAIN_UNIT:
        p[0] = OB_STRING_PREFIX
        p += 1
    if units >= OB_LONG_STRING_UNITS:
        memcpy(p, s, n)
        return p + n
    for i in range(n):
        if s[i] <= OB_ESCAPE:
            p[0] = OB_ESCAPE
            p += 1
        p[0] = s[i]
        p += 1
    return p
