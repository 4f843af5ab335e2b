"""The spatial flexible link against beam theory and against the planar link
(docs/spatial-link.md §5; chrono_flex.spatial).

Closed forms (:mod:`chrono_flex.spatial.closed_forms`):

* clamped-free bending in each principal plane, 1 + cos(bL) cosh(bL) = 0 with EI_z for
  the deflection v and EI_y for w (Blevins table 8-1);
* clamped-free torsion, omega_n = (2n - 1) pi / (2L) sqrt(GJ / rho_Ip) (Blevins
  table 8-19);
* a cantilever under a skew tip force (P_y, P_z) and a tip torque T:
  v = P_y x^2 (3L - x) / (6 EI_z), w = P_z x^2 (3L - x) / (6 EI_y), phi = T x / GJ;
* two links on a free hub (docs/spatial-link.md §5.3).

Discretisation error: consistent-mass cubic Hermite elements err in frequency by
(b h)^4 / 1440 to leading order (Strang & Fix, An analysis of the finite element method,
ch. 6); consistent-mass linear torsion elements by (k h)^2 / 24, k = omega / c the wave
number (the same book: the eigenvalue error (k h)^2 / 12 of linear elements, halved for
the frequency). Both bounds below carry a factor 2 for the next-order terms. Static tip
loads carry no discretisation error: the exact deflections (cubic in x for bending, linear
for the twist) lie in the element spaces, so the nodes are exact (Tong 1969).
"""

import functools
import math

import numpy as np
from scipy.linalg import eigh

from ..core import Outcome, case, observed_rate
from ...planar import equations as pmdl
from ...planar.modes import eigenmodes
from ...planar.shapes import ModesBasis, clamped_free_roots, tapered_cantilever_coefficient
from ...spatial import params as sp
from ...spatial.arm import SpatialArm
from ...spatial.closed_forms import (bending_frequencies, cantilever_deflection,
                                     hub_links_determinant, torsion_frequencies)
from ...spatial.modes import steady_spin_frequencies
from ...spatial.params import RevoluteJoint, SpatialLink

L, EI_Y, EI_Z, GJ, RHO_A, RHO_IP = 1.2, 3.0, 1.2, 0.8, 0.5, 2e-3
N_EL = 16


def _link(n=N_EL, **kw):
    args = dict(EI_y=EI_Y, EI_z=EI_Z, GJ=GJ, rho_A=RHO_A, rho_Ip=RHO_IP)
    args.update(kw)
    return SpatialLink(L, n, **args)


def hermite_bound(beta_L, n):
    """Leading relative frequency error of n consistent-mass Hermite elements, times 2."""
    return 2.0 * (np.asarray(beta_L) / n) ** 4 / 1440.0


def torsion_bound(k, n):
    """Leading relative frequency error of n consistent-mass linear torsion elements
    for mode k (wave number (2k - 1) pi / 2L), times 2."""
    kh = (2 * np.asarray(k) - 1) * math.pi / 2 / n
    return 2.0 * kh**2 / 24.0


def _classified(arm, n_modes, joints="locked", body=0):
    """The frequencies of ``arm``'s modes sorted by what moves in link ``body``: the
    share of v, w and phi dofs in each mode vector; returns {"v": [...], "w": [...],
    "phi": [...]} (Hz) and the modes."""
    modes = arm.modes(n_modes, joints=joints)
    idx = arm.elastic_indices(body)
    out = {"v": [], "w": [], "phi": []}
    for f, vec in zip(modes.frequencies, modes.vectors):
        e = vec[idx]
        share = [np.sum(e[:, 0:2] ** 2 * [1.0, L * L]), np.sum(e[:, 2:4] ** 2 * [1.0, L * L]),
                 np.sum(e[:, 4] ** 2)]
        out[("v", "w", "phi")[int(np.argmax(share))]].append(f)
    return {k: np.array(v) for k, v in out.items()}, modes


@functools.lru_cache(maxsize=None)
def _fixed_link_frequencies(n):
    # a skew joint axis and a turned link: the frequencies must not care
    jt = RevoluteJoint(axis=(1.0, 2.0, 2.0), x_axis=(0.0, 0.6, 0.8), y_axis=(1.0, 0.0, 0.0))
    freqs, _ = _classified(SpatialArm([_link(n)], [jt], gravity=0.0), 12)
    return freqs


