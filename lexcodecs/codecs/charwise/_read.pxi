# The compiled reader of ``charwise`` (included by ``_compiled.pyx``): the strict reading of
# ``reference_decode``, iterative. Any key it does not read cleanly is HAND: the reference
# decoder then reads it, or words the DecodeError.

cdef object read_string(const unsigned char *p, Py_ssize_t n, bint in_array):
    """The string of the item text ``p[0:n]`` (after its ``J``), or HAND."""
    cdef Py_ssize_t i, m = 0
    cdef unsigned char *tmp
    cdef unsigned char *src
    cdef bint has_q = False, has_end = False, valid = True, has_01 = False
    cdef unsigned char c
    cdef object out
    for i in range(n):
        c = p[i]
        if c == C_NUL:
            return HAND
        if c == C_ESCAPE:
            has_q = True
        elif c == C_STRING_ESCAPE:
            has_01 = True
    if not has_01 and not (in_array and has_q):
        # nothing to undo (most strings): the text is the string's own UTF-8
        try:
            return PyUnicode_DecodeUTF8(<const char *> p, n, NULL)
        except UnicodeDecodeError:
            return HAND
    tmp = <unsigned char *> PyMem_Malloc(n + 1)
    if tmp == NULL:
        raise MemoryError()
    try:
        src = <unsigned char *> p
        if in_array and has_q:
            # undo ?@ ?? ?% when valid and the result holds ! or ": encode escaped it
            i = 0
            while i < n:
                c = p[i]
                if c == C_ESCAPE:
                    if i + 1 >= n:
                        valid = False
                        break
                    c = p[i + 1]
                    if c == C_ESCAPE_ESCAPE:
                        tmp[m] = C_ESCAPE
                    elif c == C_ESCAPE_TERMINATOR:
                        tmp[m] = C_TERMINATOR
                        has_end = True
                    elif c == C_ESCAPE_SEPARATOR:
                        tmp[m] = C_SEPARATOR
                        has_end = True
                    else:
                        valid = False
                        break
                    i += 2
                else:
                    tmp[m] = c
                    i += 1
                m += 1
            if valid and has_end:
                src = tmp
                n = m
        # 01 01 -> 01, a lone 01 -> 00, in place (the output never outruns the input)
        m = 0
        i = 0
        while i < n:
            c = src[i]
            if c == C_STRING_ESCAPE:
                if i + 1 < n and src[i + 1] == C_STRING_ESCAPE:
                    i += 2
                else:
                    c = C_NUL
                    i += 1
            else:
                i += 1
            tmp[m] = c
            m += 1
        try:
            out = PyUnicode_DecodeUTF8(<const char *> tmp, m, NULL)
        except UnicodeDecodeError:
            return HAND
        return out
    finally:
        PyMem_Free(tmp)


#: the powers of ten a double holds exactly (Clinger's fast path: a decimal of at most 15
#: significant digits times one of these is correctly rounded by one multiply or divide)
cdef double EXACT_POW10[23]
EXACT_POW10[0] = 1.0
for _i in range(1, 23):
    EXACT_POW10[_i] = EXACT_POW10[_i - 1] * 10.0

# Eisel-Lemire (Lemire, "Number parsing at a gigabyte per second", 2021), for the decimals of
# 16 to 19 digits that Clinger's path cannot take (most doubles' shortest digits have 17):
# w x 10**q is w times a 128-bit approximation of 10**q's mantissa, rounded to 53 bits, and
# the few products too close to a rounding boundary to decide are declined (strtod reads
# them). POW10_HI/LO[q - POW10_MIN]: the top 128 bits of 5**q (10**q's mantissa), rounded
# down for q >= 0 and up for q < 0, made here from exact integers. A wrong double could not
# slip through anyway: decode_key writes every value read back and compares it with the key.
cdef enum:
    POW10_MIN = -342
    POW10_MAX = 308

cdef unsigned long long POW10_HI[POW10_MAX - POW10_MIN + 1]
cdef unsigned long long POW10_LO[POW10_MAX - POW10_MIN + 1]


