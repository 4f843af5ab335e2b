"""chrono_flex.chrono.beams: pure helpers, the PyChrono 10 facts the engine relies on
(docs/chrono.md §4, "Chrono's own beams"), and the engine's contract (shapes, errors, statics).

Comparisons of whole trajectories with the reference engine are in
test_beams_validation.py.
"""

import math

import numpy as np
import pytest

from chrono_flex import (Link, ParameterError, Payload, PlanarArm, Plane, PrismaticJoint,
                         RevoluteJoint, SimulationError)
from chrono_flex import scenarios
from chrono_flex.bench import bench_beams
from chrono_flex.planar import equations as mdl
from chrono_flex.planar import kinematics as kin
from chrono_flex.chrono import beam_scene as bs
from chrono_flex.chrono import beams as cb
from chrono_flex.chrono import corotational as cr

pychrono = pytest.mark.pychrono


def _koz_link(n=4):
    """Kozlowski's link: L = 1 m, 5 kg/m, EI = 1000 N m^2, h = 1 cm."""
    return Link(1.0, n, EI=1000.0, rho_A=5.0, thickness=0.01)


def _held(t):
    """joint_motion holding one joint at 0."""
    return np.zeros(1), np.zeros(1), np.zeros(1)


# ---------------------------------------------------------------------------------------
# Pure helpers (no Chrono)
# ---------------------------------------------------------------------------------------

def test_section_properties_keep_EI_and_rho_A():
    lk = _koz_link()
    s = cr.section_properties(lk)
    assert s.EI == pytest.approx(lk.EI, rel=1e-14)
    assert s.mass_per_length == pytest.approx(lk.rho_A, rel=1e-14)
    # solid square of side h: I/A = h^2/12, so EA = 12 EI/h^2
    assert s.EA == pytest.approx(12 * lk.EI / lk.thickness ** 2, rel=1e-12)
    b = scenarios.bien_link(1.0, 1)                      # given as E, I, rho, A: kept
    sb = cr.section_properties(b)
    assert (sb.E, sb.A, sb.Izz, sb.density) == pytest.approx((b.E, b.A, b.I, b.rho), rel=1e-14)


def test_rigid_chain_matches_the_reference_kinematics():
    """rigid_chain = kinematics.chain_frames with zero elastic coordinates."""
    arm = PlanarArm([Link(1.0, 2, EI=10.0, rho_A=1.0), Link(0.7, 2, EI=10.0, rho_A=1.0),
                     Link(0.5, 2, EI=10.0, rho_A=1.0)],
                    joints=[RevoluteJoint(angle_offset=0.2), PrismaticJoint(axis_angle=0.3),
                            RevoluteJoint(angle_offset=-0.1)])
    qj = np.array([0.4, 0.25, -0.7])
    roots, tips, axes = cr.rigid_chain(arm, qj)
    ref_roots, ref_tips = kin.chain_frames(arm.model.layout, arm.coordinates(qj))
    for (p, psi), f in zip(roots, ref_roots):
        np.testing.assert_allclose(p, f.p, atol=1e-14)
        assert psi == pytest.approx(f.psi, abs=1e-14)
    for (p, psi), f in zip(tips, ref_tips):
        np.testing.assert_allclose(p, f.p, atol=1e-14)
    assert axes[0] is None and axes[2] is None
    np.testing.assert_allclose(axes[1], [math.cos(0.6 + 0.3), math.sin(0.6 + 0.3)], atol=1e-14)


def test_rigid_velocity_is_the_derivative_of_rigid_chain():
    arm = PlanarArm([Link(1.0, 2, EI=10.0, rho_A=1.0), Link(0.7, 2, EI=10.0, rho_A=1.0)],
                    joints=[RevoluteJoint(), PrismaticJoint(axis_angle=0.3)])
    q, qd, h = np.array([0.4, 0.25]), np.array([1.3, -0.6]), 1e-6
    tip = lambda qq: cr.rigid_chain(arm, qq)[1][1][0]      # noqa: E731
    v, w = cr.rigid_velocity(arm, q, qd, 1, tip(q))
    np.testing.assert_allclose(v, (tip(q + h * qd) - tip(q - h * qd)) / (2 * h), atol=1e-8)
    assert w == pytest.approx(1.3)


