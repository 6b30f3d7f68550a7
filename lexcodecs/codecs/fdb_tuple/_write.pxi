# The writers of the compiled fdb-tuple module, included by _compiled.pyx (one module).
#
# A writer puts one element into a Buf and returns 1, or returns 0 (nothing needs undoing:
# the caller drops the whole Buf) for anything the reference code must see: a subclass, a
# tampered object, a value to refuse. -1 is a real error (MemoryError). put_value dispatches
# on the exact type, as reference_encode's table does; put_field coerces a bound field's
# value first, as reference_encode.FIELD_COERCE does.


cdef inline int put_fixed(Buf *b, bint neg, unsigned long long mag) except -1:
    """A magnitude below 2**64 in the fixed forms 14 ± n: ``_layout.pxi``'s :func:`fdb_int`
    (of the two's complement, ``0 - mag`` for a negative)."""
    buf_room(b, FDB_INT_MAX + SLACK)
    b.n = fdb_int(b.p + b.n, neg, (0 - mag) if neg else mag, 0) - b.p
    return 1


cdef int put_big(Buf *b, object v, bint neg, bint java) except -1:
    """An int outside -2**63..2**63-1: a fixed form up to 8 bytes, else the 0b/1d form."""
    cdef object m = -v if neg else v
    cdef long long nbits = lc_num_bits(m)
    cdef Py_ssize_t nb = (nbits + 7) >> 3
    cdef unsigned long long mag
    cdef Py_ssize_t i
    if nbits < 0:
        PyErr_Clear()
        return 0
    if nb > 255:
        return 0  # beyond the length byte: the reference code refuses it
    if nb <= 8:
        mag = PyLong_AsUnsignedLongLong(m)
        if mag != 0xFFFFFFFFFFFFFFFFULL or java:
            return put_fixed(b, neg, mag)
    buf_grow(b, nb + 2)
    b.p[b.n] = 0x0B if neg else 0x1D
    b.p[b.n + 1] = <unsigned char> (nb ^ 0xFF if neg else nb)
    if lc_long_to_be(m, b.p + b.n + 2, nb) < 0:
        PyErr_Clear()
        return 0
    if neg:
        for i in range(nb):
            b.p[b.n + 2 + i] ^= 0xFF
    b.n += nb + 2
    return 1


cdef int put_int(Buf *b, object v, bint java) except -1:
    """An exact int."""
    cdef int overflow = 0
    cdef long long x = PyLong_AsLongLongAndOverflow(v, &overflow)
    if overflow:
        return put_big(b, v, overflow < 0, java)
    buf_room(b, FDB_INT_MAX + SLACK)
    b.n = fdb_int(b.p + b.n, x < 0, <unsigned long long> x, 0) - b.p
    return 1


cdef inline int put_double(Buf *b, double d) except -1:
    buf_put(b, 0x21)
    buf_put_be(b, order_bits(double_bits(d), 8), 8)
    return 1


cdef inline int put_float32_bits(Buf *b, unsigned long long bits) except -1:
    buf_put(b, 0x20)
    buf_put_be(b, order_bits(bits, 4), 4)
    return 1


cdef int put_float32(Buf *b, object v) except -1:
    """An exact Float32: its bits, once they agree with its float value."""
    cdef object bits = slot(F32_BITS, v)
    cdef unsigned long long u
    if bits is HAND or not uint64_of(bits, &u) or u > 0xFFFFFFFFULL:
        return 0
    if double_bits(f32_value(u)) != double_bits(PyFloat_AS_DOUBLE(v)):
        return 0
    return put_float32_bits(b, u)


cdef int put_str(Buf *b, object v) except -1:
    cdef const unsigned char *s
    cdef Py_ssize_t n
    if not utf8_of(v, &s, &n):
        return 0  # a lone surrogate: the reference code explains
    buf_put(b, 0x02)
    buf_put_escaped(b, s, n)
    buf_put(b, 0x00)
    return 1


cdef int put_bytes(Buf *b, object v) except -1:
    buf_put(b, 0x01)
    buf_put_escaped(b, <const unsigned char *> PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v))
    buf_put(b, 0x00)
    return 1


