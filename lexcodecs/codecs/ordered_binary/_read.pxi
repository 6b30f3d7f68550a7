# The readers of the compiled ordered-binary module, included by _compiled.pyx (one module).
#
# decode_key is lmdb-js's readKey without a schema (lossy, as lmdb-js reads); decode_fields is
# the strict reader of a bound schema. Both return HAND, never an error, for anything the
# reference code refuses or this module does not take (a number beyond 64 bits).


# -- reading --------------------------------------------------------------------------------


cdef enum:
    STACK_UNITS = 256

ctypedef struct Reader:
    const unsigned char *p
    Py_ssize_t end
    Py_ssize_t bound
    Py_ssize_t pos
    long long raw_total


cdef inline int byte_at(Reader *r, Py_ssize_t at) noexcept:
    """``buffer[at]``, or -1 (undefined) past the end."""
    return r.p[at] if 0 <= at < r.end else -1


cdef inline unsigned long long be32(Reader *r, Py_ssize_t at) noexcept:
    cdef unsigned long long x = 0
    cdef int k, c
    for k in range(4):
        c = byte_at(r, at + k)
        x = (x << 8) | <unsigned long long> (c if c >= 0 else 0)
    return x


cdef inline int cont(Reader *r) noexcept:
    cdef int c = byte_at(r, r.pos)
    r.pos += 1
    return 0 if c < 0 else c & 0x3F


cdef object make_str(unsigned short *units, Py_ssize_t n):
    """UTF-16 units as a str: valid surrogate pairs joined, lone ones kept."""
    cdef unsigned int *cps
    cdef unsigned char *ascii
    cdef Py_ssize_t i, m = 0
    cdef unsigned int u, v
    cdef bint narrow = True
    for i in range(n):
        if units[i] >= 0x80:
            narrow = False
            break
    if narrow:
        ascii = <unsigned char *> PyMem_Malloc(n + 1)
        if ascii == NULL:
            raise MemoryError()
        try:
            for i in range(n):
                ascii[i] = <unsigned char> units[i]
            return PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, ascii, n)
        finally:
            PyMem_Free(ascii)
    cps = <unsigned int *> PyMem_Malloc((n + 1) * sizeof(unsigned int))
    if cps == NULL:
        raise MemoryError()
    try:
        i = 0
        while i < n:
            u = units[i]
            if 0xD800 <= u <= 0xDBFF and i + 1 < n and 0xDC00 <= units[i + 1] <= 0xDFFF:
                v = units[i + 1]
                cps[m] = 0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00)
                i += 2
            else:
                cps[m] = u
                i += 1
            m += 1
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, cps, m)
    finally:
        PyMem_Free(cps)


cdef object read_string(Reader *r):
    """``readString``: UTF-16 units up to a byte 00..03 (consumed) or the end."""
    cdef unsigned short *units
    cdef Py_ssize_t n = 0
    cdef int c, e
    cdef unsigned int unit, b2, b3
    cdef long pending = -1
    cdef unsigned short small[STACK_UNITS]
    # every unit takes at least one byte, and a 4-byte sequence gives two units
    cdef Py_ssize_t room = (r.end - r.pos + 2) * 2 if r.end > r.pos else 4
    units = small
    if room > STACK_UNITS:
        units = <unsigned short *> PyMem_Malloc(room * sizeof(unsigned short))
        if units == NULL:
            raise MemoryError()
    try:
        while True:
            c = byte_at(r, r.pos)
            r.pos += 1
            if c < <int> C_ESCAPE:
                return make_str(units, n)
            if c == C_ESCAPE:
                e = byte_at(r, r.pos)
                r.pos += 1
                units[n] = 0 if e < 0 else e
            elif c < 0x80:
                units[n] = c
            elif c & 0xE0 == 0xC0:
                units[n] = ((c & 0x1F) << 6) | cont(r)
            elif c & 0xF0 == 0xE0:
                b2 = cont(r)
                units[n] = ((c & 0x1F) << 12) | (b2 << 6) | cont(r)
            elif c & 0xF8 == 0xF0:
                if pending >= 0:
                    r.pos += 3
                    units[n] = pending
                    pending = -1
                else:
                    b2 = cont(r)
                    b3 = cont(r)
                    unit = ((c & 0x07) << 18) | (b2 << 12) | (b3 << 6) | cont(r)
                    if unit > 0xFFFF:
                        pending = 0xDC00 | (unit & 0x3FF)
                        unit = (((unit - 0x10000) >> 10) & 0x3FF) | 0xD800
                        r.pos -= 4
                    units[n] = unit
            else:
                units[n] = c
            n += 1
    finally:
        if units != small:
            PyMem_Free(units)


