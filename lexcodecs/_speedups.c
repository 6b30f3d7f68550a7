/* lexcodecs._speedups: optional C fast paths for the fdb-tuple, skv, sqlite4 and orderly codecs.
 *
 * Theory of operation: these functions handle the common, well-formed case and nothing
 * else. Whenever they meet anything they do not expect -- an exotic type, an integer
 * beyond 64 bits, a malformed or truncated key, invalid UTF-8, very deep nesting -- they
 * return None, and the Python code (lexcodecs/codecs/fdb_tuple.py) does the whole job
 * again, including every error message. So this file never decides what is valid: it can
 * only be faster, and tests/test_fdb_tuple_speedups.py checks it against the Python paths.
 *
 *   fdb_encode(values: tuple, java: bool) -> bytes | None
 *   fdb_decode(key: bytes) -> tuple | None
 *   configure(float32_type, float32_from_bits, uuid_type, make_uuid, decimal_type)
 *   sqlite4_encode / sqlite4_decode: see the sqlite4 section below
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define MAX_DEPTH 64

static PyObject *Float32Type = NULL;   /* lexcodecs.types.Float32 */
static PyObject *Float32FromBits = NULL;
static PyObject *UUIDType = NULL;      /* uuid.UUID */
static PyObject *DecimalType = NULL;   /* decimal.Decimal */
static PyObject *MakeUUID = NULL;      /* bytes -> UUID, without UUID.__init__'s checks */

/* -- a growable output buffer ------------------------------------------------------- */

typedef struct {
    char *data;
    Py_ssize_t len, cap;
} Buf;

static int buf_reserve(Buf *b, Py_ssize_t extra) {
    if (b->len + extra <= b->cap) return 0;
    Py_ssize_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra) cap *= 2;
    char *d = PyMem_Realloc(b->data, (size_t)cap);
    if (!d) { PyErr_NoMemory(); return -1; }
    b->data = d;
    b->cap = cap;
    return 0;
}

static int buf_byte(Buf *b, unsigned char c) {
    if (buf_reserve(b, 1) < 0) return -1;
    b->data[b->len++] = (char)c;
    return 0;
}

/* 01/02 element: code, the data with every 00 written as 00 ff, then 00 */
static int buf_escaped(Buf *b, unsigned char code, const char *s, Py_ssize_t n) {
    Py_ssize_t zeros = 0;
    for (Py_ssize_t i = 0; i < n; i++) zeros += (s[i] == 0);
    if (buf_reserve(b, n + zeros + 2) < 0) return -1;
    char *o = b->data + b->len;
    *o++ = (char)code;
    if (!zeros) {
        memcpy(o, s, (size_t)n);
        o += n;
    } else {
        for (Py_ssize_t i = 0; i < n; i++) {
            *o++ = s[i];
            if (s[i] == 0) *o++ = (char)0xff;
        }
    }
    *o++ = 0;
    b->len = o - b->data;
    return 0;
}

static int byte_count(unsigned long long m) {
    int k = 0;
    while (m) { k++; m >>= 8; }
    return k;
}

static int buf_be(Buf *b, unsigned long long x, int k) {
    if (buf_reserve(b, k) < 0) return -1;
    for (int i = k - 1; i >= 0; i--) b->data[b->len++] = (char)((x >> (8 * i)) & 0xff);
    return 0;
}

/* -- encoding ------------------------------------------------------------------------- */

/* 1: written; 0: not handled here (fall back); -1: a real error (memory) */
static int enc_value(Buf *b, PyObject *v, int nested, int depth);

static int enc_int(Buf *b, PyObject *v) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
    if (overflow > 0) {
        unsigned long long u = PyLong_AsUnsignedLongLong(v);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
        if (u == 0xffffffffffffffffULL) return 0;  /* the +-(2**64-1) rule: Python decides */
        if (buf_byte(b, 0x1c) < 0) return -1;
        return buf_be(b, u, 8) < 0 ? -1 : 1;
    }
    if (overflow < 0) return 0;
    if (x == 0) return buf_byte(b, 0x14) < 0 ? -1 : 1;
    if (x > 0) {
        int k = byte_count((unsigned long long)x);
        if (buf_byte(b, (unsigned char)(0x14 + k)) < 0) return -1;
        return buf_be(b, (unsigned long long)x, k) < 0 ? -1 : 1;
    }
    unsigned long long m = (unsigned long long)(-(x + 1)) + 1;  /* |x| without overflow */
    int k = byte_count(m);
    unsigned long long full = k == 8 ? 0xffffffffffffffffULL : ((1ULL << (8 * k)) - 1);
    if (buf_byte(b, (unsigned char)(0x14 - k)) < 0) return -1;
    return buf_be(b, full - m, k) < 0 ? -1 : 1;
}

static int enc_double_bits(Buf *b, unsigned char code, unsigned long long bits, int width) {
    unsigned long long sign = 1ULL << (8 * width - 1);
    unsigned long long mask = width == 8 ? 0xffffffffffffffffULL : 0xffffffffULL;
    bits = (bits & sign) ? (bits ^ mask) : (bits | sign);
    if (buf_byte(b, code) < 0) return -1;
    return buf_be(b, bits, width) < 0 ? -1 : 1;
}

static int enc_value(Buf *b, PyObject *v, int nested, int depth) {
    PyTypeObject *t = Py_TYPE(v);
    if (v == Py_None) {
        if (buf_byte(b, 0x00) < 0) return -1;
        if (nested && buf_byte(b, 0xff) < 0) return -1;
        return 1;
    }
    if (t == &PyUnicode_Type) {
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(v, &n);
        if (!s) { PyErr_Clear(); return 0; }  /* lone surrogate: Python says so */
        return buf_escaped(b, 0x02, s, n) < 0 ? -1 : 1;
    }
    if (t == &PyLong_Type) return enc_int(b, v);
    if (t == &PyBytes_Type)
        return buf_escaped(b, 0x01, PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v)) < 0 ? -1 : 1;
    if (t == &PyFloat_Type) {
        double d = PyFloat_AS_DOUBLE(v);
        unsigned long long bits;
        memcpy(&bits, &d, 8);
        return enc_double_bits(b, 0x21, bits, 8);
    }
    if (t == &PyBool_Type) return buf_byte(b, v == Py_True ? 0x27 : 0x26) < 0 ? -1 : 1;
    if (t == &PyTuple_Type || t == &PyList_Type) {
        if (depth >= MAX_DEPTH) return 0;
        if (buf_byte(b, 0x05) < 0) return -1;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(v);
        PyObject **items = PySequence_Fast_ITEMS(v);
        for (Py_ssize_t i = 0; i < n; i++) {
            int r = enc_value(b, items[i], 1, depth + 1);
            if (r <= 0) return r;
        }
        return buf_byte(b, 0x00) < 0 ? -1 : 1;
    }
    if (Float32Type && (PyObject *)t == Float32Type) {
        PyObject *bits = PyObject_GetAttrString(v, "bits");
        if (!bits) { PyErr_Clear(); return 0; }
        unsigned long u = PyLong_AsUnsignedLong(bits);
        Py_DECREF(bits);
        if (u == (unsigned long)-1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
        return enc_double_bits(b, 0x20, (unsigned long long)u, 4);
    }
    if (UUIDType && (PyObject *)t == UUIDType) {
        PyObject *i = PyObject_GetAttrString(v, "int");
        if (!i) { PyErr_Clear(); return 0; }
        unsigned char raw[16];
#if PY_VERSION_HEX >= 0x030D0000
        int r = _PyLong_AsByteArray((PyLongObject *)i, raw, 16, 0, 0, 1);
#else
        int r = _PyLong_AsByteArray((PyLongObject *)i, raw, 16, 0, 0);
#endif
        Py_DECREF(i);
        if (r < 0) { PyErr_Clear(); return 0; }
        if (buf_reserve(b, 17) < 0) return -1;
        b->data[b->len++] = 0x30;
        memcpy(b->data + b->len, raw, 16);
        b->len += 16;
        return 1;
    }
    return 0;  /* subclasses, versionstamps, foreign objects: the Python paths */
}

static PyObject *fdb_encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "fdb_encode(values, java)");
        return NULL;
    }
    PyObject *values = args[0];
    int java = PyObject_IsTrue(args[1]);
    if (java < 0) return NULL;
    if (java || !PyTuple_CheckExact(values)) Py_RETURN_NONE;
    Buf b = {NULL, 0, 0};
    Py_ssize_t n = PyTuple_GET_SIZE(values);
    for (Py_ssize_t i = 0; i < n; i++) {
        int r = enc_value(&b, PyTuple_GET_ITEM(values, i), 0, 0);
        if (r <= 0) {
            PyMem_Free(b.data);
            if (r < 0) return NULL;
            Py_RETURN_NONE;
        }
    }
    PyObject *out = PyBytes_FromStringAndSize(b.data ? b.data : "", b.len);
    PyMem_Free(b.data);
    return out;
}

