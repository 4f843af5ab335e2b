"""A FlexibleLink in a Chrono scene: bodies welded to it (docs/chrono.md §8).

Closed forms (Euler-Bernoulli cantilever; Young & Budynas, Roark's formulas for stress
and strain, 7th ed. 2002, table 8.1):

* a force P at abscissa s of a cantilever: w(s) = P s^3 / (3 EI) and, beyond it,
  w(L) = P s^2 (3 L - s) / (6 EI); cubic Hermite elements are nodally exact for point
  loads at nodes (Tong 1969), so the link's own nodal deflection carries no
  discretisation error;
* a propped cantilever (clamped root, simply supported tip) under its own weight
  q = rho A g: tip reaction 3 q L / 8. With a support of stiffness k instead of a rigid
  one the reaction is (3 q L / 8) / (1 + k_tip / k), k_tip = 3 EI / L^3: the weld's
  bushing is that support's compliance, and its relative effect k_tip / k_p is the
  error the stiffness rule promises (:func:`chrono_flex.planar.floating.bushing_stiffness`).

The force acts on the welded body in Chrono (a world-fixed ``ChForce``), the prop is a
``ChLinkLockRevolute`` between the welded body and the ground: the link only feels them
through the weld. Static answers come from implicit Euler with a step far above the
link's periods (every mode decays by (1 + (omega h)^2)^(-1/2) per step).

The payload case compares a body welded at the tip with the element's internal
:class:`chrono_flex.Payload` of the same mass and inertia on a pendulum released under
gravity: the same physics up to the bushing's compliance, so their difference must be
integration error, bounded by a step study.
"""

import functools

import numpy as np

from ..core import Outcome, case

EI, RHO_A, L, N_EL = 2.0, 0.5, 1.0, 4
#: Tip force (N): a tip deflection of 5 % of L, inside the linear model's range.
P_TIP = 0.3
#: Welded body: mass (kg) and inertia (kg m^2) - a payload of 0.4 times the link's mass.
M_BODY, J_BODY = 0.2, 2e-3
G = 9.81
#: Static runs: implicit Euler step and count. The first mode (about 4 rad/s with the
#: body) decays by 0.44 per step, the slowest by at least that: 40 steps leave < 1e-14.
STATIC_STEP, STATIC_STEPS = 0.5, 40
#: Pendulum runs: steps of the study, duration (a swing of 0.2 rad), element count.
PAYLOAD_STEPS = (4e-3, 2e-3, 1e-3)
PAYLOAD_T = 0.12
PAYLOAD_N = 2
SAFETY = 3.0
#: Formulation swing: link EI (tip deflection about 1 % of L, where the linear element
#: model holds), step (and its half, for the integration error), sampling interval.
SWING_EI, SWING_STEP, SWING_SAMPLE = 20.0, 1e-3, 4e-3


def _arm(payload=None, n_elements=N_EL):
    import chrono_flex as cf

    return cf.PlanarArm([cf.Link(length=L, n_elements=n_elements, EI=EI, rho_A=RHO_A)],
                        payload=payload)


@functools.lru_cache(maxsize=None)
def cantilever_pulled(s, formulation="element", n_elements=N_EL):
    """A body welded at abscissa s of a clamped link, pulled by P_TIP along -Y (world);
    ``formulation``: "element" (the papers' element) or "beam" (Chrono's beams)."""
    from chrono_flex.chrono import scenes
    from chrono_flex.planar import floating
    from chrono_flex.planar.shapes import elastica_tip_deflection

    system = scenes.new_system(timestepper="euler")
    link = scenes.clamped_link(system, _arm(n_elements=n_elements), formulation)
    body = scenes.free_body(system, M_BODY, (J_BODY,) * 3, (s, 0.0, 0.0))
    att = link.attach(body, s=s)
    scenes.world_force(system, body, (0.0, -P_TIP, 0.0))
    scenes.settle(system, STATIC_STEP, STATIC_STEPS)
    if formulation == "element":
        r = floating.station(link.model, link.q(), link.qd(), 0, s)[0]
    else:
        r = att.node.GetPos().to_numpy()
    gap, angle = att.error()
    return dict(w_s=float(r[1]), w_s_exact=-P_TIP * s ** 3 / (3 * EI),
                w_elastica=elastica_tip_deflection(-P_TIP, L, EI) if s == L else None,
                w_tip=float(link.tip_deflections()[0]),
                w_tip_exact=-P_TIP * s ** 2 * (3 * L - s) / (6 * EI),
                gap=gap, angle=angle, gap_rule=P_TIP / att.stiffness[0],
                force=att.force.tolist(), k_p=att.stiffness[0])