@case("spatial-link.bending-two-planes", tolerance=1.0, engines=("reference", "closed form"))
def bending_two_planes(ctx):
    """Quantity: first three clamped-free bending frequencies in each principal plane (EI_z =
        1.2, EI_y = 3.0 N m^2), 16 elements, link on a skew revolute axis, joint locked

    Metric: max over planes and modes of |f_h - f| / f / bound_k, bound_k = 2 (b_k h)^4 /
        1440

    Reason: O(h^4) frequency error of consistent-mass Hermite elements, leading term
        (bh)^4/1440 (Strang & Fix ch. 6), factor 2 for higher-order terms; the roots of 1 +
        cos cosh = 0 are solved to 1e-14

    Source: Blevins table 8-1"""
    f = _fixed_link_frequencies(N_EL)
    bound = hermite_bound(clamped_free_roots(3), N_EL)
    ratios, details = [], []
    for plane, EI in (("v", EI_Z), ("w", EI_Y)):
        exact = bending_frequencies(EI, RHO_A, L, 3)
        err = np.abs(f[plane][:3] - exact) / exact
        ratios.append(err / bound)
        details += [f"{plane} (EI = {EI}): mode {k + 1}: {f[plane][k]:.8g} Hz, closed form "
                    f"{exact[k]:.8g} Hz, error {err[k]:.2e} (bound {bound[k]:.2e})"
                    for k in range(3)]
    return Outcome(float(np.max(ratios)), details=details,
                   data=dict(v=f["v"][:3], w=f["w"][:3]))


@case("spatial-link.torsion", tolerance=1.0, engines=("reference", "closed form"))
def torsion(ctx):
    """Quantity: first three torsional frequencies of the clamped-free link (GJ = 0.8 N m^2,
        rho_Ip = 2e-3 kg m), 16 elements

    Metric: max over modes of |f_h - f| / f / bound_k, bound_k = 2 (k_k h)^2 / 24

    Reason: O(h^2) frequency error of consistent-mass linear elements, leading term
        (kh)^2/24 for wave number k = (2n - 1) pi / 2L (Strang & Fix ch. 6), factor 2 for
        higher-order terms

    Source: Blevins table 8-19"""
    exact = torsion_frequencies(GJ, RHO_IP, L, 3)
    f = _fixed_link_frequencies(N_EL)["phi"][:3]
    err = np.abs(f - exact) / exact
    bound = torsion_bound(np.arange(1, 4), N_EL)
    ns = (4, 8, 16)
    errs = [abs(_fixed_link_frequencies(n)["phi"][0] / exact[0] - 1) for n in ns]
    rate = observed_rate(L / np.array(ns), errs)
    details = [f"mode {k + 1}: {f[k]:.8g} Hz, closed form {exact[k]:.8g} Hz, error "
               f"{err[k]:.2e} (bound {bound[k]:.2e})" for k in range(3)]
    details.append(f"observed order of mode 1 over n = 4, 8, 16: {rate:.3f} (linear elements: 2)")
    return Outcome(float(np.max(err / bound)), details=details, data=dict(f=f, rate=rate))


@case("spatial-link.frequency-order", tolerance=(3.8, 4.2), compare="window",
      engines=("reference", "closed form"))
def frequency_order(ctx):
    """Quantity: first bending frequency in each plane vs element count (n = 4, 8, 16)

    Metric: smaller observed order of convergence of the two planes

    Reason: theory: order 4 for consistent-mass cubic Hermite elements; +-0.2 for the
        pre-asymptotic terms (the next term is O(h^6))"""
    ns = (4, 8, 16)
    rates, errors = {}, {}
    exact = {"v": bending_frequencies(EI_Z, RHO_A, L, 1)[0],
             "w": bending_frequencies(EI_Y, RHO_A, L, 1)[0],
             "phi": torsion_frequencies(GJ, RHO_IP, L, 1)[0]}
    for plane in ("v", "w", "phi"):
        errors[plane] = [abs(_fixed_link_frequencies(n)[plane][0] / exact[plane] - 1)
                         for n in ns]
        rates[plane] = observed_rate(L / np.array(ns), errors[plane])

    def plot(fig):
        ax = fig.add_subplot(111)
        for plane, label in (("v", "bending v (EI_z)"), ("w", "bending w (EI_y)"),
                             ("phi", "torsion")):
            ax.loglog(ns, errors[plane], "o-", label=f"{label}, order {rates[plane]:.2f}")
        ax.set(xlabel="elements n", ylabel="relative error of the first frequency",
               title="spatial link: Hermite bending (order 4), linear torsion (order 2)")
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)

    return Outcome(min(rates["v"], rates["w"]), plot=plot,
                   details=[f"{p}: order {r:.3f}" for p, r in rates.items()],
                   data=dict(rates=rates, errors=errors))


def _static(force, torque):
    """Nodal (v, v', w, w', phi) of a cantilever on a turned revolute joint (held at
    0.7 rad) under a tip force (P_y, P_z) and torque T in the tip frame, and the closed
    form at the nodes."""
    n = 5
    jt = RevoluteJoint(axis=(0.0, 1.0, 1.0), x_axis=(1.0, 0.0, 0.0), y_axis=(0.0, 0.0, 1.0))
    arm = SpatialArm([_link(n)], [jt])
    q0 = np.zeros(arm.nq)
    q0[arm.joint_index] = 0.7
    q = arm.static_deflection({0: ((0.0, force[0], force[1]), (torque, 0.0, 0.0))}, q0)
    got = q[arm.elastic_indices(0)]
    x = np.arange(1, n + 1) * L / n
    exact = np.column_stack(cantilever_deflection(x, L, EI_Y, EI_Z, GJ, force, torque))
    return got, exact


