# The readers of the compiled orderly decoder, included by _compiled.pyx (which see).
#
# Each reader reads one field at pos[0] through the field's mask, moves pos[0] past it and
# returns the value (None for NULL), or returns _HANDOVER for bytes the encoder does not write
# (the reference code then reads the whole key and raises the typed error).

cdef int varint_get(const unsigned char *k, Py_ssize_t n, Py_ssize_t pos, const Lay *lay,
                    const OrderlyVarint *vt, unsigned char mask, int r, int v,
                    unsigned long long *ux, bint *neg, Py_ssize_t *end) noexcept:
    """The var-int at *pos* (``pos < n``): 1 and its value, 2 for the NULL header, 0 when
    the reference must judge (not canonical, out of range, truncated, wrong reserved bits).
    *vt*: the layout's tables with *r* reserved bits, which write the value again (the
    canonical check)."""
    cdef int b0 = k[pos]
    cdef int u, g, length, hb, width
    cdef int ones = (1 << lay.lb) - 1
    cdef unsigned long long c, x
    cdef bint negative
    cdef unsigned char again[ORDERLY_VARINT_MAX + SLACK]
    cdef unsigned char *again_end
    if r and (b0 >> (8 - r)) != v:
        return 0
    u = (b0 ^ mask) & (0xFF >> r)
    if u == 0:
        end[0] = pos + 1
        return 2
    if not lay.signed_:
        u -= 1
    g = (u << r) & 0xFF
    if lay.signed_ and not g & 0x80:  # negative: flags and length field inverted
        length = 1 if g & 0x40 else 2 if g & 0x20 else ((((~g) & 0xFF) >> lay.e) & ones) + 3
    elif lay.signed_:
        length = 1 if not g & 0x40 else 2 if not g & 0x20 else ((g >> lay.e) & ones) + 3
    else:
        length = 1 if not g & 0x80 else 2 if not g & 0x40 else ((g >> lay.e) & ones) + 3
    if length > lay.max_length or length > n - pos:
        return 0
    c = get_be(k + pos + 1, length - 1, mask)
    if length == 9:
        width = 64
    else:
        hb = lay.s - r if length == 1 else lay.d - r if length == 2 else lay.e - r
        c |= (<unsigned long long> (u & ((1 << hb) - 1))) << (8 * (length - 1))
        width = hb + 8 * (length - 1)
    negative = lay.signed_ and not ((u << r) & 0x80)
    if negative:
        if width == 64:
            if c < (1ULL << 63):  # below -2**63
                return 0
            x = c
        else:
            x = c - (1ULL << width)
        if <long long> x < lay.lo:
            return 0
    elif lay.signed_:
        if c > <unsigned long long> lay.hi:
            return 0
        x = c
    else:
        if c > lay.uhi:
            return 0
        x = c
    again_end = orderly_varint_r(vt, again, negative, x, mask, r, v)
    if again_end == NULL or again_end - again != length or memcmp(again, k + pos, length) != 0:
        return 0
    ux[0] = x
    neg[0] = negative
    end[0] = pos + length
    return 1

# -- the field readers -----------------------------------------------------------------------


cdef object read_varint(const Spec *f, const unsigned char *k, Py_ssize_t n, Py_ssize_t *pos):
    cdef unsigned long long ux
    cdef bint neg
    cdef int got
    if pos[0] >= n:
        return None
    got = varint_get(k, n, pos[0], &f.lay, &f.vt, f.mask, f.r, f.v, &ux, &neg, pos)
    if got == 0:
        return _HANDOVER
    if got == 2:
        return None
    if f.lay.signed_:
        return PyLong_FromLongLong(<long long> ux)
    return PyLong_FromUnsignedLongLong(ux)


cdef object read_fixed_int(const Spec *f, const unsigned char *k, Py_ssize_t n,
                           Py_ssize_t *pos):
    cdef unsigned long long u
    if f.width > n - pos[0]:
        return _HANDOVER
    u = get_be(k + pos[0], f.width, f.mask)
    pos[0] += f.width
    if not f.signed_:
        return PyLong_FromUnsignedLongLong(u)
    if f.width == 8:
        return PyLong_FromLongLong(<long long> (u ^ (1ULL << 63)))
    return PyLong_FromLongLong(<long long> u - 2147483648LL)


