"""The gear drive linearised about an operating point (docs/linear-models.md §2).

The drive's equations (:meth:`GearDrive.rates_tuple`, the function every engine calls)
are differentiated by central differences at a steady state
(:meth:`GearDrive.steady_state`). Backlash and friction are not differentiable
everywhere, so the regime is a choice, stated with the model:

* backlash ``"contact"`` (default): the teeth in contact on the flank that carries the
  load (on the positive flank for no load): the gear is the spring-damper
  c (theta -+ theta_b) + K_V1 dtheta ([S] eq. 15 on one flank); ``"gap"``: the teeth
  apart, in the middle of the play: no torque passes (motor and output decoupled);
* friction ``"presliding"`` (default, at rest): the LuGre bristles are a spring sigma0
  and a damper sigma1 (dz/dt = v at v = 0), times the load factor (|M1'| K_ML + 1); the
  static model is its linear zone, a damper Ms/dOmega2; ``"sliding"`` (a steady speed
  Omega2 != 0): the slope of the Stribeck curve plus K_V2 at that speed, with the
  bristles' lag.
"""

from dataclasses import replace

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError
from ..linear import LinearModel
from .backlash import GAP_EPS

BACKLASH_REGIMES = ("contact", "gap")
FRICTION_REGIMES = ("presliding", "sliding")

#: Step of the central differences (times max(1, |value|)): the drive's equations are
#: smooth within a regime, and 1e-7 is below the linear zone of static friction
#: (dOmega2 ~ 1e-4 rad/s) and the bristles' range (Fs/sigma0 ~ 5e-4 rad).
FD_STEP = 1e-7


def kept_states(drive):
    """Indices of the drive's states that move: the current only in voltage mode, z only
    with dynamic friction."""
    p = drive.params
    keep = [0] if p.motor == "voltage" else []
    keep += [1, 2]
    if p.friction == "dynamic":
        keep.append(3)
    return keep


def regime_point(drive, x, theta_out, omega_out, backlash="contact", friction="presliding"):
    """(drive, x) to differentiate for the regime: for ``"contact"`` a drive without
    play with the twist moved onto the loaded flank, for ``"gap"`` the drive itself with
    the twist in the middle of the play. ParameterError naming the regime when the
    operating point does not allow it."""
    ck.choice("backlash", backlash, BACKLASH_REGIMES)
    ck.choice("friction", friction, FRICTION_REGIMES)
    p = drive.params
    x = np.array(x, dtype=float)
    r = p.ratio
    if friction == "presliding" and omega_out != 0.0 and p.friction != "none":
        raise ParameterError("friction", friction, f"needs the output at rest (the operating "
                             f"speed is {omega_out!r} rad/s): use 'sliding'")
    if friction == "sliding" and omega_out == 0.0 and p.friction != "none":
        raise ParameterError("friction", friction, "needs a steady output speed != 0 "
                             "(the operating point is at rest): use 'presliding'")
    if p.theta_b <= GAP_EPS:
        if backlash == "gap":
            raise ParameterError("backlash", backlash, "needs play (theta_b > 0)")
        return drive, x
    theta = x[1] / r - theta_out
    if backlash == "gap":
        x[1] = r * theta_out
        return drive, x
    s = 1.0 if theta >= 0.0 else -1.0
    if abs(theta) < p.theta_b * (1.0 - 1e-9):
        raise ParameterError("backlash", backlash, f"needs the teeth in contact: the twist "
                             f"{theta:.3g} rad is inside the play +-{p.theta_b:g} rad")
    x[1] -= r * s * p.theta_b
    return type(drive)(replace(p, theta_b=0.0)), x


