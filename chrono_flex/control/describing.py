"""Describing functions of backlash and friction, and the harmonic balance of a position
servo on the drive (docs/control.md §4).

The describing function N(A) of a nonlinearity y = f(x) is the complex ratio of the
fundamental of y to the input x = A sin(w t) (Gelb & Vander Velde, *Multiple-Input
Describing Functions and Nonlinear System Design*, McGraw-Hill 1968, ch. 2 and app. B;
Slotine & Li, *Applied Nonlinear Control*, Prentice Hall 1991, sec. 5.3):

    N(A) = (j / (pi A)) int_0^2pi f(A sin phi) e^(-j phi) dphi
         = (1 / (pi A)) int_0^2pi f(A sin phi) (sin phi + j cos phi) dphi

A loop of a linear part with the nonlinearity has a limit cycle of amplitude A and
frequency w where the loop with N(A) in place of f is marginally stable (G(jw) N(A) = -1
for a single loop); the prediction neglects the harmonics the linear part lets through.
"""

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import dawsn

from .. import _checks as ck
from ..errors import ParameterError


def dead_zone_df(A, b, k=1.0):
    """Describing function of a dead zone of half-width b and slope k (a spring with
    play: the elastic gear with backlash of [S] eq. 16), real:

        N(A) = k [1 - (2/pi) (asin(b/A) + (b/A) sqrt(1 - (b/A)^2))]   for A > b, else 0

    (Gelb & Vander Velde 1968, app. B, "dead zone"; Slotine & Li 1991, eq. 5.27.)"""
    A = np.asarray(A, dtype=float)
    beta = np.clip(b / np.where(A > 0, A, np.inf), 0.0, 1.0)
    return k * (1.0 - (2.0 / math.pi) * (np.arcsin(beta) + beta * np.sqrt(1.0 - beta * beta)))


def backlash_df(A, b, k=1.0):
    """Describing function of hysteresis backlash of half-width b (play +-b, total 2b)
    and slope k, complex (its imaginary part is the phase lag):

        Re N = (k/pi) [pi/2 + asin(1 - 2b/A) + 2 (1 - 2b/A) sqrt((b/A)(1 - b/A))]
        Im N = -(4 k b / (pi A)) (1 - b/A)                           for A > b, else 0

    (Gelb & Vander Velde 1968, app. B, "backlash"; Slotine & Li 1991, eqs. 5.32-5.33
    with their play b_SL = b.) The output follows the input at distance b once in
    contact and holds its value while the input crosses the play."""
    A = np.asarray(A, dtype=float)
    beta = np.clip(b / np.where(A > 0, A, np.inf), 0.0, 1.0)
    s = 1.0 - 2.0 * beta
    re = (k / math.pi) * (math.pi / 2 + np.arcsin(s) + 2.0 * s * np.sqrt(beta * (1.0 - beta)))
    im = -(4.0 * k / math.pi) * beta * (1.0 - beta)
    return re + 1j * im


def coulomb_df(V, Fc):
    """Describing function of Coulomb friction F = Fc sign(v) for a sinusoidal speed of
    amplitude V: N(V) = 4 Fc / (pi V) (Gelb & Vander Velde 1968, app. B, "ideal relay")."""
    V = np.asarray(V, dtype=float)
    return 4.0 * Fc / (math.pi * V)


def stribeck_df(V, Fc, Fs, vs):
    """Describing function of the Gaussian Stribeck law F = sign(v) (Fc + (Fs - Fc)
    exp(-(v/vs)^2)) ([S] Table 1, [CW] eq. 3) for a sinusoidal speed of amplitude V:

        N(V) = (4 / (pi V)) [Fc + (Fs - Fc) D(a)/a],   a = V / vs

    D the Dawson integral (from int_0^pi exp(-a^2 sin^2 phi) sin phi dphi = 2 D(a)/a);
    the Coulomb term is :func:`coulomb_df`, the Stribeck part tends to 4 (Fs - Fc)/(pi V)
    at low speed and to 2 (Fs - Fc) vs^2 / (pi V^3) at high speed."""
    V = np.asarray(V, dtype=float)
    a = V / vs
    return (4.0 / (math.pi * V)) * (Fc + (Fs - Fc) * dawsn(a) / a)


