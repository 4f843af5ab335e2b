"""A run of the RRRP arm (:class:`chrono_flex.formulations.rrrp.RRRPArm`) through the
engines' one plumbing, :func:`chrono_flex.integrators.choice.run_engine`: the integrator
chosen and built as for every arm (generalized-alpha, scipy's solvers, RK4), stepped by
:func:`chrono_flex.stepping.run` (its guards, output times, progress, wall-time budget
and partial results), ``info`` filled as for every arm, the result an
:class:`RRRPResult`.

State x = [eta (8), eta' (8), W_in]: the input work is integrated as a state. The arm's
own limits, checked after every step and located in the step by its dense output: the
extension ``a`` leaving the stroke, a modal coordinate beyond ``max_deflection``.
"""

import numpy as np
from scipy.optimize import brentq

from .. import _checks as ck
from ..errors import ParameterError, SimulationError
from ..integrators.choice import DEFAULT_METHOD, FIXED_STEP, check_method, run_engine
from ..integrators.ivp import fd_jacobian
from ..integrators.reference_loop import ReferenceStepper
from ..result import Energy, Result

#: Names of the generalized coordinates, in order.
COORDINATES = ("theta1", "theta2", "theta3", "q1y", "q1z", "q2y", "q2z", "a")
#: Their units: the joint angles rad, the modal amplitudes (the shapes normalised to 1
#: at the tip) and the extension m.
COORDINATE_UNITS = ("rad", "rad", "rad", "m", "m", "m", "m", "m")
#: Indices of the actuated coordinates (tau1, tau2, tau3, force on a).
ACTUATED = (0, 1, 2, 7)
ELASTIC = (3, 4, 5, 6)

#: Defaults of scipy's solvers on this arm, when one is named ([W] integrated to tight
#: tolerances; the arm's slow modes need them over seconds of motion); the default,
#: generalized-alpha, takes the shared settings of :mod:`chrono_flex.integrators.choice`.
RTOL, ATOL = 1e-8, 1e-10

#: Points per arm of the drawn centrelines (``Result.centerline``).
N_SAMPLES = 21


class RRRPResult(Result):
    """A trajectory of the RRRP arm: a :class:`~chrono_flex.result.Result` (``to_csv``,
    ``to_npz``, ``from_npz``, ``summary``, ``plot``).

    q and qd (nt, 8) in the order :data:`COORDINATES`; joint_angles, joint_rates and
    joint_torque (nt, 4) those of the actuated coordinates (theta1, theta2, theta3, a;
    tau1, tau2, tau3 in N m and F_a in N); tip_position (nt, 3) of B; tip_deflection
    (nt, 2) the transverse tip deflections of arm 1 and of arms 2+3 (their modes are 1
    at the tip); centerline and centerline_rigid (nt, 3, ns, 3) arm 1, arm 2 and the
    telescopic arm 3 (:meth:`RRRPArm.centerlines`); ``extra["joint_position"]`` (nt, 3)
    of A and ``extra["angular_momentum_z"]`` (nt,); energy (``dissipated`` is zero: no
    damping).
    """

    @property
    def joint_position(self):
        return self.extra["joint_position"]

    @property
    def angular_momentum_z(self):
        return self.extra["angular_momentum_z"]

    @property
    def inputs(self):
        """(nt, 4) tau1, tau2, tau3, F_a: ``joint_torque``."""
        return self.joint_torque

    @property
    def kinetic(self):
        return self.energy.kinetic

    @property
    def elastic(self):
        return self.energy.elastic

    @property
    def gravity(self):
        return self.energy.gravity


class _Problem:
    """dx/dt of the RRRP arm for :func:`build_integrator`: ``rhs``, ``jac``, ``n2``,
    ``default_atol``; and its limits as (function of (t, x) negative beyond, message)."""

    def __init__(self, arm, inputs):
        self.arm, self.inputs = arm, inputs
        self.n2 = n = arm.n
        p = arm.params
        self.limits = [
            (lambda t, x: x[7] - p.stroke[0],
             f"the extension a fell below the stroke minimum {p.stroke[0]:g} m"),
            (lambda t, x: p.stroke[1] - x[7],
             f"the extension a passed the stroke maximum {p.stroke[1]:g} m"),
            (lambda t, x: p.max_deflection - np.max(np.abs(x[3:7])),
             f"a modal coordinate exceeded max_deflection = {p.max_deflection:g} m "
             "(divergence)")]
        self.n_state = 2 * n + 1

    def generalized_force(self, t, eta, eta_d):
        if self.inputs is None:
            return np.zeros(self.n2)
        try:
            return self.arm.generalized_force(self.inputs(t, eta, eta_d))
        except ParameterError as exc:       # the callback's name in simulate
            raise ParameterError("torque", exc.value, exc.requirement) from None

    def rhs(self, t, x):
        n = self.n2
        eta, eta_d = x[:n], x[n:2 * n]
        Q = self.generalized_force(t, eta, eta_d)
        return np.concatenate([eta_d, self.arm.accelerations(t, eta, eta_d, Q), [Q @ eta_d]])

    def jac(self, t, x):
        n = self.n2
        return fd_jacobian(self.rhs, t, x, self.rhs(t, x), range(2 * n),
                           (np.arange(n), np.arange(n, 2 * n)))

    def default_atol(self):
        return np.full(self.n_state, ATOL)

    def max_deflection_ratio(self, t, x):
        return 0.0                  # the arm's own limits are checked by _Stepper

    def joint_inputs(self, t, eta, eta_d):
        """(tau1, tau2, tau3, F_a) as the user gave them."""
        if self.inputs is None:
            return np.zeros(4)
        u = np.asarray(self.inputs(t, eta, eta_d), dtype=float).reshape(-1)
        return u if u.size == 4 else u[list(ACTUATED)]


