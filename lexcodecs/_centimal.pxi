# The base-100 number of SQLite4 and of HBase's OrderedBytes (lexcodecs/centimal.py), written
# once for every compiled user: the sqlite4 and hbase-orderedbytes row engines and the columnar
# kernel include this file (after ``_shortest.pxi``, whose Ryu :func:`cent_float` uses).
#
# Theory of operation: every writer here stores into a raw buffer at ``p`` and returns the end
# of what it wrote; the buffer has SLACK bytes of room past that end (``_raw.pxd``), and the
# row engines ask for :data:`CENT_ROOM` first. ``inv`` (all ones or 0) writes a piece inverted,
# for a descending field. An integer is its centimal digits, E their count; |v| < 2**64 has at
# most 10, so always the medium class, in both formats. The digits come from two 10**8 parts
# split by one multiplication each and turned into eight centimal digits at once (SSE2).

from libc.stdint cimport int32_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy

from lexcodecs._centimal_format cimport (
    MEDIUM_MAX_E as CENT_MEDIUM_MAX_E, NEG_INF as CENT_NEG_INF, NEG_LARGE as CENT_NEG_LARGE,
    NEG_MEDIUM as CENT_NEG_MEDIUM, NEG_SMALL as CENT_NEG_SMALL, POS_INF as CENT_POS_INF,
    POS_LARGE as CENT_POS_LARGE, POS_MEDIUM as CENT_POS_MEDIUM, POS_SMALL as CENT_POS_SMALL,
    VARINT_1 as CENT_VARINT_1, VARINT_2 as CENT_VARINT_2, VARINT_2_FIRST as CENT_VARINT_2_FIRST,
    VARINT_3 as CENT_VARINT_3, VARINT_3_FIRST as CENT_VARINT_3_FIRST,
    VARINT_LONG as CENT_VARINT_LONG, ZERO as CENT_ZERO,
)
from lexcodecs._raw cimport SLACK, __builtin_clzll, __builtin_ctzll

cdef enum:
    #: the room a writer here needs: a header, a 9-byte exponent varint, 10 digits, SLACK
    CENT_ROOM = 24 + SLACK