@functools.lru_cache(maxsize=None)
def propped_cantilever():
    """A clamped link under gravity (-Y, in its plane) whose tip body is pinned to the
    ground by a revolute joint about the plane normal."""
    from chrono_flex.chrono import scenes

    system = scenes.new_system(gravity=(0.0, -G, 0.0), timestepper="euler")
    link = scenes.clamped_link(system, _arm())
    body = scenes.free_body(system, M_BODY, (J_BODY,) * 3, (L, 0.0, 0.0))
    att = link.attach(body)
    scenes.pin_to_ground(system, body, (L, 0.0, 0.0))
    scenes.settle(system, STATIC_STEP, STATIC_STEPS)
    k_tip = 3 * EI / L ** 3
    R_rigid = 3 * RHO_A * G * L / 8
    return dict(force=att.force.tolist(), R_rigid=R_rigid,
                R_bushing=R_rigid / (1 + k_tip / att.stiffness[0]),
                compliance=k_tip / att.stiffness[0], gap=att.error()[0],
                tip=float(link.tip_deflections()[0]))


def _swing(formulation, h):
    """Joint angle, tip deflection and the welded body's world (x, y) of a pendulum with
    a body welded at its tip, released under gravity, every SWING_SAMPLE s."""
    from chrono_flex.chrono import scenes
    import chrono_flex as cf

    system = scenes.new_system(gravity=(0.0, -G, 0.0))
    arm = cf.PlanarArm([cf.Link(length=L, n_elements=PAYLOAD_N, EI=SWING_EI, rho_A=RHO_A)],
                       geometric_stiffening=True)
    kw = dict(consistent_mass=True) if formulation == "beam" else {}
    link = scenes.flexible_link(system, arm, formulation, **kw)
    body = scenes.free_body(system, M_BODY, (J_BODY,) * 3, (L, 0.0, 0.0))
    link.attach(body)
    angle = ((lambda: link.joint_angles()[0]) if formulation == "element"
             else (lambda: link.joint_state()[0][0]))
    rows = scenes.run(system, h, PAYLOAD_T,
                      lambda: [angle(), link.tip_deflections()[0], body.GetPos().x,
                               body.GetPos().y])
    k = int(round(SWING_SAMPLE / h))
    return rows[k - 1::k]


@functools.lru_cache(maxsize=None)
def formulation_swing():
    """The welded-payload pendulum with both formulations at SWING_STEP and half of it.

    Bound on |element - beam| per column (joint angle, tip deflection, body x, y):
    the integration error of each (trapezoidal HHT, second order: (4/3) |y(h) - y(h/2)|)
    plus the axial-load effect the element leaves out: gravity's component along the
    swinging link, N <= g sin|theta| (m_body + rho A L), changes the tip stiffness
    3 EI / L^3 by (2/5) N L^2 / EI (Rayleigh quotient of the static cubic shape: the
    geometric stiffness int N w'^2 dx = (6/5) N delta^2 / L); on the deflection that is
    (2/5) alpha_N max|w|, and through the tip (L theta + w common to both to first order)
    the same divided by L on the angle and on the body's position.
    """
    h = SWING_STEP
    el = [_swing("element", h), _swing("element", h / 2)]
    bm = [_swing("beam", h), _swing("beam", h / 2)]
    diff = np.max(np.abs(el[0] - bm[0]), axis=0)
    e_int = 4.0 / 3.0 * (np.max(np.abs(el[0] - el[1]), axis=0)
                         + np.max(np.abs(bm[0] - bm[1]), axis=0))
    theta = np.max(np.abs(el[0][:, 0]))
    alpha_N = G * np.sin(theta) * (M_BODY + RHO_A * L) * L ** 2 / SWING_EI
    w_max = np.max(np.abs(el[0][:, 1]))
    e_axial = 0.4 * alpha_N * w_max * np.array([1.0 / L, 1.0, 1.0 / L, 1.0 / L])
    return dict(diff=diff.tolist(), bound=(e_int + e_axial).tolist(), e_int=e_int.tolist(),
                e_axial=e_axial.tolist(), alpha_N=float(alpha_N), w_max=float(w_max),
                theta_max=float(theta))


