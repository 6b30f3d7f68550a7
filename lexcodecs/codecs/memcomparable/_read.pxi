# The readers of the compiled memcomparable codec, included by _compiled.pyx. Each reader
# returns the value and moves ``at[0]`` past it, or returns HANDOVER (the whole key then
# goes to the reference, which reads it or words the error).

# -- reading --------------------------------------------------------------------------------


cdef object new_float32(double value, unsigned long long bits):
    """``Float32.from_bits(bits)`` without the Python call: the object built as float's own
    ``__new__`` builds a subclass instance, then its ``bits`` slot set."""
    cdef object out = PyType_GenericAlloc(<PyTypeObject *> Float32_t, 0)
    (<PyFloatObject *> out).ob_fval = value
    out.bits = bits
    return out


cdef object read_float32(unsigned long long bits):
    """The Float32 of 32 *bits*; a NaN widened by hand, payload kept (``types._f32_value``)."""
    cdef uint32_t b32 = <uint32_t> bits
    cdef float g
    if (b32 & 0x7F800000U) == 0x7F800000U and (b32 & 0x007FFFFFU):
        return new_float32(bits_double((<uint64_t> (b32 & 0x80000000U) << 32)
                                       | 0x7FF0000000000000ULL
                                       | (<uint64_t> (b32 & 0x007FFFFFU) << 29)), bits)
    memcpy(&g, &b32, 4)
    return new_float32(<double> g, bits)


cdef object read_bytes(const unsigned char *p, Py_ssize_t n, Py_ssize_t *at,
                       unsigned char m, bint text):
    """A chunked byte string at ``at[0]``, ``at[0]`` moved past it; HANDOVER when it is
    malformed (or not valid UTF-8 for a string)."""
    cdef Py_ssize_t pos = at[0]
    cdef unsigned char flag, marker
    cdef Buf b
    cdef object out
    if pos >= n:
        return HANDOVER
    flag = p[pos] ^ m
    pos += 1
    buf_init(&b)
    try:
        if flag == 1:
            while True:
                if pos + 9 > n:
                    return HANDOVER
                marker = p[pos + 8] ^ m
                if marker == MORE:
                    buf_put_n(&b, p + pos, 8)
                elif 1 <= marker <= 8:
                    buf_put_n(&b, p + pos, marker)
                else:
                    return HANDOVER
                pos += 9
                if marker != MORE:
                    break
            if m:
                buf_invert(&b, 0)
        elif flag != 0:
            return HANDOVER
        if text:
            try:
                out = PyUnicode_DecodeUTF8(<char *> b.p, b.n, NULL)
            except UnicodeDecodeError:
                return HANDOVER
        else:
            out = PyBytes_FromStringAndSize(<char *> b.p, b.n)
        at[0] = pos
        return out
    finally:
        buf_free(&b)