cdef object int_of(bint neg, unsigned long long mag):
    if not neg:
        return PyLong_FromUnsignedLongLong(mag)
    if mag == 0:
        return ZERO
    if mag <= 0x8000000000000000ULL:
        return PyLong_FromLongLong(-<long long> (mag - 1) - 1)
    return -PyLong_FromUnsignedLongLong(mag)


cdef inline bint int_parts(double value, bint *neg, unsigned long long *mag) noexcept:
    """A finite integral double of magnitude below 2**64 as sign and magnitude."""
    cdef double a = -value if value < 0 else value
    if not isfinite(value) or floor(value) != value or a >= 18446744073709551616.0:
        return False
    neg[0] = value < 0
    mag[0] = <unsigned long long> a
    return True


cdef inline bint add_small(bint *neg, unsigned long long *mag, unsigned long long add) noexcept:
    """``value += add`` on sign and magnitude; False on overflow past 2**64."""
    if add == 0:
        return True
    if neg[0]:
        if add <= mag[0]:
            mag[0] -= add
        else:
            mag[0] = add - mag[0]
            neg[0] = False
        return True
    if mag[0] + add < mag[0]:
        return False
    mag[0] += add
    return True


cdef object read_number(Reader *r, Py_ssize_t start, int control):
    """Nine bytes as a double, then a BigInt tail (``readKey``'s number), or HAND."""
    cdef unsigned long long high, low
    cdef Py_ssize_t size = r.end - start
    cdef double value
    cdef int tail, exponent, c
    cdef bint neg
    cdef unsigned long long mag
    cdef long long by
    if start + 4 > r.bound:
        return HAND
    high = (be32(r, start) << 4) & 0xFFFFFFFFULL
    low = 0
    if size > 4:
        low = be32(r, start + 4)
        high |= low >> 28
        if size <= 6:
            low &= 0xFFFF0000ULL
        low = (low << 4) & 0xFFFFFFFFULL
        if size > 8:
            low |= r.p[start + 8] >> 4
    if control < 0x10:
        high ^= 0x7FFFFFFFULL
        low ^= 0xFFFFFFFFULL
    value = bits_double((high << 32) | low)
    r.pos = start + 9
    tail = byte_at(r, r.pos)
    if not (size > 9 and tail > 0):
        return PyFloat_FromDouble(value)
    if not int_parts(value, &neg, &mag):
        return HAND
    exponent = <int> ((high >> 20) & 0x7FF)
    if not add_small(&neg, &mag, ob_shl(r.p[r.pos - 1] & 0xF, exponent - BIGINT_SHIFT)):
        return HAND
    while True:
        c = byte_at(r, r.pos)
        if c <= 0:
            return int_of(neg, mag)
        r.pos += 1
        by = (start - r.pos) * 7 + exponent - 1016
        if by > -7:
            if not add_small(&neg, &mag, ob_shl(c & 0x7F, <int> by)):
                return HAND


cdef object read_value(Reader *r, Py_ssize_t start, bint *raw):
    """``readKey``'s value part at *start* (raw: it returned the rest of the key), or HAND."""
    cdef int control = byte_at(r, start)
    cdef int kind = R_STRING if control < 0 else KINDS[control]
    cdef object value
    r.pos = start
    raw[0] = False
    if kind == R_RAW:
        r.pos = start + 1
        r.raw_total += r.end - start
        if r.raw_total > RAW_TOTAL_LIMIT:
            return HAND
        raw[0] = True
        return RAW  # built by the caller once the whole key is read (see decode_key)
    if kind == R_NULL:
        r.pos = start + 1
        return None
    if kind == R_FALSE:
        r.pos = start + 1
        return False
    if kind == R_TRUE:
        r.pos = start + 1
        return True
    if kind == R_SYMBOL:
        r.pos = start + 1
        return JsSymbol(read_string(r))
    if kind == R_NUMBER or kind == R_NEGATIVE:
        return read_number(r, start, control)
    if control == C_PREFIX:
        r.pos += 1
    value = read_string(r)
    if r.pos < r.end:
        r.pos -= 1  # the byte that ended the string counts as the separator
    return value


cdef inline void reader_init(Reader *r, bytes key) noexcept:
    r.p = <const unsigned char *> PyBytes_AS_STRING(key)
    r.end = PyBytes_GET_SIZE(key)
    r.bound = r.end if r.end >= OWN_BUFFER_SIZE else (r.end + 3) & ~(<Py_ssize_t> 3)
    r.pos = 0
    r.raw_total = 0


