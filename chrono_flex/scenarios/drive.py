"""Named drive and friction scenarios (docs/drive.md §7), each returning a
:class:`ScenarioResult` with ``.plot(path)`` and ``.summary()``.

    drive-presliding   [S] Fig. 7: sub-breakaway torque a(t) sin(w t) on the output
    drive-stribeck     [S] Fig. 8: output speed a sin(w t) + b, b > a
    lugre-stick-slip   [CW] 1995: mass pulled through a spring, stick-slip
    drive-step         voltage step of the [S] drive, static and dynamic friction
"""

from dataclasses import dataclass, field
import math

import numpy as np
from scipy.integrate import solve_ivp

from .. import _checks as ck
from ..errors import ParameterError, SimulationError
from ..drive.friction import LuGre
from ..drive.simulate import simulate_drive
from ..drive.gear_drive import DriveParams, GearDrive
from ..result import SeriesFiles


@dataclass
class ScenarioResult(SeriesFiles):
    """Series of a scenario and how to draw them (``to_csv``, ``to_npz``, ``from_npz``:
    :class:`chrono_flex.result.SeriesFiles`).

    Attributes:
        name, description: the registry entry.
        data: name -> array (everything the figure and summary use).
        panels: list of dicts (title, xlabel, ylabel, lines=[(x_key, y_key, label, style)]).
        lines: summary lines.
        metrics: name -> number, the figures the summary reports.
    """

    name: str
    description: str
    data: dict
    panels: list
    lines: list = field(default_factory=list)
    metrics: dict = field(default_factory=dict)

    def __repr__(self):
        return (f"<ScenarioResult {self.name!r}: {len(self.data)} series of "
                f"{len(next(iter(self.data.values()), ()))} samples, "
                f"{len(self.metrics)} metrics>")

    def columns(self):
        return self.data

    def units(self):
        """Each drawn series' unit: the last parenthesis of its axis label."""
        out = {}
        for panel in self.panels:
            for x, y, *_ in panel["lines"]:
                for key, label in ((x, panel.get("xlabel", "")), (y, panel.get("ylabel", ""))):
                    if label.endswith(")") and "(" in label:
                        out.setdefault(key, label[label.rindex("(") + 1:-1])
        return out

    def meta(self):
        return dict(name=self.name, description=self.description, panels=self.panels,
                    lines=self.lines, metrics=self.metrics)

    @classmethod
    def from_parts(cls, columns, meta):
        return cls(data=columns, **meta)

    def summary(self):
        return "\n".join([f"{self.name}: {self.description}"] + list(self.lines))

    def plot(self, path=None):
        """Draw the panels (:func:`chrono_flex.viz.plotting.plot_panels`); save to
        ``path`` when given; return the figure."""
        from ..viz.plotting import plot_panels

        return plot_panels(self, path)


def _t_end(t_end, default):
    return default if t_end is None else ck.positive("t_end", t_end)


# ---------------------------------------------------------------------------------------


