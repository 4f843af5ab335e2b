"""Spatial links and a branched arm built from Chrono's beams (chrono_flex.chrono.spatial_beams,
docs/chrono.md §11), checked against closed forms through the natural modes of the whole
Chrono system (chrono_flex.chrono.modal: Chrono's own M, K and constraint Jacobian).

Closed forms (Euler-Bernoulli beam and Saint-Venant torsion; Blevins, Formulas for
natural frequency and mode shape, 1979, tables 8-1 and 8-19):

* clamped-free bending in each principal plane, omega_r = (beta_r L)^2 sqrt(EI / (rho_A L^4))
  with EI_z for deflection along the section's y axis and EI_y along z;
* clamped-free torsion, omega_n = (2n - 1) pi / (2 L) sqrt(GJ / rho_Ip);
* static tip loads: w = P L^3 / (3 EI) in each plane, twist phi = T L / GJ;
* a hub turning freely with two identical links at 180 degrees: the modes in which the
  links bend in opposite senses leave the hub still (clamped-free frequencies); in the
  others the hub turns, at the roots of the hub-and-links frequency equation
  (:func:`chrono_flex.spatial.closed_forms.hub_links_frequencies`, docs/spatial-link.md
  §5.3); out-of-plane bending and torsion stay clamped-free.

Chrono's ``ChElementBeamEuler`` lumps the mass at the nodes, so its frequencies converge
at order 2 in the element count (a consistent mass would give 4): the cases check the
observed order, which is ~0 when a closed form or a property is wrong. Its static tip
deflection under tip loads is exact at the nodes (cubic interpolation of the bending, linear
of the twist), so the static case checks to the solver's round-off.
"""

import functools
import math

import numpy as np
from scipy.spatial.transform import Rotation

from ..core import Outcome, case, step_error
from ...inputs import spin_up
from ...spatial.closed_forms import (bending_frequencies, cantilever_deflection,
                                     hub_links_frequencies, torsion_frequencies)

L, RHO_A, EI_Y, EI_Z, GJ, RHO_IP = 1.0, 0.5, 2.0, 5.0, 1.0, 1e-3
#: The link's frame in the world: along (1, 1, 0.5), section y close to +Z (a skew frame,
#: so that nothing lines up with Chrono's axes by accident).
X_AXIS, Y_AXIS = (1.0, 1.0, 0.5), (0.0, 0.0, 1.0)
#: Hub inertia ratio eta = J_hub / (rho_A L^3) and the hub axis (tilted).
ETA, HUB_AXIS = 0.1, (0.3, -0.2, 1.0)
MESHES = (8, 16, 32)


def _section(n):
    from chrono_flex.chrono.spatial_beams import SpatialSection

    return SpatialSection(L, n, EI_y=EI_Y, EI_z=EI_Z, GJ=GJ, rho_A=RHO_A, rho_Ip=RHO_IP)


def _new_system():
    from chrono_flex.chrono.spatial_beams import static_system

    return static_system()


def _clamped(n):
    from chrono_flex.chrono.spatial_beams import clamped_link

    return clamped_link(_section(n), (0.1, 0.2, 0.3), X_AXIS, Y_AXIS)


def _bend(EI, k):
    return bending_frequencies(EI, RHO_A, L, k)


def _torsion(k):
    return torsion_frequencies(GJ, RHO_IP, L, k)


def _orders(errors):
    """Observed order of each column between consecutive meshes (each doubles n)."""
    e = np.asarray(errors)
    return np.log2(e[:-1] / e[1:])


def _order_outcome(exact, errs, rows):
    """Outcome of a mesh study: the smallest observed order from 16 to 32 elements, with
    the errors and orders in the details (``rows``, cached, is copied, not extended)."""
    orders = _orders(errs)
    rows = list(rows) + [
        "relative errors at 32 elements: " + ", ".join(f"{e:.2e}" for e in errs[-1]),
        "observed orders 8->16: " + ", ".join(f"{o:.2f}" for o in orders[0])
        + "; 16->32: " + ", ".join(f"{o:.2f}" for o in orders[1])]
    return Outcome(float(orders[-1].min()), details=rows,
                   data=dict(errors_32=errs[-1].tolist()))


@functools.lru_cache(maxsize=None)
def _clamped_study():
    from chrono_flex.chrono.modal import system_modes
    exact = np.sort(np.concatenate([_bend(EI_Y, 3), _bend(EI_Z, 3), _torsion(3)]))[:6]
    rows, errs = [], []
    for n in MESHES:
        sys_, _ = _clamped(n)
        f = system_modes(sys_, 6).frequencies
        errs.append(np.abs(f - exact) / exact)
        rows.append(f"{n} elements: " + ", ".join(f"{x:.4f}" for x in f) + " Hz")
    rows.append("closed forms: " + ", ".join(f"{x:.4f}" for x in exact) + " Hz (bending "
                "about y: 1st, 3rd, 6th; about z: 2nd, 5th; torsion: 4th)")
    return exact, np.array(errs), rows


