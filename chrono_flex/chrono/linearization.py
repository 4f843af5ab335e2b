"""A Chrono system linearised about its current state (docs/chrono.md §10.1,
docs/linear-models.md §2).

Chrono writes the matrices of its linearised equations (``ChSystem.WriteSystemMatrices``,
read by :func:`chrono_flex.chrono.modal.system_matrices`): the mass M, the stiffness
K = -dF/dq and the damping R = -dF/dv of every item that gives them (Chrono's beams; the
custom element through its Jacobian, whose R carries the link's damping and whatever a
state-reading torque law adds), and the constraint Jacobian Cq, all over the
velocity-level coordinates v. About a state at rest in equilibrium, with the free
coordinates v = T xi (T a basis of the null space of Cq, massless coordinates condensed
out statically: :func:`chrono_flex.chrono.modal.free_basis`),

    M_r xi'' + R_r xi' + K_r xi = T^T b u,    M_r = T^T M T, K_r = T^T K T, R_r = T^T R T,
    x = [xi, xi'],   A = [[0, I], [-M_r^-1 K_r, -M_r^-1 R_r]],   B = [[0], [M_r^-1 T^T b]]

(docs/linear-models.md eq. 2.1 with Chrono's matrices), b the generalized force of an
input over v, and an output y = c . dq (c over the position-level increments that v
measures) has the row [c T, 0] of C.

* A :class:`~chrono_flex.chrono.element.FlexibleLink` alone in its system (no joints,
  nothing condensed) keeps its coordinates as states: the names, inputs (torque<j>) and
  outputs (the arm's coordinates, tip_x, tip_y, tip_lateral, tip_deflection<i>,
  strain<i>@<x>) of :meth:`chrono_flex.PlanarArm.linearize`.
* Any ``ChSystem``: states xi<k> and xi<k>_dot, inputs and outputs given as
  ``{name: vector over v}``; :func:`body_rotation_row` builds the vector of a torque on a
  body about a world axis (and of that body's turn about it).
"""

import numpy as np

from ..errors import ParameterError
from ..linear import LinearModel
from ._detect import require_pychrono
from .modal import free_basis, system_matrices

#: At an equilibrium the generalized forces that no input balances must be below this
#: times the largest force of the state (the planar statics' EQUILIBRIUM_RTOL, loosened
#: by the custom element's Jacobian step: its forces are balanced to ~1e-8 relative).
EQUILIBRIUM_RTOL = 1e-6

#: A speed above this (m/s or rad/s) is not at rest.
REST_SPEED = 1e-12


def body_rotation_row(system, body, axis):
    """The vector over ``system``'s velocity-level coordinates of a torque on ``body``
    about the world ``axis`` (unit length taken): Chrono's body coordinates are its
    position and its angular velocity in its own frame, so the torque's entries are
    R^T n at the body's offset + 3. It is also the output row of the body's turn about
    the axis (the small rotation n . R dphi_local)."""
    require_pychrono()
    system.Setup()
    n = np.asarray(axis, dtype=float)
    if n.shape != (3,) or not np.isfinite(n).all() or np.linalg.norm(n) == 0.0:
        raise ParameterError("axis", axis, "must be a non-zero 3-vector")
    n = n / np.linalg.norm(n)
    if body.IsFixed():
        raise ParameterError("body", body.GetName() or body, "is fixed: it has no coordinates")
    row = np.zeros(system.GetNumCoordsVelLevel())
    R = np.asarray(body.GetRotMat().to_numpy(), dtype=float)
    off = body.GetOffset_w()
    row[off + 3:off + 6] = R.T @ n
    return row


def _forces(system, n):
    """The generalized forces F (gravity, loads, internal forces) at the current state."""
    F = require_pychrono().ChVectorDynamicd(n)
    F.SetZero()
    system.LoadResidual_F(F, 1.0)
    return np.asarray(F.GetVectorData(n), dtype=float)


def _speeds(system, link):
    """The largest speed of the system's bodies (and of the link's coordinates), m/s or
    rad/s."""
    s = 0.0 if link is None else float(np.abs(link.qd()).max(initial=0.0))
    for b in system.GetBodies():
        if not b.IsFixed():
            s = max(s, np.abs(b.GetPosDt().to_numpy()).max(),
                    np.abs(b.GetAngVelLocal().to_numpy()).max())
    return s


def _check_equilibrium(system, link, T, F, Bv, item):
    """ParameterError naming ``item`` when the state is not at rest or the projected
    forces T^T F are not balanced by the inputs (least squares over their columns)."""
    speed = _speeds(system, link)
    if speed > REST_SPEED:
        raise ParameterError(item, f"speed {speed:.3g}", "is not at rest: linearize about "
                             "an equilibrium (or pass equilibrium=False)")
    f = T.T @ F
    if Bv.shape[1]:
        G = T.T @ Bv
        f = f - G @ np.linalg.lstsq(G, f, rcond=None)[0]
    scale = max(np.abs(F).max(initial=0.0), 1e-300)
    worst = np.abs(f).max(initial=0.0)
    if worst > EQUILIBRIUM_RTOL * scale:
        raise ParameterError(item, f"unbalanced force {worst:.3g}", "is not an equilibrium "
                             f"(the largest force is {scale:.3g}); bring it to one (e.g. "
                             "DoStaticNonlinear), name the inputs that hold it, or pass "
                             "equilibrium=False")


def _vectors(label, given, n):
    if not isinstance(given, dict):
        raise ParameterError(label, given, "must be a dict {name: vector over the system's "
                             "velocity-level coordinates} for a ChSystem")
    out = {}
    for name, v in given.items():
        v = np.asarray(v, dtype=float)
        if v.shape != (n,) or not np.isfinite(v).all():
            raise ParameterError(label, name, f"must map to a finite vector of {n} entries")
        out[str(name)] = v
    return out


