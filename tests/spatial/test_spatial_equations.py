"""The spatial link's equations: Jacobians against complex-step derivatives of the
positions and rotations, the convective terms against Lagrange's equations, the extended
assembly against the quadrature, energy along a free motion, and bad inputs."""

import math

import numpy as np
import pytest
from _arms import skew_tree_joints

from chrono_flex.errors import ParameterError
from chrono_flex.spatial import equations as mdl
from chrono_flex.spatial import kinematics as kin
from chrono_flex.spatial import params as sp
from chrono_flex.spatial.arm import SpatialArm
from chrono_flex.spatial.elements import element_mass, element_stiffness

H = 1e-30            # complex step: derivatives exact to round-off (Squire & Trapp 1998)
rng = np.random.default_rng(2026)


def tree_arm(gravity=(0.0, 0.0, -9.81), n=2):
    """A hub turning about z carrying a link on a skew revolute joint (with offset, rotor
    and hub mass), a link on a skew prismatic joint at its tip, a payload, and a second
    link on the hub turned by 180 degrees about z on a revolute joint about x."""
    l1 = sp.SpatialLink(1.0, n, EI_y=3.0, EI_z=2.0, GJ=1.0, rho_A=0.5, rho_Ip=2e-2)
    l2 = sp.SpatialLink(0.7, n, EI_y=1.0, EI_z=2.0, GJ=0.5, rho_A=0.4, rho_Ip=1e-2)
    bodies = [sp.RigidBody(1.0, (0.1, 0.2, 0.3)), l1, l2, sp.RigidBody(0.2, (0.01, 0.02, 0.03)), l2]
    joints = skew_tree_joints()
    return SpatialArm(bodies, joints, parents=[-1, 0, 1, 2, 0], gravity=gravity)


def _vee(S):
    return np.array([S[2, 1], S[0, 2], S[1, 0]])


def test_jacobians_are_derivatives_of_positions_and_rotations():
    """J = dr/dq of material points and tip frames, and [Jw e_k]x = (dR/dq_k) R^T."""
    arm = tree_arm()
    m = arm.model
    q = 0.3 * rng.normal(size=arm.nq)
    zero = np.zeros(arm.nq)
    ev = mdl.evaluate(m, q, zero)
    _, attach = kin.tree_frames(m.layout, q, zero)
    for k in range(arm.nq):
        qc = q.astype(complex)
        qc[k] += 1j * H
        evc = mdl.evaluate(m, qc, zero)
        _, attc = kin.tree_frames(m.layout, qc, zero)
        for i in m.links:
            np.testing.assert_allclose(evc.r[i].imag / H, ev.J[i][:, :, k], atol=1e-13)
        for f, fc in zip(attach, attc):
            np.testing.assert_allclose(fc.p.imag / H, f.Jp[:, k], atol=1e-13)
            np.testing.assert_allclose(_vee((fc.R.imag / H) @ f.R.T), f.Jw[:, k], atol=1e-13)


def test_convective_terms_are_lagranges():
    """h = M_dot q_d - 1/2 d(q_d^T M q_d)/dq and Q_g = -dV_g/dq on the tree with skew
    axes (complex step on M(q) and V_g: the two sides agree to round-off)."""
    arm = tree_arm()
    m = arm.model
    q, qd = 0.2 * rng.normal(size=arm.nq), rng.normal(size=arm.nq)
    M, h, Qg = mdl.terms(m, q, qd)
    zero = np.zeros(arm.nq)
    mass = lambda qq: mdl.terms(m, qq, zero)[0]                          # noqa: E731
    Mdot = mass(q + 1j * H * qd).imag / H
    eye = np.eye(arm.nq)
    dT = np.array([(qd @ mass(q + 1j * H * eye[k]) @ qd).imag / H for k in range(arm.nq)])
    dV = np.array([mdl.gravity_potential(m, q + 1j * H * eye[k]).imag / H
                   for k in range(arm.nq)])
    # round-off: sums of ~1e3 products of O(1) terms
    assert np.max(np.abs(h - (Mdot @ qd - 0.5 * dT))) < 1e-12 * np.max(np.abs(h))
    assert np.max(np.abs(Qg + dV)) < 1e-12 * np.max(np.abs(Qg))
    assert np.allclose(M, M.T, rtol=0, atol=1e-14) and np.linalg.eigvalsh(M).min() > 0


def test_extended_assembly_equals_the_quadrature():
    arm = tree_arm()
    q = 0.3 * rng.normal(size=arm.nq)
    Ma, Mv = arm.mass_matrix(q), arm.mass_matrix(q, method="virtual_power")
    assert np.max(np.abs(Ma - Mv)) < 1e-14 * np.max(np.abs(Mv))     # round-off
    np.testing.assert_array_equal(arm.assembly.stiffness_matrix(), arm.stiffness_matrix())
    # index maps: a link-2 element carries the hub joint, link 1's joint and tip node,
    # its own prismatic joint and its ten nodal dofs; its slider mass all but the nodes
    sizes = {(em.element >= 0, len(em.index_map)) for em, _ in arm.element_matrices(q)
             if em.body == 2}
    assert sizes == {(True, 1 + 1 + 5 + 1 + 10), (False, 1 + 1 + 5 + 1)}


