# The reader of the compiled bytewise module, included by _compiled.pyx (one module).
#
# decode_key reads a key strictly (reference_decode.decode_value's rules) with an explicit
# stack of arrays; it returns HAND, never an error, for anything the reference refuses.


cdef inline unsigned long long be64(const unsigned char *p) noexcept:
    cdef unsigned long long x = 0
    cdef int k
    for k in range(8):
        x = (x << 8) | p[k]
    return x


cdef object read_double(const unsigned char *p, Py_ssize_t n, Py_ssize_t at, int tag,
                        int positive_tag, double *out):
    """The finite double after the tag at *at*, checked canonical: None, or HAND."""
    cdef unsigned long long bits
    cdef double x
    if at + 1 + BODY > n:
        return HAND
    bits = be64(p + at + 1)
    if tag != positive_tag:
        bits = ~bits
    if bits >> 63:
        return HAND
    x = bits_double(bits)
    if not isfinite(x) or (tag != positive_tag and x == 0.0):
        return HAND
    out[0] = -x if tag != positive_tag else x
    return None


cdef object read_text(const unsigned char *p, Py_ssize_t start, Py_ssize_t stop,
                      bint escaped, bint buffer):
    """A string's or Buffer's body ``p[start:stop]``, unescaped when *escaped*, or HAND."""
    cdef unsigned char *tmp
    cdef Py_ssize_t i, m = 0
    cdef unsigned char c, nxt
    cdef object out
    if not escaped:
        if buffer:
            return PyBytes_FromStringAndSize(<const char *> p + start, stop - start)
        try:
            return PyUnicode_DecodeUTF8(<const char *> p + start, stop - start, NULL)
        except UnicodeDecodeError:
            return HAND
    tmp = <unsigned char *> PyMem_Malloc(stop - start + 1)
    if tmp == NULL:
        raise MemoryError()
    try:
        i = start
        while i < stop:
            c = p[i]
            if c == C_ESCAPE_LOW or (buffer and c >= C_ESCAPE_HIGH):
                if c == 0xFF or i + 1 >= stop:
                    return HAND
                nxt = p[i + 1]
                if c == C_ESCAPE_LOW and (nxt == 1 or nxt == 2):
                    tmp[m] = nxt - 1
                elif c == C_ESCAPE_HIGH and (nxt == 0xFD or nxt == 0xFE):
                    tmp[m] = nxt + 1
                else:
                    return HAND
                i += 2
            else:
                tmp[m] = c
                i += 1
            m += 1
        return read_text(tmp, 0, m, False, buffer)
    finally:
        PyMem_Free(tmp)


cdef object read_scalar(const unsigned char *p, Py_ssize_t n, Py_ssize_t at, bint in_array,
                        Py_ssize_t *end):
    """The value (not an array) whose tag is at *at*, or HAND."""
    cdef int tag = p[at]
    cdef double x
    cdef const void *found
    cdef Py_ssize_t stop
    end[0] = at + 1
    if tag == C_NULL:
        return None
    if tag == C_FALSE:
        return False
    if tag == C_TRUE:
        return True
    if tag == C_NEG_INF:
        return NEG_INF_VALUE
    if tag == C_POS_INF:
        return POS_INF_VALUE
    if tag == C_UNDEFINED:
        return UNDEFINED_VALUE
    if tag == C_NUMBER_NEG or tag == C_NUMBER_POS:
        if read_double(p, n, at, tag, C_NUMBER_POS, &x) is HAND:
            return HAND
        end[0] = at + 1 + BODY
        return PyFloat_FromDouble(x)
    if tag == C_DATE_NEG or tag == C_DATE_POS:
        if read_double(p, n, at, tag, C_DATE_POS, &x) is HAND:
            return HAND
        if floor(x) != x or x < MIN_MS or x > MAX_MS:
            return HAND
        end[0] = at + 1 + BODY
        return EPOCH + timedelta(milliseconds=<long long> x)
    if tag == C_STRING or tag == C_BUFFER:
        if not in_array:
            end[0] = n
            return read_text(p, at + 1, n, False, tag == C_BUFFER)
        found = memchr(p + at + 1, C_END, n - at - 1)
        if found == NULL:
            return HAND
        stop = <const unsigned char *> found - p
        end[0] = stop + 1
        return read_text(p, at + 1, stop, True, tag == C_BUFFER)
    return HAND


cdef object decode_key(bytes key):
    """The one value of *key* (``reference_decode.decode_value``), or HAND."""
    cdef const unsigned char *p = <const unsigned char *> PyBytes_AS_STRING(key)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(key)
    cdef Py_ssize_t at, end = 0
    cdef int c
    cdef list stack
    cdef object value
    if n == 0:
        return HAND
    if p[0] != C_ARRAY:
        value = read_scalar(p, n, 0, False, &end)
        if value is HAND or end != n:
            return HAND
        return value
    stack = [[]]
    at = 1
    while True:
        if at >= n:
            return HAND
        c = p[at]
        if c == C_END:
            value = tuple(<list> stack.pop())
            at += 1
            if not stack:
                return value if at == n else HAND
            (<list> stack[len(stack) - 1]).append(value)
        elif c == C_ARRAY:
            if len(stack) >= MAX_DEPTH:
                return HAND
            stack.append([])
            at += 1
        else:
            value = read_scalar(p, n, at, True, &end)
            if value is HAND:
                return HAND
            (<list> stack[len(stack) - 1]).append(value)
            at = end
