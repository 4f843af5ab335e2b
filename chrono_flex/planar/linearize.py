"""A planar arm (with or without drives) linearised about a static equilibrium
(docs/linear-models.md §1-2).

About a pose q0 at rest where f(q0, 0, Q0) = 0, the equations M(q) q_dd = f(q, q_d, Q)
give M(q0) dq_dd + D_t dq_d + K_t dq = S du (the term dM/dq q_dd vanishes with q_dd = 0):
K_t, D_t from :func:`chrono_flex.planar.statics.tangent_matrices` (K, D exactly, the rest
by central differences of the engine's forcing). A drive at joint j adds its states,
linearised in a stated regime (:mod:`chrono_flex.drive.linearize`), and its output torque
to the joint's row. Outputs are rows of C from the same kinematics the engine uses.

Names (joints j and links i count from 1):

* states: the coordinates (theta<j> or d<j>, link<i>.e<k>), their rates (``_dot``),
  the drives' states (drive<j>.current, .motor_angle, .motor_speed, .z);
* inputs: torque<j> (N m, or N at a prismatic joint), voltage<j> (or current<j> for a
  drive in current mode);
* outputs: any state; tip_x, tip_y (the last link's tip in the arm's plane, m);
  tip_lateral (the tip's displacement normal to the last link's root axis at the pose:
  L theta + w(L) for one link); tip_deflection<i> (w_i(L_i), m); strain<i>@<x> (the
  bending strain (h/2) w_i''(x) at the surface on the side of positive w, at the station
  x in m from link i's root); twist<j> (the drive's gear twist, rad).
"""

import re

import numpy as np

from .. import _checks as ck
from ..drive.linearize import drive_jacobians, input_name, kept_states
from ..errors import ParameterError
from ..linear import LinearModel, chosen_inputs
from . import equations as mdl
from .statics import (EQUILIBRIUM_RTOL, FD_STEP, Equilibrium, check_equilibrium,
                      coordinate_names, force_scale, static_equilibrium, tangent_matrices)

_STRAIN = re.compile(r"^strain(\d+)@([-+0-9.eE]+)$")


def _actuated(arm, inputs):
    """Joints that an input or a drive acts on."""
    acted = set(arm.drives)
    for name in inputs:
        m = re.match(r"^torque(\d+)$", name)
        if m:
            acted.add(int(m.group(1)) - 1)
    return acted


def operating_point(arm, pose, inputs):
    """(q0, joint torques (nj,), drive states {j: x}, drive inputs {j: u}) of the pose.

    ``pose``: None (the static equilibrium: the joints that an input or a drive acts on
    held at zero, the others free), an :class:`Equilibrium`, the joint coordinates (nj,)
    (held there, the links at their static deflection) or all coordinates q (nq,) (then
    the forces on the elastic coordinates and the unactuated joints must balance:
    ParameterError naming ``pose`` otherwise)."""
    acted = _actuated(arm, inputs)
    held = ["held" if j in acted else "free" for j in range(arm.n_joints)]
    if pose is None:
        pose = static_equilibrium(arm, joints=held)
    elif not isinstance(pose, Equilibrium):
        p = ck.vector("pose", pose)
        if p.size == arm.n_joints and p.size != arm.nq:
            pose = static_equilibrium(arm, joint_angles=p, joints="held")
        elif p.size == arm.nq:
            free_rows = [arm.joint_index[j] for j in range(arm.n_joints) if j not in acted]
            check_equilibrium(arm, p, np.zeros(arm.nq),
                              list(arm.elastic_index) + free_rows, "pose")
            pose = static_equilibrium(arm, joints="held", q0=p)      # polished
        else:
            raise ParameterError("pose", pose, f"must be None, an Equilibrium, the joint "
                                 f"coordinates ({arm.n_joints}) or q ({arm.nq})")
    scale = force_scale(arm, pose.q, np.asarray(pose.joint_torques))
    for j, free in enumerate(pose.free):
        if not free and j not in acted and abs(pose.joint_torques[j]) > EQUILIBRIUM_RTOL * scale:
            raise ParameterError("pose", "an Equilibrium", f"is not an equilibrium of the "
                                 f"model: joint {j + 1} is held by {pose.joint_torques[j]:.6g} "
                                 "but no input or drive acts there (name "
                                 f"torque{j + 1} among the inputs, or free the joint)")
    return pose.q, pose.joint_torques, pose.drive_states, pose.drive_inputs


def state_names(arm):
    names = coordinate_names(arm)
    out = names + [n + "_dot" for n in names]
    for j in sorted(arm.drives):
        d = arm.drives[j]
        out += [f"drive{j + 1}.{d.state_names[k]}" for k in kept_states(d)]
    return out


def input_names(arm):
    names = []
    for j, jt in enumerate(arm.joints):
        names.append(f"torque{j + 1}")
    for j in sorted(arm.drives):
        names.append(f"{input_name(arm.drives[j])}{j + 1}")
    return names


