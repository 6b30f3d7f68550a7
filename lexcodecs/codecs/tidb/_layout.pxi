# The byte layout of TiDB's datums (format.py), written once for its compiled code: the row
# engine (``_compiled.pyx``) includes this file.
#
# Theory of operation: a fixed-width datum is its flag and 8 big-endian bytes, one 8-byte
# store (``lexcodecs/_raw.pxd``; the buffer has SLACK bytes past it); an int64 has its sign
# bit flipped, a float64 the sign set when ``x >= 0`` and every bit inverted otherwise (so a
# NaN with the sign bit clear is inverted too, as TiDB's EncodeFloat does). Bytes are cut into
# 8-byte groups, each followed by its marker: ff for a full group, ff - (pad bytes) for the
# last, padded with 00; 9 * (n // 8 + 1) bytes, each group one 8-byte store.

from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

from lexcodecs._raw cimport raw_be
from lexcodecs.codecs.tidb._format cimport (
    GROUP_SIZE as TI_GROUP, HMS_BITS as TI_HMS_BITS, HOUR_SHIFT as TI_HOUR_SHIFT,
    MARKER as TI_MARKER, MICRO_BITS as TI_MICRO_BITS, MINUTE_SHIFT as TI_MINUTE_SHIFT,
    MONTHS_PER_YEAR_SLOT as TI_MONTHS_SLOT, SIGN_BIT as TI_SIGN,
)

cdef enum:
    #: a fixed-width datum: the flag and 8 bytes
    TI_FIXED = 9


cdef inline uint8_t* ti_fixed(uint8_t* p, uint8_t flag, uint64_t u) noexcept nogil:
    """The flag and the 8 big-endian bytes of *u*."""
    p[0] = flag
    return raw_be(p + 1, u, 8)


cdef inline uint64_t ti_packed(uint64_t year, uint64_t month, uint64_t day, uint64_t hour,
                               uint64_t minute, uint64_t second,
                               uint64_t micro) noexcept nogil:
    """TiDB's packed time (``types/time.go`` ``ToPackedUint``): ``((year * 13 + month) << 5
    | day) << 17 | hour << 12 | minute << 6 | second``, then ``<< 24 | microsecond``."""
    cdef uint64_t packed = ((year * TI_MONTHS_SLOT + month) << 5) | day
    packed = (packed << TI_HMS_BITS) | (hour << TI_HOUR_SHIFT) | (minute << TI_MINUTE_SHIFT) \
        | second
    return (packed << TI_MICRO_BITS) | micro


ctypedef struct TiDay:
    # the last day ti_packed_micros made a date of: its number (days since 0001-01-01, plus
    # one: 0 is none) and its packed date bits. A timestamp column's values mostly fall on few
    # days (events, logs), and the civil date is a chain of ten dependent multiplications:
    # three quarters of a timestamp's time
    uint64_t day
    uint64_t date


cdef inline bint ti_packed_micros(int64_t micros, uint64_t* out, TiDay* memo) noexcept nogil:
    """The packed time of the UTC instant *micros* after 1970-01-01 (a timestamp column's
    value), or False outside years 1..9999 (the row API refuses them). In unsigned
    arithmetic from 0001-01-01, the civil date by Neri and Schneider's Euclidean affine
    functions (2021: a few multiplications, no division by a variable; checked against
    Python's dates for every day of years 1..9999), kept in *memo* for the next value on the
    same day."""
    cdef uint64_t per_day = <uint64_t>86400 * 1000000, u, rest, seconds, days
    cdef uint32_t n, n1, century, nc, n2, z, ny, n3, month, day, j, year
    cdef uint64_t p2
    if micros < -<int64_t>(719162 * per_day):
        return False  # before 0001-01-01
    u = <uint64_t>(micros + <int64_t>(719162 * per_day))
    days = u // per_day
    rest = u - days * per_day
    if days + 1 != memo.day:
        # days since 1970 plus 719468 + 146097 * 82 (the algorithm's shift into unsigned)
        n = <uint32_t>days + 11980260
        n1 = 4 * n + 3
        century = n1 // 146097
        nc = n1 % 146097 // 4
        n2 = 4 * nc + 3
        p2 = <uint64_t>2939745 * n2
        z = <uint32_t>(p2 >> 32)
        ny = <uint32_t>(p2 & <uint64_t>0xFFFFFFFF) // 2939745 // 4
        n3 = 2141 * ny + 197913
        month = n3 >> 16
        day = (n3 & 0xFFFF) // 2141 + 1
        j = ny >= 306
        year = 100 * century + z - 32800 + j  # 32800: the shift's 82 cycles of 400 years
        if j:
            month -= 12
        if year > 9999:
            return False
        memo.day, memo.date = days + 1, ti_packed(year, month, day, 0, 0, 0, 0)
    seconds = rest // 1000000
    out[0] = memo.date | ti_packed(0, 0, 0, seconds // 3600, (seconds // 60) % 60,
                                   seconds % 60, rest - seconds * 1000000)
    return True


cdef inline uint64_t ti_float_bits(double x) noexcept nogil:
    """TiDB's EncodeFloat: the IEEE bits with the sign set when ``x >= 0``, else inverted."""
    cdef uint64_t bits
    memcpy(&bits, &x, 8)
    if x >= 0:
        return bits | TI_SIGN
    return ~bits


cdef inline Py_ssize_t ti_groups_size(Py_ssize_t n) noexcept nogil:
    return (n // TI_GROUP + 1) * (TI_GROUP + 1)


cdef inline uint8_t* ti_groups(uint8_t* p, const uint8_t* s, Py_ssize_t n) noexcept nogil:
    """The 8-byte groups of the *n* bytes at *s*, each with its marker (no flag)."""
    cdef Py_ssize_t rest
    while n >= TI_GROUP:
        memcpy(p, s, 8)
        p[8] = TI_MARKER
        p += 9
        s += 8
        n -= 8
    rest = n
    memset(p, 0, 8)
    memcpy(p, s, rest)
    p[8] = <uint8_t>(TI_MARKER - (TI_GROUP - rest))
    return p + 9