def _pendulum(h, welded):
    """Joint angle and tip deflection of the free pendulum with its payload, every step."""
    import chrono_flex as cf
    from chrono_flex.chrono import FlexibleLink, scenes

    system = scenes.new_system(gravity=(0.0, -G, 0.0))
    if welded:
        link = FlexibleLink(system, _arm(n_elements=PAYLOAD_N))
        body = scenes.free_body(system, M_BODY, (J_BODY,) * 3, (L, 0.0, 0.0))
        att = link.attach(body)
    else:
        link = FlexibleLink(system, _arm(cf.Payload(M_BODY, J_BODY), n_elements=PAYLOAD_N))
        att = None
    rows = scenes.run(system, h, PAYLOAD_T,
                      lambda: [link.joint_angles()[0], link.tip_deflections()[0],
                               att.error()[0] if att else 0.0])
    return rows[int(round(PAYLOAD_STEPS[0] / h)) - 1::int(round(PAYLOAD_STEPS[0] / h))]


@functools.lru_cache(maxsize=None)
def payload_study():
    """Welded vs internal payload at the study's steps: the difference at each step,
    each engine's Richardson error estimate (second order, docs/chrono.md §2) and the
    largest gap."""
    welded = [_pendulum(h, True) for h in PAYLOAD_STEPS]
    internal = [_pendulum(h, False) for h in PAYLOAD_STEPS]
    cols = slice(0, 2)
    diff = [np.max(np.abs(w[:, cols] - i[:, cols]), axis=0) for w, i in zip(welded, internal)]

    def richardson(runs):
        d1 = np.max(np.abs(runs[0][:, cols] - runs[1][:, cols]), axis=0)
        d2 = np.max(np.abs(runs[1][:, cols] - runs[2][:, cols]), axis=0)
        p = np.clip(np.log2(d1 / d2), 0.5, 4.0)
        return p, d2 / (2.0 ** p - 1.0)        # error estimate at the finest step
    p_w, e_w = richardson(welded)
    p_i, e_i = richardson(internal)
    return dict(diff=[d.tolist() for d in diff], e_welded=e_w.tolist(),
                e_internal=e_i.tolist(), p_welded=p_w.tolist(), p_internal=p_i.tolist(),
                gap=float(max(np.max(w[:, 2]) for w in welded)))


@case("scene.cantilever-tip-body", tolerance=1e-7, engines=("chrono",), needs_pychrono=True)
def _cantilever(ctx):
    """Quantity: deflection of a clamped link whose tip body is pulled by a force in Chrono

    Metric: |w(L) - P L^3/3EI| / (P L^3/3EI)

    Reason: Hermite elements are nodally exact for a tip load, the static settling leaves <
        1e-14; what remains is the Newton tolerance (1e-9 relative) and the linear model's
        own approximation of the world-fixed load in the link's frame (none: the root is
        clamped at angle 0)

    Source: Roark (Young & Budynas 2002), table 8.1"""
    tip = cantilever_pulled(L)
    mid = cantilever_pulled(L / 2)
    err = abs(tip["w_tip"] - tip["w_tip_exact"]) / abs(tip["w_tip_exact"])
    details = [f"tip body: w(L) = {tip['w_tip']:.10f} m, P L^3/3EI = {tip['w_tip_exact']:.10f} m "
               f"(rel. error {err:.1e}); gap {tip['gap']:.3e} m = P/k_p "
               f"{tip['gap_rule']:.3e} m; force on the body {np.round(tip['force'], 9)} N",
               f"body welded at s = L/2: w(s) = {mid['w_s']:.10f} m (exact {mid['w_s_exact']:.10f}),"
               f" w(L) = {mid['w_tip']:.10f} m (exact {mid['w_tip_exact']:.10f})"]
    err_mid = max(abs(mid["w_s"] - mid["w_s_exact"]) / abs(mid["w_s_exact"]),
                  abs(mid["w_tip"] - mid["w_tip_exact"]) / abs(mid["w_tip_exact"]))
    return Outcome(max(err, err_mid), details=details, data=dict(tip=tip, mid=mid))