cdef int put_uuid(Buf *b, object v) except -1:
    """An exact UUID, whose ``int`` must be an exact int in 0..2**128-1."""
    cdef object i = slot(UUID_INT, v)
    if i is HAND or not PyLong_CheckExact(i):
        return 0
    buf_grow(b, 17)
    if lc_long_to_be(i, b.p + b.n + 1, 16) < 0:
        PyErr_Clear()
        return 0
    b.p[b.n] = 0x30
    b.n += 17
    return 1


cdef int put_stamp(Buf *b, object v, Py_ssize_t *stamp) except -1:
    """An exact Versionstamp. Incomplete: only with *stamp* (encode_with_versionstamp), once;
    its offset is stored there."""
    cdef object tr = slot(STAMP_TR, v)
    cdef object user = slot(STAMP_USER, v)
    cdef unsigned long long u
    cdef int i
    if user is HAND or not uint64_of(user, &u) or u > 0xFFFF:
        return 0
    if tr is None:
        if stamp == NULL or stamp[0] >= 0:
            return 0
        buf_put(b, 0x33)
        stamp[0] = b.n
        for i in range(10):
            buf_put(b, 0xFF)
    elif PyBytes_CheckExact(tr) and PyBytes_GET_SIZE(tr) == 10:
        buf_put(b, 0x33)
        buf_put_n(b, <const unsigned char *> PyBytes_AS_STRING(tr), 10)
    else:
        return 0
    buf_put_be(b, u, 2)
    return 1


cdef int put_value(Buf *b, object v, bint nested, bint java, int depth, int limit,
                   Py_ssize_t *stamp) except -1:
    """One element, by its exact type (spec §8); 0 for anything else."""
    cdef PyTypeObject *t = Py_TYPE(v)
    if t == &PyUnicode_Type:
        return put_str(b, v)
    if t == &PyLong_Type:
        return put_int(b, v, java)
    if t == &PyBytes_Type:
        return put_bytes(b, v)
    if t == &PyFloat_Type:
        return put_double(b, PyFloat_AS_DOUBLE(v))
    if v is None:
        buf_put(b, 0x00)
        if nested:
            buf_put(b, 0xFF)
        return 1
    if t == &PyBool_Type:
        buf_put(b, 0x27 if v is True else 0x26)
        return 1
    if t == &PyTuple_Type or t == &PyList_Type:
        return put_nested(b, v, java, depth, limit, stamp)
    if t == <PyTypeObject *> F32_TYPE:
        return put_float32(b, v)
    if t == <PyTypeObject *> UUID_TYPE:
        return put_uuid(b, v)
    if t == <PyTypeObject *> STAMP_TYPE:
        return put_stamp(b, v, stamp)
    return 0  # subclasses, fdb.tuple's objects, anything else: the reference code


cdef inline Py_ssize_t seq_size(object seq, bint is_tuple) noexcept:
    return PyTuple_GET_SIZE(seq) if is_tuple else PyList_GET_SIZE(seq)


cdef inline object seq_item(object seq, bint is_tuple, Py_ssize_t i):
    # a list's size is read again before every item: nothing here runs Python code, but
    # an allocation may run the collector, and a finaliser may change the list
    return <object> (PyTuple_GET_ITEM(seq, i) if is_tuple else PyList_GET_ITEM(seq, i))


cdef int put_nested(Buf *b, object seq, bint java, int depth, int limit,
                    Py_ssize_t *stamp) except -1:
    """A tuple or list whose elements are at depth *depth* + 1; 0 (hand over) if that is
    deeper than *limit*: the reference code refuses what is deeper than max_depth."""
    cdef bint is_tuple = Py_TYPE(seq) == &PyTuple_Type
    cdef Py_ssize_t i = 0
    cdef int r
    if depth >= limit:
        return 0
    buf_put(b, 0x05)
    while i < seq_size(seq, is_tuple):
        r = put_value(b, seq_item(seq, is_tuple, i), True, java, depth + 1, limit, stamp)
        if r <= 0:
            return r
        i += 1
    buf_put(b, 0x00)
    return 1


