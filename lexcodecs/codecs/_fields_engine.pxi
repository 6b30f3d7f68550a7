# The compiled engine of a bound schema whose key is its fields back to back, each read by
# its own reader (orderedcode, storekey: ``_fields.py``'s FieldsBound is their Python side),
# written once: each of those ``_compiled.pyx`` includes this file after its own
#
#   ctypedef struct FieldSpec        what a field's writer and reader read
#   cdef int load_spec(FieldSpec*, object code) except -1      a field's code -> its spec
#   cdef int write_value(Buf*, const FieldSpec*, object) except -1    1, or 0 to hand over
#   cdef object read_field(const FieldSpec*, const unsigned char*, Py_ssize_t,
#                          Py_ssize_t* at)                     a value, or HANDOVER
#   PACKAGE, HANDOVER, HANDOVERS
#
# Theory of operation (the protocol of ``lexcodecs/_engine.pxd``): each operation takes the
# exact types it knows (a tuple or list of the right length, a bytes key) and hands anything
# else, or anything a writer or reader does not take, to the bound schema's ``careful_*``
# method (the reference code, which words every refusal), counting the hand-over.


cdef class Engine:
    """The operations of a bound schema (see ``codec.py``), for its fields' codes."""

    cdef FieldSpec *fields
    cdef Py_ssize_t count
    cdef object careful_encode, careful_decode, careful_parse, careful_encode_prefix

    def __cinit__(self, codes, careful_encode, careful_decode, careful_parse,
                  careful_encode_prefix):
        cdef Py_ssize_t i
        codes = tuple(codes)
        self.count = len(codes)
        self.fields = <FieldSpec *> PyMem_Malloc(max(self.count, 1) * sizeof(FieldSpec))
        if self.fields == NULL:
            raise MemoryError()
        for i in range(self.count):
            load_spec(&self.fields[i], codes[i])
        self.careful_encode = careful_encode
        self.careful_decode = careful_decode
        self.careful_parse = careful_parse
        self.careful_encode_prefix = careful_encode_prefix

    def __dealloc__(self):
        PyMem_Free(self.fields)

    cdef object _encode(self, object values, Py_ssize_t stop):
        """Fields 0..stop-1 of a tuple or list; None to hand over."""
        cdef PyObject **items = PySequence_Fast_ITEMS(values)
        cdef Py_ssize_t i
        cdef Buf b
        buf_init(&b)
        try:
            for i in range(stop):
                if not write_value(&b, &self.fields[i], <object> items[i]):
                    return None
            return buf_bytes(&b)
        finally:
            buf_free(&b)

    def encode(self, values):
        cdef object key
        if (PyTuple_CheckExact(values) or PyList_CheckExact(values)) and \
                len(values) == self.count:
            key = self._encode(values, self.count)
            if key is not None:
                return key
        HANDOVERS[PACKAGE] += 1
        return self.careful_encode(values)

    def encode_prefix(self, values):
        cdef object key
        if (PyTuple_CheckExact(values) or PyList_CheckExact(values)) and \
                len(values) <= self.count:
            key = self._encode(values, len(values))
            if key is not None:
                return key
        HANDOVERS[PACKAGE] += 1
        return self.careful_encode_prefix(values)

    cdef object _decode(self, bytes key, Py_ssize_t *at):
        """The values of every field from the start of *key*, ``at[0]`` the offset after
        the last; None to hand over."""
        cdef const unsigned char *p = <const unsigned char *> PyBytes_AS_STRING(key)
        cdef Py_ssize_t n = PyBytes_GET_SIZE(key), i
        cdef object out = PyTuple_New(self.count), value
        at[0] = 0
        for i in range(self.count):
            value = read_field(&self.fields[i], p, n, at)
            if value is HANDOVER:
                return None
            Py_INCREF(value)
            PyTuple_SET_ITEM(out, i, value)
        return out

    def decode(self, key):
        cdef object out
        cdef Py_ssize_t end = 0
        if PyBytes_CheckExact(key):
            out = self._decode(key, &end)
            if out is not None and end == PyBytes_GET_SIZE(key):
                return out
        HANDOVERS[PACKAGE] += 1
        return self.careful_decode(key)

    def parse(self, key):
        cdef object out
        cdef Py_ssize_t end = 0
        if PyBytes_CheckExact(key):
            out = self._decode(key, &end)
            if out is not None:
                return out, key[end:]
        HANDOVERS[PACKAGE] += 1
        return self.careful_parse(key)


def bound_engine(bound):
    """The engine of *bound* (a FieldsBound with ``codes``), its operations installed on
    it (``encode``, ``decode``, ``parse``, ``encode_prefix``)."""
    engine = Engine(bound.codes, bound.careful_encode, bound.careful_decode,
                    bound.careful_parse, bound.careful_encode_prefix)
    bound.encode = engine.encode
    bound.decode = engine.decode
    bound.parse = engine.parse
    bound.encode_prefix = engine.encode_prefix
    return engine
