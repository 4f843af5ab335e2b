"""Bodies welded to a FlexibleLink (FlexibleLink.attach, docs/chrono.md §8): statics
against closed forms, the welded payload against the internal one, energy, closed
loops, a moving parent, the kinematic tip marker, and bad input."""

import math

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.chrono.attachment import body_kinetic_energy
from chrono_flex.errors import ParameterError

pytestmark = pytest.mark.pychrono

from chrono_flex.chrono import FlexibleLink, scenes
from chrono_flex.validation.cases import scene

EI, RHO_A, L = 2.0, 0.5, 1.0


def arm(n=2, **kw):
    return cf.PlanarArm([cf.Link(length=L, n_elements=n, EI=EI, rho_A=RHO_A)], **kw)


# -- statics -----------------------------------------------------------------------------

@pytest.mark.parametrize("s", [L, L / 2])
def test_a_force_on_the_welded_body_bends_the_link_as_beam_theory_says(s):
    r = scene.cantilever_pulled(s)
    # nodally exact elements, settled statics: what is left is Newton's 1e-9 relative
    assert abs(r["w_s"] - r["w_s_exact"]) <= 1e-9 * abs(r["w_s_exact"])
    assert abs(r["w_tip"] - r["w_tip_exact"]) <= 1e-9 * abs(r["w_tip_exact"])
    # the weld transmits the whole force, and opens by F / k_p (the stiffness rule)
    assert np.allclose(r["force"], [0.0, scene.P_TIP, 0.0], rtol=0, atol=1e-9 * scene.P_TIP)
    assert abs(r["gap"] - r["gap_rule"]) <= 1e-6 * r["gap_rule"]
    assert r["angle"] < 1e-12     # no moment at a weld on the body's line of action


def test_propped_cantilever_reaction_is_three_eighths_of_the_weight():
    r = scene.propped_cantilever()
    R = -r["force"][1]
    # the rigid-prop value to the bushing's stated compliance, then exactly its prediction
    assert abs(R - r["R_rigid"]) <= 1.01 * r["compliance"] * r["R_rigid"]
    assert abs(R - r["R_bushing"]) <= 1e-9 * r["R_rigid"]
    assert r["compliance"] < 1e-6      # (l/L)^3 / (4 ratio) with l = L/4, ratio 1e4


# -- dynamics ----------------------------------------------------------------------------

def test_welded_payload_moves_as_the_internal_payload_within_the_step_study():
    st = scene.payload_study()
    hs = scene.PAYLOAD_STEPS
    # the difference is integration error: inside S (e_welded + e_internal) at every step ...
    for d, h in zip(st["diff"], hs):
        e = (np.array(st["e_welded"]) * (h / hs[-1]) ** np.array(st["p_welded"])
             + np.array(st["e_internal"]) * (h / hs[-1]) ** np.array(st["p_internal"]))
        assert np.all(np.array(d) <= scene.SAFETY * e), (d, e)
    # ... and it shrinks with the step (a modelling difference would not)
    assert np.all(np.array(st["diff"][-1]) < 0.5 * np.array(st["diff"][0]))
    assert st["gap"] < 1e-5


def pendulum_energy(h, t_end, damping_ratio=0.0):
    """A free pendulum (flexible link, welded tip body) released horizontal under
    gravity: (total energy over time incl. the bushing's and the dampers' work, scale)."""
    system = scenes.new_system(gravity=(0.0, -9.81, 0.0))
    link = FlexibleLink(system, arm())
    m, J = 0.2, 2e-3
    body = scenes.free_body(system, m, (J, J, J), (L, 0.0, 0.0))
    att = link.attach(body, damping_ratio=damping_ratio)

    def energy():
        v = body.GetPosDt().to_numpy()
        w = body.GetAngVelLocal().to_numpy()
        body_e = 0.5 * m * v @ v + 0.5 * J * w @ w + m * 9.81 * body.GetPos().y
        return [sum(link.energy()) + body_e + att.energy() + att.dissipated,
                link.energy()[0], att.dissipated]

    E0 = energy()[0]
    rows = scenes.run(system, h, t_end, energy)
    return rows[:, 0] - E0, np.max(rows[:, 1]), rows[-1, 2]