cdef object encode_elements(object values, bytes prefix, bint java, int limit,
                            Py_ssize_t *stamp):
    """``prefix ‖ elements`` of an exact tuple or list, or HAND."""
    cdef PyTypeObject *t = Py_TYPE(values)
    cdef bint is_tuple = t == &PyTuple_Type
    cdef Py_ssize_t i = 0
    cdef Buf b
    if not is_tuple and t != &PyList_Type:
        return HAND
    buf_init(&b)
    try:
        buf_put_n(&b, <const unsigned char *> PyBytes_AS_STRING(prefix),
                  PyBytes_GET_SIZE(prefix))
        while i < seq_size(values, is_tuple):
            if put_value(&b, seq_item(values, is_tuple, i), False, java, 0, limit,
                         stamp) == 0:
                return HAND
            i += 1
        if stamp != NULL:
            if stamp[0] < 0:
                return HAND  # no incomplete stamp: the reference code says so
            buf_put_be(&b, stamp[0], 1)
            buf_put_be(&b, stamp[0] >> 8, 1)
            buf_put_be(&b, stamp[0] >> 16, 1)
            buf_put_be(&b, stamp[0] >> 24, 1)
        return buf_bytes(&b)
    finally:
        buf_free(&b)


cdef int put_field(Buf *b, FieldPlan *f, object v, bint java, int limit) except -1:
    """One field's value (coerced as reference_encode.FIELD_COERCE does), or 0."""
    cdef PyTypeObject *t
    cdef int overflow = 0
    cdef long long x
    cdef unsigned long long u
    cdef double d
    cdef float f32
    cdef unsigned int b32
    if v is None:
        buf_put(b, 0x00)
        return 1
    t = Py_TYPE(v)
    if f.kind == K_STRING:
        return put_str(b, v) if t == &PyUnicode_Type else 0
    if f.kind == K_INT:
        if t != &PyLong_Type:
            return 0
        if f.ranged:
            x = PyLong_AsLongLongAndOverflow(v, &overflow)
            if overflow < 0:
                return 0
            if overflow > 0:
                if not uint64_of(v, &u) or u > f.max_pos:
                    return 0
            elif x < 0:
                if (<unsigned long long> (-(x + 1))) + 1 > f.max_neg:
                    return 0
            elif <unsigned long long> x > f.max_pos:
                return 0
        return put_int(b, v, java)
    if f.kind == K_BYTES:
        return put_bytes(b, v) if t == &PyBytes_Type else 0
    if f.kind == K_FLOAT64:
        if t == &PyFloat_Type or t == <PyTypeObject *> F32_TYPE:
            return put_double(b, PyFloat_AS_DOUBLE(v))
        if t != &PyLong_Type:
            return 0
        x = PyLong_AsLongLongAndOverflow(v, &overflow)
        if not overflow and -9007199254740992 <= x <= 9007199254740992:
            return put_double(b, <double> x)
        d = PyLong_AsDouble(v)
        if d == -1.0 and PyErr_Occurred() != NULL:
            PyErr_Clear()  # too large for a double: the reference code refuses it
            return 0
        if isinf(d) or \
                PyObject_RichCompareBool(PyLong_FromDouble(d), v, 2) != 1:
            return 0
        return put_double(b, d)
    if f.kind == K_BOOL:
        if t != &PyBool_Type:
            return 0
        buf_put(b, 0x27 if v is True else 0x26)
        return 1
    if f.kind == K_FLOAT32:
        if t == <PyTypeObject *> F32_TYPE:
            return put_float32(b, v)
        if t == &PyFloat_Type:
            return put_float32_bits(b, f32_bits(PyFloat_AS_DOUBLE(v)))
        if t != &PyLong_Type:
            return 0
        x = PyLong_AsLongLongAndOverflow(v, &overflow)
        if overflow:
            return 0
        f32 = <float> x  # one rounding, to nearest, as Float32(int) rounds
        memcpy(&b32, &f32, 4)
        return put_float32_bits(b, b32)
    if f.kind == K_UUID:
        return put_uuid(b, v) if t == <PyTypeObject *> UUID_TYPE else 0
    if f.kind == K_TUPLE:
        if t == &PyTuple_Type or t == &PyList_Type:
            return put_nested(b, v, java, 0, limit, NULL)
        return 0
    return 0
