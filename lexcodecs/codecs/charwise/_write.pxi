# The compiled writers of ``charwise`` (included by ``_compiled.pyx``): each returns 1
# (written) or 0 (hand the whole key over to the reference encoder, no exception).

cdef int put_number(Buf *b, double x) except -1:
    """The text of the JS number *x* (``reference_encode.number_text``), built in a local
    buffer and stored at once (a store per digit checked the buffer's room and the error
    state each time: an eighth of a decode, which writes every number back)."""
    cdef char digits[32]
    cdef unsigned char text[64]
    cdef int point = 0, n, e, i, k
    cdef unsigned char nine
    if isnan(x):
        buf_put_n(b, <const unsigned char *> b"DaN", 3)
        return 1
    if x == 0:
        buf_put_n(b, <const unsigned char *> b"FE  0M0", 7)
        return 1
    if isinf(x):
        buf_put_n(b, <const unsigned char *> (b"FF" if x > 0 else b"DD"), 2)
        return 1
    n = _shortest(x, digits, &point)
    e = point - 1 + C_BIAS
    # a negative number's digits (exponent and mantissa) are 9-complemented: '0' + '9' - c
    nine = 105 if x < 0 else 0
    text[0] = C_NEGATIVE if x < 0 else C_POSITIVE
    text[1] = C_EXPONENT
    text[2] = <unsigned char>(48 + e // 100)
    text[3] = <unsigned char>(48 + (e // 10) % 10)
    text[4] = <unsigned char>(48 + e % 10)
    text[5] = C_MANTISSA
    text[6] = <unsigned char>digits[0]
    text[7] = 0x2E  # .
    k = 8
    for i in range(1, n):
        text[k] = <unsigned char>digits[i]
        k += 1
    for i in range(C_PAD):
        text[k] = 48
        k += 1
    if nine:
        for i in range(2, k):
            if i != 5 and i != 7:
                text[i] = nine - text[i]
    buf_put_n(b, text, k)
    return 1


cdef int put_string(Buf *b, object s, bint in_array) except -1:
    """``J`` + the UTF-8 with 01 -> 01 01, 00 -> 01; in an array, ``?`` ``!`` ``"``
    escaped when it holds a ``!`` or ``"``. A str with a lone surrogate: hand over."""
    cdef const unsigned char *p
    cdef Py_ssize_t n, i
    cdef bint escape = False
    cdef unsigned char c
    if not utf8_of(s, &p, &n):
        return 0
    if in_array:
        for i in range(n):
            if p[i] == C_TERMINATOR or p[i] == C_SEPARATOR:
                escape = True
                break
    buf_room(b, 1 + 2 * n)
    b.p[b.n] = C_STRING
    b.n += 1
    for i in range(n):
        c = p[i]
        if c == C_STRING_ESCAPE:
            b.p[b.n] = C_STRING_ESCAPE
            b.p[b.n + 1] = C_STRING_ESCAPE
            b.n += 2
        elif c == C_NUL:
            b.p[b.n] = C_STRING_ESCAPE
            b.n += 1
        elif escape and (c == C_ESCAPE or c == C_TERMINATOR or c == C_SEPARATOR):
            b.p[b.n] = C_ESCAPE
            b.p[b.n + 1] = (C_ESCAPE_ESCAPE if c == C_ESCAPE else
                            C_ESCAPE_TERMINATOR if c == C_TERMINATOR else C_ESCAPE_SEPARATOR)
            b.n += 2
        else:
            b.p[b.n] = c
            b.n += 1
    return 1


cdef int put_value(Buf *b, object v, int depth, bint in_array) except -1:
    """One value; 0 to hand over (a subclass, an odd type, an int beyond 2**53, ...)."""
    cdef PyTypeObject *t = Py_TYPE(v)
    cdef long long n
    cdef Py_ssize_t i, count
    cdef tuple items
    if v is None:
        buf_put(b, C_NULL)
        return 1
    if v is UNDEFINED_VALUE:
        buf_put(b, C_UNDEFINED)
        return 1
    if t == &PyBool_Type:
        buf_put(b, C_TRUE if v is True else C_FALSE)
        return 1
    if t == &PyFloat_Type:
        return put_number(b, PyFloat_AS_DOUBLE(v))
    if t == &PyLong_Type:
        if not int64_of(v, &n) or n > INT_LIMIT or n < -INT_LIMIT:
            return 0
        return put_number(b, <double> n)
    if t == &PyUnicode_Type:
        return put_string(b, v, in_array)
    if t == &PyTuple_Type or t == &PyList_Type:
        if depth + 1 > MAX_DEPTH:
            return 0
        items = values_of(v)
        return put_array(b, items, depth + 1)
    return 0


cdef int put_array(Buf *b, tuple items, int depth) except -1:
    cdef Py_ssize_t i, count = PyTuple_GET_SIZE(items)
    buf_put(b, C_ARRAY)
    for i in range(count):
        if i:
            buf_put(b, C_SEPARATOR)
        if not put_value(b, <object> PyTuple_GET_ITEM(items, i), depth, True):
            return 0
    buf_put(b, C_TERMINATOR)
    return 1


cdef object encode_key(tuple items, bint array):
    """The key of *items* (bare one value, or the array of them), or HAND."""
    cdef Buf b
    cdef int ok
    buf_init(&b)
    try:
        if PyTuple_GET_SIZE(items) == 1 and not array:
            ok = put_value(&b, <object> PyTuple_GET_ITEM(items, 0), 0, False)
        else:
            ok = put_array(&b, items, 1)
        if not ok:
            return HAND
        return buf_bytes(&b)
    finally:
        buf_free(&b)
