"""Bodies welded to a spatial arm (SpatialFlexibleLink.attach, docs/chrono.md §8, §12):
statics against the reference arm carrying the same payload as a RigidBody, dynamics
against the element with the payload inside the arm, energy, and bad input."""

import math

import numpy as np
import pytest

from chrono_flex.chrono.attachment import body_kinetic_energy
from chrono_flex.errors import ParameterError
from chrono_flex.spatial import equations as mdl
from chrono_flex.spatial.arm import SpatialArm
from chrono_flex.spatial.params import FixedJoint, RevoluteJoint, RigidBody, SpatialLink

from _chrono_helpers import sample, step_study

pytestmark = pytest.mark.pychrono
chrono = pytest.importorskip("pychrono", reason="PyChrono is not installed")

L = 0.8
MASS, INERTIA = 0.2, (2e-3, 3e-3, 4e-3)
OFFSET = np.array([0.03, 0.02, -0.01])     # the payload's centre from the tip, link frame
AXIS = (0.0, 0.3, 1.0)                     # a tilted joint: the arm bends in both planes


def _link(n=2, EI=(3.0, 2.0)):
    return SpatialLink(L, n, EI_y=EI[0], EI_z=EI[1], GJ=1.0, rho_A=0.5, rho_Ip=1e-3)


def _new(gravity, arm, **kw):
    from chrono_flex.chrono import scenes
    from chrono_flex.chrono.spatial_element import SpatialFlexibleLink

    system = scenes.new_system(gravity=tuple(gravity))
    return system, SpatialFlexibleLink(system, arm, **kw)


def _payload(system, position=None):
    from chrono_flex.chrono import scenes

    return scenes.free_body(system, MASS, INERTIA, (L, 0, 0) + OFFSET
                            if position is None else position)


# -- statics -----------------------------------------------------------------------------

def _reference_equilibrium(arm):
    """The reference arm's static equilibrium K e = Q_g(e) by fixed-point iteration (the
    offset payload's weight turns with the tip: the load depends on the deflection)."""
    model = arm.model
    ei = model.elastic_index
    q = np.zeros(model.nq)
    for _ in range(60):
        Qg = mdl.terms(model, q, np.zeros(model.nq))[2]
        q_new = q.copy()
        q_new[ei] = np.linalg.solve(model.K[np.ix_(ei, ei)], Qg[ei])
        if np.max(np.abs(q_new - q)) < 1e-15:
            break
        q = q_new
    return q_new


def test_welded_payload_bends_a_cantilever_as_the_payload_inside_the_arm():
    """Skew gravity on a clamped link with an offset payload at its tip: it bends in both
    planes and twists. Chrono's static solve of the welded scene meets the reference
    arm's equilibrium with the payload as a RigidBody on a FixedJoint."""
    g = np.array([0.3, -4.0, -8.9])
    link = _link(4, EI=(30.0, 20.0))
    ref = SpatialArm([link, RigidBody(MASS, INERTIA)],
                     [FixedJoint(), FixedJoint(offset=tuple(OFFSET))], gravity=g)
    q_ref = _reference_equilibrium(ref)
    system, el = _new(g, SpatialArm([link], [FixedJoint()]), jacobian="iteration")
    body = _payload(system)
    att = el.attach(body)
    assert system.DoStaticNonlinear(10)
    q = el.q()
    scale = np.max(np.abs(q_ref))
    # the weld carries the payload's weight and moment, so the link's equilibrium is the
    # reference's up to the weld's relative rotation theta = |M| / k_r (it turns the
    # payload's lever, and so its moment, by a relative theta; 1e-8 here) and Newton's
    # tolerance on the static residual (1e-9 relative); seen: 4e-9 of the deflection
    theta = att.error()[1]
    assert np.max(np.abs(q - q_ref[:el.nq])) <= (2 * theta + 1e-9) * scale, (theta, scale)
    tip_v, tip_w, tip_phi = el.tip_coordinates()[0]
    assert abs(tip_v) > 1e-3 and abs(tip_w) > 1e-3 and abs(tip_phi) > 1e-4   # 3D, loaded
    # the weld holds the weight, opening by |F| / k_p (the stiffness rule, eq. (8.4)), to
    # the round-off of the positions (50 eps of the 1 m reach: 1e-14 m, k_p = 4.5e8 N/m
    # makes it 5e-6 N; the bound of configure_system's weld_tolerance_floor)
    W = MASS * g
    eps_x = 50 * np.finfo(float).eps * 1.0
    assert np.allclose(att.force, -W, rtol=0, atol=att.stiffness[0] * eps_x)
    gap_rule = np.linalg.norm(W) / att.stiffness[0]
    assert abs(att.error()[0] - gap_rule) <= eps_x
    # and the body's centre sits where the reference payload's is
    p_ref = ref.tip_frame(q_ref, 1)[0]
    p = body.GetPos().to_numpy()
    assert np.linalg.norm(p - p_ref) <= 2 * gap_rule + att.error()[1] * np.linalg.norm(OFFSET)


