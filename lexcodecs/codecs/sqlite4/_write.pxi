# The writers of the compiled sqlite4 codec, included by _compiled.pyx (one module, three
# files, so that none is over ~600 lines). Each writer returns 1 when it wrote the value, 0
# to hand the whole key to the reference (nothing written that matters: the key is dropped),
# -1 with an exception for a real failure (MemoryError).

# -- writing --------------------------------------------------------------------------------

# The number's layout (class byte, exponent varint, centimal digits) is lexcodecs/_centimal.pxi,
# shared with hbase-orderedbytes and the columnar kernel: these wrappers give it room in the Buf.

cdef inline int put_header(Buf *b, bint neg, long long e) except -1:
    """The class byte of +-0.M x 100**e, and its exponent varint (large and small)."""
    buf_room(b, CENT_ROOM)
    b.n = cent_head(b.p + b.n, neg, e, MEDIUM_MIN_E) - b.p
    return 0


cdef inline int put_i64(Buf *b, bint neg, unsigned long long u) except -1:
    """An integer of 64 bits, *u* its two's complement (*neg*: it is negative): its
    centimal digits by :func:`cent_int`."""
    buf_room(b, CENT_ROOM)
    b.n = cent_int(b.p + b.n, neg, u, 0) - b.p
    return 1


