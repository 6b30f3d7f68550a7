# The readers of the compiled fdb-tuple module, included by _compiled.pyx (one module).
#
# A reader takes the key's bytes p[0:n] and the offset *at of an element, and returns the
# value with *at moved past it, or HAND (with *at unspecified) for anything the reference
# code must see: truncation, a missing terminator, bad UTF-8, a reserved code, nesting deeper
# than the limit (the codec's max_depth, at most MAX_DEPTH). Every length is checked against n before a byte is read. read_field checks
# a bound field's codes and range as well.


cdef object read_escaped(const unsigned char *p, Py_ssize_t n, Py_ssize_t *at,
                         unsigned char code):
    """A 01/02 element: bytes or str, un-escaped; HAND if unterminated or not UTF-8."""
    cdef Py_ssize_t start = at[0] + 1
    cdef Py_ssize_t i = start
    cdef Py_ssize_t end, j, o
    cdef Py_ssize_t zeros = 0
    cdef const unsigned char *z
    cdef unsigned char *out
    cdef object v
    cdef Buf tmp
    while True:
        if i >= n:
            return HAND
        z = <const unsigned char *> memchr(p + i, 0, n - i)
        if z == NULL:
            return HAND
        end = z - p
        if end + 1 < n and p[end + 1] == 0xFF:
            zeros += 1
            i = end + 2
            continue
        break
    at[0] = end + 1
    if zeros == 0:
        if code == 0x01:
            return PyBytes_FromStringAndSize(<const char *> p + start, end - start)
        return utf8_or_hand(p + start, end - start)
    if code == 0x01:
        v = PyBytes_FromStringAndSize(NULL, end - start - zeros)
        out = <unsigned char *> PyBytes_AS_STRING(v)
    else:
        buf_init(&tmp)
        buf_grow(&tmp, end - start)
        out = tmp.p
    o = 0
    j = start
    while j < end:
        out[o] = p[j]
        o += 1
        j += 2 if p[j] == 0 else 1  # the ff of an escape is skipped
    if code == 0x01:
        return v
    try:
        return utf8_or_hand(out, o)
    finally:
        buf_free(&tmp)


cdef inline object utf8_or_hand(const unsigned char *s, Py_ssize_t n):
    cdef PyObject *r = PyUnicode_DecodeUTF8(<const char *> s, n, NULL)
    if r == NULL:
        PyErr_Clear()
        return HAND  # invalid UTF-8: the reference code explains
    return steal(r)


cdef object read_int(const unsigned char *p, Py_ssize_t n, Py_ssize_t *at, IntInfo *info):
    """An integer element (0b..1d) at *at*, with its sign and magnitude in *info*."""
    cdef Py_ssize_t pos = at[0]
    cdef unsigned char c = p[pos]
    cdef int k
    cdef Py_ssize_t nb, i
    cdef unsigned long long x
    cdef unsigned char inverted[255]
    info.big = False
    if c != 0x0B and c != 0x1D:
        info.neg = c < 0x14
        k = c - 0x14 if c >= 0x14 else 0x14 - c
        if pos + 1 + k > n:
            return HAND
        x = get_be(p + pos + 1, k, 0)
        at[0] = pos + 1 + k
        if info.neg:
            x = (0xFFFFFFFFFFFFFFFFULL if k == 8 else (1ULL << (8 * k)) - 1) - x
        info.mag = x
        return int_of_mag(info.neg, x)
    if pos + 1 >= n:
        return HAND
    info.neg = c == 0x0B
    nb = p[pos + 1] ^ 0xFF if info.neg else p[pos + 1]
    if pos + 2 + nb > n:
        return HAND
    at[0] = pos + 2 + nb
    if nb <= 8:  # a non-minimal long form
        x = get_be(p + pos + 2, <int> nb, 0xFF if info.neg else 0)
        info.mag = x
        return int_of_mag(info.neg, x)
    info.big = True
    info.mag = 0
    if not info.neg:
        return lc_long_from_be(p + pos + 2, nb)
    for i in range(nb):
        inverted[i] = p[pos + 2 + i] ^ 0xFF
    return -lc_long_from_be(inverted, nb)


