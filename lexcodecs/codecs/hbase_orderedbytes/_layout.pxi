# The byte layout of HBase's BlobVar (format.py), written once for its compiled users: the row
# engine (``_compiled.pyx``, through ``_write.pxi``) and the columnar kernel
# (``lexcodecs/columnar/_kernel.pyx``) include this file. (HBase's numbers are SQLite4's:
# ``lexcodecs/_centimal.pxi``.)
#
# Theory of operation: a BlobVar's body is the bits of its bytes in 7-bit groups, a byte each
# with its high bit set, as sqlite4's binary (``lexcodecs/_raw.pxd``'s :c:func:`raw_seven`),
# but the last group ends it: its high bit is clear, and an empty blob is the one byte
# ``00``. The writer stores into a raw buffer at ``p`` and returns the end of what it wrote,
# at most ``(8n + 6) // 7`` bytes (one for none), stored exactly.

from libc.stdint cimport uint8_t

from lexcodecs._raw cimport raw_has00, raw_seven


cdef inline uint8_t* hbase_blob_var(uint8_t* p, const uint8_t* s, Py_ssize_t n) noexcept nogil:
    """The BlobVar body of the *n* bytes at *s* (the header is the caller's)."""
    if n == 0:
        p[0] = 0
        return p + 1
    p = raw_seven(p, s, n)
    (p - 1)[0] &= 0x7F  # the last group ends the blob
    return p
