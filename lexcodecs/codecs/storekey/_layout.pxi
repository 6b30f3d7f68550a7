# The byte layout of storekey (format.py), written once for its compiled users: the row engine
# (``_compiled.pyx``) includes this file, and so may the columnar kernel
# (``lexcodecs/columnar/_kernel.pyx``) should it ever take a writer of storekey's own (today
# its generic ``be``/``float``/``bool``/``bytes`` writers describe every field it takes).
#
# Theory of operation: every writer stores into a raw buffer at ``p`` and returns the end of
# what it wrote; the buffer has SLACK bytes of room past the writer's bound
# (``lexcodecs/_raw.pxd``: a fixed-width value goes out as one 8-byte store). storekey has no
# descending order, so nothing here inverts. Integers come as their 64-bit two's complement
# ``u``; a signed one has its sign bit flipped (``u ^ 2**(8w-1)``, in its *width* bytes).
# Floats come as their IEEE bits: the order transform (``raw_order``) sets the sign bit of a
# positive and inverts every bit of a negative. Strings and chars are their UTF-8 and ``00``,
# unescaped; a bytes field is its u64 big-endian length and the bytes; a sequence (repr=seq)
# its bytes and ``01``.

from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memcpy

from lexcodecs._raw cimport raw_be, raw_order
from lexcodecs.codecs.storekey._format cimport (
    LENGTH_WIDTH as SK_LENGTH_WIDTH, SEQ_END as SK_SEQ_END, STRING_END as SK_STRING_END,
)


cdef inline uint8_t* sk_uint(uint8_t* p, uint64_t u, int width) noexcept nogil:
    """An unsigned integer (or a variant index) in *width* big-endian bytes."""
    return raw_be(p, u, width)


cdef inline uint8_t* sk_int(uint8_t* p, uint64_t u, int width) noexcept nogil:
    """A signed integer's two's complement *u* in *width* bytes, its sign bit flipped."""
    return raw_be(p, u ^ (1ULL << (8 * width - 1)), width)


cdef inline uint8_t* sk_float(uint8_t* p, uint64_t bits, int width) noexcept nogil:
    """A float's IEEE bits (*width* 4 or 8) in sortable form: positives sign-set, negatives
    inverted (the sign bit decides, so -0.0 sits just below +0.0 and NaNs keep payloads)."""
    return raw_be(p, raw_order(bits, (bits >> (8 * width - 1)) & 1, width), width)


cdef inline uint8_t* sk_text(uint8_t* p, const uint8_t* s, Py_ssize_t n) noexcept nogil:
    """A string's or char's UTF-8, then ``00`` (no escaping: the format's own choice)."""
    memcpy(p, s, n)
    p[n] = SK_STRING_END
    return p + n + 1


cdef inline uint8_t* sk_bytes(uint8_t* p, const uint8_t* s, Py_ssize_t n) noexcept nogil:
    """A bytes field (serde_bytes): its length as u64 big-endian, then the bytes."""
    p = raw_be(p, <uint64_t> n, SK_LENGTH_WIDTH)
    memcpy(p, s, n)
    return p + n


cdef inline uint8_t* sk_seq(uint8_t* p, const uint8_t* s, Py_ssize_t n) noexcept nogil:
    """A Vec<u8> as a serde sequence: each u8 element, then ``01``."""
    memcpy(p, s, n)
    p[n] = SK_SEQ_END
    return p + n + 1
