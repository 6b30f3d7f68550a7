# The writers of the compiled memcomparable codec, included by _compiled.pyx (one module,
# three files, so that none is over ~600 lines). Each writer returns 1 when it wrote the
# value, 0 to hand the whole key to the reference (what it wrote is dropped with the key),
# -1 with an exception for a real failure (MemoryError).

# -- writing --------------------------------------------------------------------------------


cdef int put_tags(Buf *b, const FieldSpec *f, object v) except -1:
    """The Option tags of a NULL or a ``Some(None)``..., 1; 0 to hand over."""
    cdef int depth = 0
    cdef object inner = v
    while type(inner) is Some_t:
        depth += 1
        inner = inner.value
    if inner is not None or depth >= f.layers:
        return 0
    for _ in range(depth):
        buf_put(b, 0x01)
    buf_put(b, 0x00)
    return 1


cdef int put_wide(Buf *b, const FieldSpec *f, object v) except -1:
    """An exact int in a 128-bit field: its 16 bytes, sign bit flipped if signed."""
    cdef object u
    cdef bytes raw
    if not PyLong_CheckExact(v):
        return 0
    u = v + BIAS128 if f.kind == K_INT128 else v
    if u < 0 or u >= SPAN128:
        return 0
    raw = u.to_bytes(16, "big")
    buf_put_n(b, <const unsigned char *> PyBytes_AS_STRING(raw), 16)
    return 1


cdef int put_decimal(Buf *b, object v) except -1:
    """An exact Decimal from its to-scientific-string, well inside rust_decimal's range (at
    most 28 significant digits, |point| small); anything else to the reference."""
    cdef object text = PyObject_Str(v)
    cdef const unsigned char *s
    cdef Py_ssize_t n, i = 0, nd = 0, frac = 0, lead, k
    cdef bint neg = 0, exp_neg = 0, seen_point = 0
    cdef long long exponent = 0, point, scale
    cdef char digits[64]
    if not utf8_of(text, &s, &n) or n == 0 or n > 60:
        return 0
    if s[0] == 45:  # '-'
        neg = 1
        i = 1
    if i >= n:
        return 0
    if s[i] == 73:  # 'I'nfinity
        buf_put(b, H_NEG_INF if neg else H_POS_INF)
        return 1
    if s[i] == 78:  # 'N'aN; a payload is the reference's to refuse
        if n - i != 3:
            return 0
        buf_put(b, DEC_NAN)
        return 1
    if not (48 <= s[i] <= 57):  # sNaN
        return 0
    while i < n and (48 <= s[i] <= 57 or s[i] == 46):
        if s[i] == 46:
            seen_point = 1
        else:
            digits[nd] = <char> s[i]
            nd += 1
            frac += seen_point
        i += 1
    if i < n:  # E+x / e-x
        i += 1
        if i < n and (s[i] == 43 or s[i] == 45):
            exp_neg = s[i] == 45
            i += 1
        if i >= n or n - i > 6:
            return 0
        while i < n:
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
    k = nd
    while digits[k - 1] == 48:
        k -= 1
    exponent += (nd - k) - frac           # the value: digits[lead:k] x 10**exponent
    scale = -exponent if exponent < 0 else 0
    if k - lead + (exponent if exponent > 0 else 0) > 28 or scale > DEC_SCALE_MAX:
        return 0  # near or past rust_decimal's limits: the reference decides
    point = (k - lead) + exponent
    buf_room(b, CENT_ROOM + k - lead)
    b.n = mc_decimal(b.p + b.n, neg, digits + lead, k - lead, point) - b.p
    return 1


cdef inline bint f32_holds(double d) noexcept:
    """Whether binary32 holds *d* (a NaN: yes, it is written canonical); the range is
    checked before the cast."""
    if d != d or isinf(d):
        return 1
    if fabs(d) > FLT_MAX:
        return 0
    return <double> (<float> d) == d