@case("spatial-link.skew-tip-load", tolerance=1e-12, engines=("reference", "closed form"))
def skew_tip_load(ctx):
    """Quantity: nodal deflections and slopes in both planes of a cantilever under a tip force
        at 30 degrees to its y axis (5 elements, link on a turned revolute joint)

    Metric: max relative error at the nodes

    Reason: cubic Hermite elements contain the exact cubic deflection in each plane, so the
        nodes are exact; 1e-12 is round-off of a solve with condition ~(2n)^4

    Source: Roark table 8.1 case 1a"""
    P = 0.05
    got, exact = _static((P * math.cos(math.pi / 6), P * math.sin(math.pi / 6)), 0.0)
    err = float(np.max(np.abs(got - exact)) / np.max(np.abs(exact)))
    return Outcome(err, details=[
        f"tip v = {got[-1, 0]:.10g} m (closed form {exact[-1, 0]:.10g}), "
        f"w = {got[-1, 2]:.10g} m (closed form {exact[-1, 2]:.10g})",
        f"largest twist {np.max(np.abs(got[:, 4])):.1e} rad (none expected)"],
        data=dict(tip=got[-1], exact=exact[-1]))


@case("spatial-link.tip-torque", tolerance=1e-12, engines=("reference", "closed form"))
def tip_torque(ctx):
    """Quantity: nodal twist of a cantilever under a tip torque (5 elements)

    Metric: max relative error at the nodes (bending dofs counted against the twist scale)

    Reason: linear torsion elements contain the exact linear twist T x / GJ, so the nodes
        are exact; 1e-12 is round-off

    Source: Saint-Venant torsion"""
    T = 0.02
    got, exact = _static((0.0, 0.0), T)
    err = float(np.max(np.abs(got - exact)) / np.max(np.abs(exact)))
    return Outcome(err, details=[f"tip twist {got[-1, 4]:.12g} rad, closed form "
                                 f"T L / GJ = {T * L / GJ:.12g} rad"],
                   data=dict(phi=got[:, 4]))


def _planar_pair(geometric_stiffening=False, n=3, gravity=9.81):
    """A planar arm (revolute + prismatic links, hub inertia and mass, slider, payload,
    gravity) and the same arm as a SpatialArm in the plane z = 0, with the index of each
    planar coordinate in the spatial q."""
    import chrono_flex as cf

    links = [cf.Link(1.0, n, EI=2.0, rho_A=0.5), cf.Link(0.8, n, EI=1.5, rho_A=0.3)]
    joints = [cf.RevoluteJoint(hub_inertia=0.01, hub_mass=0.2),
              cf.PrismaticJoint(axis_angle=0.3, link_angle=1.0, slider_mass=0.1)]
    planar = cf.PlanarArm(links, joints, payload=cf.Payload(0.3, 0.02), gravity=gravity,
                          geometric_stiffening=geometric_stiffening)
    x2, y2 = sp.turned(1.3)
    bodies = [sp.SpatialLink(lk.length, n, EI_y=3.0, EI_z=lk.EI, GJ=1.0, rho_A=lk.rho_A,
                             rho_Ip=1e-3) for lk in links] + [sp.RigidBody(0.3, (0, 0, 0.02))]
    sjoints = [sp.RevoluteJoint(axis=(0, 0, 1), hub_inertia=0.01, hub_mass=0.2),
               sp.PrismaticJoint(axis=(math.cos(0.3), math.sin(0.3), 0), x_axis=x2,
                                 y_axis=y2, slider_mass=0.1),
               sp.FixedJoint()]
    spatial = SpatialArm(bodies, sjoints, gravity=(0.0, -gravity, 0.0),
                         geometric_stiffening=geometric_stiffening)
    idx = []
    for b in (0, 1):
        idx.append(spatial.model.layout.bodies[b].joint_index)
        idx += list(spatial.elastic_indices(b)[:, :2].ravel())
    return planar, spatial, np.array(idx)


