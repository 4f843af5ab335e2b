"""From states to a Result: the post-processing every engine of the planar arm shares.

An engine that integrates the arm's generalized coordinates q (the reference engine,
the custom Chrono element, and Chrono's beams once their nodes are projected onto the
arm's coordinates) hands its samples of q, q_d, the joint torques and the work sums to
:func:`arm_result`; energies, tip position and deflections, and the deformed and rigid
centrelines then come from the same functions of :mod:`chrono_flex.planar.equations`,
so two engines differ only where their states differ.
"""

import numpy as np

from .. import _checks as ck
from . import equations as mdl
from .stiffening import check_stiffening
from ..errors import ParameterError
from ..result import Energy, Result


def arm_result(arm, t, Q, QD, torques, w_in, w_diss, n_samples, extra=None, info=None):
    """A :class:`~chrono_flex.result.Result` of ``arm`` from sampled states.

    Args:
        arm: the :class:`~chrono_flex.planar.arm.PlanarArm`.
        t: (nt,) times, s. Q, QD: (nt, nq) generalized coordinates and rates.
        torques: (nt, nj) joint torques (N m) or forces (N).
        w_in, w_diss: (nt,) input work and dissipated energy since t0, J.
        n_samples: centreline samples per link.
        extra: dict of further (nt, ...) series; info: dict for ``Result.info``.
    """
    m = arm.model
    Q, QD = np.asarray(Q, dtype=float), np.asarray(QD, dtype=float)
    kin_e = mdl.kinetic_energy_series(m, Q, QD)
    el_e = 0.5 * np.einsum("ti,ij,tj->t", Q, m.K, Q)
    gr_e = mdl.gravity_potential_series(m, Q)
    tip = mdl.frames_series(m, Q)[1][-1][0]
    defl = Q @ mdl.tip_rows(m).T
    pts, curv = mdl.centerlines_series(m, Q, n_samples)
    cl = arm.plane.to_world(pts)
    clr = arm.plane.to_world(mdl.centerlines_series(m, Q, n_samples, rigid=True)[0])
    model, info = describe(arm, info)
    info["stiffening"] = check_stiffening(arm, t, Q, QD)
    ji = arm.joint_index
    return Result(t=t, q=Q, qd=QD, joint_angles=Q[:, ji].copy(),
                  joint_rates=QD[:, ji].copy(), tip_position=tip, tip_deflection=defl,
                  energy=Energy(kin_e, el_e, gr_e, w_in, w_diss), joint_torque=torques,
                  centerline=cl, centerline_rigid=clr, curvature=curv, plane=arm.plane,
                  link_thickness=np.array([lk.thickness for lk in arm.links]),
                  extra=extra or {}, info=info, model=model)


def coordinate_units(arm):
    """The unit of each generalized coordinate of ``arm`` (nq,): a joint's rad (m if
    prismatic); Hermite elements' nodal displacement (m) and slope (rad) in turn; the
    amplitude of a shape normalised to 1 at the tip (modes, power shapes), m."""
    from .params import PrismaticJoint

    units = [""] * arm.nq
    for ll, link in zip(arm.model.layout.links, arm.links):
        units[ll.joint_index] = "m" if isinstance(ll.joint, PrismaticJoint) else "rad"
        for k, i in enumerate(ll.elastic_index):
            units[int(i)] = ("m", "rad")[k % 2] if link.basis == "fem" else "m"
    return units


def describe(arm, info=None):
    """(``arm.to_dict()``, a copy of ``info``) for a Result; where the arm cannot be
    described as data (a drive other than GearDrive) the model is None and
    ``info["model"]`` says why. ``info`` gets the units of the coordinates
    (``"coordinate_units"``, see :func:`coordinate_units`) and of the drives' states
    (``"extra_units"``), for the unit row of the CSV file."""
    info = dict(info or {})
    info["coordinate_units"] = coordinate_units(arm)
    info["extra_units"] = {f"drive{j + 1}_states": list(d.state_units)
                           for j, d in arm.drives.items() if hasattr(d, "state_units")}
    try:
        return arm.to_dict(), info
    except ParameterError as exc:
        info["model"] = f"not stored: {exc}"
        return None, info


#: ``n_samples`` centreline points per link: a whole number >= 2 (both ends).
check_n_samples = ck.n_samples


def _tip_ratio_rows(m):
    if getattr(m, "_tip_ratio_rows", None) is None:
        m._tip_ratio_rows = mdl.tip_rows(m) / np.array([lk.length for lk in m.links])[:, None]
    return m._tip_ratio_rows


def deflection_ratio(arm, q):
    """max_i |tip deflection of link i| / L_i at coordinates q (the loop's guard)."""
    return float(np.abs(_tip_ratio_rows(arm.model) @ q).max())


def deflection_ratios(arm, Q):
    """:func:`deflection_ratio` at every row of Q (nt, nq): an array (nt,)."""
    return np.abs(np.asarray(Q) @ _tip_ratio_rows(arm.model).T).max(axis=1)


__all__ = ["arm_result", "check_n_samples", "deflection_ratio", "deflection_ratios",
           "describe"]