cdef extern from *:
    """
    /* a, b < 10**8 -> their eight centimal digits, one a byte, a's four then b's, the most
       significant in the word's low byte (sqlite4's integers). With SSE2 (every x86-64) both
       halves at once: each split at 10**4 (a multiplication by the reciprocal), the four
       parts in 16-bit lanes split at 100 the same way, each lane's two digits then
       d | (v - 100 d) << 8 = (v << 8) - d * 25599. The empty asm keeps 25599 in a register,
       so that the compiler multiplies (one instruction) instead of shifting and adding.
       Elsewhere the same by plain arithmetic. Measured (C alone, this project's host): a
       64-bit value's digits in 6.5 ns this way, 11-14 ns with a table of 10**4 pairs. */
    #if defined(__SSE2__)
    #include <emmintrin.h>
    static inline uint64_t _lexcodecs_cent8(uint32_t a, uint32_t b) {
        __m128i x = _mm_set_epi64x((long long) b, (long long) a);
        __m128i q = _mm_srli_epi64(_mm_mul_epu32(x, _mm_set1_epi32((int) 0xD1B71759)), 45);
        __m128i r = _mm_sub_epi32(x, _mm_mul_epu32(q, _mm_set1_epi32(10000)));
        __m128i v = _mm_packs_epi32(_mm_or_si128(q, _mm_slli_epi64(r, 32)), r);
        __m128i d = _mm_srli_epi16(_mm_mulhi_epu16(v, _mm_set1_epi16(5243)), 3);
        __m128i c = _mm_set1_epi16(25599);
        __asm__("" : "+x"(c));
        return (uint64_t) _mm_cvtsi128_si64(
            _mm_sub_epi16(_mm_slli_epi16(v, 8), _mm_mullo_epi16(d, c)));
    }
    /* Two values' eight digits each, (a0, b0) into *w0 and (a1, b1) into *w1, in one
       register: the four parts a lane of 32 bits each, split at 10**4 by two multiplications
       (even lanes, then odd), q * 10**4 by one madd (q and 10**4 < 2**15), the eight 16-bit
       lanes then as above, once. */
    static inline void _lexcodecs_cent8x2(uint32_t a0, uint32_t b0, uint32_t a1, uint32_t b1,
                                          uint64_t *w0, uint64_t *w1) {
        __m128i x = _mm_set_epi32((int) b1, (int) a1, (int) b0, (int) a0);
        __m128i k = _mm_set1_epi32((int) 0xD1B71759);
        __m128i q02 = _mm_srli_epi64(_mm_mul_epu32(x, k), 45);
        __m128i q13 = _mm_srli_epi64(_mm_mul_epu32(_mm_srli_epi64(x, 32), k), 45);
        __m128i q = _mm_or_si128(q02, _mm_slli_epi64(q13, 32));
        __m128i r = _mm_sub_epi32(x, _mm_madd_epi16(q, _mm_set1_epi32(10000)));
        __m128i v = _mm_or_si128(q, _mm_slli_epi32(r, 16));
        __m128i d = _mm_srli_epi16(_mm_mulhi_epu16(v, _mm_set1_epi16(5243)), 3);
        __m128i c = _mm_set1_epi16(25599);
        __m128i out;
        __asm__("" : "+x"(c));
        out = _mm_sub_epi16(_mm_slli_epi16(v, 8), _mm_mullo_epi16(d, c));
        *w0 = (uint64_t) _mm_cvtsi128_si64(out);
        *w1 = (uint64_t) _mm_cvtsi128_si64(_mm_unpackhi_epi64(out, out));
    }
    #else
    static inline uint64_t _lexcodecs_cent8(uint32_t a, uint32_t b) {
        uint32_t part[4] = {a / 10000, a % 10000, b / 10000, b % 10000};
        uint64_t w = 0;
        for (int i = 0; i < 4; i++)
            w |= (uint64_t) (part[i] / 100 | (part[i] % 100) << 8) << (16 * i);
        return w;
    }
    static inline void _lexcodecs_cent8x2(uint32_t a0, uint32_t b0, uint32_t a1, uint32_t b1,
                                          uint64_t *w0, uint64_t *w1) {
        *w0 = _lexcodecs_cent8(a0, b0);
        *w1 = _lexcodecs_cent8(a1, b1);
    }
    #endif
    """
    uint64_t _lexcodecs_cent8(uint32_t a, uint32_t b) noexcept nogil
    void _lexcodecs_cent8x2(uint32_t a0, uint32_t b0, uint32_t a1, uint32_t b1,
                            uint64_t* w0, uint64_t* w1) noexcept nogil


