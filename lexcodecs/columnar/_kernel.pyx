# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The columnar kernel: every key of a batch, in one pass over the Arrow buffers.

Theory of operation: :mod:`lexcodecs.columnar.pieces` describes each key field as data, and
``arrow._plan`` turns each field into one tuple of plain values (read by :func:`_load`): where
its Arrow column lives (validity bitmap, values buffer, a string's data, ``array.offset``,
the source kind, a time unit's scale), how a value becomes bytes (the writer kind, a width,
flags, the value range, the tag bytes before and the terminator after, the bytes of a NULL),
and whether the piece is inverted (descending). :func:`capacity` sizes the data buffer from
the same tuples. :func:`encode_rows` copies them into a C array once, then writes each key:
per field ``prefix ‖ body ‖ suffix`` (inverted if descending) or the NULL piece, with the
separator between fields, straight into the caller's data buffer, recording each key's end
in the int32 offsets buffer. For orderly (*tail*) a NULL is written only before a non-empty
field (its termination rule). Four ways, the first that takes the batch (:func:`encode_rows` says which it took):

- **in place** (:func:`_all_in_place`): every key has one length (fixed-size pieces, no
  NULL), so each field sits at one offset in every key: a loop per column writes it there.
- **number rows** (:func:`_number_rows`): every field an integer of one variable-length
  writer (fdb-tuple's, orderly's, sqlite4's) or an IEEE float, each column without NULLs
  (sqlite4's integers may hold NULLs), the integers without checks, no separator: each key
  in turn, its numbers one after the other; or every field a JS number (ordered-binary's,
  bytewise's, charwise's) without NULLs, the separators and the array's tag and end
  written in place (:func:`_js_rows`).
- **by field** (:func:`_by_field`): no strings, and orderly's NULL rule never drops a piece:
  for a chunk of rows, a loop per column writes every field but the last into a scratch
  area, then the last field's loop writes each key, its earlier pieces joined first.
- **by row** (:func:`_rows`): anything else, one key after the other.

A loop per column keeps its writer's branches predicted and its settings in registers: the
first three ways are several times faster than the last.

A row holding a value this kernel does not vouch for is *declined*: a value out of the
field's range, a NaN, a NULL the field has no fixed bytes for, fdb-tuple's ``2**64 - 1``,
an orderly var-int longer than its layout, a ``00`` in sqlite4 text, a time beyond int64
nanoseconds. Its key is left empty and its index returned. The caller asks the row API for
those keys (which gives the bytes or the typed error) and runs the kernel again with them as
*overrides*, copied in place. This module never words an error, and it writes only values the
row API writes the same bytes for (``tests/test_columnar.py`` holds it to that).

Writers (``W_*``), the byte formats of ``lexcodecs/codecs/<name>/format.py``. This module
holds none of their byte rules: each is written once, by the layout the format's row engine
includes too (nogil writers over raw buffers): ``_raw.pxd`` (``lexcodecs/_raw.pxd``, what
several formats share), ``_centimal.pxi`` (``lexcodecs/_centimal.pxi``, SQLite4's base-100
number, HBase's too), or the codec's own ``lexcodecs/codecs/<pkg>/_layout.pxi``:

========  ==================  =====================================================================
writer    layout              bytes
========  ==================  =====================================================================
BE        _raw.pxd            big-endian in ``width`` bytes (``raw_be``); ``F_SIGNFLIP`` flips the
                              top bit (lexkey's ints, orderly's fixed ints); ``F_TI_TIME``: a
                              time's TiDB packed uint64 (tidb/: ``ti_packed_micros``)
SKV_INT   skv/                skv's signed int (``skv_int``): sign byte ``02``/``03``, then ``v``
                              or ``2**N - 1 + v``
FDB_INT   fdb_tuple/          fdb-tuple's integer (``fdb_int64``): code ``0x14 ± n``, then ``n``
                              big-endian bytes (ones' complement if < 0)
VARINT    orderly/            orderly's var-int (``orderly_varint``, spec §5, no reserved bits):
                              header with sign, length, top bits, by the field's tables
OC_INT    orderedcode/        orderedcode's int64 (``F_SIGNED``: k one-bits, a zero, the value;
                              ~x inverted if < 0) or uint64 (a length byte, the big-endian bytes)
OB_INT    ordered_binary/     ordered-binary's number of an int (``ob_int``): the double it equals,
                              or the double nearer zero and the BigInt remainder
CENT_INT  _centimal.pxi       the base-100 number of an integer (sqlite4's, HBase's): medium
                              class header, centimal mantissa (``cent_int``)
BW_INT    bytewise/           bytewise's number of an int (``bw_number`` of the double it
                              equals: the field's range is +-2**53)
CW_INT    charwise/           charwise's number of an int (``cw_int``): the text of its digits
                              without their trailing zeros (the field's range is +-2**53)
FLOAT     _raw.pxd            IEEE order transform (``raw_order``; ``F_LITERAL``: lexkey's
                              "x < 0" rule; ``F_PLUS1``: orderly's; ``F_ZERO_UP``: -0.0 as
                              +0.0, memcomparable's and TiDB's)
OC_FLT    orderedcode/        orderedcode's float64: the int64 of its bits (``MinInt64 - bits``
                              if negative)
OB_FLT    ordered_binary/     ordered-binary's number of a float64: ``1 ‖ u ‖ 0`` (``0 ‖ u ^
                              7fff… ‖ 0`` if < 0)
SQ4_FLT   sqlite4/            sqlite4's number of a float (``sq4_number``): the digits of its
                              shortest repr (Ryu, ``lexcodecs/_shortest.pxi``)
BW_NUM    bytewise/           bytewise's number (``bw_number``): a tag by sign, then the
                              double's bytes (negatives' inverted); the infinities bare tags
CW_NUM    charwise/           charwise's number (``cw_number``): its text, of Ryu's digits
                              (``lexcodecs/_shortest.pxi``), 9-complemented if < 0
BOOL      (none)              one byte, ``b_false`` or ``b_true`` (the plan's)
BYTES     by flag             a string's or binary's data: raw; ``00`` escaped ``00 ff``
                              (``F_ESC00``: ``raw_escape00``); with ``F_ESCFF`` ``ff`` escaped
                              ``ff 00`` too (orderedcode/: ``oc_escaped``); ``00`` refused
                              (``F_NO00``, sqlite4's text); each byte + 2 (``F_PLUS2``,
                              orderly/: ``orderly_plus2``); 7-bit groups (``F_SEVEN``, sqlite4's
                              binary: ``raw_seven``); HBase's BlobVar (``F_SEVEN_LAST``,
                              hbase_orderedbytes/: ``hbase_blob_var``); packed BCD (``F_BCD``,
                              orderly/: ``orderly_bcd``); 8-byte groups with TiDB's markers
                              (``F_TI_GROUPS``, tidb/: ``ti_groups``) or memcomparable's flag
                              and markers (``F_MC_BYTES``, memcomparable/: ``mc_bytes``); a u64
                              length, then the data (``F_SK_BYTES``, storekey/: ``sk_bytes``);
                              an array item's escapes (``F_BW_TEXT``, ``F_BW_BUFFER``,
                              bytewise/: ``bw_escaped``; ``F_CW_TEXT``, charwise/:
                              ``cw_text``, with ``F_CW_BARE`` a string bare, not an item:
                              only ``00`` and ``01`` escaped)
========  ==================  =====================================================================

A loop here writes a piece the way its shape needs: the keys of one length store exactly,
so they compose a layout's parts (``skv_sign``, ``skv_payload``, ``raw_order``) with exact
stores; every other loop calls the layout's writer, whose last store may pass the piece's
end (the data buffer has SLACK bytes past its bound).

Dispatch compares kinds with ``<=``, never ``==`` chains (the compiler turns those into jump
tables), and the sign of a value selects by masks, not branches: on random data a
mispredicted branch costs more than a value's whole encoding.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, uintptr_t
from libc.math cimport isinf
from libc.string cimport memcpy, memset

# the primitives of every compiled layout (SLACK: the data buffer holds that many bytes past
# its bound, so a fixed-size store may pass a key's end)
from lexcodecs._raw cimport (
    SLACK, __builtin_bswap16, __builtin_bswap32, __builtin_bswap64, copy4, raw_be,
    raw_escape00, raw_escape00_some, raw_has00, raw_invert, raw_order, raw_seven,
)
# the shortest round-trip digits of a double (sqlite4's floats): Ryu, and its tables; then
# the base-100 number of sqlite4 and HBase (its integers, sqlite4's floats), over raw buffers
include "../_shortest.pxi"
_shortest_init()
include "../_centimal.pxi"
# each format's own layout, the one its row engine includes: fdb-tuple's integers, skv's
# signed ints, orderly's var-ints, strings and BCD bytes, orderedcode's items, ordered-binary's
# numbers, sqlite4's numbers (after _centimal.pxi), HBase's BlobVar
include "../codecs/fdb_tuple/_layout.pxi"
include "../codecs/skv/_layout.pxi"
include "../codecs/orderly/_layout.pxi"
include "../codecs/orderedcode/_layout.pxi"
include "../codecs/ordered_binary/_layout.pxi"
include "../codecs/sqlite4/_layout.pxi"
include "../codecs/hbase_orderedbytes/_layout.pxi"
include "../codecs/tidb/_layout.pxi"
include "../codecs/memcomparable/_layout.pxi"
include "../codecs/storekey/_layout.pxi"
include "../codecs/bytewise/_layout.pxi"
include "../codecs/charwise/_layout.pxi"
from lexcodecs.codecs.bytewise._format cimport (
    NEG_INF as BW_NEG_INF, NUMBER_NEG as BW_NUMBER_NEG, NUMBER_POS as BW_NUMBER_POS,
    POS_INF as BW_POS_INF,
)

# source kinds: how the values buffer is read (pieces.SOURCES)
cdef enum:
    S_I8 = 1
    S_I16 = 2
    S_I32 = 3
    S_I64 = 4
    S_U8 = 5
    S_U16 = 6
    S_U32 = 7
    S_U64 = 8
    S_F32 = 9
    S_F64 = 10
    S_BOOL = 11
    S_STR32 = 12
    S_STR64 = 13
    S_TIME64 = 14
    S_TIME32 = 15