def numerical_df(f, A, n=2048):
    """The describing function of any odd or hysteresis-free f by the defining
    integral (the midpoint rule over one period, exact to round-off for the
    trigonometric polynomials of the smooth parts, O(1/n^2) at kinks)."""
    phi = (np.arange(n) + 0.5) * (2 * math.pi / n)
    y = np.asarray(f(A * np.sin(phi)), dtype=float)
    return (2.0 / (n * A)) * np.sum(y * (np.sin(phi) + 1j * np.cos(phi)))


def harmonic_ratio(f, A, n=2048, order=3):
    """|c_order| / |c_1|: the size of the ``order``-th harmonic of f(A sin phi) relative
    to its fundamental (the part the describing function neglects)."""
    phi = (np.arange(n) + 0.5) * (2 * math.pi / n)
    y = np.asarray(f(A * np.sin(phi)), dtype=float)
    c = lambda m: np.sum(y * np.exp(-1j * m * phi))   # noqa: E731
    return float(abs(c(order)) / abs(c(1)))


# ---------------------------------------------------------------------------------------
# the PD position servo on the drive: harmonic balance


def servo_matrix(params, kp, kd, f=1.0, d_friction=0.0, side="link"):
    """A of the linearised loop x' = A x, x = [i, alpha1, Omega1, alpha2, Omega2], of a
    drive ([S] eq. 24, voltage mode, friction replaced by the viscous d_friction on the
    output) under the PD law u = -kp y - kd y' (y = alpha2, side "link", or alpha1/i,
    "motor"), with the gear's spring and damper scaled by f (the dead zone's describing
    function over c: in contact on both flanks f = 1, within the play f = 0)."""
    p = params
    r, c, d = p.ratio, p.c * f, p.K_V1 * f
    A = np.zeros((5, 5))
    A[0, 0], A[0, 2] = -p.R / p.L, -p.k_E / p.L
    if side == "link":
        A[0, 3], A[0, 4] = -kp / p.L, -kd / p.L
    else:
        A[0, 1], A[0, 2] = -kp / (r * p.L), A[0, 2] - kd / (r * p.L)
    A[1, 2] = 1.0
    A[2, 0] = p.k_M / p.J1
    A[2, 1], A[2, 2] = -c / r**2 / p.J1, -d / r**2 / p.J1
    A[2, 3], A[2, 4] = c / r / p.J1, d / r / p.J1
    A[3, 4] = 1.0
    A[4, 1], A[4, 2] = c / r / p.J2, d / r / p.J2
    A[4, 3], A[4, 4] = -c / p.J2, -(d + p.K_V2 + d_friction) / p.J2
    return A


def _critical(params, kp, kd, d_friction, side, n=400):
    """(f*, w*, |alpha2| / |theta|) at the largest f in (0, 1] where the loop is
    marginally stable, or None when no f in (0, 1] is unstable (no limit cycle); f = 1
    unstable: the loop is unstable in contact (no bounded cycle of this kind)."""
    growth = lambda f: float(np.max(np.linalg.eigvals(                # noqa: E731
        servo_matrix(params, kp, kd, f, d_friction, side)).real))
    fs = np.linspace(1.0 / n, 1.0, n)
    g = np.array([growth(f) for f in fs])
    if g[-1] > 0.0:
        return "unstable"
    crossings = np.nonzero((g[:-1] > 0.0) & (g[1:] <= 0.0))[0]
    if crossings.size == 0:
        return None
    k = crossings[-1]
    f = brentq(growth, fs[k], fs[k + 1], xtol=1e-13)
    lam, vec = np.linalg.eig(servo_matrix(params, kp, kd, f, d_friction, side))
    m = int(np.argmax(lam.real))
    v = vec[:, m]
    theta = v[1] / params.ratio - v[3]
    return f, abs(lam[m].imag), abs(v[3] / theta)