cdef object decode_key(bytes key):
    """What ``fromBufferKey`` reads from *key* (``reference_decode.decode_key``), or HAND."""
    cdef Reader r
    cdef bint raw
    cdef object value
    cdef list values
    cdef list raws = []
    cdef Py_ssize_t start, i
    reader_init(&r, key)
    value = read_value(&r, 0, &raw)
    if value is HAND:
        return HAND
    if raw:
        return (key,)
    values = [value]
    while r.pos < r.end:
        if r.p[r.pos] == 0:
            r.pos += 1
        start = r.pos
        value = read_value(&r, start, &raw)
        if value is HAND:
            return HAND
        if raw:
            # raw values repeat the rest of the key: none is built before the key is read
            # whole, so a key refused for their total size costs no more than reading it
            raws.append(len(values))
            values.append(start)
            continue
        if r.pos < r.end and r.p[r.pos] == 0:
            r.pos += 1
        values.append(value)
    for i in raws:
        start = values[i]
        values[i] = PyBytes_FromStringAndSize(<const char *> r.p + start, r.end - start)
    return tuple(values)

# -- with a schema: the strict reader -------------------------------------------------------


cdef inline unsigned long long field_bits(Reader *r, Py_ssize_t at, Py_ssize_t stop) noexcept:
    """The IEEE bits of the number at *at* (bytes up to *stop*, zeros after)."""
    cdef unsigned char t[9]
    cdef Py_ssize_t k
    cdef unsigned long long u = 0
    for k in range(9):
        t[k] = r.p[at + k] if at + k < stop else 0
    for k in range(1, 8):
        u = (u << 8) | t[k]
    u = ((<unsigned long long> (t[0] & 0xF)) << 60) | (u << 4) | (t[8] >> 4)
    return u ^ NEG_MASK if (t[0] >> 4) == 0 else u


cdef object read_field(Reader *r, int ftype, Py_ssize_t at, bint last, bint bare,
                       Py_ssize_t *stop_out):
    cdef Py_ssize_t stop, tail, k
    cdef unsigned long long bits, mag
    cdef double base
    cdef bint neg
    cdef int exponent
    cdef const unsigned char *found
    cdef object value
    if ftype == F_BOOL:
        stop_out[0] = at + 1
        return r.p[at] == C_TRUE
    if ftype == F_STRING:
        r.pos = at + 1 if r.p[at] == C_PREFIX else at
        value = read_string(r)
        stop_out[0] = r.pos - 1 if r.pos <= r.end else r.end
        return value
    if ftype == F_BYTES:
        stop = r.end
        if not last:
            for k in range(at, r.end):
                if r.p[k] == C_SEP:
                    stop = k
                    break
        stop_out[0] = stop
        return PyBytes_FromStringAndSize(<const char *> r.p + at, stop - at)
    # numbers
    if at + 9 <= r.end:
        stop = at + 9
    elif bare:
        stop = r.end
    else:
        return HAND
    bits = field_bits(r, at, stop)
    base = bits_double(bits)
    if ftype == F_FLOAT64:
        stop_out[0] = stop
        return PyFloat_FromDouble(base)
    if not int_parts(base, &neg, &mag):
        return HAND
    tail = stop
    while tail < r.end and r.p[tail] >= 0x80:
        tail += 1
    if tail > stop:
        exponent = <int> ((bits >> 52) & 0x7FF) - BIGINT_SHIFT
        if not add_small(&neg, &mag, ob_shl(r.p[stop - 1] & 0xF, exponent)):
            return HAND
        for k in range(stop, tail):
            if not add_small(&neg, &mag, ob_shl(r.p[k] & 0x7F,
                                            exponent - 7 * <int> (k - stop + 1))):
                return HAND
    stop_out[0] = tail
    return int_of(neg, mag)


cdef object decode_fields(bytes key, int *ftypes, Py_ssize_t count, bint bare):
    """The values of *key* read field by field (``reference_decode.decode_fields``), or
    HAND for anything that reader refuses."""
    cdef Reader r
    cdef Py_ssize_t i, at = 0, stop = 0
    cdef int ft
    cdef bint last, null
    cdef list values = []
    cdef object value
    reader_init(&r, key)
    for i in range(count):
        ft = ftypes[i]
        if i:
            if at >= r.end or r.p[at] != C_SEP:
                return HAND
            at += 1
        last = i == count - 1
        if at >= r.end:
            if ft != F_BYTES:
                return HAND
            values.append(b"")
            continue
        null = r.p[at] == C_NULL
        if null and ft == F_BYTES:
            null = (at + 1 == r.end) if last else (at + 1 < r.end and r.p[at + 1] == C_SEP)
        if null:
            values.append(None)
            at += 1
            continue
        if not STARTS[ft][r.p[at]]:
            return HAND
        value = read_field(&r, ft, at, last, bare, &stop)
        if value is HAND:
            return HAND
        values.append(value)
        at = stop
    if at != r.end:
        return HAND
    return tuple(values)
