# The byte layout of sqlite4's numbers (format.py), written once for its compiled users: the
# row engine (``_compiled.pyx``, through ``_write.pxi``) and the columnar kernel
# (``lexcodecs/columnar/_kernel.pyx``) include this file, after ``lexcodecs/_shortest.pxi``
# and ``lexcodecs/_centimal.pxi``.
#
# Theory of operation: a number is SQLite4's base-100 number (``lexcodecs/_centimal.pxi``,
# shared with HBase), in sqlite4's medium class (E from MEDIUM_MIN_E), with zero and the
# infinities one byte each. A float is the number of its shortest repr (Ryu); a NaN has its
# own header, which this layout does not write (the row engine writes it; the kernel declines
# it). Every writer stores into a raw buffer at ``p`` and returns the end of what it wrote;
# the buffer has CENT_ROOM bytes of room. A binary's body is 7-bit groups, then ``00``
# (``lexcodecs/_raw.pxd``'s :c:func:`raw_seven`, shared with HBase's BlobVar).

from libc.math cimport isinf
from libc.stdint cimport uint8_t

from lexcodecs.codecs.sqlite4._format cimport MEDIUM_MIN_E as SQ4_MEDIUM_MIN_E


cdef inline uint8_t* sq4_number(uint8_t* p, double x) noexcept nogil:
    """The number of a float that is not NaN: zero and the infinities are one byte."""
    if x == 0.0:
        p[0] = CENT_ZERO
        return p + 1
    if isinf(x):
        p[0] = CENT_POS_INF if x > 0 else CENT_NEG_INF
        return p + 1
    return cent_float(p, x, SQ4_MEDIUM_MIN_E)