@case("scene.propped-cantilever", tolerance=1e-7, engines=("chrono",), needs_pychrono=True)
def _propped(ctx):
    """Quantity: tip reaction of a clamped link under gravity whose tip body is pinned to the
        ground by a Chrono revolute joint

    Metric: |R - 3qL/8| / (3qL/8) minus the bushing's predicted compliance effect

    Reason: nodally exact elements with a consistent load; the bushing turns the rigid prop
        into a spring k_p, which lowers the reaction by the factor 1/(1 + k_tip/k_p)
        (predicted, 4e-7 here); what remains is settling (< 1e-14) and Newton (1e-9)

    Source: Roark (Young & Budynas 2002), table 8.1; docs/chrono.md §8"""
    r = propped_cantilever()
    R = -r["force"][1]                  # the link holds the body up: its force on the body is -R
    err = abs(R - r["R_bushing"]) / r["R_rigid"]
    details = [f"reaction R = {R:.10f} N; 3 q L / 8 = {r['R_rigid']:.10f} N; with the bushing's "
               f"compliance {r['R_bushing']:.10f} N (k_tip/k_p = {r['compliance']:.2e})",
               f"gap {r['gap']:.3e} m (the body's weight goes straight to the pin, not "
               "through the weld)"]
    return Outcome(err, details=details, data=r)


@case("scene.payload-body", tolerance=1.0, engines=("chrono",), needs_pychrono=True)
def _payload(ctx):
    """Quantity: pendulum with a body welded at the tip vs the element's internal payload (same
        mass and inertia): joint angle and tip deflection

    Metric: max over steps and columns of |welded - internal| / (S (e_welded(h) +
        e_internal(h))), e: Richardson estimates from each engine's own step study

    Reason: the two scenes have the same physics up to the bushing (gap ~1e-6 m); their
        difference must be integration error, modelled by the step study with S = 3 (the
        safety factor of the engine comparisons)

    Source: docs/chrono.md §8"""
    st = payload_study()
    hs = PAYLOAD_STEPS
    ratios = []
    for d, h in zip(st["diff"], hs):
        e = (np.array(st["e_welded"]) * (h / hs[-1]) ** np.array(st["p_welded"])
             + np.array(st["e_internal"]) * (h / hs[-1]) ** np.array(st["p_internal"]))
        ratios.append(np.max(np.array(d) / (SAFETY * e)))
    details = [f"h = {h * 1e3:g} ms: max |welded - internal| = angle {d[0]:.2e} rad, "
               f"tip deflection {d[1]:.2e} m" for d, h in zip(st["diff"], hs)]
    details.append(f"observed orders: welded {np.round(st['p_welded'], 2)}, internal "
                   f"{np.round(st['p_internal'], 2)}; largest gap {st['gap']:.2e} m")
    return Outcome(float(max(ratios)), details=details, data=st)


#: Propped-cantilever vibration: meshes, modes, time steps per period of the mode,
#: periods run, amplitude of the mode (largest deflection / L), the pin body.
VIB_MESHES, VIB_MODES = (2, 4, 8), (0, 1, 2)
VIB_STEPS_PER_PERIOD, VIB_PERIODS, VIB_AMPLITUDE = 50, 2, 1e-3
PIN_MASS, PIN_INERTIA = 1e-3, 1e-7


def _clamped_pinned_mode(basis, n, mode):
    """Mode ``mode`` (0-based) of the discrete link with its tip displacement held:
    (angular frequency, elastic coordinates scaled to VIB_AMPLITUDE L, mass matrix)."""
    import scipy.linalg as sl

    K, M = basis.stiffness_matrix(EI), basis.mass_matrix(RHO_A)
    tip_w = basis.tip_dofs[0]
    keep = [i for i in range(K.shape[0]) if i != tip_w]
    w2, V = sl.eigh(K[np.ix_(keep, keep)], M[np.ix_(keep, keep)])
    phi = np.zeros(K.shape[0])
    phi[keep] = V[:, mode]
    w = basis.values(np.linspace(0.0, L, 8 * n + 1))[0] @ phi
    return float(np.sqrt(w2[mode])), phi * VIB_AMPLITUDE * L / np.max(np.abs(w)), M


