# The byte layout of charwise (format.py), written once for its compiled code: the row engine
# (``_compiled.pyx``) and the columnar kernel (``lexcodecs/columnar/_kernel.pyx``) include this
# file, after ``lexcodecs/_shortest.pxi`` (Ryu: a double's shortest digits).
#
# Theory of operation: a number's text is ``F``/``D``, ``E``, the exponent + 500 in three
# digits, ``M``, the first digit, ``.``, the other digits, twenty ``0``; a negative number's
# digits (exponent, mantissa and padding) are each 9 - d. The writers take the decimal
# d * 10^e10 from Ryu, or an int's digits (an int of at most 2**53 is its own shortest
# digits, trailing zeros aside: its neighbours are at most 2 apart), and scale d to exactly
# 17 digits, D = d * 10^(17 - n): the zeros that adds are the padding's first, so the text's
# bytes are the same; it ends after the last digit that is not the padding's (so an int's
# trailing zeros need no stripping first). A negative number's digits are those of
# 10^17 - 1 - D (each 9 - d), chosen by a mask, not a branch (random signs mispredict half
# the time). D's first digit is a division; its other 16 are made at once in an SSE2
# register (``_lexcodecs_cw16``: 10^8 halves, 10^4 lanes, then 100 and 10 by
# multiplications, as sqlite4's centimal digits are) and stored in one 16-byte store, the
# padding in three 8-byte stores: the last passes the text's end by up to 4 bytes (every
# caller's buffer has ``SLACK`` = 16 past its bound). C alone, on this project's host: with
# two digits at a time from Ryu's pair table into the key, an int's text took 9.8 ns and a
# float's 23.5 (Ryu's 11 of it); this way 8.9 and 21.9. The text is about ninety
# instructions either way, its digits a fifth of them.
#
# A string is ``J`` and its UTF-8 with ``01`` doubled and ``00`` written ``01``; in an
# array, when it holds a ``!`` or ``"``, its ``?`` ``!`` ``"`` are written ``?@`` ``??``
# ``?%`` as well.

from libc.math cimport isinf
from libc.stdint cimport int32_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy

from lexcodecs._raw cimport __builtin_clzll

from lexcodecs.codecs.charwise._format cimport (
    ESCAPE as CW_ESCAPE, ESCAPE_ESCAPE as CW_ESCAPE_ESCAPE,
    ESCAPE_SEPARATOR as CW_ESCAPE_SEPARATOR, ESCAPE_TERMINATOR as CW_ESCAPE_TERMINATOR,
    EXPONENT as CW_EXPONENT, EXPONENT_BIAS as CW_BIAS, MANTISSA as CW_MANTISSA,
    MANTISSA_PAD as CW_PAD, NEGATIVE as CW_NEGATIVE, NUMBER_MAX as CW_NUMBER,
    POSITIVE as CW_POSITIVE, SEPARATOR as CW_SEPARATOR, STRING_ESCAPE as CW_STRING_ESCAPE,
    TERMINATOR as CW_TERMINATOR,
)

