# The byte layout of ordered-binary's numbers (format.py), written once for its compiled
# users: the row engine (``_compiled.pyx``) and the columnar kernel
# (``lexcodecs/columnar/_kernel.pyx``) include this file.
#
# Theory of operation: a number is a float64, written as the 18 nibbles ``1 ‖ u ‖ 0`` (u its
# IEEE bits) when ``!(x < 0)``, ``0 ‖ (u XOR 7fff…ff) ‖ 0`` when ``x < 0``: a byte of marker
# and u's top nibble, then u's other 60 bits and a zero nibble as one 8-byte big-endian store
# (``lexcodecs/_raw.pxd``; the buffer has SLACK bytes past it). A bare non-negative number
# keeps fewer of the nine (the row engine's business: :data:`NUMBER_LENGTHS`).

from libc.stdint cimport uint8_t, uint64_t

from lexcodecs._raw cimport raw_be
from lexcodecs.codecs.ordered_binary._format cimport NEGATIVE_MASK as OB_NEGATIVE_MASK

cdef enum:
    #: a number's bytes in an array (and a negative one's, bare)
    OB_NUMBER = 9


cdef inline uint8_t* ob_number(uint8_t* p, uint64_t bits, bint negative) noexcept nogil:
    """The 9-byte form of the number of IEEE bits *bits* (*negative*: ``x < 0``)."""
    cdef uint64_t u = bits ^ (OB_NEGATIVE_MASK & (0 - <uint64_t>negative))
    p[0] = <uint8_t>((0x10 & ~(0 - <uint64_t>negative)) | (u >> 60))
    return raw_be(p + 1, u << 4, 8)