def test_hermite_centreline_is_exact_for_a_cubic():
    """A cantilever under a tip load bends as a cubic: one Hermite element holds it.
    (Exact up to the slope^2 = 1e-6 terms that separate the chord-scaled tangents and
    the curve's geometric curvature from the small-deflection w and w''.)"""
    L, P, EI = 1.0, 0.02, 10.0                               # tip slope P L^2/(2 EI) = 1e-3
    w = lambda x: P * x ** 2 * (3 * L - x) / (6 * EI)       # noqa: E731
    dw = lambda x: P * x * (2 * L - x) / (2 * EI)            # noqa: E731
    nodes = np.array([[0.0, 0.0], [L, w(L)]])
    pts, curv = cr.hermite_centreline(nodes, np.arctan([0.0, dw(L)]), L, 11)
    x = np.linspace(0, L, 11)
    np.testing.assert_allclose(pts[:, 0], x, atol=1e-6 * L)
    np.testing.assert_allclose(pts[:, 1], w(x), atol=1e-5 * w(L))
    np.testing.assert_allclose(curv, P * (L - x) / EI, atol=1e-5 * P * L / EI)
    # a straight chord between nodes would miss the bending entirely
    assert np.max(np.abs(pts[:, 1] - x * w(L))) > 0.1 * w(L)


# ---------------------------------------------------------------------------------------
# PyChrono 10 facts (docs/chrono.md §3-4) the engine relies on
# ---------------------------------------------------------------------------------------

@pychrono
def test_fact_euler_section_silent_defaults():
    """ChBeamSectionEuler* starts with Rayleigh beta = 0.01 and JyyJzz factor 1/500."""
    import pychrono.fea as fea

    for cls in (fea.ChBeamSectionEulerSimple, fea.ChBeamSectionEulerAdvanced):
        s = cls()
        assert s.GetRayleighDampingBeta() == pytest.approx(0.01)
        assert s.GetRayleighDampingAlpha() == 0.0
        assert s.GetArtificialJyyJzzFactor() == pytest.approx(1 / 500)


@pychrono
def test_engine_sets_both_defaults_explicitly():
    arm = PlanarArm([_koz_link(2)])
    scene = bs.build_beams(arm)
    for el in scene.links[0].elements:
        sec = el.GetSection()
        assert sec.GetRayleighDampingBeta() == 0.0
        assert sec.GetRayleighDampingAlpha() == 0.0
        assert sec.GetArtificialJyyJzzFactor() == pytest.approx(bs.DEFAULT_JYY_FACTOR)
    damped = PlanarArm([Link(1.0, 2, EI=1000.0, rho_A=5.0, damping_beta=2e-3,
                             damping_alpha=0.5)])
    sec = bs.build_beams(damped).links[0].elements[0].GetSection()
    assert (sec.GetRayleighDampingBeta(), sec.GetRayleighDampingAlpha()) == (2e-3, 0.5)
    sec = bs.build_beams(damped, rayleigh_beta=0.0, rayleigh_alpha=0.0,
                         jyy_factor=1 / 500).links[0].elements[0].GetSection()
    assert (sec.GetRayleighDampingBeta(), sec.GetRayleighDampingAlpha()) == (0.0, 0.0)
    assert sec.GetArtificialJyyJzzFactor() == pytest.approx(1 / 500)


def _vibration_after_a_nudge(rayleigh_beta, t_end=0.6):
    """Clamped Kozlowski link (joint held) nudged by a 1 mrad joint move over 0.05 s,
    then free: tip deflection history after the move."""
    T, a = 0.05, 1e-3

    def motion(t):
        if t >= T:
            return np.array([a]), np.zeros(1), np.zeros(1)
        w = 2 * math.pi / T
        return (np.array([a * (t / T - math.sin(w * t) / (2 * math.pi))]),
                np.array([a / T * (1 - math.cos(w * t))]), np.array([a / T * w * math.sin(w * t)]))

    res = cb.simulate_beams(PlanarArm([_koz_link(8)]), t_end, joint_motion=motion,
                            dt_out=1e-3, rayleigh_beta=rayleigh_beta)
    keep = res.t >= T
    return res.t[keep], res.tip_deflection[keep, 0]