def drive_presliding(t_end=None, frequency=2.0, amplitude=0.9):
    """[S] Fig. 7. Torque M_out = a(t) sin(2 pi f t) on the output of the [S] drive, with
    a(t) rising linearly to ``amplitude`` x Ms at t_end (below breakaway); the motor is
    current-controlled at zero current, so only the output friction holds the load. The
    dynamic model draws a friction-torque vs displacement hysteresis loop (presliding,
    displacements ~ Ms/sigma0 ~ 5e-4 rad); the static model creeps in its linear zone with
    displacements ~ dOmega2/(2 pi f), a nearly vertical line on the same axes.
    """
    t_end = _t_end(t_end, 5.0)
    base = DriveParams.serebrenny2019(motor="current")
    w = 2.0 * math.pi * ck.positive("frequency", frequency)
    a_max = ck.positive("amplitude", amplitude) * base.Ms
    m_out = lambda t: a_max * (t / t_end) * math.sin(w * t)  # noqa: E731
    data, lines, metrics = {}, [], {}
    for kind in ("dynamic", "static"):
        drive = GearDrive(DriveParams.serebrenny2019(motor="current", friction=kind))
        r = simulate_drive(drive, t_end, drive_input=0.0, m_out=m_out, rtol=1e-7, atol=1e-12,
                           dt_out=t_end / 4000)
        x = r.state("output_angle")
        F = r.outputs["friction_torque"]
        data["t"] = r.t
        data[f"x_{kind}"] = x
        data[f"F_{kind}"] = F
        data[f"M_{kind}"] = r.outputs["m_out"]
        last = r.t >= t_end - 1.0 / frequency * (1.0 + 1e-9)
        Fl, xl = F[last], x[last]
        loop = abs(float(np.sum(0.5 * (Fl[1:] + Fl[:-1]) * np.diff(xl))))
        metrics[f"loop_area_{kind}"] = loop
        metrics[f"max_displacement_{kind}"] = float(np.max(np.abs(x)))
        lines.append(f"{kind:7s}: displacement max |alpha2| = {np.max(np.abs(x)):.3e} rad, "
                     f"friction max |M_F'| = {np.max(np.abs(F)):.4g} N m (Ms = {base.Ms} N m), "
                     f"loop area over the last period {loop:.3e} J")
    panels = [
        dict(title="friction torque vs output displacement",
             xlabel=r"output displacement $\alpha_2$ (rad)",
             ylabel="friction torque $M_F'$ (N m)",
             lines=[("x_dynamic", "F_dynamic", "dynamic (modified LuGre)", "-"),
                    ("x_static", "F_static", "static (modified Stribeck)", "-")]),
        dict(title="applied torque and friction", xlabel="time $t$ (s)", ylabel="torque (N m)",
             lines=[("t", "M_dynamic", r"$M_\mathrm{out}$", ":"),
                    ("t", "F_dynamic", "$M_F'$ dynamic", "-"),
                    ("t", "F_static", "$M_F'$ static", "--")]),
    ]
    return ScenarioResult("drive-presliding", SCENARIOS["drive-presliding"][0], data, panels, lines,
                          metrics)


def drive_stribeck(t_end=None, a=20.0, b=21.0, frequency=20.0, sigma1_damping="cap"):
    """[S] Fig. 8. Prescribed output speed Omega2 = a sin(2 pi f t) + b (b > a, no sign
    change) through the friction of the [S] drive (load factor 1). Both models follow the
    Stribeck drop from Ms to Mc; the dynamic (modified LuGre) friction is not a function
    of the speed alone, so accelerating and decelerating branches differ (a hysteresis
    loop). Its sense depends on the damping: with sigma1 capped at 4 g(v)/|v| ([S] eqs. 6,
    12) sigma1/sigma0 = 4 T_v where the cap is active and F ~ g(v) + 3 T_v dg/dt, so the
    decelerating branch lies above the accelerating one, the reverse of the classic
    frictional lag of constant-sigma1 LuGre (Canudas de Wit et al. 1995); see the
    validation case drive.frictional-lag. ``sigma1_damping="printed"`` runs [S] eq. 12 as
    printed (sigma1 <= 4 sigma0 g/|v|) instead of the cap (validation case
    drive.fig8-printed-law); "constant" keeps sigma1 fixed.
    """
    a = ck.positive("a", a)
    b = ck.positive("b", b)
    if b <= a:
        raise ParameterError("b", b, f"must be > a = {a!r} (the speed must not change sign)")
    w = 2.0 * math.pi * ck.positive("frequency", frequency)
    t_end = _t_end(t_end, 3.0 / frequency)
    p_dyn = DriveParams.serebrenny2019(friction="dynamic", sigma1_damping=sigma1_damping)
    p_sta = DriveParams.serebrenny2019(friction="static")
    lugre = p_dyn.friction_model
    static = p_sta.friction_model
    speed = lambda t: a * np.sin(w * t) + b  # noqa: E731
    z0 = float(lugre.steady_state_z(speed(0.0)))
    t_eval = np.linspace(0.0, t_end, 6001)
    sol = solve_ivp(lambda t, z: [lugre.dzdt(float(speed(t)), float(z[0]))], (0.0, t_end), [z0],
                    method="Radau", t_eval=t_eval, rtol=1e-8, atol=1e-13)
    if not sol.success:
        raise SimulationError(sol.message, float(sol.t[-1]))
    v = speed(sol.t)
    F_dyn = lugre.force(v, sol.y[0])
    F_sta = static.force(v)
    acc = np.cos(w * sol.t) > 0.0
    data = dict(t=sol.t, v=v, F_dyn=F_dyn, F_sta=F_sta, z=sol.y[0],
                v_acc=np.where(acc, v, np.nan), F_acc=np.where(acc, F_dyn, np.nan),
                v_dec=np.where(~acc, v, np.nan), F_dec=np.where(~acc, F_dyn, np.nan))
    last = sol.t >= t_end - 1.0 / frequency
    grid = np.linspace(b - a * 0.95, b + a * 0.95, 200)
    up = _branch(v[last & acc], F_dyn[last & acc], grid)
    down = _branch(v[last & ~acc], F_dyn[last & ~acc], grid)
    width = float(np.nanmax(np.abs(up - down)))
    higher = "decelerating" if np.nanmean(up - down) < 0.0 else "accelerating"
    lines = [f"speed {b - a:.3g} .. {a + b:.3g} rad/s at {frequency:g} Hz; Stribeck speed "
             f"{p_dyn.Omega2s} rad/s",
             f"static:  M_F from {F_sta.max():.5g} to {F_sta.min():.5g} N m (drop "
             f"{F_sta.max() - F_sta.min():.3g} N m)",
             f"dynamic: M_F from {F_dyn.max():.5g} to {F_dyn.min():.5g} N m; hysteresis width "
             f"(accelerating - decelerating, last period) up to {width:.3e} N m; sigma1 law "
             f"{sigma1_damping!r}: the {higher} branch is higher"]
    panels = [
        dict(title="friction torque vs speed", xlabel=r"output speed $\Omega_2$ (rad/s)",
             ylabel="friction torque $M_F$ (N m)",
             lines=[("v", "F_sta", "static (modified Stribeck)", "k--"),
                    ("v_acc", "F_acc", "dynamic, accelerating", "-"),
                    ("v_dec", "F_dec", "dynamic, decelerating", "-")]),
        dict(title="time series", xlabel="time $t$ (s)", ylabel="torque (N m)",
             lines=[("t", "F_dyn", "dynamic", "-"), ("t", "F_sta", "static", "--")]),
    ]
    metrics = dict(hysteresis_width=width, static_drop=float(F_sta.max() - F_sta.min()),
                   dynamic_drop=float(F_dyn.max() - F_dyn.min()),
                   mean_branch_gap=float(np.nanmean(up - down)))
    return ScenarioResult("drive-stribeck", SCENARIOS["drive-stribeck"][0], data, panels, lines,
                          metrics)