/* -- decoding ------------------------------------------------------------------------- */

/* Read one element at *pos; NULL with no exception set means "fall back". */
static PyObject *dec_value(const unsigned char *p, Py_ssize_t n, Py_ssize_t *pos, int depth);

static PyObject *dec_escaped(const unsigned char *p, Py_ssize_t n, Py_ssize_t *pos) {
    unsigned char code = p[*pos];
    Py_ssize_t start = *pos + 1, i = start, zeros = 0, end;
    for (;;) {
        const unsigned char *z = memchr(p + i, 0, (size_t)(n - i));
        if (!z) return NULL;
        end = z - p;
        if (end + 1 < n && p[end + 1] == 0xff) { zeros++; i = end + 2; continue; }
        break;
    }
    PyObject *v;
    if (!zeros) {
        v = code == 0x02 ? PyUnicode_DecodeUTF8((const char *)p + start, end - start, NULL)
                         : PyBytes_FromStringAndSize((const char *)p + start, end - start);
    } else {
        Py_ssize_t len = end - start - zeros;
        char *tmp = PyMem_Malloc((size_t)(len ? len : 1));
        if (!tmp) return PyErr_NoMemory();
        Py_ssize_t o = 0;
        for (Py_ssize_t j = start; j < end; j++) {
            tmp[o++] = (char)p[j];
            if (p[j] == 0) j++;  /* skip the ff of 00 ff */
        }
        v = code == 0x02 ? PyUnicode_DecodeUTF8(tmp, len, NULL)
                         : PyBytes_FromStringAndSize(tmp, len);
        PyMem_Free(tmp);
    }
    if (!v) { PyErr_Clear(); return NULL; }  /* invalid UTF-8: Python explains */
    *pos = end + 1;
    return v;
}

static unsigned long long be(const unsigned char *p, int k) {
    unsigned long long x = 0;
    for (int i = 0; i < k; i++) x = (x << 8) | p[i];
    return x;
}

static PyObject *dec_value(const unsigned char *p, Py_ssize_t n, Py_ssize_t *pos, int depth) {
    unsigned char code = p[*pos];
    if (code == 0x01 || code == 0x02) return dec_escaped(p, n, pos);
    if (code > 0x14 && code < 0x1d) {
        int k = code - 0x14;
        if (*pos + 1 + k > n) return NULL;
        unsigned long long x = be(p + *pos + 1, k);
        *pos += 1 + k;
        return PyLong_FromUnsignedLongLong(x);
    }
    if (code > 0x0b && code < 0x14) {
        int k = 0x14 - code;
        if (*pos + 1 + k > n) return NULL;
        unsigned long long full = k == 8 ? 0xffffffffffffffffULL : ((1ULL << (8 * k)) - 1);
        unsigned long long m = full - be(p + *pos + 1, k);
        *pos += 1 + k;
        if (m <= 0x7fffffffffffffffULL) return PyLong_FromLongLong(-(long long)m);
        PyObject *u = PyLong_FromUnsignedLongLong(m);
        if (!u) return NULL;
        PyObject *neg = PyNumber_Negative(u);
        Py_DECREF(u);
        return neg;
    }
    if (code == 0x14) { *pos += 1; return PyLong_FromLong(0); }
    if (code == 0x21) {
        if (*pos + 9 > n) return NULL;
        unsigned long long bits = be(p + *pos + 1, 8);
        bits = (bits >> 63) ? (bits ^ 0x8000000000000000ULL) : ~bits;
        double d;
        memcpy(&d, &bits, 8);
        *pos += 9;
        return PyFloat_FromDouble(d);
    }
    if (code == 0x00) { *pos += 1; Py_RETURN_NONE; }
    if (code == 0x27) { *pos += 1; Py_RETURN_TRUE; }
    if (code == 0x26) { *pos += 1; Py_RETURN_FALSE; }
    if (code == 0x05) {
        if (depth >= MAX_DEPTH) return NULL;
        PyObject *list = PyList_New(0);
        if (!list) return NULL;
        Py_ssize_t q = *pos + 1;
        for (;;) {
            if (q >= n) { Py_DECREF(list); return NULL; }
            PyObject *item;
            if (p[q] == 0x00) {
                if (q + 1 < n && p[q + 1] == 0xff) {
                    item = Py_None;
                    Py_INCREF(item);
                    q += 2;
                } else {
                    q += 1;
                    break;
                }
            } else {
                item = dec_value(p, n, &q, depth + 1);
                if (!item) { Py_DECREF(list); return NULL; }
            }
            int r = PyList_Append(list, item);
            Py_DECREF(item);
            if (r < 0) { Py_DECREF(list); return NULL; }
        }
        *pos = q;
        PyObject *t = PyList_AsTuple(list);
        Py_DECREF(list);
        return t;
    }
    if (code == 0x20 && Float32FromBits) {
        if (*pos + 5 > n) return NULL;
        unsigned long long bits = be(p + *pos + 1, 4);
        bits = (bits >> 31) ? (bits ^ 0x80000000ULL) : (~bits & 0xffffffffULL);
        *pos += 5;
        return PyObject_CallFunction(Float32FromBits, "K", bits);
    }
    if (code == 0x30 && MakeUUID) {
        if (*pos + 17 > n) return NULL;
        PyObject *v = PyObject_CallFunction(MakeUUID, "y#", (const char *)p + *pos + 1,
                                            (Py_ssize_t)16);
        *pos += 17;
        return v;
    }
    return NULL;  /* big ints, versionstamps, reserved codes: the Python paths */
}

static PyObject *fdb_decode(PyObject *self, PyObject *key) {
    (void)self;
    if (!PyBytes_CheckExact(key)) Py_RETURN_NONE;
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(key);
    Py_ssize_t n = PyBytes_GET_SIZE(key), pos = 0;
    PyObject *list = PyList_New(0);
    if (!list) return NULL;
    while (pos < n) {
        PyObject *v = dec_value(p, n, &pos, 0);
        if (!v) {
            Py_DECREF(list);
            if (PyErr_Occurred()) return NULL;
            Py_RETURN_NONE;
        }
        int r = PyList_Append(list, v);
        Py_DECREF(v);
        if (r < 0) { Py_DECREF(list); return NULL; }
    }
    PyObject *t = PyList_AsTuple(list);
    Py_DECREF(list);
    return t;
}

/* -- bound schemas ------------------------------------------------------------------
 *
 * A bound schema passes its field kinds as a bytes string, one letter per field:
 *   s string  y bytes  ? bool  f float64  F float32  u uuid  t tuple  n int (any size)
 *   a b c d   int8 int16 int32 int64      A B C D   uint8 uint16 uint32 uint64
 * A value (or a decoded element) that does not match its field's kind exactly -- a
 * subclass, an int out of range, an int in a float64 field -- hands the whole key to the
 * Python fallback, which coerces or explains. bound_encode/bound_decode are called through
 * functools.partial, so a bound call runs no Python frame at all in the common case.
 */

static int kind_range(char kind, long long *lo, unsigned long long *hi) {
    switch (kind) {
    case 'a': *lo = -128; *hi = 127; return 1;
    case 'b': *lo = -32768; *hi = 32767; return 1;
    case 'c': *lo = -2147483648LL; *hi = 2147483647ULL; return 1;
    case 'd': *lo = -0x7fffffffffffffffLL - 1; *hi = 0x7fffffffffffffffULL; return 1;
    case 'A': *lo = 0; *hi = 255; return 1;
    case 'B': *lo = 0; *hi = 65535; return 1;
    case 'C': *lo = 0; *hi = 4294967295ULL; return 1;
    case 'D': *lo = 0; *hi = 0xffffffffffffffffULL; return 1;
    default: return 0;
    }
}

/* 1 when v (not None) is exactly what field kind `kind` takes without coercion */
static int fits(char kind, PyObject *v) {
    PyTypeObject *t = Py_TYPE(v);
    long long lo;
    unsigned long long hi;
    switch (kind) {
    case 's': return t == &PyUnicode_Type;
    case 'y': return t == &PyBytes_Type;
    case '?': return t == &PyBool_Type;
    case 'f': return t == &PyFloat_Type;
    case 'F': return Float32Type && (PyObject *)t == Float32Type;
    case 'u': return UUIDType && (PyObject *)t == UUIDType;
    case 't': return t == &PyTuple_Type || t == &PyList_Type;
    case 'n': return t == &PyLong_Type;
    }
    if (t != &PyLong_Type || !kind_range(kind, &lo, &hi)) return 0;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
    if (overflow < 0) return 0;
    if (overflow > 0) {
        if (kind != 'D') return 0;
        unsigned long long u = PyLong_AsUnsignedLongLong(v);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
        return 1;
    }
    return x >= lo && (x < 0 || (unsigned long long)x <= hi);
}

