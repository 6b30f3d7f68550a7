# The byte layout of orderly's var-ints, strings and variable-length bytes (format.py), written
# once for its compiled users: the row engine (``_compiled.pyx``, through ``_write.pxi`` and
# ``_read.pxi``) and the columnar kernel (``lexcodecs/columnar/_kernel.pyx``) include this
# file.
#
# Theory of operation: every writer stores into a raw buffer at ``p`` and returns the end of
# what it wrote (NULL: the value is longer than its layout allows); the buffer has SLACK bytes
# of room past the writer's bound (``lexcodecs/_raw.pxd``: a var-int's data bytes go out as
# one 8-byte store). ``inv`` (all ones or 0) writes the bytes inverted, for a descending
# field.
#
# * A var-int (spec §5) is a header byte, with the sign, the length and the value's top bits,
#   then big-endian data bytes. Its layout's decisions (the length by the value's bit count,
#   the header's template by the length) are tables (:c:type:`OrderlyVarint`), made once per
#   layout by :func:`orderly_varint_tables`: :func:`orderly_varint` then looks a header up
#   instead of branching on the length (5-8% faster on two var-int columns, in the kernel).
#   The value comes as its two's complement ``u`` and ``neg`` (1 when negative, else 0), and
#   the sign selects the template by a mask, not a branch. *r* reserved bits at the top of
#   the header (a decimal's exponent: its type) hold a value of their own and are never
#   inverted: :func:`orderly_varint_r`.
# * A string is each UTF-8 byte plus 2 (:func:`orderly_plus2`), leaving ``00`` (NULL) and
#   ``01`` (the terminator, the caller's).
# * Variable-length bytes are "reversed packed BCD" (spec §10.2): each byte as its three
#   decimal digits, a nibble each (format.DIGIT_NIBBLE, through format.BYTE_NIBBLES: the
#   table :data:`ORDERLY_BYTE_NIBS` is filled from it at import), then terminator nibbles
#   to fill the last byte, at least one when the field is terminated (:func:`orderly_bcd`).

from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy

from lexcodecs._raw cimport bit_length, raw_be
from lexcodecs.codecs.orderly._format cimport VARBYTES_TERMINATOR as ORDERLY_TERMINATOR

from lexcodecs.codecs.orderly.format import BYTE_NIBBLES as _ORDERLY_BYTE_NIBBLES

cdef enum:
    #: the most bytes a var-int takes: the header and 8 data bytes
    ORDERLY_VARINT_MAX = 9

ctypedef struct OrderlyVarint:
    # by the value's bit count (of its ones' complement when negative): the var-int's length,
    # 0 when longer than the layout allows
    uint8_t length[65]
    # by length: the header's template for a positive and the xor to a negative's, the shift
    # and mask of the value's top bits in the header (+1 for unsigned folded in the template)
    uint64_t positive[10]
    uint64_t flip[10]
    uint64_t mask[10]
    int shift[10]
    bint is_signed


cdef void orderly_varint_tables(OrderlyVarint* t, bint is_signed, int s, int d, int lb, int e,
                                int max_length, int r) noexcept nogil:
    """The tables of a var-int layout (format.VarIntLayout: the header's data bits of a
    single-byte form *s*, of a double-byte form *d*, the length field's width *lb*, the
    extended form's data bits *e*, the longest form), with *r* reserved bits. The Java code
    loses the header bits of a 9-byte long (format quirk): none are written."""
    cdef int bits, length, h_bits
    cdef uint64_t positive, negative
    t.is_signed = is_signed
    for bits in range(65):
        if bits <= s - r:
            length = 1
        elif bits <= d - r + 8:
            length = 2
        else:
            length = 1 + ((bits - (e - r) + 7) >> 3)
        t.length[bits] = <uint8_t>(length if length <= max_length and length <= 9 else 0)
    for length in range(1, 10):
        h_bits = (s if length == 1 else (d if length == 2 else e)) - r
        if is_signed:
            if length == 1:
                positive, negative = 0x80, 0x40
            elif length == 2:
                positive, negative = 0xC0, 0x20
            else:
                positive = 0xE0 + ((length - 3) << e)
                negative = ((length - 3) ^ ((1 << lb) - 1)) << e
            positive >>= r
            negative >>= r
        else:
            positive = 0x00 if length == 1 else (0x80 if length == 2 else
                                                 0xC0 + ((length - 3) << e))
            positive = (positive >> r) + 1
            negative = positive
        t.positive[length] = positive
        t.flip[length] = positive ^ negative
        t.mask[length] = 0 if length == 9 else (1ULL << h_bits) - 1
        t.shift[length] = 0 if length == 9 else 8 * (length - 1)


