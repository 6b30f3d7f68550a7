# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled ``charwise`` codec: the reference encoder and strict decoder, in Cython.

Theory of operation: the format is the one of ``format.py`` (its constants come from the
``_format.pxd`` the build writes from it); this module writes and reads it for the exact
Python types the reference code dispatches on, and hands anything else to the reference code
for the *whole* key (the protocol of ``lexcodecs/_engine.pxd``):

* writers (``put_*``) return 1 (written) or 0 (hand over, no exception); readers return the
  value, or :data:`HAND` to hand over. Compiled code never words an error: every refusal
  (an int beyond 2**53, arrays too deep, a malformed key) is a hand-over, and the reference
  code raises it;
* values are read only after their exact type is checked (``bool`` before ``int``);
* what this module does not take as its own, by design: a ``str`` holding a surrogate code
  point, subclasses, ints beyond 2**53, keys of other types than ``bytes``;
* a decoded key is written again here and compared with the key: anything that does not
  come back exactly is the reference's to read or refuse;
* every hand-over is counted (``lexcodecs._impl.HANDOVERS``).

Numbers take the shortest round-trip digits from Ryu (``lexcodecs/_shortest.pxi``, repr's
digits). The bytes of a number and a string are ``_layout.pxi``'s, which the columnar kernel
includes too; the writers are in ``_write.pxi`` and the reader in ``_read.pxi``.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_FromDouble
from cpython.list cimport PyList_AsTuple
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.object cimport Py_TYPE, PyTypeObject, PyObject
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from libc.math cimport isinf, isnan, NAN, INFINITY
from libc.stdio cimport snprintf
from libc.string cimport memcmp, memcpy

from lexcodecs._raw cimport SLACK, __builtin_clzll

from lexcodecs._engine cimport Buf, buf_bytes, buf_free, buf_init, buf_put, buf_put_n, \
    buf_room, int64_of, utf8_of, values_of

include "../../_shortest.pxi"
_shortest_init()
# the format's bytes, written once for this module and the columnar kernel
include "_layout.pxi"

from lexcodecs._impl import HANDOVERS
from lexcodecs.codecs.charwise import format as _format
from lexcodecs.codecs.charwise.codec import BoundCharwise as _ReferenceBound
from lexcodecs.errors import DecodeError
from lexcodecs.types import UNDEFINED

cdef extern from "Python.h":
    PyTypeObject PyUnicode_Type
    PyTypeObject PyLong_Type
    PyTypeObject PyFloat_Type
    PyTypeObject PyBool_Type
    PyTypeObject PyTuple_Type
    PyTypeObject PyList_Type
    PyTypeObject PyBytes_Type
    PyTypeObject PyByteArray_Type
    object PyUnicode_DecodeUTF8(const char *s, Py_ssize_t size, const char *errors)
    double PyOS_string_to_double(const char *s, char **endptr, PyObject *overflow) except? -1.0

from lexcodecs.codecs.charwise._format cimport (
    ARRAY as C_ARRAY, ESCAPE as C_ESCAPE, ESCAPE_ESCAPE as C_ESCAPE_ESCAPE,
    ESCAPE_SEPARATOR as C_ESCAPE_SEPARATOR, ESCAPE_TERMINATOR as C_ESCAPE_TERMINATOR,
    EXPONENT as C_EXPONENT, EXPONENT_BIAS as C_BIAS, FALSE as C_FALSE, MANTISSA as C_MANTISSA,
    MAX_DEPTH, NEGATIVE as C_NEGATIVE, NUL as C_NUL, NULL_ as C_NULL,
    POSITIVE as C_POSITIVE, SEPARATOR as C_SEPARATOR, STRING as C_STRING,
    STRING_ESCAPE as C_STRING_ESCAPE, TERMINATOR as C_TERMINATOR, TRUE as C_TRUE,
    UNDEFINED as C_UNDEFINED,
)

cdef str PACKAGE = "charwise"
cdef object HAND = object()
cdef object UNDEFINED_VALUE = UNDEFINED
cdef long long INT_LIMIT = 2**53

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


cdef object decode_key(bytes key, bint array):
    cdef object value = decode_text(key), again
    if value is HAND:
        return HAND
    if array and type(value) is not tuple:
        return HAND
    again = encode_key((value,), False)
    if again is HAND or again != key:
        return HAND
    return value if array else (value,)


def decode(key, bint array, ref_decode):
    """The values of *key*, read strictly; *ref_decode* for the rest."""
    cdef object values
    if Py_TYPE(key) == &PyBytes_Type:
        values = decode_key(<bytes> key, array)
        if values is not HAND:
            return values
    HANDOVERS[PACKAGE] += 1
    try:
        return ref_decode(key, array)
    except DecodeError as exc:
        raise exc.add_context(codec=_format.NAME) from None


# -- a bound schema -------------------------------------------------------------------------

# the plan, the encode of checked values and CompiledBound: the JS formats' (``_js.py``)
include "../_js_bound.pxi"


cdef object bound_decode(_Plan plan, object key):
    """The values of *key* typed by their fields (an int field's number as an int), or
    HAND."""
    cdef object value, v
    cdef tuple values
    cdef list out = []
    cdef Py_ssize_t i
    cdef int ftype
    cdef double x
    if Py_TYPE(key) != &PyBytes_Type:
        return HAND
    value = decode_key(<bytes> key, plan.array)
    if value is HAND:
        return HAND
    values = <tuple> value
    if PyTuple_GET_SIZE(values) != plan.count:
        return HAND
    for i in range(plan.count):
        v = <object> PyTuple_GET_ITEM(values, i)
        ftype = plan.ftypes[i]
        if v is None:
            out.append(None)
        elif ftype == F_INT:
            if Py_TYPE(v) != &PyFloat_Type:
                return HAND
            x = PyFloat_AS_DOUBLE(v)
            if isnan(x) or isinf(x) or x != <double> <long long> x or x > INT_LIMIT or \
                    x < -INT_LIMIT:
                return HAND
            out.append(<long long> x)
        elif field_takes(ftype, v):
            out.append(v)
        else:
            return HAND
    return PyList_AsTuple(out)