static PyObject *call_fallback(PyObject *fallback, PyObject *arg, PyObject *prefix) {
    if (prefix) return PyObject_CallFunctionObjArgs(fallback, arg, prefix, NULL);
    return PyObject_CallOneArg(fallback, arg);
}

/* METH_FASTCALL: functools.partial passes its arguments without building a tuple */
static int bound_args(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t fixed,
                      const char *name) {
    if (nargs < fixed || nargs > fixed + 1 || !PyBytes_Check(args[0])) {
        PyErr_Format(PyExc_TypeError, "%s: bad arguments", name);
        return -1;
    }
    return 0;
}

static PyObject *bound_encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (bound_args(args, nargs, 4, "bound_encode") < 0) return NULL;
    PyObject *kinds = args[0], *fallback = args[1], *values = args[3];
    PyObject *prefix = nargs > 4 ? args[4] : NULL;
    int java = PyObject_IsTrue(args[2]);
    if (java < 0) return NULL;
    Py_ssize_t n = PyBytes_GET_SIZE(kinds);
    const char *k = PyBytes_AS_STRING(kinds);
    if (java || (prefix && !PyBytes_CheckExact(prefix)) ||
            !(PyTuple_CheckExact(values) || PyList_CheckExact(values)) ||
            PySequence_Fast_GET_SIZE(values) != n)
        return call_fallback(fallback, values, prefix);
    PyObject **items = PySequence_Fast_ITEMS(values);
    Buf b = {NULL, 0, 0};
    if (prefix && PyBytes_GET_SIZE(prefix)) {
        Py_ssize_t m = PyBytes_GET_SIZE(prefix);
        if (buf_reserve(&b, m) < 0) return NULL;
        memcpy(b.data, PyBytes_AS_STRING(prefix), (size_t)m);
        b.len = m;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = items[i];
        int r = (v == Py_None || fits(k[i], v)) ? enc_value(&b, v, 0, 0) : 0;
        if (r <= 0) {
            PyMem_Free(b.data);
            if (r < 0) return NULL;
            return call_fallback(fallback, values, prefix);
        }
    }
    PyObject *out = PyBytes_FromStringAndSize(b.data ? b.data : "", b.len);
    PyMem_Free(b.data);
    return out;
}

static PyObject *bound_decode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (bound_args(args, nargs, 3, "bound_decode") < 0) return NULL;
    PyObject *kinds = args[0], *fallback = args[1], *key = args[2];
    PyObject *prefix = nargs > 3 ? args[3] : NULL;
    if (!PyBytes_CheckExact(key) || (prefix && (!PyBytes_Check(prefix) ||
                                                 PyBytes_GET_SIZE(prefix))))
        return call_fallback(fallback, key, prefix);
    Py_ssize_t nf = PyBytes_GET_SIZE(kinds);
    const char *k = PyBytes_AS_STRING(kinds);
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(key);
    Py_ssize_t n = PyBytes_GET_SIZE(key), pos = 0;
    PyObject *out = PyTuple_New(nf);
    if (!out) return NULL;
    for (Py_ssize_t i = 0; i < nf; i++) {
        PyObject *v = pos < n ? dec_value(p, n, &pos, 0) : NULL;
        if (!v || (v != Py_None && !fits(k[i], v))) {
            Py_XDECREF(v);
            Py_DECREF(out);
            if (PyErr_Occurred()) return NULL;
            return call_fallback(fallback, key, prefix);
        }
        PyTuple_SET_ITEM(out, i, v);
    }
    if (pos != n) {
        Py_DECREF(out);
        return call_fallback(fallback, key, prefix);
    }
    return out;
}

/* -- reading a schema's fields -----------------------------------------------------
 *
 * The skv, sqlite4 and orderly decoders share this loop: one reader call per field, each
 * given its field's bytes of the spec; any field the reader declines (NULL without an error
 * set) or bytes left at the end hand the whole key to fallback(key).
 */

typedef PyObject *(*FieldReader)(const unsigned char *p, Py_ssize_t n, Py_ssize_t *pos,
                                 const unsigned char *field);

static PyObject *read_fields(PyObject *fallback, PyObject *key, Py_ssize_t pos,
                             const unsigned char *fields, Py_ssize_t nf, Py_ssize_t stride,
                             FieldReader read) {
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(key);
    Py_ssize_t n = PyBytes_GET_SIZE(key);
    PyObject *out = PyTuple_New(nf);
    if (!out) return NULL;
    for (Py_ssize_t i = 0; i < nf; i++) {
        PyObject *v = read(p, n, &pos, fields + stride * i);
        if (!v) {
            Py_DECREF(out);
            if (PyErr_Occurred()) return NULL;
            return PyObject_CallOneArg(fallback, key);
        }
        PyTuple_SET_ITEM(out, i, v);
    }
    if (pos != n) {
        Py_DECREF(out);
        return PyObject_CallOneArg(fallback, key);
    }
    return out;
}

/* -- skv bound decode ----------------------------------------------------------------
 *
 * skv_decode(spec, fallback, key): spec holds three bytes per field of an all-ascending
 * schema -- the K2 type byte, the NULL marker byte (00 or ff) and 1 for a string field (0 for
 * bytes) -- and the common, canonical case is read here. Anything else goes to fallback(key),
 * the Python reading, which decides validity and explains errors.
 */

static int skv_term(const unsigned char *p, Py_ssize_t n, Py_ssize_t at) {
    return at + 1 < n && p[at] == 0x00 && p[at + 1] == 0x01;
}

static PyObject *skv_field(const unsigned char *p, Py_ssize_t n, Py_ssize_t *pos,
                           unsigned char type, unsigned char marker, int text) {
    Py_ssize_t q = *pos;
    if (q >= n) return NULL;
    unsigned char b = p[q];
    if (b == marker) {
        if (!skv_term(p, n, q + 1)) return NULL;
        *pos = q + 3;
        Py_RETURN_NONE;
    }
    if (b != type) return NULL;
    if (type == 0x01) {  /* STRING: 00 ff is a 00, 00 01 ends it */
        Py_ssize_t i = q + 1, zeros = 0, end;
        for (;;) {
            const unsigned char *z = memchr(p + i, 0, (size_t)(n - i));
            if (!z || z - p + 1 >= n) return NULL;
            end = z - p;
            if (p[end + 1] == 0x01) break;
            if (p[end + 1] != 0xff) return NULL;
            zeros++;
            i = end + 2;
        }
        Py_ssize_t start = q + 1, len = end - start - zeros;
        PyObject *v;
        if (!zeros) {
            v = text ? PyUnicode_DecodeUTF8((const char *)p + start, len, NULL)
                     : PyBytes_FromStringAndSize((const char *)p + start, len);
        } else {
            char *tmp = PyMem_Malloc((size_t)(len ? len : 1));
            if (!tmp) return PyErr_NoMemory();
            Py_ssize_t o = 0;
            for (Py_ssize_t j = start; j < end; j++) {
                tmp[o++] = (char)p[j];
                if (p[j] == 0) j++;
            }
            v = text ? PyUnicode_DecodeUTF8(tmp, len, NULL) : PyBytes_FromStringAndSize(tmp, len);
            PyMem_Free(tmp);
        }
        if (!v) { PyErr_Clear(); return NULL; }
        *pos = end + 2;
        return v;
    }
    if (type >= 0x02 && type <= 0x04) {  /* signed: sign byte, then the payload */
        int w = type == 0x02 ? 2 : type == 0x03 ? 4 : 8;
        if (q + 2 + w > n || !skv_term(p, n, q + 2 + w)) return NULL;
        unsigned char sign = p[q + 1];
        unsigned long long x = be(p + q + 2, w);
        unsigned long long full = w == 8 ? 0xffffffffffffffffULL : ((1ULL << (8 * w)) - 1);
        unsigned long long half = full >> 1;
        PyObject *v;
        if (sign == 0x03 && x <= half) v = PyLong_FromUnsignedLongLong(x);
        else if (sign == 0x02 && x >= half && x < full) {
            unsigned long long m = full - x;  /* up to 2**63: mind the int64 minimum */
            v = m == 0x8000000000000000ULL ? PyLong_FromLongLong(LLONG_MIN)
                                           : PyLong_FromLongLong(-(long long)m);
        }
        else return NULL;
        *pos = q + 2 + w + 2;
        return v;
    }
    if (type >= 0x05 && type <= 0x07) {
        int w = type == 0x05 ? 2 : type == 0x06 ? 4 : 8;
        if (q + 1 + w > n || !skv_term(p, n, q + 1 + w)) return NULL;
        *pos = q + 1 + w + 2;
        return PyLong_FromUnsignedLongLong(be(p + q + 1, w));
    }
    if (type == 0x09 || type == 0x08) {
        int w = type == 0x09 ? 8 : 4;
        if (q + 1 + w > n || !skv_term(p, n, q + 1 + w)) return NULL;
        unsigned long long bits = be(p + q + 1, w);
        unsigned long long sign = 1ULL << (8 * w - 1);
        unsigned long long mask = w == 8 ? 0xffffffffffffffffULL : 0xffffffffULL;
        bits = (bits & sign) ? (bits ^ sign) : (bits ^ mask);
        if (w == 8) {
            if ((bits & 0x7ff0000000000000ULL) == 0x7ff0000000000000ULL &&
                    (bits & 0x000fffffffffffffULL)) return NULL;  /* NaN: never written */
            double d;
            memcpy(&d, &bits, 8);
            *pos = q + 1 + w + 2;
            return PyFloat_FromDouble(d);
        }
        if ((bits & 0x7f800000ULL) == 0x7f800000ULL && (bits & 0x007fffffULL)) return NULL;
        if (!Float32FromBits) return NULL;
        *pos = q + 1 + w + 2;
        return PyObject_CallFunction(Float32FromBits, "K", bits);
    }
    if (type == 0x0a) {
        if (q + 2 > n || p[q + 1] > 1 || !skv_term(p, n, q + 2)) return NULL;
        *pos = q + 4;
        if (p[q + 1]) Py_RETURN_TRUE;
        Py_RETURN_FALSE;
    }
    return NULL;
}