def _link_model(link, M, Cq, inputs, outputs):
    """(T, state names, input names, input vectors Bv over v, output names, C) of a
    FlexibleLink alone in its system, named as PlanarArm.linearize names them."""
    from ..planar.linearize import _output_row
    from ..planar.statics import coordinate_names

    arm, n = link.arm, M.shape[0]
    nq = arm.nq
    if link.actuators or link.attachments or getattr(link, "_moving", False) \
            or Cq.shape[0] or n != nq:
        raise ParameterError("item", link, f"shares its system with other items or has "
                             f"actuators, welds or a moving parent ({n} coordinates, "
                             f"{Cq.shape[0]} constraints, the link's own {nq}): linearize "
                             "the ChSystem, inputs and outputs as vectors")
    names = coordinate_names(arm)
    states = names + [s + "_dot" for s in names]
    off = np.array([sh.GetOffset_w() for sh in link.shafts])
    T = np.zeros((n, nq))
    T[off, np.arange(nq)] = 1.0                      # v = T q
    all_inputs = [f"torque{j + 1}" for j in range(arm.n_joints)]
    inputs = all_inputs if inputs is None else [inputs] if isinstance(inputs, str) \
        else list(inputs)
    Bv = np.zeros((n, len(inputs)))
    for c, u in enumerate(inputs):
        if u not in all_inputs:
            raise ParameterError("inputs", u, f"is not an input of this link; its inputs: "
                                 f"{all_inputs}")
        Bv[off[arm.joint_index[all_inputs.index(u)]], c] = 1.0
    outputs = ([states[arm.joint_index[j]] for j in range(arm.n_joints)] if outputs is None
               else [outputs] if isinstance(outputs, str) else list(outputs))
    q0 = link.q()
    C = np.zeros((len(outputs), 2 * nq))
    for r, name in enumerate(outputs):
        row = _output_row(arm, name, q0, 2 * nq, states, {})
        if row is None:
            raise ParameterError("outputs", name, "is not an output of this link: a state "
                                 "name, tip_x, tip_y, tip_lateral, tip_deflection<i> or "
                                 "strain<i>@<x>")
        C[r] = row
    return T, states, inputs, Bv, outputs, C


def linearize(item, inputs=None, outputs=None, equilibrium=True):
    """A :class:`~chrono_flex.linear.LinearModel` of a Chrono system about its current
    state (module docstring).

    Args:
        item: a :class:`~chrono_flex.chrono.element.FlexibleLink` (alone in its system,
            on the ground) or a ``ChSystem``.
        inputs: FlexibleLink: names torque<j> (default all joints); ChSystem: a dict
            {name: generalized-force vector over the velocity-level coordinates}
            (default none).
        outputs: FlexibleLink: names as :meth:`chrono_flex.PlanarArm.linearize` (default
            the joint coordinates); ChSystem: {name: row over the coordinates} (default
            none).
        equilibrium: require a state at rest whose forces the inputs balance
            (ParameterError naming ``item`` otherwise).

    ``info`` holds the matrices M_r, K_r, R_r, the basis T and the sizes.
    """
    require_pychrono()
    link = item if hasattr(item, "shafts") and hasattr(item, "arm") else None
    system = link.system if link is not None else item
    if not hasattr(system, "WriteSystemMatrices"):
        raise ParameterError("item", item, "must be a FlexibleLink or a ChSystem")
    saved = None
    if link is not None:            # K and R differenced at this very state
        saved, link.jacobian = link.jacobian, "iteration"
    try:
        M, K, R, Cq = system_matrices(system, damping=True)
    finally:
        if saved is not None:
            link.jacobian = saved
    n = M.shape[0]
    if link is not None:
        T, states, inputs, Bv, outputs, C = _link_model(link, M, Cq, inputs, outputs)
        condensed = 0
    else:
        ins = _vectors("inputs", {} if inputs is None else inputs, n)
        outs = _vectors("outputs", {} if outputs is None else outputs, n)
        T, condensed = free_basis(M, K, Cq, R)
        r = T.shape[1]
        states = [f"xi{k + 1}" for k in range(r)] + [f"xi{k + 1}_dot" for k in range(r)]
        inputs, outputs = list(ins), list(outs)
        Bv = np.column_stack([ins[u] for u in inputs]) if inputs else np.zeros((n, 0))
        C = np.array([np.concatenate([outs[y] @ T, np.zeros(r)]) for y in outputs]
                     ).reshape(len(outputs), 2 * r)
    if equilibrium:
        _check_equilibrium(system, link, T, _forces(system, n), Bv, "item")
    Mr, Kr, Rr = (T.T @ X @ T for X in (M, K, R))
    r = T.shape[1]
    A = np.zeros((2 * r, 2 * r))
    A[:r, r:] = np.eye(r)
    A[r:, :r] = -np.linalg.solve(Mr, Kr)
    A[r:, r:] = -np.linalg.solve(Mr, Rr)
    B = np.zeros((2 * r, Bv.shape[1]))
    B[r:] = np.linalg.solve(Mr, T.T @ Bv)
    info = dict(mass_matrix=Mr, stiffness=Kr, damping=Rr, basis=T, n_coordinates=n,
                n_constraints=Cq.shape[0], n_condensed=condensed,
                source="Chrono's M, K, R, Cq (WriteSystemMatrices)")
    return LinearModel(A, B, C, np.zeros((C.shape[0], B.shape[1])), states, inputs,
                       outputs, info)


__all__ = ["body_rotation_row", "linearize"]