@case("spatial-link.chrono-beam-modes", tolerance=1.8, compare="ge", engines=("chrono-beam",),
      needs_pychrono=True)
def chrono_beam_modes(ctx):
    """Quantity: first six frequencies of a clamped-free spatial link of Chrono's beams in a
        skew frame (bending in two planes, EI_y = 2, EI_z = 5 N m^2; torsion GJ = 1 N m^2,
        rho_Ip = 1e-3 kg m) from the system's modes, at 8, 16 and 32 elements

    Metric: smallest observed order of the frequency error from 16 to 32 elements

    Reason: the lumped mass of ChElementBeamEuler converges at order 2; 1.8 leaves room for
        the pre-asymptotic range. A wrong property or closed form stalls the error (order
        ~0)

    Source: Blevins 1979 tables 8-1, 8-19; docs/chrono.md §11"""
    return _order_outcome(*_clamped_study())


@case("spatial-link.chrono-beam-static", tolerance=1e-8, engines=("chrono-beam",),
      needs_pychrono=True)
def chrono_beam_static(ctx):
    """Quantity: tip deflection under a skew tip force (0.1 N along y, 0.2 N along z of the
        section) and tip twist under a tip torque (0.05 N m) of the same link (8 elements),
        Chrono's linear static analysis

    Metric: max relative error against P L^3/(3 EI) in each plane and T L / GJ

    Reason: Euler-Bernoulli elements are nodally exact for tip loads; what is left is the
        direct sparse solve (condition ~ EA/EI * n^2 ~ 1e6 times round-off)

    Source: Young & Budynas 2002 table 8.1; docs/chrono.md §11"""
    sys_, link = _clamped(8)
    R = link.axes
    Py, Pz, T = 0.1, 0.2, 0.05
    link.load_tip(force=(0.0, Py, Pz), torque=(T, 0.0, 0.0))
    sys_.DoStaticLinear()
    d = R.T @ link.tip_displacement()               # in the link's frame

    # the linear solve turns the node by the exponential of its rotation vector: the twist
    # is that vector's component along the link (atan2 of matrix entries would mix in the
    # bending slopes at second order)
    twist = Rotation.from_matrix(link.tip_rotation()).as_rotvec()[0]

    v, _, w, _, phi = cantilever_deflection(L, L, EI_Y, EI_Z, GJ, force=(Py, Pz), torque=T)
    exact = np.array([v, w, phi])           # P L^3 / (3 EI) in each plane, T L / GJ
    got = np.array([d[1], d[2], twist])
    err = np.abs(got - exact) / np.abs(exact)
    return Outcome(float(err.max()), details=[
        f"tip deflection along y {d[1]:.9g} m (P L^3/3EI_z = {exact[0]:.9g}), along z "
        f"{d[2]:.9g} m ({exact[1]:.9g}); axial {d[0]:.2e} m",
        f"tip twist {twist:.9g} rad (T L / GJ = {exact[2]:.9g})"])


@functools.lru_cache(maxsize=None)
def _hub_study():
    from chrono_flex.chrono.modal import system_modes
    from chrono_flex.chrono.spatial_beams import hub_with_links

    hub = hub_links_frequencies(2, EI_Z, RHO_A, L, ETA * RHO_A * L**3, n_links=2)
    exact = np.sort(np.concatenate([_bend(EI_Y, 2), _bend(EI_Y, 2), _bend(EI_Z, 2), hub,
                                    _torsion(1), _torsion(1)]))
    rows, errs = [], []
    for n in MESHES:
        sys_ = _new_system()
        hub_with_links(sys_, _section(n), ETA * RHO_A * L**3, 2, axis=HUB_AXIS)
        f = system_modes(sys_, 11).frequencies[1:]          # skip the hub's free rotation
        errs.append(np.abs(f - exact) / exact)
        rows.append(f"{n} elements: " + ", ".join(f"{x:.4f}" for x in f) + " Hz")
    rows.append("closed forms: " + ", ".join(f"{x:.4f}" for x in exact) + " Hz; the hub "
                f"turns in {hub.round(4).tolist()} Hz (eta = {ETA})")
    return exact, np.array(errs), rows


@case("spatial-link.chrono-beam-hub", tolerance=1.8, compare="ge", engines=("chrono-beam",),
      needs_pychrono=True)