static PyObject *skv_read(const unsigned char *p, Py_ssize_t n, Py_ssize_t *pos,
                          const unsigned char *f) {
    return skv_field(p, n, pos, f[0], f[1], f[2]);
}

static PyObject *skv_decode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "skv_decode(spec, fallback, key)");
        return NULL;
    }
    PyObject *spec = args[0], *fallback = args[1], *key = args[2];
    if (!PyBytes_CheckExact(key)) return PyObject_CallOneArg(fallback, key);
    return read_fields(fallback, key, 0, (const unsigned char *)PyBytes_AS_STRING(spec),
                       PyBytes_GET_SIZE(spec) / 3, 3, skv_read);
}

/* -- sqlite4 --------------------------------------------------------------------------
 *
 * sqlite4_encode(spec, fallback, prefix, values) and sqlite4_decode(spec, fallback, prefix,
 * key): spec holds two bytes per field -- a kind and 1 for a descending field -- or is None
 * for a schemaless key (every value ascending, its type from the value or the header). The
 * kinds are those of bound_encode above, plus 'm' (a decimal field: int and float here,
 * Decimal in Python), 'Y' (final binary) and '*' (schemaless). prefix is the table-number
 * varint (b"" for none). Numbers are the common cases only: ints of at most 64 bits, floats
 * through their repr, and on decoding integral values below 10**20 and float64 fields;
 * everything else -- a Decimal, a long mantissa, any malformed byte -- goes to
 * fallback(values) / fallback(key), the Python code, which decides and explains.
 */

static int s4_varint(Buf *b, unsigned long long v, unsigned char mask) {
    unsigned char t[9];
    int k;
    if (v <= 240) { t[0] = (unsigned char)v; k = 1; }
    else if (v <= 2287) { t[0] = (unsigned char)((v - 240) / 256 + 241); t[1] = (v - 240) % 256; k = 2; }
    else if (v <= 67823) { t[0] = 249; t[1] = (unsigned char)((v - 2288) / 256); t[2] = (v - 2288) % 256; k = 3; }
    else {
        int size = byte_count(v);
        if (size < 3) size = 3;
        t[0] = (unsigned char)(247 + size);
        for (int i = 0; i < size; i++) t[1 + i] = (unsigned char)(v >> (8 * (size - 1 - i)));
        k = size + 1;
    }
    if (buf_reserve(b, k) < 0) return -1;
    for (int i = 0; i < k; i++) b->data[b->len++] = (char)(t[i] ^ mask);
    return 0;
}

/* +-0.d1..dn x 100**e; dig holds centimal digits, most significant first, d1 and dn != 0 */
static int s4_number(Buf *b, int neg, const unsigned char *dig, int nd, long long e) {
    unsigned char m = neg ? 0xff : 0;
    if (e >= 0 && e <= 10) {
        if (buf_byte(b, (unsigned char)(neg ? 0x13 - e : 0x17 + e)) < 0) return -1;
    } else if (e > 10) {
        if (buf_byte(b, neg ? 0x08 : 0x22) < 0 || s4_varint(b, (unsigned long long)e, m) < 0)
            return -1;
    } else {
        if (buf_byte(b, neg ? 0x14 : 0x16) < 0 ||
                s4_varint(b, (unsigned long long)(-e), (unsigned char)~m) < 0)
            return -1;
    }
    if (buf_reserve(b, nd) < 0) return -1;
    for (int i = 0; i < nd; i++)
        b->data[b->len++] = (char)((2 * dig[i] + (i + 1 < nd)) ^ m);
    return 0;
}

static int s4_int(Buf *b, PyObject *v) {
    int overflow = 0, neg = 0;
    unsigned long long u;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
    if (overflow > 0) {
        u = PyLong_AsUnsignedLongLong(v);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
    } else if (overflow < 0) {
        return 0;
    } else if (x < 0) {
        neg = 1;
        u = (unsigned long long)(-(x + 1)) + 1;
    } else {
        u = (unsigned long long)x;
    }
    if (!u) return buf_byte(b, 0x15) < 0 ? -1 : 1;
    unsigned char low[10], dig[10];
    int n = 0;
    while (u) { low[n++] = (unsigned char)(u % 100); u /= 100; }
    int skip = 0;
    while (low[skip] == 0) skip++;  /* trailing zero digits are not written */
    for (int i = 0; i < n - skip; i++) dig[i] = low[n - 1 - i];
    return s4_number(b, neg, dig, n - skip, n) < 0 ? -1 : 1;
}

/* a finite, non-zero double through its shortest repr, as Python's repr() writes it */
static int s4_float(Buf *b, double x) {
    if (x != x) return buf_byte(b, 0x06) < 0 ? -1 : 1;
    if (x == 0.0) return buf_byte(b, 0x15) < 0 ? -1 : 1;
    if (Py_IS_INFINITY(x)) return buf_byte(b, x > 0 ? 0x23 : 0x07) < 0 ? -1 : 1;
    char *r = PyOS_double_to_string(x, 'r', 0, 0, NULL);
    if (!r) return -1;
    const char *c = r;
    int neg = 0;
    if (*c == '-') { neg = 1; c++; }
    char digits[40];
    int nd = 0, whole = 0, seen_point = 0;
    long long point;
    for (; *c && *c != 'e'; c++) {
        if (*c == '.') { seen_point = 1; continue; }
        if (nd >= 38) { PyMem_Free(r); return 0; }
        digits[nd++] = *c;
        if (!seen_point) whole++;
    }
    point = whole + (*c == 'e' ? strtol(c + 1, NULL, 10) : 0);
    PyMem_Free(r);
    int lead = 0;
    while (lead < nd && digits[lead] == '0') lead++;
    while (nd > lead && digits[nd - 1] == '0') nd--;
    if (lead == nd) return buf_byte(b, 0x15) < 0 ? -1 : 1;
    point -= lead;
    char al[44];
    int na = 0;
    if (point & 1) { al[na++] = '0'; point++; }
    for (int i = lead; i < nd; i++) al[na++] = digits[i];
    if (na & 1) al[na++] = '0';
    unsigned char dig[22];
    for (int i = 0; i < na / 2; i++) dig[i] = (unsigned char)(10 * (al[2 * i] - '0') + (al[2 * i + 1] - '0'));
    return s4_number(b, neg, dig, na / 2, point / 2) < 0 ? -1 : 1;
}

static int s4_binary_body(Buf *b, const unsigned char *s, Py_ssize_t n) {
    Py_ssize_t groups = (8 * n + 6) / 7;
    if (buf_reserve(b, groups + 1) < 0) return -1;
    unsigned int acc = 0;
    int bits = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        acc = (acc << 8) | s[i];
        bits += 8;
        while (bits >= 7) {
            bits -= 7;
            b->data[b->len++] = (char)(0x80 | ((acc >> bits) & 0x7f));
        }
        acc &= (1u << bits) - 1;
    }
    if (bits) b->data[b->len++] = (char)(0x80 | ((acc << (7 - bits)) & 0x7f));
    b->data[b->len++] = 0;
    return 0;
}