def trapezoidal_frequency(samples, h):
    """Angular frequency of the oscillator that the trapezoidal rule (HHT, alpha = 0) turned
    into the sampled single-mode signal ``samples`` (step h).

    The samples of a pure mode are x_k = A cos(Omega k h + phi), so x_(k+1) + x_(k-1) =
    2 cos(Omega h) x_k (fitted by least squares over all samples); the trapezoidal rule
    maps omega to Omega with tan(Omega h / 2) = omega h / 2 (Hughes 1987, The Finite
    Element Method, section 9.3), inverted here: its period error is removed exactly.
    """
    x = np.asarray(samples, dtype=float)
    c = np.sum((x[2:] + x[:-2]) * x[1:-1]) / (2.0 * np.sum(x[1:-1] ** 2))
    Omega = np.arccos(np.clip(c, -1.0, 1.0)) / h
    return float(2.0 / h * np.tan(Omega * h / 2.0))


@functools.lru_cache(maxsize=None)
def propped_vibration(n, mode):
    """Free vibration of the propped cantilever: a clamped link, no gravity, its tip welded
    to a light pin body turning on a ``ChLinkLockRevolute`` to ground, started in the
    discrete mode ``mode`` at rest. Returns the measured frequency (the modal coordinate's
    samples, :func:`trapezoidal_frequency`), the discrete model's own and the closed form
    (beta_n L)^2 sqrt(EI / (rho A L^4))."""
    from chrono_flex.chrono import scenes
    from chrono_flex.planar.shapes import clamped_pinned_roots

    arm = _arm(n_elements=n)
    om_fe, phi, M = _clamped_pinned_mode(arm.model.bases[0], n, mode)
    h = 2.0 * np.pi / om_fe / VIB_STEPS_PER_PERIOD
    system = scenes.new_system()
    link = scenes.clamped_link(system, arm, elastic0=phi)
    pin = scenes.free_body(system, PIN_MASS, (PIN_INERTIA,) * 3, (L, 0.0, 0.0))
    att = link.attach(pin)
    scenes.pin_to_ground(system, pin, (L, 0.0, 0.0))
    project = M @ phi / (phi @ M @ phi)
    eta = scenes.run(system, h, VIB_PERIODS * 2.0 * np.pi / om_fe,
                     lambda: [link.q()[1:] @ project])[:, 0]
    om = trapezoidal_frequency(np.concatenate([[1.0], eta]), h)
    bl = clamped_pinned_roots(mode + 1)[mode]
    exact = bl ** 2 * np.sqrt(EI / (RHO_A * L ** 4))
    return dict(omega=om, omega_discrete=om_fe, omega_exact=float(exact),
                error=(om - exact) / exact, vs_discrete=(om - om_fe) / om_fe, step=h,
                gap=att.error()[0])


def propped_vibration_study():
    """:func:`propped_vibration` over VIB_MESHES and VIB_MODES, with the observed orders
    of the error between successive meshes."""
    out = {}
    for mode in VIB_MODES:
        rows = [propped_vibration(n, mode) for n in VIB_MESHES]
        err = np.abs([r["error"] for r in rows])
        orders = np.log(err[:-1] / err[1:]) / np.log(np.array(VIB_MESHES[1:]) / VIB_MESHES[:-1])
        out[mode] = dict(rows=rows, errors=err.tolist(), orders=orders.tolist())
    return out


@case("scene.propped-vibration", tolerance=0.5, engines=("chrono",), needs_pychrono=True)
def _propped_vibration(ctx):
    """Quantity: first three frequencies of a clamped link whose tip body is pinned to the
        ground by a Chrono revolute joint (no gravity)

    Metric: max over modes of |observed order of the frequency error (meshes 4 -> 8) - 4|

    Reason: the trapezoidal rule's period error is removed exactly, what is left besides the
        mesh is the pin body's inertia and the bushing (measured <= 2e-5 of the frequency
        for 4 and 8 elements, a tenth of the finest mesh error): the order stays within 0.5
        of 4 (mode 3 is still short of the asymptote with 4 elements, 2 % error: 3.7
        measured)

    Source: Blevins, Formulas for natural frequency and mode shape, table 8-1 (beta_n L =
        3.9266, 7.0686, 10.2102); Strang & Fix 1973 (h^4 eigenvalue error of cubic Hermite
        elements)"""
    st = propped_vibration_study()
    details = []
    for mode, s in st.items():
        for n, r in zip(VIB_MESHES, s["rows"]):
            details.append(f"mode {mode + 1}, {n} elements: omega = {r['omega']:.6f} rad/s, "
                           f"closed form {r['omega_exact']:.6f} (rel. error {r['error']:.2e}), "
                           f"discrete model {r['omega_discrete']:.6f} ({r['vs_discrete']:.1e})")
        details.append(f"mode {mode + 1}: observed orders {np.round(s['orders'], 2)}")
    metric = max(abs(s["orders"][-1] - 4.0) for s in st.values())
    return Outcome(float(metric), details=details,
                   data={str(k): v for k, v in st.items()})