def chrono_beam_hub(ctx):
    """Quantity: first ten elastic frequencies of a hub (eta = J_hub / (rho_A L^3) = 0.1, free
        on a tilted revolute joint) carrying two identical spatial links of Chrono's beams
        at 180 degrees, at 8, 16 and 32 elements per link

    Metric: smallest observed order of the frequency error from 16 to 32 elements

    Reason: lumped mass: order 2 (see spatial-link.chrono-beam-modes); a wrong hub equation
        or a wrongly mounted link stalls the error

    Source: docs/spatial-link.md §5.3 (hub equation); Blevins 1979 table 8-1"""
    return _order_outcome(*_hub_study())


#: Tilted spin-up: a stiff link (tip deflections ~3e-4 L, where the linear reference and
#: Chrono's geometrically exact beams differ only at second order) leaning GAMMA out of
#: the plane of rotation, spun up from rest to OMEGA over T_UP, run to T_TILT.
TILT = dict(EI_y=200.0, EI_z=500.0, GJ=100.0)
GAMMA, OMEGA, T_UP, T_TILT, H_TILT = 0.4, 2.0, 1.0, 1.5, 1e-3


def _tilted_arm():
    from chrono_flex.spatial import RevoluteJoint, SpatialArm, SpatialLink

    link = SpatialLink(L, 4, rho_A=RHO_A, rho_Ip=RHO_IP, **TILT)
    return SpatialArm([link], joints=[RevoluteJoint(axis=(0, 0, 1), x_axis=(
        math.cos(GAMMA), 0.0, math.sin(GAMMA)), y_axis=(0, 1, 0))], geometric_stiffening=True)


@functools.lru_cache(maxsize=None)
def _tilted_reference():
    """Tip (v, w) of the tilted spin-up by the reference engine, every 0.01 s."""
    ref = _tilted_arm().simulate(T_TILT, joint_motion=spin_up(OMEGA, T_UP), dt_out=0.01,
                                 method="Radau", rtol=1e-6, atol=1e-10, progress=False)
    return ref.extra["tip_vw_phi"][:, 0, :2]


@functools.lru_cache(maxsize=None)
def _tilted_spin_up():
    from chrono_flex.chrono.spatial_beams import SpatialSection, hub_with_links
    from chrono_flex.chrono.system import configure_system, step

    motion = spin_up(OMEGA, T_UP)
    vw_ref = _tilted_reference()

    def beams(n, h):
        from chrono_flex.chrono.spatial_beams import static_system

        sys_ = static_system()
        configure_system(sys_, "hht")
        sec = SpatialSection(L, n, rho_A=RHO_A, rho_Ip=RHO_IP, **TILT)
        hub = hub_with_links(sys_, sec, 0.05, 1, axis=(0, 0, 1), elevation=GAMMA, motion=motion)
        every, out = int(round(0.01 / h)), [np.zeros(2)]
        for i in range(int(round(T_TILT / h))):
            step(sys_, h)
            if (i + 1) % every == 0:
                out.append(hub.tip_deflection(0)[1:])
        return np.array(out)

    return vw_ref, beams(16, H_TILT), beams(32, H_TILT), beams(16, H_TILT / 2)


@case("spatial-link.spin-up-tilted", tolerance=1.0, engines=("reference", "chrono-beam"),
      needs_pychrono=True)
def spin_up_tilted(ctx):
    """Quantity: tip deflections v (in the plane of rotation) and w (out of it) of a link
        leaning 0.4 rad out of its plane of rotation, spun up from rest to 2 rad/s in 1 s
        about a vertical axis: reference engine (4 elements, geometric stiffening) against
        Chrono's beams (32 elements, HHT 1 ms)

    Metric: max over time of |v_beams - v_ref| and |w_beams - w_ref|, each over its bound

    Reason: bound per component = 3 (e_mesh + e_step) of the beams (Richardson from 16 and
        32 elements, order 2 of the lumped mass; step halving at 16) + delta^2/L
        (second-order geometry the linear reference leaves out) and, for w, rho_Ip Omega^2
        sin(g) cos(g) L^2 / (2 EI_y): the gyroscopic moment of the polar inertia on the bent
        section, which Chrono's nodes carry and the Euler-Bernoulli reference (no section
        rotary inertia) leaves out

    Source: docs/spatial-link.md; docs/chrono.md §11"""
    ref, b16, b32, b16h = _tilted_spin_up()
    e_mesh = np.max(np.abs(b32 - b16), axis=0) / 3.0        # order 2: e(32) ~ |y32 - y16| / 3
    e_step = np.max(np.abs(b16h - b16), axis=0)
    delta = float(np.max(np.abs(ref)))
    gyro = RHO_IP * OMEGA**2 * math.sin(GAMMA) * math.cos(GAMMA) * L**2 / (2 * TILT["EI_y"])
    bound = 3.0 * (e_mesh + e_step) + delta**2 / L + np.array([0.0, gyro])
    diff = np.max(np.abs(b32 - ref), axis=0)
    return Outcome(float(np.max(diff / bound)), details=[
        f"peak tip deflection v {np.abs(ref[:, 0]).max():.3e} m, w {np.abs(ref[:, 1]).max():.3e} m",
        f"max |beams - reference|: v {diff[0]:.2e} m, w {diff[1]:.2e} m",
        f"bounds: v {bound[0]:.2e} m, w {bound[1]:.2e} m (mesh {e_mesh[0]:.1e}, {e_mesh[1]:.1e}; "
        f"step {e_step[0]:.1e}, {e_step[1]:.1e}; delta^2/L {delta**2 / L:.1e}; "
        f"polar-inertia moment {gyro:.1e})",
        "the custom element on the same spin-up: spatial-link.element-spin-up-tilted"],
        data=dict(diff=diff.tolist(), bound=bound.tolist()))


