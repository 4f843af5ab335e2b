"""From states to a Result for the spatial arm (the planar arm's post.py, in space).

``tip_position`` is the last link's tip in space (nt, 3); ``tip_deflection`` the
transverse tip deflection sqrt(v(L)^2 + w(L)^2) of each link in its frame (nt, nl);
``extra["tip_vw_phi"]`` holds v(L), w(L), phi(L) of each link (nt, nl, 3);
``curvature`` the bending curvature sqrt(v''^2 + w''^2).

The samples are processed together: the frames of all bodies at every sample (by the
compiled :func:`chrono_flex.spatial.kernels.tree_frames` where numba is the backend,
else :func:`chrono_flex.spatial.kinematics.tree_frames` sample by sample), then the
points r = p + R s(x) of the centrelines and of the quadrature (gravity's potential)
as array products over the samples (docs/spatial-link.md §1).
"""

import numpy as np

from ..errors import ParameterError
from ..result import Energy, Result
from . import equations as mdl
from . import kinematics as kin
from .kernels import packed_model, tree_frames
from .post_kernels import frames_only, quadratic_forms, station_shapes, stations


def frames(model, Q, QD=None):
    """(positions (nt, 2, nb, 3), rotations (nt, 2, nb, 3, 3), kinetic energies (nt,)
    or None without QD) of the root (index 0) and attachment (1) frames of every body
    at the rows of Q (nt, nq) (compiled without QD: the frames alone,
    :func:`chrono_flex.spatial.post_kernels.frames_only`)."""
    packed = packed_model(model)
    if packed is not None:
        if QD is None:
            return (*frames_only(packed, Q), None)
        return tree_frames(packed, Q, QD)
    T = None if QD is None else np.array([mdl.kinetic_energy(model, q, qd)
                                         for q, qd in zip(Q, QD)])
    nt, nb = Q.shape[0], len(model.bodies)
    pos, rot = np.empty((nt, 2, nb, 3)), np.empty((nt, 2, nb, 3, 3))
    for k, q in enumerate(Q):
        for f, fr in enumerate(kin.tree_frames(model.layout, q)):
            pos[k, f] = [x.p for x in fr]
            rot[k, f] = [x.R for x in fr]
    return pos, rot, T


def _points(pos, rot, i, x, Nv, Nw, E):
    """Points r = p + R [x, Nv e, Nw e] of link i at the abscissae x for the elastic
    coordinates E (nt, ne): (nt, len(x), 3)."""
    s = np.stack(np.broadcast_arrays(x[None, :], E @ Nv.T, E @ Nw.T), -1)
    return pos[:, 0, i, None, :] + s @ np.swapaxes(rot[:, 0, i], 1, 2)


def _shapes(model, i, n_samples):
    """The :func:`~chrono_flex.spatial.post_kernels.station_shapes` of link i's
    n_samples equally spaced stations, made once and kept on the model."""
    kept = model.__dict__.setdefault("_station_shapes", {})
    if (i, n_samples) not in kept:
        bl = model.layout.bodies[i]
        x = np.linspace(0.0, bl.basis.length, n_samples)
        Nv, _, d2Nv, Nw, _, d2Nw, _, _ = bl.basis.values(x)
        kept[i, n_samples] = station_shapes(x, Nv, Nw, d2Nv, d2Nw)
    return kept[i, n_samples]


def centerlines(model, Q, n_samples, pos, rot):
    """Centreline points (nt, n_links, ns, 3) and bending curvature (nt, n_links, ns) at
    the rows of Q, the frames (pos, rot) given (:func:`frames`; compiled by
    :func:`chrono_flex.spatial.post_kernels.stations` where numba is the backend)."""
    pts, curv = [], []
    compiled = packed_model(model) is not None
    for i in model.links:
        bl = model.layout.bodies[i]
        E = Q[:, bl.elastic_index]
        if compiled:
            p, c = stations(pos[:, 0, i], rot[:, 0, i], E, _shapes(model, i, n_samples))
        else:
            x = np.linspace(0.0, bl.basis.length, n_samples)
            Nv, _, d2Nv, Nw, _, d2Nw, _, _ = bl.basis.values(x)
            p, c = _points(pos, rot, i, x, Nv, Nw, E), np.hypot(E @ d2Nv.T, E @ d2Nw.T)
        pts.append(p)
        curv.append(c)
    return np.stack(pts, 1), np.stack(curv, 1)


