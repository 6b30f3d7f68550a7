# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled ``ordered-binary`` codec: the reference encoder and decoder, in Cython.

Theory of operation: the format is the one of ``format.py`` (its constants are read from
there when this module loads); this module writes and reads it for the exact Python types
the reference code dispatches on, and hands anything else to the reference code for the
*whole* key (the protocol of ``lexcodecs/_engine.pxd``):

* writers (``put_*``) return 1 (written) or 0 (hand over, no exception); readers return the
  value, or :data:`HAND` to hand over. Compiled code never words an error: every refusal
  (the 8 KiB buffer, a BigInt beyond a double, a truncated or malformed key) is a hand-over,
  and the reference code raises it;
* values are read only after their exact type is checked (``bool`` before ``int``);
* what this module does not take as its own, by design: a ``str`` holding a surrogate code
  point, ``memoryview`` values, subclasses, ints of magnitude 2**64 or more (below -2**63
  for negative ones; likewise a decoded BigInt beyond those), a negative BigInt on the one
  step where lmdb-js does not carry between its 32-bit halves, keys of other types than
  ``bytes``, arrays nested deeper than ``reference_encode.MAX_DEPTH``;
* every hand-over is counted (``lexcodecs._impl.HANDOVERS``), so a test can assert that valid
  values of every supported type never take it.