@case("spatial-link.planar-special-case", tolerance=1e-13, engines=("reference",))
def planar_special_case(ctx):
    """Quantity: M(q) and f(q, q_d) of a two-link planar arm (revolute and prismatic joints,
        hub, slider, payload, gravity, with and without geometric stiffening) built as a
        spatial arm, at 5 random in-plane states

    Metric: max relative difference of M and f against the planar engine (and the size of
        the out-of-plane rows); inf if a frequency differs by more than the eigensolver's
        round-off

    Reason: the same equations evaluated through other arithmetic (3D frames, 5 dofs per
        node) and eigenproblems of the same matrices: round-off, ~100 eps of the largest
        entry

    Source: docs/spatial-link.md §5.2"""
    from chrono_flex.spatial import equations as smdl

    rng = np.random.default_rng(2026)
    worst, rows = 0.0, []
    for gs in (False, True):
        planar, spatial, idx = _planar_pair(gs)
        out = np.setdiff1d(np.arange(spatial.nq), idx)
        for _ in range(5):
            qp, qdp = 0.1 * rng.normal(size=planar.nq), rng.normal(size=planar.nq)
            q, qd = np.zeros(spatial.nq), np.zeros(spatial.nq)
            q[idx], qd[idx] = qp, qdp
            Mp, fp = pmdl.forcing(planar.model, qp, qdp, np.zeros(planar.nq))
            Ms, fs = smdl.forcing(spatial.model, q, qd, np.zeros(spatial.nq))
            dM = np.max(np.abs(Ms[np.ix_(idx, idx)] - Mp)) / np.max(np.abs(Mp))
            df = np.max(np.abs(fs[idx] - fp)) / np.max(np.abs(fp))
            leak = max(np.max(np.abs(Ms[np.ix_(out, idx)])), np.max(np.abs(fs[out])))
            worst = max(worst, dM, df, leak / np.max(np.abs(Mp)))
        rows.append(f"geometric stiffening {gs}: last state |dM| {dM:.1e}, |df| {df:.1e}, "
                    f"out-of-plane coupling {leak:.1e}")
    # without gravity: the planar engine takes the gravity Hessian by central
    # differences (error ~1e-10), the spatial one by complex step
    planar, spatial, idx = _planar_pair(False, gravity=0.0)
    fp = planar.natural_frequencies(4, joints="free")
    fs = spatial.natural_frequencies(20, joints="free")
    near = np.array([np.min(np.abs(fs - f)) / f for f in fp])
    # eigh's relative error of omega_k^2 is ~eps omega_max^2 / omega_k^2 (its absolute
    # error is eps times the largest eigenvalue): 100 eps of that, halved for omega

    w2 = eigenmodes(planar, None, joints="free")[0]
    eig_bound = 50 * np.finfo(float).eps * w2[-1] / w2[:fp.size]
    rows.append(f"free-joint frequencies without gravity {np.round(fp, 6).tolist()} Hz "
                f"found among the spatial arm's to {np.round(near, 14).tolist()} "
                f"(eigensolver bound {np.max(eig_bound):.1e})")
    if np.any(near > eig_bound):
        worst = float("inf")
    return Outcome(worst, details=rows)


T_MOTION, RTOL_MOTION = 0.2, 1e-6


@case("spatial-link.planar-special-case-motion", tolerance=1000 * RTOL_MOTION,
      engines=("reference",))
def planar_special_case_motion(ctx):
    """Quantity: a 0.2 s torque-driven motion of the planar two-link arm (revolute and
        prismatic) run by the planar and by the spatial reference engine (Radau, rtol =
        1e-6)

    Metric: max |q_spatial - q_planar| / max |q_planar| over the in-plane coordinates, and
        the largest out-of-plane coordinate

    Reason: the equations agree to round-off (planar-special-case), so the runs differ by
        the integrators' global errors, each ~10-100 rtol over ~100 steps (the spatial run
        steers its steps by more coordinates): 1000 rtol"""
    planar, spatial, idx = _planar_pair(False, n=2)
    tau = lambda t, q, qd: [0.5 * math.sin(8 * t), 0.3 * math.cos(6 * t)]  # noqa: E731
    kw = dict(dt_out=0.02, method="Radau", rtol=RTOL_MOTION, atol=1e-12, progress=False)
    rp = planar.simulate(T_MOTION, torque=tau, **kw)
    rs = spatial.simulate(T_MOTION, torque=tau, **kw)
    d = float(np.max(np.abs(rs.q[:, idx] - rp.q)) / np.max(np.abs(rp.q)))
    out = np.setdiff1d(np.arange(spatial.nq), idx)
    leak = float(np.max(np.abs(rs.q[:, out])))
    return Outcome(max(d, leak), details=[
        f"max in-plane difference {d:.2e} (relative), largest out-of-plane coordinate {leak:.1e}",
        f"final joints planar {np.round(rp.joint_angles[-1], 6).tolist()}, spatial "
        f"{np.round(rs.joint_angles[-1], 6).tolist()}",
        f"wall time planar {rp.info['wall_time']:.2f} s, spatial {rs.info['wall_time']:.2f} s"])


def _hub_arm(n, J_hub, radius):
    hub = sp.RigidBody(2.0, (0.5 * J_hub, 0.5 * J_hub, J_hub))
    xb, yb = sp.turned(math.pi)
    joints = [sp.RevoluteJoint(axis=(0, 0, 1)),
              sp.FixedJoint(offset=(radius, 0, 0)),
              sp.FixedJoint(offset=(-radius, 0, 0), x_axis=xb, y_axis=yb)]
    return SpatialArm([hub, _link(n), _link(n)], joints, parents=[-1, 0, 0])