def _output_row(arm, name, q0, n, states, drive_rows):
    """The row of C (n,) and of D for the output ``name`` (None when unknown)."""
    nq = arm.nq
    row = np.zeros(n)
    if name in states:
        row[states.index(name)] = 1.0
        return row
    if name in drive_rows:
        return drive_rows[name]
    model = arm.model

    def diff(fn):               # central differences of a kinematic output, in q
        for k in range(nq):
            s = FD_STEP * max(1.0, abs(q0[k]))
            e = np.zeros(nq)
            e[k] = s
            row[k] = (fn(q0 + e) - fn(q0 - e)) / (2 * s)
        return row

    if name in ("tip_x", "tip_y"):
        c = 0 if name == "tip_x" else 1
        return diff(lambda q: mdl.tip_state(model, q)[0][c])
    if name == "tip_lateral":
        from . import kinematics as kin
        roots, _ = kin.chain_frames(model.layout, q0, None)
        psi = roots[-1].psi
        normal = np.array([-np.sin(psi), np.cos(psi)])
        return diff(lambda q: mdl.tip_state(model, q)[0] @ normal)
    m = re.match(r"^tip_deflection(\d+)$", name)
    if m and 1 <= int(m.group(1)) <= arm.model.n_links:
        row[:nq] = mdl.tip_rows(model)[int(m.group(1)) - 1]
        return row
    m = _STRAIN.match(name)
    if m and 1 <= int(m.group(1)) <= model.n_links:
        i = int(m.group(1)) - 1
        x = float(m.group(2))
        L = model.bases[i].length
        if not 0.0 <= x <= L:
            raise ParameterError("outputs", name, f"names a station off link {i + 1} "
                                 f"(0 <= x <= {L:g} m)")
        d2N = model.bases[i].values(np.array([x]))[2][0]
        row[model.layout.links[i].elastic_index] = 0.5 * arm.links[i].thickness * d2N
        return row
    return None


def linearize(arm, inputs=None, outputs=None, pose=None, backlash="contact",
              friction="presliding"):
    """:meth:`PlanarArm.linearize <chrono_flex.planar.arm.PlanarArm.linearize>`: a
    :class:`~chrono_flex.linear.LinearModel` about ``pose`` (:func:`operating_point`)
    for the named ``inputs`` (default: every joint torque and drive input) and
    ``outputs`` (default: the joint coordinates); ``backlash``, ``friction``: the
    regime of the drives (:mod:`chrono_flex.drive.linearize`)."""
    all_inputs = input_names(arm)
    inputs = chosen_inputs(inputs, all_inputs)
    q0, tau0, xd0, ud0 = operating_point(arm, pose, inputs)
    nq, nj = arm.nq, arm.n_joints
    M = arm.mass_matrix(q0)
    Kt, Dt = tangent_matrices(arm, q0)
    states = state_names(arm)
    n = len(states)
    A = np.zeros((n, n))
    A[:nq, nq:2 * nq] = np.eye(nq)
    G = np.zeros((nq, n))                 # M dq_dd = G x + S u
    G[:, :nq], G[:, nq:2 * nq] = -Kt, -Dt
    m_all = len(all_inputs)
    S = np.zeros((nq, m_all))
    for j in range(nj):
        S[arm.joint_index[j], j] = 1.0
    Bd = np.zeros((n, m_all))
    drive_rows, k0, regimes = {}, 2 * nq, {}
    for c, j in enumerate(sorted(arm.drives)):
        d, ji = arm.drives[j], arm.joint_index[j]
        jac = drive_jacobians(d, xd0[j], q0[ji], 0.0, ud0[j], backlash, friction)
        k = len(jac["keep"])
        sl = slice(k0, k0 + k)
        A[sl, sl] = jac["Rx"]
        A[sl, ji], A[sl, nq + ji] = jac["Ry"][:, 0], jac["Ry"][:, 1]
        G[ji, sl] += jac["Tx"]
        G[ji, ji] += jac["Ty"][0]
        G[ji, nq + ji] += jac["Ty"][1]
        Bd[sl, nj + c] = jac["Ru"]
        S[ji, nj + c] += jac["Tu"]
        if 1 in jac["keep"]:
            tw = np.zeros(n)
            tw[k0 + jac["keep"].index(1)], tw[ji] = 1.0 / d.ratio, -1.0
            drive_rows[f"twist{j + 1}"] = tw
        regimes[j + 1] = dict(operating_input=ud0[j], state=np.asarray(xd0[j]).tolist())
        k0 += k
    A[nq:2 * nq] = np.linalg.solve(M, G)
    B = Bd.copy()
    B[nq:2 * nq] = np.linalg.solve(M, S)
    outputs = ([states[arm.joint_index[j]] for j in range(nj)] if outputs is None
               else [outputs] if isinstance(outputs, str) else list(outputs))
    C = np.zeros((len(outputs), n))
    for r, name in enumerate(outputs):
        row = _output_row(arm, name, q0, n, states, drive_rows)
        if row is None:
            raise ParameterError("outputs", name, "is not an output of this arm: a state "
                                 "name, tip_x, tip_y, tip_lateral, tip_deflection<i>, "
                                 "strain<i>@<x> or twist<j> (joints and links count from 1)")
        C[r] = row
    ii = [all_inputs.index(u) for u in inputs]
    info = dict(pose=q0.tolist(), joint_torques=np.asarray(tau0).tolist(), step=FD_STEP,
                mass_matrix=M, stiffness=Kt, damping=Dt)
    if arm.drives:
        info.update(backlash=backlash, friction=friction, drives=regimes)
    return LinearModel(A, B[:, ii], C, np.zeros((len(outputs), len(ii))), states, inputs,
                       outputs, info)


__all__ = ["input_names", "linearize", "operating_point", "state_names"]