# -- dynamics ----------------------------------------------------------------------------

def _torque(t, q, qd):
    return [0.2 * np.sin(4.0 * t)]


def _swing(h, ratio=None, t_end=0.1):
    """Joint angle, elastic coordinates and tip (v, w, phi) every 10 ms of a link on a
    tilted revolute joint driven by a torque, under gravity, carrying the offset payload:
    welded with ``ratio`` (None: inside the arm as a RigidBody)."""
    g = (0.0, 0.0, -9.81)
    if ratio is None:
        arm = SpatialArm([_link(), RigidBody(MASS, INERTIA)],
                         [RevoluteJoint(axis=AXIS), FixedJoint(offset=tuple(OFFSET))])
        system, el = _new(g, arm, torque=_torque)
    else:
        system, el = _new(g, SpatialArm([_link()], [RevoluteJoint(axis=AXIS)]), torque=_torque)
        el.attach(_payload(system), stiffness_ratio=ratio)
    return sample(system, h, t_end, 0.01,
                  lambda: np.concatenate([el.q(), el.tip_coordinates()[0]]))


@pytest.mark.slow
def test_welded_payload_agrees_with_the_reference_engine_within_the_step_study():
    """The welded payload (kappa = 1e4) at 2.5, 1.25 and 0.625 ms against the reference
    engine running the arm with the payload inside as a RigidBody on a FixedJoint: every
    run within S e(h) of the step study (tests/_chrono_helpers.step_study) plus the
    reference's tolerances; the bushing's own difference (below: 3e-5 of the motion)
    is far inside. (At 5 ms this scene is not yet in the asymptotic range of the step
    study, for the payload inside the arm as well.) Seen: worst ratio 0.45."""
    ref_tol = dict(method="Radau", rtol=1e-7, atol=1e-10)
    t_end, steps = 0.05, (2.5e-3, 1.25e-3, 0.625e-3)
    arm = SpatialArm([_link(), RigidBody(MASS, INERTIA)],
                     [RevoluteJoint(axis=AXIS), FixedJoint(offset=tuple(OFFSET))],
                     gravity=(0.0, 0.0, -9.81))
    ref = arm.simulate(t_end, torque=_torque, dt_out=0.01, progress=False, **ref_tol)
    y_ref = np.column_stack([ref.q[1:], ref.extra["tip_vw_phi"][1:, 0, :]])
    runs = [_swing(h, 1e4, t_end) for h in steps]
    p, ratios = step_study(runs, steps, y_ref, ref_tol["rtol"], ref_tol["atol"])
    assert np.max(ratios) <= 1.0, (p, ratios.max(axis=1))