@case("spatial-link.hub-two-links", tolerance=1.0, engines=("reference", "closed form"))
def hub_two_links(ctx):
    """Quantity: the modes of a free hub (J_h = 0.05 kg m^2, radius 0.1 m) carrying two
        identical links at 180 degrees, 16 elements each

    Metric: max over the first 12 modes of |f_h - f| / f / bound, against the clamped-free
        frequencies (modes that leave the hub still) and the roots of the hub-and-links
        determinant with n = 2 (modes that turn it)

    Reason: closed forms solved to 1e-14 in bL; FEM error O(h^4) with leading term
        (bh)^4/1440 for bending, O(h^2) with (kh)^2/24 for torsion (Strang & Fix), factor 2
        for higher-order terms

    Source: docs/spatial-link.md §5.3"""
    J_h, r, n = HUB_J, HUB_R, N_EL
    arm = _hub_arm(n, J_h, r)
    modes = arm.modes(12, joints="free")
    return _hub_outcome(arm, modes.frequencies, modes.vectors, n, J_h, r, "FEM")


#: The free hub of the hub cases: inertia about its axis (kg m^2) and radius (m).
HUB_J, HUB_R = 0.05, 0.1


def _hub_outcome(arm, frequencies, vectors, n, J_h, r, label):
    """Each mode (rows of ``vectors``, in the arm's coordinates) against the clamped-free
    frequency of its kind when it leaves the hub still, else against the next root of
    the hub-and-links determinant; the ratio of the error to its bound."""
    from chrono_flex.spatial.closed_forms import (bending_frequencies, hub_links_frequencies,
                                                  torsion_frequencies)

    frequencies, vectors = np.asarray(frequencies), np.asarray(vectors)
    hub = arm.joint_index[0]
    iv = [arm.elastic_indices(b) for b in (1, 2)]
    turning = hub_links_frequencies(4, EI_Z, RHO_A, L, J_h, 2, r)
    clamped = {"v": bending_frequencies(EI_Z, RHO_A, L, 4),
               "w": bending_frequencies(EI_Y, RHO_A, L, 4),
               "phi": torsion_frequencies(GJ, RHO_IP, L, 4)}
    ratios, rows, seen = [], [], {"turning": 0}
    for f, vec in zip(frequencies, vectors):
        a, b = vec[iv[0]], vec[iv[1]]
        kind = ("v", "w", "phi")[int(np.argmax([np.sum(a[:, 0] ** 2), np.sum(a[:, 2] ** 2),
                                                 np.sum(a[:, 4] ** 2) * (L / 2) ** 2]))]
        sym = "symmetric" if np.sum((a - b) ** 2) < np.sum((a + b) ** 2) else "antisymmetric"
        if abs(vec[hub]) > 1e-8 * np.max(np.abs(vec)):
            k = seen["turning"]
            seen["turning"] += 1
            exact, label = turning[k], f"turns the hub (root {k + 1} of the determinant)"
            beta = np.sqrt(2 * math.pi * exact / math.sqrt(EI_Z / RHO_A)) * L
            bound = hermite_bound(beta, n)
        else:
            k = int(np.argmin(np.abs(clamped[kind] - f)))
            exact, label = clamped[kind][k], f"{kind} clamped-free mode {k + 1}"
            if kind == "phi":
                bound = torsion_bound(k + 1, n)
            else:
                beta = np.sqrt(2 * math.pi * exact / math.sqrt((EI_Z if kind == "v" else EI_Y)
                                                                 / RHO_A)) * L
                bound = hermite_bound(beta, n)
        err = abs(f / exact - 1)
        ratios.append(err / bound)
        rows.append(f"{f:.8g} Hz, {sym} {kind}: {label} {exact:.8g} Hz, error {err:.1e} "
                    f"(bound {bound:.1e})")
    if seen["turning"] < 2:                      # the case must see the hub modes
        ratios.append(np.inf)
        rows.append(f"only {seen['turning']} hub-turning modes among the first 12")
    turns = np.abs(vectors[:, hub]) > 1e-8 * np.max(np.abs(vectors), axis=1)

    def plot(fig):
        ax = fig.add_subplot(1, 2, 1)
        k = np.arange(1, frequencies.size + 1)
        ax.plot(k[~turns], frequencies[~turns], "o", label=f"hub still ({label})")
        ax.plot(k[turns], frequencies[turns], "s", label=f"turns the hub ({label})")
        for f in turning[:2]:
            ax.axhline(f, color="C1", lw=0.6, ls=":")
        for f in np.concatenate([clamped["v"][:2], clamped["w"][:2], clamped["phi"][:1]]):
            ax.axhline(f, color="C0", lw=0.6, ls=":")
        ax.set(xlabel="mode", ylabel="frequency (Hz)",
               title="dotted: clamped-free and hub-and-links roots")
        ax.legend(fontsize=7)
        bx = fig.add_subplot(1, 2, 2)
        x = np.linspace(0.5, 3 * math.pi, 600)
        bx.plot(x, [hub_links_determinant(b, EI_Z, RHO_A, L, J_h, 2, r) for b in x])
        bx.axhline(0.0, color="0.5", lw=0.6)
        bx.set(xlabel="bL", ylabel="determinant", title="hub and two links, r = 0.1 m")

    return Outcome(float(np.max(ratios)), plot=plot, details=rows,
                   data=dict(f=frequencies, turning=turning))


