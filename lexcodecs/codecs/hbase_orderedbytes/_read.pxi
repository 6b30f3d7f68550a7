# The readers of the compiled ``hbase-orderedbytes`` codec, included by ``_compiled.pyx``
# (one extension module): numbers (header, canonical varint, M, then the field kind's value),
# then each field kind. A reader returns the value, or ``HANDOVER`` for bytes that are not
# well formed or not canonical (the reference then words the error).

# -- reading numbers ------------------------------------------------------------------------


cdef int read_varint(const unsigned char *p, Py_ssize_t n, Py_ssize_t *at, unsigned char m,
                     long long *out) noexcept:
    """The canonical varint at ``at[0]`` (each byte XOR *m*), at most MAX_E: 1, else 0
    (``lexcodecs/_centimal.pxi``'s reader)."""
    cdef unsigned long long v
    cdef Py_ssize_t length = cent_varint_read(p + at[0], n - at[0], m, &v)
    if length == 0 or v > <unsigned long long> MAX_E:
        return 0
    out[0] = <long long> v
    at[0] += length
    return 1


cdef int is_u64_max(const unsigned char *p, Py_ssize_t n, Py_ssize_t pos,
                    unsigned char m) noexcept:
    """Whether the 9 bytes at *pos* (each XOR *m*) are ff x 9: the varint of 2**64 - 1, the
    E = -1 of HBase's key of a value below 1 rounded up to 1 (format.ONE_FROM_BELOW_E)."""
    cdef Py_ssize_t i
    if pos + 9 > n:
        return 0
    for i in range(9):
        if (p[pos + i] ^ m) != 0xFF:
            return 0
    return 1


cdef double digits_double(const char *s, int nd, long long exponent, bint negative):
    """``+-int(s[:nd]) * 10**exponent`` correctly rounded (BigDecimal.doubleValue())."""
    cdef char text[64]
    cdef double x
    cdef unsigned long long u = 0
    cdef int i
    if exponent + nd > 400:
        return -INF_ if negative else INF_
    if exponent + nd < -400:
        return -0.0 if negative else 0.0
    if nd <= 15 and -22 <= exponent <= 22:  # exact operands: one correctly rounded op
        for i in range(nd):
            u = 10 * u + <unsigned long long> (s[i] - 48)
        x = <double> u
        x = x * POW10[exponent] if exponent >= 0 else x / POW10[-exponent]
    else:
        memcpy(text, s, nd)
        text[nd] = 101  # 'e'
        i = nd + 1 + snprintf_ll(text + nd + 1, exponent)
        text[i] = 0
        x = PyOS_string_to_double(text, NULL, NULL)
    return -x if negative else x


cdef int snprintf_ll(char *out, long long v) noexcept:
    """The decimal text of *v* (|v| < 10**10 here) at *out*; its length."""
    cdef char tmp[24]
    cdef int n = 0, k = 0
    cdef unsigned long long u
    if v < 0:
        out[k] = 45
        k += 1
        u = <unsigned long long> (-v)
    else:
        u = <unsigned long long> v
    while True:
        tmp[n] = <char> (48 + u % 10)
        n += 1
        u //= 10
        if u == 0:
            break
    while n:
        n -= 1
        out[k] = tmp[n]
        k += 1
    return k