@case("scene.beam-weld", tolerance=1.0, engines=("chrono",), needs_pychrono=True)
def _beam_weld(ctx):
    """Quantity: a body welded to Chrono's beams (ChLinkMateFix at a node): tip deflection
        under a force on the body, and the welded-payload swing against the papers' element

    Metric: max of |w - w_elastica| / (1e-4 |w_elastica|) and of |element - beam| / derived
        bound over the swing's columns

    Reason: Chrono's corotational beams are geometrically exact: they follow the elastica to
        their O(l^2) discretisation error (4.7e-5 relative with 4 elements); the swing's
        bound is each formulation's integration error (step doubling, second order) plus the
        gravity axial load the linear element leaves out, (2/5) N L^2 / EI of the deflection
        (formulation_swing)

    Source: Bisshopp & Drucker 1945 (elastica); docs/chrono.md §8"""
    r = cantilever_pulled(L, "beam")
    st = formulation_swing()
    static = abs(r["w_tip"] - r["w_elastica"]) / (1e-4 * abs(r["w_elastica"]))
    ratios = np.array(st["diff"]) / np.array(st["bound"])
    details = [f"tip body pulled by P: beam w(L) = {r['w_tip']:.9f} m, elastica "
               f"{r['w_elastica']:.9f} m, P L^3/3EI = {r['w_tip_exact']:.9f} m; weld gap "
               f"{r['gap']:.1e} m",
               "swing, |element - beam| (angle rad, deflection m, body x, y m): "
               f"{np.array2string(np.array(st['diff']), precision=2)}, bound "
               f"{np.array2string(np.array(st['bound']), precision=2)} (alpha_N = "
               f"{st['alpha_N']:.3f})"]
    return Outcome(float(max(static, np.max(ratios))), details=details,
                   data=dict(static=r, swing=st))


#: Flexible slider-crank (scenes.SliderCrank): crank rate (2 Hz), smooth spin-up from rest,
#: run (the spin-up and two revolutions), sampling interval, element counts and steps.
#: The element's step study is 4 -> 2 ms (its cost), the beams' 2 -> 1 ms; each mesh is
#: checked against twice as many elements at the coarse step.
SC_OMEGA, SC_SPIN_UP = 4.0 * np.pi, 0.25
SC_T = SC_SPIN_UP + 2.0 * 2.0 * np.pi / (4.0 * np.pi)
SC_SAMPLE = 4e-3
SC_N = 4
SC_STEPS = {"element": (4e-3, 2e-3), "beam": (2e-3, 1e-3)}


@functools.lru_cache(maxsize=None)
def slider_crank(formulation, n_elements, h):
    """One run of the slider-crank: samples every SC_SAMPLE s of (t, slider X, midpoint
    deflection) and the run's figures: energy balance (E - E0 - motor work, the work a
    trapezoidal sum of the motor's power at every step), the weld's largest gap, angle,
    force and moment, the rod's largest axial force, the weld stiffness."""
    from chrono_flex.chrono import scenes

    sc = scenes.SliderCrank(omega=SC_OMEGA, spin_up=SC_SPIN_UP, n_elements=n_elements,
                            formulation=formulation, jacobian="auto")

    def read():
        return sc.read() + [np.linalg.norm(sc.weld.force), np.linalg.norm(sc.weld.moment),
                            sc.axial_force(), sc.shortening()]
    rows = np.array([read()] + list(scenes.run(sc.system, h, SC_T, read)))
    t, power = rows[:, 0], rows[:, 7]
    work = np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(t))])
    balance = rows[:, 6] - rows[:, 6][0] - work
    k = int(round(SC_SAMPLE / h))
    return dict(samples=rows[::k][:, [0, 2, 3]], balance=float(np.max(np.abs(balance))),
                work=float(np.max(np.abs(work))), gap=float(np.max(rows[:, 4])),
                angle=float(np.max(rows[:, 5])), force=float(np.max(rows[:, 8])),
                moment=float(np.max(rows[:, 9])), axial=float(np.max(np.abs(rows[:, 10]))),
                midpoint=float(np.max(np.abs(rows[:, 3]))),
                shortening=float(np.max(rows[:, 11])), stiffness=sc.weld.stiffness,
                EI=sc.rod_link.EI, l=sc.l, EA=_axial_rigidity(sc.rod_link))