The writers are in ``_write.pxi`` and the readers in ``_read.pxi``, included below (one
module, three files). The entry points: :func:`encode` and :func:`decode` (a codec
instance's schemaless API, called by ``codec.py`` with the reference function to hand over
to) and :class:`BoundOrderedBinary` (a bound schema: the reference class, its ``encode``
and ``decode`` run here first).
"""

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_GET_SIZE
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_FromDouble
from cpython.long cimport PyLong_FromLongLong, PyLong_FromUnsignedLongLong
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.object cimport Py_TYPE, PyTypeObject
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from libc.math cimport isfinite, floor
from libc.string cimport memcmp

from lexcodecs._engine cimport (
    Buf, bits_double, buf_bytes, buf_free, buf_grow, buf_init, buf_put, buf_put_n, buf_room,
    double_bits, utf8_of, values_of,
)
from lexcodecs._raw cimport SLACK

# the numbers' bytes, over raw buffers: shared with the columnar kernel
include "_layout.pxi"

from lexcodecs._impl import HANDOVERS
from lexcodecs.codecs.ordered_binary import format as _format
from lexcodecs.codecs.ordered_binary import reference_encode as _ref_encode
from lexcodecs.codecs.ordered_binary.codec import BoundOrderedBinary as _ReferenceBound
from lexcodecs.codecs.ordered_binary.format import JsSymbol
from lexcodecs.errors import DecodeError

cdef extern from "Python.h":
    PyTypeObject PyUnicode_Type
    PyTypeObject PyLong_Type
    PyTypeObject PyBytes_Type
    PyTypeObject PyByteArray_Type
    PyTypeObject PyFloat_Type
    PyTypeObject PyBool_Type
    PyTypeObject PyTuple_Type
    PyTypeObject PyList_Type
    Py_ssize_t PyUnicode_GET_LENGTH(object s)
    int PyUnicode_KIND(object s)
    void *PyUnicode_DATA(object s)
    unsigned int PyUnicode_READ(int kind, void *data, Py_ssize_t i)
    int PyUnicode_IS_ASCII(object s)
    object PyUnicode_FromKindAndData(int kind, const void *buf, Py_ssize_t size)
    long long PyLong_AsLongLongAndOverflow(object v, int *overflow) except? -1
    unsigned long long PyLong_AsUnsignedLongLong(object v) except? -1
    int PyUnicode_1BYTE_KIND
    int PyUnicode_4BYTE_KIND

# -- the format's constants: format.py's, through the _format.pxd the build writes from it
# (lexcodecs/_pxdgen.py), under this module's names for them ----------------------------------

from lexcodecs.codecs.ordered_binary._format cimport (
    BIGINT_SHIFT, BOOL_WRITE, BUFFER_SIZE as BUFSZ, ESCAPE as C_ESCAPE, FALSE as C_FALSE,
    FIRST_PLAIN_UNIT as FIRST_PLAIN, LONG_STRING_UNITS as LONG_UNITS, NEGATIVE_MASK as NEG_MASK,
    NULL_ as C_NULL, NUMBER_WRITE, OWN_BUFFER_SIZE, RAW_TOTAL_LIMIT, SEPARATOR as C_SEP,
    STRING_MARGIN, STRING_PREFIX as C_PREFIX, SYMBOL as C_SYMBOL, TRUE as C_TRUE,
)

cdef str PACKAGE = "ordered_binary"
cdef object HAND = object()
#: a raw value (the rest of the key from its first byte), built when the key is read whole
cdef object RAW = object()
cdef object ZERO = 0
cdef type SYMBOL_TYPE = JsSymbol

cdef int MAX_DEPTH = _ref_encode.MAX_DEPTH
cdef unsigned long long CANON_NAN = _ref_encode.CANONICAL_NAN

#: bare non-negative numbers: NUMBER_LENGTHS as C arrays
cdef int N_LENGTHS = len(_format.NUMBER_LENGTHS)
cdef unsigned long long LEN_LOW[8]
cdef unsigned long long LEN_HIGH[8]
cdef int LEN_BYTES[8]
for _i, (_lo, _hi, _n) in enumerate(_format.NUMBER_LENGTHS):
    LEN_LOW[_i] = _lo
    LEN_HIGH[_i] = _hi
    LEN_BYTES[_i] = _n

#: first byte -> what readKey reads there (format.CONTROL_KINDS)
cdef enum:
    R_NULL = 1
    R_SYMBOL = 2
    R_FALSE = 3
    R_TRUE = 4
    R_RAW = 5
    R_NEGATIVE = 6
    R_NUMBER = 7
    R_STRING = 8

cdef dict _KIND_CODES = {"null": R_NULL, "symbol": R_SYMBOL, "false": R_FALSE, "true": R_TRUE,
                         "raw": R_RAW, "negative": R_NEGATIVE, "number": R_NUMBER,
                         "string": R_STRING}
cdef unsigned char KINDS[256]
for _i, _k in enumerate(_format.CONTROL_KINDS):
    KINDS[_i] = _KIND_CODES[_k]

# the schema's field types (F_*, FIELD_CODES), the plan, the encode of checked values and
# CompiledBound: the JS formats' (``_js.py``)
include "../_js_bound.pxi"

#: schema field types (format.FIELD_STARTS): which first bytes start a value of each
cdef unsigned char STARTS[5][256]
for _name, _code in FIELD_CODES.items():
    for _i in range(256):
        STARTS[_code][_i] = _i in _format.FIELD_STARTS[_name]


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


def decode(key, ref_decode):
    """The values of *key* as lmdb-js reads them; *ref_decode* for the rest."""
    cdef object values
    if Py_TYPE(key) == &PyBytes_Type:
        values = decode_key(<bytes> key)
        if values is not HAND:
            return values
    HANDOVERS[PACKAGE] += 1
    try:
        return ref_decode(key)
    except DecodeError as exc:
        raise exc.add_context(codec=_format.NAME) from None


cdef object bound_decode(_Plan plan, object key):
    cdef object values, again
    if Py_TYPE(key) != &PyBytes_Type:
        return HAND
    values = decode_fields(<bytes> key, plan.ftypes, plan.count, not plan.array)
    if values is HAND:
        return HAND
    again = encode_key(<tuple> values, plan.array)
    if again is HAND or PyBytes_GET_SIZE(again) != PyBytes_GET_SIZE(key) or \
            memcmp(PyBytes_AS_STRING(again), PyBytes_AS_STRING(key),
                   PyBytes_GET_SIZE(key)) != 0:
        return HAND
    return values