cdef inline uint8_t* orderly_varint(const OrderlyVarint* t, uint8_t* p, uint64_t neg, uint64_t u,
                                    uint64_t inv) noexcept nogil:
    """The var-int of an in-range value (``reference_numbers.varint_bytes``) by the tables of
    :func:`orderly_varint_tables`; NULL when it needs more bytes than the layout allows. With
    reserved bits the header's top bits are not yet theirs (:func:`orderly_varint_r`)."""
    cdef uint64_t minus = 0 - neg
    cdef int length = t.length[bit_length(u ^ minus)]
    cdef uint64_t top
    if length == 0:
        return NULL
    if t.is_signed:
        top = <uint64_t>(<int64_t>u >> t.shift[length])
    else:
        top = u >> t.shift[length]
    p[0] = <uint8_t>((t.positive[length] ^ (t.flip[length] & minus)) + (top & t.mask[length])
                     ) ^ <uint8_t>inv
    return raw_be(p + 1, u ^ inv, length - 1)


cdef inline uint8_t* orderly_varint_r(const OrderlyVarint* t, uint8_t* p, bint neg, uint64_t u,
                                      uint8_t mask, int r, int v) noexcept nogil:
    """:func:`orderly_varint` of tables made with *r* reserved bits, which hold *v*, never
    inverted; every other bit XOR *mask* (``ff`` or 0)."""
    cdef uint8_t* end = orderly_varint(t, p, neg, u, 0 - <uint64_t>(mask & 1))
    if end != NULL and r:
        p[0] = (p[0] & (0xFF >> r)) | (v << (8 - r))
    return end


cdef inline uint64_t orderly_plus2_word(uint64_t w) noexcept nogil:
    """Each of the 8 bytes of *w* plus 2, modulo 256: the low seven bits of each added to
    (no carry leaves a byte), the high bit put back by xor."""
    return ((w & 0x7F7F7F7F7F7F7F7FULL) + 0x0202020202020202ULL) ^ (w & 0x8080808080808080ULL)


cdef inline uint8_t* orderly_plus2(uint8_t* p, const uint8_t* s, Py_ssize_t n) noexcept nogil:
    """A string's bytes: each UTF-8 byte plus 2, modulo 256 (stored exactly), eight at a
    time."""
    cdef Py_ssize_t k = 0
    cdef uint64_t w
    while k + 8 <= n:
        memcpy(&w, s + k, 8)
        w = orderly_plus2_word(w)
        memcpy(p + k, &w, 8)
        k += 8
    for k in range(k, n):
        p[k] = <uint8_t>(s[k] + 2)
    return p + n


#: a byte -> its three digit nibbles (12 bits), from format.BYTE_NIBBLES
cdef uint32_t ORDERLY_BYTE_NIBS[256]
for _i in range(256):
    ORDERLY_BYTE_NIBS[_i] = int(_ORDERLY_BYTE_NIBBLES[_i], 16)


cdef inline Py_ssize_t orderly_bcd_length(Py_ssize_t d, bint t) noexcept nogil:
    """The bytes of *d* digit nibbles and the terminator nibbles *t* asks for
    (``VarBytes.write``: ``bcd_length``)."""
    if t:
        return (d + 2) // 2
    return 1 if d == 0 else (d + 1) // 2


cdef inline uint8_t* orderly_bcd(uint8_t* p, const uint8_t* s, Py_ssize_t n,
                                 bint t) noexcept nogil:
    """Variable-length bytes: the digit nibbles of the *n* bytes at *s*, then terminator
    nibbles to fill the last byte, at least one when *t* (stored exactly). Two bytes at a
    time: six nibbles, three bytes."""
    cdef Py_ssize_t i = 0, done, size = orderly_bcd_length(3 * n, t)
    cdef uint32_t pair
    while i + 1 < n:
        pair = (ORDERLY_BYTE_NIBS[s[i]] << 12) | ORDERLY_BYTE_NIBS[s[i + 1]]
        p[0] = <uint8_t>(pair >> 16)
        p[1] = <uint8_t>(pair >> 8)
        p[2] = <uint8_t>pair
        p += 3
        i += 2
    done = 3 * (i // 2)
    if i < n:  # one byte left: three nibbles, the last one shares a byte with a terminator
        pair = ORDERLY_BYTE_NIBS[s[i]]
        p[0] = <uint8_t>(pair >> 4)
        p[1] = <uint8_t>(((pair & 0xF) << 4) | ORDERLY_TERMINATOR)
        p += 2
        done += 2
    while done < size:
        p[0] = (ORDERLY_TERMINATOR << 4) | ORDERLY_TERMINATOR
        p += 1
        done += 1
    return p
