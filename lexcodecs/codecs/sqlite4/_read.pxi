# The readers of the compiled sqlite4 codec, included by _compiled.pyx. Each reader returns
# the value and advances pos[0], or returns HAND_OVER (pos[0] untouched) for anything the
# reference must decide: a malformed or non-canonical key, a refused value. Every byte of a
# descending value is read as p[i] ^ mask; every length is checked against n.

# -- reading --------------------------------------------------------------------------------

cdef inline object steal(PyObject *o):
    """A new reference from the C API as an object (NULL must be checked first)."""
    cdef object out = <object> o
    Py_DECREF(out)
    return out


cdef object read_text(const unsigned char *p, Py_ssize_t n, Py_ssize_t *pos,
                      unsigned char mask):
    """``24`` UTF-8 ``00`` at *pos* (each byte ^ *mask*)."""
    cdef Py_ssize_t q = pos[0] + 1, end, i
    cdef const unsigned char *z
    cdef unsigned char small[256]
    cdef unsigned char *tmp = small
    cdef PyObject *r
    if not mask:
        z = <const unsigned char *> memchr(p + q, 0, n - q)
        if z == NULL:
            return HAND_OVER
        end = z - p
        r = PyUnicode_DecodeUTF8(<const char *> p + q, end - q, NULL)
    else:
        z = <const unsigned char *> memchr(p + q, 0xFF, n - q)
        if z == NULL:
            return HAND_OVER
        end = z - p
        small[0] = 0  # (gcc cannot see that an empty text reads nothing)
        if end - q > 256:
            tmp = <unsigned char *> PyMem_Malloc(end - q)
            if tmp == NULL:
                raise MemoryError()
        for i in range(end - q):
            tmp[i] = p[q + i] ^ 0xFF
        r = PyUnicode_DecodeUTF8(<const char *> tmp, end - q, NULL)
        if tmp != small:
            PyMem_Free(tmp)
    if r == NULL:  # invalid UTF-8: the reference says where
        PyErr_Clear()
        return HAND_OVER
    pos[0] = end + 1
    return steal(r)


cdef object read_binary(const unsigned char *p, Py_ssize_t n, Py_ssize_t *pos,
                        unsigned char mask):
    """``25``, 7-bit groups, ``00`` at *pos*: canonical only."""
    cdef Py_ssize_t q = pos[0] + 1, k = 0, size, j, w = 0
    cdef int pad, bits = 0
    cdef unsigned int acc = 0
    cdef unsigned char *o
    cdef bytes out
    while q + k < n and (p[q + k] ^ mask) & 0x80:
        k += 1
    if q + k >= n or (p[q + k] ^ mask) != 0:
        return HAND_OVER
    size = 7 * k // 8
    if (8 * size + 6) // 7 != k:
        return HAND_OVER
    pad = <int> (7 * k - 8 * size)
    if pad and ((p[q + k - 1] ^ mask) & ((1 << pad) - 1)):
        return HAND_OVER
    out = PyBytes_FromStringAndSize(NULL, size)
    o = <unsigned char *> PyBytes_AS_STRING(out)
    for j in range(k):
        if w >= size:
            break
        acc = (acc << 7) | ((p[q + j] ^ mask) & 0x7F)
        bits += 7
        if bits >= 8:
            bits -= 8
            o[w] = <unsigned char> (acc >> bits)
            w += 1
            acc &= (1u << bits) - 1
    pos[0] = q + k + 1
    return out


