# Shortest round-trip digits of a double: Ulf Adams' Ryu (PLDI 2018; ryu/d2s.c, the
# HAS_UINT128 path), ported to Cython. Below the codecs and the jobs: included by the columnar
# kernel (sqlite4's floats) and by hbase-orderedbytes' compiled module (its numeric floats);
# _shortest_init() must run once at a module's import, before its first _shortest call, to
# fill the power-of-5 tables.
#
# Theory of operation. A finite double is m2 * 2^e2 exactly. Every real strictly between the
# midpoints to its neighbours reads back as this double, and so do the midpoints themselves
# when m2 is even (a reader rounds half to even). With two extra bits of exponent the value and
# the midpoints are the integers mv = 4*m2, mp = mv + 2 and mm = mv - 1 - mmShift (mmShift = 0
# only at a power of two, where the neighbour below is half as far), all times 2^(e2-2).
# Ryu multiplies the three by one power of ten, 10^-e10, picked so that the products vr, vp, vm
# are 64-bit integers that keep a digit or two more than needed; 2^a * 10^-b is a shift and a
# power of 5 (5^-q when e2 >= 0, 5^i when e2 < 0), read from a table of 128-bit fixed-point
# values, so each product is a 64x128-bit multiply and a shift. Then it drops the last decimal
# digit of all three while vp/10 > vm/10, i.e. while a decimal one digit shorter still lies
# inside the interval: the first length at which that stops is the shortest. vr, the value
# truncated to that length, is rounded with the last digit dropped (>= 5 rounds up), and moves
# up by one when it fell on a bound the interval excludes. The products are truncated, so they
# lose fractions; the two flags *_tz ("trailing zeros") track when a product is exact, which
# matters only for a bound that is itself a candidate and for an exact tie ...50..0 (which then
# rounds to even); they are decided exactly by whether mm / mv divide by 5^q (e2 >= 0) or by
# 2^q (e2 < 0).
#
# Why the digits are repr's: repr (David Gay's dtoa, mode 0) returns the shortest decimal that
# reads back as x under round-half-even reading, and among the shortest the one nearest to x,
# ties to even. Ryu's interval is the same set (bounds included exactly when m2 is even), it
# returns the shortest length in it, and at that length the correctly rounded vr (ties to even)
# or, when vr is outside the interval, vr + 1, the nearest candidate inside. The scratch harness
# (/work/ryu/ryu_check.pyx) and tests/test_columnar_shortest.py check it against repr.

cimport cython
from libc.stdint cimport int32_t, uint32_t, uint64_t
from libc.string cimport memcpy

cdef extern from *:
    """
    #include <stdint.h>
    /* (m * mul) >> j for a 55-bit m and a 128-bit table entry mul = {low, high}: j >= 115, so
       the result fits in 64 bits and the low 64 bits of m * mul[0] never reach it. gcc and clang
       have unsigned __int128, so both partial products are exact 64x64->128 multiplies. */
    static inline uint64_t _ryu_mul_shift(uint64_t m, const uint64_t *mul, int j) {
        unsigned __int128 b0 = (unsigned __int128) m * mul[0];
        unsigned __int128 b2 = (unsigned __int128) m * mul[1];
        return (uint64_t) (((b0 >> 64) + b2) >> (j - 64));
    }
    """
    uint64_t _ryu_mul_shift(uint64_t m, const uint64_t* mul, int j) noexcept nogil

cdef enum:
    _RYU_POW5_INV_BITCOUNT = 125
    _RYU_POW5_BITCOUNT = 125
    # indices used: q <= log10Pow2(969) - 1 = 290 (largest e2 = 2046 - 1077) and
    # i <= 1076 - (log10Pow5(1076) - 1) = 325 (smallest e2 = -1076, the subnormals)
    _RYU_POW5_INV_TABLE_SIZE = 291
    _RYU_POW5_TABLE_SIZE = 326