@functools.lru_cache(maxsize=None)
def _tilted_spin_up_element():
    from chrono_flex.chrono import SpatialFlexibleLink, step
    from chrono_flex.chrono.scenes import new_system

    motion = spin_up(OMEGA, T_UP)
    arm = _tilted_arm()

    def run(h):
        sys_ = new_system()
        el = SpatialFlexibleLink(sys_, arm, joint_motion=motion)
        every, out = int(round(0.01 / h)), [np.zeros(2)]
        for i in range(int(round(T_TILT / h))):
            step(sys_, h)
            if (i + 1) % every == 0:
                out.append(el.tip_coordinates()[0, :2])
        return np.array(out)

    return run(2 * H_TILT), run(H_TILT)


@case("spatial-link.element-spin-up-tilted", tolerance=1.0, engines=("reference", "chrono"),
      needs_pychrono=True)
def element_spin_up_tilted(ctx):
    """Quantity: tip deflections v and w of the tilted spin-up of spatial-link.spin-up-tilted
        (4 elements, geometric stiffening): the custom element in Chrono
        (SpatialFlexibleLink, HHT 2 ms) against the reference engine

    Metric: max over time of |v_element - v_ref| and |w_element - w_ref|, each over its
        bound

    Reason: same equations in both engines, so the bound is the time integration error: 3
        e(h) with e(h) = 4/3 |y(h) - y(h/2)| (Richardson, order 2 of HHT with alpha = 0)
        plus the reference's tolerance (rtol 1e-6 of the peak, atol 1e-10)

    Source: docs/spatial-link.md; docs/chrono.md §2"""
    ref = _tilted_reference()
    y1, y2 = _tilted_spin_up_element()
    e_step = step_error(y1, y2)          # HHT with alpha = 0: order 2
    peak = np.max(np.abs(ref), axis=0)
    bound = 3.0 * e_step + 1e-6 * peak + 1e-10
    diff = np.max(np.abs(y1 - ref), axis=0)
    return Outcome(float(np.max(diff / bound)), details=[
        f"peak tip deflection v {peak[0]:.3e} m, w {peak[1]:.3e} m",
        f"max |element - reference|: v {diff[0]:.2e} m, w {diff[1]:.2e} m",
        f"bounds: v {bound[0]:.2e} m, w {bound[1]:.2e} m (step estimate {e_step[0]:.1e}, "
        f"{e_step[1]:.1e})"], data=dict(diff=diff.tolist(), bound=bound.tolist()))


# -- a whole SpatialArm tree built from Chrono's beams (arm_from_beams) --------------------

#: Joint values the tree is checked at (turned joints, so that a wrong axis shows).
TREE_THETA0 = (0.3, -0.5)


