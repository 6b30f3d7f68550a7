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


#: the powers of ten a double holds exactly (Clinger's fast path: a decimal of at most 15
#: significant digits times one of these is correctly rounded by one multiply or divide)
cdef double EXACT_POW10[23]
EXACT_POW10[0] = 1.0
for _i in range(1, 23):
    EXACT_POW10[_i] = EXACT_POW10[_i - 1] * 10.0


cdef object read_number(const unsigned char *p, Py_ssize_t n):
    """The double ``p[0:n]`` reads as, or HAND (whether it is that double's own text is
    :func:`decode_key`'s check, on the whole key)."""
    cdef char text[80]
    cdef Py_ssize_t i, k = 0, last
    cdef bint neg
    cdef int exponent, digits = 0, scale
    cdef unsigned char zero, d
    cdef unsigned long long mantissa = 0
    cdef double x
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
    # the significant digits: the mantissa without its padding zeros (nines when negative)
    zero = 57 if neg else 48
    last = n - 1
    while last > 7 and p[last] == zero:
        last -= 1
    for i in range(6, last + 1):
        if i != 7:
            d = (57 - p[i]) if neg else (p[i] - 48)
            if digits < 19:
                mantissa = mantissa * 10 + d
            digits += 1
    scale = exponent - (digits - 1)
    if digits <= 15 and -22 <= scale <= 22:
        x = <double> mantissa
        x = x * EXACT_POW10[scale] if scale >= 0 else x / EXACT_POW10[-scale]
        return PyFloat_FromDouble(-x if neg else x)
    k += snprintf(text + k, 16, "e%d", exponent)
    text[k] = 0
    # no check that x is written back as this text here: decode_key writes the whole value
    # again and compares it with the key (a second shortest-digits pass per number was a
    # third of a number's decode)
    x = PyOS_string_to_double(text, NULL, NULL)
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