# {low 64 bits, high 64 bits} of the 128-bit fixed-point powers of 5, filled by _shortest_init
cdef uint64_t _ryu_pow5_inv_split[_RYU_POW5_INV_TABLE_SIZE][2]
cdef uint64_t _ryu_pow5_split[_RYU_POW5_TABLE_SIZE][2]

# "00" "01" ... "99": two digits per division by 100, not one per division by 10
cdef const char* _ryu_digit_pairs = (
    b"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    b"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    b"8081828384858687888990919293949596979899"
)


cdef void _shortest_init() noexcept:
    """Fill Ryu's two power-of-5 tables with exact integer arithmetic (Ryu's
    PrintDoubleLookupTable; d2s_small_table.h computes the same numbers from every 26th):
        POW5_SPLIT[i]     = 5^i scaled to exactly 125 bits, truncated:
                            5^i >> (bitlen(5^i) - 125)   (a left shift while bitlen < 125)
        POW5_INV_SPLIT[q] = floor(2^(bitlen(5^q) - 1 + 125) / 5^q) + 1
    (bitlen(5^i) is Ryu's pow5bits(i), ceil(log2(5^i)), 1 for i = 0.) The +1 makes the inverse
    an over-estimate, which is what Ryu's error bounds for the e2 >= 0 case assume."""
    cdef int i
    cdef object p = 1  # 5^i, a Python int: exact at any size
    mask = (1 << 64) - 1
    for i in range(_RYU_POW5_TABLE_SIZE):
        shift = p.bit_length() - _RYU_POW5_BITCOUNT
        v = p >> shift if shift >= 0 else p << -shift
        _ryu_pow5_split[i][0] = v & mask
        _ryu_pow5_split[i][1] = v >> 64
        p *= 5
    p = 1
    for i in range(_RYU_POW5_INV_TABLE_SIZE):
        v = (1 << (p.bit_length() - 1 + _RYU_POW5_INV_BITCOUNT)) // p + 1
        _ryu_pow5_inv_split[i][0] = v & mask
        _ryu_pow5_inv_split[i][1] = v >> 64
        p *= 5


cdef inline int32_t _ryu_pow5bits(int32_t e) noexcept nogil:
    # ceil(log2(5^e)), 1 for e = 0; exact for 0 <= e <= 1500 (Ryu's common.h)
    return <int32_t>(((<uint32_t>e * 1217359) >> 19) + 1)


cdef inline int32_t _ryu_log10_pow2(int32_t e) noexcept nogil:
    # floor(log10(2^e)), exact for 0 <= e <= 1500
    return <int32_t>((<uint32_t>e * 78913) >> 18)


cdef inline int32_t _ryu_log10_pow5(int32_t e) noexcept nogil:
    # floor(log10(5^e)), exact for 0 <= e <= 1500
    return <int32_t>((<uint32_t>e * 732923) >> 20)


@cython.cdivision(True)
cdef inline bint _ryu_multiple_of_pow5(uint64_t value, int32_t p) noexcept nogil:
    # whether 5^p divides value (value > 0; p <= 21 here, so at most 22 divisions)
    cdef int32_t count = 0
    while value % 5 == 0:
        value = value / 5
        count += 1
        if count >= p:
            return True
    return count >= p


cdef inline int _ryu_decimal_length17(uint64_t v) noexcept nogil:
    # digits of v < 10^17; random doubles have 16-17, so test from the top
    if v >= 10000000000000000ULL: return 17
    if v >= 1000000000000000ULL: return 16
    if v >= 100000000000000ULL: return 15
    if v >= 10000000000000ULL: return 14
    if v >= 1000000000000ULL: return 13
    if v >= 100000000000ULL: return 12
    if v >= 10000000000ULL: return 11
    if v >= 1000000000ULL: return 10
    if v >= 100000000ULL: return 9
    if v >= 10000000ULL: return 8
    if v >= 1000000ULL: return 7
    if v >= 100000ULL: return 6
    if v >= 10000ULL: return 5
    if v >= 1000ULL: return 4
    if v >= 100ULL: return 3
    if v >= 10ULL: return 2
    return 1


