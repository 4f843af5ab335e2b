"""One generalized-alpha step of a planar chain, compiled (numba, the ``fast`` extra).

:class:`chrono_flex.integrators.generalized_alpha.GeneralizedAlpha` solves each step by
a modified Newton iteration on the mass-matrix residual (docs/planar-link.md §4.4). In
Python every iteration costs a few dozen small-array operations around one evaluation
of the compiled chain kernel (:func:`chrono_flex.planar.kernels.chain_terms`), so the
interpreter, not the arithmetic, sets the price of a step. Here the whole Newton solve
of a step is one compiled function: predictor, residual, the Jacobian by forward
differences of the generalized forces, its LU factors, the iteration and its
convergence tests, in the same order and with the same tests as the Python iteration;
the Python side keeps only the step control and the output.

It serves the forward problem of an arm without drives, state x = [q, q_d, W_in,
W_diss], whose joint forces are a function of time alone during a step: no torque, or
a torque declared time-only (:func:`chrono_flex.inputs.is_time_only`: the input
profiles, callables wrapped by :func:`chrono_flex.inputs.time_only`). The joint forces
are then evaluated once per step, in Python, at t_{n+1}, where the Python iteration
evaluates them at every iterate with the same result. Without a torque, with an input
profile that carries its formula (``Profile.kernel``, evaluated in the loop by
:func:`profile_values`), and with any time-only torque under a fixed step (the steps'
ends known ahead, :func:`fixed_grid`, the torque evaluated there beforehand), the step
loop runs compiled through many output times (:func:`ga_outputs`). A torque callback
that reads the state, or a drive with its own states, keeps the Python iteration.

The equations, for y = (a, w) the unknowns at t_{n+1} (algorithmic accelerations of q
and of the work integrals z = (W_in, W_diss)):

    M(q) a - f(t, q, q_d) = 0,  f = Q - r(q, q_d) - K q - D q_d   (eq. (4.7))
    w - (tau . theta_d,  q_d^T D q_d) = 0                        (work rates)

with x_{n+1}(y) from the generalized-alpha update (Arnold & Bruls 2007, eqs. 6-8).

Long chains: the residual takes M a from the structure of M without forming it, K q and
D q_d over their bands, and the Newton matrix is factored bordered-banded
(:func:`structure`, :func:`_factor_banded`), so a step costs O(nq) where the dense
matrices cost O(nq^2) per evaluation and O(nq^3) per factorisation; short chains keep
the dense LU (:data:`BANDED_FROM`).
"""

import time
from collections import namedtuple

import numpy as np

from .._callbacks import CompiledPort, call_vector, call_vector_series
from .._interrupts import compiled_call
from . import chain_loop, kernels
# the compiled pieces, in three modules; their names stay importable from here
from .chain_linalg import (ST_BORDER, ST_BPIV, ST_GROUPS, ST_INNER,  # noqa: F401
                           ST_KHI, ST_KLO, ST_SPIV, ST_USE, _band_lu, _band_matvec,
                           _band_solve, _dot, _entry, _factor_banded, _fits_band,
                           _lu_factor, _lu_solve, _matvec, _newton_solve)
from .chain_newton import (FAILED, NON_FINITE, OK, _factor, _forcing,  # noqa: F401
                           _predict, filtered_error, ga_solve, predicted_state)
from .chain_loop import (LAW_FAILED, PAUSED, SHRUNK, UNSETTLED,  # noqa: F401
                         fixed_grid, ga_advance, ga_outputs, ga_sampled, held_solve,
                         profile_values)


def available():
    """Whether the compiled step can run (numba present and chosen as the backend)."""
    return kernels.backend() == "numba"


#: The bordered-banded Newton matrix from this many coordinates on; shorter chains take
#: the dense LU, which costs less there (one call of a few dozen loops, where the block
#: factors are a dozen; measured with ``bench_perf.element_scaling``, where the two
#: cost the same near 20 coordinates).
BANDED_FROM = 24

