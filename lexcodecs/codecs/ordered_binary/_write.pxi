# The writers of the compiled ordered-binary module, included by _compiled.pyx (one module).
#
# A writer puts one value into a Buf and returns 1, or returns 0 (nothing needs undoing: the
# caller drops the whole Buf) for anything the reference code must see: a subclass, a
# surrogate code point, a value to refuse, a key past lmdb-js's 8 KiB buffer.


# -- numbers --------------------------------------------------------------------------------


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
    the double nearer zero and the BigInt remainder (``_layout.pxi``'s :func:`ob_int`)."""
    cdef int overflow = 0
    cdef long long x
    cdef bint neg
    cdef unsigned long long mag
    cdef double nearest
    cdef unsigned char *end
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
    if not in_array and not neg:  # a bare number a double equals keeps fewer bytes
        nearest = <double> mag
        if nearest < 18446744073709551616.0 and <unsigned long long> nearest == mag:
            return put_number(b, double_bits(nearest), False, False)
    buf_room(b, OB_INT_MAX + SLACK)
    end = ob_int(b.p + b.n, neg, mag)
    if end == NULL:
        return 0  # lmdb-js does not carry into the high half here
    b.n = end - b.p
    return 1

# -- strings and the rest -------------------------------------------------------------------


cdef int put_str(Buf *b, object s) except -1:
    """A str through its UTF-8 (``_layout.pxi``'s :func:`ob_utf8`); one with a lone surrogate
    is the reference's (it pairs or replaces them). A long string must end
    ``STRING_MARGIN`` bytes before the buffer's end."""
    cdef const unsigned char *utf8
    cdef Py_ssize_t m, units
    if not utf8_of(s, &utf8, &m):
        return 0
    units = m if PyUnicode_IS_ASCII(s) else ob_units(utf8, m)
    buf_room(b, m + 1 if units >= LONG_UNITS else 2 * m + 1)
    b.n = ob_utf8(b.p + b.n, utf8, m, units) - b.p
    return 0 if units >= LONG_UNITS and b.n > BUFSZ - STRING_MARGIN else 1


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