# powers of ten, to scale a decimal to 17 digits (C constants, not module variables: the
# compiler folds them into the code); and the 16 digits of a number below 10^16
cdef extern from *:
    """
    static const unsigned long long lexcodecs_cw_pow10[18] = {
        1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
        100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
        10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
        100000000000000000ULL};
    #define LEXCODECS_CW_ZEROS 0x3030303030303030ULL
    #define LEXCODECS_CW_NINES 0x0909090909090909ULL
    /* v < 10**16 -> its 16 decimal digits in ASCII, the most significant first, at out (16
       bytes stored); returns the index of the last digit that is not *pad* (-1: none). With
       SSE2 (every x86-64): the two 10**8 halves in 64-bit lanes, each
       split at 10**4 (a multiplication by the reciprocal) into four 16-bit lanes, those at
       100 (mulhi by 5243, >> 3) and the parts interleaved into eight lanes, those at 10
       (mulhi by 6554: exact below 100), tens | ones << 8, plus '0'; the last digit not pad by
       one compare and a bit scan. The empty asm keeps 100 and 10 in registers, so that the
       compiler multiplies (one instruction each) instead of shifting and adding (five and
       three: charwise two ints, in turns, 25.2 -> 23.3 ns a row). Elsewhere the same by plain
       arithmetic. */
    #if defined(__SSE2__)
    #include <emmintrin.h>
    static inline int _lexcodecs_cw16(unsigned long long v, unsigned char *out,
                                      unsigned char pad) {
        unsigned int hi = (unsigned int) (v / 100000000ULL);
        unsigned int lo = (unsigned int) (v - (unsigned long long) hi * 100000000ULL);
        __m128i x = _mm_set_epi64x((long long) lo, (long long) hi);
        __m128i q = _mm_srli_epi64(_mm_mul_epu32(x, _mm_set1_epi32((int) 0xD1B71759)), 45);
        __m128i r = _mm_sub_epi32(x, _mm_mul_epu32(q, _mm_set1_epi32(10000)));
        __m128i v4 = _mm_packs_epi32(_mm_or_si128(q, _mm_slli_epi64(r, 32)), r);
        __m128i hundred = _mm_set1_epi16(100), ten = _mm_set1_epi16(10);
        __m128i d, m, w, t, ones;
        __asm__("" : "+x"(hundred), "+x"(ten));
        d = _mm_srli_epi16(_mm_mulhi_epu16(v4, _mm_set1_epi16(5243)), 3);
        m = _mm_sub_epi16(v4, _mm_mullo_epi16(d, hundred));
        w = _mm_unpacklo_epi16(d, m);
        t = _mm_mulhi_epu16(w, _mm_set1_epi16(6554));
        ones = _mm_sub_epi16(w, _mm_mullo_epi16(t, ten));
        __m128i digits = _mm_add_epi8(_mm_or_si128(t, _mm_slli_epi16(ones, 8)),
                                      _mm_set1_epi8('0'));
        unsigned int other = ~(unsigned int) _mm_movemask_epi8(
            _mm_cmpeq_epi8(digits, _mm_set1_epi8((char) pad))) & 0xFFFFu;
        _mm_storeu_si128((__m128i *) out, digits);
        return other ? 31 - __builtin_clz(other) : -1;
    }
    #else
    static inline int _lexcodecs_cw16(unsigned long long v, unsigned char *out,
                                      unsigned char pad) {
        int last = -1;
        for (int i = 15; i >= 0; i--) {
            out[i] = (unsigned char) ('0' + v % 10);
            if (last < 0 && out[i] != pad)
                last = i;
            v /= 10;
        }
        return last;
    }
    #endif
    """
    const uint64_t CW_POW10 "lexcodecs_cw_pow10"[18]
    const uint64_t CW_ZEROS "LEXCODECS_CW_ZEROS"
    const uint64_t CW_NINES "LEXCODECS_CW_NINES"
    int _lexcodecs_cw16(uint64_t v, uint8_t* out, uint8_t pad) noexcept nogil


cdef inline int cw_length17(uint64_t d) noexcept nogil:
    """How many digits *d* < 10^17 has (1 for 0), without a branch (an int column's lengths
    vary at random): log10 from the bit length (x * 1233 >> 12), then one compare."""
    cdef int t = ((64 - __builtin_clzll(d | 1)) * 1233) >> 12
    return t + (d >= CW_POW10[t])


