"""Estimating the drive's output torque from motor current and motor position, without
a torque sensor (docs/control.md §5).

The motor side of the drive ([S] eqs. 13, 18) is

    J1 dOmega1/dt = k_M i - M1'/r

with M1' the torque the gear transmits to the output. Taking d = M1'/r as an unknown,
slowly varying input (d' = 0; the disturbance-observer idea, e.g. Ohnishi, Shibata,
Murakami, IEEE/ASME Trans. Mechatronics 1(1), 1996, and Luenberger's observer for the
augmented state) gives the linear system

    x = [alpha1, Omega1, d],   x' = A x + B k_M i,   y = alpha1 (the motor encoder)

    A = [[0, 1, 0], [0, 0, -1/J1], [0, 0, 0]],   B = [0, 1/J1, 0]

The observer runs at the sample period T on the sampled encoder and current channels,
discretised exactly (zero-order hold of the current), with its three poles placed at
exp(-w_o T) (a triple pole of bandwidth w_o): x^_{k+1} = Ad x^_k + Bd k_M i_k +
L (y_k - C x^_k). Its estimate M1'^ = r d^ follows the true torque with the lag of a
third-order filter, d^/d = w_o^3 / (s + w_o)^3: for a torque changing at a rate M', the
tracking error tends to 3 M' / w_o.
"""

import math

import numpy as np
from scipy.linalg import expm

from .. import _checks as ck
from ..errors import ParameterError


class TorqueObserver:
    """The observer of the module docstring for a :class:`~chrono_flex.drive.GearDrive`
    in voltage or current mode, sample period ``period`` (s) and bandwidth ``bandwidth``
    (rad/s; w_o T < 1 keeps the discrete poles well inside the unit circle)."""

    def __init__(self, drive, period, bandwidth):
        self.drive = drive
        p = drive.params
        self.period = ck.positive("period", period)
        self.bandwidth = ck.positive("bandwidth", bandwidth)
        if self.bandwidth * self.period >= 1.0:
            raise ParameterError("bandwidth", bandwidth, f"must be below 1/period = "
                                 f"{1 / self.period:g} rad/s")
        A = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, -1.0 / p.J1], [0.0, 0.0, 0.0]])
        B = np.array([0.0, 1.0 / p.J1, 0.0])
        M = np.zeros((4, 4))
        M[:3, :3], M[:3, 3] = A * self.period, B * self.period
        E = expm(M)
        self.Ad, self.Bd = E[:3, :3], E[:3, 3]
        self.C = np.array([1.0, 0.0, 0.0])
        z = math.exp(-self.bandwidth * self.period)
        self.L = self._gain(z)
        self.k_M, self.ratio = p.k_M, p.ratio

    def _gain(self, z):
        """L placing the eigenvalues of the error map Ad (I - L C) at z (triple): Ackermann's
        formula gives Lp for Ad - Lp C (observable through alpha1), and L = Ad^-1 Lp for
        the correct-then-predict form used here."""
        O = np.vstack([self.C, self.C @ self.Ad, self.C @ self.Ad @ self.Ad])
        Ad = self.Ad
        I = np.eye(3)
        phi = (Ad - z * I) @ (Ad - z * I) @ (Ad - z * I)
        Lp = phi @ np.linalg.solve(O, np.array([0.0, 0.0, 1.0]))
        return np.linalg.solve(Ad, Lp)

    def noise_gains(self, n=None):
        """(g_y, g_i): the l1 norms of the maps from an encoder error (rad) and a current
        error (A) to the estimate M1'^ (N m): a measurement error bounded by e moves the
        estimate by at most g e (the sum of the impulse response's magnitudes)."""
        n = n or int(50 / (self.bandwidth * self.period)) + 50
        I = np.eye(3)
        F = self.Ad @ (I - np.outer(self.L, self.C))          # e-_{k+1} = F e-_k + ...
        G = I - np.outer(self.L, self.C)                        # e+_k = G e-_k - L n_k
        gy, gi = abs(self.L[2]), 0.0
        vy = -self.Ad @ self.L                                  # e- after a unit y error
        vi = self.Bd * self.k_M                                 # e- after a unit i error
        for _ in range(n):
            gy += abs((G @ vy)[2])
            gi += abs((G @ vi)[2])
            vy, vi = F @ vy, F @ vi
        return self.ratio * gy, self.ratio * gi

    def estimate(self, motor_angle, current, x0=None):
        """Run over sampled channels (arrays at the instants k period): the estimated
        transmitted torque M1'^ = r d^ (N m) at each sample (the estimate after the
        sample's update), and the observer states (n, 3)."""
        y = np.asarray(motor_angle, dtype=float)
        i = np.asarray(current, dtype=float)
        if y.shape != i.shape or y.ndim != 1:
            raise ParameterError("current", i.shape, f"must match motor_angle {y.shape}")
        x = np.array([y[0], 0.0, 0.0]) if x0 is None else np.asarray(x0, dtype=float)
        X = np.empty((y.size, 3))
        for k in range(y.size):
            x = x + self.L * (y[k] - self.C @ x)        # correct with the sample
            X[k] = x
            x = self.Ad @ x + self.Bd * (self.k_M * i[k])  # predict to the next
        return self.ratio * X[:, 2], X


__all__ = ["TorqueObserver"]
