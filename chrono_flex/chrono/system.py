"""Chrono system set-up and stepping for chrono_flex's items.

:func:`configure_system` gives a system the direct sparse solver and the implicit
fixed-step timestepper the custom items need (docs/chrono.md §5); :func:`step` advances
it, adapts Newton's tolerance to the step, re-raises errors raised inside the items'
callbacks and moves the items' marker bodies. The small helpers below (quaternions,
Chrono vectors, the registry of items on a system) are shared by the element, the
drive link and the visuals.
"""

import numpy as np

from ..errors import ParameterError, SimulationError
from ._detect import require_pychrono

#: Timesteppers :func:`configure_system` knows.
TIMESTEPPERS = ("hht", "euler")

#: Attribute of the system's Python object listing its FlexibleLinks. Holding them there
#: ties the life of the director objects to the system's, as Chrono needs (docs/chrono.md §2).
REGISTRY_ATTR = "_chrono_flex_links"
#: Attribute of the system's Python object holding :func:`configure_system`'s settings.
NEWTON_ATTR = "_chrono_flex_newton"
#: ``max_halvings`` of :func:`simulate_chrono` for arms with drives: down to 1/16 of the
#: step, the margin that ABS_TOL_FLOOR leaves (below).
MAX_HALVINGS = 4
#: Lowest absolute Newton tolerance at a step h is ABS_TOL_FLOOR / h**2 (accelerations,
#: reactions): about 50 machine epsilons of a unit coordinate over h^2, some 250 times
#: the round-off seen (C ~ 1e-17 over beta h^2). A sub-step h/2^k meets a round-off
#: residual 4^k larger under the same tolerance, so 4 halvings (4^4 = 256) stay reachable.
ABS_TOL_FLOOR = 1e-14


def configure_system(system, timestepper="hht", alpha=0.0, max_iters=20, rel_tol=1e-9,
                     abs_tol=1e-10, solver="sparse_lu", max_halvings=0):
    """Give ``system`` a direct sparse solver and an implicit fixed-step timestepper.

    Chrono's default iterative solver ignores the stiffness matrices that the element
    relies on (docs/chrono.md §5). ``timestepper``: "hht" (``ChTimestepperHHT``, numerical
    damping ``alpha`` in [-1/3, 0], fixed step, full Newton) or "euler"
    (``ChTimestepperEulerImplicit``, first order, dissipative). ``solver``: "sparse_lu"
    or "sparse_qr" (both handle the unsymmetric Jacobians).

    Newton tolerances: Chrono stops iterating when the correction of the accelerations is
    below ``rel_tol`` |a| + ``abs_tol`` (weighted RMS) or the residual is below
    ``abs_tol``; the tight defaults keep the Newton error far below the truncation error
    (about one extra iteration per step). :func:`step` raises ``abs_tol`` for a step h
    to at least ``ABS_TOL_FLOOR / h**2``: a constraint residual C at round-off (~1e-17
    for unit coordinates, e.g. a prismatic joint whose frame comes from a rotation)
    cannot be reduced by Newton and enters the residual as C / (beta h^2), so a fixed
    1e-10 becomes unreachable below h ~ 0.5 ms and the floor must grow as 1/h^2.

    Step halving (HHT, ``max_halvings`` > 0, e.g. :data:`MAX_HALVINGS`): a step whose
    Newton iteration does not converge in ``max_iters`` is retried by Chrono with half
    the step, down to 2**-max_halvings of the step given to :func:`step` (each converged
    sub-step counts; after 5 of them the step doubles again, up to the given step). The
    results are then still at the requested times. Below that, or with
    ``max_halvings=0`` (the default; always with "euler"), the step raises a
    RuntimeError (Chrono's default is to accept it silently). Off by default because
    Chrono's step control also changes Newton's start: from the previous accelerations
    (x + v h + a h^2) instead of zero, a worse first iterate for fast rotations of the
    parent body (Newton then stalls at round-off). Newton can cycle across a kink of a
    non-smooth model (the drive's friction |v| at an output speed reversal, the backlash
    contact); halving gives a smaller step there only: see
    :attr:`FlexibleLink.n_retries`. The Jacobian is rebuilt at every iteration
    here; the element decides itself how often its own part is refreshed
    (:class:`FlexibleLink` ``jacobian``).
    """
    chrono = require_pychrono()
    if timestepper not in TIMESTEPPERS:
        raise ParameterError("timestepper", timestepper, f"must be one of {list(TIMESTEPPERS)}")
    if solver not in ("sparse_lu", "sparse_qr"):
        raise ParameterError("solver", solver, "must be 'sparse_lu' or 'sparse_qr'")
    if isinstance(max_halvings, bool) or not isinstance(max_halvings, (int, np.integer)) \
            or not 0 <= max_halvings <= 30:
        raise ParameterError("max_halvings", max_halvings, "must be a whole number in 0..30")
    if max_halvings > 0 and timestepper != "hht":
        raise ParameterError("max_halvings", max_halvings,
                             "needs timestepper='hht' (implicit Euler has no step control)")
    system.SetSolver(chrono.ChSolverSparseLU() if solver == "sparse_lu"
                     else chrono.ChSolverSparseQR())
    if timestepper == "hht":
        ts = chrono.ChTimestepperHHT(system)
        ts.SetAlpha(float(alpha))
    else:
        ts = chrono.ChTimestepperEulerImplicit(system)
    ts.SetStepControl(max_halvings > 0)
    if max_halvings > 0:
        ts.SetStepDecreaseFactor(0.5)
        ts.SetStepIncreaseFactor(2.0)
        ts.SetMaxItersSuccess(int(max_iters))  # every converged sub-step counts to grow back
        ts.SetRequiredSuccessfulSteps(5)
    ts.SetMaxIters(int(max_iters))
    ts.SetRelTolerance(float(rel_tol))
    ts.SetAbsTolerances(float(abs_tol))
    ts.SetJacobianUpdateMethod(chrono.ChTimestepperImplicit.JacobianUpdate_EVERY_ITERATION)
    ts.AcceptTerminatedStep(False)      # a step whose Newton iteration failed raises
    system.SetTimestepper(ts)
    setattr(system, NEWTON_ATTR, _NewtonSettings(ts, float(abs_tol), int(max_halvings)))
    return ts


