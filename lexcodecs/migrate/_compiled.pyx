# cython: language_level=3
"""The compiled twin of :mod:`lexcodecs.migrate.kernel`: the same callable and comparison,
deciding the usual key in C.

Theory of operation: :class:`NewKey` calls the codecs' own (compiled) ``decode``/``encode``
and, while it checks, compares the decoded tuples in C, value by value, when every value is
of one of the exact plain types (``str``, ``bytes``, ``int``, ``None``, or a ``float`` that is
neither zero nor NaN, where ``==`` is the model's equality). It updates the order watch in C
while the new keys rise, and hands a key that does not rise to the watch's own ``see`` (which
counts the departure). :func:`same_values` compares two lists of decoded tuples the same way;
:func:`plain_rising` checks that a list of decoded tuples holds plain values and rises.
Anything else -- a key that is not ``bytes``, a refusal, a value the check cannot judge in C
-- goes to the reference rules in ``kernel.py`` (``_new_key``) for that key, which decide it
and shape every error. So both implementations give the same keys, decisions and errors; C
only takes the easy answers.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_CheckExact, PyBytes_GET_SIZE
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_CheckExact
from cpython.list cimport PyList_CheckExact, PyList_GET_ITEM, PyList_GET_SIZE
from cpython.long cimport PyLong_CheckExact
from cpython.object cimport Py_EQ, Py_LE, PyObject_RichCompareBool
from cpython.tuple cimport PyTuple_CheckExact, PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.unicode cimport PyUnicode_CheckExact
from libc.string cimport memcmp

from ..errors import LexCodecError
from .kernel import _new_key

cdef inline bint _plain(object v) except -1:
    """An exact str, bytes, int or None: ``==`` and ``<`` are the natural order's."""
    return (PyUnicode_CheckExact(v) or PyBytes_CheckExact(v) or PyLong_CheckExact(v)
            or v is None)


cdef inline bint _same(object a, object b) except -1:
    """Whether tuples *a* and *b* hold the same values, decided in C (False: not decided)."""
    cdef Py_ssize_t i, n
    cdef object x, y
    cdef double d
    if not (PyTuple_CheckExact(a) and PyTuple_CheckExact(b)):
        return False
    n = PyTuple_GET_SIZE(a)
    if PyTuple_GET_SIZE(b) != n:
        return False
    for i in range(n):
        x = <object> PyTuple_GET_ITEM(a, i)
        y = <object> PyTuple_GET_ITEM(b, i)
        if type(x) is not type(y):
            return False
        if PyFloat_CheckExact(x):
            d = PyFloat_AS_DOUBLE(x)
            if d == 0.0 or d != d or d != PyFloat_AS_DOUBLE(y):
                return False
        elif _plain(x):
            if not PyObject_RichCompareBool(x, y, Py_EQ):
                return False
        else:
            return False
    return True


cdef inline bint _rises(object key, object last) except -1:
    """``last < key`` for two exact bytes."""
    cdef Py_ssize_t n = PyBytes_GET_SIZE(key), m = PyBytes_GET_SIZE(last)
    cdef int c = memcmp(PyBytes_AS_STRING(key), PyBytes_AS_STRING(last), n if n < m else m)
    return c > 0 or (c == 0 and n > m)


cdef class NewKey:
    """A source key to its new key (see :class:`lexcodecs.migrate.kernel.NewKey`)."""

    cdef readonly object t
    cdef readonly object refuse
    cdef readonly object watch
    cdef public bint check
    cdef public object error
    cdef public object last_key
    cdef object decode, encode, back

    def __init__(self, transcoder, refuse, watch=None, *, check=True):
        self.t = transcoder
        self.refuse = refuse
        self.watch = watch
        self.check = check
        self.error = None
        self.last_key = None
        self.decode = transcoder._source.decode
        self.encode = transcoder._target.encode
        self.back = transcoder._target.decode

    def __call__(self, key):
        cdef object new
        try:
            new = self._fast(key)
            if new is None:
                new = _new_key(self, key)
        except BaseException as exc:  # kept to raise as itself (see kernel.py)
            if self.error is None:
                self.error = exc
            raise
        self.last_key = key
        return new

    cdef object _fast(self, object key):
        """The new key when C can decide it, else None (the reference rules decide)."""
        cdef object values, new, last
        if not PyBytes_CheckExact(key):
            return None
        try:
            values = self.decode(key)
            new = self.encode(values)
            if not PyBytes_CheckExact(new):
                return None
            if self.check and not _same(values, self.back(new)):
                return None
        except LexCodecError:
            return None  # the reference rules say why, naming the key
        if self.watch is not None:
            last = self.watch.last
            if last is not None and not (PyBytes_CheckExact(last) and _rises(new, last)):
                self.watch.see(new, values)  # the old order differs here: the watch counts it
            else:
                self.watch.last = new
                self.watch.last_values = values
        return new


def same_values(a, b):
    """Whether the lists of tuples *a* and *b* hold the same values, decided in C (see
    ``kernel._same_values``; False: not decided here)."""
    cdef Py_ssize_t i, n
    if not (PyList_CheckExact(a) and PyList_CheckExact(b)):
        return False
    n = PyList_GET_SIZE(a)
    if PyList_GET_SIZE(b) != n:
        return False
    for i in range(n):
        if not _same(<object> PyList_GET_ITEM(a, i), <object> PyList_GET_ITEM(b, i)):
            return False
    return True


def plain_rising(batch):
    """Whether every value in the tuples of the list *batch* is an exact str, bytes, int or
    None and each tuple is ``<=`` the next (see ``kernel._plain_rising``; False: not decided
    here)."""
    cdef Py_ssize_t i, j, n
    cdef object row, last = None
    if not PyList_CheckExact(batch):
        return False
    n = PyList_GET_SIZE(batch)
    for i in range(n):
        row = <object> PyList_GET_ITEM(batch, i)
        if not PyTuple_CheckExact(row):
            return False
        for j in range(PyTuple_GET_SIZE(row)):
            if not _plain(<object> PyTuple_GET_ITEM(row, j)):
                return False
        if last is not None:
            try:
                if not PyObject_RichCompareBool(last, row, Py_LE):
                    return False
            except TypeError:  # None against a value: the model decides
                return False
        last = row
    return True
