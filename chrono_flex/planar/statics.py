"""Static equilibrium of a planar arm under gravity, constant joint torques and drives
(docs/linear-models.md §1).

At rest (q_d = 0) the equations M(q) q_dd = f(q, 0, Q) reduce to f(q, 0, Q) = 0 with
f = Q - r(q, 0) - K q (the forcing of :func:`chrono_flex.planar.equations.forcing`,
r = h - Q_g [+ K_geo e]: the engine's own function). The unknowns are the elastic
coordinates and the joints left free; a held joint keeps its angle and the torque that
holds it is returned. Newton's iteration uses the tangent stiffness K_t = -df/dq
(:func:`tangent_matrices`); where K_t is not positive definite (a pendulum started
horizontal, or upside down) it is shifted to be, and the joint step bounded, which
makes each step a descent of the potential energy (f = -dV/dq at rest for gravity and
constant torques), so the iteration finds the stable equilibrium next to its start.

A joint with a drive (:class:`~chrono_flex.drive.GearDrive`) is held by the drive's
steady state (:meth:`GearDrive.steady_state`: the input it needs is returned), or, given
a drive input, turns freely under the drive's steady output torque.
"""

from dataclasses import dataclass, field

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError, SimulationError
from ..linear import tangent_matrices as linear_tangent
from . import equations as mdl

#: Step of the central differences of the forcing (a fraction of max(1, |q_k|)): the
#: truncation error ~h^2 |f'''| and the rounding ~eps |f| / h balance near 1e-5 to 1e-6;
#: at 1e-6 both are below 1e-10 of the tangent stiffness for the papers' arms.
FD_STEP = 1e-6

#: Largest change of a joint coordinate in one Newton step (rad or m): the bound that
#: keeps a step a descent where the tangent stiffness is shifted.
MAX_JOINT_STEP = 0.5

#: An equilibrium's residual must be below this times the scale of the forces at the
#: pose (the largest of |K q|, |Q_g| and |Q|): Newton reaches ~1e-13, a pose taken from
#: elsewhere (a run, a file) is not an equilibrium above it.
EQUILIBRIUM_RTOL = 1e-7


def tangent_matrices(arm, q, Q=None, h=FD_STEP):
    """(K_t, D_t) = (-df/dq, -df/dq_d) at (q, q_d = 0, Q): K and D exactly (the linear
    part) plus central differences of the rest of the engine's forcing with the step
    h max(1, |q_k|) (:func:`chrono_flex.linear.tangent_matrices`; docs/linear-models.md
    eq. (1.2)). With gravity K_t carries the Hessian of its potential; D_t - D vanishes
    at rest (the inertia terms are quadratic in q_d)."""
    Q = np.zeros(arm.nq) if Q is None else Q
    return linear_tangent(lambda qq, qd: mdl.forcing(arm.model, qq, qd, Q)[1],
                          arm.model.K, arm.model.D, np.asarray(q, dtype=float), h)


def force_scale(arm, q, Q):
    """The size of the forces at a pose: the largest of |K q|, |Q| and the generalized
    forces of gravity at q, both as it acts and turned by 90 degrees in the plane (so
    that a hanging link, which gravity does not bend, still has the scale of its
    weight); 1e-300 for an unloaded arm without gravity."""
    zero = np.zeros(arm.nq)
    scale = max(np.max(np.abs(arm.model.K @ q)), np.max(np.abs(Q)), 1e-300)
    g = arm.model.g_vec
    for gv in (g, np.array([-g[1], g[0]])):
        scale = max(scale, np.max(np.abs(mdl.chain_terms(arm.model, q, zero, gv)[1])))
    return scale