class _NewtonSettings:
    """What :func:`step` adapts to the step size (kept on the system's Python object)."""

    def __init__(self, ts, abs_tol, max_halvings):
        self.ts, self.abs_tol, self.max_halvings = ts, abs_tol, max_halvings
        self.dt = None
        #: lowest absolute tolerance the items need whatever the step (raised by
        #: FlexibleLink.attach: a stiff weld's round-off, see weld_tolerance_floor)
        self.floor = 0.0

    def raise_floor(self, value):
        if value > self.floor:
            self.floor = float(value)
            self.dt = None

    def prepare(self, dt):
        if dt == self.dt:
            return
        self.dt = dt
        self.ts.SetAbsTolerances(max(self.abs_tol, ABS_TOL_FLOOR / (dt * dt), self.floor))
        if self.max_halvings:
            # Chrono throws when the halved step drops below h_min
            self.ts.SetMinStepSize(dt * 0.5 ** self.max_halvings * (1.0 - 1e-9))


def step(system, dt, sync=True):
    """``system.DoStepDynamics(dt)``, then, for every :class:`FlexibleLink` in it: raise
    a :class:`SimulationError` (chained to the original exception) if one of its
    callbacks failed during the step, and (``sync``) move its
    :attr:`~FlexibleLink.tip_body`. With a timestepper from :func:`configure_system`,
    its Newton tolerance and smallest sub-step follow ``dt`` first."""
    settings = getattr(system, NEWTON_ATTR, None)
    if settings is not None:
        settings.prepare(float(dt))
    try:
        system.DoStepDynamics(dt)
    except RuntimeError as exc:
        # a callback error explains a failed step better than "Newton did not converge"
        links = getattr(system, REGISTRY_ATTR, ())
        for link in links:
            link.raise_pending()
        welded = [lk for lk in links if getattr(lk, "attachments", None)
                  and lk.jacobian != "iteration"]
        if welded and "Newton" in str(exc):
            raise SimulationError(
                f"{exc} A body is welded to a flexible link whose Jacobian is kept over "
                "the step (jacobian='step' or N): if the step is right for the scene, try "
                "jacobian='iteration' or a smaller stiffness_ratio (docs/chrono.md "
                "section 8)", time=system.GetChTime()) from exc
        raise
    for link in getattr(system, REGISTRY_ATTR, ()):
        link.raise_pending()
        if sync:
            link.sync()