/* one value of field kind `kind`; 1 written, 0 fall back, -1 error */
static int s4_value(Buf *b, PyObject *v, char kind) {
    PyTypeObject *t = Py_TYPE(v);
    if (v == Py_None) return buf_byte(b, 0x05) < 0 ? -1 : 1;
    switch (kind) {
    case '*': case 'm':
        if (t == &PyLong_Type) return s4_int(b, v);
        if (t == &PyFloat_Type) return s4_float(b, PyFloat_AS_DOUBLE(v));
        if (kind == 'm') return 0;
        if (t == &PyUnicode_Type) return s4_value(b, v, 's');
        if (t == &PyBytes_Type) return s4_value(b, v, 'y');
        return 0;
    case 'f':
        return t == &PyFloat_Type ? s4_float(b, PyFloat_AS_DOUBLE(v)) : 0;
    case 's': {
        if (t != &PyUnicode_Type) return 0;
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(v, &n);
        if (!s) { PyErr_Clear(); return 0; }
        if (memchr(s, 0, (size_t)n)) return 0;
        if (buf_reserve(b, n + 2) < 0) return -1;
        b->data[b->len++] = 0x24;
        memcpy(b->data + b->len, s, (size_t)n);
        b->len += n;
        b->data[b->len++] = 0;
        return 1;
    }
    case 'y':
        if (t != &PyBytes_Type || buf_byte(b, 0x25) < 0) return t != &PyBytes_Type ? 0 : -1;
        return s4_binary_body(b, (const unsigned char *)PyBytes_AS_STRING(v),
                              PyBytes_GET_SIZE(v)) < 0 ? -1 : 1;
    case 'Y': {
        if (t != &PyBytes_Type) return 0;
        Py_ssize_t n = PyBytes_GET_SIZE(v);
        if (buf_reserve(b, n + 1) < 0) return -1;
        b->data[b->len++] = 0x26;
        memcpy(b->data + b->len, PyBytes_AS_STRING(v), (size_t)n);
        b->len += n;
        return 1;
    }
    case 'n':
        return t == &PyLong_Type ? s4_int(b, v) : 0;
    }
    return fits(kind, v) ? s4_int(b, v) : 0;  /* a typed int, range-checked */
}

static PyObject *sqlite4_encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4 || !PyBytes_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "sqlite4_encode(spec, fallback, prefix, values)");
        return NULL;
    }
    PyObject *spec = args[0], *fallback = args[1], *prefix = args[2], *values = args[3];
    if (!(PyTuple_CheckExact(values) || PyList_CheckExact(values)))
        return PyObject_CallOneArg(fallback, values);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(values);
    const char *k = spec == Py_None ? NULL : PyBytes_AS_STRING(spec);
    if (k ? PyBytes_GET_SIZE(spec) != 2 * n : n == 0) return PyObject_CallOneArg(fallback, values);
    PyObject **items = PySequence_Fast_ITEMS(values);
    Buf b = {NULL, 0, 0};
    Py_ssize_t m = PyBytes_GET_SIZE(prefix);
    if (buf_reserve(&b, m + 16) < 0) return NULL;
    memcpy(b.data, PyBytes_AS_STRING(prefix), (size_t)m);
    b.len = m;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t start = b.len;
        int r = s4_value(&b, items[i], k ? k[2 * i] : '*');
        if (r <= 0) {
            PyMem_Free(b.data);
            if (r < 0) return NULL;
            return PyObject_CallOneArg(fallback, values);
        }
        if (k && k[2 * i + 1])
            for (Py_ssize_t j = start; j < b.len; j++) b.data[j] = (char)~b.data[j];
    }
    PyObject *out = PyBytes_FromStringAndSize(b.data, b.len);
    PyMem_Free(b.data);
    return out;
}

/* decoding: every byte is read as p[i] ^ mask (mask ff in a descending field) */

#define S4_FALLBACK ((PyObject *)NULL)

static PyObject *s4_read_number(const unsigned char *p, Py_ssize_t n, Py_ssize_t *pos,
                                unsigned char mask, char kind) {
    Py_ssize_t q = *pos;
    unsigned char h = p[q] ^ mask;
    switch (h) {
    case 0x06: if (kind == 'f' || kind == '*') { *pos = q + 1; return PyFloat_FromDouble(Py_NAN); } return S4_FALLBACK;
    case 0x07: if (kind == 'f' || kind == '*') { *pos = q + 1; return PyFloat_FromDouble(-Py_HUGE_VAL); } return S4_FALLBACK;
    case 0x23: if (kind == 'f' || kind == '*') { *pos = q + 1; return PyFloat_FromDouble(Py_HUGE_VAL); } return S4_FALLBACK;
    case 0x15:
        if (kind == 'm') {
            if (!DecimalType) return S4_FALLBACK;
            *pos = q + 1;
            return PyObject_CallFunction(DecimalType, "s", "0");
        }
        *pos = q + 1;
        return kind == 'f' ? PyFloat_FromDouble(0.0) : PyLong_FromLong(0);
    }
    if (h == 0x06 || h == 0x07 || h == 0x23) return S4_FALLBACK;
    int neg = h < 0x15;
    unsigned char nm = mask ^ (neg ? 0xff : 0);  /* reads M (and a plain exponent) */
    long long e;
    Py_ssize_t i = q + 1;
    if (h >= 0x17 && h <= 0x21) e = h - 0x17;
    else if (h >= 0x09 && h <= 0x13) e = 0x13 - h;
    else {
        /* large (22, 08) or small (16, 14): a varint, complemented for 08 and 16 */
        unsigned char vm = mask ^ ((h == 0x08 || h == 0x16) ? 0xff : 0);
        if (i >= n) return S4_FALLBACK;
        unsigned char a0 = p[i] ^ vm;
        unsigned long long v;
        int len = a0 <= 240 ? 1 : a0 <= 248 ? 2 : a0 == 249 ? 3 : a0 - 246;
        if (i + len > n || len > 9) return S4_FALLBACK;
        if (len == 1) v = a0;
        else if (len == 2) v = 240 + 256ULL * (a0 - 241) + (p[i + 1] ^ vm);
        else if (len == 3) v = 2288 + 256ULL * (p[i + 1] ^ vm) + (p[i + 2] ^ vm);
        else {
            v = 0;
            for (int j = 1; j < len; j++) v = (v << 8) | (unsigned char)(p[i + j] ^ vm);
        }
        /* canonical: the shortest form */
        if ((len == 2 && v <= 240) || (len == 3 && v <= 2287) ||
                (len >= 4 && (v <= 67823 || (len > 4 && (v >> (8 * (len - 2))) == 0))))
            return S4_FALLBACK;
        if (v > (1ULL << 40)) return S4_FALLBACK;  /* far beyond a double or an int64 */
        i += len;
        if (h == 0x22 || h == 0x08) { if (v < 11) return S4_FALLBACK; e = (long long)v; }
        else { if (v < 1) return S4_FALLBACK; e = -(long long)v; }
    }
    unsigned char dig[64];
    int nd = 0;
    for (;;) {
        if (i >= n || nd >= 64) return S4_FALLBACK;
        unsigned char c = p[i++] ^ nm;
        if (c > 0xc7) return S4_FALLBACK;
        dig[nd++] = c >> 1;
        if (!(c & 1)) break;
    }
    if (dig[0] == 0 || dig[nd - 1] == 0) return S4_FALLBACK;
    if (kind == 'm' || (kind == '*' && e < nd)) {
        /* a Decimal: the digits without the trailing zero, exact (no context rounding) */
        if (!DecimalType) return S4_FALLBACK;
        char text[200];
        int t = 0;
        if (neg) text[t++] = '-';
        for (int j = 0; j < nd; j++) {
            text[t++] = (char)('0' + dig[j] / 10);
            text[t++] = (char)('0' + dig[j] % 10);
        }
        int strip = dig[nd - 1] % 10 == 0;
        t -= strip;
        snprintf(text + t, sizeof text - (size_t)t, "E%lld",
                 2 * e - 2 * (long long)nd + strip);
        *pos = i;
        return PyObject_CallFunction(DecimalType, "s", text);
    }
    if (kind != 'f') {
        /* integral only, below 10**20 */
        if (e < nd || e > 10) return S4_FALLBACK;
        unsigned long long acc = 0;
        for (long long j = 0; j < e; j++) {
            unsigned long long d = j < nd ? dig[j] : 0;
            if (acc > (0xffffffffffffffffULL - d) / 100) return S4_FALLBACK;
            acc = acc * 100 + d;
        }
        *pos = i;
        if (!neg) return PyLong_FromUnsignedLongLong(acc);
        if (acc > 0x8000000000000000ULL) return S4_FALLBACK;
        return acc == 0x8000000000000000ULL ? PyLong_FromLongLong(LLONG_MIN)
                                            : PyLong_FromLongLong(-(long long)acc);
    }
    /* float64: the decimal digits and exponent through Python's correctly rounded strtod */
    char text[200];
    int t = 0;
    if (neg) text[t++] = '-';
    for (int j = 0; j < nd; j++) {
        text[t++] = (char)('0' + dig[j] / 10);
        text[t++] = (char)('0' + dig[j] % 10);
    }
    snprintf(text + t, sizeof text - (size_t)t, "e%lld", 2 * e - 2 * (long long)nd);
    double x = PyOS_string_to_double(text, NULL, NULL);
    if (x == -1.0 && PyErr_Occurred()) { PyErr_Clear(); return S4_FALLBACK; }
    *pos = i;
    return PyFloat_FromDouble(x);
}

