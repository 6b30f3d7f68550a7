# The writers of the compiled orderly encoder, included by _compiled.pyx (which see).
#
# Each writer puts the *ascending* form of one value into the Buf and returns 1, or returns 0
# (nothing to undo: the whole key is handed to the reference code) for a value it does not
# take as its own. The caller inverts a descending field afterwards.

# -- the field writers -----------------------------------------------------------------------


cdef int put_varint(Buf *b, const Spec *f, object v) except -1:
    """A var-int (spec §5): ``_layout.pxi``'s :func:`orderly_varint_r`, by the field's
    tables."""
    cdef long long x
    cdef unsigned long long ux
    cdef bint neg = False
    cdef unsigned char *end
    if f.lay.signed_:
        if not int64_of(v, &x) or x < f.lay.lo or x > f.lay.hi:
            return 0
        ux, neg = <unsigned long long> x, x < 0
    elif not uint64_of(v, &ux) or ux > f.lay.uhi:
        return 0
    buf_room(b, ORDERLY_VARINT_MAX + SLACK)
    end = orderly_varint_r(&f.vt, b.p + b.n, neg, ux, 0, f.r, f.v)
    if end == NULL:
        return 0
    b.n = end - b.p
    return 1


cdef int put_fixed_int(Buf *b, const Spec *f, object v) except -1:
    cdef long long x
    cdef unsigned long long ux
    if f.signed_:
        if not int64_of(v, &x) or x < f.lo or x > f.hi:
            return 0
        ux = (<unsigned long long> x) ^ (1ULL << (8 * f.width - 1))  # + 2**(n-1)
    else:
        if not uint64_of(v, &ux) or ux > f.uhi:
            return 0
    buf_put_be(b, ux, f.width)
    return 1


cdef int put_float(Buf *b, const Spec *f, object v) except -1:
    cdef double x
    cdef float x32
    cdef unsigned int b32
    cdef unsigned long long bits
    if f.width == 8:
        if not PyFloat_CheckExact(v):
            return 0
        x = PyFloat_AS_DOUBLE(v)
        bits = f.nan if x != x else double_bits(x)
    else:
        # a Float32 through its float value (never its bits slot), or a binary32-exact float
        if not PyFloat_CheckExact(v) and type(v) is not _Float32:
            return 0
        x = PyFloat_AS_DOUBLE(v)
        if x != x:
            bits = f.nan
        else:
            x32 = <float> x
            if <double> x32 != x:
                return 0
            memcpy(&b32, &x32, 4)
            bits = b32
    bits = order_bits(bits, f.width) + 1
    buf_put_be(b, bits, f.width)
    return 1


cdef int put_string(Buf *b, const Spec *f, object v, bint t) except -1:
    """A string (spec §9): ``_layout.pxi``'s :func:`orderly_plus2`, then the terminator."""
    cdef const unsigned char *s
    cdef Py_ssize_t n
    if not PyUnicode_CheckExact(v) or not utf8_of(v, &s, &n):
        return 0
    if b.n + n + 1 > b.cap:
        buf_grow(b, n + 1)
    b.n = orderly_plus2(b.p + b.n, s, n) - b.p
    if t or n == 0:
        b.p[b.n] = 1
        b.n += 1
    return 1




cdef int put_fixed_bytes(Buf *b, const Spec *f, object v) except -1:
    cdef const unsigned char *s
    cdef Py_ssize_t n
    if not bytes_of(v, &s, &n) or n != f.n:
        return 0
    buf_put_n(b, s, n)
    return 1


cdef int put_var_bytes(Buf *b, const Spec *f, object v, bint t) except -1:
    """Variable-length bytes (spec §10.2): the raw prefix, then ``_layout.pxi``'s
    :func:`orderly_bcd`."""
    cdef const unsigned char *s
    cdef Py_ssize_t n, m
    if not bytes_of(v, &s, &n) or n < f.n:
        return 0
    m = n - f.n
    buf_room(b, f.n + orderly_bcd_length(3 * m, t) + SLACK)
    memcpy(b.p + b.n, s, f.n)
    b.n = orderly_bcd(b.p + b.n + f.n, s + f.n, m, t) - b.p
    return 1


