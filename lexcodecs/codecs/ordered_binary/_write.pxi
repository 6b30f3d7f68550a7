# The writers of the compiled ordered-binary module, included by _compiled.pyx (one module).
#
# A writer puts one value into a Buf and returns 1, or returns 0 (nothing needs undoing: the
# caller drops the whole Buf) for anything the reference code must see: a subclass, a
# surrogate code point, a value to refuse, a key past lmdb-js's 8 KiB buffer.


# -- numbers --------------------------------------------------------------------------------


cdef inline unsigned long long shl(unsigned long long n, int by) noexcept:
    """JS BigInt ``n << by`` for small non-negative *n* (a negative *by* shifts right)."""
    if by >= 0:
        return n << by if by < 64 else 0
    return n >> (-by) if by > -64 else 0


cdef inline int bare_length(unsigned long long bits) noexcept:
    cdef unsigned long long low = bits & 0xFFFFFFFFULL
    cdef unsigned long long high = bits >> 32
    cdef int i
    for i in range(N_LENGTHS):
        if (low & LEN_LOW[i]) or (high & LEN_HIGH[i]):
            return LEN_BYTES[i]
    return 4


cdef inline int put_number(Buf *b, unsigned long long bits, bint negative,
                           bint in_array) except -1:
    """The number's 9-byte form (``_layout.pxi``), or the part a bare one keeps."""
    buf_room(b, OB_NUMBER + SLACK)
    ob_number(b.p + b.n, bits, negative)
    b.n += OB_NUMBER if (negative or in_array) else bare_length(bits)
    return 1


cdef inline int put_float(Buf *b, double d, bint in_array) except -1:
    if b.n + NUMBER_WRITE > BUFSZ:
        return 0
    if d != d:
        return put_number(b, CANON_NAN, False, in_array)
    return put_number(b, double_bits(d), d < 0, in_array)


cdef int put_int(Buf *b, object v, bint in_array) except -1:
    """An exact int of magnitude below 2**64 (2**63 when negative): the number's bytes, or
    the largest double below it and the BigInt remainder."""
    cdef int overflow = 0
    cdef long long x
    cdef bint neg
    cdef unsigned long long mag, bits, basemag, diff, top, group
    cdef double nearest
    cdef bint above
    cdef int exponent
    try:
        x = PyLong_AsLongLongAndOverflow(v, &overflow)
        if overflow < 0:
            return 0
        if overflow > 0:
            mag = PyLong_AsUnsignedLongLong(v)
            neg = False
        else:
            neg = x < 0
            mag = (<unsigned long long> (-(x + 1))) + 1 if neg else <unsigned long long> x
    except OverflowError:
        return 0
    if b.n + NUMBER_WRITE > BUFSZ:
        return 0
    nearest = <double> mag  # Number(n): to nearest, ties to even
    if not neg:
        above = nearest >= 18446744073709551616.0 or <unsigned long long> nearest > mag
        bits = double_bits(nearest)
        if above:
            bits -= 1
        basemag = <unsigned long long> bits_double(bits)
        diff = mag - basemag
    else:
        bits = double_bits(-nearest)
        if <unsigned long long> nearest < mag:
            if (bits & 0xFFFFFFFFULL) == 0xFFFFFFFFULL:
                return 0  # lmdb-js does not carry into the high half here
            bits += 1
        basemag = <unsigned long long> (-bits_double(bits))
        diff = basemag - mag
    if diff == 0:
        return put_number(b, bits, neg, in_array)
    buf_room(b, OB_NUMBER + SLACK)
    ob_number(b.p + b.n, bits, neg)
    exponent = <int> ((bits >> 52) & 0x7FF) - BIGINT_SHIFT
    top = shl(diff, -exponent)
    b.p[b.n + 8] |= <unsigned char> top
    diff -= shl(top, exponent)
    b.n += OB_NUMBER
    while True:
        exponent -= 7
        group = shl(diff, -exponent)
        buf_put(b, <unsigned char> ((group & 0xFF) | 0x80))
        diff -= shl(group, exponent)
        if diff == 0:
            break
    return 1

# -- strings and the rest -------------------------------------------------------------------


