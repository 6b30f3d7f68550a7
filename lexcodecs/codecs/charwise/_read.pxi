# The compiled reader of ``charwise`` (included by ``_compiled.pyx``): the strict reading of
# ``reference_decode``, iterative. Any key it does not read cleanly is HAND: the reference
# decoder then reads it, or words the DecodeError.

cdef object read_string(const unsigned char *p, Py_ssize_t n, bint in_array):
    """The string of the item text ``p[0:n]`` (after its ``J``), or HAND."""
    cdef Py_ssize_t i, m = 0
    cdef unsigned char *tmp
    cdef unsigned char *src
    cdef bint has_q = False, has_end = False, valid = True
    cdef unsigned char c
    cdef object out
    for i in range(n):
        c = p[i]
        if c == C_NUL:
            return HAND
        if c == C_ESCAPE:
            has_q = True
    tmp = <unsigned char *> PyMem_Malloc(n + 1)
    if tmp == NULL:
        raise MemoryError()
    try:
        src = <unsigned char *> p
        if in_array and has_q:
            # undo ?@ ?? ?% when valid and the result holds ! or ": encode escaped it
            i = 0
            while i < n:
                c = p[i]
                if c == C_ESCAPE:
                    if i + 1 >= n:
                        valid = False
                        break
                    c = p[i + 1]
                    if c == C_ESCAPE_ESCAPE:
                        tmp[m] = C_ESCAPE
                    elif c == C_ESCAPE_TERMINATOR:
                        tmp[m] = C_TERMINATOR
                        has_end = True
                    elif c == C_ESCAPE_SEPARATOR:
                        tmp[m] = C_SEPARATOR
                        has_end = True
                    else:
                        valid = False
                        break
                    i += 2
                else:
                    tmp[m] = c
                    i += 1
                m += 1
            if valid and has_end:
                src = tmp
                n = m
        # 01 01 -> 01, a lone 01 -> 00, in place (the output never outruns the input)
        m = 0
        i = 0
        while i < n:
            c = src[i]
            if c == C_STRING_ESCAPE:
                if i + 1 < n and src[i + 1] == C_STRING_ESCAPE:
                    i += 2
                else:
                    c = C_NUL
                    i += 1
            else:
                i += 1
            tmp[m] = c
            m += 1
        try:
            out = PyUnicode_DecodeUTF8(<const char *> tmp, m, NULL)
        except UnicodeDecodeError:
            return HAND
        return out
    finally:
        PyMem_Free(tmp)


cdef object read_number(const unsigned char *p, Py_ssize_t n):
    """The double whose text is exactly ``p[0:n]``, or HAND (checked by writing it again)."""
    cdef char text[80]
    cdef Py_ssize_t i, k = 0
    cdef bint neg
    cdef int exponent
    cdef double x
    cdef Buf b
    if n > 64 or n < 2:
        return HAND
    if n == 3 and memcmp(p, b"DaN", 3) == 0:
        return PyFloat_FromDouble(NAN)
    if n == 2 and memcmp(p, b"FF", 2) == 0:
        return PyFloat_FromDouble(INFINITY)
    if n == 2 and memcmp(p, b"DD", 2) == 0:
        return PyFloat_FromDouble(-INFINITY)
    if n == 7 and memcmp(p, b"FE  0M0", 7) == 0:
        return PyFloat_FromDouble(0.0)
    # [DF] E ddd M d . d+
    if n < 9 or p[1] != C_EXPONENT or p[5] != C_MANTISSA or p[7] != 0x2E:
        return HAND
    neg = p[0] == C_NEGATIVE
    exponent = 0
    for i in range(2, 5):
        if p[i] < 48 or p[i] > 57:
            return HAND
        exponent = exponent * 10 + (57 - p[i] if neg else p[i] - 48)
    exponent -= C_BIAS
    if neg:
        text[k] = 45  # -
        k += 1
    for i in range(6, n):
        if i == 7:
            text[k] = 0x2E
        elif p[i] < 48 or p[i] > 57:
            return HAND
        else:
            text[k] = <char>(105 - p[i] if neg else p[i])  # 9-complement: '0'+'9' - c
        k += 1
    k += snprintf(text + k, 16, "e%d", exponent)
    text[k] = 0
    x = PyOS_string_to_double(text, NULL, NULL)
    buf_init(&b)
    try:
        put_number(&b, x)
        if b.n != n or memcmp(b.p, p, n) != 0:
            return HAND
    finally:
        buf_free(&b)
    return PyFloat_FromDouble(x)


cdef object read_scalar(const unsigned char *p, Py_ssize_t n, bint in_array):
    """The value of one item's text (no array), or HAND."""
    cdef unsigned char c = p[0]
    if c == C_NULL or c == C_FALSE or c == C_TRUE or c == C_UNDEFINED:
        if n != 1:
            return HAND
        return (None if c == C_NULL else False if c == C_FALSE else
                True if c == C_TRUE else UNDEFINED_VALUE)
    if c == C_STRING:
        return read_string(p + 1, n - 1, in_array)
    if c == C_NEGATIVE or c == C_POSITIVE:
        return read_number(p, n)
    return HAND


cdef object decode_text(bytes key):
    """The one value of *key*, or HAND."""
    cdef const unsigned char *p = <const unsigned char *> PyBytes_AS_STRING(key)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(key), at = 0, end
    cdef list stack = []
    cdef object value
    if n == 0:
        return HAND
    while True:
        if at >= n:
            return HAND
        if p[at] == C_ARRAY:
            if len(stack) >= MAX_DEPTH:
                return HAND
            stack.append([])
            at += 1
            if at < n and p[at] == C_TERMINATOR:
                at += 1
                stack.pop()
                value = ()
            else:
                continue
        else:
            if stack:
                end = at
                while end < n and p[end] != C_SEPARATOR and p[end] != C_TERMINATOR:
                    end += 1
                if end >= n or end == at:
                    return HAND
            else:
                end = n
            value = read_scalar(p + at, end - at, len(stack) > 0)
            if value is HAND:
                return HAND
            at = end
        while True:
            if not stack:
                if at != n:
                    return HAND
                return value
            (<list> stack[len(stack) - 1]).append(value)
            if at >= n:
                return HAND
            if p[at] == C_SEPARATOR:
                at += 1
                break
            if p[at] != C_TERMINATOR:
                return HAND
            at += 1
            value = PyList_AsTuple(stack.pop())