cdef int put_digits(Buf *b, bint neg, const char *digits, Py_ssize_t nd,
                    long long point) except -1:
    """+-0.<digits> x 10**point: *nd* >= 1 ASCII digits, the first and last not 0."""
    cdef int lead = <int> (point & 1)       # align the point to a centimal digit
    put_header(b, neg, (point + lead) // 2)
    buf_room(b, (nd + lead + 1) // 2)
    b.n = cent_digits(b.p + b.n, digits, nd, lead, 0xFF if neg else 0) - b.p
    return 1


cdef int put_int(Buf *b, object v) except -1:
    """An exact int: 1, or 0 to hand over (more than 10,000 digits)."""
    cdef int overflow = 0
    cdef long long x
    cdef unsigned long long u
    x = PyLong_AsLongLongAndOverflow(v, &overflow)
    if overflow == 0:
        return put_i64(b, x < 0, <unsigned long long> x)
    if overflow > 0 and uint64_of(v, &u):
        return put_i64(b, 0, u)
    return put_big_int(b, v, overflow < 0)


cdef int put_big_int(Buf *b, object v, bint neg) except -1:
    """Beyond 64 bits: the digits of ``str()``, or of ``str(Decimal())`` past Python's
    4300-digit guard, as the reference reads them (reference_encode.int_digits)."""
    cdef object magnitude = -v if neg else v
    cdef object text
    cdef Py_ssize_t bits = magnitude.bit_length()
    cdef const unsigned char *s
    cdef Py_ssize_t n, nd
    try:
        if bits <= INT_VIA_STR_BITS:
            text = PyObject_Str(magnitude)
        elif bits <= INT_VIA_DECIMAL_BITS:
            text = PyObject_Str(Decimal(magnitude))
        else:
            return 0
    except Exception:  # a lowered sys.set_int_max_str_digits: the reference decides
        return 0
    if not utf8_of(text, &s, &n) or n > MAX_INT_DIGITS:
        return 0
    nd = n
    while s[nd - 1] == 48:
        nd -= 1
    return put_digits(b, neg, <const char *> s, nd, n)


cdef int put_float(Buf *b, double x) except -1:
    """A float as the decimal of its shortest repr (spec §11): Ryu's digits, the number by
    ``_layout.pxi``'s :func:`sq4_number` (a NaN is its own header)."""
    if x != x:
        buf_put(b, H_NAN)
        return 1
    buf_room(b, CENT_ROOM)
    b.n = sq4_number(b.p + b.n, x) - b.p
    return 1


cdef int put_int_as_float(Buf *b, object v) except -1:
    """An exact int in a float64 field: written as the float it equals, when one does."""
    cdef long long x
    cdef double d
    if int64_of(v, &x):
        d = <double> x
        if d >= 9223372036854775808.0 or <long long> d != x:
            return 0
        return put_float(b, d)
    try:
        d = PyLong_AsDouble(v)
        if PyLong_FromDouble(d) != v:
            return 0
    except Exception:  # OverflowError: no float holds it; the reference says so
        return 0
    return put_float(b, d)


cdef int put_decimal(Buf *b, object v) except -1:
    """An exact Decimal from its to-scientific-string: sign, coefficient digits, exponent."""
    cdef object text = PyObject_Str(v)
    cdef const unsigned char *s
    cdef Py_ssize_t n, i = 0, start, nd, frac = 0, lead, k
    cdef bint neg = 0, exp_neg = 0, seen_point = 0
    cdef long long exponent = 0, point
    cdef char small[64]
    cdef char *digits = small
    cdef int r
    if not utf8_of(text, &s, &n) or n == 0:
        return 0
    if s[0] == 45:
        neg = 1
        i = 1
    if i >= n:
        return 0
    if s[i] == 73:  # 'I'nfinity
        buf_put(b, H_NEG_INF if neg else H_POS_INF)
        return 1
    if s[i] == 78:  # 'N'aN; a payload ("NaN12") is refused by the reference
        if n - i != 3:
            return 0
        buf_put(b, H_NAN)
        return 1
    if not (48 <= s[i] <= 57):  # sNaN
        return 0
    # the coefficient: digits with at most one '.', copied without it
    if n > 64:
        digits = <char *> PyMem_Malloc(n)
        if digits == NULL:
            raise MemoryError()
    try:
        nd = 0
        while i < n and (48 <= s[i] <= 57 or s[i] == 46):
            if s[i] == 46:
                seen_point = 1
            else:
                digits[nd] = <char> s[i]
                nd += 1
                if seen_point:
                    frac += 1
            i += 1
        if i < n:  # E+x / e-x
            i += 1
            if i < n and (s[i] == 43 or s[i] == 45):
                exp_neg = s[i] == 45
                i += 1
            if i >= n:
                return 0
            while i < n:
                if exponent > 922337203685477579:  # beyond any Decimal's; never overflow
                    return 0
                exponent = 10 * exponent + (s[i] - 48)
                i += 1
            if exp_neg:
                exponent = -exponent
        lead = 0
        while lead < nd and digits[lead] == 48:
            lead += 1
        if lead == nd:
            buf_put(b, H_ZERO)
            return 1
        point = (nd - lead) + exponent - frac   # the reference: len(digits) + exponent
        k = nd
        while digits[k - 1] == 48:
            k -= 1
        return put_digits(b, neg, digits + lead, k - lead, point)
    finally:
        if digits != small:
            PyMem_Free(digits)


cdef int put_binary_body(Buf *b, const unsigned char *s, Py_ssize_t n) except -1:
    """The 7-bit groups of *s*, high bit set (``_raw.pxd``'s :c:func:`raw_seven`), then
    ``00``."""
    buf_room(b, (8 * n + 6) // 7 + 1 + SLACK)
    b.n = raw_seven(b.p + b.n, s, n) - b.p
    b.p[b.n] = 0
    b.n += 1
    return 0


cdef inline int bytes_of(object v, const unsigned char **s, Py_ssize_t *n) noexcept:
    """An exact bytes or bytearray: 1 and its buffer, else 0."""
    if PyBytes_CheckExact(v):
        s[0] = <const unsigned char *> PyBytes_AS_STRING(v)
        n[0] = PyBytes_GET_SIZE(v)
        return 1
    if PyByteArray_CheckExact(v):
        s[0] = <const unsigned char *> PyByteArray_AS_STRING(v)
        n[0] = PyByteArray_GET_SIZE(v)
        return 1
    return 0


cdef int put_text(Buf *b, object v) except -1:
    cdef const unsigned char *s
    cdef Py_ssize_t n
    if not PyUnicode_CheckExact(v) or not utf8_of(v, &s, &n):
        return 0
    if raw_has00(s, n):  # U+0000 is refused
        return 0
    buf_put(b, H_TEXT)
    buf_put_n(b, s, n)
    buf_put(b, 0)
    return 1


cdef int put_value(Buf *b, object v, FieldC *f) except -1:
    """One value of field *f*, ascending: 1 written, 0 hand over."""
    cdef const unsigned char *s
    cdef Py_ssize_t n
    cdef long long x
    cdef unsigned long long u
    cdef int kind = f.kind
    if v is None:
        buf_put(b, H_NULL)
        return 1
    if kind == K_INT:
        if not PyLong_CheckExact(v):
            return 0
        if not f.bounded:
            return put_int(b, v)
        if int64_of(v, &x):
            if x < f.lo or (x > 0 and <unsigned long long> x > f.hi):
                return 0
            return put_i64(b, x < 0, <unsigned long long> x)
        if uint64_of(v, &u) and u <= f.hi:
            return put_i64(b, 0, u)
        return 0
    if kind == K_STRING:
        return put_text(b, v)
    if kind == K_FLOAT64:
        if PyFloat_CheckExact(v):
            return put_float(b, PyFloat_AS_DOUBLE(v))
        if PyLong_CheckExact(v):
            return put_int_as_float(b, v)
        return 0
    if kind == K_DECIMAL or kind == K_ANY:
        if PyLong_CheckExact(v):
            return put_int(b, v)
        if PyFloat_CheckExact(v):
            return put_float(b, PyFloat_AS_DOUBLE(v))
        if type(v) is Decimal:
            return put_decimal(b, v)
        if kind == K_DECIMAL:
            return 0
        if PyUnicode_CheckExact(v):
            return put_text(b, v)
        kind = K_BYTES
    if kind == K_BYTES:
        if not bytes_of(v, &s, &n):
            return 0
        buf_put(b, H_BINARY)
        put_binary_body(b, s, n)
        return 1
    if kind == K_FINAL:
        if not bytes_of(v, &s, &n):
            return 0
        buf_put(b, H_FINAL)
        buf_put_n(b, s, n)
        return 1
    return 0


cdef bytes encode_key(FieldC *fields, Py_ssize_t count, bytes prefix, tuple values,
                      bint schemaless):
    """The key of *values*, or None to hand over."""
    cdef Buf b
    cdef Py_ssize_t i, start
    cdef FieldC *f
    buf_init(&b)
    try:
        buf_put_n(&b, <const unsigned char *> PyBytes_AS_STRING(prefix),
                  PyBytes_GET_SIZE(prefix))
        for i in range(PyTuple_GET_SIZE(values)):
            f = fields if schemaless else fields + i
            start = b.n
            if not put_value(&b, <object> PyTuple_GET_ITEM(values, i), f):
                return None
            if f.mask:
                buf_invert(&b, start)
        return buf_bytes(&b)
    finally:
        buf_free(&b)