def _axial_rigidity(link):
    from chrono_flex.chrono.corotational import section_properties

    sec = section_properties(link)
    return sec.E * sec.A


@functools.lru_cache(maxsize=None)
def slider_crank_study():
    """Both formulations, each at its two steps and with twice the elements, and the
    bound on their difference in the slider's X and the rod's midpoint deflection.

    Bound per quantity: S (e_step + e_mesh) of each formulation, e_step = (4/3)
    |y(h) - y(h/2)| (HHT with alpha = 0 is second order: the error at h), e_mesh =
    (4/3) |y(n) - y(2n)| (the beams' lumped mass is O(l^2); the element's cubic Hermite
    converges faster, so the same factor is safe); plus what one formulation models and
    the other does not:

    * the axial force N of the rod bends it further (compression) or stiffens it
      (tension) in Chrono's corotational beams, not in the element, whose geometric
      stiffening counts its own inertia only: the amplification of a pinned-pinned
      beam-column, 1 / (1 - N / N_cr) with N_cr = pi^2 EI / l^2 (Timoshenko & Gere 1961,
      Theory of elastic stability, §1.11), changes the deflection by at most
      N_max / (N_cr - N_max) of its largest value;
    * the beams stretch, N l / EA, and shorten along the rod's root tangent by the
      bending, int w'^2 / 2 dx (w' off the root tangent: (3/4) pi^2 w_mid^2 / l for a
      half sine), both moving the slider; the linear, inextensible element has neither
      (its tip stays at abscissa l): the largest shortening is read off the element's
      own deflection (``SliderCrank.shortening``);
    * the element's weld opens by its gap (the beams' weld is exact).
    """
    runs = {}
    for form, (h, h2) in SC_STEPS.items():
        runs[form] = dict(base=slider_crank(form, SC_N, h), fine=slider_crank(form, SC_N, h2),
                          mesh=slider_crank(form, 2 * SC_N, h))
    el, bm = runs["element"], runs["beam"]
    y_el, y_bm = el["fine"]["samples"], bm["fine"]["samples"]
    diff = np.max(np.abs(y_el[:, 1:] - y_bm[:, 1:]), axis=0)
    e_disc = np.zeros(2)
    parts = {}
    for form, r in runs.items():
        e_step = 4.0 / 3.0 * np.max(np.abs(r["base"]["samples"][:, 1:]
                                           - r["fine"]["samples"][:, 1:]), axis=0)
        e_mesh = 4.0 / 3.0 * np.max(np.abs(r["base"]["samples"][:, 1:]
                                           - r["mesh"]["samples"][:, 1:]), axis=0)
        # the study's error estimates are at the coarse step: the fine run's are a
        # quarter of e_step (second order), and e_mesh is kept whole
        e_disc += e_step / 4.0 + e_mesh
        parts[form] = dict(e_step=e_step.tolist(), e_mesh=e_mesh.tolist())
    f = el["fine"]
    N = max(f["axial"], bm["fine"]["axial"])
    N_cr = np.pi ** 2 * f["EI"] / f["l"] ** 2
    w = max(f["midpoint"], bm["fine"]["midpoint"])
    e_model = np.array([N * f["l"] / f["EA"] + f["shortening"] + f["gap"],
                        N / (N_cr - N) * w])
    bound = SAFETY * e_disc + e_model
    return dict(diff=diff.tolist(), bound=bound.tolist(), e_model=e_model.tolist(),
                parts=parts, N_max=float(N), N_cr=float(N_cr), w_max=float(w),
                runs={form: {k: {kk: vv for kk, vv in v.items() if kk != "samples"}
                             for k, v in r.items()} for form, r in runs.items()})


