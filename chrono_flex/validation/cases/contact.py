"""Contact along a flexible link in Chrono (docs/chrono.md §13).

A clamped link under its own weight rests on a rigid support by contact at its tip:

* NSC (complementarity, a rigid support): the tip stays at the support and the contact
  force is the propped cantilever's reaction 3qL/8 (Roark, Young & Budynas 2002,
  table 8.1);
* SMC (Hooke contact of stiffness k_c, no damping at rest): the support is a spring in
  series with the link, the reaction is 3qL/8 / (1 + 3EI/(k_c L^3)) and the tip sits
  R/k_c into the support (:func:`chrono_flex.planar.shapes.propped_cantilever_reaction`).

Both formulations: Chrono's beams (spheres at the nodes) and the element (capsules on
welded station bodies).
"""

import functools

import numpy as np

from ..core import Outcome, case, labels, tidy

L, EI, RHO_A, N_EL, G = 1.0, 20.0, 1.0, 4, 9.81
#: sphere radius / half thickness of the contact shapes, m
RADIUS = 0.01
#: side of the support's box, m
SUPPORT_SIZE = 0.1
#: Hooke contact stiffness (SMC), N/m: 3EI/(k_c L^3) = 3e-3, so the series compliance
#: shows (3e-3 of the reaction) far above the tolerances
K_CONTACT = 2e4
#: normal damping of SMC's Hooke contact per unit effective mass, 1/s (settles the
#: rebound of the first touch; zero force at rest)
G_CONTACT = 200.0
#: steps of the static settles: implicit Euler at 10 ms damps the propped link's first
#: mode (69 rad/s) by 0.82 per step, 1e-9 after 100 steps; HHT (SMC; implicit Euler at
#: 10 ms threw the link off the support) at 1 ms with Rayleigh beta 1e-2 (zeta = beta
#: omega / 2 = 0.35 in mode 1; with 1e-3 a slow swing of period ~1.2 s was still 3 % of
#: the force after 1.5 s): settled to 1e-5 by 0.5 s (measured), damping leaves the
#: static answer unchanged
NSC_STEP, NSC_STEPS = 1e-2, 100
SMC_STEP, SMC_STEPS = 1e-3, 1000
SMC_BETA = 1e-2
SMC_TIMESTEPPER = "hht"
#: The element under SMC (docs/chrono.md §13): its station body sits between the weld
#: (k_p = 1.5e8 N/m) and the contact (k_c): a mode of sqrt(k_p / m_s) that the step
#: cannot follow (omega h >> 1), which HHT with alpha = 0 (the trapezoidal rule) keeps
#: ringing whatever its physical damping, and HHT with alpha = -0.3 damps by its
#: spectral radius at infinity (1 + alpha) / (1 - alpha) = 0.54 per step. The station
#: mass sets the contact's Hooke damping (G_CONTACT times the effective mass): the SMC
#: default, 1e-3 of the link's mass (chrono.contact.SMC_STATION_MASS_FRACTION), gives
#: 0.2 N s/m, which settles the touch, with the station mode at sqrt(1.5e8 / 1e-3) =
#: 3.9e5 rad/s still far above the contact's (283 rad/s). Its weight m_s g rests on
#: the support directly (a point load over it).
SMC_ELEMENT_ALPHA = -0.3


def _system(method, smc_alpha=0.0):
    from chrono_flex.chrono import scenes

    return scenes.contact_system(method, (0.0, -G, 0.0), K_CONTACT, G_CONTACT,
                                 SMC_TIMESTEPPER, smc_alpha)


def support(chrono, system, mat, x, top):
    """A fixed box (SUPPORT_SIZE a side) whose top face is at y = ``top``, centred under
    x = ``x``: a sphere at x rests on the face at x."""
    from chrono_flex.chrono import scenes

    return scenes.support_box(system, mat, x, top, SUPPORT_SIZE, 0.5 * RADIUS,
                              0.2 * RADIUS)


