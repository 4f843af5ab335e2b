"""The compiled generalized-alpha step of a spatial tree (numba, the ``fast`` extra).

The planar engine's compiled step (:mod:`chrono_flex.planar.chain_ga`: the Newton solve
of a step, its Jacobian and LU, the step loop through output times, the step control)
asks its model for two things only: the full pass (M, r) and the force-only pass
(M a, r) of the chain kernel, r = h - Q_g [+ K_geo e] (:mod:`chrono_flex.planar.kernels`).
The spatial kernels (:func:`chrono_flex.spatial.kernels._tree_terms`,
:func:`~chrono_flex.spatial.kernels._tree_forces`) answer the same two calls for a
tree. So the step is not written again here: :func:`specialised` takes chain_ga's
compiled functions and compiles them once more with those two calls bound to the
spatial kernels (the same source, the same operations, another model), and
:class:`TreeStep` is :class:`~chrono_flex.planar.chain_ga.ChainStep` with its calls
bound the same way. The Newton matrix is factored dense (a tree's elastic coordinates
couple through M beyond a band; :func:`structure`), by :func:`_lu_factor_sparse` in place
of chain_ga's dense LU: the same factors, the updates over the nonzeros only.
"""

import hashlib
import inspect
import sys
import types

import numpy as np

from ..planar import chain_ga, chain_linalg, chain_newton
from ..planar import kernels as planar_kernels
from . import kernels as sk
from . import link_coef

try:
    import numba
    from numba.core.dispatcher import Dispatcher
except ImportError:                      # pragma: no cover - exercised without numba
    numba = Dispatcher = None


def error_groups(model):
    """The groups of positions that share one scale in the step control (as the planar
    arm's, :func:`chrono_flex.planar.chain_ga.error_groups`): each joint its own, the
    elastic coordinates of each link one group."""
    groups = np.empty(model.nq, dtype=np.int64)
    groups[np.asarray(model.joint_index, dtype=np.int64)] = np.arange(model.joint_index.size)
    g = model.joint_index.size
    for bl in model.layout.bodies:
        if bl.elastic_index.size:
            groups[bl.elastic_index] = g
            g += 1
    return groups


@planar_kernels._jit
def _no_m_in_iterations():
    """Bound in place of :func:`chrono_flex.planar.chain_newton._iterate_with_m`: the
    tree's Newton iterations take M a from the force-only pass
    (:func:`~chrono_flex.spatial.kernels._tree_forces`, without forming M), M being
    formed only where the Newton matrix is refactored, at a step's first iterate."""
    return False


@planar_kernels._jit
def _lu_factor_sparse(A, piv):
    """In-place LU with partial pivoting (Golub & Van Loan, alg. 3.4.1), the factors of
    :func:`chrono_flex.planar.chain_linalg._lu_factor` over the nonzeros; False when a
    pivot is zero or not finite.

    A tree's Newton matrix is mostly exact zeros (the arm of ``chrono-flex bench
    spatial``: 332 nonzeros of 44 x 44, 605 in its factors): a link's elastic
    coordinates couple through M in a band and to the coordinates inboard of it, and a
    motion in a plane leaves the out-of-plane block apart. The planar routine skips a
    row whose multiplier is zero but updates every column right of the pivot, and scans
    the pivot column twice (the pivot, the multipliers). Here the pivot column is
    scanned once, listing its nonzero rows, and the pivot row's nonzero columns are
    listed once per pivot; the updates run over these lists. Every pivot, multiplier
    and update of a nonzero is the planar routine's operation in the same order (an
    update a_ij - l_ik u_kj skipped here has u_kj = 0 or l_ik = 0 and leaves a finite
    a_ij as it is), so the factors of a finite matrix are the same numbers
    (tests/spatial/test_tree_ga.py)."""
    n = A.shape[0]
    rows = np.empty(n, dtype=np.int64)
    cols = np.empty(n, dtype=np.int64)
    for k in range(n):
        p = k
        big = abs(A[k, k])
        nr = 0                          # the rows below k with a nonzero in column k
        for i in range(k + 1, n):
            a = abs(A[i, k])
            if a != 0.0:
                rows[nr] = i
                nr += 1
                if a > big:
                    big, p = a, i
        piv[k] = p
        if not big > 0.0 or not np.isfinite(big):
            return False
        if p != k:                      # row p is listed: its entry is the pivot
            for j in range(n):
                A[k, j], A[p, j] = A[p, j], A[k, j]
        if nr == 0:                     # nothing below the pivot to eliminate
            continue
        nc = 0                          # the pivot row's nonzero columns right of k
        for j in range(k + 1, n):
            if A[k, j] != 0.0:
                cols[nc] = j
                nc += 1
        inv = 1.0 / A[k, k]
        for t in range(nr):
            i = rows[t]
            A[i, k] *= inv
            lik = A[i, k]
            if lik != 0.0:
                for s in range(nc):
                    j = cols[s]
                    A[i, j] -= lik * A[k, j]
    return True


def structure(model):
    """chain_ga's :class:`~chrono_flex.planar.chain_ga.Structure` for a tree: the dense
    Newton matrix (no bordered band), K and D over their rows' nonzero ranges, the
    step control's :func:`error_groups`."""
    klo, khi = planar_kernels.row_ranges(model.K, model.D)
    i0 = np.zeros(0, dtype=np.int64)
    return chain_ga.make_structure(0, i0, i0, 0, 0, np.zeros((0, 1)), np.zeros((0, 0)),
                                   np.zeros((0, 0)), np.zeros((0, 0)), klo, khi,
                                   error_groups(model))