def test_undamped_welded_scene_conserves_energy_to_the_integrators_accuracy():
    """Drift falls with the step at the order of HHT (>= 1.5) and stays a small
    fraction of the kinetic energy: integration error, no energy from the weld."""
    drifts = []
    for h in (2e-3, 1e-3):
        dE, scale, _ = pendulum_energy(h, 0.12)
        drifts.append(np.max(np.abs(dE)))
    p = math.log2(drifts[0] / drifts[1])
    assert p >= 1.5, drifts
    assert drifts[1] < 1e-4 * scale, (drifts, scale)


def test_bushing_dampers_work_is_accounted(chrono):
    """A body welded 10 mm off the tip of a clamped link (frame at its centre: the weld
    starts open, 0.1 J in the bushing), a soft resolved weld (ratio 10, omega_b h ~ 0.1)
    with zeta = 0.5: the dampers take most of the energy, and what they take is
    Attachment.dissipated."""
    system = scenes.new_system()
    link = scenes.clamped_link(system, arm())
    m, J = 0.2, 2e-3
    body = scenes.free_body(system, m, (J, J, J), (L, 0.01, 0.0))
    att = link.attach(body, frame=chrono.ChFramed(), stiffness_ratio=10.0, damping_ratio=0.5)
    assert abs(att.error()[0] - 0.01) < 1e-12

    def energy():
        v = body.GetPosDt().to_numpy()
        w = body.GetAngVelLocal().to_numpy()
        return [sum(link.energy()) + 0.5 * m * v @ v + 0.5 * J * w @ w + att.energy(),
                att.dissipated]
    E0 = energy()[0]
    rows = scenes.run(system, 1e-3, 0.3, energy)
    assert rows[-1, 1] > 0.5 * E0                       # the dampers did take most of it
    # HHT with alpha = 0 is the trapezoidal rule, whose discrete energy balance holds
    # exactly for this near-linear scene when the dampers' work is taken at the step's
    # mean rates (Attachment.dissipated): what is left is Newton's tolerance (seen:
    # 2e-10 of the energy; a trapezoidal sum of the power instead left 3e-2)
    assert np.max(np.abs(rows[:, 0] + rows[:, 1] - E0)) < 1e-7 * E0


def test_two_links_closing_a_loop_through_one_body_conserve_energy():
    """A parallelogram: two flexible links on free revolute joints, 0.3 m apart, their
    tips welded to one rigid coupler, swinging under gravity."""
    def run(h):
        system = scenes.new_system(gravity=(0.0, -9.81, 0.0))
        a = FlexibleLink(system, arm(), joint_frame=((0, 0, 0), (1, 0, 0), (0, 1, 0)))
        b = FlexibleLink(system, arm(), joint_frame=((0, -0.3, 0), (1, 0, 0), (0, 1, 0)))
        m, J = 0.3, 3e-3
        body = scenes.free_body(system, m, (J, J, J), (L, -0.15, 0.0))
        att = [a.attach(body), b.attach(body)]

        def read():
            v = body.GetPosDt().to_numpy()
            w = body.GetAngVelLocal().to_numpy()
            E = (sum(a.energy()) + sum(b.energy()) + 0.5 * m * v @ v + 0.5 * J * w @ w
                 + m * 9.81 * body.GetPos().y + sum(t.energy() for t in att))
            return [E, a.joint_angles()[0], b.joint_angles()[0],
                    max(t.error()[0] for t in att), a.energy()[0] + b.energy()[0]]
        E0 = read()[0]
        rows = scenes.run(system, h, 0.12, read)
        return rows, E0

    drifts = []
    for h in (2e-3, 1e-3):
        rows, E0 = run(h)
        drifts.append(np.max(np.abs(rows[:, 0] - E0)))
    # it swings, and the loop holds: both welds stay closed to the bushing's compliance
    # (gap |F| / k_p: a few newtons over k_p = 1.9e6 N/m); the joint angles differ by
    # the two links' different deflections, (w_b(L) - w_a(L)) / L
    assert np.max(np.abs(rows[:, 1])) > 0.1 and np.max(np.abs(rows[:, 2])) > 0.1
    assert np.max(rows[:, 3]) < 1e-5
    assert math.log2(drifts[0] / drifts[1]) >= 1.5, drifts
    assert drifts[1] < 1e-4 * np.max(rows[:, 4]), drifts