def beam_tree_arm(n, stiffness=1.0, geometric_stiffening=False):
    """The test tree of the ``spatial-link.chrono-beam-tree*`` cases (n elements per link):
    a hub (RigidBody) on a tilted revolute axis carrying two links welded at different
    mountings (one along the hub's x, one pointing back and up); the first link's tip
    carries a third link on a revolute joint about a skew axis, with a hub mass and rotor
    and a skew mounting, and that link's tip a payload with products of inertia.
    ``stiffness`` scales EI_y, EI_z and GJ."""
    from chrono_flex.spatial import (FixedJoint, RevoluteJoint, RigidBody, SpatialArm,
                                     SpatialLink)

    s = float(stiffness)
    l1 = SpatialLink(1.0, n, EI_y=2.0 * s, EI_z=5.0 * s, GJ=1.0 * s, rho_A=0.5, rho_Ip=1e-3)
    l2 = SpatialLink(0.7, n, EI_y=1.5 * s, EI_z=2.5 * s, GJ=0.8 * s, rho_A=0.4, rho_Ip=1e-3)
    l3 = SpatialLink(0.5, n, EI_y=1.0 * s, EI_z=1.2 * s, GJ=0.5 * s, rho_A=0.3, rho_Ip=5e-4)
    hub = RigidBody(2.0, (0.02, 0.03, 0.05))
    payload = RigidBody(0.2, [[2e-3, 1e-4, 0.0], [1e-4, 3e-3, 0.0], [0.0, 0.0, 1e-3]])
    joints = [RevoluteJoint(axis=(0.3, -0.2, 1.0)),
              FixedJoint(offset=(0.1, 0.0, 0.0)),
              FixedJoint(offset=(-0.1, 0.0, 0.02), x_axis=(-1.0, 0.2, 0.3), y_axis=(0, 1, 0)),
              RevoluteJoint(axis=(0.2, 0.5, 1.0), hub_inertia=2e-3, hub_mass=0.1,
                            offset=(0.02, 0.0, 0.0), x_axis=(0.8, 0.6, 0.1),
                            y_axis=(-0.6, 0.8, 0.0)),
              FixedJoint(offset=(0.03, 0.0, 0.0))]
    return SpatialArm([hub, l1, l2, l3, payload], joints, [-1, 0, 0, 1, 3],
                      geometric_stiffening=geometric_stiffening)


#: Elements of the reference engine's tree in the modal check (consistent mass, order 4:
#: 12 elements already agree with it to 2e-5 in the 8th frequency).
TREE_REF_ELEMENTS = 24
TREE_MODES = 8
#: Chrono meshes of the tree's modal check. Not 32: with three links the axial rigidity
#: (AXIAL_RATIO EI / l_e^2) makes the written stiffness matrix lose the digits of the
#: softest mode at 32 elements (its error then stalls near 7e-4).
TREE_MESHES = (4, 8, 16)


@functools.lru_cache(maxsize=None)
def _tree_modes_study():
    from chrono_flex.chrono.modal import system_modes
    from chrono_flex.chrono.spatial_beams import arm_from_beams

    ref = beam_tree_arm(TREE_REF_ELEMENTS)
    q = np.zeros(ref.nq)
    q[ref.joint_index] = TREE_THETA0
    exact = ref.natural_frequencies(TREE_MODES, q=q, joints="free")
    nj = ref.n_joints
    rows, errs, rigid = [], [], []
    for n in TREE_MESHES:
        sys_ = _new_system()
        arm_from_beams(sys_, beam_tree_arm(n), joint_values0=TREE_THETA0)
        f = system_modes(sys_, TREE_MODES + nj).frequencies
        rigid.append(f[:nj].max() / f[nj])   # the free joints' turns (zero frequency)
        f = f[nj:]
        errs.append(np.abs(f - exact) / exact)
        rows.append(f"{n} elements: " + ", ".join(f"{x:.4f}" for x in f) + " Hz")
    rows.append(f"reference engine ({TREE_REF_ELEMENTS} elements, joints free): "
                + ", ".join(f"{x:.4f}" for x in exact) + " Hz")
    rows.append("the joints' own turns (zero frequency) at most "
                f"{max(rigid):.1e} of the first elastic frequency")
    return exact, np.array(errs), rows, max(rigid)


@case("spatial-link.chrono-beam-tree-modes", tolerance=1.8, compare="ge",
      engines=("reference", "chrono-beam"), needs_pychrono=True)
def chrono_beam_tree_modes(ctx):
    """Quantity: eight lowest elastic frequencies of a tree built by arm_from_beams (a hub on a
        tilted revolute joint, two links welded at different mountings, a third link on a
        skew revolute joint at the first one's tip with a hub rotor, a payload with products
        of inertia; joints turned to 0.3 and -0.5 rad and free) at 4, 8 and 16 elements per
        link, against the reference engine's natural_frequencies(joints='free')

    Metric: smallest observed order of the frequency error from 8 to 16 elements

    Reason: lumped mass: order 2 (see spatial-link.chrono-beam-modes); a joint, mounting,
        offset or inertia placed differently from the reference engine's kinematics leaves
        an error that does not fall with the mesh (order ~0)

    Source: docs/chrono.md §11; docs/spatial-link.md §4.2"""
    exact, errs, rows, rigid = _tree_modes_study()
    orders = _orders(errs)
    rows = list(rows) + [
        "relative errors at 16 elements: " + ", ".join(f"{e:.2e}" for e in errs[-1]),
        "observed orders 4->8: " + ", ".join(f"{o:.2f}" for o in orders[0])
        + "; 8->16: " + ", ".join(f"{o:.2f}" for o in orders[1])]
    # the joints' two zero-frequency turns must stand apart from the elastic modes
    value = float(orders[-1].min()) if rigid < 0.05 else 0.0
    return Outcome(value, details=rows, data=dict(errors_16=errs[-1].tolist()))