cdef object read_float(const Spec *f, const unsigned char *k, Py_ssize_t n, Py_ssize_t *pos):
    cdef unsigned long long bits
    cdef unsigned int b32
    cdef float x32
    cdef double x
    if pos[0] >= n:
        return None
    if f.width > n - pos[0]:
        return _HANDOVER
    bits = get_be(k + pos[0], f.width, f.mask)
    pos[0] += f.width
    if bits == 0:
        return None
    bits = unorder_bits(bits - 1, f.width)
    if f.width == 8:
        x = bits_double(bits)
        if x != x and bits != f.nan:
            return _HANDOVER
        return PyFloat_FromDouble(x)
    b32 = <unsigned int> bits
    memcpy(&x32, &b32, 4)
    if x32 != x32 and bits != f.nan:
        return _HANDOVER
    return make_float32(b32)


cdef int put_exponent_text(Buf *b, long long e) except -1:
    """``E`` and the decimal digits of *e*."""
    cdef char digits[24]
    cdef int i = 24
    cdef unsigned long long mag = (0ULL - <unsigned long long> e) if e < 0 else <unsigned long long> e
    while True:
        i -= 1
        digits[i] = <char> (0x30 + mag % 10)
        mag //= 10
        if not mag:
            break
    if e < 0:
        i -= 1
        digits[i] = b'-'
    buf_put(b, b'E')
    buf_put_n(b, <const unsigned char *> digits + i, 24 - i)
    return 1


cdef object read_decimal(const Spec *f, const unsigned char *k, Py_ssize_t n,
                         Py_ssize_t *pos):
    cdef Py_ssize_t start = pos[0], i, at
    cdef int stored, kind, hi, lo, got
    cdef unsigned char m, c
    cdef unsigned long long ux
    cdef bint neg
    cdef long long exponent
    cdef Py_ssize_t nd
    cdef Buf text
    if start >= n:
        return None
    stored = k[start] >> 6
    kind = stored ^ (3 if f.desc else 0)
    m = f.mask ^ (0xFF if kind == DEC_NEG else 0)
    got = varint_get(k, n, start, &_EXPONENT, &_EXPONENT_VT, m, 2, stored, &ux, &neg, &at)
    if got == 0:
        return _HANDOVER
    if got == 2:
        pos[0] = at
        if kind == DEC_NULL:
            return None
        if kind == DEC_ZERO:
            return _DEC_ZERO
        return _HANDOVER
    if kind == DEC_NULL or kind == DEC_ZERO:
        return _HANDOVER
    buf_init(&text)
    try:
        if kind == DEC_NEG:
            buf_put(&text, b'-')
        # the BCD digits: nibble = digit + 1, a zero nibble ends them; or the end of the key
        i = at
        while i < n:
            c = k[i] ^ m
            hi, lo = c >> 4, c & 0xF
            i += 1
            if hi == 0:
                if lo:
                    return _HANDOVER
                break
            if hi > 10 or lo > 10:
                return _HANDOVER
            buf_put(&text, <unsigned char> (0x2F + hi))
            if lo == 0:
                break
            buf_put(&text, <unsigned char> (0x2F + lo))
        nd = text.n - (1 if kind == DEC_NEG else 0)
        if nd == 0 or text.p[text.n - nd] == b'0' or text.p[text.n - 1] == b'0':
            return _HANDOVER  # no digits, or a leading or trailing zero: not canonical
        exponent = <long long> ux - nd + 1
        if exponent < -2147483648LL or exponent > 2147483647LL:
            return _HANDOVER
        if exponent == -2147483648LL:
            exponent = DEC_EXP_MAX  # the inverse of the Java scale overflow
        put_exponent_text(&text, exponent)
        try:
            value = _Decimal(PyUnicode_FromStringAndSize(<char *> text.p, text.n))
        except BaseException:
            PyErr_Clear()
            return _HANDOVER
    finally:
        buf_free(&text)
    pos[0] = i
    return value


