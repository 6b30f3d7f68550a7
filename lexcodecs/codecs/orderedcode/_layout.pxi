# The byte layout of orderedcode (format.py), written once for its compiled users: the row
# engine (``_compiled.pyx``) and the columnar kernel (``lexcodecs/columnar/_kernel.pyx``)
# include this file.
#
# Theory of operation: every writer stores into a raw buffer at ``p`` and returns the end of
# what it wrote; the buffer has SLACK bytes of room past the writer's bound
# (``lexcodecs/_raw.pxd``: an integer goes out as one 8-byte store). ``inv`` (all ones or 0)
# writes the item inverted, for a descending field (Go's ``Decr``). Integers come as their
# 64-bit two's complement ``u`` and ``neg`` (all ones when negative, else 0), so that the
# sign selects by masks: ``u ^ neg`` is x, or ~x for a negative x, and a negative's bytes
# are ~x's inverted. Strings escape ``00`` and ``ff`` (each followed by its complement) and
# end ``00 01``.

from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memcpy

from lexcodecs._raw cimport bit_length, nbytes, raw_be, raw_lead00, raw_lead00_word
from lexcodecs.codecs.orderedcode._format cimport INT64_FF_NEXT_MAX as OC_FF_NEXT_MAX

cdef enum:
    #: the most bytes an int64 item takes (``ff c0`` and 8 bytes), and a uint64 item
    OC_INT64_MAX = 10
    OC_UINT64_MAX = 9


cdef inline uint8_t* oc_int64(uint8_t* p, uint64_t neg, uint64_t u, uint64_t inv) noexcept nogil:
    """The int64 item: the shortest k-byte form of m = x (x >= 0) or ~x (x < 0), k one-bits,
    a zero bit and m in 7k - 1 bits, inverted for a negative. k = 8 fills a whole ``ff``
    byte with one-bits; 9 bytes are ``ff`` and ``80 | m``'s 8 bytes, 10 bytes ``ff c0`` and
    m's 8 bytes."""
    cdef uint64_t m = u ^ neg
    cdef uint64_t flip = neg ^ inv
    cdef int k = (bit_length(m) + 7) // 7  # 7k - 1 bits hold m; k >= 1
    if k <= 8:
        return raw_be(p, ((((1ULL << k) - 1) << (7 * k)) | m) ^ flip, k)
    p[0] = <uint8_t>(0xFF ^ flip)
    if k == 9:
        return raw_be(p + 1, ((1ULL << 63) | m) ^ flip, 8)
    p[1] = <uint8_t>(OC_FF_NEXT_MAX ^ flip)
    return raw_be(p + 2, m ^ flip, 8)


cdef inline uint8_t* oc_uint64(uint8_t* p, uint64_t u, uint64_t inv) noexcept nogil:
    """The uint64 item: its byte count n (0..8), then its n big-endian bytes."""
    cdef int n = nbytes(u)
    p[0] = <uint8_t>(n ^ inv)
    return raw_be(p + 1, u ^ inv, n)


cdef inline uint64_t oc_float_bits(uint64_t bits) noexcept nogil:
    """A float64 item's int64, as two's complement: the bits, or ``MinInt64 - bits`` where
    they are negative (so -0.0 is 0); then written as an int64 (:func:`oc_int64`)."""
    if bits >> 63:
        return (1ULL << 63) - bits
    return bits


cdef inline bint oc_plain8(uint64_t w) noexcept nogil:
    """Whether none of the 8 bytes of *w* is ``00`` or ``ff`` (the bytes a string escapes):
    a zero byte of *w* or of ~w sets its top bit in ``(x - 0101..) & ~x & 8080..``."""
    cdef uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL
    return (((w - ones) & ~w) | ((~w - ones) & w)) & high == 0


cdef inline uint8_t* oc_escaped(uint8_t* p, const uint8_t* s, Py_ssize_t n) noexcept nogil:
    """A string item's body: *s* with ``00`` -> ``00 ff`` and ``ff`` -> ``ff 00`` (at most
    2n bytes; the terminator is the caller's). Eight bytes at a time where none of them is
    escaped (:func:`oc_plain8`: one store instead of eight tests; kernel alone, a row of a
    string, an int64 and 8 random bytes 20.4 -> 18.8 ns); where its ``00`` bytes all lead it
    and it holds no ``ff`` (a big-endian integer as binary), ``raw_lead00_word``, as
    ``raw_escape00`` does (string, int64, 8-byte ids: 16.9 -> 14.5 ns);
    else a byte at a time. The stores pass the end by up to 8 bytes (SLACK)."""
    cdef Py_ssize_t i = 0, stop
    cdef uint64_t w
    cdef int z
    cdef uint8_t c
    while i < n:
        if i + 8 <= n:
            memcpy(&w, s + i, 8)
            if oc_plain8(w):
                memcpy(p, &w, 8)
                p += 8
                i += 8
                continue
            z = raw_lead00(w)
            if z >= 0 and not (~w - 0x0101010101010101ULL) & w & 0x8080808080808080ULL:
                # its 00s all lead it and it holds no ff (a big-endian integer as binary)
                p = raw_lead00_word(p, w, z)
                i += 8
                continue
            stop = i + 8
        else:
            stop = n
        while i < stop:
            c = s[i]
            p[0] = c
            p += 1
            if ((c + 1) & 0xFE) == 0:  # 00 or ff: followed by its complement
                p[0] = c ^ 0xFF
                p += 1
            i += 1
    return p