# writers (W_*: the integers, then the floats; dispatch goes by <=) and flags (F_*): the
# table of lexcodecs/pieces.py, through the .pxd the build writes from it
from lexcodecs._pieces_format cimport (
    F_BCD, F_BW_BUFFER, F_BW_TEXT, F_CW_BARE, F_CW_TEXT, F_ESC00, F_ESCFF, F_FLOAT32, F_INVERT,
    F_LITERAL, F_MC_BYTES, F_NO00, F_OBSTR, F_PLUS1, F_PLUS2, F_SEVEN, F_SEVEN_LAST,
    F_SIGNED, F_SIGNFLIP, F_SK_BYTES, F_TERM_LAST, F_TI_GROUPS, F_TI_TIME, F_ZERO_UP,
    MAX_PIECE, W_BE, W_BOOL, W_BW_INT, W_BW_NUM, W_BYTES, W_CENT_INT, W_CW_INT, W_CW_NUM,
    W_FDB_INT, W_FLOAT, W_LAST_FLOAT, W_LAST_INT, W_OB_FLT, W_OB_INT, W_OC_FLT, W_OC_INT,
    W_SKV_INT, W_SQ4_FLT, W_VARINT,
)

# a string's layout, one of its flags' (:func:`_body_of`), in the order _bytes tests them; the
# ones from B_DOUBLE on may write up to twice the data (the kernel's buffer bound)
cdef enum:
    B_RAW = 0
    B_NO00 = 1
    B_PLUS2 = 2
    B_DOUBLE = 3
    B_ESC00 = 3
    B_ESCFF = 4
    B_SEVEN = 5
    B_BLOB_VAR = 6
    B_BCD = 7
    B_OB = 8
    B_TI_GROUPS = 9
    B_MC_BYTES = 10
    B_SK_BYTES = 11
    B_BW_ESCAPED = 12
    B_CW_TEXT = 13