static PyObject *s4_read(const unsigned char *p, Py_ssize_t n, Py_ssize_t *pos, char kind,
                         int desc) {
    Py_ssize_t q = *pos;
    if (q >= n) return S4_FALLBACK;
    unsigned char mask = desc ? 0xff : 0, h = p[q] ^ mask;
    if (h == 0x05) { *pos = q + 1; Py_RETURN_NONE; }
    if (h >= 0x06 && h <= 0x23) {
        if (kind == 's' || kind == 'y' || kind == 'Y') return S4_FALLBACK;
        PyObject *v = s4_read_number(p, n, pos, mask, kind);
        if (v && kind != '*' && kind != 'f' && kind != 'n' && kind != 'm' && !fits(kind, v)) {
            Py_DECREF(v);
            return S4_FALLBACK;
        }
        return v;
    }
    if (h == 0x24 && (kind == 's' || kind == '*')) {
        Py_ssize_t end;
        if (!desc) {
            const unsigned char *z = memchr(p + q + 1, 0, (size_t)(n - q - 1));
            if (!z) return S4_FALLBACK;
            end = z - p;
            PyObject *v = PyUnicode_DecodeUTF8((const char *)p + q + 1, end - q - 1, NULL);
            if (!v) { PyErr_Clear(); return S4_FALLBACK; }
            *pos = end + 1;
            return v;
        }
        for (end = q + 1; end < n && p[end] != 0xff; end++) {}
        if (end >= n) return S4_FALLBACK;
        char *tmp = PyMem_Malloc((size_t)(end - q));
        if (!tmp) return PyErr_NoMemory();
        for (Py_ssize_t j = q + 1; j < end; j++) tmp[j - q - 1] = (char)~p[j];
        PyObject *v = PyUnicode_DecodeUTF8(tmp, end - q - 1, NULL);
        PyMem_Free(tmp);
        if (!v) { PyErr_Clear(); return S4_FALLBACK; }
        *pos = end + 1;
        return v;
    }
    if (h == 0x25 && (kind == 'y' || kind == '*')) {
        Py_ssize_t k = 0;
        while (q + 1 + k < n && ((p[q + 1 + k] ^ mask) & 0x80)) k++;
        if (q + 1 + k >= n || (p[q + 1 + k] ^ mask) != 0) return S4_FALLBACK;
        Py_ssize_t len = 7 * k / 8;
        if ((8 * len + 6) / 7 != k) return S4_FALLBACK;
        int pad = (int)(7 * k - 8 * len);
        if (pad && ((p[q + k] ^ mask) & ((1 << pad) - 1))) return S4_FALLBACK;
        PyObject *v = PyBytes_FromStringAndSize(NULL, len);
        if (!v) return NULL;
        unsigned char *o = (unsigned char *)PyBytes_AS_STRING(v);
        unsigned int acc = 0;
        int bits = 0;
        Py_ssize_t w = 0;
        for (Py_ssize_t j = 0; j < k && w < len; j++) {
            acc = (acc << 7) | ((p[q + 1 + j] ^ mask) & 0x7f);
            bits += 7;
            if (bits >= 8) { bits -= 8; o[w++] = (unsigned char)(acc >> bits); acc &= (1u << bits) - 1; }
        }
        *pos = q + 2 + k;
        return v;
    }
    if (h == 0x26 && !desc && (kind == 'Y' || kind == '*')) {
        *pos = n;
        return PyBytes_FromStringAndSize((const char *)p + q + 1, n - q - 1);
    }
    return S4_FALLBACK;
}

static PyObject *s4_read_field(const unsigned char *p, Py_ssize_t n, Py_ssize_t *pos,
                               const unsigned char *f) {
    return s4_read(p, n, pos, (char)f[0], f[1]);
}

static PyObject *sqlite4_decode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4 || !PyBytes_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "sqlite4_decode(spec, fallback, prefix, key)");
        return NULL;
    }
    PyObject *spec = args[0], *fallback = args[1], *prefix = args[2], *key = args[3];
    if (!PyBytes_CheckExact(key)) return PyObject_CallOneArg(fallback, key);
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(key);
    Py_ssize_t n = PyBytes_GET_SIZE(key), m = PyBytes_GET_SIZE(prefix), pos = m;
    if (n < m || memcmp(p, PyBytes_AS_STRING(prefix), (size_t)m) != 0)
        return PyObject_CallOneArg(fallback, key);
    if (spec == Py_None) {
        PyObject *out = PyList_New(0);
        if (!out) return NULL;
        while (pos < n) {
            PyObject *v = s4_read(p, n, &pos, '*', p[pos] >= 0xd9);
            if (!v || PyList_Append(out, v) < 0) {
                Py_XDECREF(v);
                Py_DECREF(out);
                if (PyErr_Occurred()) return NULL;
                return PyObject_CallOneArg(fallback, key);
            }
            Py_DECREF(v);
        }
        if (!PyList_GET_SIZE(out)) { Py_DECREF(out); return PyObject_CallOneArg(fallback, key); }
        PyObject *t = PyList_AsTuple(out);
        Py_DECREF(out);
        return t;
    }
    return read_fields(fallback, key, pos, (const unsigned char *)PyBytes_AS_STRING(spec),
                       PyBytes_GET_SIZE(spec) / 2, 2, s4_read_field);
}

/* -- orderly --------------------------------------------------------------------------
 *
 * orderly_encode(spec, fallback, values) and orderly_decode(spec, fallback, key): spec is
 * the struct termination (0 AUTO, 1 MUST, 2 SHOULD_NOT) and then four bytes per field: the
 * kind, flags (1: effectively descending, 2: declared SHOULD_NOT) and a big-endian length
 * (fixed byte arrays). Kinds: q i Q I var-ints int64 int32 uint64 uint32 (no reserved
 * bits), l j L J fixed int64 int32 uint64 uint32, d f float64 float32, s string, y fixed
 * bytes. Decimal and variable-length byte fields stay in Python (the bound codec then does
 * not call these at all). A var-int is read and then written again: only the bytes the
 * encoder writes are accepted, everything else goes to fallback, which explains.
 */

typedef struct { int sign, s, d, lb, e, maxlen; } OLayout;
static const OLayout OL_INT64 = {1, 6, 5, 3, 2, 9}, OL_INT32 = {1, 6, 5, 2, 3, 5},
                     OL_UINT64 = {0, 7, 6, 3, 3, 9}, OL_UINT32 = {0, 7, 6, 2, 4, 5};

static const OLayout *o_layout(char kind) {
    switch (kind) {
    case 'q': return &OL_INT64;
    case 'i': return &OL_INT32;
    case 'Q': return &OL_UINT64;
    case 'I': return &OL_UINT32;
    }
    return NULL;
}

static int bit_length(unsigned long long v) {
    int n = 0;
    while (v) { n++; v >>= 1; }
    return n;
}

/* the var-int of x (signed layouts: x is a two's-complement int64) into out[0..8] */
static int ov_write(unsigned char *out, unsigned long long x, int neg, const OLayout *L,
                    unsigned char mask) {
    int bits = bit_length(neg ? ~x : x), len, h;
    if (bits <= L->s) { len = 1; h = L->s; }
    else if (bits <= L->d + 8) { len = 2; h = L->d; }
    else { len = 1 + ((bits - L->e + 7) >> 3); h = L->e; }
    if (len > L->maxlen) return 0;
    unsigned int t;
    if (L->sign) {
        if (len == 1) t = neg ? 0x40 : 0x80;
        else if (len == 2) t = neg ? 0x20 : 0xc0;
        else if (neg) t = (unsigned)(((len - 3) ^ ((1 << L->lb) - 1)) << L->e);
        else t = 0xe0 + (unsigned)((len - 3) << L->e);
    } else {
        t = len == 1 ? 0x00 : len == 2 ? 0x80 : 0xc0 + (unsigned)((len - 3) << L->e);
    }
    unsigned int hdata = 0;
    if (len < 9) {
        unsigned long long top = neg ? (unsigned long long)((long long)x >> (8 * (len - 1)))
                                     : x >> (8 * (len - 1));
        hdata = (unsigned int)(top & ((1ULL << h) - 1));
    }
    unsigned int hb = t | hdata;
    if (!L->sign) hb += 1;
    out[0] = (unsigned char)((hb ^ mask) & 0xff);
    for (int i = len - 2, j = 1; i >= 0; i--, j++)
        out[j] = (unsigned char)(((x >> (8 * i)) & 0xff) ^ mask);
    return len;
}

