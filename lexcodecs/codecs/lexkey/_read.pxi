# The readers of the compiled LexKey module: included by _compiled.pyx after _write.pxi
# (textually: one module; ``to_binary32`` is _compiled.pyx's, shared with the writers).
#
# Readers (read_*, make_*) return the value, or None to hand the whole key over to the
# reference code (no decoded value is ever None). None shapes an error message.

# -- reading fields -------------------------------------------------------------------------


cdef inline int read_float64(const unsigned char *p, bint go_nan, double *out) noexcept:
    """The literal rule read back (spec §6): 1 and the value, or 0 for bits no encoder
    writes."""
    cdef unsigned long long k = get_be(p, 8, 0)
    if go_nan and k == GO_NAN64:
        out[0] = bits_double(PY_NAN_BITS)
    elif k == 0:
        out[0] = bits_double(SIGN64)  # -0.0
    elif 0x000FFFFFFFFFFFFFULL <= k <= 0x7FFFFFFFFFFFFFFEULL:
        out[0] = bits_double(k ^ ALL64)
    elif SIGN64 <= k <= 0xFFF0000000000000ULL:
        out[0] = bits_double(k ^ SIGN64)
    else:
        return 0
    return 1


cdef object make_float32(unsigned int bits):
    """``Float32.from_bits(bits)``: the value widened (a NaN by hand, payload kept)."""
    cdef float f
    cdef double x
    if (bits & 0x7F800000U) == 0x7F800000U and (bits & 0x007FFFFFU):
        x = bits_double(((<unsigned long long>(bits & 0x80000000U)) << 32)
                        | 0x7FF0000000000000ULL
                        | ((<unsigned long long>(bits & 0x007FFFFFU)) << 29))
    else:
        memcpy(&f, &bits, 4)
        x = f
    o = lexkey_float_of_type(FLOAT32, x)
    PyObject_GenericSetAttr(o, NAME_BITS, PyLong_FromUnsignedLongLong(bits))
    return o


cdef object read_float32(const unsigned char *p, int width, bint go_nan):
    cdef double x
    cdef float f
    cdef unsigned int k, bits
    if width == 8:  # lexkey: a float64 that must be a binary32 value
        if not read_float64(p, go_nan, &x):
            return None
        if x != x:
            return make_float32(F32_NAN_BITS)
        f = to_binary32(x)
        if <double>f != x:
            return None
        memcpy(&bits, &f, 4)
        return make_float32(bits)
    k = <unsigned int>get_be(p, 4, 0)
    if go_nan and k == GO_NAN32:
        return make_float32(F32_NAN_BITS)
    if k == 0:
        return make_float32(0x80000000U)
    if 0x007FFFFFU <= k <= 0x7FFFFFFEU:
        return make_float32(k ^ 0xFFFFFFFFU)
    if 0x80000000U <= k <= 0xFF800000U:
        return make_float32(k ^ 0x80000000U)
    return None


cdef object read_ns(const unsigned char *p, bint instant):
    cdef long long ns = <long long>(get_be(p, 8, 0) ^ SIGN64)
    cdef long long us, days, rem, z, era, doe, yoe, doy, mp, y, m, d
    cdef int secs
    if ns % 1000:
        return None
    us = ns // 1000
    days = us // US_PER_DAY
    rem = us % US_PER_DAY
    if rem < 0:  # C division truncates: floor it
        rem += US_PER_DAY
        days -= 1
    secs = <int>(rem // 1000000)
    if not instant:
        return timedelta_new(<int>days, secs, <int>(rem % 1000000))
    # civil from days (H. Hinnant), days since 1970-01-01; years 1677..2262 here
    z = days + 719468
    era = (z if z >= 0 else z - 146096) // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    if m <= 2:
        y += 1
    return datetime_new(<int>y, <int>m, <int>d, secs // 3600, (secs // 60) % 60, secs % 60,
                        <int>(rem % 1000000), UTC, 0)


cdef object make_uuid(const unsigned char *p):
    """``uuid.UUID(bytes=...)``, as its ``__init__`` builds it."""
    cdef unsigned long long hi = get_be(p, 8, 0), lo = get_be(p + 8, 8, 0)
    n = PyLong_FromUnsignedLongLong(lo)
    if hi:
        n = (PyLong_FromUnsignedLongLong(hi) << 64) | n
    u = lexkey_alloc(UUID)
    PyObject_GenericSetAttr(u, NAME_INT, n)
    PyObject_GenericSetAttr(u, NAME_IS_SAFE, SAFE_UNKNOWN)
    return u