cdef inline int cw_write(uint8_t* p, uint64_t d, int32_t e10, bint negative,
                         int n) noexcept nogil:
    """The text of the number -d * 10^e10 (*negative*) or d * 10^e10, for 0 < d < 10^17 of
    *n* digits, with padding past its end; the index of the last of d's digits after its
    first that is not the padding's (-1: none), of which the end follows
    (:func:`cw_decimal`). d's trailing zeros are not digits of the text."""
    cdef int e = e10 + n - 1 + CW_BIAS  # the exponent of d0.d1d2..., biased: 176..808
    cdef uint64_t neg = 0 - <uint64_t>negative, pad
    cdef uint64_t big = d * CW_POW10[17 - n], first, head
    cdef uint16_t pair
    cdef int last
    big ^= (big ^ (99999999999999999ULL - big)) & neg
    e ^= (e ^ (999 - e)) & <int>neg
    pad = CW_ZEROS + (CW_NINES & neg)
    first = big // 10000000000000000ULL
    last = _lexcodecs_cw16(big - first * 10000000000000000ULL, p + 8, <uint8_t>pad)
    # F E e e e M d . as one 8-byte store (stores of single bytes took a tenth of a number)
    memcpy(&pair, _ryu_digit_pairs + 2 * (<unsigned>e % 100), 2)
    head = ((<uint64_t>CW_POSITIVE - (<uint64_t>(CW_POSITIVE - CW_NEGATIVE) & neg))
            | (<uint64_t>CW_EXPONENT << 8) | (<uint64_t>(48 + <unsigned>e // 100) << 16)
            | (<uint64_t>pair << 24) | (<uint64_t>CW_MANTISSA << 40)
            | (<uint64_t>(48 + first) << 48) | (<uint64_t>0x2E << 56))
    memcpy(p, &head, 8)
    memcpy(p + 24, &pad, 8)
    memcpy(p + 32, &pad, 8)
    memcpy(p + 40, &pad, 8)  # the text ends at 29 + last <= 44
    return last


cdef inline uint8_t* cw_decimal(uint8_t* p, uint64_t d, int32_t e10,
                                bint negative) noexcept nogil:
    """:func:`cw_write`'s text; the end, after the last digit that is not the padding's
    (an int's trailing zeros are not stripped first)."""
    return p + 29 + cw_write(p, d, e10, negative, cw_length17(d))


cdef inline uint8_t* cw_shortest(uint8_t* p, uint64_t d, int32_t e10,
                                 bint negative) noexcept nogil:
    """:func:`cw_decimal` of a *d* whose last digit is not 0 (Ryu's shortest digits; an
    int's not a multiple of ten): the end follows from d's digit count, and does not wait
    for the digits. Each key's end is where the next piece goes, so the end from the
    digits' last compare made every number wait for the one before: charwise int32 +
    float64, 41.4 -> 37.9 ns a row in turns."""
    cdef int n = cw_length17(d)
    cw_write(p, d, e10, negative, n)
    return p + 27 + n


cdef inline uint8_t* cw_special(uint8_t* p, double x) noexcept nogil:
    """The text of 0 (and -0), the infinities and NaN; NULL for any other *x*."""
    cdef const char* text
    cdef int n
    if x == 0:
        text, n = b"FE  0M0", 7
    elif x != x:
        text, n = b"DaN", 3
    elif isinf(x):
        text = b"FF" if x > 0 else b"DD"
        n = 2
    else:
        return NULL
    memcpy(p, text, n)
    return p + n


cdef inline uint8_t* cw_number(uint8_t* p, double x) noexcept nogil:
    """The text of the JS number *x*; the end (at most CW_NUMBER bytes)."""
    cdef int32_t e10
    cdef uint64_t d
    cdef uint8_t* q = cw_special(p, x)
    if q != NULL:
        return q
    d = _shortest_decimal(x, &e10)
    return cw_shortest(p, d, e10, x < 0)  # no trailing zeros: the digits are the shortest


cdef inline uint8_t* cw_int(uint8_t* p, bint negative, uint64_t magnitude) noexcept nogil:
    """The text of the JS number of an integer (*magnitude* <= 2**53, negative or not): its
    digits without their trailing zeros are its shortest."""
    if magnitude == 0:
        return cw_special(p, 0.0)
    if magnitude % 10:  # (a branch, not a select: a select would wait for both ends)
        return cw_shortest(p, magnitude, 0, negative)
    return cw_decimal(p, magnitude, 0, negative)


cdef inline bint cw_marked(const uint8_t* s, Py_ssize_t n) noexcept nogil:
    """Whether *s* holds a ``!`` or a ``"`` (an array item's escapes then apply)."""
    cdef Py_ssize_t i
    for i in range(n):
        if s[i] == CW_TERMINATOR or s[i] == CW_SEPARATOR:
            return True
    return False


cdef inline uint8_t* cw_text(uint8_t* p, const uint8_t* s, Py_ssize_t n,
                             bint item) noexcept nogil:
    """A string's body after its ``J``: 01 -> 01 01, 00 -> 01, and in an array (*item*)
    ``?`` ``!`` ``"`` escaped when it holds a ``!`` or ``"``; at most 2n bytes."""
    cdef Py_ssize_t i
    cdef uint8_t c
    cdef bint marks = item and cw_marked(s, n)
    for i in range(n):
        c = s[i]
        if c <= CW_STRING_ESCAPE:
            p[0] = CW_STRING_ESCAPE
            p[1] = CW_STRING_ESCAPE
            p += 1 + c  # 01 01 for 01, 01 for 00
        elif marks and (c == CW_ESCAPE or c == CW_TERMINATOR or c == CW_SEPARATOR):
            p[0] = CW_ESCAPE
            p[1] = (CW_ESCAPE_ESCAPE if c == CW_ESCAPE else
                    CW_ESCAPE_TERMINATOR if c == CW_TERMINATOR else CW_ESCAPE_SEPARATOR)
            p += 2
        else:
            p[0] = c
            p += 1
    return p
