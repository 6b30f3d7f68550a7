# The writers of the compiled LexKey module: included by _compiled.pyx (textually, so these
# inline functions see its constants and cached types, and compile into the one module).
#
# Writers (put_*) append one value to a Buf and return 1, or 0 to hand the whole key over to
# the reference code (a value it refuses or a type this code does not read); -1 is a real
# failure (MemoryError). Each one checks the exact type before it reads an object's
# internals, and none shapes an error message.

# -- reading the values to write ------------------------------------------------------------


cdef inline int typed_index(object t) noexcept:
    """The index in TYPED of type *t*, or -1."""
    cdef int i
    for i in range(8):
        if t is <object>(<tuple>TYPED)[i]:
            return i
    return -1


cdef inline int signed_of(object v, long long *out) noexcept:
    """An int (the caller checked its exact type) in int64: 1 and the value, else 0."""
    cdef int overflow = 0
    cdef long long x
    try:
        x = PyLong_AsLongLongAndOverflow(v, &overflow)
    except BaseException:
        PyErr_Clear()
        return 0
    if overflow:
        return 0
    out[0] = x
    return 1


cdef inline int unsigned_of(object v, unsigned long long *out) noexcept:
    """An int (the caller checked its exact type) in 0..2**64-1: 1 and the value, else 0."""
    cdef unsigned long long x
    try:
        x = PyLong_AsUnsignedLongLong(v)  # OverflowError for a negative int too
    except BaseException:
        PyErr_Clear()
        return 0
    out[0] = x
    return 1


cdef inline long long days_from_civil(long long y, long long m, long long d) noexcept:
    """Days since 1970-01-01 of a proleptic Gregorian date (years 1..9999)."""
    cdef long long era, yoe, doy, doe
    if m <= 2:
        y -= 1
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m - 3 if m > 2 else m + 9) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468

# -- writing values -------------------------------------------------------------------------


cdef inline int put_signed(Buf *b, long long x, int width) except -1:
    """Big-endian, the sign bit flipped (``buf_put_be``: ``_raw.pxd``'s one store)."""
    buf_put_be(b, (<unsigned long long>x) ^ (1ULL << (8 * width - 1)), width)
    return 1


cdef inline int put_float64(Buf *b, double x, bint go_nan) except -1:
    cdef unsigned long long bits
    if x != x:
        if not go_nan:
            return 0
        buf_put_be(b, GO_NAN64, 8)
        return 1
    bits = double_bits(x)
    # the IEEE order transform by the literal rule (``_raw.pxd``'s raw_order): -0.0 < 0 is
    # false, so -0.0 gets only its sign bit flipped (00..00)
    buf_put_be(b, raw_order(bits, x < 0, 8), 8)
    return 1


cdef inline int put_float32(Buf *b, double x, bint native, bint go_nan) except -1:
    """A binary32 value *x*: widened in lexkey, 32 bits in lexkey-legacy. A value that is not
    binary32 (a tampered Float32) is handed over."""
    cdef float f
    cdef unsigned int bits
    if x != x:
        if not go_nan:
            return 0
        if native:
            buf_put_be(b, GO_NAN32, 4)
        else:
            buf_put_be(b, GO_NAN64, 8)
        return 1
    f = to_binary32(x)
    if <double>f != x:
        return 0
    if not native:
        return put_float64(b, x, go_nan)
    memcpy(&bits, &f, 4)
    buf_put_be(b, raw_order(bits, x < 0, 4), 4)  # the literal rule, as for float64
    return 1


cdef inline int put_ns(Buf *b, long long us) except -1:
    if us < US_MIN or us > US_MAX:
        return 0
    return put_signed(b, us * 1000, 8)


cdef inline int delta_us(object v, long long *out) noexcept:
    """The microseconds of an exact timedelta, when they are nanoseconds an int64 holds."""
    cdef long long days = PyDateTime_DELTA_GET_DAYS(v)
    if days > DAYS_MAX or days < -DAYS_MAX:
        return 0
    out[0] = (days * 86400 + PyDateTime_DELTA_GET_SECONDS(v)) * 1000000 \
        + PyDateTime_DELTA_GET_MICROSECONDS(v)
    return 1