def _branch(v, F, grid):
    """F(v) of one monotone branch sampled on grid (NaN outside its range)."""
    if v.size < 2:
        return np.full_like(grid, np.nan)
    order = np.argsort(v)
    return np.interp(grid, v[order], F[order], left=np.nan, right=np.nan)


#: Parameters of the stick-slip example of Canudas de Wit et al. 1995 (N, m, s).
CW1995 = dict(sigma0=1e5, sigma1=math.sqrt(1e5), sigma2=0.4, Fc=1.0, Fs=1.5, vs=1e-3)


def lugre_stick_slip(t_end=None, mass=1.0, k=2.0, pull_speed=0.1):
    """[CW] 1995 stick-slip: a mass (1 kg) on a LuGre contact (sigma0 = 1e5 N/m,
    sigma1 = sqrt(1e5) N s/m, sigma2 = 0.4 N s/m, Fc = 1 N, Fs = 1.5 N, vs = 1e-3 m/s,
    Gaussian curve) pulled through a spring k = 2 N/m whose end moves at 0.1 m/s:

        m x'' = k (pull_speed t - x) - F(x', z),   z' = dz/dt(x', z)

    The mass sticks until the spring force reaches about Fs, slips, and sticks again.
    """
    t_end = _t_end(t_end, 25.0)
    m = ck.positive("mass", mass)
    k = ck.positive("k", k)
    vp = ck.positive("pull_speed", pull_speed)
    model = LuGre(**CW1995)

    def rhs(t, y):
        x, v, z = y
        dz, F = model.rates(float(v), float(z))
        return [v, (k * (vp * t - x) - F) / m, dz]

    t_eval = np.linspace(0.0, t_end, 5001)
    sol = solve_ivp(rhs, (0.0, t_end), [0.0, 0.0, 0.0], method="Radau", t_eval=t_eval,
                    rtol=1e-8, atol=1e-10)
    if not sol.success:
        raise SimulationError(sol.message, float(sol.t[-1]))
    x, v, z = sol.y
    F = model.force(v, z)
    spring = k * (vp * sol.t - x)
    sliding = v > 0.5 * vp
    starts = np.flatnonzero(sliding[1:] & ~sliding[:-1]) + 1
    data = dict(t=sol.t, x=x, v=v, z=z, F=F, spring=spring, pull=vp * sol.t)
    lines = [f"{starts.size} slip phases in {t_end:g} s",
             "spring force at the start of each slip: "
             + ", ".join(f"{spring[i]:.3f}" for i in starts[:6]) + f" N (Fs = {model.Fs} N)",
             f"peak speed {np.max(v):.4g} m/s (pull speed {vp} m/s)"]
    panels = [
        dict(title="position", xlabel="time $t$ (s)", ylabel="position (m)",
             lines=[("t", "x", "mass x", "-"), ("t", "pull", "spring end", ":")]),
        dict(title="velocity", xlabel="time $t$ (s)", ylabel="velocity (m/s)",
             lines=[("t", "v", r"$\dot x$", "-")]),
        dict(title="forces", xlabel="time $t$ (s)", ylabel="force (N)",
             lines=[("t", "F", "friction F", "-"), ("t", "spring", "spring force", "--")]),
    ]
    metrics = dict(n_slips=int(starts.size), slip_spring_force=spring[starts].tolist(),
                   peak_speed=float(np.max(v)))
    return ScenarioResult("lugre-stick-slip", SCENARIOS["lugre-stick-slip"][0], data, panels,
                          lines, metrics)