def test_element_matrices():
    lk = sp.SpatialLink(1.0, 1, EI_y=3.0, EI_z=2.0, GJ=1.5, rho_A=0.5, rho_Ip=0.1)
    K, M = element_stiffness(lk, 0.5), element_mass(lk, 0.5)
    for A in (K, M):
        np.testing.assert_array_equal(A, A.T)
    # rigid motions of the element carry no strain energy: a translation v = w = 1,
    # a rotation v = x, w = x (slopes 1) and a uniform twist
    for mode in ([1, 0, 1, 0, 0] * 2, [0, 1, 0, 1, 0, 0.5, 1, 0.5, 1, 0], [0, 0, 0, 0, 1] * 2):
        assert np.max(np.abs(K @ np.array(mode, float))) < 1e-13
    # total mass of a translation in y and polar inertia of a uniform twist
    ty, tw = np.array([1, 0, 0, 0, 0] * 2, float), np.array([0, 0, 0, 0, 1] * 2, float)
    assert math.isclose(ty @ M @ ty, 0.5 * 0.5, rel_tol=1e-14)
    assert math.isclose(tw @ M @ tw, 0.1 * 0.5, rel_tol=1e-14)


def test_energy_is_conserved_in_a_free_spatial_motion():
    """Gravity-driven free motion of the tree from a spun-up start: the energy balance
    drifts only by the integrator's error (Radau, rtol 1e-6: a relative drift below
    1e-3 over 0.1 s is 1000 rtol; an inconsistent term would show at O(1))."""
    arm = tree_arm(n=1)
    qd0 = np.zeros(arm.nq)
    qd0[arm.joint_index] = [1.0, -0.5, 0.2, 0.8]
    res = arm.simulate(0.1, qd0=qd0, dt_out=0.05, method="Radau", rtol=1e-6, atol=1e-9, progress=False)
    E = res.energy
    scale = np.max(E.kinetic) + np.max(np.abs(E.gravity - E.gravity[0])) + np.max(E.elastic)
    assert np.max(np.abs(E.balance_error)) < 1e-3 * scale
    assert res.tip_position.shape == (res.t.size, 3)
    assert res.centerline.shape == (res.t.size, 3, 21, 3)
    assert np.max(E.elastic) > 0                 # the links did bend


def test_planar_geometric_stiffening_raises_a_spinning_link_s_frequency():
    """The axial force of a link spinning about z: the stiffening term is -K_geo e with
    K_geo positive definite, so it pushes the deflection back (Kane, Ryan & Banerjee)."""
    lk = sp.SpatialLink(1.0, 3, EI_y=3.0, EI_z=2.0, GJ=1.0, rho_A=0.5, rho_Ip=1e-2)
    on = SpatialArm([lk], geometric_stiffening=True)
    off = SpatialArm([lk])
    q, qd = np.zeros(on.nq), np.zeros(on.nq)
    qd[on.joint_index] = 3.0
    e = on.elastic_indices(0)
    q[e[:, 0]] = q[e[:, 2]] = 1e-3 * np.arange(1, 4) ** 2          # bent in both planes
    df = on.forcing(0, q, qd)[1] - off.forcing(0, q, qd)[1]
    assert df @ q < 0


@pytest.mark.parametrize("make, name", [
    (lambda: sp.SpatialLink(1.0, 2, EI_y=1.0, EI_z=1.0, GJ=1.0, rho_A=1.0), "rho_Ip"),
    (lambda: sp.SpatialLink(1.0, 2, EI_y=-1.0, EI_z=1.0, GJ=1.0, rho_A=1.0, rho_Ip=1.0), "EI_y"),
    (lambda: sp.RevoluteJoint(axis=(0, 0, 0)), "axis"),
    (lambda: sp.FixedJoint(x_axis=(1, 0, 0), y_axis=(2, 0, 0)), "y_axis"),
    (lambda: sp.RigidBody(1.0, (1.0, -2.0, 1.0)), "inertia"),
    (lambda: SpatialArm([sp.RigidBody(1.0)]), "bodies"),
    (lambda: SpatialArm([sp.RigidBody(1.0), tree_arm().bodies[1]], parents=[-1, 1]), "parents[1]"),
    (lambda: SpatialArm([tree_arm().bodies[1]], joints=[sp.RevoluteJoint()] * 2), "joints"),
])
def test_bad_inputs_name_the_parameter(make, name):
    with pytest.raises(ParameterError) as err:
        make()
    assert err.value.parameter == name


def test_prescribed_motion_reproduces_the_planar_engine_s_torques():
    """The mixed problem (joints prescribed, elastic coordinates integrated, torques
    returned) of a planar arm built as a spatial one: same torques and deflections as the
    planar engine, to the integrators' error (Radau, rtol 1e-8: 1e-5 is 1000 rtol)."""
    from chrono_flex.validation.cases.spatial_link import _planar_pair

    planar, spatial, idx = _planar_pair(False, n=1, gravity=9.81)
    w = 2 * np.pi * 2.0

    def motion(t):
        s = 0.3 * (t - np.sin(w * t) / w)
        return ([s, 0.2 * s], [0.3 * (1 - np.cos(w * t)), 0.06 * (1 - np.cos(w * t))],
                [0.3 * w * np.sin(w * t), 0.06 * w * np.sin(w * t)])

    kw = dict(joint_motion=motion, dt_out=0.02, method="Radau", rtol=1e-8, atol=1e-11,
              progress=False)
    rp, rs = planar.simulate(0.2, **kw), spatial.simulate(0.2, **kw)
    scale = np.max(np.abs(rp.joint_torque))
    assert np.max(np.abs(rs.joint_torque - rp.joint_torque)) < 1e-5 * scale
    assert np.max(np.abs(rs.q[:, idx] - rp.q)) < 1e-5 * np.max(np.abs(rp.q))
    assert np.max(np.abs(rp.q[:, planar.elastic_index])) > 0       # the links bent
