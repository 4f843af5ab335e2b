"""Linear state-space models: x_dot = A x + B u, y = C x + D u (docs/linear-models.md).

:class:`LinearModel` is what ``PlanarArm.linearize`` and
:func:`chrono_flex.drive.linearize.linearize_drive` return: the four matrices with the
names of the states, inputs and outputs, and the quantities a control design reads from
them: poles, transmission zeros, frequency responses. It needs numpy and scipy only;
:meth:`LinearModel.to_control` hands it to python-control (the optional ``control``
extra). The input shapers of docs/linear-models.md §4 (ZV, ZVD) are pure functions of a
mode's frequency and damping, here too.
"""

from dataclasses import dataclass, field
import math

import numpy as np
from scipy.linalg import eig, matrix_balance

from . import _checks as ck
from .errors import ParameterError, SimulationError


def _names(label, names, size):
    names = tuple(str(n) for n in names)
    if len(names) != size:
        raise ParameterError(label, names, f"must hold {size} names")
    if len(set(names)) != len(names):
        raise ParameterError(label, names, "must not repeat a name")
    return names


def chosen_inputs(inputs, all_inputs):
    """The inputs a linearisation is asked for: one name, a list of names, or None for
    all of ``all_inputs``; each must be one of them (ParameterError naming it)."""
    chosen = (list(all_inputs) if inputs is None
              else [inputs] if isinstance(inputs, str) else list(inputs))
    for u in chosen:
        if u not in all_inputs:
            raise ParameterError("inputs", u, f"is not an input of this arm; its inputs: "
                                 f"{list(all_inputs)}")
    return chosen


