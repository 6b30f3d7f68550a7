# The compiled writers of ``charwise`` (included by ``_compiled.pyx``): each returns 1
# (written) or 0 (hand the whole key over to the reference encoder, no exception).

cdef int put_number(Buf *b, double x) except -1:
    """The text of the JS number *x* (``_layout.pxi``)."""
    buf_room(b, CW_NUMBER + SLACK)
    b.n = cw_number(b.p + b.n, x) - b.p
    return 1


cdef int put_int(Buf *b, long long n) except -1:
    """The text of the JS number of the int *n* (|n| <= 2**53, ``_layout.pxi``)."""
    buf_room(b, CW_NUMBER + SLACK)
    b.n = cw_int(b.p + b.n, n < 0, <uint64_t>(-n if n < 0 else n)) - b.p
    return 1


cdef int put_string(Buf *b, object s, bint in_array) except -1:
    """``J`` and the string's escaped UTF-8 (``_layout.pxi``); a str with a lone surrogate:
    hand over."""
    cdef const unsigned char *p
    cdef Py_ssize_t n
    if not utf8_of(s, &p, &n):
        return 0
    buf_room(b, 1 + 2 * n + SLACK)
    b.p[b.n] = C_STRING
    b.n = cw_text(b.p + b.n + 1, p, n, in_array) - b.p
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
        return put_int(b, n)
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