@case("spatial-link.element-hub", tolerance=1.0, engines=("chrono", "closed form"),
      needs_pychrono=True)
def element_hub(ctx):
    """Quantity: the modes of the same free hub with two links (16 elements each) put into
        Chrono as the custom element (SpatialFlexibleLink), from the Chrono system's M, K
        and constraints (chrono_flex.chrono.modal)

    Metric: max over the first 12 elastic modes of |f_h - f| / f / bound (as
        spatial-link.hub-two-links)

    Reason: the element carries the reference engine's equations, so the FEM bound of
        spatial-link.hub-two-links holds; Chrono's finite-difference stiffness adds ~1e-8
        (seen against the reference's modes), far below the smallest bound (2.6e-7 for the
        first bending mode)

    Source: docs/spatial-link.md §5.3; docs/chrono.md §10"""
    from chrono_flex.chrono.modal import system_modes
    from chrono_flex.chrono.scenes import new_system
    from chrono_flex.chrono.spatial_element import SpatialFlexibleLink

    J_h, r, n = HUB_J, HUB_R, N_EL
    arm = _hub_arm(n, J_h, r)
    sys_ = new_system()
    SpatialFlexibleLink(sys_, arm)
    m = system_modes(sys_)
    elastic = m.frequencies > 1e-3          # the hub's free turn: zero (round-off ~1e-6 Hz)
    f, vecs = m.frequencies[elastic][:12], m.vectors[:, elastic][:, :12].T
    return _hub_outcome(arm, f, vecs, n, J_h, r, "Chrono element")


def _rotating_ritz(EI, Omega, in_plane, n_modes):
    """Frequencies (rad/s) of a cantilever spinning at Omega about an axis across it at its
    root, by Rayleigh-Ritz on n clamped-free eigenfunctions (a basis independent of the
    elements): K + Omega^2 G [- Omega^2 M in the plane of rotation], G = int N phi'^T phi'
    with the centrifugal axial force N = rho_A Omega^2 (L^2 - x^2) / 2."""
    b = ModesBasis(L, n_modes)
    x, w, _ = b.quadrature()
    N, dN, d2N = b.values(x)
    K = EI * np.einsum("p,pi,pj->ij", w, d2N, d2N)
    M = RHO_A * np.einsum("p,pi,pj->ij", w, N, N)
    G = np.einsum("p,pi,pj->ij", w * RHO_A * Omega**2 * (L * L - x * x) / 2, dN, dN)
    return np.sqrt(eigh(K + G - (Omega**2 * M if in_plane else 0.0), M, eigvals_only=True))


@case("spatial-link.geometric-stiffening", tolerance=1.0, engines=("reference",))
def geometric_stiffening(ctx):
    """Quantity: first two in-plane (lead-lag) and out-of-plane (flap) frequencies of a link
        spinning about z at Omega = its first in-plane frequency, geometric stiffening on, 8
        elements

    Metric: max over modes of |f_h - f_ritz| / f_ritz / (Hermite bound + twice the Ritz
        change from 10 to 12 modes)

    Reason: the elements err by 2 (bh)^4/1440 in the Rayleigh quotient R = omega^2 (+
        Omega^2 in the plane of rotation), b from R (Strang & Fix), scaled by R / omega^2
        for omega; the Ritz reference converges from above, its remaining error bounded by
        twice its last change

    Source: Kane, Ryan & Banerjee 1987; docs/spatial-link.md §4.3"""
    n = 8
    stiff = SpatialArm([_link(n)], geometric_stiffening=True)
    linear = SpatialArm([_link(n)])
    w0v, w0w = (2 * math.pi * stiff.natural_frequencies(3)[[0, 1]])      # v (EI_z), w (EI_y)
    Omega = w0v
    fem = 2 * math.pi * steady_spin_frequencies(stiff, [Omega], 8)
    ratios, rows = [], []
    for label, EI, in_plane in (("in-plane v", EI_Z, True), ("flap w", EI_Y, False)):
        ref = _rotating_ritz(EI, Omega, in_plane, 12)[:2]
        ritz_change = np.abs(_rotating_ritz(EI, Omega, in_plane, 10)[:2] / ref - 1)
        # the elements err in the Rayleigh quotient R = omega^2 [+ Omega^2 in the plane]
        # (bending and centrifugal stiffness over mass) as a beam of that frequency does;
        # subtracting Omega^2 keeps the absolute error: relative error x R / omega^2
        R = ref**2 + (Omega**2 if in_plane else 0.0)
        beta_L = np.sqrt(np.sqrt(R) * L * L * math.sqrt(RHO_A / EI))
        fem_bound = hermite_bound(beta_L, n) * R / ref**2
        for k in range(2):
            got = fem[np.argmin(np.abs(fem - ref[k]))]
            err = abs(got / ref[k] - 1)
            bound = fem_bound[k] + 2 * ritz_change[k]
            ratios.append(err / bound)
            rows.append(f"{label} mode {k + 1}: {got:.8g} rad/s, Ritz {ref[k]:.8g} rad/s, "
                        f"error {err:.1e} (bound {bound:.1e})")
    # Southwell coefficient of the first flap mode at a slow spin: (omega^2 - omega_0^2) /
    # Omega^2 = 1.193 for a uniform cantilever at zero hub radius (Wright, Smith, Thresher &
    # Wang, J. Appl. Mech. 49, 1982)
    slow = 0.1 * w0w
    w_slow = 2 * math.pi * steady_spin_frequencies(stiff, [slow], 3)
    flap = w_slow[np.argmin(np.abs(w_slow - w0w))]
    rows.append(f"Southwell coefficient of the first flap mode at Omega = 0.1 omega_1: "
                f"{(flap**2 - w0w**2) / slow**2:.4f} (printed 1.193)")
    lin = 2 * math.pi * steady_spin_frequencies(linear, [Omega], 3)
    rows.append(f"without stiffening at the same spin: {np.round(lin, 4).tolist()} rad/s "
                f"(the in-plane mode softens to sqrt(omega_1^2 - Omega^2) = 0, the flap mode "
                f"stays at {w0w:.4f})")
    return Outcome(float(np.max(ratios)), details=rows)


