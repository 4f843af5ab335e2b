"""[B]'s extended assembly: M against an independent kinetic energy, the element index
maps, and the two equation forms against each other."""

import math

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.planar.shapes import hermite_functions
from chrono_flex.validation.cases.formulations import two_link_arm

rng = np.random.default_rng(12345)


# [B]'s hand assembly of the 10x10 M (n1 = n2 = 1) is the validation case
# formulations.hand-assembly; the extended assembly against the virtual-power quadrature
# J^T m J is formulations.assembly-vs-quadrature (both run by
# tests/validation/test_validation.py).


def _independent_kinetic_energy(arm, q, qd, n_gauss=6):
    """1/2 int rho A |r_dot|^2 + payload, with positions written out directly for a chain
    of revolute Hermite links and velocities by central differences along q + s qd."""
    def positions(qq):
        pts, ws, p, ang = [], [], np.zeros(2), 0.0
        k = 0
        g, gw = np.polynomial.legendre.leggauss(n_gauss)
        for lk in arm.links:
            th = qq[k]
            e = np.concatenate([[0.0, 0.0], qq[k + 1:k + 1 + 2 * lk.n_elements]])
            k += 1 + 2 * lk.n_elements
            psi = ang + th
            R = np.array([[math.cos(psi), -math.sin(psi)], [math.sin(psi), math.cos(psi)]])
            l = lk.length / lk.n_elements
            for j in range(lk.n_elements):
                xi = (g + 1) / 2
                H = hermite_functions(xi, l)[0]
                w = H @ e[2 * j:2 * j + 4]
                x = (j + xi) * l
                pts.append(p + (R @ np.vstack([x, w])).T)
                ws.append(lk.rho_A * gw * l / 2)
            tip_w, tip_slope = e[-2], e[-1]
            p = p + R @ np.array([lk.length, tip_w])
            ang = psi + tip_slope
        pts.append(p[None, :])
        ws.append(np.array([arm.payload.mass]))
        return np.vstack(pts), np.concatenate(ws)

    h = 1e-6
    rp, w = positions(q + h * qd)
    rm, _ = positions(q - h * qd)
    v = (rp - rm) / (2 * h)
    return 0.5 * np.sum(w * np.sum(v * v, axis=1))


@pytest.mark.parametrize("n1,n2", [(1, 1), (2, 2), (3, 1)])
def test_mass_matrix_equals_independent_kinetic_energy(n1, n2):
    arm = two_link_arm(n1, n2)
    for _ in range(3):
        q = rng.normal(size=arm.nq) * 0.3
        qd = rng.normal(size=arm.nq)
        T = 0.5 * qd @ arm.mass_matrix(q) @ qd
        # central differences with h = 1e-6: truncation O(h^2 |r'''|) ~ 1e-12, rounding
        # ~ eps/h ~ 1e-10 relative: 1e-8 relative is safe and still far below any real error
        assert T == pytest.approx(_independent_kinetic_energy(arm, q, qd), rel=1e-8)


def test_element_index_maps_cover_exactly_the_dependencies():
    # J of an element's points is zero outside its index map (checked numerically), and
    # the 8x8 maps of link 2 hold theta1, link 1's tip dofs and theta2
    # (docs/planar-link.md eq. (3.2))
    arm = two_link_arm(2, 2)
    asm = arm.assembly
    q_ext = asm.expand(rng.normal(size=arm.nq) * 0.3)
    for m, Me in asm.element_matrices(q_ext):
        if m.item is not None:
            continue
        full = np.zeros((asm.ext.nq, asm.ext.nq))
        np.add.at(full, (m.index_map[:, None], m.index_map[None, :]), Me)
        if m.link == 1:
            assert m.index_map[:4].tolist() == [0, 5, 6, 7]   # theta1, u5, u6, theta2
            assert Me.shape == (8, 8)
        else:
            assert Me.shape == (5, 5)
        assert np.all(np.diag(Me) > 0) or m.link == 0


@pytest.mark.parametrize("joints", [
    [cf.RevoluteJoint(), cf.RevoluteJoint()],
    [cf.RevoluteJoint(hub_inertia=0.1), cf.RevoluteJoint(hub_mass=0.3, hub_inertia=0.01)],
    [cf.PrismaticJoint(slider_mass=0.5), cf.RevoluteJoint()],
])
@pytest.mark.parametrize("gravity", [0.0, 9.81])
def test_two_equation_forms_agree_to_round_off(joints, gravity):
    links = [cf.Link(1.0, 2, EI=1.3, rho_A=0.196, damping_beta=0.01),
             cf.Link(0.5, 3, EI=1.1, rho_A=0.2, damping_alpha=0.1)]
    arm = cf.PlanarArm(links, joints=joints, payload=cf.Payload(0.15, 0.002), gravity=gravity)
    for _ in range(5):
        q = rng.normal(size=arm.nq) * 0.5
        qd = rng.normal(size=arm.nq) * 2
        Q = rng.normal(size=arm.nq)
        M1, f1 = arm.forcing(0.0, q, qd, Q, form="virtual_power")
        M2, f2 = arm.forcing(0.0, q, qd, Q, form="lagrange")
        # complex-step derivatives are exact to round-off; the residual is rounding in
        # sums of ~nq^2 terms of size max|f|: 1e-12 relative
        scale = np.max(np.abs(f1))
        np.testing.assert_allclose(f1, f2, atol=1e-12 * scale)
        np.testing.assert_allclose(M1, M2, atol=1e-13 * np.max(np.abs(M1)))


def test_assumed_modes_links_run_through_the_same_equations():
    links = [cf.Link(1.0, EI=1.3, rho_A=0.196, basis="modes", n_modes=3),
             cf.Link(0.5, EI=1.1, rho_A=0.2, basis="power", power_exponents=(1.6, 2.4))]
    arm = cf.PlanarArm(links, payload=cf.Payload(0.1), gravity=9.81)
    q, qd = rng.normal(size=arm.nq) * 0.3, rng.normal(size=arm.nq)
    M1, f1 = arm.forcing(0, q, qd, form="virtual_power")
    M2, f2 = arm.forcing(0, q, qd, form="lagrange")
    np.testing.assert_allclose(f1, f2, atol=1e-12 * np.max(np.abs(f1)))   # as above
    assert arm.nq == 1 + 3 + 1 + 2