@dataclass(frozen=True)
class LinearModel:
    """x_dot = A x + B u, y = C x + D u, with named states, inputs and outputs.

    Attributes:
        A (n, n), B (n, m), C (p, n), D (p, m): the matrices (SI units of the named
            quantities; angles in rad).
        state_names, input_names, output_names: one name per state, input, output.
        info: how the model was made (the pose, the regime of a drive, the step of the
            central differences).
    """

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    state_names: tuple
    input_names: tuple
    output_names: tuple
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        A = np.atleast_2d(np.asarray(self.A, dtype=float))
        n = A.shape[0]
        if A.shape != (n, n):
            raise ParameterError("A", A.shape, "must be square")
        B = np.asarray(self.B, dtype=float).reshape(n, -1)
        C = np.asarray(self.C, dtype=float).reshape(-1, n)
        D = np.asarray(self.D, dtype=float).reshape(C.shape[0], B.shape[1])
        for name, a in (("A", A), ("B", B), ("C", C), ("D", D)):
            if not np.all(np.isfinite(a)):
                raise SimulationError(f"the linear model's {name} is not finite")
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 (frozen dataclass)
        set_("A", A), set_("B", B), set_("C", C), set_("D", D)
        set_("state_names", _names("state_names", self.state_names, n))
        set_("input_names", _names("input_names", self.input_names, B.shape[1]))
        set_("output_names", _names("output_names", self.output_names, C.shape[0]))

    @property
    def n_states(self):
        return self.A.shape[0]

    def poles(self):
        """Eigenvalues of A (1/s), sorted by imaginary part, then real part."""
        lam = np.linalg.eigvals(self.A)
        return lam[np.lexsort((lam.real, lam.imag))]

    def zeros(self):
        """Transmission (invariant) zeros of a square model (as many inputs as outputs),
        1/s: the finite s where the Rosenbrock matrix [[A - s I, B], [C, D]] loses rank,
        as the finite generalized eigenvalues of the pencil ([[A, B], [C, D]],
        [[I, 0], [0, 0]]) (Emami-Naeini & Van Dooren 1982), balanced first by a diagonal
        similarity (scipy's ``matrix_balance``). Eigenvalues at infinity
        (beta ~ 0) are left out: |beta| below 1e-9 times the norm of the pencil's
        first matrix, with both matrices scaled to unit norm first."""
        n, m, p = self.n_states, self.B.shape[1], self.C.shape[0]
        if m != p:
            raise ParameterError("zeros", (p, m), "needs as many outputs as inputs (the "
                                 "transmission zeros of a square model); select one "
                                 "input and one output with .select(...)")
        P = np.block([[self.A, self.B], [self.C, self.D]])
        E = np.zeros_like(P)
        E[:n, :n] = np.eye(n)
        # a diagonal similarity T^-1 P T that balances rows and columns leaves E (diagonal)
        # as it is and the eigenvalues too; it brings the norm of a mechanical model from
        # omega_max^2 down to ~omega_max, and with it the error of the low zeros
        P = matrix_balance(P, permute=False)[0]
        scale = np.linalg.norm(P, 1)
        alpha, beta = eig(P / scale, E, right=False, homogeneous_eigvals=True)
        finite = np.abs(beta) > 1e-9 * np.maximum(np.abs(alpha), 1e-300)
        z = scale * alpha[finite] / beta[finite]
        return z[np.lexsort((z.real, z.imag))]

    def select(self, inputs=None, outputs=None):
        """The same model with only the named inputs and outputs (ParameterError naming
        an unknown one)."""
        ii = self._index("inputs", inputs, self.input_names)
        oo = self._index("outputs", outputs, self.output_names)
        return LinearModel(self.A, self.B[:, ii], self.C[oo], self.D[np.ix_(oo, ii)],
                           self.state_names, [self.input_names[k] for k in ii],
                           [self.output_names[k] for k in oo], dict(self.info))

    @staticmethod
    def _index(label, chosen, names):
        if chosen is None:
            return list(range(len(names)))
        chosen = [chosen] if isinstance(chosen, str) else list(chosen)
        out = []
        for c in chosen:
            if c not in names:
                raise ParameterError(label, c, f"is not one of {list(names)}")
            out.append(names.index(c))
        return out

    def frequency_response(self, omega):
        """G(j omega) = C (j omega I - A)^-1 B + D at the angular frequencies ``omega``
        (rad/s): complex array (len(omega), p, m)."""
        omega = np.atleast_1d(np.asarray(omega, dtype=float))
        n = self.n_states
        out = np.empty((omega.size, self.C.shape[0], self.B.shape[1]), dtype=complex)
        for k, w in enumerate(omega):
            out[k] = self.C @ np.linalg.solve(1j * w * np.eye(n) - self.A, self.B) + self.D
        return out

    def feedback(self, K, inputs=None, outputs=None):
        """The closed loop u = -K y + v on the named inputs and outputs (all by default):
        A - B K C (with D = 0 in those channels), the same B, C, D; a LinearModel.
        ``K``: (m, p) gain matrix, or a scalar for one input and one output."""
        ii = self._index("inputs", inputs, self.input_names)
        oo = self._index("outputs", outputs, self.output_names)
        K = np.atleast_2d(np.asarray(K, dtype=float))
        if K.shape != (len(ii), len(oo)):
            raise ParameterError("K", K.shape, f"must have shape ({len(ii)}, {len(oo)})")
        if np.any(self.D[np.ix_(oo, ii)] != 0.0):
            raise ParameterError("outputs", [self.output_names[k] for k in oo],
                                 "feed through (D != 0): the loop would be algebraic")
        A = self.A - self.B[:, ii] @ K @ self.C[oo]
        return LinearModel(A, self.B, self.C, self.D, self.state_names, self.input_names,
                           self.output_names, dict(self.info, feedback=K.tolist()))

    def to_control(self):
        """A python-control ``StateSpace`` with the same matrices and signal names (the
        optional ``control`` extra: ``pip install 'chrono_flex[control]'``)."""
        try:
            import control
        except ImportError:
            raise ImportError("LinearModel.to_control needs python-control: pip install "
                              "'chrono_flex[control]'") from None
        return control.ss(self.A, self.B, self.C, self.D, states=list(self.state_names),
                          inputs=list(self.input_names), outputs=list(self.output_names))


def tangent_matrices(forcing, K, D, q, h):
    """(K_t, D_t) = (-df/dq, -df/dq_d) at (q, q_d = 0) of a mechanical model
    M(q) q_dd = f(q, q_d) with f = -K q - D q_d + (the rest): K and D exactly, the rest
    by central differences with the step h max(1, |q_k|) (docs/linear-models.md
    eq. (1.2)). ``forcing``: callable(q, qd) -> f (nq,), the engine's own function."""
    nq = q.size
    zero = np.zeros(nq)

    def rest(qq, qd):
        return forcing(qq, qd) + K @ qq + D @ qd

    Kt, Dt = np.array(K, dtype=float), np.array(D, dtype=float)
    for k in range(nq):
        s = h * max(1.0, abs(q[k]))
        e = np.zeros(nq)
        e[k] = s
        Kt[:, k] -= (rest(q + e, zero) - rest(q - e, zero)) / (2 * s)
        Dt[:, k] -= (rest(q, e) - rest(q, -e)) / (2 * s)
    return Kt, Dt