RTOL_ENERGY, T_ENERGY = 1e-6, 0.05


@case("spatial-link.chain-energy", tolerance=100 * RTOL_ENERGY, engines=("reference",))
def chain_energy(ctx):
    """Quantity: energy balance T + V_el + V_g - W_in of a serial chain in free motion under
        gravity: a link on a skew revolute axis, a second on a revolute axis across the
        first's tip, a third sliding on a skew prismatic axis, a payload (0.05 s from
        spun-up joints)

    Metric: max |balance drift| / max(T + V_el + |V_g - V_g(0)|)

    Reason: the terms are Lagrange's equations to round-off (tests/spatial), so the drift is
        Radau's global error: local error <= rtol |y| per step over ~100 steps, bounded by
        100 rtol (rtol = 1e-6)

    Source: docs/spatial-link.md §4.1"""
    links = [_sized(0.8, 2), _sized(0.6, 2), _sized(0.4, 1)]
    x3, y3 = sp.turned(0.5, (0.0, 1.0, 0.0))
    joints = [sp.RevoluteJoint(axis=(0.2, 0.3, 1.0), hub_inertia=0.01),
              sp.RevoluteJoint(axis=(0.0, 1.0, 0.2), offset=(0.02, 0.0, 0.0), hub_mass=0.1),
              sp.PrismaticJoint(axis=(0.6, 0.0, 0.8), x_axis=x3, y_axis=y3, slider_mass=0.05),
              sp.FixedJoint()]
    arm = SpatialArm(links + [sp.RigidBody(0.1, (1e-3, 2e-3, 3e-3))], joints,
                     gravity=True)
    qd0 = np.zeros(arm.nq)
    qd0[arm.joint_index] = [1.0, -0.8, 0.2]
    r = arm.simulate(T_ENERGY, qd0=qd0, dt_out=0.005, method="Radau", rtol=RTOL_ENERGY, atol=1e-9,
                     progress=False)
    E = r.energy
    scale = float(np.max(E.kinetic + E.elastic + np.abs(E.gravity - E.gravity[0])))
    drift = float(np.max(np.abs(E.balance_error)))
    return Outcome(drift / scale, details=[
        f"balance drift {drift:.2e} J of scale {scale:.4g} J; max elastic energy "
        f"{np.max(E.elastic):.3e} J; tip deflections up to "
        f"{1e3 * np.max(r.tip_deflection):.2f} mm",
        f"Radau nfev = {r.info['nfev']}, wall {r.info['wall_time']:.2f} s"],
        data=dict(drift=drift, scale=scale))


def _sized(length, n):
    return SpatialLink(length, n, EI_y=EI_Y, EI_z=EI_Z, GJ=GJ, rho_A=RHO_A, rho_Ip=RHO_IP)