def drive_jacobians(drive, x, theta_out, omega_out, u, backlash="contact",
                    friction="presliding", h=FD_STEP):
    """Derivatives of the drive's rates and output torque at an operating point, over the
    states of :func:`kept_states`: a dict with ``Rx`` (k, k), ``Ry`` (k, 2) (by output
    angle and speed), ``Ru`` (k,), ``Tx`` (k,), ``Ty`` (2,), ``Tu`` (scalar), ``keep``,
    by central differences of :meth:`GearDrive.rates_tuple` in the regime of
    :func:`regime_point`."""
    d, x = regime_point(drive, x, theta_out, omega_out, backlash, friction)
    keep = kept_states(drive)
    args = np.concatenate([x, [theta_out, omega_out, u]])

    def F(a):
        out = d.rates_tuple(*a)
        return np.array(out[:4])[keep], out[4]

    cols = keep + [4, 5, 6]
    dR = np.empty((len(keep), len(cols)))
    dT = np.empty(len(cols))
    for c, k in enumerate(cols):
        s = h * max(1.0, abs(args[k]))
        ap, am = args.copy(), args.copy()
        ap[k] += s
        am[k] -= s
        (rp, tp), (rm, tm) = F(ap), F(am)
        dR[:, c] = (rp - rm) / (2 * s)
        dT[c] = (tp - tm) / (2 * s)
    n = len(keep)
    return dict(Rx=dR[:, :n], Ry=dR[:, n:n + 2], Ru=dR[:, n + 2], Tx=dT[:n], Ty=dT[n:n + 2],
                Tu=dT[n + 2], keep=keep)


def input_name(drive):
    return "voltage" if drive.params.motor == "voltage" else "current"


def linearize_drive(drive, inputs=None, outputs=("output_angle",), omega_out=0.0,
                    load_torque=0.0, load_inertia=0.0, backlash="contact",
                    friction="presliding"):
    """The drive with its output shaft (inertia J2 + ``load_inertia``) linearised about
    its steady state at output speed ``omega_out`` under the constant external torque
    ``load_torque`` on the output: a :class:`~chrono_flex.linear.LinearModel`.

    States: the drive's moving states (current, motor_angle, motor_speed, z: see
    :func:`kept_states`), then output_angle and output_speed. Inputs (default both):
    "voltage" (or "current" in current mode) and "load_torque". Outputs: any state,
    "twist" (alpha1/i - alpha2), "tau_out" (M1' - M_F') and, in current mode, "current".
    ``backlash``, ``friction``: the regime (module docstring).
    """
    J = drive.output_inertia + ck.non_negative("load_inertia", load_inertia)
    omega_out = ck.real("omega_out", omega_out)
    x0, u0, _ = drive.steady_state(torque=-ck.real("load_torque", load_torque),
                                   omega_out=omega_out)
    jac = drive_jacobians(drive, x0, 0.0, omega_out, u0, backlash, friction)
    keep = jac["keep"]
    k = len(keep)
    names = [drive.state_names[i] for i in keep] + ["output_angle", "output_speed"]
    A = np.zeros((k + 2, k + 2))
    A[:k, :k], A[:k, k:] = jac["Rx"], jac["Ry"]
    A[k, k + 1] = 1.0
    A[k + 1, :k], A[k + 1, k:] = jac["Tx"] / J, jac["Ty"] / J
    B = np.zeros((k + 2, 2))
    B[:k, 0], B[k + 1, 0] = jac["Ru"], jac["Tu"] / J
    B[k + 1, 1] = 1.0 / J
    r = drive.ratio
    rows, drows = {}, {}
    for i, n in enumerate(names):
        rows[n] = np.eye(k + 2)[i]
    if 1 in keep:
        tw = np.zeros(k + 2)
        tw[keep.index(1)], tw[k] = 1.0 / r, -1.0
        rows["twist"] = tw
    rows["tau_out"] = np.concatenate([jac["Tx"], jac["Ty"]])
    drows["tau_out"] = np.array([jac["Tu"], 0.0])
    if drive.params.motor == "current":
        rows["current"], drows["current"] = np.zeros(k + 2), np.array([1.0, 0.0])
    outputs = [outputs] if isinstance(outputs, str) else list(outputs)
    C, D = [], []
    for o in outputs:
        if o not in rows:
            raise ParameterError("outputs", o, f"is not one of {sorted(rows)}")
        C.append(rows[o])
        D.append(drows.get(o, np.zeros(2)))
    model = LinearModel(A, B, np.array(C).reshape(len(C), k + 2),
                        np.array(D).reshape(len(D), 2), names,
                        [input_name(drive), "load_torque"], outputs,
                        dict(backlash=backlash, friction=friction, omega_out=omega_out,
                             load_torque=load_torque, operating_input=u0,
                             operating_state=x0.tolist(), step=FD_STEP))
    if inputs is None:
        return model
    return model.select(inputs=inputs)


__all__ = ["BACKLASH_REGIMES", "FRICTION_REGIMES", "FD_STEP", "drive_jacobians",
           "input_name", "kept_states", "linearize_drive", "regime_point"]