cdef int put_str(Buf *b, object s) except -1:
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(s)
    cdef int kind
    cdef void *data
    cdef Py_ssize_t i, units, m
    cdef unsigned int c
    cdef const unsigned char *utf8
    cdef unsigned char *q
    if n == 0:
        buf_put(b, C_PREFIX)
        return 1
    kind = PyUnicode_KIND(s)
    data = PyUnicode_DATA(s)
    if PyUnicode_READ(kind, data, 0) < FIRST_PLAIN:
        buf_put(b, C_PREFIX)
    if PyUnicode_IS_ASCII(s):
        if n >= LONG_UNITS:
            buf_put_n(b, <const unsigned char *> data, n)
            return 0 if b.n > BUFSZ - STRING_MARGIN else 1
        buf_grow(b, 2 * n)
        q = b.p + b.n
        for i in range(n):
            c = (<const unsigned char *> data)[i]
            if c <= C_ESCAPE:
                q[0] = C_ESCAPE
                q += 1
            q[0] = <unsigned char> c
            q += 1
        b.n = q - b.p
        return 1
    units = n
    for i in range(n):
        c = PyUnicode_READ(kind, data, i)
        if c > 0xFFFF:
            units += 1
        elif 0xD800 <= c <= 0xDFFF:
            return 0  # a surrogate code point: the reference pairs or replaces it
    if units >= LONG_UNITS:
        if not utf8_of(s, &utf8, &m):
            return 0
        buf_put_n(b, utf8, m)
        return 0 if b.n > BUFSZ - STRING_MARGIN else 1
    buf_grow(b, 4 * n)
    q = b.p + b.n
    for i in range(n):
        c = PyUnicode_READ(kind, data, i)
        if c <= C_ESCAPE:
            q[0] = C_ESCAPE
            q[1] = <unsigned char> c
            q += 2
        elif c < 0x80:
            q[0] = <unsigned char> c
            q += 1
        elif c < 0x800:
            q[0] = <unsigned char> (c >> 6 | 0xC0)
            q[1] = <unsigned char> (c & 0x3F | 0x80)
            q += 2
        elif c < 0x10000:
            q[0] = <unsigned char> (c >> 12 | 0xE0)
            q[1] = <unsigned char> (c >> 6 & 0x3F | 0x80)
            q[2] = <unsigned char> (c & 0x3F | 0x80)
            q += 3
        else:
            q[0] = <unsigned char> (c >> 18 | 0xF0)
            q[1] = <unsigned char> (c >> 12 & 0x3F | 0x80)
            q[2] = <unsigned char> (c >> 6 & 0x3F | 0x80)
            q[3] = <unsigned char> (c & 0x3F | 0x80)
            q += 4
    b.n = q - b.p
    return 1


cdef inline int put_raw(Buf *b, const char *s, Py_ssize_t n) except -1:
    if b.n + n > BUFSZ:
        return 0
    buf_put_n(b, <const unsigned char *> s, n)
    return 1


cdef int put_value(Buf *b, object v, bint in_array, int depth) except -1:
    """One value (an array written flat): 1, or 0 to hand the key over."""
    cdef PyTypeObject *t = Py_TYPE(v)
    cdef object d
    if t == &PyUnicode_Type:
        return put_str(b, v)
    if t == &PyFloat_Type:
        return put_float(b, PyFloat_AS_DOUBLE(v), in_array)
    if t == &PyLong_Type:
        return put_int(b, v, in_array)
    if v is None:
        buf_put(b, C_NULL)
        return 1
    if t == &PyBool_Type:
        if b.n + BOOL_WRITE > BUFSZ:
            return 0
        buf_put(b, C_TRUE if v is True else C_FALSE)
        return 1
    if t == &PyBytes_Type:
        return put_raw(b, PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v))
    if t == &PyByteArray_Type:
        return put_raw(b, PyByteArray_AS_STRING(v), PyByteArray_GET_SIZE(v))
    if t == &PyTuple_Type or t == &PyList_Type:
        return put_array(b, values_of(v), depth + 1)
    if t == <PyTypeObject *> SYMBOL_TYPE:
        d = getattr(v, "description", None)
        if Py_TYPE(d) != &PyUnicode_Type:
            return 0
        buf_put(b, C_SYMBOL)
        return put_str(b, d)
    return 0


cdef int put_array(Buf *b, tuple items, int depth) except -1:
    cdef Py_ssize_t i
    if depth > MAX_DEPTH:
        return 0
    for i in range(PyTuple_GET_SIZE(items)):
        if i:
            buf_put(b, C_SEP)
        if put_value(b, <object> PyTuple_GET_ITEM(items, i), True, depth) == 0:
            return 0
    return 1


cdef object encode_key(tuple values, bint array):
    """The key of *values* (see ``reference_encode.encode_values``), or HAND."""
    cdef Buf b
    cdef Py_ssize_t i, n = PyTuple_GET_SIZE(values)
    buf_init(&b)
    try:
        if n == 1 and not array:
            if put_value(&b, <object> PyTuple_GET_ITEM(values, 0), False, 0) == 0:
                return HAND
        else:
            for i in range(n):
                if i:
                    buf_put(&b, C_SEP)
                if put_value(&b, <object> PyTuple_GET_ITEM(values, i), True, 0) == 0:
                    return HAND
        if b.n > BUFSZ:
            return HAND
        return buf_bytes(&b)
    finally:
        buf_free(&b)
