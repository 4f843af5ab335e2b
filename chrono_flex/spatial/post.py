"""From states to a Result for the spatial arm (the planar arm's post.py, in space).

``tip_position`` is the last link's tip in space (nt, 3); ``tip_deflection`` the
transverse tip deflection sqrt(v(L)^2 + w(L)^2) of each link in its frame (nt, nl);
``extra["tip_vw_phi"]`` holds v(L), w(L), phi(L) of each link (nt, nl, 3);
``curvature`` the bending curvature sqrt(v''^2 + w''^2).
"""

import numpy as np

from ..errors import ParameterError
from ..result import Energy, Result
from . import equations as mdl
from .kernels import packed_model, tree_forces


def spatial_result(arm, t, Q, QD, torques, w_in, w_diss, n_samples, info=None, extra=None):
    """A :class:`~chrono_flex.result.Result` of a SpatialArm from sampled states
    (``extra``: further (nt, ...) series, the drives' states)."""
    m = arm.model
    nt, nl = t.size, len(m.links)
    kin_e, el_e, gr_e = np.empty(nt), np.empty(nt), np.empty(nt)
    tip = np.empty((nt, 3))
    vwp = np.empty((nt, nl, 3))
    cl = np.empty((nt, nl, n_samples, 3))
    clr = np.empty_like(cl)
    curv = np.empty((nt, nl, n_samples))
    last = m.links[-1]
    packed = packed_model(m)
    for k in range(nt):
        q, qd = Q[k], QD[k]
        if packed is None:
            kin_e[k] = mdl.kinetic_energy(m, q, qd)
        else:                    # T = 1/2 q_d . M q_d by the compiled force-only pass
            kin_e[k] = 0.5 * qd @ tree_forces(packed, q, qd, m.g_vec, False, qd)[0]
        el_e[k] = mdl.elastic_potential(m, q)
        gr_e[k] = mdl.gravity_potential(m, q)
        tip[k] = mdl.tip_frames(m, q)[last].p
        vwp[k] = mdl.tip_coordinates(m, q)
        cl[k], curv[k] = mdl.centerlines(m, q, n_samples)
        clr[k] = mdl.centerlines(m, q, n_samples, rigid=True)[0]
    ji = arm.joint_index
    info, model = dict(info or {}), None
    try:
        model = arm.to_dict()
    except ParameterError as exc:
        info["model"] = f"not stored: {exc}"
    return Result(t=t, q=Q, qd=QD, joint_angles=Q[:, ji].copy(), joint_rates=QD[:, ji].copy(),
                  tip_position=tip, tip_deflection=np.hypot(vwp[..., 0], vwp[..., 1]),
                  energy=Energy(kin_e, el_e, gr_e, w_in, w_diss), joint_torque=torques,
                  centerline=cl, centerline_rigid=clr, curvature=curv,
                  plane=None, link_thickness=np.array([m.bodies[i].thickness for i in m.links]),
                  extra={"tip_vw_phi": vwp, **(extra or {})}, info=info, model=model)


def deflection_ratio(arm, q):
    """max over links of sqrt(v(L)^2 + w(L)^2) / L (the stepping loop's guard)."""
    m = arm.model
    d = mdl.tip_coordinates(m, q)
    L = np.array([m.bodies[i].length for i in m.links])
    return float(np.max(np.hypot(d[:, 0], d[:, 1]) / L))


__all__ = ["deflection_ratio", "spatial_result"]
