"""A spatial arm linearised about a static equilibrium with its joints held
(docs/linear-models.md §2): the planar method on the spatial equations.

M(q0) dq_dd + D_t dq_d + K_t dq = S du, with K_t, D_t from
:func:`chrono_flex.linear.tangent_matrices` over the spatial forcing
(:func:`chrono_flex.spatial.equations.forcing`). Names (joints and bodies count from 1):

* states: joint<j> (the coordinates of the joints that have one), body<b>.e<k>, and
  their rates (``_dot``);
* inputs: torque<j> (N m, or N at a prismatic joint);
* outputs: any state; tip_x, tip_y, tip_z (the last link's tip in the base frame, m),
  tip<b>_x, tip<b>_y, tip<b>_z for body b.
"""

import re

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError, SimulationError
from ..linear import LinearModel, chosen_inputs, tangent_matrices
from . import equations as mdl

#: Step of the central differences, as for the planar arm (planar.statics.FD_STEP).
FD_STEP = 1e-6
#: An equilibrium's unbalanced elastic force, relative to the largest elastic or gravity
#: force at the pose (as planar.statics.EQUILIBRIUM_RTOL).
EQUILIBRIUM_RTOL = 1e-7


def coordinate_names(arm):
    names = [""] * arm.nq
    for j, ji in enumerate(arm.joint_index):
        names[ji] = f"joint{j + 1}"
    for b, bl in enumerate(arm.model.layout.bodies):
        if bl.is_link:
            for k, e in enumerate(bl.elastic_index):
                names[e] = f"body{b + 1}.e{k + 1}"
    return names


def _f(arm, q, qd):
    return mdl.forcing(arm.model, q, qd, np.zeros(arm.nq))[1]


def _tangent(arm, q):
    return tangent_matrices(lambda qq, qd: _f(arm, qq, qd), arm.model.K, arm.model.D, q,
                            FD_STEP)


def equilibrium(arm, q0=None, tol=1e-12, max_iter=50):
    """q at the static equilibrium with the joints held at those of ``q0`` (default
    zero): Newton on the elastic rows of the forcing with the tangent stiffness."""
    q = np.zeros(arm.nq) if q0 is None else ck.vector("q0", q0, arm.nq).copy()
    ei = arm.elastic_index
    for _ in range(max_iter):
        f = _f(arm, q, np.zeros(arm.nq))[ei]
        dx = np.linalg.solve(_tangent(arm, q)[0][np.ix_(ei, ei)], f)
        q[ei] += dx
        if np.max(np.abs(dx), initial=0.0) <= tol * (1.0 + np.max(np.abs(q))):
            return q
    raise SimulationError(f"static equilibrium: Newton did not converge in {max_iter} steps")


def linearize(arm, inputs=None, outputs=None, pose=None):
    """:meth:`SpatialArm.linearize <chrono_flex.spatial.arm.SpatialArm.linearize>`."""
    nq, nj = arm.nq, arm.n_joints
    all_inputs = [f"torque{j + 1}" for j in range(nj)]
    inputs = chosen_inputs(inputs, all_inputs)
    if pose is None:
        q0 = equilibrium(arm)
    else:
        q0 = ck.vector("pose", pose, nq)
        ei = arm.elastic_index
        f = _f(arm, q0, np.zeros(nq))[ei]
        scale = max(np.max(np.abs(arm.model.K @ q0)),
                    np.max(np.abs(_f(arm, q0, np.zeros(nq)) + arm.model.K @ q0)), 1e-300)
        if np.max(np.abs(f), initial=0.0) > EQUILIBRIUM_RTOL * scale:
            k = int(np.argmax(np.abs(f)))
            raise ParameterError("pose", "the given q", f"is not a static equilibrium: the "
                                 f"force on {coordinate_names(arm)[ei[k]]} is unbalanced by "
                                 f"{abs(f[k]):.3g}")
    M = arm.mass_matrix(q0)
    Kt, Dt = _tangent(arm, q0)
    names = coordinate_names(arm)
    states = names + [n + "_dot" for n in names]
    S = np.zeros((nq, nj))
    S[arm.joint_index, np.arange(nj)] = 1.0
    A = np.block([[np.zeros((nq, nq)), np.eye(nq)],
                  [-np.linalg.solve(M, Kt), -np.linalg.solve(M, Dt)]])
    B = np.vstack([np.zeros((nq, nj)), np.linalg.solve(M, S)])
    outputs = ([names[i] for i in arm.joint_index] if outputs is None
               else [outputs] if isinstance(outputs, str) else list(outputs))
    C = np.zeros((len(outputs), 2 * nq))
    last = arm.model.links[-1]
    for r, name in enumerate(outputs):
        if name in states:
            C[r, states.index(name)] = 1.0
            continue
        m = re.match(r"^tip(\d*)_([xyz])$", name)
        body = (int(m.group(1)) - 1 if m.group(1) else last) if m else None
        if m is None or not 0 <= body < len(arm.bodies):
            raise ParameterError("outputs", name, "is not an output of this arm: a state "
                                 "name or tip_x, tip_y, tip_z, tip<b>_x... (bodies count "
                                 "from 1)")
        c = "xyz".index(m.group(2))
        for k in range(nq):
            s = FD_STEP * max(1.0, abs(q0[k]))
            e = np.zeros(nq)
            e[k] = s
            C[r, k] = (mdl.tip_frames(arm.model, q0 + e)[body].p[c]
                       - mdl.tip_frames(arm.model, q0 - e)[body].p[c]) / (2 * s)
    ii = [all_inputs.index(u) for u in inputs]
    return LinearModel(A, B[:, ii], C, np.zeros((len(outputs), len(ii))), states, inputs,
                       outputs, dict(pose=q0.tolist(), step=FD_STEP, mass_matrix=M,
                                     stiffness=Kt, damping=Dt))


__all__ = ["coordinate_names", "equilibrium", "linearize"]