def weld_tolerance_floor(k_p, k_r, mass, inertia, reach):
    """Lowest absolute Newton tolerance (accelerations) a weld of stiffnesses k_p, k_r on
    a body of ``mass`` and smallest ``inertia`` at distance ``reach`` from the origin can
    meet: its gap and relative rotation are known to a few machine epsilons eps of
    ``reach`` and of 1, so its accelerations carry a round-off of k_p eps reach / m and
    k_r eps / J. As ABS_TOL_FLOOR: 50 epsilons."""
    eps = 50 * np.finfo(float).eps
    return eps * max(k_p * max(reach, 1.0) / mass, k_r / inertia)


class CallbackState:
    """What a Chrono item written in Python keeps between Chrono's callbacks: the time of
    the current Update, the first exception caught in a callback (re-raised after the
    step, as no exception may cross Chrono's C++ solver) and the count of Newton
    attempts Chrono retried. The director classes (:mod:`chrono_flex.chrono.directors`)
    go through these methods. The item sets ``_time``, ``_error`` (None),
    ``_last_update_time`` (None) and ``n_retries`` (0) when it is built."""

    def note_update(self, time):
        """An Update at ``time`` begins: count the Updates whose time goes back (Chrono
        resets the state to the step's start after each failed Newton attempt, then
        halves the step; not the round-off of Chrono's clamping of the last sub-step's
        end to the step's end), and make ``time`` the time of the callbacks that follow."""
        last = self._last_update_time
        if last is not None and time < last - 1e-12 * max(1.0, abs(last)):
            self.n_retries += 1
            self._error = None  # the failed attempt is discarded, and its errors with it
        self._last_update_time = time
        self._time = time

    def record_error(self, exc, time=None):
        """Keep ``exc``, raised in a callback at ``time`` (default: the current Update's),
        unless an earlier one is kept already; :func:`step` re-raises it."""
        if self._error is None:
            self._error = (exc, self._time if time is None else time)


def note_update(owner, time):
    """:meth:`CallbackState.note_update` of ``owner``."""
    owner.note_update(time)


def vector(chrono, values):
    """A ``ChVectorDynamicd`` holding ``values``."""
    v = chrono.ChVectorDynamicd(len(values))
    v.SetVect([float(x) for x in values])
    return v


def quat_to_matrix(e0, e1, e2, e3):
    """Rotation matrix of the unit quaternion (e0, e1, e2, e3)."""
    return np.array([
        [e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
        [2 * (e1 * e2 + e0 * e3), e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3, 2 * (e2 * e3 - e0 * e1)],
        [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3]])


def matrix_to_quat(R):
    """Unit quaternion (e0, e1, e2, e3) of a rotation matrix (Shepperd's method)."""
    tr = np.trace(R)
    k = int(np.argmax([tr, R[0, 0], R[1, 1], R[2, 2]]))
    if k == 0:
        s = 2.0 * np.sqrt(1.0 + tr)
        q = [s / 4, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s]
    elif k == 1:
        s = 2.0 * np.sqrt(1.0 + R[0, 0] - R[1, 1] - R[2, 2])
        q = [(R[2, 1] - R[1, 2]) / s, s / 4, (R[0, 1] + R[1, 0]) / s, (R[0, 2] + R[2, 0]) / s]
    elif k == 2:
        s = 2.0 * np.sqrt(1.0 + R[1, 1] - R[0, 0] - R[2, 2])
        q = [(R[0, 2] - R[2, 0]) / s, (R[0, 1] + R[1, 0]) / s, s / 4, (R[1, 2] + R[2, 1]) / s]
    else:
        s = 2.0 * np.sqrt(1.0 + R[2, 2] - R[0, 0] - R[1, 1])
        q = [(R[1, 0] - R[0, 1]) / s, (R[0, 2] + R[2, 0]) / s, (R[1, 2] + R[2, 1]) / s, s / 4]
    q = np.array(q)
    return q / np.linalg.norm(q) * (1.0 if q[0] >= 0 else -1.0)


__all__ = ["ABS_TOL_FLOOR", "MAX_HALVINGS", "REGISTRY_ATTR", "TIMESTEPPERS", "configure_system",
           "matrix_to_quat", "note_update", "quat_to_matrix", "step", "vector",
           "weld_tolerance_floor"]
