"""The post-processing over a whole series of states (``equations.*_series``, used by
``post.arm_result``) against the per-state functions it replaces.

Both evaluate the same formulas, one vectorised over time, so they agree to round-off:
1e-12 relative (about 1e4 machine epsilons) covers the reassociated sums.
"""

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.planar import equations as mdl
from chrono_flex.planar.post import arm_result

ROUND_OFF = 1e-12


def chain():
    """Revolute, prismatic and offset revolute joints; hub masses and inertias; payload."""
    links = [cf.Link(0.7, 3, EI=20.0, rho_A=0.5), cf.Link(0.5, 2, EI=10.0, rho_A=0.3),
             cf.Link(0.4, 2, EI=8.0, rho_A=0.3)]
    joints = [cf.RevoluteJoint(hub_inertia=0.01, hub_mass=0.2),
              cf.PrismaticJoint(axis_angle=0.3, link_angle=0.2),
              cf.RevoluteJoint(angle_offset=0.1, hub_mass=0.1)]
    return cf.PlanarArm(links, joints=joints, payload=cf.Payload(0.3, 0.01), gravity=9.81)


def close(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.abs(a - b).max() <= ROUND_OFF * max(1.0, np.abs(b).max())


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_series_equal_the_per_state_functions(backend, monkeypatch):
    """Kinetic energies come from the compiled kernel or, without it, from numpy."""
    monkeypatch.setenv("CHRONO_FLEX_KERNELS", backend)
    arm = chain()
    m = arm.model
    rng = np.random.default_rng(3)
    nt, ns = 6, 9
    Q, QD = rng.normal(size=(nt, m.nq)) * 0.3, rng.normal(size=(nt, m.nq))
    res = arm_result(arm, np.arange(nt, dtype=float), Q, QD, np.zeros((nt, 3)),
                     np.zeros(nt), np.zeros(nt), ns)
    for k in range(nt):
        q, qd = Q[k], QD[k]
        assert close(res.energy.kinetic[k], mdl.kinetic_energy(m, q, qd))
        assert close(res.energy.elastic[k], mdl.elastic_potential(m, q))
        assert close(res.energy.gravity[k], mdl.gravity_potential(m, q))
        assert close(res.tip_position[k], mdl.tip_state(m, q)[0])
        assert close(res.tip_deflection[k], mdl.tip_deflections(m, q))
        pts, curv = mdl.centerlines(m, q, ns)
        assert close(res.centerline[k], arm.plane.to_world(pts))
        assert close(res.curvature[k], curv)
        rigid = mdl.centerlines(m, q, ns, rigid=True)[0]
        assert close(res.centerline_rigid[k], arm.plane.to_world(rigid))


def test_root_motion_series_equals_the_chain_frames():
    """The stiffening rule's series (root angle, rate, convective acceleration, root
    axial force) against kinematics.chain_frames state by state, through a prismatic
    joint."""
    from chrono_flex.planar import kinematics as kin

    arm = chain()
    m = arm.model
    rng = np.random.default_rng(5)
    nt = 5
    Q, QD = rng.normal(size=(nt, m.nq)) * 0.3, rng.normal(size=(nt, m.nq))
    series = mdl.root_motion_series(m, Q, QD)
    for k in range(nt):
        roots, _ = kin.chain_frames(m.layout, Q[k], QD[k])
        for i, (r, s) in enumerate(zip(roots, series)):
            assert close(s.psi[k], r.psi) and close(s.psid[k], r.psid)
            assert close(s.ap[:, k], r.ap)
            assert close(mdl.axial_force(m, i, s, 0.0)[k], mdl.axial_force(m, i, r, 0.0))


def test_gravity_potential_series_of_a_varying_section():
    """A link whose rho_A varies along it: the series weighs the points with rho_A(x_p)
    as the per-state function does (the point sums are taken once per link)."""
    arm = cf.PlanarArm([cf.Link(0.7, 3, EI=20.0, rho_A=lambda x: 0.5 + x),
                        cf.Link(0.5, 4, EI=10.0, rho_A=0.3)], payload=cf.Payload(0.2),
                       gravity=9.81)
    Q = np.random.default_rng(4).normal(size=(5, arm.nq)) * 0.3
    V = mdl.gravity_potential_series(arm.model, Q)
    assert close(V, [mdl.gravity_potential(arm.model, q) for q in Q])
