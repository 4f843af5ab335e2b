"""Identification of the drive's friction parameters from simple measurements ([S] section 3).

- :func:`identify_efficiency`: K_ML and Mc from an efficiency curve eta(M1') ([S] eq. 27).
- :func:`identify_efficiency_output`: the same from eta(M_out) ([S] eq. 28).
- :func:`breakaway_ms`: Ms from a breakaway (torque ramp) measurement.
- :func:`fit_stribeck`: Mc, Ms, Stribeck speed (and viscous K_V2) from a friction-speed curve.
- :func:`identify_presliding`: sigma0 (and Ms, and sigma1 with velocities) from a
  presliding test, a slow monotone loading below breakaway (docs/drive.md §5).

Least squares with scipy.optimize.least_squares; 95 % confidence intervals from the
Jacobian at the solution, cov = s^2 (J^T J)^-1 with s^2 = RSS/(n - p), and Student's t
with n - p degrees of freedom (exact for a model linear in its parameters with Gaussian
noise, first order otherwise).
"""

from dataclasses import dataclass, field
import csv
import math
import re

import numpy as np
from scipy import stats
from scipy.optimize import least_squares

from .. import _checks as ck
from ..errors import ParameterError
from . import friction as fr

CONFIDENCE = 0.95


# ---------------------------------------------------------------------------------------
# helpers


def _series(name, values, n=None, min_points=3):
    try:
        a = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(name, values, "must be a 1-D sequence of real numbers") from None
    if a.ndim != 1:
        raise ParameterError(name, values, f"must be 1-dimensional (shape {a.shape})")
    if not np.all(np.isfinite(a)):
        bad = int(np.flatnonzero(~np.isfinite(a))[0])
        raise ParameterError(name, a[bad], f"must be finite (entry {bad})")
    if n is not None and a.size != n:
        raise ParameterError(name, values, f"must have the same length as the first series ({n}), "
                                           f"has {a.size}")
    if a.size < min_points:
        raise ParameterError(name, values, f"must have at least {min_points} points")
    return a


def _efficiency(name, eta, n):
    eta = _series(name, eta, n)
    bad = np.flatnonzero((eta <= 0.0) | (eta > 1.0))
    if bad.size:
        raise ParameterError(name, float(eta[bad[0]]),
                             f"must lie in (0, 1] (entry {int(bad[0])}; "
                             "give efficiency as a fraction)")
    return eta


def _distinct(name, M, p=2):
    """Refuse torque data with fewer than p + 1 distinct values: with fewer than p the
    design [1, 1/M] of eq. 27/28 is singular; with p the curve passes through the points
    whatever the model and leaves no residual degree of freedom to judge the fit (the
    intervals came out as "+- 0")."""
    values = np.unique(M)
    if values.size < p + 1:
        raise ParameterError(name, f"{M.size} points, {values.size} distinct torque value(s) "
                                   f"({', '.join(f'{v:g}' for v in values[:3])})",
                             f"must hold at least {p + 1} distinct torque values: {p} to "
                             f"determine K_ML and Mc, one more for a residual degree of "
                             "freedom (the confidence intervals)")


def _confidence(res, n, names, data="data"):
    """Standard errors and intervals from a least_squares result; ParameterError naming
    ``data`` when the fit leaves no residual degree of freedom or its Jacobian is
    singular (the parameters are not determined by the data)."""
    p = len(names)
    dof = n - p
    if dof < 1:
        raise ParameterError(data, f"{n} points", f"must have more points than the {p} "
                             f"fitted parameters ({', '.join(names)}) to give intervals")
    J = np.asarray(res.jac, dtype=float)
    sv = np.linalg.svd(J, compute_uv=False)
    if not np.all(np.isfinite(sv)) or sv[-1] <= 1e-12 * max(sv[0], 1e-300) * max(J.shape):
        raise ParameterError(data, f"{n} points", f"do not determine {', '.join(names)}: the "
                             "fit's Jacobian is singular (too few distinct abscissae, or the "
                             "data do not constrain every parameter)")
    rss = float(np.sum(res.fun ** 2))
    s2 = rss / dof
    cov = s2 * np.linalg.pinv(J.T @ J)
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    tq = stats.t.ppf(0.5 + CONFIDENCE / 2.0, dof)
    ci = {k: (float(v - tq * e), float(v + tq * e)) for k, v, e in zip(names, res.x, se)}
    return ci, dict(zip(names, map(float, se))), math.sqrt(s2), cov