def test_weld_on_a_link_carried_by_a_free_body_conserves_energy():
    """No gravity: a free parent body, a link on a free joint at its centre turning at
    1 rad/s, a body welded at mid-span; internal forces only, so the total energy (parent, link, body, bushing)
    is conserved, to the integrator's accuracy."""
    def run(h):
        system = scenes.new_system()
        parent = scenes.free_body(system, 2.0, (0.05, 0.05, 0.08), (0.0, 0.0, 0.0))
        link = FlexibleLink(system, arm(), parent_body=parent, joint_rates0=[1.0])
        m, J = 0.2, 2e-3
        body = scenes.free_body(system, m, (J, J, J), (L / 2, 0.0, 0.0))
        att = link.attach(body, s=L / 2)

        def read():
            E = (sum(link.energy()) + att.energy() + body_kinetic_energy(parent)
                 + body_kinetic_energy(body))
            return [E, np.linalg.norm(parent.GetPosDt().to_numpy())]
        E0 = read()[0]
        return scenes.run(system, h, 0.08, read), E0

    drifts = []
    for h in (4e-3, 2e-3):
        rows, E0 = run(h)
        drifts.append(np.max(np.abs(rows[:, 0] - E0)))
    # the joint is free and on the parent's centre: the parent moves back (it does not
    # turn: the joint forces pass through its centre of mass)
    assert np.max(rows[:, 1]) > 0.01
    assert math.log2(drifts[0] / drifts[1]) >= 1.5, drifts
    assert drifts[1] < 1e-4 * E0, (drifts, E0)


def test_tip_marker_still_follows_the_tip_with_a_welded_body():
    system = scenes.new_system(gravity=(0.0, -9.81, 0.0))
    link = FlexibleLink(system, arm())
    body = scenes.free_body(system, 0.2, (2e-3,) * 3, (L, 0.0, 0.0))
    att = link.attach(body)
    scenes.run(system, 2e-3, 0.05, lambda: 0.0)
    tip = link._tip_pose()[0]
    assert link.tip_body.IsFixed()
    assert np.allclose(link.tip_body.GetPos().to_numpy(), tip, rtol=0, atol=1e-12)
    # the welded body sits on the tip, to the gap
    gap = np.linalg.norm(body.GetPos().to_numpy() - tip)
    assert gap <= att.error()[0] + 1e-12 and gap < 1e-5
    assert tip[1] < -0.01                      # it really fell


# -- bad input ---------------------------------------------------------------------------

def test_bad_attachments_are_named(chrono):
    system = scenes.new_system()
    link = FlexibleLink(system, arm())
    other = scenes.new_system()
    stranger = scenes.free_body(other, 1.0, (1, 1, 1), (L, 0, 0))
    loose = chrono.ChBody()
    body = scenes.free_body(system, 1.0, (1, 1, 1), (L, 0, 0))
    fixed = scenes.free_body(system, 1.0, (1, 1, 1), (L, 0, 0))
    fixed.SetFixed(True)
    shaft = chrono.ChShaft()
    system.Add(shaft)
    cases = [
        (dict(body=stranger), "body", "system"),
        (dict(body=loose), "body", "system"),
        (dict(body=shaft), "body", "ChBody"),
        (dict(body="tip"), "body", "ChBody"),
        (dict(body=fixed), "body", "fixed"),
        (dict(body=link.tip_body), "body", "fixed"),
        (dict(body=body, s=1.5 * L), "s", "lie on link 0"),
        (dict(body=body, s=-0.1), "s", "lie on link 0"),
        (dict(body=body, s="end"), "s", "arc length"),
        (dict(body=body, link=1), "link", "link number"),
        (dict(body=body, link=-2), "link", "link number"),
        (dict(body=body, frame=(0, 0, 0)), "frame", "ChFramed"),
        (dict(body=body, stiffness_ratio=0.0), "stiffness_ratio", "positive"),
        (dict(body=body, damping_ratio=-1.0), "damping_ratio", ">= 0"),
    ]
    for kw, name, words in cases:
        with pytest.raises(ParameterError) as err:
            link.attach(**kw)
        assert err.value.parameter == name and words in str(err.value), (kw, str(err.value))
    assert link.attachments == []            # nothing was half-attached


