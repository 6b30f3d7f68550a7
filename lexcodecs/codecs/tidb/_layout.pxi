# The byte layout of TiDB's datums (format.py), written once for its compiled code: the row
# engine (``_compiled.pyx``) includes this file.
#
# Theory of operation: a fixed-width datum is its flag and 8 big-endian bytes, one 8-byte
# store (``lexcodecs/_raw.pxd``; the buffer has SLACK bytes past it); an int64 has its sign
# bit flipped, a float64 the sign set when ``x >= 0`` and every bit inverted otherwise (so a
# NaN with the sign bit clear is inverted too, as TiDB's EncodeFloat does). Bytes are cut into
# 8-byte groups, each followed by its marker: ff for a full group, ff - (pad bytes) for the
# last, padded with 00; 9 * (n // 8 + 1) bytes, each group one 8-byte store.

from libc.stdint cimport int64_t, uint8_t, uint64_t
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


cdef inline bint ti_packed_micros(int64_t micros, uint64_t* out) noexcept nogil:
    """The packed time of the UTC instant *micros* after 1970-01-01 (a timestamp column's
    value), or False outside years 1..9999 (the row API refuses them). The civil date by
    Howard Hinnant's ``civil_from_days`` (days since 1970 -> year, month, day)."""
    cdef int64_t per_day = <int64_t>86400 * 1000000
    # floor division (cdivision: C's truncates toward zero)
    cdef int64_t days = micros // per_day - (1 if micros % per_day < 0 else 0)
    cdef int64_t rest = micros - days * per_day, z, era, doe, yoe, doy, mp, year
    cdef int64_t month, day, seconds
    z = days + 719468
    era = (z if z >= 0 else z - 146096) // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    year = yoe + era * 400 + (1 if month <= 2 else 0)
    if year < 1 or year > 9999:
        return False
    seconds = rest // 1000000
    out[0] = ti_packed(<uint64_t>year, <uint64_t>month, <uint64_t>day,
                       <uint64_t>(seconds // 3600), <uint64_t>((seconds // 60) % 60),
                       <uint64_t>(seconds % 60), <uint64_t>(rest % 1000000))
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
