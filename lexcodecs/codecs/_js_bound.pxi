# The compiled binding the JavaScript formats share (ordered-binary, bytewise, charwise;
# ``_js.py``'s JsBound is its Python side), written once: each of those ``_compiled.pyx``
# includes this file after its own
#
#   cdef object encode_key(tuple items, bint array)      the key of checked values, or HAND
#   cdef object bound_decode(_Plan plan, object key)     the field values of a key, or HAND
#                                                        (defined after the include)
#   _ReferenceBound, PACKAGE, HAND, HANDOVERS and the PyTypeObject externs it reads
#
# Theory of operation (the protocol of ``lexcodecs/_engine.pxd``): a bound schema's plan is
# its fields' type codes and the ``array`` flag; ``encode`` writes values whose exact types
# are their fields' (None in every field; a ``bool`` is not an ``int``), ``decode`` is the
# format's own; anything either does not take goes to the reference bound class (which words
# every refusal), counting the hand-over.

# field types (FIELD_CODES): a schema's field types are the codec's own, a subset of these
cdef enum:
    F_STRING = 0
    F_BYTES = 1
    F_BOOL = 2
    F_FLOAT64 = 3
    F_INT = 4

cdef dict FIELD_CODES = {"string": F_STRING, "bytes": F_BYTES, "bool": F_BOOL,
                         "float64": F_FLOAT64, "int": F_INT}


cdef class _Plan:
    """A bound schema's plan in C: the field types (``FIELD_CODES``) and the array flag."""

    cdef int *ftypes
    cdef Py_ssize_t count
    cdef bint array

    def __cinit__(self, field_types, bint array):
        cdef Py_ssize_t i
        self.count = len(field_types)
        self.ftypes = <int *> PyMem_Malloc(max(self.count, 1) * sizeof(int))
        if self.ftypes == NULL:
            raise MemoryError()
        for i in range(self.count):
            self.ftypes[i] = FIELD_CODES[field_types[i]]
        self.array = array

    def __dealloc__(self):
        PyMem_Free(self.ftypes)


cdef inline bint field_takes(int ftype, object v) noexcept:
    """*v* is None or of the field's exact Python type (memoryview: handed over)."""
    cdef PyTypeObject *t = Py_TYPE(v)
    if v is None:
        return True
    if ftype == F_STRING:
        return t == &PyUnicode_Type
    if ftype == F_BYTES:
        return t == &PyBytes_Type or t == &PyByteArray_Type
    if ftype == F_BOOL:
        return t == &PyBool_Type
    if ftype == F_FLOAT64:
        return t == &PyFloat_Type
    return t == &PyLong_Type


cdef object bound_encode(_Plan plan, object values):
    """The key of *values* when each is its field's exact type, else HAND."""
    cdef tuple items = values_of(values)
    cdef Py_ssize_t i
    if items is None or PyTuple_GET_SIZE(items) != plan.count:
        return HAND
    for i in range(plan.count):
        if not field_takes(plan.ftypes[i], <object> PyTuple_GET_ITEM(items, i)):
            return HAND
    return encode_key(items, plan.array)


class CompiledBound(_ReferenceBound):
    """The reference bound class (the codec's ``BOUND``) with ``encode`` and ``decode`` run
    here first; anything they do not take goes to the reference methods."""

    __slots__ = ("_plan",)

    def __init__(self, codec, schema, plans):
        _ReferenceBound.__init__(self, codec, schema, plans)
        self._plan = _Plan(self._types, self._array)

    def encode(self, values):
        cdef object key = bound_encode(<_Plan> self._plan, values)
        if key is not HAND:
            return key
        HANDOVERS[PACKAGE] += 1
        return _ReferenceBound.encode(self, values)

    def decode(self, key):
        cdef object values = bound_decode(<_Plan> self._plan, key)
        if values is not HAND:
            return values
        HANDOVERS[PACKAGE] += 1
        return _ReferenceBound.decode(self, key)
