"""numpy arrays over the storage of the custom element's Chrono vectors and matrices.

Each ``ComputeQ`` of the element reads the load's state vectors x, w and writes its
generalized forces Q and, through the load's Jacobians, M, K and R. Through the
bindings each of these is a copy across the Python-C++ boundary (``GetVectorData``,
``SetVect``, a new ``ChMatrixDynamicd`` assigned to the Jacobians), about as costly as
the element's compiled work on a small load. Chrono keeps them in Eigen's dense
storage: a ``ChVectorDynamic`` (and a ``ChState``, which derives from it) starts with
its data pointer and row count, a ``ChMatrixDynamic`` (row-major) with its data
pointer, row and column counts. :class:`LoadViews` lays numpy arrays over that storage
once, so that the compiled call reads x, w and writes Q, M, K and R in place.

Nothing is assumed blindly: a view is made only when the header's sizes are the ones
the bindings report and a value written through the view reads back through the
bindings (and back the other way); otherwise there is no view and the element copies
as before. Before each use, :meth:`LoadViews.valid` checks that the data pointers of
the storage Chrono owns are still the ones the views were laid on (Chrono would move
the storage only by resizing it, which it does for a load's Jacobians only when it
creates them).
"""

import ctypes

import numpy as np


def _address(proxy):
    """The C++ address of a SWIG proxy, or None."""
    try:
        return int(proxy.this)
    except (AttributeError, TypeError, ValueError):
        return None


def _words(address, n):
    return np.ctypeslib.as_array((ctypes.c_int64 * n).from_address(address))


def _doubles(address, n):
    return np.ctypeslib.as_array((ctypes.c_double * n).from_address(address))


def vector_view(vec, n):
    """(header, view (n,)) over a ``ChVectorDynamic``/``ChState`` proxy of n entries,
    or None when its storage is not the one expected (see the module docstring)."""
    address = _address(vec)
    if address is None or n < 1 or vec.Size() != n:
        return None
    head = _words(address, 2)
    if int(head[1]) != n or int(head[0]) == 0:
        return None
    view = _doubles(int(head[0]), n)
    if not _round_trip(view, n - 1, lambda: vec.GetItem(n - 1),
                       lambda v: vec.SetItem(n - 1, v)):
        return None
    return head, view


def matrix_view(mat, rows, cols):
    """(header, view (rows, cols)) over a row-major ``ChMatrixDynamic`` proxy, or None
    (as :func:`vector_view`)."""
    address = _address(mat)
    if address is None or rows < 1 or cols < 1:
        return None
    if mat.GetRows() != rows or mat.GetColumns() != cols:
        return None
    head = _words(address, 3)
    if int(head[1]) != rows or int(head[2]) != cols or int(head[0]) == 0:
        return None
    view = _doubles(int(head[0]), rows * cols).reshape(rows, cols)
    if not _round_trip(view.reshape(-1), rows * cols - 1,
                       lambda: mat.GetItem(rows - 1, cols - 1),
                       lambda v: mat.SetItem(rows - 1, cols - 1, v)):
        return None
    return head, view


def _round_trip(flat, k, get, set_):
    """Whether entry k of ``flat`` is the entry the bindings read and write."""
    old = float(flat[k])
    try:
        flat[k] = 1.25
        seen = get()
        set_(-3.5)
        back = float(flat[k])
    finally:
        flat[k] = old
    return seen == 1.25 and back == -3.5


class LoadViews:
    """Views over one load's state vectors (``x``, ``w``), its generalized forces
    (``Q``) and its Jacobians' matrices (``M``, ``K``, ``R``); see the module docstring.
    Build with :meth:`make`."""

    def __init__(self, state_x, state_w, parts):
        self.state_x, self.state_w = state_x, state_w
        heads, (self.x, self.w, self.Q, self.M, self.K, self.R) = parts
        # the data pointers of the storage Chrono owns (Q and the Jacobians' matrices;
        # x and w belong to the load's Python object), read as one word each
        self._heads = [ctypes.c_int64.from_address(h.ctypes.data) for h in heads[2:]]
        self._pointers = [int(h[0]) for h in heads[2:]]

    @classmethod
    def make(cls, load, jacobians, nx, nw):
        """The views of ``load`` (a ``ChLoadCustomMultiple`` director with its own state
        vectors ``state_x``, ``state_w``, filled by each Update) and its ``jacobians``
        (``ChLoadJacobians``), or None when any of them cannot be viewed."""
        try:
            made = [vector_view(load.state_x, nx), vector_view(load.state_w, nw),
                    vector_view(load.load_Q, nw)]
            made += [matrix_view(m, nw, nw) for m in (jacobians.M, jacobians.K, jacobians.R)]
        except (AttributeError, TypeError, ValueError, OverflowError):
            return None
        if any(m is None for m in made):
            return None
        heads = [m[0] for m in made]
        return cls(load.state_x, load.state_w, (heads, [m[1] for m in made]))

    def valid(self):
        """Whether every storage is still where the views were laid."""
        for head, ptr in zip(self._heads, self._pointers):
            if head.value != ptr:
                return False
        return True


__all__ = ["LoadViews", "matrix_view", "vector_view"]
