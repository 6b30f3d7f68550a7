# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled ``bytewise`` codec: the reference encoder and decoder, in Cython.

Theory of operation: the format is the one of ``format.py`` (its integer constants come
through the ``_format.pxd`` the build writes from it); this module writes and reads it for
the exact Python types the reference code dispatches on, and hands anything else to the
reference code for the *whole* key (the protocol of ``lexcodecs/_engine.pxd``):

* writers (``put_*``) return 1 (written) or 0 (hand over, no exception); the reader returns
  the value, or :data:`HAND`. Compiled code never words an error: every refusal (NaN, an int
  no double equals, a naive or sub-millisecond datetime, a malformed key) is a hand-over,
  and the reference code raises it;
* values are read only after their exact type is checked (``bool`` before ``int``);
* what this module does not take as its own, by design: a ``str`` holding a surrogate code
  point, ``memoryview`` values, subclasses, ints beyond 2**53 in magnitude, datetimes whose
  tzinfo is not ``datetime.UTC``, arrays nested deeper than ``format.MAX_DEPTH``, keys of
  other types than ``bytes``;
* every hand-over is counted (``lexcodecs._impl.HANDOVERS``), so a test can assert that valid
  values of every supported type never take it.

The writers are in ``_write.pxi`` and the reader in ``_read.pxi``, included below (one module,
three files), over the byte layout of ``_layout.pxi``.
"""

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_GET_SIZE
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_FromDouble
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.object cimport Py_TYPE, PyTypeObject
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.math cimport floor, isfinite, isinf
from libc.string cimport memchr

from lexcodecs._engine cimport (
    Buf, bits_double, buf_bytes, buf_free, buf_init, buf_put, buf_put_n, buf_room, utf8_of,
    values_of,
)
from lexcodecs._raw cimport SLACK

include "_layout.pxi"

import datetime as _dt
import math as _math

from lexcodecs._impl import HANDOVERS
from lexcodecs.codecs.bytewise import format as _format
from lexcodecs.codecs.bytewise import reference_decode as _ref_decode
from lexcodecs.codecs.bytewise.codec import BoundBytewise as _ReferenceBound
from lexcodecs.errors import DecodeError
from lexcodecs.types import UNDEFINED

cdef extern from "Python.h":
    PyTypeObject PyUnicode_Type
    PyTypeObject PyLong_Type
    PyTypeObject PyBytes_Type
    PyTypeObject PyByteArray_Type
    PyTypeObject PyFloat_Type
    PyTypeObject PyBool_Type
    PyTypeObject PyTuple_Type
    PyTypeObject PyList_Type
    long long PyLong_AsLongLongAndOverflow(object v, int *overflow) except? -1

# -- the format's constants: format.py's, through the _format.pxd the build writes from it
# (lexcodecs/_pxdgen.py), under this module's names for them ----------------------------------

from lexcodecs.codecs.bytewise._format cimport (
    ARRAY as C_ARRAY, BODY_SIZE as BODY, BUFFER as C_BUFFER, DATE_NEG as C_DATE_NEG,
    DATE_POS as C_DATE_POS, END as C_END, ESCAPE_HIGH as C_ESCAPE_HIGH,
    ESCAPE_LOW as C_ESCAPE_LOW, FALSE as C_FALSE, MAX_DEPTH, MAX_EXACT_INT as EXACT,
    NEG_INF as C_NEG_INF, NULL_ as C_NULL, NUMBER_NEG as C_NUMBER_NEG,
    NUMBER_POS as C_NUMBER_POS, POS_INF as C_POS_INF, STRING as C_STRING, TRUE as C_TRUE,
    UNDEFINED as C_UNDEFINED,
)

cdef str PACKAGE = "bytewise"
cdef object HAND = object()
cdef object UNDEFINED_VALUE = UNDEFINED
cdef object NEG_INF_VALUE = -_math.inf
cdef object POS_INF_VALUE = _math.inf
cdef type DATETIME = _dt.datetime
cdef object UTC_TZ = _dt.UTC
cdef object EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
cdef object MS = _dt.timedelta(milliseconds=1)
cdef object timedelta = _dt.timedelta
cdef double MIN_MS = _ref_decode._MIN_MS
cdef double MAX_MS = _ref_decode._MAX_MS


include "_write.pxi"
include "_read.pxi"

# -- entry points ---------------------------------------------------------------------------


def encode(values, bint array, ref_encode):
    """The key of *values* (a codec's schemaless ``encode``); *ref_encode* for the rest."""
    cdef tuple items = values_of(values)
    cdef object key
    if items is not None:
        key = encode_key(items, array)
        if key is not HAND:
            return key
    HANDOVERS[PACKAGE] += 1
    return ref_encode(values, array)


def decode(key, bint array, ref_decode):
    """The key's value as a 1-tuple (*array*: the array's elements); *ref_decode* for the
    rest."""
    cdef object value
    if Py_TYPE(key) == &PyBytes_Type:
        value = decode_key(<bytes> key)
        if value is not HAND:
            if not array:
                return (value,)
            if Py_TYPE(value) == &PyTuple_Type and (<const unsigned char *>
                                                    PyBytes_AS_STRING(key))[0] == C_ARRAY:
                return value
    HANDOVERS[PACKAGE] += 1
    try:
        return ref_decode(key)
    except DecodeError as exc:
        raise exc.add_context(codec=_format.NAME) from None

# -- a bound schema -------------------------------------------------------------------------

# the plan, the encode of checked values and CompiledBound: the JS formats' (``_js.py``)
include "../_js_bound.pxi"


cdef object field_of(int ftype, object v):
    """A decoded value as the field holds it (an int field's number as an int), or HAND."""
    cdef PyTypeObject *t = Py_TYPE(v)
    cdef double d
    if v is None:
        return None
    if ftype == F_INT:
        if t != &PyFloat_Type:
            return HAND
        d = PyFloat_AS_DOUBLE(v)
        if not isfinite(d) or floor(d) != d:
            return HAND
        return int(v)
    if field_takes(ftype, v) and t != &PyByteArray_Type:
        return v
    return HAND


cdef object bound_decode(_Plan plan, object key):
    """The values of *key* typed by their fields (the bare value of one field without
    ``array``, else the array's elements), or HAND."""
    cdef Py_ssize_t i
    cdef object value, typed
    cdef list out = []
    if Py_TYPE(key) != &PyBytes_Type:
        return HAND
    value = decode_key(<bytes> key)
    if value is HAND:
        return HAND
    if not plan.array:
        value = (value,)
    if Py_TYPE(value) != &PyTuple_Type or PyTuple_GET_SIZE(value) != plan.count:
        return HAND
    for i in range(plan.count):
        typed = field_of(plan.ftypes[i], <object> PyTuple_GET_ITEM(value, i))
        if typed is HAND:
            return HAND
        out.append(typed)
    return tuple(out)