cdef inline uint8_t* cent_varint(uint8_t* p, uint64_t v, uint8_t mask) noexcept nogil:
    """SQLite4's varint of *v* (spec §3), every byte XOR *mask*: one byte up to 240, two up
    to 2287, three up to 67823, else a length byte and the value's big-endian bytes."""
    cdef int size, i
    if v <= CENT_VARINT_1:
        p[0] = <uint8_t>v ^ mask
        return p + 1
    if v <= CENT_VARINT_2:
        v -= CENT_VARINT_1
        p[0] = <uint8_t>(v // 256 + CENT_VARINT_2_FIRST) ^ mask
        p[1] = <uint8_t>(v % 256) ^ mask
        return p + 2
    if v <= CENT_VARINT_3:
        v -= CENT_VARINT_2 + 1
        p[0] = CENT_VARINT_3_FIRST ^ mask
        p[1] = <uint8_t>(v // 256) ^ mask
        p[2] = <uint8_t>(v % 256) ^ mask
        return p + 3
    size = 3
    while size < 8 and (v >> (8 * size)) != 0:
        size += 1
    p[0] = <uint8_t>(CENT_VARINT_LONG + size) ^ mask
    for i in range(size):
        p[1 + i] = <uint8_t>(v >> (8 * (size - 1 - i))) ^ mask
    return p + 1 + size


cdef inline Py_ssize_t cent_varint_read(const uint8_t* p, Py_ssize_t n, uint8_t mask,
                                        uint64_t* out) noexcept nogil:
    """The varint at *p* (*n* bytes there; every byte XOR *mask*) into *out*: its length, or
    0 when it is cut short or not in its shortest form (the only form the encoders write)."""
    cdef uint64_t v
    cdef uint8_t first
    cdef Py_ssize_t length, k
    if n < 1:
        return 0
    first = p[0] ^ mask
    length = (1 if first <= CENT_VARINT_1 else 2 if first < CENT_VARINT_3_FIRST
              else 3 if first == CENT_VARINT_3_FIRST else first - CENT_VARINT_LONG + 1)
    if length > n:
        return 0
    if length == 1:
        v = first
    elif length == 2:
        v = CENT_VARINT_1 + 256 * <uint64_t>(first - CENT_VARINT_2_FIRST) + (p[1] ^ mask)
        if v <= CENT_VARINT_1:
            return 0
    elif length == 3:
        v = CENT_VARINT_2 + 1 + 256 * <uint64_t>(p[1] ^ mask) + (p[2] ^ mask)
    else:
        v = 0
        for k in range(1, length):
            v = (v << 8) | (p[k] ^ mask)
        if v <= CENT_VARINT_3 or (length > 4 and (v >> (8 * (length - 2))) == 0):
            return 0
    out[0] = v
    return length


cdef inline uint8_t* cent_head(uint8_t* p, bint neg, long long e, int medium_min) noexcept nogil:
    """The header of the number ``±0.<centimal digits> x 100**e``: its class byte (small,
    medium or large) and, outside the medium class, the exponent's varint (of -e in the
    small class). A negative number's class bytes mirror the positive's, and its varints go
    the other way round. *medium_min*: the smallest E of the medium class (the format's
    ``MEDIUM_MIN_E``: sqlite4 0, HBase 1)."""
    cdef uint8_t mask = 0xFF if neg else 0
    if medium_min <= e <= CENT_MEDIUM_MAX_E:
        p[0] = <uint8_t>(CENT_NEG_MEDIUM - e if neg else CENT_POS_MEDIUM + e)
        return p + 1
    if e > CENT_MEDIUM_MAX_E:
        p[0] = CENT_NEG_LARGE if neg else CENT_POS_LARGE
        return cent_varint(p + 1, <uint64_t>e, mask)
    p[0] = CENT_NEG_SMALL if neg else CENT_POS_SMALL
    return cent_varint(p + 1, <uint64_t>(-e), mask ^ 0xFF)


cdef inline uint8_t* cent_digits(uint8_t* p, const char* digits, Py_ssize_t nd, int lead,
                                 uint8_t flip) noexcept nogil:
    """The mantissa of ASCII decimal *digits* (*nd* >= 1), with one zero digit before them
    when *lead* (an odd decimal point): each pair a centimal digit d, written ``2d+1`` but
    the last, ``2d`` (a last pair of one digit is that digit and a zero), XOR *flip*: ``(nd
    + lead + 1) // 2`` bytes. What sqlite4 and HBase write for a number given as digits (a
    Decimal, a big int, HBase's doubles)."""
    cdef Py_ssize_t ncent = (nd + lead + 1) // 2, i, j
    cdef int d
    for i in range(ncent):
        j = 2 * i - lead                     # the pair digits[j], digits[j + 1]
        d = 10 * (digits[j] - 48) if j >= 0 else 0
        if j + 1 < nd:
            d += digits[j + 1] - 48
        p[i] = <uint8_t>((2 * d + (i + 1 < ncent)) ^ flip)
    return p + ncent


# The integers: a magnitude m < 2**64 is H (< 1845) times 10**16 plus L; L's eight
# centimal digits come as one word W (_lexcodecs_cent8), H's one or two from this table:
# x: byte 0 is 9 + H's digit count, bytes 1-2 H's mantissa bytes (2d + 1); he1: 9 + H's digit
# count (where W's bytes end); hk: 56 when H is 0 (W's leading zero digits are then dropped:
# the mask of their bit count), else 0. Filled at import.
cdef struct CentHigh:
    uint32_t x
    uint16_t hk
    uint16_t he1

cdef CentHigh _CENT_HIGH[1845]
for _h in range(1845):
    _nh = 2 if _h >= 100 else (1 if _h else 0)
    _b = ((2 * (_h // 100) + 1) | ((2 * (_h % 100) + 1) << 8) if _nh == 2
          else (2 * _h + 1 if _nh else 0))
    _CENT_HIGH[_h].x = (_b << 8) | (9 + _nh)
    _CENT_HIGH[_h].hk = 0 if _h else 56
    _CENT_HIGH[_h].he1 = 9 + _nh


cdef inline uint32_t cent_parts(uint64_t m, uint32_t* a, uint32_t* b) noexcept nogil:
    """H = m // 10**16, returned, and the two 10**8 parts below it into *a* and *b*."""
    cdef uint64_t upper = m // 100000000
    cdef uint32_t high = (<uint32_t>(upper >> 8)) // 390625  # upper // 10**8: one multiplication
    a[0] = <uint32_t>upper - high * <uint32_t>100000000
    b[0] = <uint32_t>m - <uint32_t>upper * <uint32_t>100000000
    return high


cdef inline uint64_t cent_word(uint64_t m, uint32_t* high) noexcept nogil:
    """W, the low eight centimal digits of *m* (a byte each, the first in the low byte), and
    *high* = H = m // 10**16: :func:`_sq4_parts`, then :func:`_lexcodecs_cent8`."""
    cdef uint32_t a, b
    high[0] = cent_parts(m, &a, &b)
    return _lexcodecs_cent8(a, b)


cdef inline uint64_t cent_magnitude(uint64_t sign, uint64_t u) noexcept nogil:
    """|v| of the 64-bit two's complement *u* of v (*sign*: all ones when v < 0, else 0)."""
    return (u ^ sign) - sign


cdef inline uint8_t* cent_put(uint8_t* p, uint64_t sign, uint32_t high, uint64_t w,
                              uint64_t inv) noexcept nogil:
    """The bytes of the integer ``±(high * 10**16 + L)``, W being L's eight centimal
    digits (:func:`_sq4_cent`). Written without a branch on the digits: W's leading zero
    digits are counted by ``ctz``, its last non-zero digit found by ``clz`` (x86-64's
    ``bsr``: 2 instructions where ``ctz`` of the swapped bytes and a shifted constant took
    8; 144 -> 135 a row for two int64, 21.6 -> 18.9 ns), the header and H's bytes are one
    4-byte store and W's bytes, each doubled plus one, that one taken off the last again,
    one 8-byte store (the buffer has SLACK; the bytes past the last digit are the next
    piece's to write). *sign*: all ones for a negative integer."""
    cdef uint64_t flip, mantissa
    cdef uint32_t head
    cdef unsigned lead, top
    cdef CentHigh* h
    if w == 0:
        return cent_round(p, <bint>(sign & 1), high, inv)
    flip = sign ^ inv
    h = &_CENT_HIGH[high]
    lead = <unsigned>__builtin_ctzll(w) & h.hk  # 8 x W's leading zero digits, when H is 0
    top = <unsigned>(63 - __builtin_clzll(w)) & 56  # the first bit of W's last digit (W != 0)
    # POS_MEDIUM + E, or NEG_MEDIUM - E = ~(~NEG_MEDIUM + E): 0x17 + E or ~(0xEC + E), with
    # E = 8 + H's digits - leading zero digits (h.x counts from 1)
    head = (h.x - (lead >> 3) + (CENT_POS_MEDIUM - 1)
            + (<uint32_t>sign & ((0xFF ^ CENT_NEG_MEDIUM) - CENT_POS_MEDIUM))) ^ <uint32_t>flip
    memcpy(p, &head, 4)
    mantissa = (((w * 2 + 0x0101010101010101ULL) & ~(1ULL << top)) ^ flip) >> lead
    p += h.he1
    memcpy(p - 8, &mantissa, 8)
    return p - 7 + ((top - lead) >> 3)


cdef inline uint8_t* cent_int(uint8_t* p, bint neg, uint64_t u, uint64_t inv) noexcept nogil:
    """An integer's centimal digits are its base-100 digits: E is their count, the mantissa
    drops the trailing zero digits (``write_int`` via decimal text gives the same). H and W
    by :func:`_sq4_cent`, the bytes by :func:`_sq4_put`. *inv*: all ones to write the bytes
    inverted (descending)."""
    cdef uint64_t sign = 0 - <uint64_t>neg
    cdef uint32_t high
    cdef uint64_t w = cent_word(cent_magnitude(sign, u), &high)
    return cent_put(p, sign, high, w, inv)


cdef inline uint8_t* cent_int2(uint8_t* p, uint64_t sign0, uint64_t u0, uint64_t inv0,
                               uint64_t sign1, uint64_t u1, uint64_t inv1) noexcept nogil:
    """Two integers one after the other, as :func:`_sq4_int` writes each: their four 10**8
    parts go through one digit step (:func:`_lexcodecs_cent8x2`; sqlite4 two int64, kernel
    alone, in turns: 171 to 144 instructions a row, 24.8 to 21.6 ns). *sign0*, *sign1*: all
    ones for a negative one."""
    cdef uint32_t high0, high1, a0, b0, a1, b1
    cdef uint64_t w0, w1
    high0 = cent_parts(cent_magnitude(sign0, u0), &a0, &b0)
    high1 = cent_parts(cent_magnitude(sign1, u1), &a1, &b1)
    _lexcodecs_cent8x2(a0, b0, a1, b1, &w0, &w1)
    p = cent_put(p, sign0, high0, w0, inv0)
    return cent_put(p, sign1, high1, w1, inv1)


cdef uint8_t* cent_round(uint8_t* p, bint neg, uint32_t high, uint64_t inv) noexcept nogil:
    """The number of ``±high * 10**16`` (zero when *high* is): E is H's digit count + 8,
    the mantissa H's digits without a trailing zero one."""
    cdef uint64_t flip = (0 - <uint64_t>neg) ^ inv
    cdef int e
    cdef uint8_t digits[2]
    if high == 0:
        p[0] = <uint8_t>(CENT_ZERO ^ inv)
        return p + 1
    if high >= 100:
        digits[0] = <uint8_t>(high // 100)
        digits[1] = <uint8_t>(high % 100)
        e = 10
    else:
        digits[0] = <uint8_t>high
        digits[1] = 0
        e = 9
    p[0] = <uint8_t>((CENT_NEG_MEDIUM - e if neg else CENT_POS_MEDIUM + e) ^ inv)
    p[1] = <uint8_t>((2 * digits[0] + (1 if digits[1] else 0)) ^ flip)
    if digits[1]:
        p[2] = <uint8_t>((2 * digits[1]) ^ flip)
        return p + 3
    return p + 2


cdef uint8_t* cent_float(uint8_t* p, double x, int medium_min) noexcept nogil:
    """The number of a finite, non-zero float (sqlite4's; HBase's too but for the subnormals,
    where Java writes other digits): the decimal of its shortest repr, ``|x| = d x 10**e10`` (:func:`_shortest_decimal`, Ryu: d < 10**17, its last digit not 0), as
    an integer M of centimal digits times a power of 100: M = d, or 10 d when e10 is odd (so
    that the point falls between two centimal digits). M's digits come as an integer's do
    (:func:`cent_int`: H's one digit, W's eight), and only leading zero digits are dropped:
    M's last centimal digit is d's last digit, or ten times it, never 0. E is M's digit
    count plus e10 / 2. (Through ASCII digits, two at a time, it took about 60% longer.)"""
    cdef int32_t e10
    cdef uint64_t m = _shortest_decimal(x, &e10)
    cdef uint64_t flip = 0 - <uint64_t>(x < 0)
    cdef uint64_t w, mantissa
    cdef uint32_t high
    cdef unsigned lead = 0
    if e10 & 1:
        m *= 10
        e10 -= 1
    w = cent_word(m, &high)  # m < 10**18: H < 100, one centimal digit
    if not high:
        lead = <unsigned>__builtin_ctzll(w) & 56  # 8 x W's leading zero digits (W != 0)
    p = cent_head(p, x < 0, (1 if high else 0) + 8 - <int>(lead >> 3) + (e10 >> 1), medium_min)
    if high:
        p[0] = <uint8_t>((2 * high + 1) ^ <uint32_t>flip)
        p += 1
    mantissa = ((w * 2 + 0x0001010101010101ULL) ^ flip) >> lead  # +1 but the last
    memcpy(p, &mantissa, 8)
    return p + 8 - (lead >> 3)