@pychrono
def test_fact_default_beta_damps_the_bending_vibration():
    """Chrono's beta = 0.01 gives the 7.9 Hz clamped-free mode a damping ratio
    beta*omega/2 = 0.25: the free vibration dies within ~0.5 s; beta = 0 keeps it."""
    t, y0 = _vibration_after_a_nudge(0.0)
    _, y1 = _vibration_after_a_nudge(0.01)
    first, last = t < 0.2, t > 0.45
    keep0 = np.max(np.abs(y0[last])) / np.max(np.abs(y0[first]))
    keep1 = np.max(np.abs(y1[last])) / np.max(np.abs(y1[first]))
    print(f"[chrono-beam] vibration kept after 0.4 s: beta=0 {keep0:.3f}, beta=0.01 {keep1:.2e}")
    assert keep0 > 0.9            # HHT alpha=-0.2 adds a damping ratio < 2e-6 here
    # exp(-zeta omega 0.25 s) with zeta omega = beta omega^2/2 = 12.4 1/s: 4.5e-2
    assert keep1 < 0.1


@pychrono
def test_fact_jyy_factor_adds_rotary_inertia():
    """The artificial factor adds Jzz = f*mu per length to the nodes' rotations: for the
    Kozlowski pendulum, f = 1/500 adds f*mu*L = 0.01 kg m^2 (+0.6 %) of moment of
    inertia. The joint-angle change matches a rigid pendulum with that inertia."""
    from scipy.integrate import solve_ivp

    arm, kw = scenarios.get("kozlowski-1link").arm_and_kwargs(t_end=1.0)
    kw["dt_out"] = 0.02
    a = cb.simulate_beams(arm, n_elements=8, jyy_factor=1e-9, **kw)
    b = cb.simulate_beams(arm, n_elements=8, jyy_factor=1 / 500, **kw)
    m, L, g = 5.0, 1.0, 9.81
    I_lumped = m * L * L / 3 * (1 + 1 / (2 * 8 ** 2))     # lumped nodes, see validation

    def rigid(I):
        rhs = lambda t, y: [y[1], -m * g * L / 2 * math.cos(y[0]) / I]   # noqa: E731
        return solve_ivp(rhs, (0, 1), [math.radians(-80), 0], t_eval=a.t,
                         rtol=1e-11, atol=1e-12).y[0]

    predicted = rigid(I_lumped + 1 / 500 * m * L) - rigid(I_lumped)
    measured = b.joint_angles[:, 0] - a.joint_angles[:, 0]
    print(f"[chrono-beam] JyyJzz 1/500 vs 1e-9: max joint-angle change "
          f"{np.max(np.abs(measured)):.3e} rad (rigid-pendulum prediction "
          f"{np.max(np.abs(predicted)):.3e})")
    assert np.max(np.abs(measured)) > 1e-3
    assert np.max(np.abs(measured)) == pytest.approx(np.max(np.abs(predicted)), rel=0.05)
    # the extra rotary inertia also lowers the bending frequencies; that elastic ripple on
    # the joint angle (about 1.4e-4 rad, 11 % of the effect) is not in the rigid model
    np.testing.assert_allclose(measured, predicted, atol=0.15 * np.max(np.abs(predicted)))


@pychrono
def test_fact_body_inertia_defaults_to_one_and_engine_sets_it():
    import pychrono as chrono

    b = chrono.ChBody()
    assert b.GetMass() == 1.0
    assert tuple(b.GetInertiaXX().to_numpy()) == (1.0, 1.0, 1.0)
    arm = PlanarArm([_koz_link(2), _koz_link(2)],
                    joints=[RevoluteJoint(hub_inertia=0.3), RevoluteJoint(hub_mass=0.2)],
                    payload=Payload(0.4, 0.01), hub_inertia=0.05)
    sc = bs.build_beams(arm)
    assert sc.links[0].hub.GetInertiaXX().z == pytest.approx(0.35)
    assert sc.links[1].hub.GetMass() == pytest.approx(0.2)
    assert sc.payload_body.GetMass() == pytest.approx(0.4)
    assert sc.payload_body.GetInertiaXX().z == pytest.approx(0.01)
    floor = bs.MASS_FLOOR * 5.0 / 3.0           # 1e-9 of rho_A L^3/3
    assert sc.links[1].hub.GetInertiaXX().z == pytest.approx(floor)
    assert sc.links[0].tip.GetMass() == pytest.approx(bs.MASS_FLOOR * 5.0)


@pychrono
def test_fact_tapered_section_length_defaults_to_one_metre():
    """ChBeamSectionTaperedTimoshenkoAdvancedGeneric computes its consistent mass matrix
    with its own length, 1 m unless set (read in ChBeamSectionTaperedTimoshenko.cpp);
    the element does not set it. Unset, a 0.25 m element gets the mass matrix of a 1 m
    one: the engine sets it, and its consistent-mass frequencies are right (validation)."""
    import pychrono.fea as fea

    assert fea.ChBeamSectionTaperedTimoshenkoAdvancedGeneric().GetLength() == 1.0
    arm = PlanarArm([_koz_link(4)])
    sc = bs.build_beams(arm, consistent_mass=True)
    tap = [k for k in sc._keep if isinstance(k, fea.ChBeamSectionTaperedTimoshenkoAdvancedGeneric)]
    assert len(tap) == 1 and tap[0].GetLength() == pytest.approx(0.25)
    assert tap[0].GetLumpedMassMatrixType() is False