cdef object read_number(const FieldSpec *f, unsigned char h, const unsigned char *p,
                        Py_ssize_t n, Py_ssize_t *at):
    """The number whose ascending header *h* is at ``at[0]``, as the field's kind reads it."""
    cdef Py_ssize_t pos = at[0] + 1, i, start
    cdef unsigned char m = f.mask, mm, c
    cdef bint negative, large
    cdef long long e, exponent
    cdef char digits[40]
    cdef char text[80]
    cdef int nd = 0, full, lead = 0, k
    cdef long long ival
    cdef unsigned long long u
    cdef int kind = f.kind
    cdef double x
    cdef object value
    if h == H_ZERO or h == H_NAN or h == H_POS_INF or h == H_NEG_INF:
        at[0] = pos
        if kind == KIND_NUM_FLOAT64 or kind == KIND_NUM_FLOAT32:
            x = 0.0 if h == H_ZERO else NAN_ if h == H_NAN else INF_ if h == H_POS_INF else -INF_
            return PyFloat_FromDouble(x) if kind == KIND_NUM_FLOAT64 else Float32_t(x)
        if h == H_ZERO:
            return 0 if kind != KIND_DECIMAL else DECIMAL_ZERO
        if kind != KIND_DECIMAL:
            return HANDOVER
        return PyFloat_FromDouble(NAN_ if h == H_NAN else INF_ if h == H_POS_INF else -INF_)
    negative = h < H_ZERO
    if H_POS_MEDIUM < h <= H_POS_MEDIUM + MEDIUM_MAX_E:
        e, large = h - H_POS_MEDIUM, True
    elif H_NEG_MEDIUM - MEDIUM_MAX_E <= h < H_NEG_MEDIUM:
        e, large = H_NEG_MEDIUM - h, True
    elif h == H_POS_LARGE or h == H_NEG_LARGE or h == H_POS_SMALL or h == H_NEG_SMALL:
        large = h == H_POS_LARGE or h == H_NEG_LARGE
        mm = m ^ (0xFF if h == H_NEG_LARGE or h == H_POS_SMALL else 0)
        if not large and is_u64_max(p, n, pos, mm):
            e = -1  # then M must be 01 alone (checked below)
            pos += 9
        elif not read_varint(p, n, &pos, mm, &e):
            return HANDOVER
        if large and e <= MEDIUM_MAX_E:
            return HANDOVER
    else:
        return HANDOVER
    # M: centimal digits 2d+1, the last 2d; at most 16 bytes hold 31 significant digits
    mm = m ^ (0xFF if negative else 0)
    start = pos
    while True:
        if pos >= n or pos - start >= 17:
            return HANDOVER
        c = p[pos] ^ mm
        if c > 0xC7:
            return HANDOVER
        digits[2 * (pos - start)] = <char> (48 + (c >> 1) // 10)
        digits[2 * (pos - start) + 1] = <char> (48 + (c >> 1) % 10)
        pos += 1
        if not c & 1:
            break
    if (p[start] ^ mm) < 2 or c == 0:
        return HANDOVER
    if e < 0 and (pos - start != 1 or c != 2):  # after E = -1 HBase writes M = 01 only
        return HANDOVER
    full = <int> (2 * (pos - start))
    while digits[full - 1] == 48:
        full -= 1
    if digits[0] == 48:
        lead = 1
    nd = full - lead
    if nd > MAX_DIGITS:
        return HANDOVER
    exponent = (2 * e if large else -2 * e) - full
    if exponent < MIN_EXP:
        return HANDOVER
    at[0] = pos
    if kind == KIND_NUM_FLOAT64:
        return PyFloat_FromDouble(digits_double(digits + lead, nd, exponent, negative))
    if kind == KIND_NUM_FLOAT32:
        return Float32_t(digits_double(digits + lead, nd, exponent, negative))
    if kind == KIND_DECIMAL:
        k = 0
        if negative:
            text[0] = 45
            k = 1
        memcpy(text + k, digits + lead, nd)
        k += nd
        text[k] = 69  # 'E'
        k += 1
        k += snprintf_ll(text + k, exponent)
        return Decimal_t(PyUnicode_DecodeUTF8(text, k, NULL))
    # an int64 or int field: an integer only
    if exponent < 0:
        return HANDOVER
    if nd + exponent <= 19:  # below 10**19 < 2**64
        u = 0
        for i in range(nd):
            u = 10 * u + <unsigned long long> (digits[lead + i] - 48)
        for i in range(exponent):
            u *= 10
        if u <= 0x7FFFFFFFFFFFFFFFULL:
            ival = <long long> u
            return PyLong_FromLongLong(-ival if negative else ival)
        if negative and u == 0x8000000000000000ULL:
            ival = <long long> (u - 1)
            return PyLong_FromLongLong(-ival - 1)
    if nd + exponent > MAX_INT_DIGITS:
        return HANDOVER
    value = int(PyUnicode_DecodeUTF8(digits + lead, nd, NULL)) * TEN ** PyLong_FromLongLong(
        exponent)
    if negative:
        value = -value
    if kind == KIND_NUM_INT64 and not INT64_MIN <= value <= INT64_MAX:
        return HANDOVER
    return value

# -- reading fields -------------------------------------------------------------------------


cdef object new_float32(double value, unsigned long long bits):
    """``Float32.from_bits(bits)`` without the Python call (as skv's engine builds it)."""
    cdef object out = PyType_GenericAlloc(<PyTypeObject *> Float32_t, 0)
    (<PyFloatObject *> out).ob_fval = value
    out.bits = bits
    return out


cdef object inverted_bytes(const unsigned char *s, Py_ssize_t n, unsigned char m):
    cdef object out = PyBytes_FromStringAndSize(NULL, n)
    cdef unsigned char *q = <unsigned char *> PyBytes_AS_STRING(out)
    cdef Py_ssize_t i
    for i in range(n):
        q[i] = s[i] ^ m
    return out


cdef object read_text(const unsigned char *p, Py_ssize_t n, Py_ssize_t *at, unsigned char m):
    cdef Py_ssize_t start = at[0] + 1, end
    cdef const unsigned char *q = <const unsigned char *> memchr(p + start, m, n - start)
    cdef object raw
    if q == NULL:
        return HANDOVER
    end = q - p
    try:
        if m:
            raw = inverted_bytes(p + start, end - start, m)
            value = PyUnicode_DecodeUTF8(PyBytes_AS_STRING(raw), end - start, NULL)
        else:
            value = PyUnicode_DecodeUTF8(<const char *> p + start, end - start, NULL)
    except UnicodeDecodeError:
        return HANDOVER
    at[0] = end + 1
    return value


cdef object read_blob_var(const unsigned char *p, Py_ssize_t n, Py_ssize_t *at,
                          unsigned char m):
    cdef Py_ssize_t start = at[0] + 1, i, groups, size, k = 0
    cdef unsigned int acc = 0
    cdef int bits = 0
    cdef object out
    cdef unsigned char *q
    i = start
    while i < n and (p[i] ^ m) & 0x80:
        i += 1
    if i >= n:
        return HANDOVER
    groups = i - start + 1
    size = 7 * groups // 8
    if size == 0:
        if (p[start] ^ m) != 0:
            return HANDOVER
        at[0] = start + 1
        return b""
    if (8 * size + 6) // 7 != groups:
        return HANDOVER
    out = PyBytes_FromStringAndSize(NULL, size)
    q = <unsigned char *> PyBytes_AS_STRING(out)
    for i in range(start, start + groups):
        acc = ((acc << 7) | ((p[i] ^ m) & 0x7F)) & 0x7FFF
        bits += 7
        if bits >= 8 and k < size:
            bits -= 8
            q[k] = <unsigned char> (acc >> bits)
            k += 1
    if acc & ((1U << bits) - 1):  # padding bits
        return HANDOVER
    at[0] = start + groups
    return out


cdef object read_field(const FieldSpec *f, const unsigned char *p, Py_ssize_t n,
                       Py_ssize_t *at):
    """Field *f* at ``at[0]``: None for NULL, else its value; ``HANDOVER`` when the bytes are
    not well formed or not canonical."""
    cdef Py_ssize_t pos = at[0], end
    cdef unsigned char m = f.mask, h
    cdef unsigned long long u
    cdef unsigned int g_bits
    cdef float g
    cdef int kind = f.kind
    cdef const unsigned char *q
    if pos >= n:
        return HANDOVER
    h = p[pos] ^ m
    if h == H_NULL:
        if not f.nullable:
            return HANDOVER
        if kind == KIND_BLOB_COPY and m:
            if pos + 1 >= n or p[pos + 1] != 0xFF:
                return HANDOVER
            at[0] = pos + 2
            return None
        at[0] = pos + 1
        return None
    if kind <= KIND_NUM_FLOAT32:
        return read_number(f, h, p, n, at)
    if kind == KIND_FIXED_INT or kind == KIND_FIXED_FLOAT:
        end = pos + 1 + f.width
        if h != f.header or end > n:
            return HANDOVER
        u = get_be(p + pos + 1, f.width, m)
        at[0] = end
        if kind == KIND_FIXED_INT:
            return PyLong_FromLongLong(<long long> (u + <unsigned long long> f.lo))
        u = unorder_bits(u, f.width)
        if f.width == 8:
            if (u & 0x7FF0000000000000ULL) == 0x7FF0000000000000ULL and \
                    (u & 0x000FFFFFFFFFFFFFULL) and u != 0x7FF8000000000000ULL:
                return HANDOVER
            return PyFloat_FromDouble(bits_double(u))
        if (u & 0x7F800000ULL) == 0x7F800000ULL and (u & 0x007FFFFFULL) and \
                u != 0x7FC00000ULL:
            return HANDOVER
        g_bits = <unsigned int> u
        memcpy(&g, &g_bits, 4)
        return new_float32(<double> g, u)
    if kind == KIND_STRING:
        if h != H_TEXT:
            return HANDOVER
        return read_text(p, n, at, m)
    if kind == KIND_BLOB_VAR:
        if h != H_BLOB_VAR:
            return HANDOVER
        return read_blob_var(p, n, at, m)
    if h != H_BLOB_COPY:
        return HANDOVER
    if not m:
        at[0] = n
        return PyBytes_FromStringAndSize(<const char *> p + pos + 1, n - pos - 1)
    q = <const unsigned char *> memchr(p + pos + 1, 0xFF, n - pos - 1)
    if q == NULL or q - p != n - 1:
        return HANDOVER
    at[0] = n
    return inverted_bytes(p + pos + 1, n - pos - 2, 0xFF)