def _ci_text(name, value, ci, unit):
    lo, hi = ci[name]
    return (f"{name:6s} = {value:.6g} {unit}   95 % CI [{lo:.6g}, {hi:.6g}]  "
            f"(+- {0.5 * (hi - lo):.3g})")


# ---------------------------------------------------------------------------------------
# efficiency curves


def efficiency_input(M_in, K_ML, Mc):
    """[S] eq. 27: eta(M1') = (M1' (1 - K_ML Mc) - Mc) / M1' (M1' > 0: input torque referred
    to the output; steady state, one stage, speed far above dOmega2 and Omega2s)."""
    M_in = np.asarray(M_in, dtype=float)
    return (M_in * (1.0 - K_ML * Mc) - Mc) / M_in


def efficiency_output(M_out, K_ML, Mc):
    """[S] eq. 28: eta(M_out) = M_out (1 - K_ML Mc) / (M_out + Mc)."""
    M_out = np.asarray(M_out, dtype=float)
    return M_out * (1.0 - K_ML * Mc) / (M_out + Mc)


@dataclass(frozen=True)
class EfficiencyFit:
    """K_ML (1/(N m)) and Mc (N m) with 95 % intervals, from an efficiency curve.

    Attributes: K_ML, Mc, ci {"K_ML": (lo, hi), "Mc": (lo, hi)}, stderr, residual_std (of
    eta), n (points), model ("eq27" input torque, "eq28" output torque), cov (2x2).
    """

    K_ML: float
    Mc: float
    ci: dict
    stderr: dict
    residual_std: float
    n: int
    model: str
    cov: np.ndarray = field(repr=False, default=None)

    def efficiency(self, M):
        f = efficiency_input if self.model == "eq27" else efficiency_output
        return f(M, self.K_ML, self.Mc)

    def summary(self):
        torque = "M1' (input, referred to the output)" if self.model == "eq27" else "M_out"
        lines = [f"efficiency fit, [S] eq. {self.model[2:]} in {torque}: {self.n} points",
                 _ci_text("K_ML", self.K_ML, self.ci, "1/(N m)"),
                 _ci_text("Mc", self.Mc, self.ci, "N m"),
                 f"residual std of eta: {self.residual_std:.3g}"]
        if self.Mc <= 0.0 or self.K_ML < 0.0 or self.K_ML * self.Mc >= 1.0:
            lines.append("warning: the fit is not physical (needs Mc > 0, K_ML >= 0, "
                         "K_ML Mc < 1); check the data")
        return "\n".join(lines)


def _torque_efficiency_data(name, torques, eta):
    """(torques, eta) checked for an efficiency fit: equal lengths, finite, torques > 0
    with at least 3 distinct values, eta in (0, 1]; errors name ``name`` or eta."""
    M = _series(name, torques)
    eta = _efficiency("eta", eta, M.size)
    if np.any(M <= 0.0):
        raise ParameterError(name, float(M[M <= 0.0][0]), "must be > 0")
    _distinct(name, M)
    return M, eta


