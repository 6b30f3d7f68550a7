# The writers of the compiled bytewise module, included by _compiled.pyx (one module).
#
# A writer puts one value into a Buf and returns 1, or returns 0 (nothing needs undoing: the
# caller drops the whole Buf) for anything the reference code must see: a subclass, a
# surrogate code point, a value to refuse, an int beyond 2**53, a datetime not in UTC.


cdef inline int put_body(Buf *b, uint8_t tag, const unsigned char *s, Py_ssize_t n,
                         bint in_array, bint buffer) except -1:
    """A string's or Buffer's tag and body: raw at top level, escaped and ended in arrays."""
    buf_put(b, tag)
    if not in_array:
        buf_put_n(b, s, n)
        return 1
    buf_room(b, 2 * n + 1)
    b.n = bw_escaped(b.p + b.n, s, n, buffer) - b.p
    buf_put(b, C_END)
    return 1


cdef inline int put_number(Buf *b, uint8_t negative_tag, uint8_t positive_tag,
                           double x) except -1:
    buf_room(b, BW_NUMBER + SLACK)
    b.n = bw_number(b.p + b.n, negative_tag, positive_tag, x) - b.p
    return 1


cdef int put_int(Buf *b, object v) except -1:
    """An exact int of magnitude up to 2**53 (every one is a double); larger ones hand over."""
    cdef int overflow = 0
    cdef long long x = PyLong_AsLongLongAndOverflow(v, &overflow)
    if overflow != 0 or x > EXACT or x < -EXACT:
        return 0
    return put_number(b, C_NUMBER_NEG, C_NUMBER_POS, <double> x)


cdef int put_datetime(Buf *b, object v) except -1:
    """An exact datetime in UTC (``datetime.UTC``) of whole milliseconds."""
    cdef object ms, rest
    if v.tzinfo is not UTC_TZ:
        return 0
    ms, rest = divmod(v - EPOCH, MS)
    if rest:
        return 0
    return put_number(b, C_DATE_NEG, C_DATE_POS, <double> <long long> ms)


cdef int put_value(Buf *b, object v, bint in_array, int depth) except -1:
    """One value (arrays recursively, at most MAX_DEPTH deep): 1, or 0 to hand over."""
    cdef PyTypeObject *t = Py_TYPE(v)
    cdef const unsigned char *utf8
    cdef Py_ssize_t m, i
    cdef double d
    cdef tuple items
    if t == &PyUnicode_Type:
        if not utf8_of(v, &utf8, &m):
            return 0
        return put_body(b, C_STRING, utf8, m, in_array, False)
    if t == &PyFloat_Type:
        d = PyFloat_AS_DOUBLE(v)
        if d != d:
            return 0
        if isinf(d):
            buf_put(b, C_POS_INF if d > 0 else C_NEG_INF)
            return 1
        return put_number(b, C_NUMBER_NEG, C_NUMBER_POS, d)
    if t == &PyLong_Type:
        return put_int(b, v)
    if v is None:
        buf_put(b, C_NULL)
        return 1
    if t == &PyBool_Type:
        buf_put(b, C_TRUE if v is True else C_FALSE)
        return 1
    if t == &PyBytes_Type:
        return put_body(b, C_BUFFER, <const unsigned char *> PyBytes_AS_STRING(v),
                        PyBytes_GET_SIZE(v), in_array, True)
    if t == &PyByteArray_Type:
        return put_body(b, C_BUFFER, <const unsigned char *> PyByteArray_AS_STRING(v),
                        PyByteArray_GET_SIZE(v), in_array, True)
    if t == &PyTuple_Type or t == &PyList_Type:
        if depth + 1 > MAX_DEPTH:
            return 0
        items = values_of(v)
        buf_put(b, C_ARRAY)
        for i in range(PyTuple_GET_SIZE(items)):
            if put_value(b, <object> PyTuple_GET_ITEM(items, i), True, depth + 1) == 0:
                return 0
        buf_put(b, C_END)
        return 1
    if v is UNDEFINED_VALUE:
        buf_put(b, C_UNDEFINED)
        return 1
    if t == <PyTypeObject *> DATETIME:
        return put_datetime(b, v)
    return 0


cdef object encode_key(tuple values, bint array):
    """The key of *values* (see ``reference_encode.encode_values``), or HAND."""
    cdef Buf b
    buf_init(&b)
    try:
        if PyTuple_GET_SIZE(values) == 1 and not array:
            if put_value(&b, <object> PyTuple_GET_ITEM(values, 0), False, 0) == 0:
                return HAND
        elif put_value(&b, values, False, 0) == 0:
            return HAND
        return buf_bytes(&b)
    finally:
        buf_free(&b)