class TreeModel:
    """What :class:`TreeStep` reads of a model: sizes, K, D, gravity, stiffening and the
    packed arrays of :func:`chrono_flex.spatial.kernels.pack`."""

    def __init__(self, model):
        self.nq, self.joint_index = model.nq, np.asarray(model.joint_index, dtype=np.int64)
        self.K, self.D = np.ascontiguousarray(model.K), np.ascontiguousarray(model.D)
        self.g_vec = np.asarray(model.g_vec, dtype=float)
        self.geometric_stiffening = bool(model.geometric_stiffening)
        self.packed = sk.packed_model(model)
        self.structure = structure(model)


def _tag():
    """A digest of the spatial kernels' source (with the per-link routine's module and
    this module, whose functions the specialised ones call: the tree's LU, the
    iterations' choice of pass): part of the specialised functions' names, so that
    numba's disk cache of them is renewed when any of these change (the cache checks
    the stamp of chain_ga's file, where their source lives)."""
    src = (inspect.getsource(sk) + inspect.getsource(link_coef)
           + inspect.getsource(sys.modules[__name__]))
    return hashlib.sha1(src.encode()).hexdigest()[:10]


class _Specialiser:
    """Functions rebuilt with some of the objects their globals name swapped (module
    docstring): every numba function reached through the globals that (at any depth)
    names a swapped object is compiled anew, the others are shared."""

    def __init__(self, swaps, tag):
        self.swaps, self.tag, self.done = dict(swaps), tag, {}

    def _resolve(self, obj):
        key = id(obj)
        if key in self.swaps:
            return self.swaps[key]
        if Dispatcher is not None and isinstance(obj, Dispatcher):
            return self.function(obj)
        return obj

    def _globals(self, fn):
        """The globals of ``fn`` with its names' objects resolved, or None when none
        changes."""
        g = fn.__globals__
        changed = {}
        for name in fn.__code__.co_names:
            if name in g:
                new = self._resolve(g[name])
                if new is not g[name]:
                    changed[name] = new
        if not changed:
            return None
        out = dict(g)
        out.update(changed)
        return out

    def python(self, fn, qualname):
        """The Python function ``fn`` rebuilt on the resolved globals (itself when none
        changes)."""
        g = self._globals(fn)
        if g is None:
            return fn
        new = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__,
                                 fn.__closure__)
        new.__qualname__ = qualname
        new.__doc__ = fn.__doc__
        return new

    def function(self, dispatcher):
        key = id(dispatcher)
        if key not in self.done:
            self.done[key] = dispatcher           # a cycle resolves to itself
            py = dispatcher.py_func
            new = self.python(py, f"tree_{self.tag}_{py.__qualname__}")
            self.done[key] = dispatcher if new is py else numba.njit(cache=True)(new)
        return self.done[key]


def _kernels_module():
    """A module with the planar kernels' names, the two chain passes bound to the tree's
    (chain_ga reaches them as attributes of its ``kernels`` module)."""
    mod = types.ModuleType(f"{__name__}.kernels")
    mod.__dict__.update({k: v for k, v in vars(planar_kernels).items()
                         if not k.startswith("__")})
    mod._chain_terms = sk._tree_terms
    mod._chain_forces = sk._tree_forces
    return mod


_STEP = None


def step_class():
    """:class:`TreeStep`, made on first use (the functions of chain_ga specialised)."""
    global _STEP
    if _STEP is None:
        swaps = {id(planar_kernels._chain_terms): sk._tree_terms,
                 id(planar_kernels._chain_forces): sk._tree_forces,
                 id(chain_ga.structure): lambda model: model.structure,
                 id(chain_linalg._lu_factor): _lu_factor_sparse,
                 id(chain_newton._iterate_with_m): _no_m_in_iterations}
        spec = _Specialiser(swaps, _tag())
        spec.swaps[id(planar_kernels)] = _kernels_module()
        methods = {}
        for name, fn in vars(chain_ga.ChainStep).items():
            if isinstance(fn, types.FunctionType):
                new = spec.python(fn, f"TreeStep.{name}")
                if new is not fn:
                    methods[name] = new
        methods["__doc__"] = TREE_STEP_DOC
        _STEP = type("TreeStep", (chain_ga.ChainStep,), methods)
    return _STEP


TREE_STEP_DOC = """:class:`chrono_flex.planar.chain_ga.ChainStep` for a spatial tree: the same
methods and compiled step, bound to the spatial kernels (:mod:`chrono_flex.spatial.tree_ga`).
``model``: a :class:`TreeModel`."""


def tree_step(model, torque=None, reads_state=False):
    """The compiled Newton solve of generalized-alpha's steps for a spatial model (a
    :class:`~chrono_flex.spatial.equations.SpatialModel`), arguments as
    :class:`~chrono_flex.planar.chain_ga.ChainStep`'s."""
    return step_class()(TreeModel(model), torque, reads_state=reads_state)


__all__ = ["TreeModel", "error_groups", "step_class", "structure", "tree_step"]