cdef object digit_text(const unsigned char *p, Py_ssize_t i, Py_ssize_t nd, unsigned char nm,
                       bint neg, long long exponent, char marker):
    """``[-]digits<marker>exponent`` of the *nd* centimal digits at ``p[i]`` (^ *nm*), the last
    digit's trailing zero left out, as the reference writes it for Decimal, float or int."""
    cdef Py_ssize_t size = 2 * nd + 24, t = 0, j
    cdef char small[128]
    cdef char *text = small
    cdef unsigned char d
    cdef unsigned long long e
    cdef char tail[24]
    cdef int k = 0
    cdef PyObject *r
    if size > 128:
        text = <char *> PyMem_Malloc(size)
        if text == NULL:
            raise MemoryError()
    try:
        if neg:
            text[t] = 45
            t += 1
        for j in range(nd):
            d = (p[i + j] ^ nm) >> 1
            text[t] = <char> (48 + d // 10)
            text[t + 1] = <char> (48 + d % 10)
            t += 2
        if text[t - 1] == 48:  # the last digit's trailing zero (rstrip in the reference)
            t -= 1
        if marker:
            text[t] = marker
            t += 1
            if exponent < 0:
                text[t] = 45
                t += 1
                e = <unsigned long long> (-(exponent + 1)) + 1
            else:
                e = <unsigned long long> exponent
            while True:
                tail[k] = <char> (48 + e % 10)
                k += 1
                e //= 10
                if e == 0:
                    break
            while k:
                k -= 1
                text[t] = tail[k]
                t += 1
        text[t] = 0
        if marker == 101:  # 'e': a float, through Python's correctly rounded strtod
            return PyOS_string_to_double(text, NULL, NULL)
        r = PyUnicode_FromStringAndSize(text, t)
        if r == NULL:
            raise MemoryError()
        return steal(r)
    finally:
        if text != small:
            PyMem_Free(text)


cdef object read_number(const unsigned char *p, Py_ssize_t n, Py_ssize_t *pos,
                        unsigned char mask, FieldC *f):
    """The number at *pos*, typed for the field's kind, or HAND_OVER."""
    cdef Py_ssize_t q = pos[0], i = q + 1, j, nd, ndec
    cdef unsigned char h = p[q] ^ mask, vm, c, nm
    cdef int kind = f.kind, length, k
    cdef bint neg
    cdef long long e, exponent
    cdef unsigned long long v, acc, d
    cdef object text, value
    # the one-byte numbers
    if h == H_ZERO:
        pos[0] = i
        return 0.0 if kind == K_FLOAT64 else DECIMAL_ZERO if kind == K_DECIMAL else 0
    if h == H_NAN or h == H_NEG_INF or h == H_POS_INF:
        if kind == K_INT:
            return HAND_OVER
        pos[0] = i
        if kind == K_DECIMAL:
            return DECIMAL_NAN if h == H_NAN else DECIMAL_INF if h == H_POS_INF \
                else DECIMAL_NEG_INF
        return FLOAT_NAN if h == H_NAN else FLOAT_INF if h == H_POS_INF else FLOAT_NEG_INF
    neg = h < H_ZERO
    if H_POS_MEDIUM <= h <= H_POS_MEDIUM + MEDIUM_MAX_E:
        e = h - H_POS_MEDIUM
    elif H_NEG_MEDIUM - MEDIUM_MAX_E <= h <= H_NEG_MEDIUM:
        e = H_NEG_MEDIUM - h
    else:  # large (22, 08) or small (16, 14): a varint, complemented for 08 and 16
        vm = mask ^ (0xFF if h == H_NEG_LARGE or h == H_POS_SMALL else 0)
        length = cent_varint_read(p + i, n - i, vm, &v)  # cut short or not canonical: 0
        if length == 0:
            return HAND_OVER
        if v > MAX_VARINT_E:
            return HAND_OVER
        i += length
        if h == H_POS_LARGE or h == H_NEG_LARGE:
            if v <= MEDIUM_MAX_E:
                return HAND_OVER
            e = <long long> v
        else:
            if v < 1:
                return HAND_OVER
            e = -<long long> v
    # the mantissa: up to the first even byte, each <= c7, no 0 first or last digit
    nm = mask ^ (0xFF if neg else 0)
    j = i
    while True:
        if j >= n:
            return HAND_OVER
        c = p[j] ^ nm
        if c > 0xC7:
            return HAND_OVER
        j += 1
        if not (c & 1):
            break
    nd = j - i
    if (p[i] ^ nm) < 2 or (p[j - 1] ^ nm) == 0:
        return HAND_OVER
    # the reference's digit string has two digits per centimal digit, the last one's
    # trailing zero stripped: ndec digits, the value int(digits) * 10**exponent
    ndec = 2 * nd - ((((p[j - 1] ^ nm) >> 1) % 10) == 0)
    exponent = 2 * e - ndec
    if kind == K_DECIMAL or (kind == K_ANY and (exponent < 0 or 2 * e > MAX_INT_DIGITS)):
        if exponent < MIN_ETINY or exponent + ndec - 1 > MAX_EMAX:
            return HAND_OVER
        value = Decimal(digit_text(p, i, nd, nm, neg, exponent, 69))  # 'E'
        pos[0] = j
        return value
    if kind == K_FLOAT64 and exponent < 0:
        value = digit_text(p, i, nd, nm, neg, exponent, 101)  # 'e'
        pos[0] = j
        return value
    # an integer (int, float64 or schemaless)
    if exponent < 0 or 2 * e > MAX_INT_DIGITS:
        if kind == K_FLOAT64:  # 2e > 10,000 digits: overflow, as strtod says
            value = digit_text(p, i, nd, nm, neg, exponent, 101)
            pos[0] = j
            return value
        return HAND_OVER
    if e <= MEDIUM_MAX_E:
        acc = 0
        for k in range(e):
            d = ((p[i + k] ^ nm) >> 1) if k < nd else 0
            if acc > (0xFFFFFFFFFFFFFFFFULL - d) // 100:
                break
            acc = acc * 100 + d
        else:
            if f.bounded:
                if neg:
                    if f.lo >= 0 or acc - 1 > <unsigned long long> (-(f.lo + 1)):
                        return HAND_OVER
                elif acc > f.hi:
                    return HAND_OVER
            pos[0] = j
            if kind == K_FLOAT64:
                return -<double> acc if neg else <double> acc
            if not neg:
                return PyLong_FromUnsignedLongLong(acc)
            if acc <= 0x8000000000000000ULL:
                return PyLong_FromLongLong(<long long> (-(acc - 1)) - 1)
            return -PyLong_FromUnsignedLongLong(acc)
    # a big integer: out of every bounded range; the reference's int(str) or int(Decimal)
    if f.bounded:
        return HAND_OVER
    if kind == K_FLOAT64:
        value = digit_text(p, i, nd, nm, neg, exponent, 101)
        pos[0] = j
        return value
    text = digit_text(p, i, nd, nm, 0, 0, 0)
    value = int(text) if ndec <= INT_FROM_STR_DIGITS else int(Decimal(text))
    if exponent:
        value = value * TEN ** exponent  # a Python int power (10 ** exponent is C pow)
    pos[0] = j
    return -value if neg else value


cdef object read_value(const unsigned char *p, Py_ssize_t n, Py_ssize_t *pos, FieldC *f,
                       unsigned char mask):
    """The value of field *f* at *pos* (its bytes ^ *mask*), or HAND_OVER."""
    cdef unsigned char h
    cdef int kind = f.kind
    cdef Py_ssize_t q = pos[0]
    if q >= n:
        return HAND_OVER
    h = p[q] ^ mask
    if h == H_NULL:
        pos[0] = q + 1
        return None
    if H_NAN <= h <= H_POS_INF:
        if kind <= K_DECIMAL or kind == K_ANY:
            return read_number(p, n, pos, mask, f)
        return HAND_OVER
    if h == H_TEXT:
        if kind == K_STRING or kind == K_ANY:
            return read_text(p, n, pos, mask)
        return HAND_OVER
    if h == H_BINARY:
        if kind == K_BYTES or kind == K_ANY:
            return read_binary(p, n, pos, mask)
        return HAND_OVER
    if h == H_FINAL and not mask and (kind == K_FINAL or kind == K_ANY):
        pos[0] = n
        return PyBytes_FromStringAndSize(<const char *> p + q + 1, n - q - 1)
    return HAND_OVER


cdef inline bint prefix_matches(const unsigned char *p, Py_ssize_t n, bytes prefix) noexcept:
    cdef Py_ssize_t m = PyBytes_GET_SIZE(prefix)
    return n >= m and memcmp(p, PyBytes_AS_STRING(prefix), m) == 0