def second_order_model(M, Kt, Dt, Bq, Cq, Cv, state_names, input_names, output_names,
                       info=None):
    """The first-order model of M dq_dd + Dt dq_d + Kt dq = Bq u, y = Cq dq + Cv dq_d:
    x = [dq, dq_d], A = [[0, I], [-M^-1 Kt, -M^-1 Dt]], B = [[0], [M^-1 Bq]]
    (docs/linear-models.md eq. (1.3))."""
    n = M.shape[0]
    Minv_K = np.linalg.solve(M, Kt)
    Minv_D = np.linalg.solve(M, Dt)
    A = np.block([[np.zeros((n, n)), np.eye(n)], [-Minv_K, -Minv_D]])
    B = np.vstack([np.zeros((n, Bq.shape[1])), np.linalg.solve(M, Bq)])
    C = np.hstack([Cq, Cv])
    return LinearModel(A, B, C, np.zeros((C.shape[0], B.shape[1])), state_names,
                       input_names, output_names, info or {})


# -- input shaping (docs/linear-models.md §4) ---------------------------------------------

SHAPERS = ("ZV", "ZVD")


def input_shaper(frequency, damping=0.0, kind="ZV"):
    """(times (s), amplitudes) of a zero-vibration shaper for a mode of natural angular
    frequency ``frequency`` (rad/s) and damping ratio ``damping`` (Singer & Seering 1990,
    eqs. 8-10; Smith 1957 for ZV):

        K = exp(-zeta pi / sqrt(1 - zeta^2)),  T_d = 2 pi / (omega sqrt(1 - zeta^2))
        ZV:  t = (0, T_d/2),        A = (1, K) / (1 + K)
        ZVD: t = (0, T_d/2, T_d),   A = (1, 2K, K^2) / (1 + K)^2

    The amplitudes sum to 1 (the shaped move ends where the unshaped one does)."""
    omega = ck.positive("frequency", frequency)
    zeta = ck.non_negative("damping", damping)
    if zeta >= 1.0:
        raise ParameterError("damping", damping, "must be < 1 (an oscillating mode)")
    ck.choice("kind", kind, SHAPERS)
    root = math.sqrt(1.0 - zeta * zeta)
    K = math.exp(-zeta * math.pi / root)
    Td = 2.0 * math.pi / (omega * root)
    if kind == "ZV":
        return np.array([0.0, Td / 2]), np.array([1.0, K]) / (1.0 + K)
    return np.array([0.0, Td / 2, Td]), np.array([1.0, 2.0 * K, K * K]) / (1.0 + K) ** 2


def shape(profile, shaper):
    """The profile convolved with the shaper's impulses: t -> sum_i A_i profile(t - t_i),
    with profile(t) taken as profile(0) for t < 0 (a move that starts from rest).
    ``profile``: callable(t) -> float or array (a reference or a torque);
    ``shaper``: (times, amplitudes) of :func:`input_shaper`."""
    if not callable(profile):
        raise ParameterError("profile", profile, "must be callable(t)")
    times, amps = (np.asarray(a, dtype=float) for a in shaper)
    if times.shape != amps.shape or times.ndim != 1 or np.any(times < 0):
        raise ParameterError("shaper", shaper, "must be (times >= 0, amplitudes) of one length")

    def shaped(t):
        return sum(a * np.asarray(profile(max(t - ti, 0.0)), dtype=float)
                   for ti, a in zip(times, amps))

    shaped.shaper = (times, amps)
    return shaped


def residual_vibration(frequency, damping, times, amplitudes):
    """The residual vibration of a unit impulse sequence on a mode, relative to one unit
    impulse (Singer & Seering 1990, eq. 3): V = exp(-zeta omega t_N) sqrt(C^2 + S^2),
    C = sum A_i exp(zeta omega t_i) cos(omega_d t_i), S likewise with sin."""
    omega, zeta = ck.positive("frequency", frequency), ck.non_negative("damping", damping)
    wd = omega * math.sqrt(1.0 - zeta * zeta)
    t = np.asarray(times, dtype=float)
    a = np.asarray(amplitudes, dtype=float)
    e = a * np.exp(zeta * omega * (t - t[-1]))
    return float(math.hypot(np.sum(e * np.cos(wd * t)), np.sum(e * np.sin(wd * t))))


__all__ = ["LinearModel", "SHAPERS", "input_shaper", "residual_vibration",
           "second_order_model", "shape", "tangent_matrices"]
