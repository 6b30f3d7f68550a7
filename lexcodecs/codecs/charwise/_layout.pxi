# The byte layout of charwise (format.py), written once for its compiled code: the row engine
# (``_compiled.pyx``) and the columnar kernel (``lexcodecs/columnar/_kernel.pyx``) include this
# file, after ``lexcodecs/_shortest.pxi`` (Ryu: a double's shortest digits).
#
# Theory of operation: a number's text is ``F``/``D``, ``E``, the exponent + 500 in three
# digits, ``M``, the first digit, ``.``, the other digits, twenty ``0``; a negative number's
# digits (exponent, mantissa and padding) are each 9 - d. The writers take the decimal
# d * 10^e10 (d's last digit not 0) from Ryu, or from an int stripped of its trailing zeros
# (an int of at most 2**53 is its own shortest digits: its neighbours are at most 2 apart).
# A negative number's n digits are those of 10^n - 1 - d (each 9 - d, leading zeros kept),
# chosen by a mask, not a branch (random signs mispredict half the time). The digits go
# straight to the key, two at a time from the right (Ryu's pair table), one place to the
# right of the first digit's: that digit then moves left over the ``.`` (a byte read back
# from inside one store; a wider read of narrower stores stalls, and a local buffer copied
# to the key cost a third of a number's time). The padding is three 8-byte stores, the last
# passing the text's end by 4 bytes (every caller's buffer has ``SLACK`` = 16 past its
# bound). A string is ``J`` and its UTF-8 with ``01`` doubled and ``00`` written ``01``; in an
# array, when it holds a ``!`` or ``"``, its ``?`` ``!`` ``"`` are written ``?@`` ``??``
# ``?%`` as well.

from libc.math cimport isinf
from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy

from lexcodecs.codecs.charwise._format cimport (
    ESCAPE as CW_ESCAPE, ESCAPE_ESCAPE as CW_ESCAPE_ESCAPE,
    ESCAPE_SEPARATOR as CW_ESCAPE_SEPARATOR, ESCAPE_TERMINATOR as CW_ESCAPE_TERMINATOR,
    EXPONENT as CW_EXPONENT, EXPONENT_BIAS as CW_BIAS, MANTISSA as CW_MANTISSA,
    MANTISSA_PAD as CW_PAD, NEGATIVE as CW_NEGATIVE, NUMBER_MAX as CW_NUMBER,
    POSITIVE as CW_POSITIVE, SEPARATOR as CW_SEPARATOR, STRING_ESCAPE as CW_STRING_ESCAPE,
    TERMINATOR as CW_TERMINATOR,
)

# powers of ten (a negative number's digits are 10^n - 1 - d), eight ASCII '0's and the
# difference to eight '9's (C constants, not module variables: the compiler folds them in)
cdef extern from *:
    """
    static const unsigned long long lexcodecs_cw_pow10[18] = {
        1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
        100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
        10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
        100000000000000000ULL};
    #define LEXCODECS_CW_ZEROS 0x3030303030303030ULL
    #define LEXCODECS_CW_NINES 0x0909090909090909ULL
    """
    const uint64_t CW_POW10 "lexcodecs_cw_pow10"[18]
    const uint64_t CW_ZEROS "LEXCODECS_CW_ZEROS"
    const uint64_t CW_NINES "LEXCODECS_CW_NINES"


cdef inline void cw_digits(uint8_t* out, uint64_t d, int n) noexcept nogil:
    """The *n* (<= 17) decimal digits of *d* (< 10^n) at *out*, two at a time from the right
    (Ryu's pair table); below 10^8 in 32-bit arithmetic."""
    cdef uint64_t hi
    cdef uint32_t lo
    cdef int at = n
    if at > 8:
        hi = d // 100000000
        lo = <uint32_t>(d - hi * 100000000)
        memcpy(out + at - 2, _ryu_digit_pairs + 2 * (lo % 100), 2)
        lo //= 100
        memcpy(out + at - 4, _ryu_digit_pairs + 2 * (lo % 100), 2)
        lo //= 100
        memcpy(out + at - 6, _ryu_digit_pairs + 2 * (lo % 100), 2)
        memcpy(out + at - 8, _ryu_digit_pairs + 2 * (lo // 100), 2)
        at -= 8
        d = hi
    lo = <uint32_t>d
    while at >= 2:
        memcpy(out + at - 2, _ryu_digit_pairs + 2 * (lo % 100), 2)
        lo //= 100
        at -= 2
    if at:
        out[0] = <uint8_t>(48 + lo)


cdef inline uint8_t* cw_decimal(uint8_t* p, uint64_t d, int32_t e10,
                                bint negative) noexcept nogil:
    """The text of the number -d * 10^e10 (*negative*) or d * 10^e10, for 0 < d < 10^17
    whose last digit is not 0; the end."""
    cdef int n = _ryu_decimal_length17(d)
    cdef int e = e10 + n - 1 + CW_BIAS  # the exponent of d0.d1d2..., biased: 176..808
    cdef uint64_t neg = 0 - <uint64_t>negative, pad
    cdef uint8_t* q
    d ^= (d ^ (CW_POW10[n] - 1 - d)) & neg
    e ^= (e ^ (999 - e)) & <int>neg
    pad = CW_ZEROS + (CW_NINES & neg)
    p[0] = <uint8_t>(CW_POSITIVE - ((CW_POSITIVE - CW_NEGATIVE) & <int>neg))
    p[1] = CW_EXPONENT
    p[2] = <uint8_t>(48 + e // 100)
    memcpy(p + 3, _ryu_digit_pairs + 2 * (e % 100), 2)
    p[5] = CW_MANTISSA
    cw_digits(p + 7, d, n)
    p[6] = p[7]
    p[7] = 0x2E  # .
    q = p + 7 + n
    memcpy(q, &pad, 8)
    memcpy(q + 8, &pad, 8)
    memcpy(q + 16, &pad, 8)  # 20 of the 24 bytes are the text's
    return q + CW_PAD


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
    return cw_decimal(p, d, e10, x < 0)


cdef inline uint8_t* cw_int(uint8_t* p, bint negative, uint64_t magnitude) noexcept nogil:
    """The text of the JS number of an integer (*magnitude* <= 2**53, negative or not): its
    digits without their trailing zeros are its shortest."""
    cdef int32_t e10 = 0
    if magnitude == 0:
        return cw_special(p, 0.0)
    while magnitude % 10 == 0:
        magnitude //= 10
        e10 += 1
    return cw_decimal(p, magnitude, e10, negative)


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
