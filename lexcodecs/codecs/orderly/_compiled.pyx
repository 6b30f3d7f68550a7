# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled ``orderly`` codec: ``encode`` and ``decode`` of a bound schema, every field kind.

Theory of operation: binding builds the reference struct (``bound.BoundOrderly``, one field
codec per field) and then :class:`CompiledOrderly`, its subclass, whose ``encode``/``decode``
slots hold the methods of a :class:`Plan`: a C array with one :c:type:`Spec` per field, read
from those same field codecs (kind, effective order, var-int layout, reserved bits, widths,
lengths, declared termination). The format is described in ``format.py``; the writers
(``_write.pxi``) and readers (``_read.pxi``), included here, follow the reference field codecs
(``reference_*.py``) function for function. The bytes of a var-int, a string and variable-length
bytes are ``_layout.pxi``'s, which the columnar kernel includes too.

* **Encode** runs two passes. Back to front it gives each field its termination bit ``t``
  (spec §11.3: a field is empty only when it is a NULL written without ``t``, or a fixed byte
  array of length 0); front to back it writes each field ascending into one ``Buf``, then
  inverts the field when descending (and puts a var-int's reserved bits back: they are never
  inverted).
* **Decode** reads each field through the mask of its order and builds the values into a
  tuple. It is as strict as the reference: every reader accepts only bytes the encoder writes
  (var-ints are re-encoded and compared; decimals and variable-length bytes are checked for the
  canonical digits and for the exact length of the terminated form, or of the unterminated form
  at the end of the key).
* **Handing over.** Values of any other type than the exact expected one (a subclass, a bool
  in an int field, a tampered object), values to refuse, and keys that are not canonical go to
  the reference code for the whole key (``careful_encode`` / ``careful_decode``), which gives
  the same bytes or raises the typed error. This module never shapes an error; it counts its
  hand-overs (``lexcodecs._impl.HANDOVERS``).