@dataclass(frozen=True)
class Equilibrium:
    """A static equilibrium of an arm.

    Attributes:
        q: the coordinates (nq,).
        joint_torques: the torque (N m) or force (N) at each joint (nj,): the applied
            one at a free joint, the one that holds a held joint (a drive's output
            torque at a driven joint).
        free: per joint, whether it turned freely (else it was held).
        drive_states: {joint number: the drive's steady state (4,)}.
        drive_inputs: {joint number: the drive's input, V or A}.
        stable: whether the tangent stiffness over the free coordinates (elastic and
            free joints) is positive definite (a minimum of the potential).
        residual: the largest unbalanced force over the free coordinates at q.
        iterations: Newton steps taken.
    """

    q: np.ndarray
    joint_torques: np.ndarray
    free: tuple
    drive_states: dict = field(default_factory=dict)
    drive_inputs: dict = field(default_factory=dict)
    stable: bool = True
    residual: float = 0.0
    iterations: int = 0


def _free_joints(arm, joints):
    nj = arm.n_joints
    if isinstance(joints, str):
        ck.choice("joints", joints, ("held", "free"))
        return (joints == "free",) * nj
    joints = tuple(joints)
    if len(joints) != nj:
        raise ParameterError("joints", joints, f"must be 'held', 'free' or one of them per "
                             f"joint ({nj})")
    for k, j in enumerate(joints):
        ck.choice(f"joints[{k}]", j, ("held", "free"))
    return tuple(j == "free" for j in joints)


def static_equilibrium(arm, joint_angles=None, joints="held", torque=None, drive_input=None,
                       q0=None, tol=1e-12, max_iter=100):
    """The static equilibrium of ``arm`` (an :class:`Equilibrium`).

    Args:
        joint_angles: the held joints' coordinates and the free ones' first guess (nj,),
            default zero (or those of ``q0``).
        joints: "held" (default), "free", or one of them per joint.
        torque: constant joint torques (N m) or forces (N) (nj,), default zero; at a held
            joint it adds to the holding torque.
        drive_input: {joint number: drive input (V or A)}: that driven joint turns freely
            under the drive's steady output torque (it must be "free"); a driven joint
            without one is held by its drive (a free one gets the input 0).
        q0: a first guess of all coordinates (nq,), default the joint angles with no
            deflection.
        tol: the Newton iteration stops when a step is below tol (1 + |q|).

    SimulationError when the iteration does not converge in ``max_iter`` steps.
    """
    free = _free_joints(arm, joints)
    nj, nq = arm.n_joints, arm.nq
    q = np.zeros(nq) if q0 is None else ck.vector("q0", q0, nq).copy()
    if joint_angles is not None:
        q[arm.joint_index] = ck.vector("joint_angles", joint_angles, nj)
    tau = np.zeros(nj) if torque is None else ck.vector("torque", torque, nj)
    drive_input = dict(drive_input or {})
    for j in arm.drives:                   # a free driven joint without an input: 0 V
        if free[j] and j not in drive_input:
            drive_input[j] = 0.0
    drive_states, drive_inputs = {}, {}
    for j, u in drive_input.items():
        if j not in arm.drives:
            raise ParameterError("drive_input", j, f"names joint {j}, which has no drive "
                                 f"(drives at {sorted(arm.drives)})")
        if not free[j]:
            raise ParameterError("drive_input", j, "drives a held joint: a drive input "
                                 "needs the joint 'free' (a held driven joint returns the "
                                 "input that holds it)")
        x, u, t_out = arm.drives[j].steady_state(u=u)
        tau[j] += t_out
        drive_states[j], drive_inputs[j] = x, u
    Q = np.zeros(nq)
    Q[arm.joint_index] = tau
    unknown = np.concatenate([arm.elastic_index,
                              arm.joint_index[np.array(free, dtype=bool)]]).astype(int)
    is_joint = np.isin(unknown, arm.joint_index)
    zero = np.zeros(nq)
    for it in range(1, max_iter + 1):
        f = mdl.forcing(arm.model, q, zero, Q)[1][unknown]
        Kt = tangent_matrices(arm, q, Q)[0][np.ix_(unknown, unknown)]
        Kt = 0.5 * (Kt + Kt.T)
        lam = np.linalg.eigvalsh(Kt)
        if lam[0] <= 1e-9 * lam[-1]:      # shift to positive definite: a descent step
            Kt = Kt + (abs(lam[0]) + 1e-6 * abs(lam[-1])) * np.eye(unknown.size)
        dx = np.linalg.solve(Kt, f)
        big = np.max(np.abs(dx[is_joint])) if is_joint.any() else 0.0
        if big > MAX_JOINT_STEP:
            dx *= MAX_JOINT_STEP / big
        q[unknown] += dx
        if np.max(np.abs(dx)) <= tol * (1.0 + np.max(np.abs(q))):
            break
    else:
        raise SimulationError(f"static equilibrium: Newton did not converge in {max_iter} "
                              f"steps (last step {np.max(np.abs(dx)):.3g})")
    fq = mdl.forcing(arm.model, q, zero, Q)[1]
    Kt = tangent_matrices(arm, q, Q)[0][np.ix_(unknown, unknown)]
    stable = bool(np.linalg.eigvalsh(0.5 * (Kt + Kt.T))[0] > 0.0)
    torques = tau.copy()
    for j in range(nj):
        if not free[j]:
            torques[j] -= fq[arm.joint_index[j]]        # what holds the joint
            if j in arm.drives:
                x, u, _ = arm.drives[j].steady_state(torque=torques[j],
                                                     theta_out=q[arm.joint_index[j]])
                drive_states[j], drive_inputs[j] = x, u
    for j in drive_states:                         # the drive's angles at the joint's
        if j in drive_input:
            x, u, _ = arm.drives[j].steady_state(u=drive_input[j],
                                                 theta_out=q[arm.joint_index[j]])
            drive_states[j] = x
    return Equilibrium(q=q, joint_torques=torques, free=free, drive_states=drive_states,
                       drive_inputs=drive_inputs, stable=stable,
                       residual=float(np.max(np.abs(fq[unknown]), initial=0.0)),
                       iterations=it)