def drive_step(t_end=None, voltage=12.0):
    """A 12 V step on the [S] drive at rest (no load), with dynamic and static friction:
    current peak, speed rise to the no-load speed, gear twist and friction torque."""
    t_end = _t_end(t_end, 0.1)
    u = ck.real("voltage", voltage)
    data, lines, metrics = {}, [], {}
    for kind in ("dynamic", "static"):
        drive = GearDrive(DriveParams.serebrenny2019(friction=kind))
        r = simulate_drive(drive, t_end, drive_input=u, rtol=1e-7, atol=1e-10, dt_out=t_end / 2000)
        o = r.outputs
        data["t"] = r.t
        for key in ("current", "output_speed", "transmitted_torque", "friction_torque", "twist"):
            data[f"{key}_{kind}"] = o[key]
        w = o["output_speed"]
        k63 = int(np.argmax(w >= 0.632 * w[-1])) if w[-1] > 0 else 0
        metrics[f"end_speed_{kind}"] = float(w[-1])
        metrics[f"peak_current_{kind}"] = float(np.max(o["current"]))
        metrics[f"rise_time_63_{kind}"] = float(r.t[k63])
        lines.append(f"{kind:7s}: end speed {w[-1]:.5g} rad/s, peak current "
                     f"{np.max(o['current']):.4g} A, 63 % rise at {r.t[k63] * 1e3:.3g} ms, "
                     f"end friction {o['friction_torque'][-1]:.4g} N m, "
                     f"Radau {r.info['nfev']} evaluations")
    panels = [
        dict(title="current", xlabel="time $t$ (s)", ylabel="motor current $i_a$ (A)",
             lines=[("t", "current_dynamic", "dynamic", "-"),
                    ("t", "current_static", "static", "--")]),
        dict(title="output speed", xlabel="time $t$ (s)",
             ylabel=r"output speed $\Omega_2$ (rad/s)",
             lines=[("t", "output_speed_dynamic", "dynamic", "-"),
                    ("t", "output_speed_static", "static", "--")]),
        dict(title="torques", xlabel="time $t$ (s)", ylabel="torque (N m)",
             lines=[("t", "transmitted_torque_dynamic", "$M_1'$ dynamic", "-"),
                    ("t", "friction_torque_dynamic", "$M_F'$ dynamic", "-"),
                    ("t", "friction_torque_static", "$M_F'$ static", "--")]),
    ]
    return ScenarioResult("drive-step", SCENARIOS["drive-step"][0], data, panels, lines, metrics)


SCENARIOS = {
    "drive-presliding": ("[S] Fig. 7: presliding hysteresis under a growing sub-breakaway "
                         "torque", drive_presliding),
    "drive-stribeck": ("[S] Fig. 8: friction vs speed for Omega = a sin(w t) + b, Stribeck drop "
                       "and frictional lag", drive_stribeck),
    "lugre-stick-slip": ("Canudas de Wit 1995: 1 kg pulled through a 2 N/m spring at 0.1 m/s, "
                         "stick-slip", lugre_stick_slip),
    "drive-step": ("12 V step of the [S] drive, dynamic vs static friction", drive_step),
}


def run_scenario(name, t_end=None):
    """Run the registered scenario ``name``."""
    ck.choice("scenario", name, SCENARIOS)
    return SCENARIOS[name][1](t_end=t_end)
