# The readers of the compiled ``tidb`` row engine (included by ``_compiled.pyx``): one field's
# value from the datum at ``pos``, or HANDOVER for anything the engine does not take (the
# caller hands the whole key to the reference code, which reads it or words the error).

cdef object read_decimal(const uint8_t* key, Py_ssize_t n, Py_ssize_t* pos):
    """The Decimal at *pos* (flag checked), or HANDOVER."""
    cdef Py_ssize_t at = pos[0]
    cdef int p, fr, ints, lead, trail, i, k, size, nbytes, m
    cdef uint8_t body[DEC_BODY]
    cdef char text[DEC_DIGITS + 4]
    cdef unsigned int word
    cdef bint negative, nonzero = False
    cdef int nt = 0, start
    if at + 3 > n:
        return HANDOVER
    p, fr = key[at + 1], key[at + 2]
    if p < 1 or p > MAX_PRECISION or fr > p:
        return HANDOVER
    ints = p - fr
    lead = ints % DIGITS_PER_WORD
    trail = fr % DIGITS_PER_WORD
    size = (ints // DIGITS_PER_WORD) * WORD_SIZE + DIG2BYTES_[lead] + \
        (fr // DIGITS_PER_WORD) * WORD_SIZE + DIG2BYTES_[trail]
    if at + 3 + size > n:
        return HANDOVER
    memcpy(body, key + at + 3, size)
    negative = not (body[0] & DECIMAL_SIGN)
    body[0] ^= DECIMAL_SIGN
    if negative:
        for i in range(size):
            body[i] ^= 0xFF
    if negative:
        text[nt] = 45
        nt += 1
    start = nt
    k = 0
    # every group of digits as it is stored: lead, int words, frac words, trail
    for i in range(-1, ints // DIGITS_PER_WORD + fr // DIGITS_PER_WORD + 1):
        if i == -1:
            m = lead
        elif i < ints // DIGITS_PER_WORD:
            m = DIGITS_PER_WORD
        elif i < ints // DIGITS_PER_WORD + fr // DIGITS_PER_WORD:
            m = DIGITS_PER_WORD
        else:
            m = trail
        if m == 0:
            continue
        nbytes = DIG2BYTES_[m] if m < DIGITS_PER_WORD else WORD_SIZE
        word = 0
        for _ in range(nbytes):
            word = (word << 8) | body[k]
            k += 1
        if m < DIGITS_PER_WORD:
            if word >= POW10_[m]:
                return HANDOVER
        elif word > 999999999:
            return HANDOVER
        if word:
            nonzero = True
        nt = _put_digits(text, nt, word, m)
    # the point: after the ints digits
    if fr:
        memmove_right(text, start + ints, nt)
        text[start + ints] = 46
        nt += 1
    if negative and not nonzero:
        return HANDOVER  # negative zero: the reference refuses it
    pos[0] = at + 3 + size
    return Decimal_t(PyUnicode_DecodeUTF8(text, nt, NULL))


cdef inline int _put_digits(char* text, int nt, unsigned int word, int m) noexcept nogil:
    cdef int i
    for i in range(m - 1, -1, -1):
        text[nt + i] = <char>(48 + word % 10)
        word //= 10
    return nt + m


cdef inline void memmove_right(char* text, int at, int end) noexcept nogil:
    """Make room for one byte at *at*: text[at:end] moves one to the right."""
    cdef int i
    for i in range(end, at, -1):
        text[i] = text[i - 1]


# -- reading one field ----------------------------------------------------------------------

cdef object new_float32(double x):
    """``Float32(x)`` of a binary32-exact, non-NaN *x*, without the Python call."""
    cdef float x32 = <float>x
    cdef unsigned int bits
    memcpy(&bits, &x32, 4)
    cdef object out = PyType_GenericAlloc(<PyTypeObject *> Float32_t, 0)
    (<PyFloatObject *> out).ob_fval = x
    out.bits = bits
    return out


cdef inline uint64_t get_u64(const uint8_t* p) noexcept nogil:
    cdef uint64_t x = 0
    cdef int i
    for i in range(8):
        x = (x << 8) | p[i]
    return x


cdef object read_groups(const uint8_t* key, Py_ssize_t n, Py_ssize_t* pos):
    """The bytes of the groups after the flag at *pos*, or HANDOVER."""
    cdef Py_ssize_t g = pos[0] + 1, total = 0, start = g, real, i
    cdef uint8_t marker
    cdef char* out
    # first pass: check every group, count the data
    while True:
        if g + 9 > n:
            return HANDOVER
        marker = key[g + 8]
        if marker == TI_MARKER:
            total += 8
            g += 9
            continue
        if marker < MIN_MARKER:
            return HANDOVER
        real = 8 - (TI_MARKER - marker)
        for i in range(real, 8):
            if key[g + i]:
                return HANDOVER
        total += real
        g += 9
        break
    data = PyBytes_FromStringAndSize(NULL, total)
    out = PyBytes_AS_STRING(data)
    i = start
    while i < g:
        real = 8 if key[i + 8] == TI_MARKER else 8 - (TI_MARKER - key[i + 8])
        memcpy(out, key + i, real)
        out += real
        i += 9
    pos[0] = g
    return data


cdef object read_field(const FieldSpec* f, const uint8_t* key, Py_ssize_t n, Py_ssize_t* pos):
    """The value of the field at *pos* (advanced past it), or HANDOVER."""
    cdef Py_ssize_t at = pos[0]
    cdef uint8_t flag
    cdef uint64_t u
    cdef int64_t ns, us, days, secs
    cdef double x
    cdef int kind = f.kind
    cdef int year, month, day, hour, minute, second, micro
    cdef uint64_t ymd, hms
    if at >= n:
        return HANDOVER
    flag = key[at]
    if flag == NIL_FLAG:
        pos[0] = at + 1
        return None
    if kind == KIND_STRING or kind == KIND_BYTES:
        if flag != BYTES_FLAG:
            return HANDOVER
        data = read_groups(key, n, pos)
        if data is HANDOVER or kind == KIND_BYTES:
            return data
        return PyUnicode_DecodeUTF8(PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data), NULL)
    if kind == KIND_DECIMAL:
        if flag != DECIMAL_FLAG:
            return HANDOVER
        return read_decimal(key, n, pos)
    if at + 9 > n:
        return HANDOVER
    u = get_u64(key + at + 1)
    if kind == KIND_INT64:
        if flag != INT_FLAG:
            return HANDOVER
        pos[0] = at + 9
        return PyLong_FromLongLong(<long long>(u ^ TI_SIGN))
    if kind == KIND_UINT64:
        if flag != UINT_FLAG:
            return HANDOVER
        pos[0] = at + 9
        return PyLong_FromUnsignedLongLong(u)
    if kind == KIND_FLOAT64 or kind == KIND_FLOAT32:
        if flag != FLOAT_FLAG:
            return HANDOVER
        u = u ^ TI_SIGN if u & TI_SIGN else ~u
        memcpy(&x, &u, 8)
        pos[0] = at + 9
        if kind == KIND_FLOAT64:
            return PyFloat_FromDouble(x)
        if x != x or not _float32_exact(x):
            return HANDOVER
        return new_float32(x)
    if kind == KIND_DURATION:
        if flag != DURATION_FLAG:
            return HANDOVER
        ns = <int64_t>(u ^ TI_SIGN)
        if ns % NS_PER_US:
            return HANDOVER
        us = ns // NS_PER_US
        days = us // 86400000000LL
        us -= days * 86400000000LL
        if us < 0:
            us += 86400000000LL
            days -= 1
        secs = us // 1000000
        pos[0] = at + 9
        return timedelta_new(<int>days, <int>secs, <int>(us - secs * 1000000))
    # KIND_TIMESTAMP
    if flag != UINT_FLAG:
        return HANDOVER
    micro = <int>(u & ((1 << MICRO_BITS) - 1))
    hms = (u >> MICRO_BITS) & ((1 << HMS_BITS) - 1)
    ymd = u >> (MICRO_BITS + HMS_BITS)
    day = <int>(ymd & 31)
    month = <int>((ymd >> 5) % MONTHS_PER_YEAR_SLOT)
    ymd = (ymd >> 5) // MONTHS_PER_YEAR_SLOT
    if ymd < 1 or ymd > 9999:
        return HANDOVER
    year = <int>ymd
    hour = <int>(hms >> HOUR_SHIFT)
    minute = <int>((hms >> MINUTE_SHIFT) & 63)
    second = <int>(hms & 63)
    if month < 1 or day < 1 or day > DAYS_[month] or hour > 23 or minute > 59 or second > 59 \
            or micro > 999999:
        return HANDOVER
    if month == 2 and day == 29 and not (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)):
        return HANDOVER
    pos[0] = at + 9
    return datetime_new(year, month, day, hour, minute, second, micro, UTC_)