@functools.lru_cache(maxsize=None)
def propped_by_contact(formulation, method):
    """The clamped link resting on a support at its tip; returns the settled contact
    force per station, the tip's vertical position and the predictions."""
    import chrono_flex as cf
    from chrono_flex.chrono import scenes
    from chrono_flex.planar.shapes import propped_cantilever_reaction

    smc_element = method == "smc" and formulation == "element"
    chrono, system, mat = _system(method, SMC_ELEMENT_ALPHA if smc_element else 0.0)
    beta = SMC_BETA if method == "smc" else 0.0
    arm = cf.PlanarArm([cf.Link(length=L, n_elements=N_EL, EI=EI, rho_A=RHO_A,
                                damping_beta=beta)], gravity=G)
    if formulation == "beam":
        link = scenes.clamped_link(system, arm, "beam", consistent_mass=True,
                                   rayleigh_alpha=0.0)
        contact = link.enable_contact(mat, RADIUS)
        tip = lambda: link.links[0].nodes[-1].GetPos().y     # noqa: E731
    else:
        link = scenes.clamped_link(system, arm, "element")
        contact = link.enable_contact(mat, 2 * RADIUS, stations=[L], shape="sphere")
        # the station body at the tip (it carries the sphere; the link's tip sits a
        # weld gap R/k_p ~ 2e-8 m from it)
        tip = lambda: contact.bodies[0].GetPos().y            # noqa: E731
    support(chrono, system, mat, L, -RADIUS)
    h, n = (NSC_STEP, NSC_STEPS) if method == "nsc" else (SMC_STEP, SMC_STEPS)
    hist = scenes.run(system, h, n * h, lambda: [contact.total_force()[1], tip()])
    q = RHO_A * G
    k = np.inf if method == "nsc" else K_CONTACT
    # the contact carries the link's reaction and the station bodies' weight (over the
    # support; 1e-5 N at the default station mass)
    W = sum(b.GetMass() for b in getattr(contact, "bodies", ())) * G
    R = propped_cantilever_reaction(q, L, EI, k) + W
    return dict(forces=contact.forces().tolist(), stations=contact.stations.tolist(),
                R=float(contact.total_force()[1]), tip=tip(), R_rigid=3 * q * L / 8,
                R_pred=R, tip_pred=-R / k, W_station=W, history=hist, h=h)


def _plot(results):
    def plot(fig):
        ax = fig.add_subplot(111)
        for (name, r), style in zip(results.items(), ("-", "--")):
            t = r["h"] * np.arange(1, len(r["history"]) + 1)
            ax.plot(t, r["history"][:, 0], style, label=f"{name}: contact force")
        R = next(iter(results.values()))["R_pred"]
        ax.axhline(R, color="k", lw=3, alpha=0.3, label="3qL/8")
        labels(ax, "t (s)", "vertical contact force at the tip (N)")
        ax.set_title("Cantilever settling onto a support under its tip (NSC)")
        ax.legend()
    return plot


@case("scene.contact-propped-nsc", tolerance=2e-5, engines=("chrono",), needs_pychrono=True)
def _contact_propped(ctx):
    """Quantity: tip contact force and tip height of a clamped link under gravity resting on a
        rigid support by NSC contact, Chrono's beams (node spheres) and the element (a
        station body welded at the tip)

    Metric: max over formulations of |R - 3qL/8| / (3qL/8) and |y_tip| / (qL^4/8EI)

    Reason: both meshes are nodally exact for a uniform load with consistent loads; what
        remains is ADMM's tolerance (1e-10 on the contact impulse, relative to an impulse of
        R h ~ 4e-2: 3e-9), the element's weld compliance (k_tip/k_p = 4e-7 at a ratio of 1e4
        with four elements) and the settling of 100 implicit Euler steps (1e-9); 2e-5 leaves
        room for the corotational beams' geometric terms ((w/L)^2 ~ 1e-5 with w ~ 3 mm)

    Source: Roark (Young & Budynas 2002), table 8.1; docs/chrono.md §13"""
    res = {f: propped_by_contact(f, "nsc") for f in ("beam", "element")}
    w_free = RHO_A * G * L ** 4 / (8 * EI)
    errs, details = [], []
    for f, r in res.items():
        e_R = abs(r["R"] - r["R_pred"]) / r["R_rigid"]
        e_y = abs(r["tip"]) / w_free
        errs += [e_R, e_y]
        details.append(f"{f}: R = {r['R']:.8f} N (3qL/8 = {r['R_pred']:.8f} N, rel. "
                       f"{e_R:.1e}); tip height {r['tip']:.2e} m (free tip {-w_free:.4f} m)")
    return Outcome(float(max(errs)), _plot(res), details=details,
                   data={f: dict(R=r["R"], tip=r["tip"]) for f, r in res.items()})


