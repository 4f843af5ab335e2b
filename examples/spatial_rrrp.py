"""A slew of the spatial RRRP arm with a telescopic extension, under gravity (docs/rrrp-arm.md).

Problem: the arm of :mod:`chrono_flex.formulations.rrrp` (default aluminium tubes, l1 = l2 = 5 m,
l3 = 4 m, m_A = 5 kg, m_B = 2 kg, g along -Z) starts at rest in its static equilibrium
under its own weight at theta2 = 0.2 rad, theta3 = -0.2 rad (arm 2's elevation, from
the horizontal as in [W]), a = 2.3 m (the modal
coordinates from :meth:`RRRPArm.static_deflection`; the tip B hangs 0.176 m below the
rigid pose). In T_SLEW = 4 s the base joint slews theta1 from 0 to 30 degrees and the
prismatic joint extends arm 3 from 2.3 to 2.9 m, both along a smooth (7th-order, rest to
rest) profile, while theta2 and theta3 are held. Every actuated joint is driven by a
PD law about the profile plus computed gravity compensation ``dV/deta`` at the current
state (collocated, so the flexible modes stay stable); the run goes on to T_END = 5 s.

Expected (measured with the defaults, rtol = 1e-7): theta1 follows the profile to within
~8 mrad and a to ~1 mm; arm 2+3 lags the slew in the horizontal plane (B's offset from
the rigid pose points against the motion while the slew accelerates, down to -0.23 m,
and ahead of it, up to +0.23 m, while it brakes and rings) and keeps its gravity sag,
which grows as arm 3 extends (0.176 m at a = 2.3 m, ~0.28 m at the end); the largest
elastic offset of B is 0.36 m (3 % of the 12.3 m reach; the modal coordinates stay
below 0.17 m). After the slew the arm rings at its lowest modes (~0.7 and ~1.4 Hz: no
damping in the model). The energy balance (kinetic + elastic + gravity - work of the
inputs) holds to round-off relative to the energy exchanged. About 35 s of CPU.

Run as a script (``python examples/spatial_rrrp.py [DIR]``) to write
``spatial_rrrp.png`` (the frame of largest deflection) and ``spatial_rrrp.gif`` into DIR
(default: the current directory); their paths are printed.
"""

import math
import os
import sys
import time

import numpy as np

from chrono_flex.formulations.rrrp import ACTUATED, ELASTIC, RRRPArm

ETA_START = (0.0, 0.2, -0.2, 0.0, 0.0, 0.0, 0.0, 2.3)
SLEW = math.radians(30.0)       # theta1 stroke, rad
EXTENSION = 0.6                 # a stroke, m
T_SLEW = 4.0                    # s
T_END = 5.0                     # s
#: PD gains per actuated joint (theta1, theta2, theta3, a): critically damped for the
#: rigid arm's inertia at the start pose, about 1 Hz for the revolute joints and 5 Hz
#: for a (the slew's centrifugal pull on arm 3 would otherwise run a off its stroke).
KP = np.array([1.6e5, 1.6e5, 3.4e4, 2.0e4])
KD = np.array([5.1e4, 5.1e4, 1.1e4, 1.2e3])


def output_path(name):
    """Where the script writes ``name``: the directory given as its first argument, else
    the current directory (made if missing), as an absolute path to print."""
    folder = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.getcwd())
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, name)


def _profile(t):
    """Rest-to-rest 7th-order polynomial s(t) in [0, 1] and its rate (1/s)."""
    x = min(max(t / T_SLEW, 0.0), 1.0)
    s = x**4 * (35 - 84 * x + 70 * x**2 - 20 * x**3)
    ds = 140 * x**3 * (1 - x) ** 3 / T_SLEW
    return s, ds


def desired(t):
    """Desired actuated coordinates and rates (theta1, theta2, theta3, a)."""
    s, ds = _profile(t)
    q0 = np.array(ETA_START)[list(ACTUATED)]
    stroke = np.array([SLEW, 0.0, 0.0, EXTENSION])
    return q0 + s * stroke, ds * stroke