def test_the_parent_body_cannot_be_welded_to_its_own_link():
    system = scenes.new_system()
    parent = scenes.free_body(system, 2.0, (0.1, 0.1, 0.1), (0, 0, 0))
    link = FlexibleLink(system, arm(), parent_body=parent)
    with pytest.raises(ParameterError, match="parent"):
        link.attach(parent)


def crank_with_welded_pin(**configure):
    """A 0.3 kg pin welded (ratio 1e4, k_p = 3e8 N/m) to the tip of a 4-element rod
    turning at 8 rad/s on a crank spinning at 2 pi rad/s."""
    import pychrono as chrono

    from chrono_flex.chrono import configure_system

    system = scenes.new_system()
    if configure:
        configure_system(system, **configure)
    crank = scenes.free_body(system, 0.5, (2e-3,) * 3, (0.0, 0.0, 0.0))
    crank.SetAngVelLocal(chrono.ChVector3d(0, 0, 2 * math.pi))
    rod = cf.PlanarArm([cf.Link(length=0.5, n_elements=4, EI=5.0, rho_A=0.5)])
    link = FlexibleLink(system, rod, parent_body=crank, joint_rates0=[8.0],
                        joint_frame=((0.15, 0, 0), (1, 0, 0), (0, 1, 0)))
    pin = scenes.free_body(system, 0.3, (1e-3,) * 3, (0.65, 0.0, 0.0))
    return system, link, link.attach(pin, stiffness_ratio=1e4)


def test_a_stiff_weld_on_a_fast_turning_link_runs_under_the_kept_jacobian():
    """Chrono forms K at Newton's first iterate, where the weld is open by the predicted
    motion; its spurious geometric stiffness there is taken out and the weld's K kept
    current (docs/chrono.md §8). Without that this scene's Newton diverged at the
    first step; with it, a few iterations a step."""
    system, link, att = crank_with_welded_pin()
    gaps = scenes.run(system, 1e-3, 0.02, lambda: att.error()[0])
    nw = link._nw
    # one Jacobian (2 nw + 2 calls) and a handful of iterations per step
    assert link.n_compute_q / 20 < (2 * nw + 2) + 10
    assert np.max(gaps) < 1e-6


def test_a_newton_failure_with_a_weld_names_the_ways_out():
    from chrono_flex.errors import SimulationError

    system, _, _ = crank_with_welded_pin(max_iters=1)
    with pytest.raises(SimulationError, match="jacobian='iteration' or a smaller stiffness_ratio"):
        scenes.run(system, 1e-3, 0.01, lambda: 0.0)