cdef int put_decimal_digits(Buf *b, const char *s, Py_ssize_t first, Py_ssize_t last,
                            Py_ssize_t nd, bint neg, long long exponent, bint t) except -1:
    """A non-zero decimal: the digits ``s[first..last]`` (a '.' among them is skipped), *nd*
    of them, none a leading or trailing zero, times 10**exponent (spec §8)."""
    cdef unsigned char m = 0xFF if neg else 0
    cdef unsigned char head[ORDERLY_VARINT_MAX + SLACK]
    cdef unsigned char *end
    cdef long long adjusted
    cdef int length, hi = -1
    cdef Py_ssize_t i
    cdef char c
    if exponent < DEC_EXP_MIN or exponent > DEC_EXP_MAX:
        return 0
    if exponent == DEC_EXP_MAX:  # Java: -scale overflows to -2**31
        exponent = -2147483648
    adjusted = nd + exponent - 1
    end = orderly_varint_r(&_EXPONENT_VT, head, adjusted < 0, <unsigned long long> adjusted, m,
                           2, DEC_NEG if neg else DEC_POS)
    if end == NULL or end - head > DEC_EXP_MAX_LENGTH:
        return 0
    length = <int> (end - head)
    if b.n + length + nd // 2 + 2 > b.cap:
        buf_grow(b, length + nd // 2 + 2)
    memcpy(b.p + b.n, head, length)
    b.n += length
    for i in range(first, last + 1):
        c = s[i]
        if c == b'.':
            continue
        if hi < 0:
            hi = c - 0x30 + 1
        else:
            b.p[b.n] = <unsigned char> ((hi << 4) | (c - 0x30 + 1)) ^ m
            b.n += 1
            hi = -1
    if hi >= 0:  # odd: the terminator nibble shares the last byte
        b.p[b.n] = <unsigned char> (hi << 4) ^ m
        b.n += 1
    elif t:
        b.p[b.n] = m
        b.n += 1
    return 1


cdef int put_decimal_zero(Buf *b) except -1:
    buf_put(b, DEC_ZERO << 6)
    return 1


cdef int put_decimal_int(Buf *b, long long x, bint t) except -1:
    cdef char digits[24]
    cdef unsigned long long mag = (0ULL - <unsigned long long> x) if x < 0 else <unsigned long long> x
    cdef int i = 24, trailing = 0
    if mag == 0:
        return put_decimal_zero(b)
    while mag % 10 == 0:
        mag //= 10
        trailing += 1
    while mag:
        i -= 1
        digits[i] = <char> (0x30 + mag % 10)
        mag //= 10
    return put_decimal_digits(b, digits, i, 23, 24 - i, x < 0, trailing, t)


cdef int put_decimal_text(Buf *b, const char *s, Py_ssize_t n, bint t) except -1:
    """A decimal from ``str(Decimal)``: ``[-]digits[.digits][E[+-]digits]``; anything else
    (NaN, Infinity) is handed over."""
    cdef Py_ssize_t i = 0, cstart, cend, dot = -1, first = -1, last = -1, nd = 0, frac = 0
    cdef Py_ssize_t trailing = 0, edigits = 0
    cdef long long e = 0, esign = 1
    cdef bint neg = False
    cdef char c
    if i < n and s[i] == b'-':
        neg = True
        i += 1
    cstart = i
    while i < n:
        c = s[i]
        if b'0' <= c <= b'9':
            if c != b'0':
                if first < 0:
                    first = i
                last = i
        elif c == b'.' and dot < 0:
            dot = i
        else:
            break
        i += 1
    cend = i
    if cend - cstart - (1 if dot >= 0 else 0) <= 0:
        return 0
    if i < n:
        if s[i] != b'E' and s[i] != b'e':
            return 0
        i += 1
        if i < n and (s[i] == b'+' or s[i] == b'-'):
            esign = -1 if s[i] == b'-' else 1
            i += 1
        while i < n and b'0' <= s[i] <= b'9':
            if edigits == 18:
                return 0
            e = e * 10 + (s[i] - 0x30)
            edigits += 1
            i += 1
        if edigits == 0 or i != n:
            return 0
    if first < 0:
        return put_decimal_zero(b)
    if dot >= 0:
        frac = cend - dot - 1
    for i in range(first, last + 1):
        if s[i] != b'.':
            nd += 1
    for i in range(last + 1, cend):
        if s[i] != b'.':
            trailing += 1
    return put_decimal_digits(b, s, first, last, nd, neg, esign * e - frac + trailing, t)


cdef int put_decimal(Buf *b, object v, bint t) except -1:
    cdef long long x
    cdef const unsigned char *s
    cdef Py_ssize_t n
    if PyLong_CheckExact(v):
        if int64_of(v, &x):
            return put_decimal_int(b, x, t)
        try:
            v = int_to_decimal(v)
        except BaseException:
            PyErr_Clear()
            return 0
    elif type(v) is not _Decimal:
        return 0
    try:
        text = PyObject_Str(v)
    except BaseException:
        PyErr_Clear()
        return 0
    if not PyUnicode_CheckExact(text) or not utf8_of(text, &s, &n):
        return 0
    return put_decimal_text(b, <const char *> s, n, t)


cdef int put_null(Buf *b, const Spec *f) except -1:
    """The terminated NULL, ascending (a var-int's reserved bits hold their value)."""
    if f.kind == K_FLOAT:
        buf_put_be(b, 0, f.width)
    elif f.kind == K_VARINT and f.r:
        buf_put(b, <unsigned char> (f.v << (8 - f.r)))
    else:
        buf_put(b, 0)  # decimal: type NULL (00) and the NULL exponent header
    return 1


cdef int put_field(Buf *b, const Spec *f, object v, bint t) except -1:
    cdef int kind = f.kind
    if v is None:
        if not f.nullable:
            return 0
        return put_null(b, f) if t else 1
    if kind == K_VARINT:
        return put_varint(b, f, v)
    elif kind == K_STRING:
        return put_string(b, f, v, t)
    elif kind == K_FIXED_INT:
        return put_fixed_int(b, f, v)
    elif kind == K_FLOAT:
        return put_float(b, f, v)
    elif kind == K_DECIMAL:
        return put_decimal(b, v, t)
    elif kind == K_FIXED_BYTES:
        return put_fixed_bytes(b, f, v)
    elif kind == K_VAR_BYTES:
        return put_var_bytes(b, f, v, t)
    return 0
