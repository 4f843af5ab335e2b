"""Links of varying section against closed forms (docs/planar-link.md §2.5).

Two cantilevers clamped at their thick end and tapering to a point at the tip, with root
values E I_0 and rho A_0:

* the wedge (constant width, depth linear to zero): EI = E I_0 (1 - x/L)^3,
  rho A = rho A_0 (1 - x/L);
* the cone (radius linear to zero): EI = E I_0 (1 - x/L)^4, rho A = rho A_0 (1 - x/L)^2.

Their first frequency is omega_1 = c sqrt(E I_0 / (rho A_0 L^4)) with c = 5.31510 (wedge)
and 8.71926 (cone), the first roots of Kirchhoff's Bessel-function frequency equation
(:func:`chrono_flex.planar.shapes.tapered_cantilever_coefficient`); the classical
tables print them as 5.315 and 8.719 (Kirchhoff 1879; Conway, Becker & Dubil,
J. Appl. Mech. 31, 1964).

EI and rho_A are polynomials in x, so the elements given them as callables integrate
them exactly (6 Gauss points per element); the only error left is that of the cubic
Hermite shapes, O(h^4) in the frequency (Strang & Fix ch. 6). Averaged over each
element instead (``Link.per_element()``, piecewise constant: what a model file stores,
and what Chrono's beams get, one section per element) the section itself is in error
by O(h) and the frequency by O(h^2). Unequal elements (``element_lengths``) keep the
order 4 (``sections.unequal-elements``).
"""

import numpy as np

import chrono_flex as cf
from chrono_flex.planar.modes import eigenmodes
from chrono_flex.planar.shapes import tapered_cantilever_coefficient

from ..core import Outcome, case, observed_rate

L, EI0, RHO_A0 = 1.0, 1.0, 1.0
SHAPES = {"wedge": 1, "cone": 2}
#: Element counts of the convergence studies.
NS = (2, 4, 8, 16)
#: Printed 4-figure coefficients (Kirchhoff 1879; Conway, Becker & Dubil 1964).
PRINTED = {"wedge": 5.315, "cone": 8.719}


def unequal_lengths(n):
    """n element lengths alternating 1.4 h and 0.6 h (h = L/n), scaled to sum to L."""
    le = np.where(np.arange(n) % 2 == 0, 1.4, 0.6)
    return tuple(L * le / le.sum())


def tapered_link(shape, n, per_element=False, unequal=False):
    """The wedge or cone of the module docstring (L = E I_0 = rho A_0 = 1) with n elements;
    ``per_element``: the section averaged over each element; ``unequal``: elements of
    :func:`unequal_lengths`."""
    m = SHAPES[shape]
    mesh = dict(element_lengths=unequal_lengths(n)) if unequal else dict(n_elements=n)
    lk = cf.Link(length=L, EI=lambda x: EI0 * (1 - x / L) ** (m + 2),
                 rho_A=lambda x: RHO_A0 * (1 - x / L) ** m, **mesh)
    return lk.per_element() if per_element else lk


def first_coefficient(link):
    """omega_1 L^2 sqrt(rho A_0 / E I_0) of a clamped link (locked joint)."""
    w2, _ = eigenmodes(cf.PlanarArm([link]), 1)
    return float(np.sqrt(w2[0]) * L * L * np.sqrt(RHO_A0 / EI0))


def _study(shape, per_element=False, unequal=False):
    exact = tapered_cantilever_coefficient(SHAPES[shape])
    c = np.array([first_coefficient(tapered_link(shape, n, per_element, unequal))
                  for n in NS])
    err = np.abs(c / exact - 1)
    return exact, c, err, observed_rate(L / np.array(NS[1:]), err[1:])


def _case_result(shape, per_element=False, unequal=False):
    exact, c, err, rate = _study(shape, per_element, unequal)
    details = [f"closed form c = {exact:.10f} (printed {PRINTED[shape]})"]
    details += [f"n = {n:2d}: c = {ck:.10f}, relative error {e:.3e}"
                for n, ck, e in zip(NS, c, err)]
    details.append(f"observed order (n = {NS[1]}..{NS[-1]}): {rate:.3f}")

    def plot(fig):
        ax = fig.add_subplot(111)
        ax.loglog(NS, err, "o-", label=f"{shape} (order {rate:.2f})")
        ax.set(xlabel="elements n", ylabel="relative error of omega_1",
               title=f"{shape}: first frequency vs elements")
        ax.legend()
    return Outcome(rate, plot, details=details,
                   data=dict(n=list(NS), coefficient=c, error=err, exact=exact, rate=rate))