class Structure(namedtuple("Structure", "iv kl ku ni nb nq W ZT ABI SC")):
    """The factors of the bordered-banded Newton matrix and the index sets they use
    (:func:`structure`, made by :func:`make_structure`). The integer arrays are the
    rows of one array ``iv`` (rows ``chain_linalg.ST_*``; a compiled function counts a
    reference of every array of a tuple it receives on entry and exit, two atomic
    operations each, docs/performance.md), read here by name: use[0] 1 while the
    factors serve; inner, border the coordinates of y = (a, w) in the band and in the
    border (ni and nb of them); bpiv, spiv the band's and the Schur complement's
    pivots; klo, khi the nonzero range of each row of K and D (nq rows); groups the
    group of each position whose members share one scale in the step control
    (:func:`error_groups`). kl, ku the band's sub- and superdiagonals; W the band's
    LU; ZT = (A_II^-1 A_IB)^T; ABI = A_BI; SC the Schur complement's LU."""

    __slots__ = ()

    use = property(lambda self: self.iv[ST_USE, :1])
    inner = property(lambda self: self.iv[ST_INNER, :self.ni])
    border = property(lambda self: self.iv[ST_BORDER, :self.nb])
    bpiv = property(lambda self: self.iv[ST_BPIV, :self.ni])
    spiv = property(lambda self: self.iv[ST_SPIV, :self.nb])
    klo = property(lambda self: self.iv[ST_KLO, :self.nq])
    khi = property(lambda self: self.iv[ST_KHI, :self.nq])
    groups = property(lambda self: self.iv[ST_GROUPS, :self.nq])


def make_structure(use, inner, border, kl, ku, W, ZT, ABI, SC, klo, khi, groups):
    """A :class:`Structure` from its parts (``use`` 0 or 1; the pivots start at zero)."""
    ni, nb, nq = len(inner), len(border), len(klo)
    iv = np.zeros((8, max(ni, nb, nq, 1)), dtype=np.int64)
    iv[ST_USE, 0] = use
    iv[ST_INNER, :ni], iv[ST_BORDER, :nb] = inner, border
    iv[ST_KLO, :nq], iv[ST_KHI, :nq], iv[ST_GROUPS, :nq] = klo, khi, groups
    return Structure(iv, int(kl), int(ku), ni, nb, nq, W, ZT, ABI, SC)


def error_groups(model):
    """The groups of positions that share one scale in the step control's error measure
    (``GeneralizedAlpha``'s ``error_groups``): each joint its own, the elastic
    coordinates of each link one group (the link's deflection)."""
    groups = np.empty(model.nq, dtype=np.int64)
    groups[np.asarray(model.joint_index)] = np.arange(len(model.joint_index))
    g = len(model.joint_index)
    for ll in model.layout.links:
        ix = np.asarray(ll.elastic_index, dtype=np.int64)
        if ix.size:
            groups[ix] = g
            g += 1
    return groups


def structure(model, banded=None):
    """The :class:`Structure` of an arm's Newton matrix (docs/planar-link.md §4.4).

    In the floating-frame form a link's material points see the coordinates of the
    links before it only through the frames: the joints and the tip displacement and
    slope of each earlier link, a few coordinates (those where the basis' tip values
    N(L), N'(L) are nonzero). Those, the joints and the two work integrals are the
    border; the remaining elastic coordinates of each link couple, in M and in dF/dx,
    only through the constant banded matrices M_e, G_a, G_w, K and D, and to the border.
    The Newton matrix is then banded plus dense border rows and columns, factored in
    O(nq) by :func:`_factor_banded`. ``banded``: True or False to choose, None for
    automatic (chains of :data:`BANDED_FROM` coordinates or more whose border is at
    most a quarter of them: Hermite links; a modal basis, with every mode nonzero at
    the tip, has no band and stays dense)."""
    nq = model.nq
    m = nq + 2
    klo, khi = kernels.row_ranges(model.K, model.D)
    tip = set()
    for ll, b in zip(model.layout.links, model.bases):
        N, dN, _ = b.tip_values
        ix = np.asarray(ll.elastic_index)
        tip.update(int(k) for k in ix[(np.asarray(N[0]) != 0.0) | (np.asarray(dN[0]) != 0.0)])
    elastic = set(int(k) for k in model.elastic_index)
    inner = np.array(sorted(elastic - tip), dtype=np.int64)
    border = np.setdiff1d(np.arange(m), inner).astype(np.int64)
    ni, nb = inner.size, border.size
    if banded is None:
        banded = nq >= BANDED_FROM and ni > 0 and 4 * nb <= nq
    pattern = (model.K != 0.0) | (model.D != 0.0)
    for ll, inv in zip(model.layout.links, model.invariants):
        ix = np.ix_(ll.elastic_index, ll.elastic_index)
        pattern[ix] |= (inv.M_e != 0.0) | (inv.G_a != 0.0) | (inv.G_w != 0.0)
    rows, cols = np.nonzero(pattern[np.ix_(inner, inner)])
    kl = int(max(0, (rows - cols).max())) if rows.size else 0
    ku = int(max(0, (cols - rows).max())) if rows.size else 0
    if not banded:
        ni = nb = 0
        inner = border = np.zeros(0, dtype=np.int64)
    return make_structure(1 if banded else 0, inner, border, kl, ku,
                          np.zeros((ni, 2 * kl + ku + 1)), np.zeros((nb, ni)),
                          np.zeros((nb, ni)), np.zeros((nb, nb)), klo, khi,
                          error_groups(model))