def _pow10_table():
    for q in range(POW10_MIN, POW10_MAX + 1):
        if q >= 0:
            m = 5 ** q
            m = m << max(0, 128 - m.bit_length()) >> max(0, m.bit_length() - 128)
        else:
            five = 5 ** -q
            z = five.bit_length()
            m = (1 << (z + 127)) // five + 1   # 2**(z+127) / 5**-q, rounded up: 128 bits
            m >>= max(0, m.bit_length() - 128)
        POW10_HI[q - POW10_MIN] = m >> 64
        POW10_LO[q - POW10_MIN] = m & 0xFFFFFFFFFFFFFFFF


_pow10_table()

cdef extern from *:
    """
    static inline unsigned long long _lexcodecs_mul128(unsigned long long a,
            unsigned long long b, unsigned long long *lo) {
        unsigned __int128 r = (unsigned __int128) a * b;
        *lo = (unsigned long long) r;
        return (unsigned long long) (r >> 64);
    }
    """
    unsigned long long _lexcodecs_mul128(unsigned long long a, unsigned long long b,
                                         unsigned long long *lo) noexcept nogil


cdef inline bint eisel_lemire(unsigned long long w, int q, double *out) noexcept nogil:
    """*out* = w x 10**q correctly rounded (w > 0), or False when undecided here."""
    cdef unsigned long long hi, lo, yhi, ylo, mhi, mlo, mant, bits
    cdef long long e2
    cdef int lz, msb
    if q < POW10_MIN or q > POW10_MAX:
        return False
    lz = __builtin_clzll(w)
    w <<= lz
    e2 = ((217706 * q) >> 16) + 64 + 1023 - lz
    hi = _lexcodecs_mul128(w, POW10_HI[q - POW10_MIN], &lo)
    if (hi & 0x1FF) == 0x1FF and lo + w < w:
        # the low half of the power may carry into the bits that decide the rounding
        yhi = _lexcodecs_mul128(w, POW10_LO[q - POW10_MIN], &ylo)
        mhi, mlo = hi, lo + yhi
        if mlo < lo:
            mhi += 1
        if (mhi & 0x1FF) == 0x1FF and mlo + 1 == 0 and ylo + w < w:
            return False
        hi, lo = mhi, mlo
    msb = <int>(hi >> 63)
    mant = hi >> (msb + 9)
    e2 -= 1 ^ msb
    if lo == 0 and (hi & 0x1FF) == 0 and (mant & 3) == 1:
        return False  # exactly half-way: round-half-even needs every digit
    mant += mant & 1
    mant >>= 1
    if mant >> 53:
        mant >>= 1
        e2 += 1
    if e2 <= 0 or e2 >= 0x7FF:
        return False  # subnormal or overflow: strtod's
    bits = (<unsigned long long>e2 << 52) | (mant & <unsigned long long>0x000FFFFFFFFFFFFF)
    memcpy(out, &bits, 8)
    return True