class _Stepper(ReferenceStepper):
    """The shared loop's stepper, which after every step checks the arm's limits
    (:attr:`_Problem.limits`) and locates a crossing in the step (Brent's method on
    the step's dense output)."""

    label = "spatial"

    def advance_outputs(self, t_targets):
        return None                 # one step at a time: the limits after each

    def advance(self, t_target):
        t_prev = self.ode.t
        t = self.ode.advance(t_target)
        x = self.ode.state(t)
        if not np.all(np.isfinite(x)):
            return t                # the loop's guard reports the divergence
        for g, message in self.sim.limits:
            if g(t, x) < 0.0:
                h = lambda s: g(s, self.ode.state(s))  # noqa: E731
                t_hit = t if not h(t_prev) > 0.0 else \
                    brentq(h, t_prev, t, xtol=1e-12 * max(1.0, abs(t)))
                raise SimulationError(message, t_hit)
        return t


def simulate_rrrp(arm, t_end, eta0, eta_d0=None, inputs=None, dt_out=None, method=DEFAULT_METHOD,
                  rtol=None, atol=None, max_step=np.inf, progress=None, n_out=None,
                  max_nfev=None, max_wall_time=None, step=None):
    """:meth:`RRRPArm.simulate <chrono_flex.formulations.rrrp.RRRPArm.simulate>` (its
    arguments checked here, the canonical names already resolved)."""
    p = arm.params
    t_end = ck.positive("t_end", t_end)
    if eta0 is None:
        raise ParameterError("q0", None, "must be given (8,): its `a` must lie in the "
                             f"stroke {p.stroke}")
    eta0 = ck.vector("q0", eta0, size=arm.n)
    eta_d0 = np.zeros(arm.n) if eta_d0 is None else ck.vector("qd0", eta_d0, size=arm.n)
    if not p.stroke[0] <= eta0[7] <= p.stroke[1]:
        raise ParameterError("q0", tuple(eta0),
                             f"must have a = eta0[7] in the stroke {p.stroke}")
    if np.max(np.abs(eta0[list(ELASTIC)])) >= p.max_deflection:
        raise ParameterError("q0", tuple(eta0), "modal coordinates must be below "
                             f"max_deflection = {p.max_deflection:g}")
    if inputs is not None and not callable(inputs):
        raise ParameterError("torque", inputs, "must be callable(t, eta, eta_d) or None")
    check_method(method)
    if method not in FIXED_STEP:      # this arm's defaults for scipy's solvers
        rtol = RTOL if rtol is None else rtol
        atol = ATOL if atol is None else atol
    if n_out is not None:
        if dt_out is not None:
            raise ParameterError("n_out", n_out, "is given with dt_out; give one of them")
        t_out = np.linspace(0.0, t_end, ck.positive_int("n_out", n_out))
    else:
        t_out = ck.output_times(0.0, t_end, t_end / 400 if dt_out is None
                                else ck.positive("dt_out", dt_out))
    sim = _Problem(arm, inputs)
    return run_engine(sim, np.concatenate([eta0, eta_d0, [0.0]]), t_out, method,
                      lambda rec: rrrp_result(arm, sim, rec.t, rec["x"], {}),
                      rtol=rtol, atol=atol, max_step=max_step, max_nfev=max_nfev,
                      step=step, stepper=_Stepper, progress=progress,
                      max_wall_time=max_wall_time, engine="reference (spatial RRRP)",
                      label="spatial", info=dict(
                          coordinates=COORDINATES, coordinate_units=list(COORDINATE_UNITS),
                          extra_units={"joint_position": "m", "angular_momentum_z": "N m s"}))


def rrrp_result(arm, sim, t, X, info):
    """The :class:`RRRPResult` of the states X (nt, 17) at the times t."""
    n = arm.n
    q, qd, W = X[:, :n], X[:, n:2 * n], X[:, 2 * n]
    U = np.array([sim.joint_inputs(tk, a, b) for tk, a, b in zip(t, q, qd)])
    M = arm.mass_matrix(q)
    energy = Energy(kinetic=0.5 * np.einsum("tk,tkl,tl->t", qd, M, qd),
                    elastic=arm.elastic_energy(q), gravity=arm.gravity_energy(q),
                    input_work=W, dissipated=np.zeros_like(W))
    r = np.real(arm.positions(q))
    lines = arm.centerlines(q, n_samples=N_SAMPLES)
    arms = ("arm1", "arm2", "arm3")
    ji = list(ACTUATED)
    return RRRPResult(
        t=t, q=q, qd=qd, joint_angles=q[:, ji], joint_rates=qd[:, ji], tip_position=r[:, -1],
        tip_deflection=arm.tip_deflections(q), energy=energy, joint_torque=U, plane=None,
        centerline=np.stack([lines[k] for k in arms], axis=1),
        centerline_rigid=np.stack([lines["rigid"][k] for k in arms], axis=1),
        info=info, model=arm.to_dict(),
        extra={"joint_position": r[:, -2],
               "angular_momentum_z": np.einsum("tl,tl->t", M[:, 0, :], qd)})


__all__ = ["ACTUATED", "COORDINATES", "ELASTIC", "RRRPResult", "simulate_rrrp"]
