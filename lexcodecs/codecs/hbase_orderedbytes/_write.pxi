# The writers of the compiled ``hbase-orderedbytes`` codec, included by ``_compiled.pyx``
# (one extension module): numbers from decimal digits (spec §4), then each field kind.
# A writer returns 1 when it wrote the value, 0 to hand the whole key over (it never words an
# error), -1 with an exception set for a real failure (MemoryError).

# -- writing numbers (spec §4) --------------------------------------------------------------


cdef inline int put_varint(Buf *b, unsigned long long v, unsigned char m) except -1:
    """SQLite4's varint of *v*, every byte XOR *m* (the complemented forms):
    :func:`cent_varint` of ``lexcodecs/_centimal.pxi``."""
    buf_room(b, CENT_ROOM)
    b.n = cent_varint(b.p + b.n, v, m) - b.p
    return 0


cdef int write_digits(Buf *b, bint negative, const char *digits, Py_ssize_t n,
                      long long point) except -1:
    """``+-0.<digits> x 10**point`` (*digits*: ASCII, first non-zero, n >= 1): rounded
    half-up to 31 digits, trailing zeros stripped, then header, exponent and M. 1, or 0 to
    hand over (a value the reference refuses). The class is the value's before rounding, E
    the rounded value's, as HBase's: [1 - 5E-32, 1) rounds to 1 in the small class with
    E = -1, written as the varint of the unsigned 2**64 - 1 (``16 00x9 02``)."""
    cdef char d[MAX_DIGITS + 3]
    cdef bint small = point <= 0
    cdef long long e
    cdef Py_ssize_t m, i
    cdef int lead
    cdef unsigned char flip = 0xFF if negative else 0
    if n > MAX_DIGITS:
        memcpy(d + 1, digits, MAX_DIGITS)
        m = MAX_DIGITS
        if digits[MAX_DIGITS] >= 53:  # '5'
            i = MAX_DIGITS
            while i >= 1 and d[i] == 57:  # '9'
                d[i] = 48
                i -= 1
            if i < 1:
                d[1] = 49
                m = 1
                point += 1
            else:
                d[i] += 1
    else:
        memcpy(d + 1, digits, n)
        m = n
    while m > 1 and d[m] == 48:
        m -= 1
    # small: E = floor(-point / 2); -1 where the value rounded up to 1 (point 1)
    if small:
        e = (-point) >> 1 if point <= 0 else -1
    else:
        e = (point + 1) >> 1
    if e > MAX_E or point - m < MIN_EXP:
        return 0
    # d[1..m] are the digits; one leading zero aligns an odd point to a centimal digit
    lead = <int> (point & 1)
    if not small:  # E >= 1: medium or large, the class header of _centimal.pxi
        buf_room(b, CENT_ROOM)
        b.n = cent_head(b.p + b.n, negative, e, MEDIUM_MIN_E) - b.p
    elif negative:  # <unsigned long long> e: -1 is 2**64 - 1, as putVaruint64 reads it
        buf_put(b, H_NEG_SMALL)
        put_varint(b, <unsigned long long> e, 0)
    else:
        buf_put(b, H_POS_SMALL)
        put_varint(b, <unsigned long long> e, 0xFF)
    buf_room(b, (m + lead + 1) // 2)
    b.n = cent_digits(b.p + b.n, d + 1, m, lead, flip) - b.p
    return 1


cdef int write_int64(Buf *b, long long x) except -1:
    """An integer of 64 bits: the medium class (E <= 10 < 31 digits, nothing rounds), the
    same bytes as sqlite4's: :func:`cent_int` of ``lexcodecs/_centimal.pxi``."""
    buf_room(b, CENT_ROOM)
    b.n = cent_int(b.p + b.n, x < 0, <unsigned long long> x, 0) - b.p
    return 1


cdef int write_bigint(Buf *b, object v) except -1:
    """An exact int beyond 64 bits: the digits of ``str()`` (hand over past its guard)."""
    cdef bytes text
    cdef const char *s
    cdef Py_ssize_t n
    cdef bint negative
    if v.bit_length() > INT_VIA_STR_BITS:
        return 0
    text = PyObject_Str(v).encode("ascii")
    s = PyBytes_AS_STRING(text)
    n = PyBytes_GET_SIZE(text)
    negative = s[0] == 45  # '-'
    if negative:
        s += 1
        n -= 1
    return write_digits(b, negative, s, n, n)


cdef int write_double(Buf *b, double x) except -1:
    """A double through its shortest digits (``repr``, JDK 19+ ``Double.toString``)."""
    cdef char digits[32]
    cdef int point, n
    if x != x:
        buf_put(b, H_NAN)
        return 1
    if x == 0.0:
        buf_put(b, H_ZERO)
        return 1
    if isinf(x):
        buf_put(b, H_POS_INF if x > 0 else H_NEG_INF)
        return 1
    n = _shortest(x, digits, &point)
    if n == 1 and fabs(x) < DBL_MIN:  # Java writes two digits: they may differ (4.9E-324)
        return 0
    return write_digits(b, x < 0, digits, n, point)


cdef int write_decimal(Buf *b, object v) except -1:
    """An exact Decimal from its ``str()``: sign, coefficient digits, '.', 'E' exponent."""
    cdef bytes text = PyObject_Str(v).encode("ascii")
    cdef const char *s = PyBytes_AS_STRING(text)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(text), i = 0, nd = 0, frac = 0, first = -1
    cdef bint negative = False, dot = False, eneg = False
    cdef long long exponent = 0
    cdef int ed = 0
    cdef char c
    cdef Buf digits
    if n and s[0] == 45:
        negative = True
        i = 1
    buf_init(&digits)
    try:
        while i < n:
            c = s[i]
            if 48 <= c <= 57:
                if c != 48 or digits.n:
                    buf_put(&digits, <unsigned char> c)
                nd += 1
                if dot:
                    frac += 1
            elif c == 46 and not dot:
                dot = True
            else:
                break
            i += 1
        if nd == 0:
            return 0
        if i < n:
            if s[i] != 69:  # 'E' (NaN, Infinity: hand over)
                return 0
            i += 1
            if i < n and (s[i] == 43 or s[i] == 45):
                eneg = s[i] == 45
                i += 1
            if i == n:
                return 0
            while i < n:
                c = s[i]
                if not 48 <= c <= 57 or ed >= 15:
                    return 0
                exponent = 10 * exponent + (c - 48)
                ed += 1
                i += 1
            if eneg:
                exponent = -exponent
        if digits.n == 0:
            buf_put(b, H_ZERO)
            return 1
        # value = coefficient x 10**(exponent - frac); point after the significant digits
        return write_digits(b, negative, <const char *> digits.p, digits.n,
                            digits.n + exponent - frac)
    finally:
        buf_free(&digits)

# -- writing fields -------------------------------------------------------------------------


cdef inline int f32_exact(double d) noexcept:
    """Whether *d* is a binary32 value (NaN and the infinities count)."""
    if d != d or isinf(d):
        return 1
    if fabs(d) > FLT_MAX:
        return 0
    return <double> (<float> d) == d


cdef int float32_of(object v, double *out) noexcept:
    """A Float32 or a binary32-exact float: 1 and its value, else 0."""
    cdef double d
    if type(v) is Float32_t or PyFloat_CheckExact(v):
        d = PyFloat_AS_DOUBLE(v)
        if f32_exact(d):
            out[0] = d
            return 1
    return 0


cdef int write_numeric(Buf *b, const FieldSpec *f, object v) except -1:
    cdef long long x
    cdef double d
    cdef int kind = f.kind
    if kind == KIND_NUM_FLOAT64:
        if not PyFloat_CheckExact(v):
            return 0
        return write_double(b, PyFloat_AS_DOUBLE(v))
    if kind == KIND_NUM_FLOAT32:
        if not float32_of(v, &d):
            return 0
        return write_double(b, d)
    if PyLong_CheckExact(v):
        if int64_of(v, &x):
            return write_int64(b, x)
        if kind == KIND_NUM_INT64:
            return 0
        return write_bigint(b, v)
    if kind != KIND_DECIMAL:
        return 0
    if type(v) is Decimal_t:
        return write_decimal(b, v)
    if PyFloat_CheckExact(v) or type(v) is Float32_t:
        return write_double(b, PyFloat_AS_DOUBLE(v))
    return 0


cdef int bytes_of(object v, const unsigned char **s, Py_ssize_t *n) noexcept:
    if PyBytes_CheckExact(v):
        s[0] = <const unsigned char *> PyBytes_AS_STRING(v)
        n[0] = PyBytes_GET_SIZE(v)
        return 1
    if PyByteArray_CheckExact(v):
        s[0] = <const unsigned char *> PyByteArray_AS_STRING(v)
        n[0] = PyByteArray_GET_SIZE(v)
        return 1
    return 0


cdef int put_blob_var(Buf *b, const unsigned char *s, Py_ssize_t n) except -1:
    """The 7-bit groups of *s*: ``80|g`` each, the last with bit 7 clear; ``00`` if empty
    (``_layout.pxi``'s :func:`hbase_blob_var`)."""
    buf_room(b, (8 * n + 6) // 7 + 1 + SLACK)
    b.n = hbase_blob_var(b.p + b.n, s, n) - b.p
    return 0


cdef int write_field(Buf *b, const FieldSpec *f, object v) except -1:
    """Write *v* as field *f*: NULL, or the value (inverted when descending). 1 when
    written, 0 to hand the key over."""
    cdef Py_ssize_t start = b.n, n
    cdef const unsigned char *s
    cdef long long x
    cdef double d
    cdef float g
    cdef unsigned int g_bits
    cdef unsigned long long u
    cdef int kind = f.kind
    if v is None:
        if not f.nullable:
            return 0
        buf_put(b, H_NULL ^ f.mask)
        if kind == KIND_BLOB_COPY and f.mask:
            buf_put(b, 0xFF)
        return 1
    if kind <= KIND_NUM_FLOAT32:
        if not write_numeric(b, f, v):
            return 0
    elif kind == KIND_FIXED_INT:
        if not int64_of(v, &x) or x < f.lo or x > f.hi:
            return 0
        buf_put(b, f.header)
        buf_put_be(b, <unsigned long long> x - <unsigned long long> f.lo, f.width)
    elif kind == KIND_FIXED_FLOAT:
        if f.width == 8:
            if not PyFloat_CheckExact(v):
                return 0
            d = PyFloat_AS_DOUBLE(v)
            u = order_bits(0x7FF8000000000000ULL if d != d else double_bits(d), 8)
        else:
            if not float32_of(v, &d):
                return 0
            if d != d:
                u = order_bits(0x7FC00000ULL, 4)
            else:
                g = <float> d
                memcpy(&g_bits, &g, 4)
                u = order_bits(g_bits, 4)
        buf_put(b, f.header)
        buf_put_be(b, u, f.width)
    elif kind == KIND_STRING:
        if not PyUnicode_CheckExact(v) or not utf8_of(v, &s, &n):
            return 0
        if raw_has00(s, n):
            return 0
        buf_put(b, H_TEXT)
        buf_put_n(b, s, n)
        buf_put(b, 0x00)
    elif kind == KIND_BLOB_VAR:
        if not bytes_of(v, &s, &n):
            return 0
        buf_put(b, H_BLOB_VAR)
        put_blob_var(b, s, n)
    else:
        if not bytes_of(v, &s, &n):
            return 0
        buf_put(b, H_BLOB_COPY)
        if f.mask:
            if raw_has00(s, n):
                return 0
            buf_put_n(b, s, n)
            buf_put(b, 0x00)
        else:
            buf_put_n(b, s, n)
    if f.mask:
        buf_invert(b, start)
    return 1
