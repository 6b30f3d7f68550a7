# The byte layout of fdb-tuple's integers (format.py), written once for its compiled users: the
# row engine (``_compiled.pyx``, through ``_write.pxi``) and the columnar kernel
# (``lexcodecs/columnar/_kernel.pyx``) include this file.
#
# Theory of operation: an integer whose magnitude has n bytes (0..8) is the code ``14 + n``
# (``14 - n`` when negative) and then the magnitude's n big-endian bytes, or their ones'
# complement when negative. It comes as its two's complement ``u`` modulo 2**64 and ``neg``
# (1 when negative, else 0), so that the sign selects by arithmetic, not branches: the
# magnitude is ``(u ^ -neg) + neg`` and the n bytes written are those of ``u - neg`` (the
# ones' complement of the magnitude, for a negative). That holds for every magnitude below
# 2**64, -2**64 + 1 included: ``u`` is then ``0 - magnitude``. The bytes go out as one
# 8-byte store (``lexcodecs/_raw.pxd``: the buffer has SLACK bytes of room past the bound).
# ``inv`` (all ones or 0) writes them inverted, for a descending field.

from libc.stdint cimport uint8_t, uint64_t

from lexcodecs._raw cimport nbytes, raw_be
from lexcodecs.codecs.fdb_tuple._format cimport INT_ZERO as FDB_INT_ZERO

cdef enum:
    #: the most bytes an integer's fixed form takes: the code and 8 bytes
    FDB_INT_MAX = 9


cdef inline uint8_t* fdb_int(uint8_t* p, uint64_t neg, uint64_t u, uint64_t inv) noexcept nogil:
    """The fixed form of the integer of two's complement *u* (``neg``: it is negative)."""
    cdef int n = nbytes((u ^ (0 - neg)) + neg)
    p[0] = <uint8_t>(FDB_INT_ZERO + n - 2 * n * neg) ^ <uint8_t>inv
    return raw_be(p + 1, (u - neg) ^ inv, n)


cdef inline uint8_t* fdb_int64(uint8_t* p, uint64_t neg, uint64_t u, uint64_t inv) noexcept nogil:
    """:func:`fdb_int` of a value of a 64-bit integer type; NULL for 2**64 - 1 (u all ones
    and not negative: from a signed type, all ones is -1), which fdb's Python bindings write
    in the long form ``1d 08 ff..ff`` (the Java flavour in the fixed one): the row engine's
    business."""
    if u == 0xFFFFFFFFFFFFFFFFULL and not neg:
        return NULL
    return fdb_int(p, neg, u, inv)