def test_welded_payload_tends_to_the_internal_payload_as_the_weld_stiffens():
    """The welded payload and the payload inside the arm (the element checked against the
    reference engine in test_spatial_element.py) share the step h = 1.25 ms, so their
    time-stepping errors nearly cancel; what separates them is the bushing's compliance,
    first order in 1/kappa (docs/chrono.md eq. (8.4): gap |F| / k_p, relative rotation
    |M| / k_r), over a floor that falls with the step (1.2e-7 at 1.25 ms, 7e-7 at 2.5
    ms, the same with the bushing's dampers on): a stiff weld and a rigid payload are
    two discretisations of the same motion. Seen: 6.9e-6 and 6.3e-7 at kappa = 1e3 and
    1e4, 3e-5 of the motion."""
    h, t_end = 1.25e-3, 0.05
    internal = _swing(h, t_end=t_end)
    d3 = np.max(np.abs(_swing(h, 1e3, t_end) - internal))
    d4 = np.max(np.abs(_swing(h, 1e4, t_end) - internal))
    scale = np.max(np.abs(internal))
    # ten times stiffer, ten times closer, but for the floor (seen: 10.9)
    assert d3 / d4 > 7.0, (d3, d4)
    # and the difference is the compliance's size: (l / L) / (4 kappa) with a factor 4
    # for the rotational compliance carried to the payload's centre and the floor
    # (2-element link, l / L = 1/2)
    assert d4 <= 4 * 0.5 / (4 * 1e4) * scale, (d4, scale)


# -- energy ------------------------------------------------------------------------------

def _free_swing_energy(h, t_end=0.12):
    """A link on a free tilted revolute joint under gravity, the offset payload welded at
    its tip, released at rest, no damping: (total energy - its start) over time, and
    the largest kinetic energy."""
    g = np.array([0.0, 0.0, -9.81])
    system, el = _new(g, SpatialArm([_link()], [RevoluteJoint(axis=(1.0, 0.0, 0.2))]))
    body = _payload(system)
    J = np.diag(INERTIA)
    att = el.attach(body)

    def energy():
        v = body.GetPosDt().to_numpy()
        w = body.GetAngVelLocal().to_numpy()
        kin_b = 0.5 * MASS * v @ v + 0.5 * w @ J @ w
        return [sum(el.energy()) + kin_b - MASS * g @ body.GetPos().to_numpy() + att.energy(),
                el.energy()[0] + kin_b]

    from chrono_flex.chrono import scenes

    E0 = energy()[0]
    rows = scenes.run(system, h, t_end, energy)
    return rows[:, 0] - E0, np.max(rows[:, 1])


def test_undamped_welded_scene_conserves_energy_to_the_integrators_accuracy():
    """Kinetic + elastic + gravity + bushing energy: the drift falls with the step at the
    order of HHT (>= 1.5) and stays a small fraction of the kinetic energy, so the weld
    adds no energy."""
    drifts = []
    for h in (2e-3, 1e-3):
        dE, scale = _free_swing_energy(h)
        drifts.append(np.max(np.abs(dE)))
    p = math.log2(drifts[0] / drifts[1])
    assert p >= 1.5, drifts
    assert drifts[1] < 1e-4 * scale, (drifts, scale)


def test_weld_on_an_arm_carried_by_a_free_body_conserves_energy():
    """No gravity: a free parent body, a link on a free tilted joint at its centre turning
    at 1 rad/s, the payload welded at mid-span: internal forces only (the weld's reaction
    reaches the parent through the arm's base), so the total energy of parent, arm,
    payload and bushing is conserved to the integrator's accuracy."""
    from chrono_flex.chrono import scenes
    from chrono_flex.chrono.spatial_element import SpatialFlexibleLink

    def run(h):
        system = scenes.new_system()
        parent = scenes.free_body(system, 2.0, (0.05, 0.06, 0.08), (0.0, 0.0, 0.0))
        el = SpatialFlexibleLink(system, SpatialArm([_link()], [RevoluteJoint(axis=AXIS)]),
                                 parent_body=parent, joint_rates0=[1.0])
        body = _payload(system, (L / 2, 0.0, 0.0))
        att = el.attach(body, s=L / 2)

        def read():
            E = (sum(el.energy()) + att.energy() + body_kinetic_energy(parent)
                 + body_kinetic_energy(body))
            return [E, np.linalg.norm(parent.GetPosDt().to_numpy())]
        E0 = read()[0]
        return scenes.run(system, h, 0.06, read), E0

    drifts = []
    for h in (4e-3, 2e-3):
        rows, E0 = run(h)
        drifts.append(np.max(np.abs(rows[:, 0] - E0)))
    # the turning arm and payload push the parent back: it moves
    assert np.max(rows[:, 1]) > 1e-3             # seen: 5.5 mm/s
    assert math.log2(drifts[0] / drifts[1]) >= 1.5, drifts
    assert drifts[1] < 1e-4 * E0, (drifts, E0)