/* 1: value read into *x / *neg (or NULL: *isnull); 0: not handled here */
static int ov_read(const unsigned char *p, Py_ssize_t n, Py_ssize_t *pos, const OLayout *L,
                   unsigned char mask, unsigned long long *x, int *neg, int *isnull) {
    Py_ssize_t q = *pos;
    *isnull = 0;
    unsigned int u = (p[q] ^ mask) & 0xff;
    if (!u) { *isnull = 1; *pos = q + 1; return 1; }
    if (!L->sign) u -= 1;
    unsigned int g = u & 0xff, ones = (1u << L->lb) - 1;
    int len, negative = 0;
    if (L->sign && !(g & 0x80)) {
        negative = 1;
        len = (g & 0x40) ? 1 : (g & 0x20) ? 2 : (int)(((~g) >> L->e) & ones) + 3;
    } else if (L->sign) {
        len = !(g & 0x40) ? 1 : !(g & 0x20) ? 2 : (int)((g >> L->e) & ones) + 3;
    } else {
        len = !(g & 0x80) ? 1 : !(g & 0x40) ? 2 : (int)((g >> L->e) & ones) + 3;
    }
    if (len > L->maxlen || q + len > n) return 0;
    unsigned long long data = 0, c;
    for (int j = 1; j < len; j++) data = (data << 8) | (unsigned char)(p[q + j] ^ mask);
    int width;
    if (len == 9) { c = data; width = 64; }
    else {
        int h = len == 1 ? L->s : len == 2 ? L->d : L->e;
        c = ((unsigned long long)(u & ((1u << h) - 1)) << (8 * (len - 1))) | data;
        width = h + 8 * (len - 1);
    }
    if (negative) {
        if (width == 64) { if (!(c >> 63)) return 0; }
        else c = c - (1ULL << width);  /* two's complement */
    }
    /* range of the 32-bit types */
    if (L == &OL_INT32 && (negative ? (long long)c < -2147483648LL : c > 2147483647ULL)) return 0;
    if (L == &OL_UINT32 && c > 4294967295ULL) return 0;
    if (L == &OL_INT64 && !negative && (c >> 63)) return 0;
    unsigned char again[9];
    int m = ov_write(again, c, negative, L, mask);
    if (m != len || memcmp(again, p + q, (size_t)len) != 0) return 0;
    *x = c;
    *neg = negative;
    *pos = q + len;
    return 1;
}

static int o_int_of(PyObject *v, char kind, unsigned long long *x, int *neg) {
    if (Py_TYPE(v) != &PyLong_Type) return 0;
    int overflow = 0;
    long long s = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (s == -1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
    int unsigned_kind = kind == 'Q' || kind == 'I' || kind == 'L' || kind == 'J';
    int wide = kind == 'q' || kind == 'Q' || kind == 'l' || kind == 'L';
    if (overflow > 0) {
        if (!(unsigned_kind && wide)) return 0;
        unsigned long long u = PyLong_AsUnsignedLongLong(v);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
        *x = u; *neg = 0;
        return 1;
    }
    if (overflow < 0) return 0;
    if (unsigned_kind) {
        if (s < 0 || (!wide && s > 4294967295LL)) return 0;
    } else if (!wide && (s < -2147483648LL || s > 2147483647LL)) {
        return 0;
    }
    *x = (unsigned long long)s;
    *neg = s < 0;
    return 1;
}

static unsigned long long f_transform(unsigned long long b, int bits) {
    unsigned long long top = 1ULL << (bits - 1);
    unsigned long long all = bits == 64 ? 0xffffffffffffffffULL : ((1ULL << bits) - 1);
    b = (b & top) ? (b ^ all) : (b | top);
    return (b + 1) & all;
}

static int o_kind_nullable(char kind) {
    return !(kind == 'l' || kind == 'j' || kind == 'L' || kind == 'J' || kind == 'y');
}

/* one field; 1 written, 0 fall back, -1 error */
static int o_write(Buf *b, PyObject *v, char kind, unsigned char mask, int t, Py_ssize_t flen) {
    unsigned long long x;
    int neg;
    const OLayout *L = o_layout(kind);
    if (v == Py_None) {
        if (!o_kind_nullable(kind)) return 0;
        if (!t) return 1;
        int k = kind == 'd' ? 8 : kind == 'f' ? 4 : 1;
        if (buf_reserve(b, k) < 0) return -1;
        for (int j = 0; j < k; j++) b->data[b->len++] = (char)mask;
        return 1;
    }
    if (L) {
        unsigned char tmp[9];
        if (!o_int_of(v, kind, &x, &neg)) return 0;
        int len = ov_write(tmp, x, neg, L, mask);
        if (!len || buf_reserve(b, len) < 0) return len ? -1 : 0;
        memcpy(b->data + b->len, tmp, (size_t)len);
        b->len += len;
        return 1;
    }
    switch (kind) {
    case 'l': case 'j': case 'L': case 'J': {
        if (!o_int_of(v, kind, &x, &neg)) return 0;
        int w = (kind == 'l' || kind == 'L') ? 8 : 4;
        if (kind == 'l') x ^= 0x8000000000000000ULL;
        if (kind == 'j') x = (x + 0x80000000ULL) & 0xffffffffULL;
        if (buf_reserve(b, w) < 0) return -1;
        for (int i = w - 1; i >= 0; i--) b->data[b->len++] = (char)(((x >> (8 * i)) & 0xff) ^ mask);
        return 1;
    }
    case 'd': case 'f': {
        unsigned long long bits;
        int w;
        if (kind == 'd') {
            if (Py_TYPE(v) != &PyFloat_Type) return 0;
            double d = PyFloat_AS_DOUBLE(v);
            if (d != d) bits = 0x7ff8000000000000ULL;
            else memcpy(&bits, &d, 8);
            w = 8;
        } else {
            if (!Float32Type || (PyObject *)Py_TYPE(v) != Float32Type) return 0;
            float f = (float)PyFloat_AS_DOUBLE(v);
            unsigned int fb;
            if (f != f) fb = 0x7fc00000u;
            else memcpy(&fb, &f, 4);
            bits = fb;
            w = 4;
        }
        bits = f_transform(bits, 8 * w);
        if (buf_reserve(b, w) < 0) return -1;
        for (int i = w - 1; i >= 0; i--) b->data[b->len++] = (char)(((bits >> (8 * i)) & 0xff) ^ mask);
        return 1;
    }
    case 's': {
        if (Py_TYPE(v) != &PyUnicode_Type) return 0;
        Py_ssize_t k;
        const char *s = PyUnicode_AsUTF8AndSize(v, &k);
        if (!s) { PyErr_Clear(); return 0; }
        if (buf_reserve(b, k + 1) < 0) return -1;
        for (Py_ssize_t j = 0; j < k; j++)
            b->data[b->len++] = (char)((((unsigned char)s[j] + 2) & 0xff) ^ mask);
        if (t || !k) b->data[b->len++] = (char)(0x01 ^ mask);
        return 1;
    }
    case 'y': {
        if (Py_TYPE(v) != &PyBytes_Type || PyBytes_GET_SIZE(v) != flen) return 0;
        if (buf_reserve(b, flen) < 0) return -1;
        const unsigned char *s = (const unsigned char *)PyBytes_AS_STRING(v);
        for (Py_ssize_t j = 0; j < flen; j++) b->data[b->len++] = (char)(s[j] ^ mask);
        return 1;
    }
    }
    return 0;
}

static PyObject *orderly_encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "orderly_encode(spec, fallback, values)");
        return NULL;
    }
    PyObject *spec = args[0], *fallback = args[1], *values = args[2];
    const unsigned char *k = (const unsigned char *)PyBytes_AS_STRING(spec);
    Py_ssize_t nf = (PyBytes_GET_SIZE(spec) - 1) / 4;
    if (!(PyTuple_CheckExact(values) || PyList_CheckExact(values)) ||
            PySequence_Fast_GET_SIZE(values) != nf || nf > 64)
        return PyObject_CallOneArg(fallback, values);
    PyObject **items = PySequence_Fast_ITEMS(values);
    int t[64];
    int ft = k[0];  /* 0 AUTO, 1 MUST, 2 SHOULD_NOT */
    for (Py_ssize_t i = nf - 1; i >= 0; i--) {
        const unsigned char *f = k + 1 + 4 * i;
        int desc = f[1] & 1, term = (f[1] & 2) ? 2 : ft;
        Py_ssize_t flen = (f[2] << 8) | f[3];
        t[i] = term == 1 || (term == 0 && desc);
        int empty = items[i] == Py_None ? !t[i] : ((char)f[0] == 'y' && flen == 0);
        if (!empty) ft = 1;
    }
    Buf b = {NULL, 0, 0};
    if (buf_reserve(&b, 32) < 0) return NULL;
    for (Py_ssize_t i = 0; i < nf; i++) {
        const unsigned char *f = k + 1 + 4 * i;
        int r = o_write(&b, items[i], (char)f[0], (f[1] & 1) ? 0xff : 0, t[i],
                        (f[2] << 8) | f[3]);
        if (r <= 0) {
            PyMem_Free(b.data);
            if (r < 0) return NULL;
            return PyObject_CallOneArg(fallback, values);
        }
    }
    PyObject *out = PyBytes_FromStringAndSize(b.data, b.len);
    PyMem_Free(b.data);
    return out;
}