@cython.cdivision(True)
cdef inline uint64_t _shortest_decimal(double x, int32_t* exponent) noexcept nogil:
    """The shortest decimal of a finite, non-zero x, as an integer: d < 10^17 whose last
    digit is not 0, with |x| = d * 10^*exponent (the digits of repr(|x|); steps 1-4 of Ryu).
    Needs _shortest_init() to have run."""
    cdef uint64_t bits
    memcpy(&bits, &x, 8)
    cdef uint64_t ieee_m = bits & ((1ULL << 52) - 1)
    cdef uint32_t ieee_e = <uint32_t>((bits >> 52) & 0x7FF)
    cdef uint64_t m2, mv, vr, vp, vm, output
    cdef int32_t e2, e10, q, i, k, removed = 0
    cdef uint32_t mm_shift
    cdef bint accept_bounds, vm_tz = False, vr_tz = False, round_up = False
    cdef uint32_t last_removed = 0
    cdef const uint64_t* mul

    e2 = <int32_t>ieee_e - 1075
    m2 = (1ULL << 52) | ieee_m
    if ieee_e != 0 and -52 <= e2 <= 0 and (m2 & ((1ULL << -e2) - 1)) == 0:
        # an integer in [1, 2^53): its ulp is <= 1, so its own digits (less trailing zeros,
        # removed below) are the shortest; Ryu's d2d_small_int shortcut
        output = m2 >> -e2
        e10 = 0
    else:
        # Step 1: x = m2 * 2^(e2 + 2); two extra bits so the midpoints are integers
        if ieee_e == 0:
            e2 = 1 - 1023 - 52 - 2
            m2 = ieee_m
        else:
            e2 = <int32_t>ieee_e - 1023 - 52 - 2
        accept_bounds = (m2 & 1) == 0
        # Step 2: the interval [mm, mp] around mv; the gap below a power of two is half as wide
        # (except at the smallest normal exponent, whose neighbour below is subnormal)
        mv = 4 * m2
        mm_shift = 1 if (ieee_m != 0 or ieee_e <= 1) else 0
        # Step 3: scale all three by 10^-e10 with one 64x128-bit multiply each
        if e2 >= 0:
            q = _ryu_log10_pow2(e2) - (1 if e2 > 3 else 0)
            e10 = q
            k = _RYU_POW5_INV_BITCOUNT + _ryu_pow5bits(q) - 1
            i = -e2 + q + k
            mul = &_ryu_pow5_inv_split[q][0]
            vr = _ryu_mul_shift(mv, mul, i)
            vp = _ryu_mul_shift(mv + 2, mul, i)
            vm = _ryu_mul_shift(mv - 1 - mm_shift, mul, i)
            if q <= 21:
                # the products are exact multiples of 10^q iff the factor divides by 5^q (the
                # 2^q comes from 2^e2, e2 >= q); only one of mp, mv, mm can divide by 5
                if mv % 5 == 0:
                    vr_tz = _ryu_multiple_of_pow5(mv, q)
                elif accept_bounds:
                    vm_tz = _ryu_multiple_of_pow5(mv - 1 - mm_shift, q)
                else:
                    # mp itself is excluded: step below it when it is an exact candidate
                    vp -= _ryu_multiple_of_pow5(mv + 2, q)
        else:
            q = _ryu_log10_pow5(-e2) - (1 if -e2 > 1 else 0)
            e10 = q + e2
            i = -e2 - q
            k = _ryu_pow5bits(i) - _RYU_POW5_BITCOUNT
            mul = &_ryu_pow5_split[i][0]
            vr = _ryu_mul_shift(mv, mul, q - k)
            vp = _ryu_mul_shift(mv + 2, mul, q - k)
            vm = _ryu_mul_shift(mv - 1 - mm_shift, mul, q - k)
            if q <= 1:
                # exact iff the factor has q trailing zero bits: mv always, mp always,
                # mm iff mmShift == 1
                vr_tz = True
                if accept_bounds:
                    vm_tz = mm_shift == 1
                else:
                    vp -= 1
            elif q < 63:
                # the 5^(-e2) factor has at least q fives, so it is the 2^q that decides
                vr_tz = (mv & ((1ULL << q) - 1)) == 0
        # Step 4: drop digits while a shorter decimal still fits in the interval
        if vm_tz or vr_tz:
            # rare (< 1%): a bound or the value is exact, so ties and bounds need care
            while vp / 10 > vm / 10:
                vm_tz = vm_tz and vm % 10 == 0
                vr_tz = vr_tz and last_removed == 0
                last_removed = <uint32_t>(vr % 10)
                vr = vr / 10
                vp = vp / 10
                vm = vm / 10
                removed += 1
            if vm_tz:
                # the lower bound is an included candidate: keep shortening while it ends in 0
                while vm % 10 == 0:
                    vr_tz = vr_tz and last_removed == 0
                    last_removed = <uint32_t>(vr % 10)
                    vr = vr / 10
                    vp = vp / 10
                    vm = vm / 10
                    removed += 1
            if vr_tz and last_removed == 5 and vr % 2 == 0:
                # the exact value is ...50..0: a tie, which rounds to even
                last_removed = 4
            output = vr + ((vr == vm and (not accept_bounds or not vm_tz)) or last_removed >= 5)
        else:
            # common case: no product is exact, so no ties and no candidate on a bound
            if vp / 100 > vm / 100:
                # most values lose at least two digits: take them in one step
                round_up = vr % 100 >= 50
                vr = vr / 100
                vp = vp / 100
                vm = vm / 100
                removed += 2
            while vp / 10 > vm / 10:
                round_up = vr % 10 >= 5
                vr = vr / 10
                vp = vp / 10
                vm = vm / 10
                removed += 1
            output = vr + (vr == vm or round_up)
        e10 = e10 + removed

    # the integer shortcut keeps its trailing zeros, and the digits must end non-zero
    while output % 10 == 0:
        output = output / 10
        e10 += 1
    exponent[0] = e10
    return output