cdef int put_instant(Buf *b, object v) except -1:
    """An exact datetime: nanoseconds since the epoch. Naive: handed over (refused)."""
    cdef object tz = datetime_tzinfo(v)
    cdef object offset
    cdef long long offset_us = 0, us
    if tz is None:
        return 0
    if tz is not UTC:
        try:
            offset = v.utcoffset()  # the tzinfo's own code: anything may happen
        except Exception:
            PyErr_Clear()
            return 0
        if offset is None or not PyDelta_CheckExact(offset) or not delta_us(offset, &offset_us):
            return 0
    us = days_from_civil(PyDateTime_GET_YEAR(v), PyDateTime_GET_MONTH(v), PyDateTime_GET_DAY(v))
    us = ((us * 24 + PyDateTime_DATE_GET_HOUR(v)) * 60 + PyDateTime_DATE_GET_MINUTE(v)) * 60 \
        + PyDateTime_DATE_GET_SECOND(v)
    us = us * 1000000 + PyDateTime_DATE_GET_MICROSECOND(v) - offset_us
    return put_ns(b, us)


cdef int put_duration(Buf *b, object v) except -1:
    cdef long long us
    if not delta_us(v, &us):
        return 0
    return put_ns(b, us)


cdef int put_uuid(Buf *b, object v) except -1:
    """An exact UUID by its ``int`` slot, which must be an exact int of 128 bits."""
    cdef object n
    cdef unsigned long long hi, lo
    try:
        n = v.int
    except Exception:  # a tampered UUID may have lost it
        PyErr_Clear()
        return 0
    if not PyLong_CheckExact(n):
        return 0
    lo = PyLong_AsUnsignedLongLongMask(n)
    if not unsigned_of(n >> 64, &hi):  # negative, or 2**128 and up
        return 0
    buf_put_be(b, hi, 8)
    buf_put_be(b, lo, 8)
    return 1


cdef int put_buffer(Buf *b, object v) except -1:
    """bytes, bytearray or memoryview (exact types): the raw bytes."""
    cdef Py_buffer view
    if PyBytes_CheckExact(v):
        buf_put_n(b, <const unsigned char *>PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v))
        return 1
    if PyByteArray_CheckExact(v):
        buf_put_n(b, <const unsigned char *>PyByteArray_AS_STRING(v), PyByteArray_GET_SIZE(v))
        return 1
    if type(v) is not MEMORYVIEW:
        return 0
    try:  # released, or not C-contiguous: the reference decides
        PyObject_GetBuffer(v, &view, PyBUF_SIMPLE)
    except Exception:
        PyErr_Clear()
        return 0
    try:
        buf_put_n(b, <const unsigned char *>view.buf, view.len)
    finally:
        PyBuffer_Release(&view)
    return 1


cdef inline int put_text(Buf *b, object v) except -1:
    cdef const unsigned char *s
    cdef Py_ssize_t n
    if not PyUnicode_CheckExact(v) or not utf8_of(v, &s, &n):  # a lone surrogate has none
        return 0
    buf_put_n(b, s, n)
    return 1


cdef int put_value(Buf *b, object v, bint native, bint go_nan) except -1:
    """One value without a schema, by its exact type (spec §2)."""
    cdef object t = type(v)
    cdef long long x
    cdef unsigned long long u
    cdef int k
    if t is str:
        return put_text(b, v)
    if t is int:
        if not signed_of(v, &x):
            return 0
        return put_signed(b, x, 8)
    if t is float:
        return put_float64(b, PyFloat_AS_DOUBLE(v), go_nan)
    if t is bool:
        buf_put(b, 1 if v is True else 0)
        return 1
    if v is None:
        buf_put(b, 0)
        return 1
    if t is bytes or t is bytearray or t is MEMORYVIEW:
        return put_buffer(b, v)
    if t is UUID:
        return put_uuid(b, v)
    if PyDateTime_CheckExact(v):
        return put_instant(b, v)
    if PyDelta_CheckExact(v):
        return put_duration(b, v)
    if t is FLOAT32:
        return put_float32(b, PyFloat_AS_DOUBLE(v), native, go_nan)
    if t is END_TYPE:
        buf_put(b, 0xFF)
        return 1
    k = typed_index(t)
    if k < 0:
        return 0
    if TYPED_SIGNED[k]:
        if not signed_of(v, &x) or x < TYPED_MIN[k] or x > TYPED_MAX[k]:
            return 0
        return put_signed(b, x, TYPED_WIDTH[k] if native else 8)
    if not unsigned_of(v, &u) or u > TYPED_UMAX[k]:
        return 0
    buf_put_be(b, u, TYPED_WIDTH[k] if native else 8)
    return 1
