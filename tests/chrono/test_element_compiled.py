"""The custom element's compiled load (chrono_flex.planar.load_kernels) against its
array path (FlexibleLink._load_terms and the Python loop of compute_jacobian): forces,
mass matrix, K and R, and the welds' matrices, on the slider-crank (a moving parent and
a welded body) and on a grounded arm with a weld, at a perturbed state."""

import numpy as np
import pytest

from chrono_flex.planar import kernels

pytestmark = [pytest.mark.pychrono,
              pytest.mark.skipif(kernels.backend() != "numba",
                                 reason="the compiled path needs the numba backend")]


class _Jac:
    """Stands in for the load's Jacobians: records K, R, M as arrays."""

    def __init__(self, chrono):
        self.K = self.R = self.M = None


class _Load:
    def __init__(self, jac):
        self.jac = jac

    def GetJacobians(self):
        return self.jac


def _states(link, rng):
    """Chrono's x, w of the load now, with every coordinate moved a little (so the welds
    are open and the arm is off its rest state)."""
    from chrono_flex.chrono.attachment import body_state
    from chrono_flex.chrono.system import matrix_to_quat

    parts_x, parts_w = [], []
    if link._moving:
        p, A, v, om = body_state(link.parent_body)
        parts_x += [p, matrix_to_quat(A)]
        parts_w += [v, om]
    parts_x.append(link.q() + 1e-3 * rng.normal(size=link.nq))
    parts_w.append(link.qd() + 0.1 * rng.normal(size=link.nq))
    for b in link._bodies:
        p, A, v, om = body_state(b)
        parts_x += [p + 1e-4 * rng.normal(size=3), matrix_to_quat(A)]
        parts_w += [v + 0.01 * rng.normal(size=3), om + 0.01 * rng.normal(size=3)]
    x = np.concatenate([np.asarray(a, dtype=float) for a in parts_x])
    w = np.concatenate([np.asarray(a, dtype=float) for a in parts_w])
    return x, w


def _grounded_with_weld(chrono):
    import chrono_flex as cf
    from chrono_flex.chrono import FlexibleLink, configure_system

    system = chrono.ChSystemNSC()
    configure_system(system)
    arm = cf.PlanarArm([cf.Link(length=0.5, n_elements=3, EI=5.0, rho_A=0.5),
                        cf.Link(length=0.4, n_elements=2, EI=3.0, rho_A=0.4)])
    link = FlexibleLink(system, arm, joint_angles0=[0.3, -0.4])
    body = chrono.ChBody()
    body.SetMass(0.1)
    body.SetInertiaXX(chrono.ChVector3d(1e-4, 1e-4, 1e-4))
    system.Add(body)
    tip, R = link._tip_pose()
    body.SetPos(chrono.ChVector3d(*tip))
    link.attach(body, damping_ratio=0.1)
    return link


def _slider_crank(chrono):
    from chrono_flex.chrono import scenes

    return scenes.SliderCrank().link


@pytest.mark.parametrize("build", [_slider_crank, _grounded_with_weld])
def test_compiled_load_matches_the_array_path(chrono, build):
    link = build(chrono)
    pack = link._compiled_load()
    assert pack is not None
    rng = np.random.default_rng(3)
    x, w = _states(link, rng)
    Q = link._joint_forces_at(x, w)
    M_c, f_c = link._kernels.load_forces(pack, x, w, Q, link._gravity)
    link._load_pack = None                  # the array path
    M_a, f_a, _ = link._load_terms(x, w)
    # the same formulas summed in another order: round-off of the largest term
    # (the welds' forces, k_p times the gap)
    scale = np.abs(f_a).max()
    assert np.abs(f_c - f_a).max() < 1e-11 * scale
    assert M_c.shape == M_a.shape
    assert np.abs(M_c - M_a).max() < 1e-12 * np.abs(M_a).max()

    # K and R: both one-sided differences with step 1e-8, so they agree to the
    # round-off of the differenced forces divided by the step: 1e-16 scale / 1e-8
    jac = _Jac(chrono)
    link._last_state = (x, w, f_a)

    class Grab:
        def ChMatrixDynamicd(self, A):
            return np.array(A)

    link._chrono, real = Grab(), link._chrono
    try:
        link.compute_jacobian(_Load(jac))
        K_a, R_a = jac.K, jac.R
        K_c, R_c, Kw_c = link._kernels.load_jacobian(pack, x, w, Q, link._gravity,
                                                     link.JACOBIAN_DELTA)
    finally:
        link._chrono = real
    tol = 1e-6 * scale
    assert np.abs(K_c - K_a).max() < tol
    assert np.abs(R_c - R_a).max() < tol
    assert np.abs(K_a).max() > 1e3 * tol           # the comparison is not between zeros

    # the welds' own matrices: analytic and differenced, as the array path forms them
    q, qd, body, _, bodies = link._state_from(x, w)
    K_w, R_w = link._weld_matrices(q, body, bodies)
    Kc_w, Rc_w = link._kernels.weld_matrices(pack, x, link._weld_damped)
    assert np.abs(Kc_w - K_w).max() < 1e-10 * np.abs(K_w).max()
    if R_w is None:
        assert Rc_w is None
    else:
        assert np.abs(Rc_w - R_w).max() < 1e-10 * np.abs(R_w).max()
    Kfd = link._weld_fd(q, qd, body, bodies)
    Kfd_c = link._kernels.weld_stiffness_differences(pack, x, w, link.JACOBIAN_DELTA)
    assert np.abs(Kfd_c - Kfd).max() < tol
    # the welds' part from the full Jacobian's evaluations: the same weld forces
    assert np.array_equal(Kw_c, Kfd_c)