def test_a_welded_tip_body_with_a_collision_shape_hits_a_table_and_bounces_the_link(chrono):
    """SMC contact: a pendulum (EI = 50 N m^2) released horizontal; its tip carries a
    welded sphere (r = 3 cm) that meets a fixed box 0.3 m below. The contact force acts
    on the sphere only; through the weld it stops and throws back the link."""
    from chrono_flex.chrono import configure_system

    system = chrono.ChSystemSMC()
    system.SetGravitationalAcceleration(chrono.ChVector3d(0, -9.81, 0))
    system.SetCollisionSystemType(chrono.ChCollisionSystem.Type_BULLET)
    configure_system(system)
    mat = chrono.ChContactMaterialSMC()
    mat.SetYoungModulus(1e6)
    mat.SetRestitution(0.2)
    top, radius = -0.33, 0.03
    table = chrono.ChBodyEasyBox(1.0, 0.1, 0.4, 1000, True, True, mat)
    table.SetPos(chrono.ChVector3d(1.0, top - 0.05, 0))
    table.SetFixed(True)
    system.Add(table)
    link = FlexibleLink(system, cf.PlanarArm([cf.Link(length=L, n_elements=2, EI=50.0,
                                                      rho_A=RHO_A)]))
    ball = chrono.ChBodyEasySphere(radius, 2000, True, True, mat)
    ball.SetPos(chrono.ChVector3d(L, 0, 0))
    system.Add(ball)
    # ratio 100: the pendulum turns at ~3 rad/s, with h = 2 ms (docs/chrono.md §8)
    att = link.attach(ball, stiffness_ratio=100)
    rows = scenes.run(system, 2e-3, 0.34, lambda: [ball.GetPos().y, ball.GetPosDt().y,
                                                   system.GetNumContacts(), att.error()[0]])
    y, vy, contacts = rows[:, 0], rows[:, 1], rows[:, 2]
    hit = np.argmax(contacts > 0)
    assert contacts.max() > 0 and hit > 0
    # it touched and did not go through: at most the Hertz overlap of the tip's
    # effective mass I/L^2 arriving at the free-fall speed (Johnson, Contact mechanics
    # 1985, §11.4:
    # delta = (15 m v^2 / (16 E* sqrt(R)))^(2/5), E* = E / (2 (1 - nu^2)), nu = 0.3)
    m_eff = (RHO_A * L ** 3 / 3 + ball.GetMass() * L ** 2) / L ** 2
    omega2 = 2 * 9.81 * 0.3 * (RHO_A * L / 2 + ball.GetMass()) / (m_eff * L ** 2)
    E_star = 1e6 / (2 * (1 - 0.3 ** 2))
    delta = (15 * m_eff * omega2 * L ** 2 / (16 * E_star * math.sqrt(radius))) ** 0.4
    assert top + radius - delta < y.min() < top + radius + 1e-3
    # the table threw it back up, and the link with it (the weld holds: gap < 1 mm)
    assert vy[:hit].max() <= 0.0 and vy[hit:].max() > 0.1
    assert rows[:, 3].max() < 1e-3


def test_bench_reports_the_slider_cranks_wall_time():
    from chrono_flex.bench import bench_slider_crank, bench_slider_crank_formulations

    out = bench_slider_crank(t_sim=0.005, differences="chrono")
    assert out["wall_per_sim_second"] > 0
    # Chrono's differences: a Jacobian (2 nw + 2 = 44 calls over the crank, 9 shafts and
    # the pin) per step, plus Newton's iterations
    assert 44 < out["compute_q_calls_per_step"] < 100
    # differenced on arrays: Newton's iterations only (HHT converges in 4 or 5)
    assert bench_slider_crank(t_sim=0.005)["compute_q_calls_per_step"] < 12
    rows = bench_slider_crank_formulations(t_sim=0.005, repeat=3)
    assert [(r["formulation"], r["jacobian"], r["differences"]) for r in rows] == [
        ("element", "step", "chrono"), ("element", "step", "arrays"),
        ("element", "auto", "chrono"), ("element", "auto", "arrays"), ("beam", None, None)]
    assert rows[-1]["compute_q_calls_per_step"] is None and rows[-1]["ratio"] == 1.0
    # ratios are the wall times over the beams'
    for r in rows:
        assert r["ratio"] == pytest.approx(r["wall_per_sim_second"]
                                           / rows[-1]["wall_per_sim_second"])
    # "auto" keeps the Jacobian: fewer calls than one build (44) per step
    assert rows[2]["compute_q_calls_per_step"] < 44
    # and each round's ratio, over the beams' time of the same round (the beams' own: 1)
    assert all(len(r["round_ratios"]) == 3 and min(r["round_ratios"]) > 0 for r in rows)
    assert rows[-1]["round_ratios"] == [1.0, 1.0, 1.0]
    # the verdict one disturbed round cannot move: the median of the rounds' ratios, and
    # the processor times' ratios (the beams' own: 1)
    for r in rows:
        assert r["median_ratio"] == pytest.approx(sorted(r["round_ratios"])[1])
        assert r["cpu_per_sim_second"] > 0 and r["cpu_median_ratio"] > 0
    assert rows[-1]["median_ratio"] == rows[-1]["cpu_ratio"] == 1.0
    assert rows[-1]["load_start"] is None or rows[-1]["load_start"] >= 0