@pychrono
def test_fact_hht_alpha_zero_lets_reaction_torques_oscillate():
    """A body on ChLinkMotorRotationAngle (theta = sin t, J = 3): with HHT alpha = 0 the
    motor's reaction torque error alternates and grows each step; alpha = -0.2 (the
    engine's default) damps it. Joint torques of prescribed motions need alpha < 0."""
    import pychrono as chrono

    def errors(alpha):
        sys_ = chrono.ChSystemSMC()
        sys_.SetGravitationalAcceleration(chrono.ChVector3d(0, 0, 0))
        ground = chrono.ChBody()
        ground.SetFixed(True)
        sys_.Add(ground)
        body = chrono.ChBody()
        inertia = chrono.ChVector3d(1, 1, 3.0)
        body.SetInertiaXX(inertia)
        body.SetAngVelParent(chrono.ChVector3d(0, 0, 1.0))
        sys_.Add(body)

        class Sine(chrono.ChFunction):
            def GetVal(self, x):
                return math.sin(x)

            def GetDer(self, x):
                return math.cos(x)

            def GetDer2(self, x):
                return -math.sin(x)

            def Clone(self):
                return self

        fn = Sine()
        motor = chrono.ChLinkMotorRotationAngle()
        frame = chrono.ChFramed()
        motor.Initialize(body, ground, frame)
        motor.SetAngleFunction(fn)
        sys_.Add(motor)
        sys_.SetSolver(chrono.ChSolverSparseLU())
        ts = chrono.ChTimestepperHHT(sys_)
        ts.SetAlpha(alpha)
        ts.SetStepControl(False)
        sys_.SetTimestepper(ts)
        out = []
        for _ in range(40):
            sys_.DoStepDynamics(0.01)
            out.append(motor.GetMotorTorque() + 3 * math.sin(sys_.GetChTime()))
        return np.array(out)

    e0, e2 = errors(0.0), errors(-0.2)
    assert np.all(np.sign(e0[1:]) != np.sign(e0[:-1]))        # alternating
    assert abs(e0[-1]) > 10 * abs(e0[0])                        # and growing
    assert abs(e2[-1]) < 0.2 * abs(e2[0])                       # damped


@pychrono
def test_fact_motor_sign_conventions():
    """ChLinkMotorRotationTorque(body1, body2, frame): a positive torque turns body1
    positively about the frame's Z axis and GetMotorAngle grows; ChLinkMotorLinearForce
    pushes body1 along the frame's Z axis and GetMotorPos grows."""
    import pychrono as chrono

    sys_ = chrono.ChSystemSMC()
    sys_.SetGravitationalAcceleration(chrono.ChVector3d(0, 0, 0))
    ground = chrono.ChBody()
    ground.SetFixed(True)
    sys_.Add(ground)
    rotor, slider = chrono.ChBody(), chrono.ChBody()
    inertia = chrono.ChVector3d(1, 1, 2.0)
    rotor.SetInertiaXX(inertia)
    sys_.Add(rotor)
    sys_.Add(slider)
    rot = chrono.ChLinkMotorRotationTorque()
    f0 = chrono.ChFramed()
    rot.Initialize(rotor, ground, f0)
    one = chrono.ChFunctionConst(1.0)
    rot.SetTorqueFunction(one)
    sys_.Add(rot)
    lin = chrono.ChLinkMotorLinearForce()
    q = chrono.QuatFromAngleY(math.pi / 2)                 # frame Z -> world X
    pos = chrono.ChVector3d(0, 0, 0)
    f1 = chrono.ChFramed(pos, q)
    lin.Initialize(slider, ground, f1)
    lin.SetForceFunction(one)
    sys_.Add(lin)
    sys_.SetSolver(chrono.ChSolverSparseLU())
    for _ in range(100):
        sys_.DoStepDynamics(0.01)
    assert rot.GetMotorAngle() == pytest.approx(0.25, rel=0.02)     # T t^2 / (2 J)
    assert rotor.GetAngVelParent().z > 0
    assert lin.GetMotorPos() == pytest.approx(0.5, rel=0.02)        # F t^2 / (2 m)
    assert slider.GetPos().x == pytest.approx(lin.GetMotorPos(), rel=1e-9)