cdef object read_number(const unsigned char *p, Py_ssize_t n):
    """The double ``p[0:n]`` reads as, or HAND (whether it is that double's own text is
    :func:`decode_key`'s check, on the whole key)."""
    cdef char text[80]
    cdef Py_ssize_t i, k = 0, last
    cdef bint neg
    cdef int exponent, digits = 0, scale
    cdef unsigned char zero, d
    cdef unsigned long long mantissa = 0
    cdef double x
    if n > 64 or n < 2:
        return HAND
    if n == 3 and memcmp(p, b"DaN", 3) == 0:
        return PyFloat_FromDouble(NAN)
    if n == 2 and memcmp(p, b"FF", 2) == 0:
        return PyFloat_FromDouble(INFINITY)
    if n == 2 and memcmp(p, b"DD", 2) == 0:
        return PyFloat_FromDouble(-INFINITY)
    if n == 7 and memcmp(p, b"FE  0M0", 7) == 0:
        return PyFloat_FromDouble(0.0)
    # [DF] E ddd M d . d+
    if n < 9 or p[1] != C_EXPONENT or p[5] != C_MANTISSA or p[7] != 0x2E:
        return HAND
    neg = p[0] == C_NEGATIVE
    exponent = 0
    for i in range(2, 5):
        if p[i] < 48 or p[i] > 57:
            return HAND
        exponent = exponent * 10 + (57 - p[i] if neg else p[i] - 48)
    exponent -= C_BIAS
    for i in range(8, n):
        if p[i] < 48 or p[i] > 57:
            return HAND
    if p[6] < 48 or p[6] > 57:
        return HAND
    # the significant digits: the mantissa without its padding zeros (nines when negative)
    zero = 57 if neg else 48
    last = n - 1
    while last > 7 and p[last] == zero:
        last -= 1
    for i in range(6, last + 1):
        if i != 7:
            d = (57 - p[i]) if neg else (p[i] - 48)
            if digits < 19:
                mantissa = mantissa * 10 + d
            digits += 1
    scale = exponent - (digits - 1)
    if digits <= 15 and -22 <= scale <= 22:
        x = <double> mantissa
        x = x * EXACT_POW10[scale] if scale >= 0 else x / EXACT_POW10[-scale]
        return PyFloat_FromDouble(-x if neg else x)
    if digits <= 19 and mantissa and eisel_lemire(mantissa, scale, &x):
        return PyFloat_FromDouble(-x if neg else x)
    # the rest (subnormals, undecided products, more than 19 digits): the text for strtod
    if neg:
        text[k] = 45  # -
        k += 1
    for i in range(6, n):
        # 9-complement of a negative number's digits: '0' + '9' - c
        text[k] = 0x2E if i == 7 else <char>(105 - p[i] if neg else p[i])
        k += 1
    k += snprintf(text + k, 16, "e%d", exponent)
    text[k] = 0
    # no check that x is written back as this text here: decode_key writes the whole value
    # again and compares it with the key (a second shortest-digits pass per number was a
    # third of a number's decode)
    x = PyOS_string_to_double(text, NULL, NULL)
    return PyFloat_FromDouble(x)


cdef object read_scalar(const unsigned char *p, Py_ssize_t n, bint in_array):
    """The value of one item's text (no array), or HAND."""
    cdef unsigned char c = p[0]
    if c == C_NULL or c == C_FALSE or c == C_TRUE or c == C_UNDEFINED:
        if n != 1:
            return HAND
        return (None if c == C_NULL else False if c == C_FALSE else
                True if c == C_TRUE else UNDEFINED_VALUE)
    if c == C_STRING:
        return read_string(p + 1, n - 1, in_array)
    if c == C_NEGATIVE or c == C_POSITIVE:
        return read_number(p, n)
    return HAND


cdef object decode_text(bytes key):
    """The one value of *key*, or HAND."""
    cdef const unsigned char *p = <const unsigned char *> PyBytes_AS_STRING(key)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(key), at = 0, end
    cdef list stack = []
    cdef object value
    if n == 0:
        return HAND
    while True:
        if at >= n:
            return HAND
        if p[at] == C_ARRAY:
            if len(stack) >= MAX_DEPTH:
                return HAND
            stack.append([])
            at += 1
            if at < n and p[at] == C_TERMINATOR:
                at += 1
                stack.pop()
                value = ()
            else:
                continue
        else:
            if stack:
                end = at
                while end < n and p[end] != C_SEPARATOR and p[end] != C_TERMINATOR:
                    end += 1
                if end >= n or end == at:
                    return HAND
            else:
                end = n
            value = read_scalar(p + at, end - at, len(stack) > 0)
            if value is HAND:
                return HAND
            at = end
        while True:
            if not stack:
                if at != n:
                    return HAND
                return value
            (<list> stack[len(stack) - 1]).append(value)
            if at >= n:
                return HAND
            if p[at] == C_SEPARATOR:
                at += 1
                break
            if p[at] != C_TERMINATOR:
                return HAND
            at += 1
            value = PyList_AsTuple(stack.pop())