def test_a_stiff_weld_on_a_fast_turning_link_runs_under_the_kept_jacobian():
    """A 0.3 kg pin welded (kappa = 1e4) to the tip of a 4-element link turning at 8 rad/s
    on a tilted joint of a crank spinning at 2 pi rad/s: with jacobian="step" the welds'
    own K and R replace the finite differences taken where the weld is open
    (docs/chrono.md §8, the spatial G of §12), so Newton needs one Jacobian and a handful
    of iterations a step (seen: 77 ComputeQ calls a step, 68 of them the Jacobian;
    jacobian="iteration" took 500 for the same gaps to 1e-14 m)."""
    from chrono_flex.chrono import scenes
    from chrono_flex.chrono.spatial_element import SpatialFlexibleLink

    system = scenes.new_system()
    crank = scenes.free_body(system, 0.5, (2e-3,) * 3, (0.0, 0.0, 0.0))
    crank.SetAngVelLocal(chrono.ChVector3d(0, 0, 2 * math.pi))
    rod = SpatialArm([SpatialLink(0.5, 4, EI_y=5.0, EI_z=5.0, GJ=2.0, rho_A=0.5,
                                  rho_Ip=1e-4)], [RevoluteJoint(axis=(0, 0.2, 1))])
    el = SpatialFlexibleLink(system, rod, parent_body=crank, joint_rates0=[8.0],
                             joint_frame=((0.15, 0, 0), np.eye(3)), jacobian="step")
    pin = scenes.free_body(system, 0.3, (1e-3,) * 3, (0.65, 0.0, 0.0))
    att = el.attach(pin, stiffness_ratio=1e4)
    gaps = scenes.run(system, 1e-3, 0.02, lambda: att.error()[0])
    assert el.n_compute_q / 20 < (2 * el._nw + 2) + 15 and el.n_retries == 0
    assert np.max(gaps) < 1e-6            # |F| / k_p: the pin's centripetal load


def test_bushing_dampers_work_is_accounted():
    """A body welded 10 mm off the tip of a clamped link with its frame at the body's
    centre (the weld starts open: 0.28 J in the bushing), a soft damped weld (ratio 10,
    zeta = 0.5): the dampers take most of the energy, and what they take is
    Attachment.dissipated."""
    from chrono_flex.chrono import scenes

    system, el = _new((0, 0, 0), SpatialArm([_link()], [FixedJoint()]))
    body = _payload(system, (L, 0.006, 0.008))
    J = np.diag(INERTIA)
    att = el.attach(body, frame=chrono.ChFramed(), stiffness_ratio=10.0, damping_ratio=0.5)
    assert abs(att.error()[0] - 0.01) < 1e-12

    def energy():
        v = body.GetPosDt().to_numpy()
        w = body.GetAngVelLocal().to_numpy()
        return [sum(el.energy()) + 0.5 * MASS * v @ v + 0.5 * w @ J @ w + att.energy(),
                att.dissipated]

    E0 = energy()[0]
    rows = scenes.run(system, 1e-3, 0.1, energy)
    assert rows[-1, 1] > 0.5 * E0                       # the dampers did take most of it
    # HHT with alpha = 0 is the trapezoidal rule, whose discrete energy balance holds for
    # this near-linear scene when the dampers' work is taken at the step's mean rates
    # (Attachment.dissipated, docs/chrono.md §8): what is left is Newton's tolerance
    # (seen: 7.5e-9 of the energy, 98 % of it dissipated)
    assert np.max(np.abs(rows[:, 0] + rows[:, 1] - E0)) < 1e-7 * E0, (rows[:, 0] + rows[:, 1] - E0)