@pychrono
def test_fact_alpha_damping_acts_on_absolute_velocities():
    """Chrono's mass-proportional Rayleigh term multiplies ABSOLUTE nodal velocities
    (ChElementBeamEuler::ComputeInternalForces): a freely spinning link with alpha > 0
    slows down; beta > 0 (K has rigid motions in its null space) does not."""
    arm = PlanarArm([_koz_link(2)])
    kw = dict(joint_rates0=[1.0], dt_out=0.05, n_elements=2)
    spin_a = cb.simulate_beams(arm, 0.5, rayleigh_alpha=1.0, **kw)
    spin_b = cb.simulate_beams(arm, 0.5, rayleigh_beta=1e-3, **kw)
    # rigid body: J w' = -alpha J w  ->  w = exp(-alpha t)
    assert spin_a.joint_rates[-1, 0] == pytest.approx(math.exp(-0.5), rel=0.02)
    assert spin_b.joint_rates[-1, 0] == pytest.approx(1.0, abs=1e-3)
    assert any("alpha" in n for n in spin_a.info["notes"])
    # the energy bookkeeping sees that dissipation
    e = spin_a.energy
    assert np.max(np.abs(e.balance_error)) < 0.01 * e.kinetic[0]


# ---------------------------------------------------------------------------------------
# The engine's contract
# ---------------------------------------------------------------------------------------

@pychrono
@pytest.mark.parametrize("n", [1, 3])
def test_static_tip_deflection_and_holding_torque(n):
    """Cantilever (joint held) with a 1 kg payload, weightless link: tip deflection
    P L^3/(3 EI) exactly at the nodes of Hermite elements; holding torque P L; the
    Hermite centreline and its curvature are the exact cubic between nodes."""
    EI, L, P = 1000.0, 1.0, 9.81
    arm = PlanarArm([Link(L, n, EI=EI, rho_A=1e-6, thickness=0.01)], payload=Payload(1.0),
                    gravity=True)
    sc = bs.build_beams(arm, joint_motion=_held)
    sc.system.DoStaticLinear()
    w_tip = -P * L ** 3 / (3 * EI)
    # weightless up to rho_A/m = 1e-6 of the load
    assert sc.tip_deflections()[0] == pytest.approx(w_tip, rel=1e-5)
    assert sc.joint_torques(0.0)[0] == pytest.approx(P * L, rel=1e-5)
    pts, curv = sc.centrelines(9)
    x = np.linspace(0.0, L, 9)
    np.testing.assert_allclose(pts[0][:, 1], -P * x ** 2 * (3 * L - x) / (6 * EI),
                               atol=1e-5 * abs(w_tip))
    np.testing.assert_allclose(curv[0], -P * (L - x) / EI, atol=1e-4 * P * L / EI)
    # the reference's static solution (gravity on payload and link) agrees
    q = arm.static_deflection([0.0])
    assert q[arm.elastic_index][-2] == pytest.approx(w_tip, rel=1e-5)