#: The tree's prescribed motion: the hub spun up from rest to TREE_OMEGA over TREE_T_UP
#: (Kane-Ryan-Banerjee profile), the second link's joint turned by TREE_TURN along a
#: quintic over the same time; run to TREE_T_END, reference output every TREE_DT_OUT.
#: Links TREE_STIFFNESS times the modal tree's (tip deflections up to 1.6e-3 L).
TREE_OMEGA, TREE_TURN, TREE_T_UP, TREE_T_END, TREE_DT_OUT = 0.6, 0.15, 0.3, 0.35, 0.01
TREE_STIFFNESS = 300.0
#: Chrono's runs: (elements per link, HHT step) for the result, the mesh and the step study.
TREE_RUNS = ((12, 2e-3), (6, 2e-3), (6, 1e-3))


def tree_motion(t):
    """(theta, theta_d, theta_dd) of the tree's two joints at t (see TREE_OMEGA)."""
    a, ad, add = spin_up(TREE_OMEGA, TREE_T_UP)(t)
    s = min(t / TREE_T_UP, 1.0)
    up = t < TREE_T_UP
    p = 10 * s**3 - 15 * s**4 + 6 * s**5
    pd = (30 * s**2 - 60 * s**3 + 30 * s**4) / TREE_T_UP if up else 0.0
    pdd = (60 * s - 180 * s**2 + 120 * s**3) / TREE_T_UP**2 if up else 0.0
    th0 = np.asarray(TREE_THETA0)
    return (th0 + np.array([a[0], TREE_TURN * p]), np.array([ad[0], TREE_TURN * pd]),
            np.array([add[0], TREE_TURN * pdd]))


@functools.lru_cache(maxsize=None)
def _tree_motion_study():
    from chrono_flex.chrono.spatial_beams import arm_from_beams
    from chrono_flex.chrono.system import configure_system, step

    # reference: 3 elements per link (Hermite elements are nodally exact for the quasi-
    # static part; 4 elements move v, w, phi by < 1.2e-7), Radau at rtol 1e-3 (1e-4 moves
    # them by < 2.5e-7): below every bound (the smallest, link 1's twist at 3.7e-9 rad,
    # moves by < 3e-11)
    arm = beam_tree_arm(3, TREE_STIFFNESS, geometric_stiffening=True)
    ref = arm.simulate(TREE_T_END, joint_motion=tree_motion, dt_out=TREE_DT_OUT, method="Radau", rtol=1e-3,
                       progress=False)

    def beams(n, h):
        sys_ = _new_system()
        # Newton to 1e-7 of the accelerations: at 1e-9 it stalls at round-off once the
        # spin loads three stiff beams (EA ~ 1e4 EI / l_e^2); 1e-7 of the accelerations
        # moves the deflections by ~1e-7 of their size, far below the bound
        configure_system(sys_, "hht", rel_tol=1e-7)
        tree = arm_from_beams(sys_, beam_tree_arm(n, TREE_STIFFNESS),
                              joint_values0=TREE_THETA0, joint_motion=tree_motion)
        every = int(round(TREE_DT_OUT / h))
        vw, q, tip = [tree.tip_vw_phi()], [tree.joint_coordinates()], [tree.tip_position()]
        for i in range(int(round(TREE_T_END / h))):
            step(sys_, h)
            if (i + 1) % every == 0:
                vw.append(tree.tip_vw_phi())
                q.append(tree.joint_coordinates())
                tip.append(tree.tip_position())
        return np.array(vw), np.array(q), np.array(tip)

    return ref, [beams(n, h) for n, h in TREE_RUNS]


@case("spatial-link.chrono-beam-tree", tolerance=1.0, engines=("reference", "chrono-beam"),
      needs_pychrono=True)