cdef object read_decimal(const unsigned char *p, Py_ssize_t n, Py_ssize_t *at,
                         unsigned char m):
    """A decimal whose digits are canonical-sized (at most 15 base-100 digits, each below
    100, |E| <= 20, the result within 28 digits at a scale of at most 28), as the crate reads
    it: its text built here, then ``Decimal(text)``. Anything else to the reference."""
    cdef Py_ssize_t pos = at[0], mlen = 0, nd, k
    cdef unsigned char flag, d, flip
    cdef int e
    cdef bint neg
    cdef long long scale
    cdef char text[128]
    cdef char *q = text + 1
    if pos >= n:
        return HANDOVER
    flag = p[pos] ^ m
    pos += 1
    if flag == H_NEG_INF or flag == H_POS_INF or flag == H_ZERO or flag == DEC_NAN:
        at[0] = pos
        return (DECIMAL_NEG_INF if flag == H_NEG_INF else DECIMAL_INF if flag == H_POS_INF
                else DECIMAL_ZERO if flag == H_ZERO else DECIMAL_NAN)
    if flag < H_NEG_LARGE or flag > H_POS_LARGE:
        return HANDOVER
    neg = flag < H_ZERO
    if flag == H_NEG_LARGE or flag == H_NEG_SMALL or flag == H_POS_SMALL or \
            flag == H_POS_LARGE:
        if pos >= n:
            return HANDOVER
        d = p[pos] ^ m
        pos += 1
        e = (<int> (0xFF ^ d) if flag == H_NEG_LARGE else -<int> d if flag == H_NEG_SMALL
             else -<int> (0xFF ^ d) if flag == H_POS_SMALL else <int> d)
    else:
        e = H_NEG_MEDIUM - flag if neg else flag - H_POS_MEDIUM
    if e < -20 or e > 20:
        return HANDOVER
    flip = m ^ (0xFF if neg else 0)
    while True:
        if pos >= n or mlen >= 15:
            return HANDOVER
        d = p[pos] ^ flip
        pos += 1
        if (d >> 1) > 99:
            return HANDOVER
        q[2 * mlen] = <char> (48 + (d >> 1) // 10)
        q[2 * mlen + 1] = <char> (48 + (d >> 1) % 10)
        mlen += 1
        if not d & 1:
            break
    nd = 2 * mlen
    scale = (mlen - e) * 2
    if scale <= 0:
        for k in range(-scale):
            q[nd] = 48
            nd += 1
        scale = 0
    elif q[nd - 1] == 48:
        nd -= 1
        scale -= 1
    k = 0
    while k < nd - 1 and q[k] == 48:  # the leading zero digits (the mantissa's value)
        k += 1
    if nd - k > 28 or scale > DEC_SCALE_MAX:
        return HANDOVER
    q += k
    nd -= k
    if neg and not (nd == 1 and q[0] == 48):
        q -= 1
        q[0] = 45  # '-'
        nd += 1
    q[nd] = 69  # 'E'
    q[nd + 1] = 45
    q[nd + 2] = <char> (48 + scale // 10)
    q[nd + 3] = <char> (48 + scale % 10)
    at[0] = pos
    return Decimal_t(PyBytes_FromStringAndSize(q, nd + 4).decode("ascii"))


cdef object read_field(const FieldSpec *f, const unsigned char *p, Py_ssize_t n,
                       Py_ssize_t *at):
    """Field *f* at ``at[0]``: its Option tags, then its value; HANDOVER for bytes it does
    not take (malformed, truncated, or a reading that is the reference's)."""
    cdef Py_ssize_t pos = at[0]
    cdef unsigned char m = f.mask, t
    cdef unsigned long long u, sign
    cdef int k, w = f.width
    cdef object value
    for k in range(f.layers):
        if pos >= n:
            return HANDOVER
        t = p[pos] ^ m
        pos += 1
        if t == 0:
            at[0] = pos
            return None if k == 0 else Some_t(None)
        if t != 1:
            return HANDOVER
    if f.kind == K_STRING or f.kind == K_BYTES:
        at[0] = pos
        return read_bytes(p, n, at, m, f.kind == K_STRING)
    if f.kind == K_DECIMAL:
        at[0] = pos
        return read_decimal(p, n, at, m)
    if f.kind == K_SEQ:
        return read_seq(p, n, at, pos, m)
    if f.kind == K_INT128 or f.kind == K_UINT128:
        if pos + 16 > n:
            return HANDOVER
        raw = PyBytes_FromStringAndSize(<const char *> p + pos, 16)
        value = int.from_bytes(raw, "big")
        if m:
            value = (SPAN128 - 1) ^ value
        if f.kind == K_INT128:
            value = value - BIAS128
        at[0] = pos + 16
        return value
    if pos + w > n:
        return HANDOVER
    u = get_be(p + pos, w, m)
    at[0] = pos + w
    if f.kind == K_INT:
        # flip the sign bit back, then sign-extend the width's top bit (an arithmetic shift)
        sign = 1ULL << (8 * w - 1)
        return PyLong_FromLongLong((<long long> ((u ^ sign) << (64 - 8 * w))) >> (64 - 8 * w))
    if f.kind == K_UINT:
        return PyLong_FromUnsignedLongLong(u)
    if f.kind == K_FLOAT64:
        u = u & 0x7FFFFFFFFFFFFFFFULL if u >> 63 else ~u
        return PyFloat_FromDouble(bits_double(u))
    if f.kind == K_FLOAT32:
        u = u & 0x7FFFFFFFULL if u >> 31 else (~u) & 0xFFFFFFFFULL
        return read_float32(u)
    if f.kind == K_BOOL:
        if u > 1:
            return HANDOVER
        return u == 1
    if f.kind == K_CHAR:
        if u > CHAR_MAX or SURROGATE_FIRST <= u <= SURROGATE_LAST:
            return HANDOVER
        return PyUnicode_FromOrdinal(<int> u)
    return PyLong_FromUnsignedLongLong(u)  # K_VARIANT


cdef object read_seq(const unsigned char *p, Py_ssize_t n, Py_ssize_t *at, Py_ssize_t pos,
                     unsigned char m):
    """A Vec<u8> as a sequence: (``01`` element)* ``00``; HANDOVER when malformed."""
    cdef Buf b
    cdef unsigned char t
    buf_init(&b)
    try:
        while True:
            if pos >= n:
                return HANDOVER
            t = p[pos] ^ m
            if t == 0:
                break
            if t != 1 or pos + 1 >= n:
                return HANDOVER
            buf_put(&b, p[pos + 1] ^ m)
            pos += 2
        at[0] = pos + 1
        return PyBytes_FromStringAndSize(<char *> b.p, b.n)
    finally:
        buf_free(&b)