"""

import decimal

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_CheckExact, PyByteArray_GET_SIZE
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_CheckExact, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.exc cimport PyErr_Clear
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_CheckExact, PyFloat_FromDouble
from cpython.long cimport PyLong_CheckExact, PyLong_FromLongLong, PyLong_FromUnsignedLongLong
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.object cimport PyObject, PyObject_Str, PyTypeObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.unicode cimport PyUnicode_CheckExact, PyUnicode_DecodeUTF8, PyUnicode_FromStringAndSize
from libc.string cimport memchr, memcmp, memcpy

from lexcodecs._engine cimport (
    Buf, bits_double, buf_bytes, bytes_of, buf_free, buf_grow, buf_init, buf_invert, buf_put, buf_put_be,
    buf_put_n, buf_room, double_bits, get_be, int64_of, order_bits, uint64_of, unorder_bits,
    utf8_of, values_of,
)
from lexcodecs._raw cimport SLACK

from ...types import Float32
from . import format as _format
from .format import SHOULD_NOT, TERMINATION_CODES
from .bound import BoundOrderly, field_kind
from .reference_decimal import int_to_decimal
from lexcodecs._impl import HANDOVERS

cdef extern from *:
    """
    /* A float subclass instance holding x, as float's own tp_new builds one. */
    static PyObject *lx_float_subtype(PyTypeObject *tp, double x) {
        PyObject *o = tp->tp_alloc(tp, 0);
        if (o != NULL) ((PyFloatObject *)o)->ob_fval = x;
        return o;
    }
    /* Set a slot through its member descriptor (obj.slot = v without the name lookup). */
    static int lx_set_slot(PyObject *descr, PyObject *obj, PyObject *v) {
        return Py_TYPE(descr)->tp_descr_set(descr, obj, v);
    }
    """
    object lx_float_subtype(PyTypeObject *tp, double x)
    int lx_set_slot(object descr, object obj, object v) except -1

# -- the field kinds and the plan -----------------------------------------------------------

# the field kinds, termination codes and decimal classes: format.py's, through the
# _format.pxd the build writes from it (lexcodecs/_pxdgen.py)
from lexcodecs.codecs.orderly._format cimport (
    DEC_EXP_MAX, DEC_EXP_MAX_LENGTH, DEC_EXP_MIN, DEC_NEG, DEC_NULL, DEC_POS, DEC_ZERO,
    K_DECIMAL, K_FIXED_BYTES, K_FIXED_INT, K_FLOAT, K_STRING, K_VAR_BYTES, K_VARINT, T_AUTO,
    T_MUST, T_SHOULD_NOT,
)

# the bytes of var-ints, strings and variable-length bytes, shared with the columnar kernel
include "_layout.pxi"

ctypedef struct Lay:
    int signed_, s, d, lb, e, max_length
    long long lo, hi                    # the range of a signed layout
    unsigned long long uhi              # the top of an unsigned one (its bottom is 0)

ctypedef struct Spec:
    int kind
    int desc                            # effective order
    unsigned char mask                  # 0xff descending, read through it
    int should_not                      # declared termination SHOULD_NOT
    int nullable
    Lay lay                             # var-ints
    OrderlyVarint vt                    # var-ints: the layout's tables, with r (_layout.pxi)
    int r, v                            # reserved bits and their value
    int width                           # fixed ints and floats, in bytes
    int signed_                         # fixed ints
    long long lo, hi                    # fixed signed ints
    unsigned long long uhi              # fixed unsigned ints
    unsigned long long nan              # the canonical NaN of a float
    Py_ssize_t n                        # fixed bytes: length; variable bytes: raw prefix

cdef Lay _EXPONENT
cdef OrderlyVarint _EXPONENT_VT         # a decimal's exponent: two reserved bits, its type


cdef void lay_of(Lay *out, object lay) except *:
    out.signed_ = lay.signed
    out.s, out.d, out.lb, out.e, out.max_length = lay.s, lay.d, lay.lb, lay.e, lay.max_length
    if lay.signed:
        out.lo, out.hi, out.uhi = lay.lo, lay.hi, 0
    else:
        out.lo, out.hi, out.uhi = 0, 0, lay.hi


cdef void tables_of(OrderlyVarint *out, const Lay *lay, int r) noexcept:
    orderly_varint_tables(out, lay.signed_, lay.s, lay.d, lay.lb, lay.e, lay.max_length, r)


lay_of(&_EXPONENT, _format.EXPONENT)
tables_of(&_EXPONENT_VT, &_EXPONENT, 2)

# -- variable-length bytes: the digit nibbles (spec §10.2) -----------------------------------

cdef int _NIB_DIGIT[16]         # nibble -> digit, -1 not a digit (1, the terminator, included)
for _i in range(16):
    _NIB_DIGIT[_i] = -1
for _i, _nib in enumerate(_format.DIGIT_NIBBLE):
    _NIB_DIGIT[_nib] = _i
if _format.VARBYTES_TERMINATOR != 1:
    raise ImportError("lexcodecs.codecs.orderly._compiled does not match format.py")


# -- values the decoders build --------------------------------------------------------------

cdef object _Decimal = decimal.Decimal
cdef object _DEC_ZERO = decimal.Decimal(0)
cdef object _Float32 = Float32
cdef object _F32_BITS = Float32.__dict__["bits"]
if Float32.__mro__ != (Float32, float, object) or type(_F32_BITS).__name__ != "member_descriptor":
    raise ImportError("lexcodecs.types.Float32 is not the float subclass this module builds")

cdef object _HANDOVER = object()        # a reader's "not mine": the reference decides
#: hand-overs are counted in lexcodecs._impl.HANDOVERS under this package's name
cdef str PACKAGE = "orderly"






cdef inline object make_float32(unsigned int bits):
    cdef unsigned int b = bits
    cdef float f
    memcpy(&f, &b, 4)
    obj = lx_float_subtype(<PyTypeObject *> _Float32, <double> f)
    lx_set_slot(_F32_BITS, obj, PyLong_FromUnsignedLongLong(bits))
    return obj

include "_write.pxi"
include "_read.pxi"

# -- the plan and the bound class -----------------------------------------------------------

cdef enum:
    SMALL = 32          # fields whose terminations fit on the C stack


cdef class Plan:
    """The compiled struct of one bound schema: a :c:type:`Spec` per field."""

    cdef Spec *specs
    cdef Py_ssize_t n
    cdef int struct_term
    cdef object careful_encode
    cdef object careful_decode

    def __cinit__(self, bound):
        cdef Spec *f
        codecs = bound.codecs
        self.n = len(codecs)
        self.specs = <Spec *> PyMem_Malloc(max(self.n, 1) * sizeof(Spec))
        if self.specs == NULL:
            raise MemoryError()
        self.struct_term = TERMINATION_CODES[bound.struct_termination]
        self.careful_encode = bound.careful_encode
        self.careful_decode = bound.careful_decode
        for i, (fc, declared) in enumerate(zip(codecs, bound.declared)):
            f = &self.specs[i]
            f.kind = field_kind(fc.field)
            f.desc = fc.desc
            f.mask = fc.mask
            f.should_not = declared == SHOULD_NOT
            f.nullable = fc.nullable
            f.r = f.v = f.width = f.signed_ = 0
            f.lo = f.hi = 0
            f.uhi = f.nan = 0
            f.n = 0
            lay_of(&f.lay, _format.EXPONENT)
            if f.kind == K_VARINT:
                lay_of(&f.lay, fc.lay)
                f.r, f.v = fc.r, fc.v
            elif f.kind == K_FIXED_INT:
                f.width = fc.width
                f.signed_ = fc.lo < 0
                if f.signed_:
                    f.lo, f.hi = fc.lo, fc.hi
                else:
                    f.uhi = fc.hi
            elif f.kind == K_FLOAT:
                f.width, f.nan = fc.width, fc.canonical_nan
            elif f.kind == K_FIXED_BYTES:
                f.n = fc.n
            elif f.kind == K_VAR_BYTES:
                f.n = fc.p
            tables_of(&f.vt, &f.lay, f.r)  # (a field of another kind: unused)

    def __dealloc__(self):
        PyMem_Free(self.specs)

    def encode(self, values):
        """The key of *values*; the reference code writes what this does not take."""
        cdef Py_ssize_t n = self.n, i, start
        cdef unsigned char small[SMALL]
        cdef unsigned char *ts = small
        cdef bint later = False, t
        cdef int term
        cdef const Spec *f
        cdef Buf buf
        cdef tuple row = values_of(values)
        if row is None:
            HANDOVERS[PACKAGE] += 1
            return self.careful_encode(values)
        if len(row) != n:
            HANDOVERS[PACKAGE] += 1
            return self.careful_encode(values)
        if n > SMALL:
            ts = <unsigned char *> PyMem_Malloc(n)
            if ts == NULL:
                raise MemoryError()
        buf_init(&buf)
        try:
            # terminations, back to front (spec §11.3)
            for i in range(n - 1, -1, -1):
                f = &self.specs[i]
                term = T_SHOULD_NOT if f.should_not else T_MUST if later else self.struct_term
                t = term == T_MUST or (term == T_AUTO and f.desc)
                ts[i] = t
                if not ((row[i] is None and not t) or (f.kind == K_FIXED_BYTES and f.n == 0)):
                    later = True
            for i in range(n):
                f = &self.specs[i]
                start = buf.n
                if not put_field(&buf, f, row[i], ts[i]):
                    break
                if f.desc and buf.n > start:
                    buf_invert(&buf, start)
                    if f.kind == K_VARINT and f.r:  # reserved bits are never inverted
                        buf.p[start] = (buf.p[start] & (0xFF >> f.r)) | (f.v << (8 - f.r))
            else:
                return buf_bytes(&buf)
        finally:
            buf_free(&buf)
            if ts != small:
                PyMem_Free(ts)
        HANDOVERS[PACKAGE] += 1
        return self.careful_encode(values)

    def decode(self, key):
        """The values of *key*; the reference code reads what this does not take."""
        cdef Py_ssize_t n, pos = 0, i
        cdef const unsigned char *k
        if not PyBytes_CheckExact(key):
            HANDOVERS[PACKAGE] += 1
            return self.careful_decode(key)
        k = <const unsigned char *> PyBytes_AS_STRING(key)
        n = PyBytes_GET_SIZE(key)
        out = PyTuple_New(self.n)
        for i in range(self.n):
            value = read_field(&self.specs[i], k, n, &pos)
            if value is _HANDOVER:
                break
            Py_INCREF(value)
            PyTuple_SET_ITEM(out, i, value)
        else:
            if pos == n:
                return out
        HANDOVERS[PACKAGE] += 1
        return self.careful_decode(key)


class CompiledOrderly(BoundOrderly):
    """A bound ``orderly`` schema whose ``encode`` and ``decode`` run compiled."""

    __slots__ = ("plan",)

    def __init__(self, codec, schema, plans):
        BoundOrderly.__init__(self, codec, schema, plans)
        self.plan = Plan(self)
        self.encode = self.plan.encode
        self.decode = self.plan.decode
