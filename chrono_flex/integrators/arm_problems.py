"""The two problems every arm's reference engine integrates (planar and spatial), their
state layout and what follows from it written once:

* the forward problem, state x = [q, q_d, W_in, W_diss, drive states..., controller
  states...] (:class:`ForwardArmProblem`): the joint forces and the appended states of
  :class:`~chrono_flex.drive.coupling.ArmInputs`;
* the mixed problem, joints prescribed, state x = [e, e_d, W_in, W_diss]
  (:class:`MixedArmProblem`): with a the joint coordinates and b the elastic ones,
  M_bb e_dd = f_b - M_ba theta_dd and tau = M_aa theta_dd + M_ab e_dd - f_a (f the
  forcing without inputs).

The input work and the dissipated energy are integrated as states, so the energy
balance is checked to the integrator's tolerance. A subclass supplies the arm's
equations and its guard: ``ratio(arm, q)`` and ``ratios(arm, Q)``, the largest tip
deflection over link length (its ``post`` module's ``deflection_ratio(s)``).
"""

import numpy as np

from .._callbacks import call_vector
from ..drive.coupling import ArmInputs, JointDrives
from .ivp import fd_jacobian


def default_atol(n2, n):
    """Default absolute tolerances of scipy's solvers: 1e-9 on positions, 1e-7 on rates,
    1e-6 on the work integrals (and on anything after them)."""
    return np.concatenate([np.full(n2, 1e-9), np.full(n2, 1e-7), np.full(n - 2 * n2, 1e-6)])


class ForwardArmProblem:
    """State x = [q, q_d, W_in, W_diss, drive states..., controller states...]; joint
    forces from the ``torque`` callback, the drives (placed by ``places``, {joint:
    (entry in the joint forces, index in q)}) and ``drive_input``
    (:class:`~chrono_flex.drive.coupling.ArmInputs`; a continuous controller's states
    integrated with the arm's)."""

    ratio = ratios = None          # the arm's guard (set by a subclass)

    def __init__(self, arm, torque, drive_input, places):
        self.arm, self.nq = arm, arm.nq
        self.drives = JointDrives(arm.drives, places, 2 * arm.nq + 2)
        self.inputs = ArmInputs(torque, drive_input, self.drives, arm.n_joints)
        self.n, self.n2 = self.inputs.stop, arm.nq      # second-order coordinates: q

    def initial_state(self, q0, qd0):
        x = np.zeros(self.n)
        x[:self.nq], x[self.nq:2 * self.nq] = q0, qd0
        self.inputs.initial_state(x, q0, qd0)
        return x

    def default_atol(self):
        a = default_atol(self.n2, self.n)
        self.inputs.atol(a)
        return a

    def joint_forces(self, t, q, qd, x):
        """(tau (n_joints,), the rates of the drive and controller states) at time t and
        state x (:class:`~chrono_flex.drive.coupling.ArmInputs`)."""
        return self.inputs.joint_forces(t, x, q, qd)

    def loads(self, t, x):
        """(q, qd, Q, tau, rates) at time t and state x: the coordinates and rates, the
        generalized forces Q (nq,) of the joint forces tau (n_joints,), and the rates of
        the drive and controller states."""
        nq = self.nq
        q, qd = x[:nq], x[nq:2 * nq]
        tau, rates = self.joint_forces(t, q, qd, x)
        Q = np.zeros(nq)
        Q[self.arm.joint_index] = tau
        return q, qd, Q, tau, rates

    def jac(self, t, x):
        """Forward differences of :meth:`rhs`; dq/dt = q_d exact, the work integrals
        (which no rate reads) left out."""
        nq = self.nq
        cols = list(range(2 * nq)) + list(range(2 * nq + 2, self.n))
        return fd_jacobian(self.rhs, t, x, self.rhs(t, x), cols,
                           (np.arange(nq), np.arange(nq, 2 * nq)))

    def max_deflection_ratio(self, t, x):
        return self.ratio(self.arm, x[:self.nq])

    def max_deflection_ratios(self, X):
        """:meth:`max_deflection_ratio` at the states X (nt, n) (any times)."""
        return self.ratios(self.arm, X[:, :self.nq])


class MixedArmProblem:
    """Joints prescribed by ``motion(t) -> (theta, theta_d, theta_dd)``: state
    x = [e, e_d, W_in, W_diss], the joint torques returned. A subclass gives
    ``forcing_terms(q, qd)`` -> (M, f), the arm's forcing without inputs."""

    ratio = None                   # the arm's guard (set by a subclass)

    def __init__(self, arm, motion):
        self.arm, self.motion = arm, motion
        self.a, self.b = arm.joint_index, arm.elastic_index
        self.ne = self.n2 = self.b.size    # second-order coordinates: the elastic ones

    def _state(self, t, x):
        out = call_vector("joint_motion", lambda s: np.ravel(self.motion(s)),
                          3 * self.arm.n_joints, t)
        th, thd, thdd = np.split(out, 3)
        q, qd = np.empty(self.arm.nq), np.empty(self.arm.nq)
        q[self.a], qd[self.a] = th, thd
        q[self.b], qd[self.b] = x[:self.ne], x[self.ne:2 * self.ne]
        return q, qd, thdd

    def _solve(self, t, x):
        q, qd, thdd = self._state(t, x)
        M, f = self.forcing_terms(q, qd)
        a, b = self.a, self.b
        edd = np.linalg.solve(M[np.ix_(b, b)], f[b] - M[np.ix_(b, a)] @ thdd)
        return q, qd, edd, M[np.ix_(a, a)] @ thdd + M[np.ix_(a, b)] @ edd - f[a]

    def initial_state(self, q0, qd0):
        """x0 from the full coordinates q0, qd0 (nq,): their elastic entries."""
        return np.concatenate([q0[self.b], qd0[self.b], [0.0, 0.0]])

    def default_atol(self):
        return default_atol(self.n2, 2 * self.n2 + 2)

    def rhs(self, t, x):
        q, qd, edd, tau = self._solve(t, x)
        ne = self.ne
        return np.concatenate([x[ne:2 * ne], edd, [tau @ qd[self.a],
                                                   qd @ self.arm.model.D @ qd]])

    def jac(self, t, x):
        ne = self.ne
        return fd_jacobian(self.rhs, t, x, self.rhs(t, x), range(2 * ne),
                           (np.arange(ne), np.arange(ne, 2 * ne)))

    def max_deflection_ratio(self, t, x):
        return self.ratio(self.arm, self._state(t, x)[0])

    def samples(self, t, X):
        """(Q, QD, joint torques, input work, dissipated energy) at the samples."""
        Q = np.empty((t.size, self.arm.nq))
        QD, tau = np.empty_like(Q), np.empty((t.size, self.arm.n_joints))
        for k, (tk, x) in enumerate(zip(t, X)):
            Q[k], QD[k], _, tau[k] = self._solve(tk, x)
        return Q, QD, tau, X[:, -2], X[:, -1]


__all__ = ["ForwardArmProblem", "MixedArmProblem", "default_atol"]