# whole microseconds whose nanoseconds fit an int64 (lexkey.format.US_MIN, US_MAX)
cdef int64_t US_MIN = -(2**63 // 1000)
cdef int64_t US_MAX = (2**63 - 1) // 1000

ctypedef struct FieldC:
    int src
    const uint8_t* valid
    const uint8_t* values
    Py_ssize_t off
    int writer
    int width
    int flags
    int64_t lo
    uint64_t hi
    uint8_t pre[4]
    int npre
    uint8_t suf[4]
    int nsuf
    uint8_t null[16]
    int nnull
    uint8_t b_false
    uint8_t b_true
    int vs
    int vd
    int vlb
    int ve
    int vmax
    int maxlen
    const uint8_t* data
    const uint8_t* data_end  # the end of the data buffer: what may be read
    int64_t tmul
    int64_t tdiv
    int64_t tlimit  # the largest time value in range before its scaling (US_MAX // tmul + 1)
    TiDay day  # TiDB's last date (ti_packed_micros), for the next time on that day
    int vsize
    bint vsigned
    uint64_t rbias
    uint64_t rspan
    bint ranged  # a value of the column may be out of the field's range
    int body  # a string's layout (B_*), from its flags once
    OrderlyVarint vt  # an orderly var-int's tables (its layout's)


cdef inline bint _valid(const FieldC* f, Py_ssize_t i) noexcept nogil:
    if f.valid == NULL:
        return True
    i += f.off
    return (f.valid[i >> 3] >> (i & 7)) & 1


cdef inline uint64_t _int_at(const uint8_t* values, int vsize, uint64_t vsigned,
                             Py_ssize_t i, uint64_t* neg) noexcept nogil:
    """The integer at Arrow index *i* of a values buffer of *vsize*-byte integers: its 64-bit
    two's complement, and into *neg* 1 when it is negative. Plain arguments, not the field:
    a loop passes its locals, which no store through a byte pointer can alias. (Dispatch by
    ``<=`` on the value's size, never ``==`` chains: the compiler turns those into jump
    tables, whose indirect jumps cost more than the value's whole encoding.)"""
    cdef uint64_t u
    cdef int64_t s
    if vsize >= 8:
        u = (<const uint64_t*>values)[i]
        neg[0] = (u >> 63) & vsigned
        return u
    # (statements, not conditional expressions: those take the unsigned type for both)
    if vsize >= 4:
        if vsigned:
            s = (<const int32_t*>values)[i]
        else:
            s = (<const uint32_t*>values)[i]
    elif vsize >= 2:
        if vsigned:
            s = (<const int16_t*>values)[i]
        else:
            s = (<const uint16_t*>values)[i]
    elif vsigned:
        s = (<const int8_t*>values)[i]
    else:
        s = (<const uint8_t*>values)[i]
    neg[0] = s < 0
    return <uint64_t>s


cdef inline double _float_at(const FieldC* f, Py_ssize_t i) noexcept nogil:
    i += f.off
    if f.src == S_F32:
        return (<const float*>f.values)[i]
    return (<const double*>f.values)[i]


def shortest_digits(double x):
    """The digits of ``repr(x)`` and the point: ``abs(x) == 0.<digits> * 10**point``, for a
    finite non-zero *x* (for tests/test_columnar_shortest.py)."""
    cdef char digits[24]
    cdef int point
    if x == 0 or x != x or isinf(x):
        raise ValueError(f"not a finite non-zero float: {x!r}")
    cdef int n = _shortest(x, digits, &point)
    return digits[:n].decode("ascii"), point


cdef inline uint8_t* _float(const FieldC* f, uint8_t* p, double x, uint64_t inv) noexcept nogil:
    """The IEEE order transform (``_raw.pxd``'s :c:func:`raw_order`): a negative value (by
    its sign bit, or by ``x < 0`` with ``F_LITERAL``) has every bit inverted, any other its
    sign bit set; plus one with ``F_PLUS1``. *inv*: all ones to write the bytes inverted."""
    cdef float x32
    cdef uint32_t b32
    cdef uint64_t b64, sign
    if f.flags & F_ZERO_UP:
        x = x + 0.0  # -0.0 + 0.0 is +0.0 (memcomparable's and TiDB's zero), the rest unchanged
    if f.flags & F_FLOAT32:
        x32 = <float>x
        memcpy(&b32, &x32, 4)
        sign = (x < 0) if f.flags & F_LITERAL else (b32 >> 31)
        b32 = <uint32_t>raw_order(b32, sign, 4)
        b32 += (f.flags & F_PLUS1) != 0
        return raw_be(p, b32 ^ inv, 4)
    memcpy(&b64, &x, 8)
    sign = (x < 0) if f.flags & F_LITERAL else (b64 >> 63)
    b64 = raw_order(b64, sign, 8)
    b64 += (f.flags & F_PLUS1) != 0
    return raw_be(p, b64 ^ inv, 8)


cdef inline bint _nanos(const FieldC* f, bint* neg, uint64_t* u) noexcept nogil:
    """A time value in its unit -> int64 nanoseconds of whole microseconds (the row API's
    ``timedelta // 1us * 1000``); False when beyond int64 nanoseconds (declined)."""
    cdef int64_t v = <int64_t>u[0], micros
    if v > f.tlimit or v < -f.tlimit:
        return False
    micros = v * f.tmul
    if f.tdiv > 1:
        micros = micros // f.tdiv - (1 if micros % f.tdiv < 0 else 0)
    if micros < US_MIN or micros > US_MAX:
        return False
    neg[0] = micros < 0
    u[0] = <uint64_t>(micros * 1000)
    return True


cdef int _body_of(int flags) noexcept nogil:
    """A string piece's layout from its flags (a piece declares at most one of them;
    ``F_NO00`` alone is a check, not a layout)."""
    if flags & F_CW_TEXT:
        return B_CW_TEXT
    if flags & (F_BW_TEXT | F_BW_BUFFER):
        return B_BW_ESCAPED
    if flags & F_SK_BYTES:
        return B_SK_BYTES
    if flags & F_MC_BYTES:
        return B_MC_BYTES
    if flags & F_TI_GROUPS:
        return B_TI_GROUPS
    if flags & F_OBSTR:
        return B_OB
    if flags & F_BCD:
        return B_BCD
    if flags & F_SEVEN_LAST:
        return B_BLOB_VAR
    if flags & F_SEVEN:
        return B_SEVEN
    if flags & F_ESCFF:
        return B_ESCFF
    if flags & F_ESC00:
        return B_ESC00
    if flags & F_PLUS2:
        return B_PLUS2
    if flags & F_NO00:
        return B_NO00
    return B_RAW


cdef inline bint _byte_in(uint64_t w0, uint64_t w1, Py_ssize_t size) noexcept nogil:
    """Whether the first *size* (<= 16) of the bytes of *w0* then *w1* (little-endian) hold
    a 00. A word's zero bytes are found by ``(w - 0x01..) & ~w & 0x80..``, exactly up to its
    first one (a borrow marks bytes above it only), so masking the bytes past *size* off
    leaves the answer exact; each mask by two shifts (k = 0 and k = 8 need no branch)."""
    cdef uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL
    cdef int k0 = <int>min(size, 8), k1 = <int>max(size - 8, 0)
    cdef uint64_t m0 = ((1ULL << (4 * k0)) << (4 * k0)) - 1
    cdef uint64_t m1 = ((1ULL << (4 * k1)) << (4 * k1)) - 1
    return (((w0 - ones) & ~w0 & high & m0) | ((w1 - ones) & ~w1 & high & m1)) != 0


cdef inline uint8_t* _bytes(const FieldC* f, uint8_t* p, Py_ssize_t i, bint t) noexcept nogil:
    """A string or binary value, by the flags' layout: raw, or another's (the writer table
    above); NULL (declined) on a 00 the codec refuses (``F_NO00``). *t*: orderly's BCD writes
    a terminator nibble."""
    cdef int64_t start, stop
    cdef const uint8_t* src
    cdef Py_ssize_t size
    cdef int body
    cdef uint64_t w0, w1
    i += f.off
    if f.src == S_STR32:
        start, stop = (<const int32_t*>f.values)[i], (<const int32_t*>f.values)[i + 1]
    else:
        start, stop = (<const int64_t*>f.values)[i], (<const int64_t*>f.values)[i + 1]
    src = f.data + start
    size = stop - start
    body = f.body
    if body <= B_ESC00 and size <= 16 and src + 16 <= f.data_end:
        # a short string whose 16 bytes may be read: two words, checked and copied as they
        # are (a call of memcpy and one of memchr per value cost more than the rest of it)
        memcpy(&w0, src, 8)
        memcpy(&w1, src + 8, 8)
        if body == B_PLUS2:
            w0, w1 = orderly_plus2_word(w0), orderly_plus2_word(w1)
        elif body != B_RAW and _byte_in(w0, w1, size):
            if body == B_NO00:
                return NULL
            return raw_escape00_some(p, src, size)  # (its 00 just found)
        memcpy(p, &w0, 8)
        memcpy(p + 8, &w1, 8)
        return p + size
    # by <= on the layout, the commonest first (no jump table: see the module's docstring)
    if body <= B_NO00:
        if body == B_NO00 and raw_has00(src, size):
            return NULL
    elif body <= B_PLUS2:
        return orderly_plus2(p, src, size)
    elif body <= B_ESC00:
        return raw_escape00(p, src, size)
    elif body <= B_ESCFF:
        return oc_escaped(p, src, size)
    elif body <= B_SEVEN:
        return raw_seven(p, src, size)
    elif body <= B_BLOB_VAR:
        return hbase_blob_var(p, src, size)
    elif body <= B_BCD:
        return orderly_bcd(p, src, size, t)
    elif body <= B_OB:
        return ob_utf8(p, src, size, ob_units(src, size))
    elif body <= B_TI_GROUPS:
        return ti_groups(p, src, size)
    elif body <= B_MC_BYTES:
        return mc_bytes(p, src, size)
    elif body <= B_SK_BYTES:
        return sk_bytes(p, src, size)
    elif body <= B_BW_ESCAPED:
        return bw_escaped(p, src, size, (f.flags & F_BW_BUFFER) != 0)
    else:  # a charwise string as an array item, or bare (a key of one value)
        return cw_text(p, src, size, not (f.flags & F_CW_BARE))
    memcpy(p, src, size)
    return p + size


cdef inline uint8_t* _bw_number(uint8_t* p, double x) noexcept nogil:
    """bytewise's number (``_layout.pxi``): the infinities are their bare tags."""
    if isinf(x):
        p[0] = BW_POS_INF if x > 0 else BW_NEG_INF
        return p + 1
    return bw_number(p, BW_NUMBER_NEG, BW_NUMBER_POS, x)


cdef inline uint8_t* _oc_int(uint8_t* p, bint signed, uint64_t neg, uint64_t u,
                             uint64_t inv) noexcept nogil:
    """orderedcode's integer (``_layout.pxi``): an int64 field's item (*signed*) or a uint64
    field's (its range keeps a negative out)."""
    if signed:
        return oc_int64(p, 0 - neg, u, inv)
    return oc_uint64(p, u, inv)


cdef inline uint8_t* _oc_float(uint8_t* p, double x, uint64_t inv) noexcept nogil:
    """orderedcode's float64 item: the int64 of its bits (``_layout.pxi``)."""
    cdef uint64_t u
    memcpy(&u, &x, 8)
    u = oc_float_bits(u)
    return oc_int64(p, 0 - (u >> 63), u, inv)


cdef inline uint8_t* _ob_int(uint8_t* p, uint64_t neg, uint64_t u) noexcept nogil:
    """ordered-binary's number of an integer (its 64-bit two's complement *u*, *neg*): the
    double it equals, or the double nearer zero and the BigInt remainder (``ob_int``); NULL
    in the one case lmdb-js gets wrong (the row API's)."""
    return ob_int(p, <bint>neg, (u ^ (0 - neg)) + neg)


cdef inline uint8_t* _ob_float(uint8_t* p, double x) noexcept nogil:
    """ordered-binary's number of a float that is not NaN (``_layout.pxi``)."""
    cdef uint64_t bits
    memcpy(&bits, &x, 8)
    return ob_number(p, bits, x < 0)


cdef inline uint8_t* _int_body(const FieldC* f, uint8_t* p, int writer, int width,
                               bint signflip, bint neg,
                               uint64_t u) noexcept nogil:
    """The body of an integer piece at *p* (its 64-bit two's complement *u*, *neg*), by the
    field's writer; the end, or NULL to decline the row, for :func:`_piece` (the column
    loops of :func:`_column` have a loop per writer)."""
    if writer <= W_BE:
        return raw_be(p, u ^ (1ULL << (8 * width - 1)) if signflip else u, width)
    if writer <= W_SKV_INT:
        return skv_int(p, neg, u, 0, width)
    if writer <= W_FDB_INT:
        return fdb_int64(p, neg, u, 0)
    if writer <= W_VARINT:
        return orderly_varint(&f.vt, p, neg, u, 0)
    if writer <= W_OC_INT:
        return _oc_int(p, f.flags & F_SIGNED, neg, u, 0)
    if writer <= W_OB_INT:
        return _ob_int(p, neg, u)
    if writer <= W_CENT_INT:
        return cent_int(p, neg, u, 0)
    # bytewise and charwise: the JS number the int equals (their range, +-2**53, holds it
    # exactly)
    if writer <= W_BW_INT:
        return bw_number(p, BW_NUMBER_NEG, BW_NUMBER_POS, <double><int64_t>u)
    return cw_int(p, neg, (u ^ (0 - <uint64_t>neg)) + neg)


cdef inline uint8_t* _piece(const FieldC* f, uint8_t* p, Py_ssize_t row, bint more) except? NULL:
    """Write field *f* of *row* at *p*; the end, or NULL to decline the row. *more*: a later
    field is non-empty (orderly: a string then keeps its terminator, ``F_TERM_LAST``)."""
    cdef uint8_t* start = p
    cdef uint8_t* body
    cdef bint neg = False
    cdef uint64_t u = 0, negative
    cdef double x
    cdef int n
    cdef uint8_t bit
    if not _valid(f, row):
        if f.nnull < 0:
            return NULL
        memcpy(p, f.null, 16)
        return p + f.nnull
    p = copy4(p, f.pre, f.npre)
    # writers by <= on their numbers (see _int_at: no jump tables)
    if f.writer <= W_LAST_INT:
        u = _int_at(f.values, f.vsize, f.vsigned, row + f.off, &negative)
        neg = <bint>negative
        if f.tmul and not _nanos(f, &neg, &u):
            return NULL
        if f.flags & F_TI_TIME:  # TiDB's packed time of the instant (tidb/_layout.pxi)
            # (the field's memo of its last date: its own, written here only)
            if not ti_packed_micros(<int64_t>u // 1000, &u, &(<FieldC*>f).day):
                return NULL
            neg = False
        if u + f.rbias > f.rspan:  # out of the field's range: the row API's refusal
            return NULL
        p = _int_body(f, p, f.writer, f.width, f.flags & F_SIGNFLIP, neg, u)
        if p == NULL:
            return NULL
    elif f.writer <= W_LAST_FLOAT:
        x = _float_at(f, row)
        if x != x:
            return NULL
        if f.writer <= W_FLOAT:
            p = _float(f, p, x, 0)
        elif f.writer <= W_OC_FLT:
            p = _oc_float(p, x, 0)
        elif f.writer <= W_OB_FLT:
            p = _ob_float(p, x)
        elif f.writer <= W_SQ4_FLT:
            p = sq4_number(p, x)
        elif f.writer <= W_BW_NUM:
            p = _bw_number(p, x)
        else:
            p = cw_number(p, x)
    elif f.writer <= W_BOOL:
        row += f.off
        bit = (f.values[row >> 3] >> (row & 7)) & 1
        p[0] = f.b_false ^ ((f.b_false ^ f.b_true) & (0 - bit))
        p += 1
    else:
        body = p
        p = _bytes(f, p, row, more or f.flags & F_INVERT)
        if p == NULL:
            return NULL
        if f.flags & F_TERM_LAST and p != body and not more and not f.flags & F_INVERT:
            return p  # orderly's last ascending string: the end of the key ends it
    p = copy4(p, f.suf, f.nsuf)
    if f.flags & F_INVERT:
        raw_invert(start, p)
    return p


cdef Py_ssize_t _data_size(const FieldC* f, Py_ssize_t n) noexcept nogil:
    """The bytes of data a string column's rows span."""
    if f.src == S_STR32:
        return (<const int32_t*>f.values)[f.off + n] - (<const int32_t*>f.values)[f.off]
    return (<const int64_t*>f.values)[f.off + n] - (<const int64_t*>f.values)[f.off]


cdef void _load(FieldC* f, tuple row) except *:
    cdef bytes pre = row[9], suf = row[10]
    cdef uint64_t smax
    cdef object null = row[11]
    memset(f, 0, sizeof(FieldC))
    f.src = row[0]
    f.valid = <const uint8_t*><uintptr_t>row[1]
    f.values = <const uint8_t*><uintptr_t>row[2]
    f.off = row[3]
    f.writer = row[4]
    f.width = row[5]
    f.flags = row[6]
    f.body = _body_of(f.flags)
    f.lo = row[7]
    f.hi = row[8]
    if len(pre) > 4 or len(suf) > 4 or (null is not None and len(null) > 16):
        raise ValueError("a piece's fixed bytes are longer than the kernel holds")
    memcpy(f.pre, <const char*>pre, len(pre))
    f.npre = len(pre)
    memcpy(f.suf, <const char*>suf, len(suf))
    f.nsuf = len(suf)
    if null is None:
        f.nnull = -1
    else:
        memcpy(f.null, <const char*>(<bytes>null), len(null))
        f.nnull = len(null)
    f.b_false, f.b_true = row[12], row[13]
    f.vs, f.vd, f.vlb, f.ve, f.vmax = row[14]
    orderly_varint_tables(&f.vt, f.flags & F_SIGNED, f.vs, f.vd, f.vlb, f.ve, f.vmax, 0)
    f.maxlen = row[15]
    f.data = <const uint8_t*><uintptr_t>row[16]
    f.data_end = f.data + <Py_ssize_t>row[17]
    f.tmul, f.tdiv = row[18], row[19]
    # (once here, not a division by a variable for every value)
    f.tlimit = US_MAX // f.tmul + 1 if f.tmul else 0
    # an integer's size and signedness, read by _int_at
    if f.src == S_I64 or f.src == S_U64 or f.src == S_TIME64:
        f.vsize = 8
    elif f.src == S_I32 or f.src == S_U32 or f.src == S_TIME32:
        f.vsize = 4
    elif f.src == S_I16 or f.src == S_U16:
        f.vsize = 2
    else:
        f.vsize = 1
    f.vsigned = f.src <= S_I64 or f.src == S_TIME64 or f.src == S_TIME32
    # the range lo..hi as one unsigned compare, u + rbias <= rspan: a signed value v is in
    # range when v - lo <= min(hi, 2**63 - 1) - lo (wrapping below lo), an unsigned one
    # when u <= hi (lo <= 0 for every field)
    if f.vsigned:
        f.rbias = <uint64_t>(0 - <uint64_t>f.lo)
        f.rspan = (f.hi if f.hi < 0x7FFFFFFFFFFFFFFFULL else 0x7FFFFFFFFFFFFFFFULL) - <uint64_t>f.lo
    else:
        f.rbias, f.rspan = 0, f.hi
    # whether a value of the column's integer type can be out of range at all (an int64
    # column into an int64 field cannot): the column loops then skip the check
    # (rspan - rbias is min(hi, 2**63 - 1))
    if f.vsigned:
        smax = (1ULL << (8 * f.vsize - 1)) - 1
        f.ranged = f.lo > -<int64_t>smax - 1 or f.rspan - f.rbias < smax
    else:
        f.ranged = f.hi < 0xFFFFFFFFFFFFFFFFULL >> (64 - 8 * f.vsize)
    if f.lo > 0:
        raise ValueError("a field range that does not hold zero")
    if f.maxlen > MAX_PIECE:
        raise ValueError("a piece is longer than the kernel's bound")


cdef Py_ssize_t _rows(const FieldC* fields, Py_ssize_t nf, Py_ssize_t start, Py_ssize_t n,
                      const uint8_t* sep4, int nsep, bint tail, Py_ssize_t max_key,
                      uint8_t* out, uint8_t** at, int32_t* ends) except -1:
    """Rows ``start..`` written from ``at[0]`` on, up to the first declined row (its index,
    ``at[0]`` left at its start) or *n*. *tail*: orderly's rule for a NULL, written only
    when a later field is non-empty (not NULL, or a descending NULL) or itself descends.
    *max_key*: a longer key is declined (0: no limit; ordered-binary's buffer)."""
    cdef Py_ssize_t i, j, last
    cdef uint8_t* p = at[0]
    cdef uint8_t* q
    for i in range(start, n):
        q = p
        last = nf - 1
        if tail:
            while last >= 0 and not (_valid(&fields[last], i)
                                     or fields[last].flags & F_INVERT):
                last -= 1
        for j in range(last + 1):
            if j and nsep:
                p = copy4(p, sep4, nsep)
            p = _piece(&fields[j], p, i, j < last)
            if p == NULL:
                at[0] = q
                return i
        if max_key and p - q > max_key:
            at[0] = q
            return i
        ends[i + 1] = <int32_t>(p - out)
    at[0] = p
    return n


cdef enum:
    #: rows per chunk of the field-at-a-time path, and the room of one piece in its scratch
    CHUNK = 1024
    STRIDE = MAX_PIECE + 8
    #: the most fields :func:`_number_rows` takes (its settings are an array on the stack)
    MAX_NUMBER_FIELDS = 8


ctypedef struct Sink:
    # where a column's loop puts its pieces. Not final: each row's piece into this field's
    # slot of the scratch (``STRIDE`` bytes apart), its length into ``lens``. Final (the last
    # field): each row's key at ``p``, its earlier pieces joined from the scratch first, its
    # end into ``ends``: the last field's pieces never pass through the scratch.
    bint final
    uint8_t* base
    uint8_t* lens
    uint8_t* p
    const uint8_t* out
    int32_t* ends
    const uint8_t* scratch
    const uint8_t* lens_all
    Py_ssize_t nprev
    uint32_t sep
    int nsep


cdef Py_ssize_t _by_field(const FieldC* fields, Py_ssize_t nf, Py_ssize_t n,
                          const uint8_t* sep4, int nsep, uint8_t* out, int32_t* ends,
                          uint8_t* scratch, uint8_t* lens, int* plain) except -2:
    """Rows ``0..n-1`` a field at a time (see :func:`_fields_only`): for a chunk of rows,
    the pieces of every field but the last into *scratch* (``STRIDE`` bytes apart, their
    lengths in *lens*), then the last field's loop writes each key: the row's earlier pieces
    joined, then its own piece (:data:`Sink`). The same writer for a whole column keeps every
    branch predicted and the loops small, several times faster than row by row. The bytes
    used, or -1 when a row is declined (the caller then goes row by row, which handles
    it); *plain*: how many columns :data:`_Plain`'s loops wrote (for the tests)."""
    cdef Py_ssize_t c, k, j, m, w
    cdef uint8_t* p = out
    cdef uint8_t* base
    cdef uint8_t* q
    cdef Sink sink
    sink.out, sink.scratch, sink.lens_all, sink.nprev, sink.nsep = out, scratch, lens, nf - 1, nsep
    memcpy(&sink.sep, sep4, 4)
    for c in range(0, n, CHUNK):
        m = min(CHUNK, n - c)
        for j in range(nf):
            base = scratch + j * CHUNK * STRIDE
            sink.final, sink.base, sink.lens = j == nf - 1, base, lens + j * CHUNK
            sink.p, sink.ends = p, ends + c + 1
            if _plain(&fields[j]):
                w = _column(&fields[j], &sink, c, m, <_Plain*>NULL)
                if w > 0 and c == 0:
                    plain[0] += 1
            else:
                w = _column(&fields[j], &sink, c, m, <_Checked*>NULL)
            if w < 0:
                return -1
            if w:
                if sink.final:
                    p = sink.p
                continue
            for k in range(m):
                q = _piece(&fields[j], base + k * STRIDE, c + k, j < nf - 1)
                if q == NULL:
                    return -1
                lens[j * CHUNK + k] = <uint8_t>(q - (base + k * STRIDE))
            if sink.final:  # the last field's pieces went to the scratch too
                p = _join(p, out, scratch, lens, nf, m, sep4, nsep, ends + c + 1)
    return p - out


cdef inline uint8_t* _join_row(uint8_t* p, const uint8_t* scratch, const uint8_t* lens,
                               Py_ssize_t nf, Py_ssize_t k, uint32_t sep,
                               int nsep) noexcept nogil:
    """Row *k*'s pieces of fields ``0..nf-1`` from the scratch, written at *p* with the
    separators; the end."""
    cdef Py_ssize_t j, w, length
    cdef const uint8_t* src
    for j in range(nf):
        if j and nsep:
            memcpy(p, &sep, 4)
            p += nsep
        src = scratch + (j * CHUNK + k) * STRIDE
        length = lens[j * CHUNK + k]
        memcpy(p, src, 16)  # most pieces are this short: one store, no loop (SLACK)
        for w in range(16, length, 8):
            memcpy(p + w, src + w, 8)
        p += length
    return p


cdef uint8_t* _join(uint8_t* p, const uint8_t* out, const uint8_t* scratch,
                    const uint8_t* lens, Py_ssize_t nf, Py_ssize_t m, const uint8_t* sep4,
                    int nsep, int32_t* ends) noexcept nogil:
    """The keys of a chunk's *m* rows from their pieces, all in the scratch, written at *p*;
    each key's end into *ends*."""
    cdef Py_ssize_t k
    cdef uint32_t sep
    memcpy(&sep, sep4, 4)
    for k in range(m):
        p = _join_row(p, scratch, lens, nf, k, sep, nsep)
        ends[k] = <int32_t>(p - out)
    return p


cdef inline uint8_t* _slot(Sink* s, Py_ssize_t k) noexcept nogil:
    """Where row *k*'s piece goes (:data:`Sink`)."""
    cdef uint8_t* p
    if not s.final:
        return s.base + k * STRIDE
    p = _join_row(s.p, s.scratch, s.lens_all, s.nprev, k, s.sep, s.nsep)
    if s.nprev and s.nsep:
        memcpy(p, &s.sep, 4)
        p += s.nsep
    return p


cdef inline void _close(Sink* s, Py_ssize_t k, uint8_t* start, Py_ssize_t length) noexcept nogil:
    """Row *k*'s piece at *start* is *length* bytes long."""
    if s.final:
        s.p = start + length
        s.ends[k] = <int32_t>(s.p - s.out)
    else:
        s.lens[k] = <uint8_t>length


cdef inline Py_ssize_t _end(uint8_t* start, uint8_t* p, const uint8_t* suf, int nsuf,
                            bint invert) noexcept nogil:
    """A piece's suffix after *p*, its inversion when the field descends; its length."""
    memcpy(p, suf, 4)
    p += nsuf
    if invert:
        raw_invert(start, p)
    return p - start


cdef inline int _nulled(Sink* s, Py_ssize_t k, uint8_t* start, const uint8_t* valid,
                        Py_ssize_t i, const FieldC* f) noexcept nogil:
    """For the column loops: 0 when Arrow row *i* holds a value; else 1, its NULL piece
    written at *start* and closed as row *k*'s, or -1 when the row is declined."""
    cdef int w = _null_piece(valid, i, f, start)
    if w == -2:
        return -1
    if w >= 0:
        _close(s, k, start, w)
        return 1
    return 0


cdef inline int _null_piece(const uint8_t* valid, Py_ssize_t i, const FieldC* f,
                            uint8_t* start) noexcept nogil:
    """-1 when Arrow row *i* holds a value; else its NULL piece written at *start* and its
    length, or -2 when the field has no bytes for a NULL (the row is declined)."""
    if valid == NULL or (valid[i >> 3] >> (i & 7)) & 1:
        return -1
    if f.nnull < 0:
        return -2
    memcpy(start, f.null, 16)
    return f.nnull


# the two builds of _column (a fused type as a compile-time switch): _Checked for any
# column; _Plain for a column without NULLs, prefix or suffix, whose integers are all in
# the field's range: its loops do only the writer's work (fdb-tuple 2 x int64: 12.4 to
# 9.3 ns a row)
ctypedef struct _Checked:
    char unused
ctypedef struct _Plain:
    char unused
ctypedef fused Way:
    _Checked
    _Plain


cdef inline bint _plain(const FieldC* f) noexcept nogil:
    """Whether *f*'s column takes :data:`_Plain`'s loops."""
    return (f.valid == NULL and f.npre == 0 and f.nsuf == 0 and f.tmul == 0
            and not (f.writer <= W_LAST_INT and f.ranged))


# the integer writers, one build of :func:`_int_column` each (as for :data:`Way`): a loop
# per writer. Through _int_body, which the compiler does not inline (its var-int and sqlite4
# branches make it large), a call and a reload of every setting per row cost 15% of a
# two-column run; one loop choosing the writer per row, 7%.
ctypedef struct _Be:
    char unused
ctypedef struct _SkvInt:
    char unused
ctypedef struct _FdbInt:
    char unused
ctypedef struct _Varint:
    char unused
ctypedef struct _OcInt:
    char unused
ctypedef struct _ObInt:
    char unused
ctypedef struct _Sq4Int:
    char unused
ctypedef struct _BwInt:
    char unused
ctypedef struct _CwInt:
    char unused
ctypedef fused IntWriter:
    _Be
    _SkvInt
    _FdbInt
    _Varint
    _OcInt
    _ObInt
    _Sq4Int
    _BwInt
    _CwInt


cdef int _int_column(const FieldC* f, Sink* into, Py_ssize_t c, Py_ssize_t m, Way* way,
                     IntWriter* writer) noexcept nogil:
    """:func:`_column` for an integer column (1, or -1 when a row is declined)."""
    cdef Py_ssize_t k, off = f.off
    cdef const uint8_t* valid = f.valid
    cdef const uint8_t* values = f.values
    cdef uint64_t u, neg, rbias = f.rbias, rspan = f.rspan, vsigned = f.vsigned
    cdef uint64_t flipbit = (1ULL << (8 * f.width - 1)) if f.flags & F_SIGNFLIP else 0
    cdef uint64_t inv = 0xFFFFFFFFFFFFFFFFULL if f.flags & F_INVERT else 0
    cdef uint8_t* start
    cdef uint8_t* p
    cdef int w, width = f.width, npre = f.npre, nsuf = f.nsuf, vsize = f.vsize
    cdef uint8_t pre[4]
    cdef uint8_t sufx[4]
    cdef FieldC local = f[0]  # what the writers read, in a copy no store can alias
    cdef OrderlyVarint vt = f.vt  # (its own copy: through &local.vt, the var-int loop: +15%)
    cdef bint signed = f.flags & F_SIGNED, neg_time
    # a time column (timestamp, duration): its value in int64 nanoseconds of whole
    # microseconds first, for TiDB then its packed time (as _piece does), so that a time
    # column keeps its column loop (TiDB's packed time costs the same either way: its civil
    # date is most of it, ti_packed_micros keeps the last one)
    cdef bint timed = f.tmul != 0, packed = (f.flags & F_TI_TIME) != 0
    cdef Sink s = into[0]
    for k in range(4):  # inverted for a descending field, as its bytes are (see _column)
        pre[k] = f.pre[k] ^ <uint8_t>inv
        sufx[k] = f.suf[k] ^ <uint8_t>inv
    for k in range(m):
        start = _slot(&s, k)
        if Way is _Checked:
            w = _nulled(&s, k, start, valid, c + k + off, &local)
            if w:
                if w < 0:
                    return -1
                continue
        u = _int_at(values, vsize, vsigned, c + k + off, &neg)
        if Way is _Checked and timed:
            if not _nanos(&local, &neg_time, &u):
                return -1
            neg = neg_time
            if packed:
                if not ti_packed_micros(<int64_t>u // 1000, &u, &local.day):
                    return -1
                neg = 0
        if Way is _Checked:
            if u + rbias > rspan:
                return -1
            memcpy(start, pre, 4)
            p = start + npre
        else:
            p = start
        if IntWriter is _Be:
            p = raw_be(p, u ^ flipbit ^ inv, width)
        elif IntWriter is _SkvInt:
            p = skv_int(p, neg, u, inv, width)
        elif IntWriter is _FdbInt:
            p = fdb_int64(p, neg, u, inv)
            if p == NULL:
                return -1
        elif IntWriter is _Varint:
            p = orderly_varint(&vt, p, neg, u, inv)
            if p == NULL:
                return -1
        elif IntWriter is _OcInt:
            p = _oc_int(p, signed, neg, u, inv)
        elif IntWriter is _ObInt:
            p = _ob_int(p, neg, u)
            if p == NULL:
                return -1
        elif IntWriter is _Sq4Int:
            p = cent_int(p, <bint>neg, u, inv)
        elif IntWriter is _BwInt:  # the JS number the int equals (the field's range: +-2**53)
            p = bw_number(p, BW_NUMBER_NEG, BW_NUMBER_POS, <double><int64_t>u)
        else:  # charwise: the text of that number
            p = cw_int(p, <bint>neg, (u ^ (0 - neg)) + neg)
        if Way is _Checked:
            _close(&s, k, start, _end(start, p, sufx, nsuf, False))
        else:
            _close(&s, k, start, p - start)
    into.p = s.p
    return 1


# the float writers, one build of :func:`_float_column` each (one loop testing the writer per
# row: orderedcode's int64 + float64 6.4 -> 10.5 ns a row)
ctypedef struct _IeeeFlt:
    char unused
ctypedef struct _Sq4Flt:
    char unused
ctypedef struct _ObFlt:
    char unused
ctypedef struct _OcFlt:
    char unused
ctypedef struct _BwFlt:
    char unused
ctypedef struct _CwFlt:
    char unused
ctypedef fused FloatWriter:
    _IeeeFlt
    _Sq4Flt
    _ObFlt
    _OcFlt
    _BwFlt
    _CwFlt


cdef int _float_column(const FieldC* f, Sink* into, Py_ssize_t c, Py_ssize_t m, Way* way,
                       FloatWriter* writer) noexcept nogil:
    """:func:`_column` for a float column (1, or -1 when a row is declined). An IEEE float
    (:func:`_float`) is written inverted when the field descends, its fixed bytes inverted
    here (see :func:`_column`); sqlite4's, ordered-binary's and orderedcode's bytes are
    inverted after."""
    cdef Py_ssize_t k, off = f.off
    cdef const uint8_t* valid = f.valid
    cdef uint8_t* start
    cdef uint8_t* p
    cdef int w, npre = f.npre, nsuf = f.nsuf
    cdef bint invert = f.flags & F_INVERT
    cdef uint64_t inv = 0xFFFFFFFFFFFFFFFFULL if invert else 0
    cdef uint8_t pre[4]
    cdef uint8_t suf[4]
    cdef FieldC local = f[0]  # what the writers read, in a copy no store can alias
    cdef Sink s = into[0]
    cdef double x
    cdef bint after = invert  # inverted after it is written
    if FloatWriter is _IeeeFlt:
        after = False
    for k in range(4):
        if FloatWriter is _IeeeFlt:
            pre[k] = f.pre[k] ^ <uint8_t>inv
            suf[k] = f.suf[k] ^ <uint8_t>inv
        else:
            pre[k] = f.pre[k]
            suf[k] = f.suf[k]
    for k in range(m):
        start = _slot(&s, k)
        if Way is _Checked:
            w = _nulled(&s, k, start, valid, c + k + off, &local)
            if w:
                if w < 0:
                    return -1
                continue
        x = _float_at(&local, c + k)
        if x != x:
            return -1
        memcpy(start, pre, 4)
        if FloatWriter is _IeeeFlt:
            p = _float(&local, start + npre, x, inv)
        elif FloatWriter is _Sq4Flt:
            p = sq4_number(start + npre, x)
        elif FloatWriter is _ObFlt:
            p = _ob_float(start + npre, x)
        elif FloatWriter is _OcFlt:
            p = _oc_float(start + npre, x, 0)
        elif FloatWriter is _BwFlt:
            p = _bw_number(start + npre, x)
        else:
            p = cw_number(start + npre, x)
        _close(&s, k, start, _end(start, p, suf, nsuf, after))
    into.p = s.p
    return 1


cdef int _column(const FieldC* f, Sink* into, Py_ssize_t c, Py_ssize_t m,
                 Way* way) noexcept nogil:
    """Rows ``c..c+m-1`` of one column written by its own loop into *into*, the writer
    chosen once (a NULL by :func:`_null_piece`): 1 when done, 0 when this column is not one
    of these (``_piece`` then writes it), -1 when a row is declined. The loops are
    ``_piece``'s code for one writer, with the field's settings in locals: the bytes written
    through ``uint8_t*`` may alias anything, so the compiler would otherwise read each
    setting again for every row. *way*: which build (:data:`Way`), by its type alone."""
    cdef Py_ssize_t k, i, off = f.off
    cdef const uint8_t* valid = f.valid
    cdef const uint8_t* values = f.values
    cdef uint8_t b_false = f.b_false, b_true = f.b_true
    cdef uint8_t* start
    cdef uint8_t* p
    cdef int w, writer = f.writer, npre = f.npre, nsuf = f.nsuf
    cdef bint invert = f.flags & F_INVERT
    cdef uint64_t inv = 0xFFFFFFFFFFFFFFFFULL if invert else 0
    cdef uint8_t pre[4]
    cdef uint8_t sufx[4]
    cdef FieldC local
    cdef Sink s = into[0]  # a copy of its own, as for the settings
    if f.tmul and f.writer > W_LAST_INT:
        return 0
    # a descending piece's bytes are inverted as they are made (inverting them in memory
    # after, 8 bytes at a time, read stores of other sizes back: a stall that cost 70% of
    # a one-column run), its fixed bytes here
    for k in range(4):
        pre[k] = f.pre[k] ^ <uint8_t>inv
        sufx[k] = f.suf[k] ^ <uint8_t>inv
    local = f[0]  # what the writers read, in a copy no store can alias
    if writer == W_BE:
        return _int_column(f, into, c, m, way, <_Be*>NULL)
    if writer == W_SKV_INT:
        return _int_column(f, into, c, m, way, <_SkvInt*>NULL)
    if writer == W_FDB_INT:
        return _int_column(f, into, c, m, way, <_FdbInt*>NULL)
    if writer == W_VARINT:
        return _int_column(f, into, c, m, way, <_Varint*>NULL)
    if writer == W_OC_INT:
        return _int_column(f, into, c, m, way, <_OcInt*>NULL)
    if writer == W_OB_INT:
        return _int_column(f, into, c, m, way, <_ObInt*>NULL)
    if writer == W_CENT_INT:
        return _int_column(f, into, c, m, way, <_Sq4Int*>NULL)
    if writer == W_FLOAT:
        return _float_column(f, into, c, m, way, <_IeeeFlt*>NULL)
    if writer == W_SQ4_FLT:
        return _float_column(f, into, c, m, way, <_Sq4Flt*>NULL)
    if writer == W_OB_FLT:
        return _float_column(f, into, c, m, way, <_ObFlt*>NULL)
    if writer == W_OC_FLT:
        return _float_column(f, into, c, m, way, <_OcFlt*>NULL)
    if writer == W_BW_NUM:
        return _float_column(f, into, c, m, way, <_BwFlt*>NULL)
    if writer == W_BW_INT:
        return _int_column(f, into, c, m, way, <_BwInt*>NULL)
    if writer == W_CW_NUM:
        return _float_column(f, into, c, m, way, <_CwFlt*>NULL)
    if writer == W_CW_INT:
        return _int_column(f, into, c, m, way, <_CwInt*>NULL)
    if writer == W_BOOL:
        for k in range(m):
            start = _slot(&s, k)
            if Way is _Checked:
                w = _nulled(&s, k, start, valid, c + k + off, &local)
                if w:
                    if w < 0:
                        return -1
                    continue
            i = c + k + off
            memcpy(start, pre, 4)
            p = start + npre
            p[0] = (b_false ^ ((b_false ^ b_true) & (0 - ((values[i >> 3] >> (i & 7)) & 1)))
                    ) ^ <uint8_t>inv
            _close(&s, k, start, _end(start, p + 1, sufx, nsuf, False))
    else:
        return 0
    into.p = s.p
    return 1


# -- keys of one length: each field written in place ------------------------------------------
# When every field's piece has one length (a fixed-size writer, no NULL in its column), every
# key has one length R and field j sits at the same offset in each: a column's loop writes
# its pieces straight into the keys, R bytes apart, and no pieces are joined. Its stores are
# exact (never past the piece, unlike the other loops' 8-byte stores, which here would land
# in a neighbouring key written already); a descending piece is written inverted, not
# inverted after.


cdef int _fixed_length(const FieldC* f) noexcept nogil:
    """The length of every piece of *f* when they are all alike, else -1."""
    cdef int body
    if f.valid != NULL or f.tmul:
        return -1
    if f.writer == W_BE:
        body = f.width
    elif f.writer == W_SKV_INT:
        body = 1 + f.width
    elif f.writer == W_FLOAT:
        body = 4 if f.flags & F_FLOAT32 else 8
    elif f.writer == W_BOOL:
        body = 1
    elif f.writer == W_OB_FLT:
        body = OB_NUMBER
    else:
        return -1
    return f.npre + body + f.nsuf


cdef inline uint8_t* _put(uint8_t* p, uint32_t bytes4, int n) noexcept nogil:
    """The first *n* (<= 4) of the bytes held little-endian in *bytes4*, exactly: from a
    register (bytes kept in an array would be read again after every store through a
    ``uint8_t*``, which may alias them)."""
    cdef int k
    for k in range(n):
        p[k] = <uint8_t>(bytes4 >> (8 * k))
    return p + n


cdef inline void _be_exact(uint8_t* p, uint64_t v, int width) noexcept nogil:
    """The low *width* bytes of *v*, big-endian, exactly (one store for 1, 2, 4 or 8)."""
    cdef uint64_t w64
    cdef uint32_t w32
    cdef uint16_t w16
    cdef int k
    if width == 8:
        w64 = __builtin_bswap64(v)
        memcpy(p, &w64, 8)
    elif width == 4:
        w32 = __builtin_bswap32(<uint32_t>v)
        memcpy(p, &w32, 4)
    elif width == 2:
        w16 = __builtin_bswap16(<uint16_t>v)
        memcpy(p, &w16, 2)
    else:
        for k in range(width):
            p[k] = <uint8_t>(v >> (8 * (width - 1 - k)))


cdef int _in_place(const FieldC* f, uint8_t* out, Py_ssize_t length, Py_ssize_t at,
                   Py_ssize_t n) noexcept nogil:
    """Field *f* of rows ``0..n-1`` written at *at* in keys of *length* bytes: 0, or -1 when
    a row is declined (the caller then goes the other way). A loop per writer, every setting
    in a local."""
    cdef Py_ssize_t k, i, off = f.off
    cdef uint64_t u, neg, flipbit = 0, rbias = f.rbias, rspan = f.rspan, b64, sign
    cdef uint64_t vsigned = f.vsigned, inv = 0xFFFFFFFFFFFFFFFFULL if f.flags & F_INVERT else 0
    cdef uint64_t plus1 = (f.flags & F_PLUS1) != 0
    cdef uint32_t b32, pre = 0, suf = 0
    cdef float x32
    cdef double x
    cdef const uint8_t* values = f.values
    cdef int width = f.width, writer = f.writer, npre = f.npre, nsuf = f.nsuf, vsize = f.vsize
    cdef int k2
    cdef bint literal = f.flags & F_LITERAL, float32 = f.flags & F_FLOAT32
    cdef bint zero_up = (f.flags & F_ZERO_UP) != 0
    cdef bint src32 = f.src == S_F32
    cdef uint8_t b_false = f.b_false ^ <uint8_t>inv, b_true = f.b_true ^ <uint8_t>inv
    cdef uint8_t* p
    for k2 in range(4):
        pre |= <uint32_t>(f.pre[k2] ^ <uint8_t>inv) << (8 * k2)
        suf |= <uint32_t>(f.suf[k2] ^ <uint8_t>inv) << (8 * k2)
    if writer == W_BE:
        if f.flags & F_SIGNFLIP:
            flipbit = 1ULL << (8 * width - 1)
        for k in range(n):
            u = _int_at(values, vsize, vsigned, k + off, &neg)
            if u + rbias > rspan:
                return -1
            p = _put(out + k * length + at, pre, npre)
            _be_exact(p, (u ^ flipbit) ^ inv, width)
            _put(p + width, suf, nsuf)
    elif writer == W_SKV_INT:
        for k in range(n):
            u = _int_at(values, vsize, vsigned, k + off, &neg)
            if u + rbias > rspan:
                return -1
            p = _put(out + k * length + at, pre, npre)
            p[0] = skv_sign(neg) ^ <uint8_t>inv
            _be_exact(p + 1, skv_payload(neg, u) ^ inv, width)
            _put(p + 1 + width, suf, nsuf)
    elif writer == W_FLOAT and float32:  # _float's transform, then inverted if descending
        # (a float32 field takes only a float32 column: arrow._source_fits)
        for k in range(n):
            x32 = (<const float*>values)[k + off]
            if x32 != x32:
                return -1
            if zero_up:
                x32 = x32 + <float>0.0  # -0.0 + 0.0 is +0.0, every other value itself
            memcpy(&b32, &x32, 4)
            sign = (x32 < 0) if literal else (b32 >> 31)
            b32 = <uint32_t>raw_order(b32, sign, 4) + <uint32_t>plus1
            p = _put(out + k * length + at, pre, npre)
            _be_exact(p, b32 ^ inv, 4)
            _put(p + 4, suf, nsuf)
    elif writer == W_FLOAT:
        for k in range(n):
            if src32:  # a float32 column into a float64 field
                x = (<const float*>values)[k + off]
            else:
                x = (<const double*>values)[k + off]
            if x != x:
                return -1
            if zero_up:
                x = x + 0.0
            memcpy(&b64, &x, 8)
            sign = (x < 0) if literal else (b64 >> 63)
            b64 = raw_order(b64, sign, 8) + plus1
            p = _put(out + k * length + at, pre, npre)
            _be_exact(p, b64 ^ inv, 8)
            _put(p + 8, suf, nsuf)
    elif writer == W_OB_FLT:
        for k in range(n):
            if src32:
                x = (<const float*>values)[k + off]
            else:
                x = (<const double*>values)[k + off]
            if x != x:
                return -1
            p = _put(out + k * length + at, pre, npre)
            _ob_float(p, x)
            _put(p + OB_NUMBER, suf, nsuf)
    else:  # W_BOOL
        for k in range(n):
            i = k + off
            p = _put(out + k * length + at, pre, npre)
            p[0] = b_false ^ ((b_false ^ b_true) & (0 - ((values[i >> 3] >> (i & 7)) & 1)))
            _put(p + 1, suf, nsuf)
    return 0


cdef Py_ssize_t _all_in_place(const FieldC* fields, Py_ssize_t nf, Py_ssize_t n,
                              const uint8_t* sep4, int nsep, uint8_t* out,
                              int32_t* ends) noexcept nogil:
    """Every key written field by field in place when they all have one length: the bytes
    used, or -1 when the fields' pieces are not of one length or a row is declined."""
    cdef Py_ssize_t j, k, length = 0, at
    cdef int piece
    cdef uint32_t sep
    for j in range(nf):
        piece = _fixed_length(&fields[j])
        if piece < 0:
            return -1
        length += piece + (nsep if j else 0)
    if n and length * n > 0x7FFFFFFF:
        return -1  # beyond int32 offsets: the other way, whose caller refuses it
    at = 0
    memcpy(&sep, sep4, 4)
    for j in range(nf):
        if j and nsep:
            for k in range(n):
                _put(out + k * length + at, sep, nsep)
            at += nsep
        if _in_place(&fields[j], out, length, at, n) < 0:
            return -1
        at += _fixed_length(&fields[j])
    for k in range(n):
        ends[k + 1] = <int32_t>((k + 1) * length)
    return length * n


cdef Py_ssize_t _number_rows_of(const FieldC* fields, Py_ssize_t nf, Py_ssize_t n,
                                uint8_t* out, int32_t* ends) noexcept nogil:
    """:func:`_number_rows` when every field is an integer of one variable-length writer
    (fdb-tuple's, orderly's var-int, orderedcode's, sqlite4's) or an IEEE float, each from a column without
    NULLs, the integers without checks, prefixes or suffixes (:func:`_plain`); else -1. (Its
    caller sends only codecs without a separator.)"""
    cdef Py_ssize_t j
    cdef int writer = 0
    cdef bint floats = False
    if nf < 1 or nf > MAX_NUMBER_FIELDS:
        return -1
    for j in range(nf):
        if fields[j].writer == W_FLOAT and fields[j].valid == NULL:
            floats = True
            continue
        if not _plain(&fields[j]) or (writer and fields[j].writer != writer):
            return -1
        writer = fields[j].writer
    if floats:
        return _number_writer(fields, nf, n, out, ends, writer, <_Mixed*>NULL)
    return _number_writer(fields, nf, n, out, ends, writer, <_Ints*>NULL)


cdef Py_ssize_t _sq4_null_rows_of(const FieldC* fields, Py_ssize_t nf, Py_ssize_t n,
                                  uint8_t* out, int32_t* ends) noexcept nogil:
    """:func:`_number_rows` for sqlite4's integers with NULLs (each field as for
    :func:`_number_rows_of`, NULLs allowed: a NULL is its field's NULL piece); else -1.
    sqlite4's alone (by field its NULL column took 11.7 ns a row, this way 8.5), and apart
    from :func:`_number_rows_of`: a NULL build for every writer there (tried with the
    inlining budget of ``setup.py``) made GCC inline all the loops into that one function,
    and fdb-tuple's int32 + float64 took 7.5-10.3 ns a row instead of 6.5. The other
    codecs' NULL columns go by field, at 4-7 ns a row."""
    cdef Py_ssize_t j
    cdef FieldC f
    if nf < 1 or nf > MAX_NUMBER_FIELDS:
        return -1
    for j in range(nf):
        f = fields[j]
        f.valid = NULL
        if f.writer != W_CENT_INT or not _plain(&f):
            return -1
    return _number_rows(fields, nf, n, out, ends, <_Sq4Int*>NULL, <_Nulls*>NULL)


# the three builds of _number_rows (as for :data:`Way`): with floats, integers only, whose
# loop then tests no field's kind (sqlite4 two int64, before they had their own loop: 17.0
# ns a row with the test, 16.0 without), and integers with NULLs (sqlite4's only)
ctypedef struct _Ints:
    char unused
ctypedef struct _Mixed:
    char unused
ctypedef struct _Nulls:
    char unused
ctypedef fused Kinds:
    _Ints
    _Mixed
    _Nulls


cdef Py_ssize_t _number_writer(const FieldC* fields, Py_ssize_t nf, Py_ssize_t n,
                               uint8_t* out, int32_t* ends, int writer,
                               Kinds* kinds) noexcept nogil:
    """:func:`_number_rows` built for the integer writer *writer*."""
    if writer == W_FDB_INT:
        return _number_rows(fields, nf, n, out, ends, <_FdbInt*>NULL, kinds)
    if writer == W_VARINT:
        return _number_rows(fields, nf, n, out, ends, <_Varint*>NULL, kinds)
    if writer == W_OC_INT:
        return _number_rows(fields, nf, n, out, ends, <_OcInt*>NULL, kinds)
    if writer == W_CENT_INT:
        return _number_rows(fields, nf, n, out, ends, <_Sq4Int*>NULL, kinds)
    return -1


ctypedef struct RowField:
    # what _number_one reads of a field: its own copy (no store through a byte pointer can
    # alias it), a float's fixed bytes inverted as its bytes are
    FieldC f
    uint64_t inv
    uint8_t pre[4]
    uint8_t suf[4]
    bint isfloat


cdef Py_ssize_t _number_rows(const FieldC* fields, Py_ssize_t nf, Py_ssize_t n,
                            uint8_t* out, int32_t* ends, IntWriter* writer,
                            Kinds* kinds) noexcept nogil:
    """Each key in turn, its integers and floats one after the other: the bytes used, or -1
    when a row is declined (a NaN, fdb-tuple's ``2**64 - 1``). Where the integers' lengths
    depend on their values, a row's second field can be made while the first is stored, and
    no piece goes through the scratch (kernel alone, against the field at a time: sqlite4
    two int64 19.0 to 15.9 ns a row; fdb-tuple ``int32 + float64`` 9.9 to 6.5). Two int64
    columns into sqlite4 integers go on to a loop of their own (:func:`_sq4_pairs`)."""
    cdef Py_ssize_t j, k
    cdef uint8_t* p = out
    cdef RowField r[MAX_NUMBER_FIELDS]
    for j in range(nf):
        r[j].f = fields[j]
        r[j].inv = 0xFFFFFFFFFFFFFFFFULL if fields[j].flags & F_INVERT else 0
        r[j].isfloat = fields[j].writer == W_FLOAT
        for k in range(4):
            r[j].pre[k] = fields[j].pre[k] ^ <uint8_t>r[j].inv
            r[j].suf[k] = fields[j].suf[k] ^ <uint8_t>r[j].inv
    if (IntWriter is _Sq4Int and Kinds is _Ints and nf == 2 and r[0].f.src == S_I64
            and r[1].f.src == S_I64):
        return _sq4_pairs(r, n, out, ends)
    if nf == 2:  # the loop over the fields unrolled (sqlite4 two int64, then: 17.1 to 15.5 ns)
        for k in range(n):
            p = _number_one(p, &r[0], k, writer, kinds)
            if p != NULL:
                p = _number_one(p, &r[1], k, writer, kinds)
            if p == NULL:
                return -1
            ends[k + 1] = <int32_t>(p - out)
        return p - out
    for k in range(n):
        for j in range(nf):
            p = _number_one(p, &r[j], k, writer, kinds)
            if p == NULL:
                return -1
        ends[k + 1] = <int32_t>(p - out)
    return p - out


cdef inline uint8_t* _number_one(uint8_t* p, const RowField* r, Py_ssize_t k,
                                 IntWriter* writer, Kinds* kinds) noexcept nogil:
    """Row *k*'s value of field *r*, written at *p* (:func:`_number_rows`); NULL: declined."""
    cdef uint64_t neg, u
    cdef double x
    cdef int w
    if Kinds is _Nulls:
        w = _null_piece(r.f.valid, k + r.f.off, &r.f, p)
        if w != -1:
            return NULL if w == -2 else p + w
    if Kinds is _Mixed and r.isfloat:
        x = _float_at(&r.f, k)
        if x != x:
            return NULL
        memcpy(p, r.pre, 4)
        p = _float(&r.f, p + r.f.npre, x, r.inv)
        memcpy(p, r.suf, 4)
        return p + r.f.nsuf
    u = _int_at(r.f.values, r.f.vsize, r.f.vsigned, k + r.f.off, &neg)
    if IntWriter is _FdbInt:
        return fdb_int64(p, neg, u, r.inv)
    elif IntWriter is _Varint:
        return orderly_varint(&r.f.vt, p, neg, u, r.inv)
    elif IntWriter is _OcInt:
        return _oc_int(p, r.f.flags & F_SIGNED, neg, u, r.inv)
    else:
        return cent_int(p, <bint>neg, u, r.inv)


cdef Py_ssize_t _js_rows_of(const FieldC* fields, Py_ssize_t nf, Py_ssize_t n,
                            const uint8_t* sep4, int nsep, uint8_t* out,
                            int32_t* ends) noexcept nogil:
    """:func:`_js_rows` when every field is a JS number (ordered-binary's, bytewise's,
    charwise's: an int or a float64 field) from a column without NULLs; else -1."""
    cdef Py_ssize_t j
    cdef int w
    if nf < 1 or nf > MAX_NUMBER_FIELDS:
        return -1
    for j in range(nf):
        w = fields[j].writer
        if fields[j].valid != NULL or fields[j].tmul or not (
                w == W_OB_INT or w == W_BW_INT or w == W_CW_INT
                or w == W_OB_FLT or w == W_BW_NUM or w == W_CW_NUM):
            return -1
    for j in range(nf):
        if not (fields[j].writer == W_OB_INT and fields[j].vsize == 8 and fields[j].vsigned
                and fields[j].npre == 0 and fields[j].nsuf == 0 and nsep == 1):
            return _js_rows(fields, nf, n, sep4, nsep, out, ends)
    return _ob_int64_rows(fields, nf, n, sep4[0], out, ends)


cdef Py_ssize_t _ob_int64_rows(const FieldC* fields, Py_ssize_t nf, Py_ssize_t n,
                               uint8_t sep, uint8_t* out, int32_t* ends) noexcept nogil:
    """:func:`_js_rows` for ordered-binary keys of int64 columns alone: each column read
    as int64, no writer chosen or bytes copied around a piece per row (the generic loop's
    choices cost as much as the numbers; two int64, in turns: 7.4 -> 6.2 ns a row)."""
    cdef const int64_t* col[MAX_NUMBER_FIELDS]
    cdef uint64_t bias[MAX_NUMBER_FIELDS]
    cdef uint64_t span[MAX_NUMBER_FIELDS]
    cdef Py_ssize_t j, k
    cdef uint8_t* p = out
    cdef uint64_t u, neg
    for j in range(nf):
        col[j] = (<const int64_t*>fields[j].values) + fields[j].off
        bias[j], span[j] = fields[j].rbias, fields[j].rspan
    for k in range(n):
        for j in range(nf):
            if j:
                p[0] = sep
                p += 1
            u = <uint64_t>col[j][k]
            if u + bias[j] > span[j]:
                return -1
            neg = u >> 63
            p = _ob_int(p, neg, u)
            if p == NULL:  # the one case lmdb-js gets wrong: the row API's
                return -1
        ends[k + 1] = <int32_t>(p - out)
    return p - out


cdef Py_ssize_t _js_rows(const FieldC* fields, Py_ssize_t nf, Py_ssize_t n,
                         const uint8_t* sep4, int nsep, uint8_t* out,
                         int32_t* ends) noexcept nogil:
    """The keys of JS numbers (:func:`_js_rows_of`) a row at a time, the array's tag and end
    (the first piece's prefix, the last one's suffix) and the separators written in place:
    by field, each piece went to the scratch and was copied again (a charwise number is 45
    bytes). bytewise int32 + float64 8.0 -> 5.0 ns a row, ordered-binary two int64 12.8 ->
    8.8. The bytes used, or -1 when a row is declined (an int out of the field's range, a
    NaN, the one integer lmdb-js writes wrong: the caller goes another way, which handles
    it). Which writer a field takes is one branch per field, the same in every row."""
    cdef Py_ssize_t j, k
    cdef uint8_t* p = out
    cdef RowField r[MAX_NUMBER_FIELDS]
    cdef uint32_t sep
    cdef uint64_t u, neg
    cdef double x
    cdef const RowField* f
    memcpy(&sep, sep4, 4)
    for j in range(nf):
        r[j].f = fields[j]
        r[j].inv = 0
        r[j].isfloat = fields[j].writer >= W_FLOAT
        for k in range(4):
            r[j].pre[k] = fields[j].pre[k]
            r[j].suf[k] = fields[j].suf[k]
    for k in range(n):
        for j in range(nf):
            f = &r[j]
            if j and nsep:
                memcpy(p, &sep, 4)
                p += nsep
            memcpy(p, f.pre, 4)
            p += f.f.npre
            if f.isfloat:
                x = _float_at(&f.f, k)
                if x != x:
                    return -1
                if f.f.writer == W_CW_NUM:
                    p = cw_number(p, x)
                elif f.f.writer == W_BW_NUM:
                    p = _bw_number(p, x)
                else:
                    p = _ob_float(p, x)
            else:
                u = _int_at(f.f.values, f.f.vsize, f.f.vsigned, k + f.f.off, &neg)
                if u + f.f.rbias > f.f.rspan:
                    return -1
                if f.f.writer == W_CW_INT:
                    p = cw_int(p, <bint>neg, (u ^ (0 - neg)) + neg)
                elif f.f.writer == W_BW_INT:
                    p = bw_number(p, BW_NUMBER_NEG, BW_NUMBER_POS, <double><int64_t>u)
                else:
                    p = _ob_int(p, neg, u)
                    if p == NULL:  # the one case lmdb-js gets wrong: the row API's
                        return -1
            memcpy(p, f.suf, 4)
            p += f.f.nsuf
        ends[k + 1] = <int32_t>(p - out)
    return p - out


cdef Py_ssize_t _sq4_pairs(const RowField* r, Py_ssize_t n, uint8_t* out,
                           int32_t* ends) noexcept nogil:
    """:func:`_number_rows` for two sqlite4 integers from int64 columns, by
    :func:`_sq4_int2` (its one caller: from a second, GCC outlined it, 167 instructions a
    row). The loop holds little more than the two columns, the keys and their ends: read
    through :func:`_int_at` (each column's size and signedness tested every row), its state
    went to the stack, 153 instructions a row against 144."""
    cdef const int64_t* v0 = (<const int64_t*>r[0].f.values) + r[0].f.off
    cdef const int64_t* v1 = (<const int64_t*>r[1].f.values) + r[1].f.off
    cdef uint64_t inv0 = r[0].inv, inv1 = r[1].inv
    cdef uint8_t* p = out
    cdef Py_ssize_t k
    for k in range(n):  # v >> 63: the sign, all ones or 0
        p = cent_int2(p, <uint64_t>(v0[k] >> 63), <uint64_t>v0[k], inv0,
                      <uint64_t>(v1[k] >> 63), <uint64_t>v1[k], inv1)
        ends[k + 1] = <int32_t>(p - out)
    return p - out


cdef bint _fields_only(const FieldC* fields, Py_ssize_t nf, bint tail) noexcept:
    """Whether the field-at-a-time path takes these fields: no strings, and orderly's NULL
    rule (which looks at the later fields of a row) never dropping a piece: the last field
    descends or holds no NULL, so every row writes every field (:func:`_rows`). (A string
    in the last field, written in place by a loop of its own, measured no faster than row
    by row: TiDB's timestamp, string 13.6 against 13.3 ns a row.)"""
    cdef Py_ssize_t j
    for j in range(nf):
        if fields[j].writer == W_BYTES:
            return False
    return not (tail and nf and fields[nf - 1].valid != NULL
                and not fields[nf - 1].flags & F_INVERT)


cdef Py_ssize_t _bound(list plan, FieldC* fields, Py_ssize_t n, int nsep,
                       dict overrides) except -1:
    """Load the plan into *fields*; the data buffer's size the rows need at most: each
    field's longest piece (or NULL), a string's bytes (twice where 00 is escaped), the
    overrides, and SLACK."""
    cdef Py_ssize_t j, row_max = 0, extra = SLACK
    for j in range(len(plan)):
        _load(&fields[j], plan[j])
        row_max += max(fields[j].maxlen, fields[j].nnull) + nsep
        if fields[j].writer == W_BYTES and n:
            extra += _data_size(&fields[j], n) * (2 if fields[j].body >= B_DOUBLE else 1)
    if overrides:
        extra += sum([len(v) for v in overrides.values()])
    return n * row_max + extra


def capacity(list plan, Py_ssize_t n, bytes sep, dict overrides):
    """The size of the data buffer :func:`encode_rows` needs for these rows."""
    cdef FieldC* fields = <FieldC*>PyMem_Malloc(max(len(plan), 1) * sizeof(FieldC))
    if fields == NULL:
        raise MemoryError()
    try:
        return _bound(plan, fields, n, len(sep), overrides)
    finally:
        PyMem_Free(fields)


cdef Py_ssize_t _columns(const FieldC* fields, Py_ssize_t nf, Py_ssize_t n,
                        const uint8_t* sep4, int nsep, uint8_t* out, int32_t* ends,
                        int* plain) except -2:
    """:func:`_by_field` with its scratch memory."""
    cdef uint8_t* scratch = <uint8_t*>PyMem_Malloc(nf * CHUNK * STRIDE + nf * CHUNK)
    if scratch == NULL:
        raise MemoryError()
    try:
        return _by_field(fields, nf, n, sep4, nsep, out, ends, scratch,
                         scratch + nf * CHUNK * STRIDE, plain)
    finally:
        PyMem_Free(scratch)


def encode_rows(list plan, Py_ssize_t n, bytes sep, bint tail, uintptr_t data,
                Py_ssize_t capacity, uintptr_t offsets, dict overrides,
                Py_ssize_t max_key=0):
    """Write the keys of rows ``0..n-1`` into *data* (*capacity* bytes, at least what
    :func:`capacity` says) and their ``n + 1`` int32 ends into *offsets*. Returns (bytes
    used, declined row indices, the way taken: ``"in place"``, ``"number rows"``, ``"by
    field"`` or ``"by row"``, how many columns the loops without checks wrote, every field
    for number rows); a declined row found in *overrides* gets
    those bytes instead, and is not returned. *tail*: orderly's NULLs, *max_key*: the longest
    key a string may make (:func:`_rows`; the other ways take no strings). Past
    2 GiB the offsets wrap: the caller refuses that. (The way and the count are for the
    tests: a fast way lost shows there, not only in a benchmark.)"""
    cdef Py_ssize_t nf = len(plan), i = 0
    cdef FieldC* fields = <FieldC*>PyMem_Malloc(max(nf, 1) * sizeof(FieldC))
    cdef uint8_t* out = <uint8_t*>data
    cdef int32_t* ends = <int32_t*>offsets
    cdef uint8_t* p = out
    cdef uint8_t sep4[4]
    cdef int nsep = len(sep)
    cdef list declined = []
    cdef bytes given
    cdef Py_ssize_t used
    cdef int plain = 0
    if fields == NULL:
        raise MemoryError()
    if nsep > 4:
        raise ValueError("a separator longer than the kernel holds")
    memset(sep4, 0, 4)
    memcpy(sep4, <const char*>sep, nsep)
    try:
        if _bound(plan, fields, n, nsep, overrides) > capacity:
            raise ValueError("the data buffer is smaller than the kernel's bound")
        ends[0] = 0
        if not overrides and _fields_only(fields, nf, tail):
            used = _all_in_place(fields, nf, n, sep4, nsep, out, ends)
            if used >= 0:
                return used, declined, "in place", 0
            if not nsep:
                used = _number_rows_of(fields, nf, n, out, ends)
                if used < 0:
                    used = _sq4_null_rows_of(fields, nf, n, out, ends)
                if used >= 0:
                    return used, declined, "number rows", nf
            used = _js_rows_of(fields, nf, n, sep4, nsep, out, ends)
            if used >= 0:
                return used, declined, "number rows", nf
            used = _columns(fields, nf, n, sep4, nsep, out, ends, &plain)
            if used >= 0:
                return used, declined, "by field", plain
        while i < n:
            i = _rows(fields, nf, i, n, sep4, nsep, tail, max_key, out, &p, ends)
            if i == n:
                break
            given = overrides.get(i) if overrides is not None else None
            if given is None:
                declined.append(i)
            else:
                memcpy(p, <const char*>given, len(given))
                p += len(given)
            ends[i + 1] = <int32_t>(p - out)
            i += 1
        return p - out, declined, "by row", 0
    finally:
        PyMem_Free(fields)