def test_a_released_body_falls_freely():
    from chrono_flex.chrono import scenes

    system, el = _new((0, 0, -9.81), SpatialArm([_link()], [RevoluteJoint(axis=AXIS)]),
                      torque=_torque)
    body = _payload(system)
    att = el.attach(body, s=0.5)            # welded where it is, off the link's station
    scenes.run(system, 2e-3, 0.02, lambda: 0.0)
    assert np.linalg.norm(att.force) > 0.1 * MASS * 9.81      # it was carried
    att.release()
    v0 = body.GetPosDt().to_numpy()
    scenes.run(system, 2e-3, 0.04, lambda: 0.0)       # to t = 0.04 s
    # free fall: exact for the trapezoidal rule on a constant force, to round-off
    dv = body.GetPosDt().to_numpy() - v0
    assert np.allclose(dv, [0.0, 0.0, -9.81 * 0.02], rtol=0, atol=1e-12)
    assert not np.any(att.force) and el.attachments == []


# -- bad input ---------------------------------------------------------------------------

def test_bad_attachments_are_named():
    from chrono_flex.chrono import scenes

    # a hub (a rigid body, not counted) and two links: link numbers -2..1
    arm = SpatialArm([RigidBody(1.0, (0.1, 0.1, 0.1)), _link(), _link()],
                     [RevoluteJoint(), RevoluteJoint(offset=(0.1, 0, 0)),
                      RevoluteJoint(offset=(-0.1, 0, 0))], parents=[-1, 0, 0])
    system, el = _new((0, 0, 0), arm)
    other = scenes.new_system()
    stranger = scenes.free_body(other, 1.0, (1, 1, 1), (L, 0, 0))
    loose = chrono.ChBody()
    body = scenes.free_body(system, 1.0, (1, 1, 1), (L, 0, 0))
    fixed = scenes.free_body(system, 1.0, (1, 1, 1), (L, 0, 0))
    fixed.SetFixed(True)
    cases = [
        (dict(body=stranger), "body", "system"),
        (dict(body=loose), "body", "system"),
        (dict(body="tip"), "body", "ChBody"),
        (dict(body=fixed), "body", "fixed"),
        (dict(body=el.tip_body), "body", "fixed"),
        (dict(body=body, s=1.5 * L), "s", "lie on link 1"),
        (dict(body=body, s=-0.1, link=0), "s", "lie on link 0"),
        (dict(body=body, s="end"), "s", "arc length"),
        (dict(body=body, link=2), "link", "-2..1"),
        (dict(body=body, link=-3), "link", "-2..1"),
        (dict(body=body, link=0.5), "link", "link number"),
        (dict(body=body, frame=(0, 0, 0)), "frame", "ChFramed"),
        (dict(body=body, stiffness_ratio=-1.0), "stiffness_ratio", "positive"),
        (dict(body=body, damping_ratio=float("nan")), "damping_ratio", ">= 0"),
    ]
    for kw, name, words in cases:
        with pytest.raises(ParameterError) as err:
            el.attach(**kw)
        assert err.value.parameter == name and words in str(err.value), (kw, str(err.value))
    assert el.attachments == []            # nothing was half-attached


def test_the_parent_body_cannot_be_welded_to_its_own_arm():
    from chrono_flex.chrono import scenes

    system = scenes.new_system()
    parent = scenes.free_body(system, 2.0, (0.1, 0.1, 0.1), (0, 0, 0))
    from chrono_flex.chrono.spatial_element import SpatialFlexibleLink

    el = SpatialFlexibleLink(system, SpatialArm([_link()]), parent_body=parent)
    with pytest.raises(ParameterError, match="parent"):
        el.attach(parent)
