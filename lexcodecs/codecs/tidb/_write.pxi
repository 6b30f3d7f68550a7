# The writers of the compiled ``tidb`` row engine (included by ``_compiled.pyx``): one field's
# datum from a Python object of an exact type, through the layout (``_layout.pxi``); 0 for
# anything else (the caller hands the whole key to the reference code).

# -- decimal (MySQL's binary decimal, spec §6) ----------------------------------------------

cdef enum:
    #: the most digits a decimal written here holds (the oracle's 81), and its body
    DEC_DIGITS = 96
    DEC_BODY = 48


cdef inline uint8_t* _dec_put(uint8_t* p, unsigned int value, int n) noexcept nogil:
    """*value* as *n* (1..4) big-endian bytes."""
    cdef int i
    for i in range(n):
        p[i] = <uint8_t>(value >> (8 * (n - 1 - i)))
    return p + n


cdef inline unsigned int _digits_value(const char* s, int n) noexcept nogil:
    cdef unsigned int v = 0
    cdef int i
    for i in range(n):
        v = v * 10 + <unsigned int>(s[i] - 48)
    return v


cdef int write_decimal(Buf* b, const FieldSpec* f, object v) except -1:
    """The datum of an exact, finite Decimal that fits: 1, or 0 (hand over)."""
    cdef char whole[DEC_DIGITS]
    cdef char frac[DEC_DIGITS]
    cdef uint8_t body[DEC_BODY]
    cdef int nwhole = 0, nfrac = 0, ndig, exp, i, k, p, fr, ints, lead, trail, cut, size
    cdef bint negative, nonzero = False
    cdef uint8_t* q
    cdef int digits[DEC_DIGITS]
    cdef const unsigned char* s
    cdef Py_ssize_t slen
    cdef int sign, after, exponent, esign
    cdef unsigned char c
    # str() of an exact Decimal is C code and far cheaper than as_tuple(): read its digits
    # and exponent from "[-]digits[.digits][E[+-]n]" ("NaN", "Infinity": hand over)
    text = str(v)
    if not utf8_of(text, &s, &slen):
        return 0
    i = 0
    sign = 0
    if i < slen and s[i] == 45:
        sign = 1
        i += 1
    ndig = 0
    after = -1
    while i < slen:
        c = s[i]
        if 48 <= c <= 57:
            if ndig >= DEC_DIGITS:
                return 0
            digits[ndig] = c - 48
            ndig += 1
            if after >= 0:
                after += 1
        elif c == 46 and after < 0:
            after = 0
        else:
            break
        i += 1
    if ndig == 0:
        return 0  # NaN, Infinity
    exponent = 0
    if i < slen:
        if s[i] != 69 or i + 1 >= slen:
            return 0
        i += 1
        esign = 1
        if s[i] == 45 or s[i] == 43:
            esign = -1 if s[i] == 45 else 1
            i += 1
        if i >= slen or slen - i > 6:
            return 0
        while i < slen:
            if not 48 <= s[i] <= 57:
                return 0
            exponent = exponent * 10 + (s[i] - 48)
            i += 1
        exponent *= esign
    if after > 0:
        exponent -= after
    if ndig > MAX_PRECISION or not -MAX_PRECISION <= exponent <= MAX_PRECISION \
            or ndig + max(exponent, 0) > MAX_PRECISION:
        return 0
    exp = exponent
    cut = ndig + exp if exp < 0 else ndig
    # the integer digits without leading zeros, then the fraction digits as written
    for i in range(ndig + (exp if exp > 0 else 0)):
        if i >= cut and i < ndig:
            break
        k = digits[i] if i < ndig else 0
        if nwhole or k:
            whole[nwhole] = <char>(48 + k)
            nwhole += 1
    if exp < 0:
        for i in range(-cut if cut < 0 else 0):
            frac[nfrac] = 48
            nfrac += 1
        for i in range(cut if cut > 0 else 0, ndig):
            frac[nfrac] = <char>(48 + digits[i])
            nfrac += 1
    nonzero = nwhole > 0
    for i in range(nfrac):
        if frac[i] != 48:
            nonzero = True
    negative = sign != 0 and nonzero  # -0 is written as 0
    if f.precision:
        p, fr = f.precision, f.frac
        if nwhole > p - fr:
            return 0
        for i in range(fr, nfrac):
            if frac[i] != 48:
                return 0
        if nfrac > fr:
            nfrac = fr
    else:
        fr = nfrac
        p = max(1, nwhole + nfrac)
        if p > MAX_PRECISION or fr > MAX_FRAC:
            return 0
    ints = p - fr
    lead = ints % DIGITS_PER_WORD
    trail = fr % DIGITS_PER_WORD
    # the integer digits right-aligned to ints, the fraction's left-aligned to fr
    for i in range(ints - 1, -1, -1):
        k = i - (ints - nwhole)
        whole[i] = whole[k] if k >= 0 else 48
    for i in range(nfrac, fr):
        frac[i] = 48
    q = body
    if lead:
        q = _dec_put(q, _digits_value(whole, lead), DIG2BYTES_[lead])
    for i in range(lead, ints, DIGITS_PER_WORD):
        q = _dec_put(q, _digits_value(whole + i, DIGITS_PER_WORD), WORD_SIZE)
    for i in range(0, fr - trail, DIGITS_PER_WORD):
        q = _dec_put(q, _digits_value(frac + i, DIGITS_PER_WORD), WORD_SIZE)
    if trail:
        q = _dec_put(q, _digits_value(frac + fr - trail, trail), DIG2BYTES_[trail])
    size = q - body
    if negative:
        for i in range(size):
            body[i] ^= 0xFF
    body[0] ^= DECIMAL_SIGN
    buf_room(b, 3 + size + SLACK)
    q = b.p + b.n
    q[0] = DECIMAL_FLAG
    q[1] = <uint8_t>p
    q[2] = <uint8_t>fr
    memcpy(q + 3, body, size)
    b.n += 3 + size
    return 1