static PyObject *o_read(const unsigned char *p, Py_ssize_t n, Py_ssize_t *pos, char kind,
                        unsigned char mask, Py_ssize_t flen) {
    Py_ssize_t q = *pos;
    const OLayout *L = o_layout(kind);
    if (q >= n) {
        if (o_kind_nullable(kind) || (kind == 'y' && flen == 0)) {
            if (kind == 'y') return PyBytes_FromStringAndSize("", 0);
            Py_RETURN_NONE;
        }
        return NULL;
    }
    if (L) {
        unsigned long long x;
        int neg, isnull;
        if (!ov_read(p, n, pos, L, mask, &x, &neg, &isnull)) return NULL;
        if (isnull) Py_RETURN_NONE;
        return neg ? PyLong_FromLongLong((long long)x) : PyLong_FromUnsignedLongLong(x);
    }
    switch (kind) {
    case 'l': case 'j': case 'L': case 'J': {
        int w = (kind == 'l' || kind == 'L') ? 8 : 4;
        if (q + w > n) return NULL;
        unsigned long long x = 0;
        for (int j = 0; j < w; j++) x = (x << 8) | (unsigned char)(p[q + j] ^ mask);
        *pos = q + w;
        if (kind == 'l') return PyLong_FromLongLong((long long)(x ^ 0x8000000000000000ULL));
        if (kind == 'j') return PyLong_FromLongLong((long long)x - 0x80000000LL);
        return PyLong_FromUnsignedLongLong(x);
    }
    case 'd': case 'f': {
        int w = kind == 'd' ? 8 : 4;
        if (q + w > n) return NULL;
        unsigned long long x = 0;
        for (int j = 0; j < w; j++) x = (x << 8) | (unsigned char)(p[q + j] ^ mask);
        *pos = q + w;
        if (!x) Py_RETURN_NONE;
        x -= 1;
        unsigned long long top = 1ULL << (8 * w - 1);
        unsigned long long all = w == 8 ? 0xffffffffffffffffULL : 0xffffffffULL;
        x = (x & top) ? (x ^ top) : (x ^ all);
        if (w == 8) {
            if ((x & 0x7ff0000000000000ULL) == 0x7ff0000000000000ULL &&
                    (x & 0x000fffffffffffffULL) && x != 0x7ff8000000000000ULL) return NULL;
            double d;
            memcpy(&d, &x, 8);
            return PyFloat_FromDouble(d);
        }
        if ((x & 0x7f800000ULL) == 0x7f800000ULL && (x & 0x007fffffULL) && x != 0x7fc00000ULL)
            return NULL;
        if (!Float32FromBits) return NULL;
        return PyObject_CallFunction(Float32FromBits, "K", x);
    }
    case 's': {
        if ((p[q] ^ mask) == 0) { *pos = q + 1; Py_RETURN_NONE; }
        Py_ssize_t end = q;
        unsigned char term = (unsigned char)(0x01 ^ mask);
        while (end < n && p[end] != term) end++;
        Py_ssize_t len = end - q;
        char *tmp = PyMem_Malloc((size_t)(len ? len : 1));
        if (!tmp) return PyErr_NoMemory();
        for (Py_ssize_t j = 0; j < len; j++) tmp[j] = (char)(((p[q + j] ^ mask) - 2) & 0xff);
        PyObject *v = PyUnicode_DecodeUTF8(tmp, len, NULL);
        PyMem_Free(tmp);
        if (!v) { PyErr_Clear(); return NULL; }
        *pos = end < n ? end + 1 : n;
        return v;
    }
    case 'y': {
        if (q + flen > n) return NULL;
        PyObject *v = PyBytes_FromStringAndSize(NULL, flen);
        if (!v) return NULL;
        unsigned char *o = (unsigned char *)PyBytes_AS_STRING(v);
        for (Py_ssize_t j = 0; j < flen; j++) o[j] = p[q + j] ^ mask;
        *pos = q + flen;
        return v;
    }
    }
    return NULL;
}

static PyObject *o_read_field(const unsigned char *p, Py_ssize_t n, Py_ssize_t *pos,
                              const unsigned char *f) {
    return o_read(p, n, pos, (char)f[0], (f[1] & 1) ? 0xff : 0, (f[2] << 8) | f[3]);
}

static PyObject *orderly_decode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "orderly_decode(spec, fallback, key)");
        return NULL;
    }
    PyObject *spec = args[0], *fallback = args[1], *key = args[2];
    if (!PyBytes_CheckExact(key)) return PyObject_CallOneArg(fallback, key);
    const unsigned char *k = (const unsigned char *)PyBytes_AS_STRING(spec);
    return read_fields(fallback, key, 0, k + 1, (PyBytes_GET_SIZE(spec) - 1) / 4, 4,
                       o_read_field);
}

static PyObject *configure(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *f32, *f32_from_bits, *uuid_type, *make_uuid, *decimal_type;
    if (!PyArg_ParseTuple(args, "OOOOO", &f32, &f32_from_bits, &uuid_type, &make_uuid,
                          &decimal_type))
        return NULL;
    Py_XSETREF(DecimalType, Py_NewRef(decimal_type));
    Py_XSETREF(Float32Type, Py_NewRef(f32));
    Py_XSETREF(Float32FromBits, Py_NewRef(f32_from_bits));
    Py_XSETREF(UUIDType, Py_NewRef(uuid_type));
    Py_XSETREF(MakeUUID, Py_NewRef(make_uuid));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"fdb_encode", (PyCFunction)(void (*)(void))fdb_encode, METH_FASTCALL, "Encode a tuple of common values, or None."},
    {"fdb_decode", fdb_decode, METH_O, "Decode a well-formed common key, or None."},
    {"bound_encode", (PyCFunction)(void (*)(void))bound_encode, METH_FASTCALL,
     "bound_encode(kinds, fallback, java, values[, prefix]): a bound schema's encode."},
    {"bound_decode", (PyCFunction)(void (*)(void))bound_decode, METH_FASTCALL,
     "bound_decode(kinds, fallback, key[, prefix]): a bound schema's decode."},
    {"skv_decode", (PyCFunction)(void (*)(void))skv_decode, METH_FASTCALL,
     "skv_decode(spec, fallback, key): an all-ascending skv schema's decode."},
    {"sqlite4_encode", (PyCFunction)(void (*)(void))sqlite4_encode, METH_FASTCALL,
     "sqlite4_encode(spec, fallback, prefix, values): an sqlite4 key, or fallback(values)."},
    {"sqlite4_decode", (PyCFunction)(void (*)(void))sqlite4_decode, METH_FASTCALL,
     "sqlite4_decode(spec, fallback, prefix, key): sqlite4 values, or fallback(key)."},
    {"orderly_encode", (PyCFunction)(void (*)(void))orderly_encode, METH_FASTCALL,
     "orderly_encode(spec, fallback, values): an orderly key, or fallback(values)."},
    {"orderly_decode", (PyCFunction)(void (*)(void))orderly_decode, METH_FASTCALL,
     "orderly_decode(spec, fallback, key): orderly values, or fallback(key)."},
    {"configure", configure, METH_VARARGS, "Hand over the Python types the C code needs."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "lexcodecs._speedups",
    "Optional C fast paths; every answer is also computed by the Python code.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__speedups(void) { return PyModule_Create(&module); }