@pychrono
def test_result_contract_and_plane_placement():
    """Shapes, info, and the same planar motion in a plane placed elsewhere in 3D (gravity
    along -plane.y_axis)."""
    plane = Plane(origin=(1.0, 2.0, 3.0), x_axis=(0.0, 0.0, 1.0), y_axis=(1.0, 1.0, 0.0))
    arms = [PlanarArm([_koz_link(3), _koz_link(2)], gravity=True, plane=p)
            for p in (Plane(), plane)]
    kw = dict(joint_angles0=[-0.5, 0.3], joint_rates0=[0.2, 0.0], dt_out=0.01, n_samples=7)
    a, b = (cb.simulate_beams(arm, 0.1, **kw) for arm in arms)
    nt = 11
    nq = arms[0].nq
    assert a.t.shape == (nt,) and a.q.shape == (nt, nq) and a.joint_torque.shape == (nt, 2)
    assert a.centerline.shape == (nt, 2, 7, 3) and a.curvature.shape == (nt, 2, 7)
    assert a.info["engine"] == "chrono-beam" and "generalized coordinates" in a.info["coordinates"]
    assert a.info["mass_matrix"] == "lumped" and a.info["n_elements"] == [3, 2]
    assert a.info["newton_not_converged"] == 0
    # q means what it means on every engine: joint values, then the links' elastic
    # coordinates; the beams' mesh equals the arm's here, so the fitted Hermite nodal
    # values reproduce the measured tip deflections to round-off
    np.testing.assert_array_equal(a.q[:, arms[0].joint_index], a.joint_angles)
    from_q = np.array([mdl.tip_deflections(arms[0].model, q) for q in a.q])
    np.testing.assert_allclose(from_q, a.tip_deflection, rtol=0, atol=1e-12)
    assert np.max(np.abs(a.tip_deflection)) > 1e-6       # the links did bend
    np.testing.assert_allclose(a.joint_angles[0], [-0.5, 0.3])
    np.testing.assert_allclose(a.joint_rates[0], [0.2, 0.0], atol=1e-12)
    np.testing.assert_allclose(a.centerline[0], a.centerline_rigid[0], atol=1e-12)
    # the centreline ends at the tip; link 2 starts where link 1 ends
    np.testing.assert_allclose(a.centerline[:, 1, -1, :2], a.tip_position, atol=1e-12)
    np.testing.assert_allclose(a.centerline[:, 1, 0], a.centerline[:, 0, -1], atol=1e-9)
    # same planar motion in the displaced plane, world points mapped by the plane
    np.testing.assert_allclose(b.joint_angles, a.joint_angles, atol=1e-9)
    np.testing.assert_allclose(b.tip_deflection, a.tip_deflection, atol=1e-9)
    np.testing.assert_allclose(b.centerline, plane.to_world(a.centerline[..., :2]), atol=1e-9)
    assert b.plane == plane


@pychrono
def test_torque_sees_arm_layout_coordinates():
    arm = PlanarArm([_koz_link(2), _koz_link(2)])
    seen = []

    def torque(t, q, qd):
        seen.append(q.copy())
        return [0.0, 0.0]

    cb.simulate_beams(arm, 0.01, joint_angles0=[0.1, 0.2], torque=torque, dt_out=0.01)
    q = seen[0]
    assert q.shape == (arm.nq,)
    np.testing.assert_allclose(q[arm.joint_index], [0.1, 0.2])
    assert np.all(np.isnan(q[arm.elastic_index]))


@pychrono
def test_errors_name_what_is_wrong():
    arm = PlanarArm([_koz_link(2)], gravity=True)
    with pytest.raises(ParameterError) as e:
        cb.simulate_beams(arm, 0.1, method="Radau", rtol=1e-8)
    assert "method" in str(e.value) and "rtol" in str(e.value)
    with pytest.raises(ParameterError, match="torque"):
        cb.simulate_beams(arm, 0.01, torque=lambda t, q, qd: [1.0, 2.0])
    with pytest.raises(ParameterError, match="joint_motion"):
        cb.simulate_beams(arm, 0.01, torque=lambda t, q, qd: [0.0], joint_motion=_held)
    with pytest.raises(ParameterError, match="hht_alpha"):
        cb.simulate_beams(arm, 0.01, hht_alpha=0.1)
    with pytest.raises(SimulationError) as e:
        cb.simulate_beams(arm, 0.1, torque=lambda t, q, qd: [np.nan if t > 0.02 else 0.0],
                          dt_out=0.01)
    assert e.value.time == pytest.approx(0.02, abs=2e-3)
    with pytest.raises(SimulationError, match="tip deflection") as e:
        cb.simulate_beams(arm, 0.2, joint_angles0=[0.0], dt_out=0.01,
                          max_deflection_ratio=1e-5)
    assert 0 < e.value.time <= 0.2


@pychrono
def test_bench_reports_wall_time_per_simulated_second():
    out = bench_beams((1, 4), t_sim=0.05)
    assert set(out) == {1, 4} and all(v > 0 for v in out.values())


@pychrono
def test_the_beam_engine_shares_the_loops_guards_and_budgets():
    arm = PlanarArm([_koz_link(4)], gravity=True)
    with pytest.raises(ParameterError) as e:
        cb.simulate_beams(arm, 0.01, torque=lambda t, q, qd: "0.1", step=1e-3)
    assert e.value.parameter == "torque"
    with pytest.raises(ParameterError) as e:
        cb.simulate_beams(arm, 0.01, step=1e-3, dt_out=5e-4)
    assert e.value.parameter == "dt_out"
    with pytest.raises(SimulationError, match="wall-time budget"):
        cb.simulate_beams(arm, 2.0, joint_angles0=[-0.5], step=1e-3, max_wall_time=0.05)
