"""Tip-position feedback of a flexible link goes unstable (Cannon & Schmitz 1984;
docs/linear-models.md §5).

The link of examples/linear_pd_and_shaper.py (hub 0.1 kg m^2, payload 0.1 kg), its
torque fed back from the tip's position, tau = -k y_tip - k_d theta_dot (k_d = 0.5 N m s/rad
damps the hub). Torque to tip position is non-minimum phase: its zeros come in real
pairs +-sigma, the lowest at +-25.8 1/s. So the loop is unstable above a gain k*:
3.29 N m/m from the eigenvalues of the closed loop against k, where the first mode
crosses the imaginary axis at the clamped link's first frequency (4.62 rad/s; the hub
stands still there, so k* = -1 / G_tip(j omega_c) whatever k_d is). The nonlinear runs
at 0.9 k* and 1.1 k* decay and grow at the linear model's rates (-0.3215 and +0.2533 1/s).

Run as a script (``python examples/linear_tip_feedback.py [DIR]``) for the two runs and
``linear_tip_feedback.png`` in DIR (default: the current directory).
"""

import math
import os
import sys

import numpy as np
from scipy.optimize import brentq

import chrono_flex as cf
from chrono_flex.planar.equations import tip_state

KD = 0.5
link = cf.Link.from_material(1.0, 4, E=2e10, I=2.5e-5 ** 2 / 12, rho=7850.0, A=2.5e-5)
arm = cf.PlanarArm([link], hub_inertia=0.1, payload=cf.Payload(0.1))

lin = arm.linearize(inputs="torque1", outputs=["tip_lateral", "theta1_dot"])
zeros = lin.select(outputs="tip_lateral").zeros()
real_pairs = np.sort(zeros.real[(zeros.real > 0) & (np.abs(zeros.imag) < 1e-9 * np.abs(zeros))])


def first_mode(k):
    """The lowest oscillating closed-loop pole at tip gain k (N m/m)."""
    p = lin.feedback([[k, KD]]).poles()
    p = p[p.imag > 1e-9 * np.abs(p)]
    return p[np.argmin(np.abs(p))]


gains = np.linspace(0.05, 8.0, 160)
growth = np.array([first_mode(k).real for k in gains])
i = int(np.argmax(growth > 0))
k_star = brentq(lambda k: first_mode(k).real, gains[i - 1], gains[i], xtol=1e-12)
omega_c = 2 * math.pi * arm.natural_frequencies(1, joints="locked")[0]
G = arm.linearize(inputs="torque1", outputs="tip_lateral").frequency_response([omega_c])[0, 0, 0]


def run(k, t_end=5.0, theta0=2e-3):
    """The nonlinear arm under the tip loop, from a small joint angle."""
    return arm.simulate(t_end, joint_angles0=[theta0],
                        torque=lambda t, q, qd: [-k * tip_state(arm.model, q)[0][1] - KD * qd[0]],
                        method="Radau", rtol=1e-9, dt_out=0.01)


if __name__ == "__main__":
    print("real zero pairs of torque -> tip position: +-", np.round(real_pairs[:3], 3), "1/s")
    print(f"unstable above k* = {k_star:.5f} N m/m; -1/G_tip(j omega_c) = {-1 / G.real:.5f}")
    runs = {f: run(f * k_star) for f in (0.9, 1.1)}
    from matplotlib import pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.plot(gains, growth, label="linear model")
    ax1.axvline(k_star, color="k", ls=":", lw=0.8, label=f"k* = {k_star:.3f} N m/m")
    ax1.axhline(0.0, color="k", lw=0.5)
    ax1.set(xlabel="tip gain k, N m/m", ylabel="real part of the first mode, 1/s",
            title="eigenvalues against the gain")
    for f, r in runs.items():
        lam = first_mode(f * k_star)
        color = "C1" if f < 1 else "C3"
        ax1.plot([f * k_star], [lam.real], "o", color=color, label=f"{f} k*: {lam.real:+.3f} 1/s")
        ax2.plot(r.t, 1e3 * r.tip_position[:, 1], color=color, label=f"{f} k*")
    ax2.set(xlabel="t, s", ylabel="tip position $y$, mm", title="nonlinear runs")
    for ax in (ax1, ax2):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    folder = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.getcwd())
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "linear_tip_feedback.png")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")