#: Wall time, s, that one compiled call of :meth:`ChainStep.advance_outputs` aims at:
#: between calls the stepping loop answers Ctrl-C and checks its wall-time budget
#: (:func:`chrono_flex.stepping.checkpoint`), so that they act within about this long
#: at any step size; the calls' overhead (tens of microseconds) stays below 1e-3 of it.
CALL_SECONDS = 0.1

#: The most steps one compiled call may take (its pace doubles from 64 up to this).
MAX_STEPS_PER_CALL = 1 << 20


class ChainStep:
    """The compiled Newton solve of a :class:`GeneralizedAlpha` step for an arm's
    forward problem (module docstring): ``solve(t_new, h, x, y, acc, ga)`` returns
    (status, x_{n+1}, y_{n+1}, acc_{n+1}); ``advance_outputs(ga, targets)`` runs the
    steps through several output times in one call. It keeps the Jacobian and its LU
    between steps and counts the evaluations (``nfev``, ``njev``, ``nlu``).

    Args:
        model: the arm's :class:`~chrono_flex.planar.equations.ArmModel` (with its
            packed arrays: the numba backend).
        torque: the joint torque, a function of time alone (callable(t) -> one value
            per joint, :func:`chrono_flex.inputs.is_time_only`), or None for none.
        reads_state: True for a torque f(t, q, qd) that reads the state: it is
            evaluated at the state predicted for the step's end (:meth:`held_torque`),
            held through the step's compiled Newton solve and corrected at the
            converged state until it no longer changes (:meth:`_solve_held`).
    """

    def __init__(self, model, torque=None, reads_state=False):
        self.model, self.torque = model, torque
        #: whether ``torque`` is called f(t, q, qd) at the predicted end of each step
        #: (:meth:`held_torque`) rather than f(t)
        self.reads_state = bool(reads_state) and torque is not None
        # of a held state-reading law: the largest value seen, the corrections made
        self._law_state = np.array([1e-300, 0.0])
        nq = model.nq
        n, m = 2 * nq + 2, nq + 2
        self.jidx = np.asarray(model.joint_index, dtype=np.int64)
        self.JF, self.Mj, self.A = np.zeros((m, n)), np.zeros((nq, nq)), np.zeros((m, m))
        self.piv = np.zeros(m, dtype=np.int64)
        self.S = structure(model)
        self.state = np.zeros(2)
        self.counts = np.zeros(3, dtype=np.int64)
        self._Q = np.zeros(nq)
        self._tau = np.zeros(self.jidx.size)
        self._no_taus = np.zeros((0, self.jidx.size))
        self._no_params = np.zeros(0)
        # t and y at the last two step starts (the arrays are the integrator's, which
        # it replaces, never changes, at each step)
        self._t_start = self._t_last = None
        self._y_start = self._y_last = None
        self.max_steps = 64          # per compiled call, adjusted by :meth:`_pace`
        self._law_port = None        # (sampled law, its CompiledPort)

    def joint_forces(self, t):
        """The joint forces at time t, checked (:func:`chrono_flex._callbacks.call_vector`:
        a fault names the callback and the time)."""
        return call_vector("torque", self.torque, self.jidx.size, t)

    def inputs_at(self, ts):
        """The joint forces at the times ``ts`` as rows (len(ts), nj), the values
        :meth:`joint_forces` gives one by one, or None when one is faulty (then the
        steps go one by one, where the fault is reported at its time after the steps
        before it; :func:`chrono_flex._callbacks.call_vector_series`)."""
        return call_vector_series(self.torque, self.jidx.size, ts)

    def _extrapolation(self, t, y, h):
        """(y_{n-1}, ratio) for the iteration's start y_n + ratio (y_n - y_{n-1}), ratio =
        h / (t_n - t_{n-1}): y_n extrapolated linearly from the derivatives at the last
        two step starts (error O(h^2) where y_n alone is O(h): the first update, measured
        against Newton's tolerance of 1e-8 of the velocities, drops by about h times the
        derivatives' time scale, and so do the iterations a step needs)."""
        if t != self._t_start:                                  # a new step
            self._t_last, self._y_last = self._t_start, self._y_start
            self._t_start, self._y_start = t, y
        if self._y_last is None or not t > self._t_last:
            return y, 0.0
        return self._y_last, h / (t - self._t_last)

    def filtered_error(self, e):
        """The local error estimate e through the Newton matrix of the last step
        (:func:`filtered_error`)."""
        return filtered_error(self.Mj, self.A, self.piv, self.S, np.ascontiguousarray(e))

    @property
    def n_corrections(self):
        """Corrections of a held state-reading law so far (:meth:`_solve_held`)."""
        return int(self._law_state[1])

    @property
    def nfev(self):
        return int(self.counts[0])

    @property
    def njev(self):
        return int(self.counts[1])

    @property
    def nlu(self):
        return int(self.counts[2])

    @property
    def matrix(self):
        """How the Newton matrix is factored: "bordered-banded" (:func:`structure`) or
        "dense" (also after a Jacobian that did not fit the band)."""
        return "bordered-banded" if self.S.use[0] else "dense"

    @property
    def autonomous(self):
        """Whether the generalized forces are constant in time (no torque): then whole
        intervals run in one call (:meth:`advance`)."""
        return self.torque is None

    def advance(self, ga, t_target):
        """Steps of ``ga`` (a GeneralizedAlpha) towards ``t_target`` in one compiled call
        (:func:`ga_advance`, no torque); updates its state and counts and returns the
        status."""
        return self.advance_outputs(ga, [t_target])[0]

    def advance_outputs(self, ga, targets):
        """Steps of ``ga`` through the output times ``targets`` in one compiled call
        (:func:`ga_outputs`) of at most :attr:`max_steps` steps (status PAUSED when they
        did not reach the last target); updates its state and counts. Returns (status,
        the states at the outputs reached (k, n)), or None where it does not apply: a torque
        without a compiled formula (``kernel``, :func:`profile_values`) under the step
        control (the step times are not known ahead), or one whose values at the fixed
        steps' ends (:func:`fixed_grid`, :meth:`inputs_at`) are not all finite reals of
        the expected shape."""
        mdl = self.model
        targets = np.asarray(targets, dtype=float)
        adaptive = ga.error_rtol is not None
        taus = self._no_taus
        control = (2 if ga.error_filter else 1) if adaptive else 0
        pcode, pamp, ppar = 0, self._tau, self._no_params
        port = None
        kernel = getattr(self.torque, "kernel", None)
        if kernel is not None and np.shape(kernel[1]) == self._tau.shape:
            pcode, pamp, ppar = kernel
        elif self.reads_state:
            port = self._port(self.torque, held=False)
        elif self.torque is not None:
            if adaptive:
                return None
            taus = self.inputs_at(fixed_grid(ga.t, targets, ga.step, self.max_steps))
            if taus is None:
                return None
        t_last, y_last = self._previous_start(ga)
        X = np.empty((targets.size, ga.x.size))
        started = time.perf_counter()
        (status, reached, t, x, y, acc, y_last, t_last, h_next, q_scale, steps, rejected,
         retries) = compiled_call(
            ga_outputs, mdl.packed, mdl.K, mdl.D, mdl.g_vec, mdl.geometric_stiffening, self._Q,
            self.jidx, self._tau, taus, pcode, pamp, ppar, ga.t, targets, X, ga.x, ga.y,
            ga.acc, y_last,
            t_last, ga.step, control, ga.h_next, ga.q_scale,
            ga.error_rtol if adaptive else 0.0, ga.max_step, ga.am, ga.af, ga.gamma,
            ga.beta, ga.rtol, ga.atol, ga.max_iters, self.JF, self.Mj, self.A, self.piv,
            self.S, self.state, self.counts, self.max_steps,
            0 if port is None else port.address,
            self._no_params if port is None else port.buffer, self._law_state)
        self._pace(time.perf_counter() - started, status)
        self._update(ga, adaptive, t, x, y, acc, y_last, t_last, h_next, q_scale, steps,
                     rejected, retries)
        if status == LAW_FAILED:
            port.raise_error()
        return status, X[:reached]

    def _previous_start(self, ga):
        """(t, y) at the step start before ga.t, as :meth:`solve` would take it (also after
        steps taken by solve, e.g. the halves of a failed step)."""
        if self._extrapolation(ga.t, ga.y, 1.0)[1] == 0.0:
            return -np.inf, ga.y
        return self._t_last, self._y_last

    def _update(self, ga, adaptive, t, x, y, acc, y_last, t_last, h_next, q_scale, steps,
                rejected, retries):
        """``ga``'s state and counts after a compiled call."""
        ga.t, ga.x, ga.y, ga.acc, ga.q_scale = t, x, y, acc, q_scale
        if adaptive:
            ga.h_next = h_next
        ga.n_steps += steps
        ga.n_rejected += rejected
        ga.n_retries += retries
        if steps:
            self._t_last, self._y_last = t_last, y_last
            self._t_start, self._y_start = t, y

    def _port(self, law, held=True):
        """The :class:`~chrono_flex._callbacks.CompiledPort` of the sampled law ``law``
        (``held``: the reference engine's ``SampledTorque``, whose ``law`` is called) or
        of the state-reading torque ``law``; made once per law."""
        if self._law_port is None or self._law_port[0] is not law:
            self._law_port = (law, CompiledPort("torque", law.law if held else law,
                                                self.jidx.size, self.model.nq))
        return self._law_port[1]

    def advance_sampled(self, ga, targets, law):
        """Steps of ``ga`` through the output times ``targets`` in one compiled call
        (:func:`ga_sampled`) with the sampled torque ``law`` (the reference engine's
        ``SampledTorque``, no delay), called from the compiled loop at its sample
        instants (:class:`~chrono_flex._callbacks.CompiledPort`) and held between them;
        at most :attr:`max_steps` steps. Updates ``ga`` and the law (its samples, the
        value held) and returns (status, the states at the outputs reached (k, n));
        raises the law's error where a call of it failed."""
        mdl = self.model
        targets = np.asarray(targets, dtype=float)
        adaptive = ga.error_rtol is not None
        control = (2 if ga.error_filter else 1) if adaptive else 0
        port = self._port(law)
        self._tau = np.array(law.held.value, dtype=float)
        self._Q[:] = 0.0
        self._Q[self.jidx] = self._tau
        t_last, y_last = self._previous_start(ga)
        X = np.empty((targets.size, ga.x.size))
        sample_t = np.empty(self.max_steps + 2)
        sample_v = np.empty((sample_t.size, self.jidx.size))
        started = time.perf_counter()
        (status, reached, taken, k_next, t, x, y, acc, y_last, t_last, h_next, q_scale,
         steps, rejected, retries) = compiled_call(
            ga_sampled, mdl.packed, mdl.K, mdl.D, mdl.g_vec, mdl.geometric_stiffening,
            self._Q, self.jidx, self._tau, ga.t, targets, X, ga.x, ga.y, ga.acc, y_last,
            t_last, ga.step, control, ga.h_next, ga.q_scale,
            ga.error_rtol if adaptive else 0.0, ga.max_step, ga.am, ga.af, ga.gamma,
            ga.beta, ga.rtol, ga.atol, ga.max_iters, self.JF, self.Mj, self.A, self.piv,
            self.S, self.state, self.counts, self.max_steps, port.address, port.buffer,
            float(law.period), int(law.k), sample_t, sample_v)
        self._pace(time.perf_counter() - started, status)
        self._update(ga, adaptive, t, x, y, acc, y_last, t_last, h_next, q_scale, steps,
                     rejected, retries)
        law.took(sample_t[:taken], sample_v[:taken], k_next)
        if status == LAW_FAILED:
            port.raise_error()
        return status, X[:reached]

    def _pace(self, seconds, status):
        """Adjust :attr:`max_steps` so that a compiled call lasts about
        :data:`CALL_SECONDS`: doubled after a call that paused sooner, halved after one
        that took more than twice as long."""
        if status == PAUSED and seconds < 0.5 * CALL_SECONDS:
            self.max_steps = min(2 * self.max_steps, MAX_STEPS_PER_CALL)
        elif seconds > 2.0 * CALL_SECONDS:
            self.max_steps = max(1, self.max_steps // 2)

    def held_torque(self, t_new, h, x, y, acc, y_last, ratio, ga):
        """A state-reading torque f(t_{n+1}, q, q_d) at the state the step predicts for
        its end: the generalized-alpha update (module docstring) of the iteration's
        first iterate y_n + ratio (y_n - y_{n-1}). That iterate is off the converged
        derivatives by O(h^2), so the predicted q_d by O(h^3) and q by O(h^4): the
        torque held through the step is off the one the exact iteration converges to
        by O(h^3) (a Lipschitz law), one order above the method's local error in the
        velocities, and the method stays second order (tests/planar/test_user_laws.py
        measures the rate)."""
        nq = self.model.nq
        xn = predicted_state(x, y, acc, y_last, ratio, nq, h, ga.am, ga.af, ga.gamma,
                             ga.beta)
        return call_vector("torque", self.torque, self.jidx.size, t_new, xn[:nq],
                           xn[nq:2 * nq])

    #: Corrections of a held state-reading torque per step before the step fails, and
    #: the tolerance that accepts a held value: the law at the converged end state
    #: differs from it by at most this fraction of the largest torque seen (the same
    #: numbers as the compiled loop's, :func:`held_solve`).
    MAX_CORRECTIONS, CORRECTION_RTOL = chain_loop.MAX_CORRECTIONS, chain_loop.CORRECTION_RTOL

    def _solve_held(self, t_new, h, x, y, acc, y_last, ratio, ga):
        """The step with a state-reading torque: held at the predicted end state
        (:meth:`held_torque`), the compiled solve, the law at the converged state; while
        it differs (:data:`CORRECTION_RTOL`) the solve again with that value: a fixed
        point of the exact implicit step. The correction's response passes through the
        Newton matrix, which damps the modes above 1/h, so it contracts where the
        explicit prediction alone (whose joint rates carry those modes) would not. A
        step whose corrections do not settle returns :data:`UNSETTLED`, and the
        integrator takes it by the exact Python iteration
        (``GeneralizedAlpha._solve_step_compiled``); one whose Newton solve fails
        returns FAILED, retried smaller as any step (the exact iteration, whose
        Jacobian is the same, would fail there too)."""
        mdl = self.model
        nq = mdl.nq
        tau = self.held_torque(t_new, h, x, y, acc, y_last, ratio, ga)
        for _ in range(self.MAX_CORRECTIONS):
            self._tau = tau
            self._Q[:] = 0.0
            self._Q[self.jidx] = tau
            out = compiled_call(ga_solve, mdl.packed, mdl.K, mdl.D, mdl.g_vec,
                                mdl.geometric_stiffening, self._Q, self.jidx, self._tau, x,
                                y, acc, y_last, ratio, h, ga.am, ga.af, ga.gamma, ga.beta,
                                ga.rtol, ga.atol, ga.max_iters, self.JF, self.Mj, self.A,
                                self.piv, self.S, self.state, self.counts)
            if out[0] != OK:
                return out
            xn = out[1]
            tau = call_vector("torque", self.torque, self.jidx.size, t_new, xn[:nq],
                              xn[nq:2 * nq])
            self._law_state[0] = max(self._law_state[0], float(np.abs(tau).max()))
            self._law_state[1] += 1
            if np.abs(tau - self._tau).max() <= self.CORRECTION_RTOL * self._law_state[0]:
                return out
        return UNSETTLED, out[1], out[2], out[3]

    def solve(self, t_new, h, x, y, acc, ga):
        """One step's Newton solve; ``ga`` gives the method's parameters and tolerances."""
        mdl = self.model
        y_last, ratio = self._extrapolation(ga.t, y, h)
        if self.reads_state:
            return self._solve_held(t_new, h, x, y, acc, y_last, ratio, ga)
        if self.torque is not None:
            self._tau = self.joint_forces(t_new)
            self._Q[:] = 0.0
            self._Q[self.jidx] = self._tau
        return compiled_call(ga_solve, mdl.packed, mdl.K, mdl.D, mdl.g_vec,
                             mdl.geometric_stiffening, self._Q, self.jidx, self._tau, x, y,
                             acc, y_last, ratio, h, ga.am, ga.af,
                             ga.gamma, ga.beta, ga.rtol, ga.atol, ga.max_iters, self.JF,
                             self.Mj, self.A, self.piv, self.S, self.state, self.counts)


__all__ = ["BANDED_FROM", "ChainStep", "Structure", "available", "error_groups",
           "filtered_error", "make_structure", "structure", "fixed_grid",
           "ga_advance", "ga_outputs", "ga_sampled", "ga_solve", "LAW_FAILED",
           "profile_values", "OK", "FAILED", "UNSETTLED", "NON_FINITE", "PAUSED", "SHRUNK"]