def _frequency_case(shape, root, measured):
    """Register ``sections.<shape>-frequency``: the 16-element coefficient against the
    printed one (``root``: the Bessel root as the quantity prints it; ``measured``: the
    16-element error the reason quotes)."""
    printed = PRINTED[shape]

    @case(f"sections.{shape}-frequency", quantity=f"first frequency coefficient of a {shape} "
          f"cantilever, 16 elements, against the Bessel root c = {root} and the printed "
          f"{printed}", metric="|c_16 - printed| / printed", tolerance=5e-4 / printed + 1e-6,
          reason="the printed value has 4 figures (+-5e-4); the 16-element error, measured "
                 f"{measured} and falling as h^4 (sections.{shape}-convergence), is below 1e-6",
          engines=("reference", "closed form"), source="Kirchhoff 1879; Conway et al. 1964")
    def frequency(ctx):
        c = first_coefficient(tapered_link(shape, 16))
        exact = tapered_cantilever_coefficient(SHAPES[shape])
        return Outcome(abs(c / printed - 1),
                       details=[f"c_16 = {c:.10f}, Bessel root {exact:.10f}, error "
                                f"{abs(c / exact - 1):.2e}"])

    return frequency


wedge_frequency = _frequency_case("wedge", "5.31510", "4.3e-8")
cone_frequency = _frequency_case("cone", "8.71926", "1.7e-7")


def _convergence_case(shape):
    """Register ``sections.<shape>-convergence``: the observed order of the first frequency
    with the section integrated exactly."""
    @case(f"sections.{shape}-convergence", quantity=f"{shape}: first frequency vs elements "
          "(n = 2..16), section integrated exactly", metric="observed order (fit n = 4..16)",
          tolerance=(3.8, 4.2), compare="window",
          reason="order 4 of consistent-mass cubic Hermite elements once the section is "
                 "integrated exactly (Strang & Fix ch. 6); +-0.2 for pre-asymptotic terms",
          engines=("reference", "closed form"))
    def convergence(ctx):
        return _case_result(shape)

    return convergence


wedge_convergence = _convergence_case("wedge")
cone_convergence = _convergence_case("cone")


@case("sections.unequal-elements", tolerance=(3.8, 4.2), compare="window",
      engines=("reference", "closed form"))
def unequal_elements(ctx):
    """Quantity: wedge: first frequency vs elements (n = 2..16) on meshes of unequal elements
        (lengths alternating 1.4 h and 0.6 h)

    Metric: observed order (fit n = 4..16)

    Reason: unequal elements change the error constant, not the order 4 of cubic Hermite
        elements (Strang & Fix ch. 6); +-0.2 for pre-asymptotic terms"""
    return _case_result("wedge", unequal=True)


@case("sections.piecewise-convergence", tolerance=(1.7, 2.3), compare="window",
      engines=("reference", "closed form"))
def piecewise_convergence(ctx):
    """Quantity: cone: first frequency vs elements (n = 2..16) with the section averaged over
        each element

    Metric: observed order (fit n = 4..16)

    Reason: a piecewise-constant section is O(h) off pointwise but its element means are
        exact, so the energies (and the frequency) err by O(h^2); +-0.3 for the
        pre-asymptotic terms of the steep tip element"""
    return _case_result("cone", per_element=True)


@case("sections.uniform-callable", tolerance=1e-14, engines=("reference",))
def uniform_callable(ctx):
    """Quantity: a uniform link given as callables EI(x), rho_A(x) against the same link given
        as numbers (4 and 16 elements): K, structural M, M(q0) and the first three
        frequencies

    Metric: max of the matrices' relative differences and of the frequencies' relative
        differences divided by kappa = omega_max^2 / omega_1^2

    Reason: the 6-point Gauss rule integrates the constant-section integrands exactly, so
        the matrices differ by round-off only (a few ulps, < 1e-14); the symmetric
        eigensolver turns a perturbation eps ||K|| into a relative change of omega_1^2 of up
        to eps kappa, hence the division by kappa"""
    EI, rho_A = 2.0, 0.5
    worst, details = 0.0, []
    for n in (4, 16):
        num = cf.PlanarArm([cf.Link(1.3, n, EI=EI, rho_A=rho_A)])
        fun = cf.PlanarArm([cf.Link(1.3, n, EI=lambda x: EI, rho_A=lambda x: rho_A)])
        q0 = np.zeros(num.nq)
        pairs = [(num.model.K, fun.model.K), (num.model.M_struct, fun.model.M_struct),
                 (num.mass_matrix(q0), fun.mass_matrix(q0))]
        dmat = max(float(np.max(np.abs(b - a)) / np.max(np.abs(a))) for a, b in pairs)
        w2, _ = eigenmodes(num, None)
        kappa = float(w2[-1] / w2[0])
        fn, ff = (a.natural_frequencies(3, joints="locked") for a in (num, fun))
        df = float(np.max(np.abs(ff / fn - 1)))
        worst = max(worst, dmat, df / kappa)
        details.append(f"n = {n}: matrices {dmat:.1e}, frequencies {df:.1e} "
                       f"(kappa = {kappa:.2e})")
    return Outcome(worst, details=details)