def make_controller(arm):
    """inputs(t, eta, eta_d): PD about :func:`desired` plus gravity compensation."""
    act = list(ACTUATED)

    def inputs(t, eta, eta_d):
        qd_, vd_ = desired(t)
        grav = arm.potential_gradient(eta)[act]
        return arm.joint_inputs(KP * (qd_ - eta[act]) + KD * (vd_ - eta_d[act]) + grav)

    return inputs


def simulate(t_end=T_END, n_out=None, rtol=1e-7):
    """(arm, result) of the manoeuvre up to ``t_end``."""
    arm = RRRPArm()
    eta0 = arm.static_deflection(ETA_START)
    n_out = n_out or int(round(t_end * 50)) + 1
    result = arm.simulate(t_end, eta0, torque=make_controller(arm), method="Radau", rtol=rtol, atol=1e-9,
                          n_out=n_out)
    return arm, result


def summarize(arm, result):
    """Numbers of a run (see :func:`run`)."""
    c = arm.centerlines(result.q, n_samples=2)
    offset = c["tip"] - c["rigid"]["tip"]                   # true elastic offset of B, m
    th1 = result.q[:, 0]
    tangent = np.stack([-np.sin(th1), np.cos(th1), np.zeros_like(th1)], -1)
    lag = np.einsum("ti,ti->t", offset, tangent)            # + ahead of the slew, m
    E = result.energy
    track = np.array([desired(t)[0] for t in result.t])
    return dict(
        tip_deflection_peak=float(np.max(np.linalg.norm(offset, axis=-1))),
        initial_sag=float(-offset[0, 2]),
        sag_end=float(-offset[-1, 2]),
        lag_min=float(np.min(lag)),
        lag_max=float(np.max(lag)),
        theta1_error_peak=float(np.max(np.abs(th1 - track[:, 0]))),
        a_error_peak=float(np.max(np.abs(result.q[:, 7] - track[:, 3]))),
        modal_peak=float(np.max(np.abs(result.q[:, list(ELASTIC)]))),
        energy_balance_error=float(np.max(np.abs(E.balance_error))
                                   / max(np.max(np.abs(E.mechanical - E.mechanical[0])),
                                         np.max(np.abs(E.input_work)), 1e-300)),
        t_end=float(result.t[-1]),
    )


#: Units of the numbers :func:`summarize` returns.
UNITS = dict(tip_deflection_peak="m", initial_sag="m", sag_end="m", lag_min="m", lag_max="m",
             theta1_error_peak="rad", a_error_peak="m", modal_peak="m",
             energy_balance_error="(relative)", t_end="s", wall_time="s")


def run(t_end=T_END):
    """Simulate the manoeuvre up to ``t_end`` and return its numbers (dict of floats):

    tip_deflection_peak (m, max |B - B_rigid|), initial_sag and sag_end (m, B below the
    rigid pose), lag_min and lag_max (m, B's offset along the slew direction), the
    tracking errors theta1_error_peak (rad) and a_error_peak (m), modal_peak (m), the
    relative energy_balance_error, t_end and wall_time (s).
    """
    t0 = time.perf_counter()
    arm, result = simulate(t_end)
    out = summarize(arm, result)
    out["wall_time"] = time.perf_counter() - t0
    return out


if __name__ == "__main__":
    from chrono_flex.viz.rrrp import render_spatial_animation, render_spatial_frame

    arm, result = simulate()
    for k, v in summarize(arm, result).items():
        print(f"{k:22s} {v: .6g} {UNITS[k]}")
    frame, gif = output_path("spatial_rrrp.png"), output_path("spatial_rrrp.gif")
    render_spatial_frame(arm, result, None, path=frame)
    print(f"wrote {frame}")
    render_spatial_animation(arm, result, gif, frames=60)
    print(f"wrote {gif}")