cdef object read_string(const Spec *f, const unsigned char *k, Py_ssize_t n, Py_ssize_t *pos):
    cdef Py_ssize_t start = pos[0], end, i, size
    cdef const unsigned char *term
    cdef unsigned char mask = f.mask
    cdef Buf raw
    if start >= n:
        return None
    if k[start] ^ mask == 0:
        pos[0] = start + 1
        return None
    term = <const unsigned char *> memchr(k + start, 1 ^ mask, n - start)
    end = n if term == NULL else term - k
    size = end - start
    buf_init(&raw)
    try:
        if size > raw.cap:
            buf_grow(&raw, size)
        for i in range(size):
            raw.p[i] = <unsigned char> ((k[start + i] ^ mask) - 2)
        try:
            value = PyUnicode_DecodeUTF8(<char *> raw.p, size, NULL)
        except UnicodeDecodeError:
            PyErr_Clear()
            return _HANDOVER
    finally:
        buf_free(&raw)
    pos[0] = end if term == NULL else end + 1
    return value


cdef object read_fixed_bytes(const Spec *f, const unsigned char *k, Py_ssize_t n,
                             Py_ssize_t *pos):
    cdef Py_ssize_t i
    cdef unsigned char *p
    if f.n > n - pos[0]:
        return _HANDOVER
    if not f.mask:
        value = PyBytes_FromStringAndSize(<char *> k + pos[0], f.n)
    else:  # a new object to write into (never the shared one-byte bytes of CPython)
        value = PyBytes_FromStringAndSize(NULL, f.n)
        p = <unsigned char *> PyBytes_AS_STRING(value)
        for i in range(f.n):
            p[i] = k[pos[0] + i] ^ 0xFF
    pos[0] += f.n
    return value


cdef object read_var_bytes(const Spec *f, const unsigned char *k, Py_ssize_t n,
                           Py_ssize_t *pos):
    cdef Py_ssize_t start, end, i, d, j, groups
    cdef unsigned char mask = f.mask, c
    cdef int hi, lo, g, nib, q
    cdef unsigned char *p
    cdef bint term = False
    if f.n == 0:
        if pos[0] >= n:
            return None
        if k[pos[0]] ^ mask == 0:  # Java writes it but cannot read it; we can
            pos[0] += 1
            return None
    start = pos[0] + f.n
    if start >= n:
        return _HANDOVER
    # the digits run to the first byte holding a terminator nibble 1, or the end of the key
    end = start
    while end < n:
        c = k[end] ^ mask
        end += 1
        if (c & 0xF) == 1 or (c >> 4) == 1:
            term = True
            break
    d = 2 * (end - start)
    if term:
        c = k[end - 1] ^ mask
        if (c >> 4) == 1:
            if (c & 0xF) != 1:
                return _HANDOVER  # a digit after the terminator nibble
            d -= 2
        else:
            d -= 1
    # exactly the terminated form, or the unterminated one at the end of the key
    if d % 3 or (end - start != orderly_bcd_length(d, True) and
                 (end != n or end - start != orderly_bcd_length(d, False))):
        return _HANDOVER
    groups = d // 3
    value = PyBytes_FromStringAndSize(NULL, f.n + groups)
    p = <unsigned char *> PyBytes_AS_STRING(value)
    for i in range(f.n):
        p[i] = k[pos[0] + i] ^ mask
    j = 0  # nibble index from start
    for i in range(groups):
        g = 0
        for q in range(3):
            c = k[start + (j >> 1)] ^ mask
            nib = (c >> 4) if not (j & 1) else (c & 0xF)
            if _NIB_DIGIT[nib] < 0:
                return _HANDOVER
            g = g * 10 + _NIB_DIGIT[nib]
            j += 1
        if g > 255:
            return _HANDOVER
        p[f.n + i] = <unsigned char> g
    pos[0] = end
    return value


cdef object read_field(const Spec *f, const unsigned char *k, Py_ssize_t n, Py_ssize_t *pos):
    cdef int kind = f.kind
    if kind == K_VARINT:
        return read_varint(f, k, n, pos)
    elif kind == K_STRING:
        return read_string(f, k, n, pos)
    elif kind == K_FIXED_INT:
        return read_fixed_int(f, k, n, pos)
    elif kind == K_FLOAT:
        return read_float(f, k, n, pos)
    elif kind == K_DECIMAL:
        return read_decimal(f, k, n, pos)
    elif kind == K_FIXED_BYTES:
        return read_fixed_bytes(f, k, n, pos)
    elif kind == K_VAR_BYTES:
        return read_var_bytes(f, k, n, pos)
    return _HANDOVER