def check_equilibrium(arm, q, Q, rows, name="pose"):
    """ParameterError naming ``name`` when f(q, 0, Q) does not vanish on ``rows`` (the
    coordinates that no held joint or actuator balances), relative to
    :func:`force_scale` (:data:`EQUILIBRIUM_RTOL`); the error names the coordinate."""
    f = mdl.forcing(arm.model, q, np.zeros(arm.nq), Q)[1]
    rows = np.asarray(rows, dtype=int)
    if rows.size == 0:
        return
    bad = np.abs(f[rows])
    scale = force_scale(arm, q, Q)
    k = int(np.argmax(bad))
    if bad[k] > EQUILIBRIUM_RTOL * scale:
        raise ParameterError(name, "the given q", f"is not a static equilibrium: the force "
                             f"on coordinate {coordinate_names(arm)[rows[k]]} is unbalanced "
                             f"by {bad[k]:.3g} ({bad[k] / scale:.2g} of the forces at the pose; "
                             "arm.equilibrium() computes one)")


def coordinate_names(arm):
    """Names of the generalized coordinates: theta<j> (revolute) or d<j> (prismatic)
    for joint j (1-based), link<i>.e<k> for the k-th elastic coordinate of link i."""
    names = [""] * arm.nq
    for j, (ji, jt) in enumerate(zip(arm.joint_index, arm.joints)):
        names[ji] = f"theta{j + 1}" if jt.kind == "revolute" else f"d{j + 1}"
    for i, ll in enumerate(arm.model.layout.links):
        for k, e in enumerate(ll.elastic_index):
            names[e] = f"link{i + 1}.e{k + 1}"
    return names


__all__ = ["EQUILIBRIUM_RTOL", "Equilibrium", "FD_STEP", "check_equilibrium",
           "coordinate_names", "force_scale", "static_equilibrium",
           "tangent_matrices"]