def chrono_beam_tree(ctx):
    """Quantity: tip deflections v, w and twist phi of the three links of the tree of
        spatial-link.chrono-beam-tree-modes (links 300 times stiffer, geometric stiffening
        in the reference) while the hub spins up from rest to 0.6 rad/s and the second
        link's joint turns by 0.15 rad, both in 0.3 s, to 0.35 s: the tree built by
        arm_from_beams (12 elements per link, HHT 2 ms) against the reference engine

    Metric: max over time, links and components of |beams - reference| over its bound

    Reason: bound per link and component = 3 (e_mesh + e_step) of the beams (Richardson:
        e_mesh = |y12 - y6| / 3 at order 2 of the lumped mass, e_step = 4/3 |y(2 ms) - y(1
        ms)| at 6 elements, order 2 of HHT) + delta^2 / L (the second-order geometry the
        reference leaves out; (delta / L)^2 for the twist) + rho_Ip W^2 L^2 / (4 EI_min):
        the gyroscopic moment of the polar inertia on the bent section (Chrono's nodes carry
        it, the reference's Euler-Bernoulli section does not; W the sum of the joints' peak
        rates, sin g cos g <= 1/2)

    Source: docs/chrono.md §11; docs/spatial-link.md"""
    ref, runs = _tree_motion_study()
    (fine, q_fine, tip_fine), (coarse, _, _), (coarse_h, _, _) = runs
    y = ref.extra["tip_vw_phi"]                            # (nt, n_links, 3)
    arm = beam_tree_arm(3, TREE_STIFFNESS)
    links = [arm.bodies[i] for i in arm.model.links]
    L = np.array([lk.length for lk in links])
    EI = np.array([min(lk.EI_y, lk.EI_z) for lk in links])
    rho_Ip = np.array([lk.rho_Ip for lk in links])
    W = TREE_OMEGA + 1.875 * TREE_TURN / TREE_T_UP        # quintic's peak rate 15/8 A / T
    e_mesh = np.max(np.abs(fine - coarse), axis=0) / 3.0
    e_step = 4.0 / 3.0 * np.max(np.abs(coarse_h - coarse), axis=0)
    delta = np.max(np.hypot(y[..., 0], y[..., 1]), axis=0)  # per link
    geo = np.stack([delta**2 / L, delta**2 / L, (delta / L) ** 2], -1)
    gyro = rho_Ip * W**2 * L**2 / (4 * EI)
    bound = 3.0 * (e_mesh + e_step) + geo + np.stack([gyro, gyro, 0 * gyro], -1)
    diff = np.max(np.abs(fine - y), axis=0)
    ratio = diff / bound
    joints = float(np.max(np.abs(q_fine - ref.joint_angles)))
    tip = float(np.max(np.linalg.norm(tip_fine - ref.tip_position, axis=1)))
    rows = [f"link {k}: peak |v|, |w|, |phi| " + ", ".join(
        f"{x:.2e}" for x in np.max(np.abs(y[:, k]), axis=0)) + "; |beams - reference| "
        + ", ".join(f"{x:.1e}" for x in diff[k]) + "; bounds " + ", ".join(
            f"{x:.1e}" for x in bound[k]) for k in range(len(links))]
    rows.append(f"joint coordinates follow the motion to {joints:.1e}; the last tip agrees "
                f"to {tip:.1e} m")
    if not joints < 1e-8:                # the motors hold the prescribed motion
        return Outcome(np.inf, details=rows + ["the joints do not follow the motion"])
    return Outcome(float(np.max(ratio)), details=rows,
                   data=dict(diff=diff.tolist(), bound=bound.tolist()))


#: Torque input: smooth torques (half-cosine ramps over TREE_TQ_RAMP to TREE_TORQUE, N m)
#: on the two free joints of the tree (links TREE_STIFFNESS times the modal tree's), run
#: to TREE_TQ_END; Chrono at two meshes, HHT 2 ms.
TREE_TORQUE, TREE_TQ_RAMP, TREE_TQ_END = (0.5, -0.02), 0.1, 0.15
TREE_TQ_MESHES = (6, 12)


def tree_torque(t, q, qd):
    """The joint torques of spatial-link.chrono-beam-tree-torque at t (N m)."""
    s = 0.5 * (1.0 - math.cos(math.pi * min(t / TREE_TQ_RAMP, 1.0)))
    return np.asarray(TREE_TORQUE) * s


@functools.lru_cache(maxsize=None)
def _tree_torque_study():
    from chrono_flex.chrono.spatial_beams import arm_from_beams
    from chrono_flex.chrono.system import configure_system, step

    arm = beam_tree_arm(3, TREE_STIFFNESS, geometric_stiffening=True)
    q0 = np.zeros(arm.nq)
    q0[arm.joint_index] = TREE_THETA0
    ref = arm.simulate(TREE_TQ_END, q0=q0, torque=tree_torque, dt_out=TREE_DT_OUT,
                       method="Radau", rtol=1e-3, progress=False)
    h, out = 2e-3, []
    for n in TREE_TQ_MESHES:
        sys_ = _new_system()
        configure_system(sys_, "hht", rel_tol=1e-7)     # as in spatial-link.chrono-beam-tree
        tree = arm_from_beams(sys_, beam_tree_arm(n, TREE_STIFFNESS),
                              joint_values0=TREE_THETA0, torque=tree_torque)
        every, q = int(round(TREE_DT_OUT / h)), [tree.joint_coordinates()]
        for i in range(int(round(TREE_TQ_END / h))):
            step(sys_, h)
            if (i + 1) % every == 0:
                q.append(tree.joint_coordinates())
        out.append(np.array(q))
    return ref.joint_angles, out