# -- writing one field ----------------------------------------------------------------------

cdef inline int write_groups(Buf* b, const uint8_t* s, Py_ssize_t n) except -1:
    buf_room(b, 1 + ti_groups_size(n) + SLACK)
    b.p[b.n] = BYTES_FLAG
    b.n = ti_groups(b.p + b.n + 1, s, n) - b.p
    return 1


cdef inline bint _float32_exact(double x) noexcept nogil:
    return <double>(<float>x) == x


cdef int write_field(Buf* b, const FieldSpec* f, object v) except -1:
    """The datum of *v*: 1, or 0 (hand the key over)."""
    cdef long long i64
    cdef unsigned long long u64
    cdef double x
    cdef const unsigned char* s
    cdef Py_ssize_t n
    cdef int64_t us
    cdef uint64_t packed
    cdef int kind = f.kind
    if v is None:
        buf_room(b, 1 + SLACK)
        b.p[b.n] = NIL_FLAG
        b.n += 1
        return 1
    if kind == KIND_INT64:
        if not int64_of(v, &i64):
            return 0
        buf_room(b, TI_FIXED + SLACK)
        b.n = ti_fixed(b.p + b.n, INT_FLAG, <uint64_t>i64 ^ TI_SIGN) - b.p
    elif kind == KIND_UINT64:
        if not uint64_of(v, &u64):
            return 0
        buf_room(b, TI_FIXED + SLACK)
        b.n = ti_fixed(b.p + b.n, UINT_FLAG, u64) - b.p
    elif kind == KIND_FLOAT64 or kind == KIND_FLOAT32:
        if PyFloat_CheckExact(v):
            x = PyFloat_AS_DOUBLE(v)
            if kind == KIND_FLOAT32 and not (x != x or _float32_exact(x)):
                return 0
        elif type(v) is Float32_t:
            # its value, held exactly in binary32 (a Float32 built around the checks is not)
            x = PyFloat_AS_DOUBLE(v)
            if not (x != x or _float32_exact(x)):
                return 0
        else:
            return 0
        buf_room(b, TI_FIXED + SLACK)
        b.n = ti_fixed(b.p + b.n, FLOAT_FLAG, ti_float_bits(x)) - b.p
    elif kind == KIND_STRING:
        if not PyUnicode_CheckExact(v) or not utf8_of(v, &s, &n):
            return 0
        write_groups(b, s, n)
    elif kind == KIND_BYTES:
        if PyBytes_CheckExact(v):
            write_groups(b, <const uint8_t*>PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v))
        elif PyByteArray_CheckExact(v):
            write_groups(b, <const uint8_t*>PyByteArray_AS_STRING(v), PyByteArray_GET_SIZE(v))
        else:
            return 0
    elif kind == KIND_DECIMAL:
        if type(v) is not Decimal_t:
            return 0
        return write_decimal(b, f, v)
    elif kind == KIND_DURATION:
        if not PyDelta_CheckExact(v):
            return 0
        # |days| <= 999999999: in int64 microseconds, then nanoseconds within int64
        us = (<int64_t>PyDateTime_DELTA_GET_DAYS(v) * 86400
              + PyDateTime_DELTA_GET_SECONDS(v)) * 1000000 + PyDateTime_DELTA_GET_MICROSECONDS(v)
        if us > 9223372036854775LL or us < -9223372036854775LL:
            return 0
        buf_room(b, TI_FIXED + SLACK)
        b.n = ti_fixed(b.p + b.n, DURATION_FLAG, <uint64_t>(us * NS_PER_US) ^ TI_SIGN) - b.p
    else:  # KIND_TIMESTAMP
        if not PyDateTime_CheckExact(v) or datetime_tzinfo(v) is not UTC_:
            return 0
        packed = ti_packed(PyDateTime_GET_YEAR(v), PyDateTime_GET_MONTH(v),
                           PyDateTime_GET_DAY(v), PyDateTime_DATE_GET_HOUR(v),
                           PyDateTime_DATE_GET_MINUTE(v), PyDateTime_DATE_GET_SECOND(v),
                           PyDateTime_DATE_GET_MICROSECOND(v))
        buf_room(b, TI_FIXED + SLACK)
        b.n = ti_fixed(b.p + b.n, UINT_FLAG, packed) - b.p
    return 1