def identify_efficiency(M_in, eta):
    """Least squares of [S] eq. 27 on measured (M1', eta) pairs -> :class:`EfficiencyFit`.

    eta = 1 - K_ML Mc - Mc / M1' is linear in (K_ML Mc, Mc); that linear fit starts a
    Gauss-Newton refinement in (K_ML, Mc) whose Jacobian gives the intervals.
    Raises ParameterError for fewer than 3 points, fewer than 2 distinct torques (a
    singular fit), mismatched lengths, NaN, M1' <= 0 or eta outside (0, 1].
    """
    M, eta = _torque_efficiency_data("M_in", M_in, eta)
    A = np.column_stack([np.ones_like(M), 1.0 / M])
    (a, b), *_ = np.linalg.lstsq(A, 1.0 - eta, rcond=None)
    Mc0 = b if b > 0.0 else 1e-3 * float(np.median(M))
    x0 = np.array([a / Mc0 if b > 0.0 else 0.0, Mc0])
    res = least_squares(lambda q: efficiency_input(M, q[0], q[1]) - eta, x0, method="lm",
                        xtol=1e-15, ftol=1e-15, gtol=1e-15)
    ci, se, s, cov = _confidence(res, M.size, ("K_ML", "Mc"), "M_in")
    return EfficiencyFit(K_ML=float(res.x[0]), Mc=float(res.x[1]), ci=ci, stderr=se,
                         residual_std=s, n=int(M.size), model="eq27", cov=cov)


def identify_efficiency_output(M_out, eta):
    """Least squares of [S] eq. 28 on (M_out, eta) pairs -> :class:`EfficiencyFit`.

    Start: 1/eta = 1/(1 - K_ML Mc) + Mc / ((1 - K_ML Mc) M_out) is linear in 1/M_out.
    """
    M, eta = _torque_efficiency_data("M_out", M_out, eta)
    A = np.column_stack([np.ones_like(M), 1.0 / M])
    (p, q), *_ = np.linalg.lstsq(A, 1.0 / eta, rcond=None)
    Mc0 = q / p if p > 0.0 and q > 0.0 else 1e-3 * float(np.median(M))
    a0 = 1.0 - 1.0 / p if p > 0.0 else 0.0
    x0 = np.array([max(a0, 0.0) / Mc0, Mc0])
    res = least_squares(lambda x: efficiency_output(M, x[0], x[1]) - eta, x0, method="lm",
                        xtol=1e-15, ftol=1e-15, gtol=1e-15)
    ci, se, s, cov = _confidence(res, M.size, ("K_ML", "Mc"), "M_out")
    return EfficiencyFit(K_ML=float(res.x[0]), Mc=float(res.x[1]), ci=ci, stderr=se,
                         residual_std=s, n=int(M.size), model="eq28", cov=cov)


# ---------------------------------------------------------------------------------------
# breakaway and Stribeck curve