@case("spatial-link.chrono-beam-tree-torque", tolerance=1.8, compare="ge",
      engines=("reference", "chrono-beam"), needs_pychrono=True)
def chrono_beam_tree_torque(ctx):
    """Quantity: joint angles of the tree of spatial-link.chrono-beam-tree (links 300 times
        stiffer than the modal tree's, joints free) under smooth joint torques (0.5 and
        -0.02 N m, reached in 0.1 s), to 0.15 s: the tree built by arm_from_beams with
        torque motors at 6 and 12 elements per link (HHT 2 ms) against the reference engine

    Metric: smallest observed order of the joint-angle error (max over time) from 6 to 12
        elements

    Reason: the joints' motion under given torques depends on the tree's inertia, which the
        lumped mass of Chrono's beams gets at order 2 in the element count (the step error,
        2e-8 rad from 2 to 1 ms, lies far below the mesh error); an inertia, offset or axis
        placed differently from the reference engine leaves an error that does not fall with
        the mesh

    Source: docs/chrono.md §11"""
    ref, (coarse, fine) = _tree_torque_study()
    e = np.array([np.max(np.abs(coarse - ref), axis=0), np.max(np.abs(fine - ref), axis=0)])
    order = np.log2(e[0] / e[1])
    swing = np.max(np.abs(ref - ref[0]), axis=0)
    return Outcome(float(order.min()), details=[
        "joint swing " + ", ".join(f"{x:.2e}" for x in swing) + " rad",
        "max |beams - reference| at 6 elements " + ", ".join(f"{x:.2e}" for x in e[0])
        + " rad, at 12 " + ", ".join(f"{x:.2e}" for x in e[1]) + " rad",
        "observed orders " + ", ".join(f"{x:.2f}" for x in order)],
        data=dict(errors=e.tolist()))


@case("spatial-link.element-weld-static", tolerance=1e-7, engines=("chrono", "closed form"),
      needs_pychrono=True)
def element_weld_static(ctx):
    """Quantity: tip deflections v(L), w(L) of a clamped spatial link (the custom element, 4
        elements, EI_y = 2, EI_z = 5 N m^2) under its own weight and that of a 0.2 kg body
        welded at its tip (SpatialFlexibleLink.attach), gravity skew to both bending planes,
        Chrono's static solve

    Metric: max over the two planes of |deflection - closed form| / closed form

    Reason: Hermite elements with consistent loads are nodally exact for a uniform load plus
        a tip force; the weld transmits exactly the body's weight (its gap, |F| / k_p, moves
        the body, not the link's load); what remains is Newton's tolerance on the static
        residual (1e-9 relative)

    Source: Roark (Young & Budynas 2002), table 8.1; docs/chrono.md §8, §12"""
    from chrono_flex.chrono.scenes import free_body, new_system
    from chrono_flex.chrono.spatial_element import SpatialFlexibleLink
    from chrono_flex.spatial.arm import SpatialArm
    from chrono_flex.spatial.params import FixedJoint, SpatialLink

    g = np.array([0.3, -4.0, -8.9])          # along the link, y and z of its sections
    m = 0.2
    link = SpatialLink(L, 4, EI_y=EI_Y, EI_z=EI_Z, GJ=GJ, rho_A=RHO_A, rho_Ip=RHO_IP)
    system = new_system(gravity=tuple(g))
    element = SpatialFlexibleLink(system, SpatialArm([link], [FixedJoint()]),
                                  jacobian="iteration")
    body = free_body(system, m, (1e-3, 1e-3, 1e-3), (L, 0.0, 0.0))
    weld = element.attach(body)
    if not system.DoStaticNonlinear(10):
        raise RuntimeError("Chrono's static solve did not converge")
    v, w, phi = element.tip_coordinates()[0]

    def tip(g_t, EI):                  # q L^4 / (8 EI) + P L^3 / (3 EI)
        return g_t * (RHO_A * L ** 4 / (8 * EI) + m * L ** 3 / (3 * EI))

    exact = np.array([tip(g[1], EI_Z), tip(g[2], EI_Y)])
    err = np.abs(np.array([v, w]) - exact) / np.abs(exact)
    gap_rule = m * np.linalg.norm(g) / weld.stiffness[0]
    return Outcome(float(np.max(err)), details=[
        f"v(L) = {v:.10f} m (closed form {exact[0]:.10f}), w(L) = {w:.10f} m "
        f"(closed form {exact[1]:.10f}), twist {phi:.1e} rad",
        f"weld gap {weld.error()[0]:.3e} m = m |g| / k_p {gap_rule:.3e} m; force on the body "
        f"{np.round(weld.force, 9)} N"],
        data=dict(v=float(v), w=float(w), exact=exact.tolist(), gap=weld.error()[0]))
