/* lexcodecs._speedups: optional C fast paths for the fdb-tuple codec.
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
 *   configure(float32_type, float32_from_bits, uuid_type, make_uuid)
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define MAX_DEPTH 64

static PyObject *Float32Type = NULL;   /* lexcodecs.types.Float32 */
static PyObject *Float32FromBits = NULL;
static PyObject *UUIDType = NULL;      /* uuid.UUID */
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

static PyObject *skv_decode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "skv_decode(spec, fallback, key)");
        return NULL;
    }
    PyObject *spec = args[0], *fallback = args[1], *key = args[2];
    if (!PyBytes_CheckExact(key)) return PyObject_CallOneArg(fallback, key);
    const unsigned char *s = (const unsigned char *)PyBytes_AS_STRING(spec);
    Py_ssize_t nf = PyBytes_GET_SIZE(spec) / 3;
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(key);
    Py_ssize_t n = PyBytes_GET_SIZE(key), pos = 0;
    PyObject *out = PyTuple_New(nf);
    if (!out) return NULL;
    for (Py_ssize_t i = 0; i < nf; i++) {
        PyObject *v = skv_field(p, n, &pos, s[3 * i], s[3 * i + 1], s[3 * i + 2]);
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

static PyObject *configure(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *f32, *f32_from_bits, *uuid_type, *make_uuid;
    if (!PyArg_ParseTuple(args, "OOOO", &f32, &f32_from_bits, &uuid_type, &make_uuid))
        return NULL;
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
    {"configure", configure, METH_VARARGS, "Hand over the Python types the C code needs."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "lexcodecs._speedups",
    "Optional C fast paths; every answer is also computed by the Python code.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__speedups(void) { return PyModule_Create(&module); }