def servo_limit_cycle(params, kp, kd, side="link", friction=True, iterations=200):
    """Harmonic-balance prediction of the self-sustained oscillation of a PD position
    servo u = kp (r - y) - kd y' on a drive with backlash (Tustin 1947; Gelb & Vander
    Velde 1968, ch. 2).

    The gear's dead-zone spring and its contact damper are replaced by f(A) (c + K_V1 s),
    f = :func:`dead_zone_df` / c at the twist amplitude A (the damper acts in contact
    only, and its fundamental has the same factor); the output friction by the viscous
    equivalent :func:`coulomb_df` (Mc, at the output speed amplitude V) when
    ``friction``. A cycle exists where the loop with f is marginally stable; then A
    follows from f(A) = f*, the output amplitude from the critical mode's shape and V
    from it; the friction's damping and V are iterated to agreement.

    Returns a dict: ``exists`` (bool), and when a cycle exists ``period`` (s),
    ``twist`` (amplitude of theta, rad), ``output`` (amplitude of alpha2, rad), ``f``,
    ``d_friction`` (N m s/rad), ``third_harmonic`` (:func:`harmonic_ratio` of the dead
    zone at A: the neglected part), ``harmonic_error`` (that harmonic after the loop,
    relative to the fundamental: :func:`gear_loop`); ``reason`` when none.
    """
    kp, kd = ck.real("kp", kp), ck.real("kd", kd)
    p = params
    if p.theta_b <= 0.0:
        raise ParameterError("theta_b", p.theta_b, "must be > 0 (a limit cycle of backlash)")
    d_fric = 0.0
    for _ in range(iterations):
        crit = _critical(p, kp, kd, d_fric, side)
        if crit is None:
            return dict(exists=False, reason="the loop is stable for every contact ratio f")
        if crit == "unstable":
            return dict(exists=False, reason="the loop is unstable in contact (f = 1): "
                        "the oscillation grows until the input saturates")
        f, w, ratio = crit
        beta = brentq(lambda b: float(dead_zone_df(p.theta_b / b, p.theta_b)) - f,
                      1e-12, 1.0 - 1e-15)
        A = p.theta_b / beta
        V = w * ratio * A
        if not friction or p.friction == "none":
            break
        new = float(coulomb_df(V, p.Mc))
        if abs(new - d_fric) <= 1e-10 * max(new, 1e-300):
            break
        d_fric = 0.5 * (d_fric + new)
    third = harmonic_ratio(lambda x: np.sign(x) * np.maximum(np.abs(x) - p.theta_b, 0.0), A)
    g1, g3 = (abs(gear_loop(p, kp, kd, 1j * m * w, d_fric, side)) for m in (1, 3))
    return dict(exists=True, period=2 * math.pi / w, twist=A, output=ratio * A, f=f,
                d_friction=d_fric, third_harmonic=third, harmonic_error=third * g3 / g1)


def gear_loop(params, kp, kd, s, d_friction=0.0, side="link"):
    """G(s) = theta(s) / T(s): the twist the servo loop (:func:`servo_matrix` with the
    gear removed, f = 0) makes of a torque T acting between the gear's two sides (-T/i
    on the motor, +T on the output). The describing-function prediction neglects the
    third harmonic of T; what reaches theta relative to the fundamental is
    h3 |G(3jw)| / |G(jw)| (``harmonic_error`` of :func:`servo_limit_cycle`), the
    estimate of the prediction's relative error (Gelb & Vander Velde 1968, sec. 2.7)."""
    p = params
    A = servo_matrix(p, kp, kd, 0.0, d_friction, side)
    B = np.array([0.0, 0.0, -1.0 / (p.ratio * p.J1), 0.0, 1.0 / p.J2])
    C = np.array([0.0, 1.0 / p.ratio, 0.0, -1.0, 0.0])
    return complex(C @ np.linalg.solve(s * np.eye(5) - A, B))


__all__ = ["backlash_df", "coulomb_df", "dead_zone_df", "gear_loop", "harmonic_ratio", "numerical_df",
           "servo_limit_cycle", "servo_matrix", "stribeck_df"]