@case("scene.contact-propped-smc", tolerance=1e-4, engines=("chrono",), needs_pychrono=True)
def _contact_propped_smc(ctx):
    """Quantity: tip contact force and tip penetration of a clamped link under gravity resting
        on a support by SMC (Hooke) contact, Chrono's beams (node spheres) and the element
        (a station body welded at the tip)

    Metric: max over formulations of |R - R_series| / (3qL/8) and |delta - R/k_c| / (R/k_c),
        R_series = (3qL/8) / (1 + 3EI/(k_c L^3)) + m_s g (the station body's weight, the
        element's only)

    Reason: the series compliance 3EI/(k_c L^3) = 3e-3 must show: the tolerance is 30 times
        below it; what remains is settling (beams: 2e-5 after 1 s; the element, HHT alpha =
        -0.3, still rings by up to 8e-5 of 3qL/8 at 1 s, measured), the weld's compliance in
        series with the contact (k_c/k_p = 1.3e-4 of the contact's, 4e-7 of the reaction)
        and the stiffness stored in single precision (Chrono's material keeps k_c as a
        float: 2e4 is exact)

    Source: Roark (Young & Budynas 2002), table 8.1, with the support in series;
        docs/chrono.md §13, eq. (13.1)"""
    res = {f: propped_by_contact(f, "smc") for f in ("beam", "element")}
    errs, details = [], []
    for f, r in res.items():
        e_R = abs(r["R"] - r["R_pred"]) / r["R_rigid"]
        e_d = abs(r["tip"] - r["tip_pred"]) / abs(r["tip_pred"])
        errs += [e_R, e_d]
        details.append(f"{f}: R = {r['R']:.8f} N (series {r['R_pred']:.8f} N, 3qL/8 "
                       f"{r['R_rigid']:.8f} N; rel. {e_R:.1e}); tip {r['tip']:.4e} m "
                       f"(-R/k_c = {r['tip_pred']:.4e} m, rel. {e_d:.1e})")
    return Outcome(float(max(errs)), details=details,
                   data={f: dict(R=r["R"], tip=r["tip"]) for f, r in res.items()})


# -- a link swinging into a post (docs/chrono.md §13, eq. (13.2)) ------------------------
#: the strike's step (s) and the coarser one that measures each formulation's step
#: sensitivity: for a method of order p the error of X(h) is (X(h) - X(2h)) / (2^p - 1),
#: so |X(h) - X(2h)| is the error estimate of a first-order step (linearised implicit
#: Euler). Measured here: the changes from 1 ms to 0.5 ms to 0.25 ms shrink by 0.7
#: (p ~ 0.5, as impacts on a flexible body give), which makes the estimate low by up to
#: 2.4; the two formulations' errors share the sign (both rise as h falls), so their
#: difference is far smaller than either (0.03 of the bound, measured). 0.2 s covers the
#: strike and its rebound (the last contact ends by 0.11 s)
STRIKE_STEP, STRIKE_END = 5e-4, 0.2
STRIKE_RESTITUTION = 0.5


@functools.lru_cache(maxsize=None)
def post_strike(formulation, h=STRIKE_STEP, free_after_first_contact=False):
    """The link swinging into the post (:class:`~chrono_flex.chrono.contact_scenes.PostStrike`)
    run to STRIKE_END at step ``h``."""
    from chrono_flex.chrono.contact_scenes import PostStrike

    return PostStrike(formulation, restitution=STRIKE_RESTITUTION).run(
        h, STRIKE_END, free_after_first_contact=free_after_first_contact)


def strike_comparison():
    """Impulse and rebound of both formulations at STRIKE_STEP, each one's step
    sensitivity |X(h) - X(2h)|, and the ratio of their difference to the bound
    (the sum of the sensitivities)."""
    rows = {}
    for f in ("element", "beam"):
        fine, coarse = post_strike(f), post_strike(f, 2 * STRIKE_STEP)
        rows[f] = dict(J=-fine["impulse"][1], rebound=fine["rebound"],
                       dJ=abs(fine["impulse"][1] - coarse["impulse"][1]),
                       drebound=abs(fine["rebound"] - coarse["rebound"]))
    e, b = rows["element"], rows["beam"]
    ratios = {x: abs(e[x] - b[x]) / (e["d" + x] + b["d" + x]) for x in ("J", "rebound")}
    return rows, ratios