cdef object read_elem(const unsigned char *p, Py_ssize_t n, Py_ssize_t *at, int depth,
                      int limit):
    """The element at *at* (a top-level 00 is null), or HAND."""
    cdef Py_ssize_t pos = at[0]
    cdef unsigned char c = p[pos]
    cdef IntInfo info
    if c == 0x02 or c == 0x01:
        return read_escaped(p, n, at, c)
    if 0x0B <= c <= 0x1D:
        if c == 0x14:
            at[0] = pos + 1
            return ZERO
        return read_int(p, n, at, &info)
    if c == 0x21:
        if pos + 9 > n:
            return HAND
        at[0] = pos + 9
        return PyFloat_FromDouble(bits_double(unorder_bits(get_be(p + pos + 1, 8, 0), 8)))
    if c == 0x00:
        at[0] = pos + 1
        return None
    if c == 0x27 or c == 0x26:
        at[0] = pos + 1
        return c == 0x27
    if c == 0x05:
        return read_nested(p, n, at, depth, limit)
    if c == 0x30:
        if pos + 17 > n:
            return HAND
        at[0] = pos + 17
        return make_uuid(p + pos + 1)
    if c == 0x20:
        if pos + 5 > n:
            return HAND
        at[0] = pos + 5
        return make_float32(unorder_bits(get_be(p + pos + 1, 4, 0), 4))
    if c == 0x33:
        if pos + 13 > n:
            return HAND
        at[0] = pos + 13
        return make_stamp(p + pos + 1)
    return HAND  # reserved and unknown codes: the reference code explains


cdef object read_nested(const unsigned char *p, Py_ssize_t n, Py_ssize_t *at, int depth,
                        int limit):
    """The nested tuple whose 05 is at *at*, its elements at depth *depth* + 1; HAND if that
    is deeper than *limit* (the reference code refuses what is deeper than max_depth)."""
    cdef Py_ssize_t q = at[0] + 1
    cdef list out = []
    cdef object v
    if depth >= limit:
        return HAND
    while True:
        if q >= n:
            return HAND
        if p[q] == 0x00:
            if q + 1 < n and p[q + 1] == 0xFF:
                out.append(None)
                q += 2
                continue
            q += 1
            break
        v = read_elem(p, n, &q, depth + 1, limit)
        if v is HAND:
            return HAND
        out.append(v)
    at[0] = q
    return PyList_AsTuple(out)


cdef inline bint has_prefix(const unsigned char *p, Py_ssize_t n, bytes prefix) noexcept:
    cdef Py_ssize_t m = PyBytes_GET_SIZE(prefix)
    return m <= n and memcmp(p, PyBytes_AS_STRING(prefix), m) == 0


cdef object decode_elements(bytes key, bytes prefix, int limit):
    """Every element after *prefix*, or HAND."""
    cdef const unsigned char *p = <const unsigned char *> PyBytes_AS_STRING(key)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(key)
    cdef Py_ssize_t pos = PyBytes_GET_SIZE(prefix)
    cdef list out = []
    cdef object v
    if not has_prefix(p, n, prefix):
        return HAND
    while pos < n:
        v = read_elem(p, n, &pos, 0, limit)
        if v is HAND:
            return HAND
        out.append(v)
    return PyList_AsTuple(out)


cdef object read_field(FieldPlan *f, const unsigned char *p, Py_ssize_t n, Py_ssize_t *at,
                       int limit):
    """One field's element: null, or an element whose code fits the field, in range."""
    cdef unsigned char c = p[at[0]]
    cdef IntInfo info
    cdef object v
    if c == 0x00:
        at[0] += 1
        return None
    if f.kind == K_STRING:
        return read_escaped(p, n, at, c) if c == 0x02 else HAND
    if f.kind == K_INT:
        if c < 0x0B or c > 0x1D:
            return HAND
        if c == 0x14:
            at[0] += 1
            return ZERO
        v = read_int(p, n, at, &info)
        if f.ranged and v is not HAND and (info.big or (
                info.mag > (f.max_neg if info.neg else f.max_pos))):
            return HAND
        return v
    if f.kind == K_BYTES:
        return read_escaped(p, n, at, c) if c == 0x01 else HAND
    if f.kind == K_FLOAT64:
        return read_elem(p, n, at, 0, limit) if c == 0x21 else HAND
    if f.kind == K_BOOL:
        return read_elem(p, n, at, 0, limit) if c == 0x26 or c == 0x27 else HAND
    if f.kind == K_FLOAT32:
        return read_elem(p, n, at, 0, limit) if c == 0x20 else HAND
    if f.kind == K_UUID:
        return read_elem(p, n, at, 0, limit) if c == 0x30 else HAND
    if f.kind == K_TUPLE:
        return read_nested(p, n, at, 0, limit) if c == 0x05 else HAND
    return HAND