def breakaway_ms(torque, motion, threshold=None, kind="speed"):
    """Static friction Ms from a breakaway test: a slowly rising torque and the measured
    motion (speed, or displacement with kind="displacement").

    Breakaway is the first sample from which |motion - motion[0]| stays above
    ``threshold`` until the end; Ms is |torque| there (linear interpolation of the
    crossing between that sample and the one before). The default threshold is 10 times
    the noise of the first fifth of the record (1.4826 x median absolute deviation).
    A detection lag of a few samples biases Ms upwards by the torque ramp over that lag.
    """
    T = _series("torque", torque)
    m = _series("motion", motion, T.size)
    ck.choice("kind", kind, ("speed", "displacement"))
    dev = np.abs(m - m[0])
    if threshold is None:
        head = m[: max(3, m.size // 5)]
        noise = 1.4826 * float(np.median(np.abs(head - np.median(head))))
        threshold = 10.0 * noise
        if threshold <= 0.0:
            threshold = 1e-9 * max(float(np.max(dev)), 1e-300)
    else:
        threshold = ck.positive("threshold", threshold)
    below = np.flatnonzero(dev <= threshold)
    if below.size == dev.size:
        raise ParameterError("motion", f"max deviation {float(np.max(dev)):.3g}",
                             f"never exceeds the threshold {threshold:.3g}: no breakaway")
    k = 0 if below.size == 0 else int(below[-1]) + 1
    if k == dev.size:
        raise ParameterError("motion", f"last deviation {float(dev[-1]):.3g}",
                             f"is below the threshold {threshold:.3g}: no lasting breakaway")
    if k == 0:
        return float(abs(T[0]))
    w = (threshold - dev[k - 1]) / (dev[k] - dev[k - 1])
    return float(abs(T[k - 1] + w * (T[k] - T[k - 1])))


@dataclass(frozen=True)
class StribeckFit:
    """Mc, Ms (N m or N), Stribeck speed vs, exponent delta and viscous K_V fitted to a
    friction-speed curve F = (Mc + (Ms - Mc) exp(-(|v|/vs)^delta)) sign(v) + K_V v.

    Attributes: Mc, Ms, vs, delta, K_V, ci (name -> (lo, hi), fitted parameters only),
    stderr, residual_std, n, fitted (names of the fitted parameters).
    """

    Mc: float
    Ms: float
    vs: float
    delta: float
    K_V: float
    ci: dict
    stderr: dict
    residual_std: float
    n: int
    fitted: tuple

    def friction(self, v):
        v = np.asarray(v, dtype=float)
        return fr.stribeck(v, self.Mc, self.Ms, self.vs, "generalized", self.delta) + self.K_V * v

    def summary(self):
        lines = [f"Stribeck fit: {self.n} points, fitted {', '.join(self.fitted)}"]
        for k, unit in (("Mc", ""), ("Ms", ""), ("vs", "(speed)"), ("delta", ""), ("K_V", "")):
            if k in self.ci:
                lines.append(_ci_text(k, getattr(self, k), self.ci, unit))
        lines.append(f"residual std: {self.residual_std:.3g}")
        return "\n".join(lines)


def fit_stribeck(speed, friction, delta=2.0, fit_delta=False, viscous=False):
    """Least-squares fit of a measured steady friction-speed curve (signed speeds allowed;
    points at zero speed are ignored) -> :class:`StribeckFit`.

    Model: F = (Mc + (Ms - Mc) exp(-(|v|/vs)^delta)) sign(v) [+ K_V v with viscous=True],
    the generalized curve of [S] Table 1; delta fixed (default 2) unless fit_delta=True.
    """
    fit_delta = ck.boolean("fit_delta", fit_delta)
    viscous = ck.boolean("viscous", viscous)
    v = _series("speed", speed)
    F = _series("friction", friction, v.size)
    keep = v != 0.0
    v, F = v[keep], F[keep]
    names = ["Mc", "Ms", "vs"] + (["delta"] if fit_delta else []) + (["K_V"] if viscous else [])
    if v.size < len(names) + 1:
        raise ParameterError("speed", speed, f"must have at least {len(names) + 1} non-zero points")
    y = F * np.sign(v)          # magnitude side: g(|v|) + K_V |v|
    av = np.abs(v)
    order = np.argsort(av)
    # start: a line Mc + K_V |v| through the fastest third, Ms from the slowest fifth,
    # vs where the rest of the curve is half-way down
    fast = order[-max(2, av.size // 3):]
    if viscous:
        kv0, Mc0 = np.polyfit(av[fast], y[fast], 1)
    else:
        kv0, Mc0 = 0.0, float(np.median(y[fast]))
    rest = y - kv0 * av
    q = max(2, av.size // 5)
    Ms0 = max(float(np.median(rest[order[:q]])), Mc0 * (1 + 1e-3))
    cross = av[order][np.argmin(np.abs(rest[order] - 0.5 * (Mc0 + Ms0)))]
    vs0 = max(float(cross), float(av[order[0]]))
    x0 = [Mc0, Ms0, vs0] + ([delta] if fit_delta else []) + ([kv0] if viscous else [])

    def unpack(x):
        d = dict(zip(names, x))
        return d["Mc"], d["Ms"], d["vs"], d.get("delta", delta), d.get("K_V", 0.0)

    def resid(x):
        Mc, Ms, vs, dl, kv = unpack(x)
        return Mc + (Ms - Mc) * np.exp(-((av / abs(vs)) ** dl)) + kv * av - y

    res = least_squares(resid, np.array(x0), method="lm", xtol=1e-15, ftol=1e-15, gtol=1e-15,
                        x_scale="jac")
    ci, se, s, _ = _confidence(res, av.size, names, "speed")
    Mc, Ms, vs, dl, kv = unpack(res.x)
    return StribeckFit(Mc=float(Mc), Ms=float(Ms), vs=float(abs(vs)), delta=float(dl),
                       K_V=float(kv), ci=ci, stderr=se, residual_std=s, n=int(av.size),
                       fitted=tuple(names))


# ---------------------------------------------------------------------------------------
# presliding (bristle) stiffness


def presliding_curve(x, sigma0, Ms, sigma1=0.0, v=0.0):
    """Friction of LuGre during a monotone loading from rest (z(0) = 0, v >= 0 and
    |v| << vs, so g(v) = Ms):

        z(x) = (Ms / sigma0) (1 - exp(-sigma0 x / Ms)),   dz/dt = v exp(-sigma0 x / Ms)
        F(x, v) = Ms (1 - exp(-sigma0 x / Ms)) + sigma1 v exp(-sigma0 x / Ms)

    (dz/dx = 1 - sigma0 z / Ms integrated in x, [CW] eq. 2 with g = Fs; F = sigma0 z +
    sigma1 dz/dt). The initial slope dF/dx is sigma0, the asymptote Ms; x is the
    displacement since the start of the loading.
    """
    u = -sigma0 * np.asarray(x, dtype=float) / Ms
    return -Ms * np.expm1(u) + sigma1 * np.asarray(v, dtype=float) * np.exp(u)


@dataclass(frozen=True)
class PreslidingFit:
    """sigma0 (N m/rad or N/m), Ms and, with velocities, sigma1 fitted to a presliding
    test by :func:`identify_presliding`.

    Attributes: sigma0, Ms, sigma1 (None when not fitted), ci (name -> (lo, hi), 95 %),
    stderr, residual_std (of the friction), n (points used), fitted (names).
    """

    sigma0: float
    Ms: float
    sigma1: float
    ci: dict
    stderr: dict
    residual_std: float
    n: int
    fitted: tuple

    def friction(self, x, v=0.0):
        return presliding_curve(x, self.sigma0, self.Ms, self.sigma1 or 0.0, v)

    def summary(self):
        lines = [f"presliding fit: {self.n} points, fitted {', '.join(self.fitted)}",
                 _ci_text("sigma0", self.sigma0, self.ci, "(torque/angle)"),
                 _ci_text("Ms", self.Ms, self.ci, "(torque)") if "Ms" in self.ci
                 else f"Ms     = {self.Ms:.6g} (torque, given)"]
        if self.sigma1 is not None:
            lines.append(_ci_text("sigma1", self.sigma1, self.ci, "(torque s/angle)"))
        lines.append(f"residual std: {self.residual_std:.3g}")
        return "\n".join(lines)


def identify_presliding(displacement, friction, velocity=None, Ms=None):
    """sigma0, the presliding (bristle) stiffness, from a presliding test -> :class:`PreslidingFit`.

    The test ([S] section 3: "sigma0 follows from a measurement of the micro-displacements
    before sliding"): from rest, a slowly rising load below the breakaway torque, with the
    displacement and the friction torque recorded (the applied torque less the inertia
    torque J x''; for a slow load the inertia part is negligible). During such a monotone
    loading LuGre's friction is :func:`presliding_curve` exactly, whose initial slope is
    sigma0; least squares of it on the samples gives sigma0 and Ms (Ms fixed when given,
    e.g. from :func:`breakaway_ms`), and sigma1 too when the velocities are given (the
    term sigma1 v exp(-sigma0 x/Ms); it is determined only when the loading is fast
    enough for it to matter). 95 % intervals as for the other fits.

    Only the monotone part from the start is used: samples up to the first where the
    displacement decreases or the friction leaves (0, Ms). ParameterError for fewer than
    4 such samples, mismatched lengths, NaN, or a loading in the negative direction
    (mirror the data first).
    """
    x = _series("displacement", displacement, min_points=4)
    F = _series("friction", friction, x.size, min_points=4)
    v = None if velocity is None else _series("velocity", velocity, x.size, min_points=4)
    x = x - x[0]
    if x[-1] < 0.0:
        raise ParameterError("displacement", float(x[-1]), "must grow (a loading in the "
                             "positive direction; mirror a negative one)")
    Ms_fixed = None if Ms is None else ck.positive("Ms", Ms)
    back = np.flatnonzero(np.diff(x) < 0.0)
    n = x.size if back.size == 0 else int(back[0]) + 1
    if Ms_fixed is not None:
        out = np.flatnonzero(F >= Ms_fixed)
        n = min(n, x.size if out.size == 0 else int(out[0]))
    if n < 4:
        raise ParameterError("displacement", f"{n} monotone samples", "must give at least 4 "
                             "samples of a monotone loading from rest below breakaway")
    x, F = x[:n], F[:n]
    v = None if v is None else v[:n]
    # start: the slope of the first tenth, Ms from the largest friction (a lower bound)
    k = max(2, n // 10)
    s0 = float(np.polyfit(x[:k], F[:k], 1)[0]) if x[k - 1] > 0.0 else 1.0
    s0 = s0 if s0 > 0.0 else float(F[-1] / max(x[-1], 1e-300))
    names = ["sigma0"] + ([] if Ms_fixed is not None else ["Ms"]) + (["sigma1"] if v is not None
                                                                     else [])
    x0 = [s0] + ([] if Ms_fixed is not None else [1.2 * float(np.max(F))]) + \
         ([0.0] if v is not None else [])

    def unpack(p):
        d = dict(zip(names, p))
        return d["sigma0"], d.get("Ms", Ms_fixed), d.get("sigma1", 0.0)

    def resid(p):
        s, m, d = unpack(p)
        return presliding_curve(x, s, m, d, 0.0 if v is None else v) - F

    res = least_squares(resid, np.array(x0, dtype=float), method="lm", xtol=1e-15,
                        ftol=1e-15, gtol=1e-15, x_scale="jac")
    ci, se, s, _ = _confidence(res, n, names, "displacement")
    s0, m, d = unpack(res.x)
    return PreslidingFit(sigma0=float(s0), Ms=float(m), sigma1=float(d) if v is not None
                         else None, ci=ci, stderr=se, residual_std=s, n=int(n),
                         fitted=tuple(names))


# ---------------------------------------------------------------------------------------
# files and the CLI report


#: Header names of an efficiency column and of a torque column (lower case).
_EFFICIENCY_NAME = re.compile(r"(^|[^a-z])(eta|eff|efficiency|wirkungsgrad)|\u03b7")
_TORQUE_NAME = re.compile(r"(^|[^a-z])(torque|tau|moment|load)|^m(in|out)?($|[^a-z])"
                          r"|(^|[^a-z])n ?m($|[^a-z])")


def _column_kind(name):
    """"efficiency", "torque" or None from a header field."""
    n = name.strip().strip('"').lower()
    if _EFFICIENCY_NAME.search(n):
        return "efficiency"
    if _TORQUE_NAME.search(n):
        return "torque"
    return None


def _swapped(path, column, value, why):
    what = "the torque (N m)" if column == 1 else "the efficiency (a fraction in (0, 1])"
    return ParameterError(f"{path}, column {column}", value,
                          f"must be {what}, but {why}: the columns look swapped (torque "
                          "first, efficiency second)")


def read_efficiency_csv(path):
    """Read (M1', eta) pairs: two columns, input torque referred to the output (N m) and
    efficiency (fraction in (0, 1]). Comma, semicolon, tab or space separated; an optional
    header line (non-numeric first line); blank lines and lines starting with # are skipped.
    Returns two float arrays. Malformed rows raise ParameterError naming file, line and value;
    a binary or undecodable file names the file; swapped columns (a header naming the
    efficiency first or the torque second, or a first column in (0, 1] beside a second one
    above 1) name the column.
    """
    path = str(path)
    try:
        with open(path, "rb") as f:
            raw_bytes = f.read()
    except OSError as e:
        raise ParameterError("path", path, f"must be a readable file ({e.strerror})") from None
    if b"\x00" in raw_bytes:
        raise ParameterError("path", path, "must be a text file (it holds NUL bytes: binary "
                                           "data, not a CSV)")
    try:
        text = raw_bytes.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ParameterError("path", path, f"must be a UTF-8 text file (byte "
                                           f"{e.object[e.start]:#04x} at offset {e.start} "
                                           "cannot be decoded)") from None
    rows = []               # (line number, torque text, efficiency text)
    first = True
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = _split_row(line)
        if first and not any(_is_number(x) for x in fields):
            first = False               # a header: no field is a number
            kinds = [_column_kind(x) for x in fields]
            if len(fields) == 2 and (kinds[0] == "efficiency" or kinds[1] == "torque"):
                col = 1 if kinds[0] == "efficiency" else 2
                raise _swapped(path, col, fields[col - 1], "its header names "
                               + ("an efficiency" if col == 1 else "a torque"))
            continue
        first = False
        if len(fields) != 2:
            raise ParameterError(f"{path}, line {lineno}", raw,
                                 "must hold two columns: torque (N m), efficiency")
        bad = [x for x in fields if not _is_number(x)]
        if bad:
            raise ParameterError(f"{path}, line {lineno}", bad[0], "must be a number")
        rows.append((lineno, fields[0], fields[1]))
    M = np.array([float(r[1]) for r in rows])
    eta = np.array([float(r[2]) for r in rows])
    good_m = np.isfinite(M) & (M > 0.0)
    good_e = np.isfinite(eta) & (eta > 0.0) & (eta <= 1.0)
    if M.size and np.all(good_m) and not np.all(good_e) and np.all(M <= 1.0) \
            and np.all(np.isfinite(eta)) and np.any(eta > 1.0):
        k = int(np.flatnonzero(eta > 1.0)[0])
        raise _swapped(path, 2, rows[k][2], f"line {rows[k][0]} holds {rows[k][2]} > 1 while "
                       "every value of column 1 lies in (0, 1]")
    for (lineno, m_text, e_text), gm, ge in zip(rows, good_m, good_e):
        if not gm:
            raise ParameterError(f"{path}, line {lineno}", m_text,
                                 "torque must be finite and > 0")
        if not ge:
            raise ParameterError(f"{path}, line {lineno}", e_text,
                                 "efficiency must lie in (0, 1] (a fraction, not per cent)")
    if len(M) < 3:
        raise ParameterError(path, f"{len(M)} data rows", "must hold at least 3 data rows")
    return M, eta


def _split_row(line):
    for delim in (",", ";", "\t"):
        if delim in line:
            return [x.strip() for x in next(csv.reader([line], delimiter=delim))]
    return line.split()


def _is_number(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


def identify_command(path):
    """Human-readable report of :func:`identify_efficiency` on a CSV file (the CLI's
    ``chrono-flex identify efficiency FILE.csv``)."""
    M, eta = read_efficiency_csv(path)
    try:
        fit = identify_efficiency(M, eta)
    except ParameterError as e:             # name the file's column, not the argument
        name = f"{path}, column {1 if e.parameter == 'M_in' else 2}"
        raise ParameterError(name, e.value, e.requirement) from None
    lines = [f"file: {path}", fit.summary(), "",
             f"{'M1_in [N m]':>12s} {'eta meas':>10s} {'eta fit':>10s} {'resid':>10s}"]
    model = fit.efficiency(M)
    for m, e, f in zip(M, eta, model):
        lines.append(f"{m:12.5g} {e:10.4f} {f:10.4f} {e - f:+10.4f}")
    lines.append("")
    lines.append("use: DriveParams(..., K_ML=%.6g, Mc=%.6g) (Ms and Omega2s need a breakaway "
                 "test or a Stribeck curve, docs/drive.md section 5)" % (fit.K_ML, fit.Mc))
    return "\n".join(lines)