@case("spatial-link.bent-cantilever", tolerance=1e-12, engines=("reference", "closed form"))
def bent_cantilever(ctx):
    """Quantity: out-of-plane tip deflection of an L-shaped cantilever (link 1 along x, link 2
        welded across its tip along y, 3 elements each) under a tip force along z

    Metric: relative error against P a^3 / (3 EI_y1) + P b^2 a / GJ_1 + P b^3 / (3 EI_y2)

    Reason: each term is nodally exact in its elements (cubic bending, linear twist), and
        the tip frame hands link 1's tip twist to link 2 exactly at first order; 1e-12 is
        round-off of the solve

    Source: Roark table 8.1; Saint-Venant torsion"""
    a, b, P = 0.8, 0.5, 0.02
    l1 = sp.SpatialLink(a, 3, EI_y=EI_Y, EI_z=EI_Z, GJ=GJ, rho_A=RHO_A, rho_Ip=RHO_IP)
    l2 = sp.SpatialLink(b, 3, EI_y=2 * EI_Y, EI_z=EI_Z, GJ=GJ, rho_A=RHO_A, rho_Ip=RHO_IP)
    x2, y2 = sp.turned(math.pi / 2)
    arm = SpatialArm([l1, l2], [sp.RevoluteJoint(), sp.FixedJoint(x_axis=x2, y_axis=y2)])
    from chrono_flex.spatial import equations as mdl

    q = arm.static_deflection({1: ((0.0, 0.0, P), (0.0, 0.0, 0.0))})
    # the linear displacement J_tip(0) q (linear theory; reading the tip through the exact
    # rotations of the frames would add the O(phi^2) = 1e-5 of a 0.01 rad twist)
    tip = (mdl.tip_frames(arm.model, np.zeros(arm.nq))[1].Jp @ q)[2]
    parts = (P * a**3 / (3 * EI_Y), P * b * b * a / GJ, P * b**3 / (3 * 2 * EI_Y))
    exact = sum(parts)
    return Outcome(abs(tip / exact - 1), details=[
        f"tip z = {tip:.12g} m, closed form {exact:.12g} m (link 1 bending {parts[0]:.4g}, "
        f"its twist {parts[1]:.4g}, link 2 bending {parts[2]:.4g})",
        f"twist of link 1's tip {q[arm.elastic_indices(0)][-1, 4]:.10g} rad, closed form "
        f"P b a / GJ = {P * b * a / GJ:.10g} rad"])


def cone_link(n):
    """A solid cone in space (radii shrinking linearly to a point at the tip), n
    elements: every stiffness and rho_Ip ~ r^4 = (1 - x/L)^4, rho_A ~ r^2, with the root
    values of the uniform link above (EI_z, EI_y differ: an elliptic section, both
    second moments ~ r^4). Each bending plane is the planar cone of
    :func:`chrono_flex.planar.shapes.tapered_cantilever_coefficient` (m = 2)."""
    r4 = lambda x: (1.0 - x / L) ** 4                    # noqa: E731
    return SpatialLink(L, n, EI_y=lambda x: EI_Y * r4(x), EI_z=lambda x: EI_Z * r4(x),
                       GJ=lambda x: GJ * r4(x), rho_A=lambda x: RHO_A * (1.0 - x / L) ** 2,
                       rho_Ip=lambda x: RHO_IP * r4(x))


def cone_coefficients(n):
    """{"v": c, "w": c}: the first bending frequency of each plane of :func:`cone_link`
    as the coefficient c = omega_1 L^2 sqrt(rho_A0 / EI_0) of that plane (joint locked)."""
    freqs, _ = _classified(SpatialArm([cone_link(n)], [RevoluteJoint()], gravity=0.0), 6)
    return {p: 2 * math.pi * freqs[p][0] * L * L * math.sqrt(RHO_A / EI)
            for p, EI in (("v", EI_Z), ("w", EI_Y))}


@case("spatial-link.tapered", tolerance=5e-4 / 8.719 + 1e-6, engines=("reference", "closed form"))
def tapered(ctx):
    """Quantity: first bending frequency coefficient in each plane of a cone-tapered spatial
        link (sections given as callables of x), n = 4, 8, 16 elements, against the Bessel
        root c = 8.71926 and the printed 8.719

    Metric: max over the two planes of |c_16 - printed| / printed

    Reason: the printed value has 4 figures (+-5e-4); the 16-element error of cubic Hermite
        elements falls as h^4 (the observed order is in the details) and is below 1e-6 at 16
        elements

    Source: Kirchhoff 1879; Conway et al. 1964"""
    exact = tapered_cantilever_coefficient(2)
    ns = (4, 8, 16)
    c = {n: cone_coefficients(n) for n in ns}
    details = []
    for p in ("v", "w"):
        errs = [abs(c[n][p] / exact - 1) for n in ns]
        details.append(f"{p}: c_16 = {c[16][p]:.8f} (Bessel root {exact:.8f}), errors "
                       + ", ".join(f"{e:.2e}" for e in errs)
                       + f" for n = {ns}, observed order "
                       f"{observed_rate(L / np.array(ns), errs):.3f}")
    return Outcome(max(abs(c[16][p] / 8.719 - 1) for p in ("v", "w")), details=details,
                   data=dict(c=c, exact=exact))