def _strike_plot(runs):
    def plot(fig):
        top, bottom = fig.add_subplot(211), fig.add_subplot(212)
        for (name, r), style in zip(runs.items(), ("-", "--")):
            top.plot(r["t"], -r["force"][:, 1], style, label=f"{name}: contact force")
            bottom.plot(r["t"], r["energy"], style, label=f"{name}: energy")
        labels(top, "t (s)", "contact force (N)",
               "Flexible link swinging into a post (NSC, e = 0.5)")
        labels(bottom, "t (s)", "mechanical energy (J)")
        tidy((top, bottom))
    return plot


@case("scene.contact-post-strike", tolerance=1.0, engines=("chrono",), needs_pychrono=True)
def _contact_post_strike(ctx):
    """Quantity: contact impulse and rebound (angular momentum about the pivot after the strike
        over before) of a flexible link swinging into a post, the element against Chrono's
        beams (NSC, restitution 0.5)

    Metric: max over impulse and rebound of |X_element - X_beam| / (|X_element(h) -
        X_element(2h)| + |X_beam(h) - X_beam(2h)|), h = 0.5 ms

    Reason: both discretise the same Euler-Bernoulli link (four cubic elements, consistent
        mass) under the same first-order step; each one's error at h is estimated by its
        change from 2h (low by up to 2.4 at the order ~0.5 measured in this impact, but both
        errors have the same sign), so two results within the sum of those estimates agree
        to the integrator; the models' own differences (weld compliance 1e-4 of the tip's,
        station mass 1e-6 of the link's, corotational terms (w/L)^2 ~ 1e-4) are far below it

    Source: docs/chrono.md §13, eq. (13.2)"""
    rows, ratios = strike_comparison()
    details = [f"{f}: impulse {r['J']:.5f} N s (step change {r['dJ']:.1e}), rebound "
               f"{r['rebound']:.5f} (step change {r['drebound']:.1e})"
               for f, r in rows.items()]
    details.append("difference / bound: " + ", ".join(f"{k} {v:.2f}"
                                                      for k, v in ratios.items()))
    return Outcome(float(max(ratios.values())),
                   _strike_plot({f: post_strike(f) for f in ("element", "beam")}),
                   details=details, data=dict(rows=rows, ratios=ratios))


def strike_energy(formulation):
    """Energy change across each contact event of the strike, the integrator's energy
    rise without contact (the same run with the post taken away after the first
    contact: the link vibrates as after the strike) and the start energy."""
    from chrono_flex.chrono.contact_scenes import energy_through_contacts, largest_rise

    r = post_strike(formulation)
    free = post_strike(formulation, free_after_first_contact=True)
    after = free["t"] >= free["t_free"]
    return dict(dE=energy_through_contacts(r["energy"], r["in_contact"]),
                rise=largest_rise(free["energy"][after]), E0=float(r["energy"][0]))


#: floor of the energy tolerance, relative to the start energy: ADMM's tolerance (1e-10
#: on the contact impulses) and round-off in the energy sums (~1e-15) leave at most
#: ~1e-10 E; the integrator's rise without contact, measured, comes on top
ENERGY_FLOOR = 1e-9


@case("scene.contact-post-energy", tolerance=0.0, engines=("chrono",), needs_pychrono=True)
def _contact_post_energy(ctx):
    """Quantity: mechanical energy through each contact of the undamped link swinging into a
        post (NSC, restitution 0.5), the element and Chrono's beams

    Metric: max over contact events and formulations of (E_after - E_before - delta) / E_0,
        delta the largest energy rise of the same run without contact (post taken away after
        the first contact) plus 1e-9 E_0

    Reason: a contact with restitution <= 1 only takes energy; what may add some is the
        integrator, whose energy error is measured on the same vibration without contact
        (delta), plus ADMM's and round-off's 1e-9 E_0

    Source: docs/chrono.md §13"""
    worst, details, data = -np.inf, [], {}
    for f in ("element", "beam"):
        r = strike_energy(f)
        delta = r["rise"] + ENERGY_FLOOR * r["E0"]
        m = float(np.max((r["dE"] - delta) / r["E0"]))
        worst = max(worst, m)
        details.append(f"{f}: {len(r['dE'])} contact events, energy changes "
                       + ", ".join(f"{x:.2e}" for x in r["dE"])
                       + f" J of {r['E0']:.5f} J; rise without contact {r['rise']:.1e} J")
        data[f] = dict(dE=r["dE"].tolist(), rise=r["rise"], E0=r["E0"])
    return Outcome(worst, details=details, data=data)