@case("scene.slider-crank-formulations", tolerance=1.0, engines=("chrono",), needs_pychrono=True)
def _slider_crank_formulations(ctx):
    """Quantity: flexible slider-crank (2 Hz crank, two revolutions): slider position and the
        connecting rod's midpoint deflection with the papers' element and with Chrono's
        beams

    Metric: max over both quantities of |element - beam| / bound (slider_crank_study)

    Reason: bound = S = 3 times the sum of each formulation's step and mesh error estimates
        (step halving, element doubling), plus what the formulations model differently: the
        axial force's effect on bending N/(N_cr - N) of the deflection, the beams' stretch N
        l/EA and their shortening by bending (the linear element keeps its tip at abscissa
        l), and the element's weld gap

    Source: docs/chrono.md §9; Timoshenko & Gere 1961 (beam-column)"""
    st = slider_crank_study()
    ratios = np.array(st["diff"]) / np.array(st["bound"])
    details = [f"|element - beam| max: slider {st['diff'][0]:.2e} m (bound "
               f"{st['bound'][0]:.2e}), midpoint {st['diff'][1]:.2e} m (bound "
               f"{st['bound'][1]:.2e}; largest deflection {st['w_max']:.2e} m)",
               f"axial force up to {st['N_max']:.2f} N, N_cr = {st['N_cr']:.1f} N; modelled "
               f"differences {np.array2string(np.array(st['e_model']), precision=2)} m"]
    for form, p in st["parts"].items():
        step_, mesh = (np.array2string(np.array(p[k]), precision=2) for k in ("e_step", "e_mesh"))
        details.append(f"{form}: step estimate {step_}, mesh estimate {mesh} m")
    return Outcome(float(np.max(ratios)), details=details, data=st)


@case("scene.slider-crank-energy", tolerance=1.0, engines=("chrono",), needs_pychrono=True)
def _slider_crank_energy(ctx):
    """Quantity: flexible slider-crank, undamped: energy balance (motor work against the
        mechanism's energy) and the weld's error, both formulations

    Metric: max of |balance(h/2)| / (S |balance(h) - balance(h/2)| / 3) and of the weld
        errors over their bounds

    Reason: nothing dissipates, so the balance E - E0 - W must be the integrator's own
        second-order error: a quarter of it is left at h/2, which the step pair measures (S
        = 3); a missing energy term would not shrink with h. The element's weld opens by
        |F|/k_p and |M|/k_r (eq. 8.4), bounded with the beams' weld reaction (the same
        force, measured independently) plus 10 %; the beams' weld is an exact constraint,
        bounded by 1e-9 (Newton's tolerance)

    Source: docs/chrono.md §8, §9"""
    st = slider_crank_study()
    ratios, details = [], []
    for form, r in st["runs"].items():
        b, f = r["base"]["balance"], r["fine"]["balance"]
        est = abs(b - f) / 3.0
        ratios.append(f / (SAFETY * est))
        details.append(f"{form}: balance {b:.2e} J at h, {f:.2e} J at h/2 (order "
                       f"{np.log2(b / f):.2f}); motor work up to {r['fine']['work']:.3f} J")
    el, bm = st["runs"]["element"]["fine"], st["runs"]["beam"]["fine"]
    k_p, k_r = el["stiffness"]
    gap_bound = 1.1 * bm["force"] / k_p
    angle_bound = 1.1 * bm["moment"] / k_r + 1e-9
    ratios += [el["gap"] / gap_bound, el["angle"] / angle_bound,
               bm["gap"] / 1e-9, bm["angle"] / 1e-9]
    details.append(f"element weld: gap up to {el['gap']:.2e} m (bound {gap_bound:.2e}), angle "
                   f"{el['angle']:.2e} rad (bound {angle_bound:.2e}); beam weld: gap "
                   f"{bm['gap']:.1e} m, angle {bm['angle']:.1e} rad (bound 1e-9)")
    return Outcome(float(max(ratios)), details=details, data=st["runs"])


__all__ = ["cantilever_pulled", "formulation_swing", "payload_study", "propped_cantilever",
           "propped_vibration", "propped_vibration_study", "slider_crank", "slider_crank_study",
           "trapezoidal_frequency"]