def gravity_potentials(model, Q, pos, rot):
    """V_g = - sum rho_A g . r - sum m g . r_item at the rows of Q
    (:func:`chrono_flex.spatial.equations.gravity_potential`)."""
    g = model.g_vec
    V = np.zeros(Q.shape[0])
    if not np.any(g):
        return V
    for i in model.links:
        qu, bl = model.quad[i], model.layout.bodies[i]
        r = _points(pos, rot, i, qu.x, qu.Nv, qu.Nw, Q[:, bl.elastic_index])
        V -= (r @ g) @ qu.w_rho_A
    for it in model.items:
        if it.kind == "mass":
            V -= it.value * (pos[:, 0 if it.where == "root" else 1, it.body] @ g)
    return V


def tip_coordinates(model, Q):
    """(v(L), w(L), phi(L)) of each link in its own frame at the rows of Q,
    (nt, n_links, 3)."""
    out = []
    for i in model.links:
        bl = model.layout.bodies[i]
        Nv, _, _, Nw, _, _, Nphi, _ = bl.basis.tip_values
        E = Q[:, bl.elastic_index]
        out.append(np.stack([E @ Nv[0], E @ Nw[0], E @ Nphi[0]], -1))
    return np.stack(out, 1)


def coordinate_units(model):
    """The unit of each generalized coordinate (nq,): a revolute joint's rad, a
    prismatic joint's m; per node of a link's elements (docs/spatial-link.md §2) the
    deflections v, w in m and the slopes v', w' and the twist phi in rad."""
    units = [""] * model.layout.nq
    node = ("m", "rad", "m", "rad", "rad")          # v, v', w, w', phi
    for bl in model.layout.bodies:
        if bl.joint_index is not None:
            units[bl.joint_index] = "m" if bl.joint.kind == "prismatic" else "rad"
        for k, i in enumerate(bl.elastic_index):
            units[int(i)] = node[k % len(node)]
    return units


def spatial_result(arm, t, Q, QD, torques, w_in, w_diss, n_samples, info=None, extra=None):
    """A :class:`~chrono_flex.result.Result` of a SpatialArm from sampled states
    (``extra``: further (nt, ...) series, the drives' states)."""
    m = arm.model
    nt = t.size
    pos, rot, kin_e = frames(m, Q, QD)
    el_e = 0.5 * (quadratic_forms(Q, m.K) if packed_model(m) is not None
                  else np.einsum("ti,ij,tj->t", Q, m.K, Q))
    gr_e = gravity_potentials(m, Q, pos, rot)
    tip = pos[:, 1, m.links[-1]].copy()
    vwp = tip_coordinates(m, Q).reshape(nt, len(m.links), 3)
    cl, curv = centerlines(m, Q, n_samples, pos, rot)
    Qr = Q.copy()
    Qr[:, m.elastic_index] = 0.0
    clr = centerlines(m, Qr, n_samples, *frames(m, Qr)[:2])[0]
    ji = arm.joint_index
    info, model = dict(info or {}), None
    info.setdefault("coordinate_units", coordinate_units(m))
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
    return float(deflection_ratios(arm, np.asarray(q)[None, :])[0])


def deflection_ratios(arm, Q):
    """:func:`deflection_ratio` at the rows of Q (nt, nq)."""
    m = arm.model
    d = tip_coordinates(m, Q)
    L = np.array([m.bodies[i].length for i in m.links])
    return np.max(np.hypot(d[..., 0], d[..., 1]) / L, axis=1)


__all__ = ["centerlines", "deflection_ratio", "deflection_ratios", "frames",
           "gravity_potentials", "spatial_result", "tip_coordinates"]
