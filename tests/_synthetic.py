"""Synthetic :class:`~chrono_flex.result.Result` objects with known geometry, for the
plotting and visualisation tests (no engine needed).

A two-link arm whose links bend in the static cantilever shape of a tip load,

    w_i(x, t) = a_i(t) x^2 (3 L_i - x) / (2 L_i^3),   a_i(t) = A_i sin(pi t / t_end),

so the tip deflection of link i is exactly a_i(t) (zero at both ends of the run, largest
at mid-run), its slope at the tip is 3 a_i / (2 L_i) and its curvature
w'' = 3 a_i (L_i - x) / L_i^3. Joint j turns at the constant rate ``joint_rates[j]``.
Link 2 is clamped to the deformed tip of link 1, tangent to it; ``centerline_rigid`` is the
same arm with every a_i = 0. Positive A_i bend a link towards its own +y side (to the
left of the link seen from its root), which for zero joint rates is the plane's +Y.
"""

import numpy as np

from chrono_flex.planar.params import Plane
from chrono_flex.result import Energy, Result


def cantilever_shape(x, length):
    """Static tip-load shape normalised to unit tip deflection, its slope and curvature."""
    w = x**2 * (3 * length - x) / (2 * length**3)
    dw = 3 * x * (2 * length - x) / (2 * length**3)
    ddw = 3 * (length - x) / length**3
    return w, dw, ddw


def two_link_result(nt=41, ns=21, t_end=1.0, lengths=(1.0, 0.8), amplitudes=(0.02, 0.01),
                    joint_rates=(0.6, -0.4), thickness=(0.02, 0.015), plane=None,
                    energy=True, torque=True):
    """A two-link arm (see the module docstring) as a Result with every field filled.

    ``amplitudes`` are the peak tip deflections A_i (m); ``plane`` defaults to XY.
    """
    plane = Plane() if plane is None else plane
    t = np.linspace(0.0, t_end, nt)
    s = np.sin(np.pi * t / t_end)
    lengths = np.asarray(lengths, float)
    a = np.asarray(amplitudes, float)[None, :] * s[:, None]                # (nt, nl)
    theta = np.asarray(joint_rates, float)[None, :] * t[:, None]           # (nt, nj)
    nl = len(lengths)

    planar = np.zeros((nt, nl, ns, 2))
    planar_rigid = np.zeros((nt, nl, ns, 2))
    curvature = np.zeros((nt, nl, ns))
    root = np.zeros((nt, 2))
    root_rigid = np.zeros((nt, 2))
    psi = np.zeros(nt)             # absolute angle of the root tangent of the current link
    psi_rigid = np.zeros(nt)
    for i, length in enumerate(lengths):
        x = np.linspace(0.0, length, ns)
        w, dw, ddw = cantilever_shape(x, length)
        psi = psi + theta[:, i]
        psi_rigid = psi_rigid + theta[:, i]
        for pts, r, ang, amp in ((planar, root, psi, a[:, i]),
                                 (planar_rigid, root_rigid, psi_rigid, np.zeros(nt))):
            c, sn = np.cos(ang)[:, None], np.sin(ang)[:, None]
            wl = amp[:, None] * w[None, :]                                  # (nt, ns)
            pts[:, i, :, 0] = r[:, :1] + c * x[None, :] - sn * wl
            pts[:, i, :, 1] = r[:, 1:] + sn * x[None, :] + c * wl
        curvature[:, i, :] = a[:, i, None] * ddw[None, :]
        root = planar[:, i, -1, :].copy()
        root_rigid = planar_rigid[:, i, -1, :].copy()
        psi = psi + a[:, i] * dw[-1]          # the next link is clamped tangent to this tip

    nq = 2 * nl
    q = np.zeros((nt, nq))
    q[:, 0::2] = theta
    q[:, 1::2] = a
    qd = np.gradient(q, t, axis=0)
    en = None
    if energy:
        kinetic = 0.5 * (1.0 + np.sum(theta, axis=1) ** 2) * 0.1
        elastic = 3.0 * np.sum(a**2, axis=1)
        gravity = np.zeros(nt)
        dissipated = 1e-3 * t
        input_work = kinetic + elastic - kinetic[0] - elastic[0] + dissipated + 1e-9 * t
        en = Energy(kinetic, elastic, gravity, input_work, dissipated)
    return Result(
        t=t, q=q, qd=qd, joint_angles=theta, joint_rates=np.gradient(theta, t, axis=0),
        tip_position=planar[:, -1, -1, :], tip_deflection=a, energy=en,
        joint_torque=np.column_stack([np.cos(3 * t), 0.5 * np.sin(2 * t)]) if torque else None,
        centerline=plane.to_world(planar), centerline_rigid=plane.to_world(planar_rigid),
        curvature=curvature, plane=plane, link_thickness=np.asarray(thickness, float),
        info={"engine": "synthetic", "case": "two_link_cantilever"},
    )


#: A plane that is not XY: tilted about X by 60 degrees and shifted (x_axis, y_axis unit).
TILTED_PLANE = Plane(origin=(0.3, -0.2, 0.5), x_axis=(1.0, 0.0, 0.0),
                     y_axis=(0.0, np.cos(np.pi / 3), np.sin(np.pi / 3)))
