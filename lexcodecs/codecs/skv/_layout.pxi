# The byte layout of skv's signed integers (format.py), written once for its compiled users:
# the row engine (``_compiled.pyx``) and the columnar kernel (``lexcodecs/columnar/_kernel.pyx``)
# include this file.
#
# Theory of operation: a signed int of N bits is a sign byte, ``03`` for v >= 0 and ``02`` for
# v < 0, then its payload in N / 8 big-endian bytes: v, or ``2**N - 1 + v`` when negative
# (format.SignedRule: one less than the two's complement, so -1 is ``ff..fe``). The value
# comes as its two's complement ``u`` modulo 2**64 and ``neg`` (1 when negative, else 0): the
# payload is then ``u - neg`` in N bits, and the sign byte selects by arithmetic, not a
# branch (random signs would mispredict). :func:`skv_int` stores the payload as one 8-byte
# store (``lexcodecs/_raw.pxd``: the buffer has SLACK bytes past the bound); a writer that
# must store exactly (the kernel's keys of one length, written in place) takes
# :func:`skv_sign` and :func:`skv_payload`. ``inv`` (all ones or 0) writes the bytes
# inverted, for a descending field.

from libc.stdint cimport uint8_t, uint64_t

from lexcodecs._raw cimport raw_be
from lexcodecs.codecs.skv._format cimport (
    SIGN_NEGATIVE as SKV_SIGN_NEGATIVE, SIGN_NONNEGATIVE as SKV_SIGN_NONNEGATIVE,
)


cdef inline uint8_t skv_sign(uint64_t neg) noexcept nogil:
    """The sign byte: ``03``, or ``02`` when *neg* (the compiler folds it to ``3 - neg``)."""
    return <uint8_t>(SKV_SIGN_NONNEGATIVE - (SKV_SIGN_NONNEGATIVE - SKV_SIGN_NEGATIVE) * neg)


cdef inline uint64_t skv_payload(uint64_t neg, uint64_t u) noexcept nogil:
    """The payload, in its low N bits: v, or 2**N - 1 + v when negative."""
    return u - neg


cdef inline uint8_t* skv_int(uint8_t* p, uint64_t neg, uint64_t u, uint64_t inv,
                             int width) noexcept nogil:
    """The sign byte and the *width*-byte payload."""
    p[0] = skv_sign(neg) ^ <uint8_t>inv
    return raw_be(p + 1, skv_payload(neg, u) ^ inv, width)