cdef int write_field(Buf *b, const FieldSpec *f, object v) except -1:
    """Field *f* of value *v*, inverted when descending: 1, or 0 to hand the key over."""
    cdef Py_ssize_t start = b.n, n
    cdef const unsigned char *s
    cdef long long x
    cdef unsigned long long u
    cdef int k
    cdef Py_UCS4 c
    if v is None or type(v) is Some_t:
        if not put_tags(b, f, v):
            return 0
        if f.mask:
            buf_invert(b, start)
        return 1
    for k in range(f.layers):
        buf_put(b, 0x01)
    if f.kind == K_INT:
        if not int64_of(v, &x) or x < f.lo or x > <long long> f.hi:
            return 0
        buf_room(b, 8 + SLACK)
        b.n = mc_int(b.p + b.n, <uint64_t> x, f.width, 1) - b.p
    elif f.kind == K_UINT:
        if not uint64_of(v, &u) or u > f.hi:
            return 0
        buf_room(b, 8 + SLACK)
        b.n = mc_int(b.p + b.n, u, f.width, 0) - b.p
    elif f.kind == K_STRING or f.kind == K_BYTES:
        if f.kind == K_STRING:
            if not PyUnicode_CheckExact(v) or not utf8_of(v, &s, &n):
                return 0
        elif PyBytes_CheckExact(v):
            s = <const unsigned char *> PyBytes_AS_STRING(v)
            n = PyBytes_GET_SIZE(v)
        elif PyByteArray_CheckExact(v):
            s = <const unsigned char *> PyByteArray_AS_STRING(v)
            n = PyByteArray_GET_SIZE(v)
        else:
            return 0
        buf_room(b, mc_bytes_room(n) + SLACK)
        b.n = mc_bytes(b.p + b.n, s, n) - b.p
    elif f.kind == K_FLOAT64:
        if not (PyFloat_CheckExact(v) or type(v) is Float32_t):
            return 0
        buf_room(b, 8 + SLACK)
        b.n = mc_f64(b.p + b.n, PyFloat_AS_DOUBLE(v)) - b.p
    elif f.kind == K_FLOAT32:
        # a Float32 or a float by its value, when binary32 holds it (a tampered Float32
        # may hold another double): else the reference
        if not (type(v) is Float32_t or PyFloat_CheckExact(v)) or \
                not f32_holds(PyFloat_AS_DOUBLE(v)):
            return 0
        buf_room(b, 4 + SLACK)
        b.n = mc_f32(b.p + b.n, <float> PyFloat_AS_DOUBLE(v)) - b.p
    elif f.kind == K_BOOL:
        if v is True:
            buf_put(b, 0x01)
        elif v is False:
            buf_put(b, 0x00)
        else:
            return 0
    elif f.kind == K_DECIMAL:
        if type(v) is not Decimal_t or not put_decimal(b, v):
            return 0
    elif f.kind == K_CHAR:
        if not PyUnicode_CheckExact(v) or PyUnicode_GET_LENGTH(v) != 1:
            return 0
        c = PyUnicode_READ_CHAR(v, 0)
        if SURROGATE_FIRST <= c <= SURROGATE_LAST:
            return 0
        buf_room(b, 4 + SLACK)
        b.n = mc_int(b.p + b.n, c, 4, 0) - b.p
    elif f.kind == K_VARIANT:
        if not int64_of(v, &x) or x < 0 or x > 255:
            return 0
        buf_put(b, <unsigned char> x)
    elif f.kind == K_SEQ:
        if PyBytes_CheckExact(v):
            s = <const unsigned char *> PyBytes_AS_STRING(v)
            n = PyBytes_GET_SIZE(v)
        elif PyByteArray_CheckExact(v):
            s = <const unsigned char *> PyByteArray_AS_STRING(v)
            n = PyByteArray_GET_SIZE(v)
        else:
            return 0
        buf_room(b, 2 * n + 1)
        for k in range(n):
            b.p[b.n] = 0x01
            b.p[b.n + 1] = s[k]
            b.n += 2
        buf_put(b, 0x00)
    else:  # K_INT128, K_UINT128
        if not put_wide(b, f, v):
            return 0
    if f.mask:
        buf_invert(b, start)
    return 1