@cython.cdivision(True)
cdef int _shortest(double x, char* digits, int* point) noexcept nogil:
    """The digits of repr(|x|) for a finite, non-zero x: writes n <= 17 ASCII digits (first
    and last non-zero) to digits, returns n, and sets *point so that
    |x| = 0.d1...dn * 10^point. Needs _shortest_init() to have run."""
    cdef int32_t e10
    cdef uint64_t output = _shortest_decimal(x, &e10), q10
    cdef uint32_t lo, c, d
    cdef int n, at

    # Step 5: the digits, two at a time from the right; 32-bit divisions once below 2^32
    n = _ryu_decimal_length17(output)
    at = n
    if output >> 32:
        q10 = output / 100000000
        lo = <uint32_t>(output - q10 * 100000000)
        output = q10
        c = lo % 10000
        d = lo / 10000
        memcpy(digits + at - 2, _ryu_digit_pairs + 2 * (c % 100), 2)
        memcpy(digits + at - 4, _ryu_digit_pairs + 2 * (c / 100), 2)
        memcpy(digits + at - 6, _ryu_digit_pairs + 2 * (d % 100), 2)
        memcpy(digits + at - 8, _ryu_digit_pairs + 2 * (d / 100), 2)
        at -= 8
    lo = <uint32_t>output
    while lo >= 100:
        memcpy(digits + at - 2, _ryu_digit_pairs + 2 * (lo % 100), 2)
        lo = lo / 100
        at -= 2
    if lo >= 10:
        memcpy(digits + at - 2, _ryu_digit_pairs + 2 * lo, 2)
    else:
        digits[at - 1] = <char>(48 + lo)
    point[0] = e10 + n
    return n