def test_compute_q_call_is_load_forces_and_weld_matrices(chrono):
    """The one call of ComputeQ returns what the separate kernels return (the same
    compiled code: equal to the last bit), and reports non-finite forces."""
    link = _slider_crank(chrono)
    pack = link._compiled_load()
    x, w = _states(link, np.random.default_rng(5))
    Q, g = link._joint_forces_at(x, w), link._gravity
    M, f, finite, K_w, R_w = link._kernels.compute_q(pack, x, w, Q, g, True, True)
    M1, f1 = link._kernels.load_forces(pack, x, w, Q, g)
    K1, R1 = link._kernels.weld_matrices(pack, x, True)
    assert finite and np.array_equal(f, f1) and np.array_equal(M, M1)
    assert np.array_equal(K_w, K1) and np.array_equal(R_w, R1)
    assert link._kernels.compute_q(pack, x, w, Q, g, False, False)[3] is None
    w_bad = w.copy()
    w_bad[7] = np.nan
    assert not link._kernels.compute_q(pack, x, w_bad, Q, g, False, False)[2]


def test_torque_law_reading_the_state_joins_the_compiled_jacobian(chrono):
    """A torque law of (t, q, qd) on the compiled path: K and R are the compiled
    differences with the law's own part added (by differences of the law), equal to the
    array path's differences of the whole load; the law's part is not zero."""
    import chrono_flex as cf
    from chrono_flex.chrono import FlexibleLink, configure_system

    system = chrono.ChSystemNSC()
    configure_system(system)
    arm = cf.PlanarArm([cf.Link(length=0.5, n_elements=3, EI=5.0, rho_A=0.5),
                        cf.Link(length=0.4, n_elements=2, EI=3.0, rho_A=0.4)])
    gains = np.array([[40.0, 3.0], [25.0, 2.0]])     # PD law, N m/rad and N m s/rad

    def torque(t, q, qd):
        j = arm.joint_index
        return -gains[:, 0] * np.sin(q[j]) - gains[:, 1] * qd[j] * (1.0 + q[j] ** 2)

    link = FlexibleLink(system, arm, torque=torque, joint_angles0=[0.3, -0.4])
    pack = link._compiled_load()
    assert pack is not None
    x, w = _states(link, np.random.default_rng(7))

    class Grab:
        def ChMatrixDynamicd(self, A):
            return np.array(A)

    out = {}
    link._chrono, real = Grab(), link._chrono
    try:
        for path in ("compiled", "arrays"):
            link._load_pack = pack if path == "compiled" else None
            link._jacobian_at, link._jac_object = None, None
            _, f, _ = link._load_terms(x, w)
            link._last_state = (x, w, f)
            jac = _Jac(chrono)
            link.compute_jacobian(_Load(jac))
            out[path] = (jac.K, jac.R)
    finally:
        link._chrono = real
    K_c, R_c = out["compiled"]
    K_a, R_a = out["arrays"]
    # both one-sided differences of step 1e-8 of the same forces: round-off of the
    # largest force over the step (1e-16 * |f| / 1e-8), |f| of order 100 here
    tol = 1e-5
    assert np.abs(K_c - K_a).max() < tol and np.abs(R_c - R_a).max() < tol
    # the law's own part, d tau/dq_dot on the joints (gains[:, 1] (1 + q^2)), is there
    j = arm.joint_index
    q = x[:link.nq]
    K_held, R_held, _ = link._kernels.load_jacobian(pack, x, w, link._joint_forces_at(x, w),
                                                    link._gravity, link.JACOBIAN_DELTA)
    dR = (R_c - R_held)[np.ix_(j, j)]
    assert np.allclose(np.diag(dR), gains[:, 1] * (1.0 + q[j] ** 2), rtol=1e-5)
