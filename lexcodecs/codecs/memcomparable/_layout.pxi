# The byte layout of memcomparable (format.py), written once for its compiled users: the row
# engine (``_compiled.pyx``) includes this file, after ``lexcodecs/_shortest.pxi`` and
# ``lexcodecs/_centimal.pxi`` (a decimal is SQLite4's base-100 number).
#
# Theory of operation: every writer stores into a raw buffer at ``p`` and returns the end of
# what it wrote; the buffer has SLACK bytes of room past the bound the caller asked for
# (``lexcodecs/_raw.pxd``). Everything is written ascending: a descending field is inverted
# afterwards by the row engine (``_engine.pxd``'s one strategy). Integers are big-endian, the
# signed ones with their sign bit flipped; floats go through the IEEE order transform after
# the serializer's canonicalisation (every NaN the canonical quiet NaN, -0.0 as +0.0); a byte
# string is a flag and 8-byte groups, each followed by a marker.

from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

from lexcodecs._raw cimport raw_be, raw_order
from lexcodecs.codecs.memcomparable._format cimport (
    BYTES_EMPTY as MC_BYTES_EMPTY, BYTES_NONEMPTY as MC_BYTES_NONEMPTY, F32_NAN as MC_F32_NAN,
    GROUP as MC_GROUP, MORE as MC_MORE,
)
from lexcodecs.codecs.memcomparable._format cimport F64_NAN as MC_F64_NAN


cdef inline uint8_t* mc_int(uint8_t* p, uint64_t u, int width, bint signed) noexcept nogil:
    """The low *width* bytes of the two's complement *u*, big-endian, the sign bit flipped
    for a signed type (so that negatives sort first)."""
    if signed:
        u ^= 1ULL << (8 * width - 1)
    return raw_be(p, u, width)


cdef inline uint8_t* mc_f64(uint8_t* p, double x) noexcept nogil:
    """A float64: NaN as the canonical NaN, -0.0 as +0.0, then the IEEE order transform."""
    cdef uint64_t bits
    if x != x:
        bits = MC_F64_NAN
    else:
        x = x + 0.0  # -0.0 + 0.0 is +0.0
        memcpy(&bits, &x, 8)
    return raw_be(p, raw_order(bits, bits >> 63, 8), 8)


cdef inline uint8_t* mc_f32(uint8_t* p, float x) noexcept nogil:
    """A float32, as :func:`mc_f64` on 32 bits."""
    cdef uint32_t bits
    if x != x:
        bits = MC_F32_NAN
    else:
        x = x + <float>0.0
        memcpy(&bits, &x, 4)
    return raw_be(p, raw_order(bits, bits >> 31, 4), 4)


cdef inline Py_ssize_t mc_bytes_room(Py_ssize_t n) noexcept nogil:
    """The most bytes :func:`mc_bytes` writes for *n* bytes: the flag and a marker per 8."""
    return 1 + n + (n // MC_GROUP + 1) * 9


cdef inline uint8_t* mc_bytes(uint8_t* p, const uint8_t* s, Py_ssize_t n) noexcept nogil:
    """A byte string (spec §3): ``00``, or ``01``, each full group followed by ``09`` while
    more follows, and the last group padded with ``00`` and followed by its real count."""
    if n == 0:
        p[0] = MC_BYTES_EMPTY
        return p + 1
    p[0] = MC_BYTES_NONEMPTY
    p += 1
    while n > MC_GROUP:
        memcpy(p, s, MC_GROUP)
        p[MC_GROUP] = MC_MORE
        p += MC_GROUP + 1
        s += MC_GROUP
        n -= MC_GROUP
    memset(p, 0, MC_GROUP)
    memcpy(p, s, n)
    p[MC_GROUP] = <uint8_t>n
    return p + MC_GROUP + 1


cdef inline uint8_t* mc_decimal(uint8_t* p, bint neg, const char* digits, Py_ssize_t nd,
                                long long point) noexcept nogil:
    """``±0.<digits> x 10**point`` (*nd* >= 1 ASCII digits, the first and last not 0): the
    base-100 number of ``lexcodecs/_centimal.pxi`` with the medium classes from E = 0. Its
    exponent varint is one byte for rust_decimal's |E| <= 15, the crate's exponent byte."""
    cdef int lead = <int>(point & 1)  # align the point to a centimal digit
    p = cent_head(p, neg, (point + lead) // 2, 0)
    return cent_digits(p, digits, nd, lead, 0xFF if neg else 0)
