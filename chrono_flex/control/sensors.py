"""Sensors: what a controller reads and what a result records, as named channels with
units (docs/control.md §2).

A sensor is attached to a plant, a :class:`~chrono_flex.drive.GearDrive` (state
x = [i, alpha1, Omega1, z, alpha2, Omega2]), a :class:`~chrono_flex.planar.arm.PlanarArm`
or a :class:`~chrono_flex.spatial.arm.SpatialArm` (state q, qd), and has a sample period,
a quantum (encoder counts), seeded Gaussian noise and a delay:

    value      the physical quantity at t (:meth:`Sensor.value`, exact)
    measured   quantise(value) + noise, quantise(v) = quantum floor(v / quantum)
               (an incremental encoder counts the whole increments passed)
    channel    at time t the measurement taken at the latest sample instant t_k with
               t_k + delay <= t (NaN before the first), t_k = t0 + k period

In a sampled controller's loop a sensor is read at the controller's instants (held over
its own period when that is longer) and its delay adds to the controller's; after a run
:func:`record` samples the result's states (linear interpolation between output times,
so the period must not be below the output interval) into named channels.

Strain gauge: the surface strain of an Euler-Bernoulli beam at distance h/2 from the
neutral axis is eps = w'' h/2 (:func:`surface_strain`; Timoshenko & Gere, *Mechanics of
Materials*, 1972, sec. 5.4: eps_x = -y / rho, 1/rho = w'' for small slopes; the gauge on
the side y = -h/2, stretched when w'' > 0).
"""

import math

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError
from ..planar import kinematics as kin
from ..spatial import kinematics as skin


def surface_strain(curvature, half_thickness):
    """Surface bending strain eps = kappa h/2 of an Euler-Bernoulli beam (kappa = w'',
    1/m; half_thickness h/2, m), on the side stretched by a positive curvature
    (Timoshenko & Gere 1972, sec. 5.4: eps = -y kappa at y = -h/2)."""
    return np.asarray(curvature, dtype=float) * half_thickness


def quantise(value, quantum):
    """quantum floor(value / quantum): the value an incremental encoder with that
    increment reports (quantum 0: the value itself)."""
    if quantum <= 0.0:
        return value
    if isinstance(value, float):
        return quantum * math.floor(value / quantum + 1e-12)
    return quantum * np.floor(np.asarray(value, dtype=float) / quantum + 1e-12)


def _kind(plant):
    if hasattr(plant, "rates_tuple") and hasattr(plant, "params"):
        return "drive"
    if hasattr(plant, "joint_index") and hasattr(plant, "model"):
        return "arm"
    raise ParameterError("plant", plant, "must be a GearDrive, a PlanarArm or a SpatialArm")


def _is_spatial(plant):
    return hasattr(plant, "model") and hasattr(plant.model, "layout") \
        and hasattr(plant.model.layout, "bodies")


class Sensor:
    """Base class: ``name``, ``unit``, ``period`` (s; 0: every call/output), ``noise``
    (standard deviation, in the unit), ``delay`` (s), ``quantum`` (unit), ``seed``."""

    unit = ""
    size = 1
    needs_accelerations = False
    #: Whether it reads a drive's states on an arm (the motor side): its value then takes
    #: (t, q, qd, z), z the drives' states in the order of their joints.
    needs_drive_states = False

    def __init__(self, plant, name, period=0.0, noise=0.0, delay=0.0, quantum=0.0, seed=0):
        self.plant = plant
        self.kind = _kind(plant)
        self.name = str(name)
        self.period = ck.non_negative("period", period)
        self.noise = ck.non_negative("noise", noise)
        self.delay = ck.non_negative("delay", delay)
        self.quantum = ck.non_negative("quantum", quantum)
        self.seed = seed
        self.reset()

    def reset(self):
        self._rng = np.random.default_rng(self.seed)
        self._last = None          # (t_k, measured) of the loop's hold

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"

    def value(self, t, *state):
        """The exact physical value at t (float, or an array of ``size``)."""
        raise NotImplementedError

    def measured(self, value):
        """quantise(value) + noise (one draw of the seeded generator per sample)."""
        v = quantise(value, self.quantum)
        if self.noise > 0.0:
            v = v + self.noise * self._rng.standard_normal(np.shape(v))
        return v

    def read(self, t, *state):
        """The measurement at t in a loop (a float, or an array of ``size``): a new sample
        when its own period has passed since the last (every call when period = 0), else
        the last one held."""
        if self.needs_accelerations:
            raise ParameterError("sensors", self, "needs accelerations, which the engines "
                                 "do not hand to a controller: record it from a result "
                                 "(chrono_flex.control.record)")
        if self.kind == "arm" and not self.needs_drive_states:
            state = state[:2]               # (q, qd) without the drives' states
        if self.period == 0.0 or self._last is None or \
                t >= self._last[0] + self.period * (1 - 1e-9):
            v = self.value(t, *state)
            self._last = (t, self.measured(v) if self.quantum or self.noise else v)
        return self._last[1]

    # -- helpers of the arm sensors ----------------------------------------------------
    def _joint(self, joint):
        nj = self.plant.n_joints
        j = int(joint)
        if not -nj <= j < nj:
            raise ParameterError("joint", joint, f"must be a joint number 0..{nj - 1}")
        return j % nj

    def _motor_side(self, joint, state_name):
        """On an arm with drives: the index in z (the drives' states in the order of their
        joints) of the state ``state_name`` of the drive on joint ``joint``."""
        j = self._joint(joint)
        arm = self.plant
        drives = getattr(arm, "drives", None) or {}
        places = (arm.drive_places() if hasattr(arm, "drive_places")
                  else {k: (k, None) for k in drives})
        offset = 0
        for key in sorted(drives):
            d = drives[key]
            if places[key][0] == j:
                names = tuple(getattr(d, "state_names", ()))
                if state_name not in names:
                    raise ParameterError("joint", joint, f"carries a drive without a "
                                         f"{state_name!r} state ({d!r})")
                self.needs_drive_states = True
                self.drive = d
                return offset + names.index(state_name)
            offset += int(d.n_states)
        raise ParameterError("joint", joint, "has no drive: a motor-side sensor reads the "
                             "drive on its joint (joints with drives: "
                             f"{sorted(places[k][0] for k in drives)})")

    def _drive_value(self, state):
        if len(state) < 3:
            raise ParameterError("sensors", self, "reads a drive's motor side, which this "
                                 "engine does not hand to the loop (the arm reference "
                                 "engines do, and Chrono's element to a drive input)")
        return float(state[2][self.index])

    def _link(self, link):
        """The link's number: in a spatial arm its body number (-1: the last link)."""
        if _is_spatial(self.plant):
            bodies = self.plant.model.layout.bodies
            if int(link) == -1:
                return int(self.plant.model.links[-1])
            i = int(link)
            if not 0 <= i < len(bodies) or not bodies[i].is_link:
                raise ParameterError("link", link, "must be the body number of a link "
                                     f"(links: {list(self.plant.model.links)})")
            return i
        nl = len(self.plant.links)
        i = int(link)
        if not -nl <= i < nl:
            raise ParameterError("link", link, f"must be a link number 0..{nl - 1}")
        return i % nl

    def _link_params(self, link):
        if _is_spatial(self.plant):
            return self.plant.model.layout.bodies[link].body
        return self.plant.links[link]

    def _station(self, station, link):
        L = self._link_params(link).length
        if station is None:
            return L
        s = ck.real("station", station)
        if not 0.0 <= s <= L * (1 + 1e-12):
            raise ParameterError("station", station, f"must lie on link {link} "
                                 f"(0 <= s <= L = {L:g} m)")
        return min(s, L)


class Encoder(Sensor):
    """A shaft encoder of ``counts`` increments per revolution (quantum 2 pi/counts, rad).

    side="link": the output shaft of a drive (alpha2) or joint ``joint`` of an arm;
    side="motor": the motor shaft of a drive (alpha1, before the gear: counts per motor
    revolution), also of the drive on joint ``joint`` of an arm with drives."""

    unit = "rad"

    def __init__(self, plant, counts, side="link", joint=0, name=None, **kw):
        counts = ck.positive_int("counts", counts)
        ck.choice("side", side, ("link", "motor"))
        super().__init__(plant, name or f"encoder_{side}", quantum=2 * math.pi / counts, **kw)
        self.counts, self.side = counts, side
        if self.kind == "arm":
            self.index = (self._motor_side(joint, "motor_angle") if side == "motor"
                          else int(plant.joint_index[self._joint(joint)]))
        else:
            self.index = 4 if side == "link" else 1

    def value(self, t, *state):
        if self.needs_drive_states:
            return self._drive_value(state)
        return float(state[0][self.index])


class Tachometer(Sensor):
    """Shaft speed, rad/s: side="link" (output speed Omega2, or an arm joint's rate) or
    "motor" (Omega1 of a drive, also of the drive on joint ``joint`` of an arm)."""

    unit = "rad/s"

    def __init__(self, plant, side="link", joint=0, name=None, **kw):
        ck.choice("side", side, ("link", "motor"))
        super().__init__(plant, name or f"tacho_{side}", **kw)
        if self.kind == "arm":
            if side == "motor":
                self.index, self.arg = self._motor_side(joint, "motor_speed"), 2
            else:
                self.index, self.arg = int(plant.joint_index[self._joint(joint)]), 1
        else:
            self.index, self.arg = (5 if side == "link" else 2), 0

    def value(self, t, *state):
        if self.needs_drive_states:
            return self._drive_value(state)
        return float(state[self.arg][self.index])


class CurrentSensor(Sensor):
    """Motor current of a drive, A (voltage mode: the state i): of a GearDrive, or of the
    drive on joint ``joint`` of an arm with drives."""

    unit = "A"

    def __init__(self, plant, name="current", joint=0, **kw):
        super().__init__(plant, name, **kw)
        if self.kind == "arm":
            self.index = self._motor_side(joint, "current")
            drive = self.drive
        else:
            drive = plant
        if getattr(getattr(drive, "params", None), "motor", "voltage") != "voltage":
            raise ParameterError("plant", plant, "is current-controlled: its current is the "
                                 "input, not a state to measure")

    def value(self, t, *state):
        if self.needs_drive_states:
            return self._drive_value(state)
        return float(state[0][0])


class _PointSensor(Sensor):
    """A material point of an arm's link at a station (m from the root; None: the tip):
    (x, y) in a planar arm's plane, (x, y, z) in space for a spatial arm."""

    size = 2

    def __init__(self, plant, name, link=-1, station=None, **kw):
        super().__init__(plant, name, **kw)
        if self.kind != "arm":
            raise ParameterError("plant", plant, "must be a PlanarArm or a SpatialArm")
        self.spatial = _is_spatial(plant)
        self.link = self._link(link)
        self.station = self._station(station, self.link)
        layout = plant.model.layout
        lk = (layout.bodies if self.spatial else layout.links)[self.link]
        self._shapes = lk.basis.values(np.array([self.station]))
        if self.spatial:
            self.size = 3

    def _point(self, q, qd):
        layout = self.plant.model.layout
        if self.spatial:            # (root frame, r, J, a) from the tree's kinematics
            roots, _ = skin.tree_frames(layout, q, qd)
            Nv, _, _, Nw = self._shapes[:4]
            r, J, a = skin.points(roots[self.link], layout.bodies[self.link],
                                  np.array([self.station]), Nv, Nw, q, qd)
            return roots[self.link], r[0], J[0], a[0]
        roots, _ = kin.chain_frames(layout, q, qd)
        lk = layout.links[self.link]
        r, J, a, *_ = kin.points(roots[self.link], lk, np.array([self.station]),
                                 self._shapes[:2], q, qd)
        return roots[self.link], r[0], J[0], a[0]


class TipPosition(_PointSensor):
    """Position (x, y) in the arm plane of a link's point, m (default: the last tip); in
    space, (x, y, z), on a spatial arm (``link`` its body number)."""

    unit = "m"

    def __init__(self, plant, link=-1, station=None, name="tip_position", **kw):
        super().__init__(plant, name, link, station, **kw)

    def value(self, t, q, qd):
        return self._point(np.asarray(q), np.asarray(qd))[1].copy()


class TipVelocity(_PointSensor):
    """Velocity (x, y) in the arm plane of a link's point, m/s (J(q) qd); (x, y, z) on a
    spatial arm."""

    unit = "m/s"

    def __init__(self, plant, link=-1, station=None, name="tip_velocity", **kw):
        super().__init__(plant, name, link, station, **kw)

    def value(self, t, q, qd):
        _, _, J, _ = self._point(np.asarray(q), np.asarray(qd))
        return J @ np.asarray(qd)


class Accelerometer(_PointSensor):
    """A two-axis accelerometer on a link's point, m/s^2, in the link's frame (the
    floating frame: x along the undeformed link, y across it): the specific force
    R(psi)^T (a - g), a = J qdd + J' qd, as a real accelerometer reads it (gravity
    included where the arm has it). On a spatial arm three axes, R^T (a - g) with R the
    link frame's rotation (x along the undeformed link, y and z its section axes).
    Needs the accelerations: recorded from a result."""

    unit = "m/s^2"
    needs_accelerations = True

    def __init__(self, plant, link=-1, station=None, name="accelerometer", **kw):
        super().__init__(plant, name, link, station, **kw)
        self.g = np.asarray(plant.model.g_vec, dtype=float)

    def value(self, t, q, qd, qdd=None):
        if qdd is None:
            raise ParameterError("qdd", qdd, f"is needed by {self!r}")
        frame, _, J, a = self._point(np.asarray(q), np.asarray(qd))
        acc = J @ np.asarray(qdd) + a - self.g
        if self.spatial:
            return frame.R.T @ acc
        c, s = math.cos(frame.psi), math.sin(frame.psi)
        return np.array([c * acc[0] + s * acc[1], -s * acc[0] + c * acc[1]])


class StrainGauge(Sensor):
    """Surface bending strain (dimensionless) at ``station`` (m from the root) of a
    link: :func:`surface_strain` of the curvature w''(s) = N''(s) e of the link's shape
    basis, half-thickness ``half_thickness`` (default the link's thickness / 2).

    On a spatial arm (``link`` a body number) the gauge sits on the section's surface in
    the bending ``direction`` n = (n_y, n_z) of the link's frame, "y" = (1, 0) (the
    bending v, in the plane of a z-axis joint) or "z" = (0, 1) (w), or any unit pair; the
    curvature is kappa = n_y v'' + n_z w''. A planar arm bends in its plane alone."""

    unit = "1"

    def __init__(self, plant, link=0, station=0.0, half_thickness=None, direction=None,
                 name=None, **kw):
        super().__init__(plant, name or "strain", **kw)
        if self.kind != "arm":
            raise ParameterError("plant", plant, "must be a PlanarArm or a SpatialArm")
        spatial = _is_spatial(plant)
        self.link = self._link(link)
        self.station = self._station(station, self.link)
        lk = self._link_params(self.link)
        h2 = lk.thickness / 2 if half_thickness is None else half_thickness
        self.half_thickness = ck.positive("half_thickness", h2)
        layout = (plant.model.layout.bodies if spatial else plant.model.layout.links)[self.link]
        values = layout.basis.values(np.array([self.station]))
        if spatial:
            n = _direction(direction)
            self._d2N = n[0] * values[2][0] + n[1] * values[5][0]      # v'' and w''
        else:
            if direction is not None:
                raise ParameterError("direction", direction, "is for spatial arms (a "
                                     "planar link bends in its plane)")
            self._d2N = values[2][0]
        self.direction = direction
        self._slice = layout.elastic_slice

    def value(self, t, q, qd=None):
        return float(surface_strain(self._d2N @ np.asarray(q)[self._slice],
                                    self.half_thickness))


def _direction(direction):
    """(n_y, n_z) of a strain gauge's bending direction: "y", "z" or a unit pair."""
    named = {None: (1.0, 0.0), "y": (1.0, 0.0), "z": (0.0, 1.0)}
    if isinstance(direction, str) or direction is None:
        if direction not in named:
            raise ParameterError("direction", direction, 'must be "y", "z" or a unit '
                                 "vector (n_y, n_z) in the section")
        return np.array(named[direction])
    n = np.asarray(direction, dtype=float)
    if n.shape != (2,) or not np.all(np.isfinite(n)) or abs(np.hypot(*n) - 1.0) > 1e-9:
        raise ParameterError("direction", direction, 'must be "y", "z" or a unit vector '
                             "(n_y, n_z) in the section")
    return n


# ---------------------------------------------------------------------------------------
# recording


def _states_of(result, drive_states=False):
    """(t, state arrays, kind) of a Result or DriveResult; with ``drive_states``, an arm's
    drives' states (``extra["drive<k>_states"]`` in the order of k) as a third array."""
    t = np.asarray(result.t, dtype=float)
    if hasattr(result, "states"):
        X = np.asarray(result.states, dtype=float)
        return t, (X,), "drive"
    arrays = (np.asarray(result.q, dtype=float), np.asarray(result.qd, dtype=float))
    if drive_states:
        keys = sorted((int(k[5:-7]), k) for k in result.extra
                      if k.startswith("drive") and k.endswith("_states") and k[5:-7].isdigit())
        z = [np.asarray(result.extra[k], dtype=float).reshape(t.size, -1) for _, k in keys]
        arrays += (np.concatenate(z, axis=1) if z else np.zeros((t.size, 0)),)
    return t, arrays, "arm"


def _interp(t, arrays, tk):
    """The rows of ``arrays`` at times tk, linearly interpolated in t."""
    idx = np.clip(np.searchsorted(t, tk, side="right") - 1, 0, t.size - 2)
    w = (tk - t[idx]) / (t[idx + 1] - t[idx])
    return [A[idx] + (A[idx + 1] - A[idx]) * w[:, None] for A in arrays]


def record(result, sensors):
    """Sample ``sensors`` along ``result`` (a :class:`~chrono_flex.result.Result` of an
    arm or a :class:`~chrono_flex.drive.DriveResult`) into named channels.

    Each sensor is sampled at t_k = t0 + k period (every output time when period = 0),
    its state interpolated linearly between output times; a sample period below the
    output interval is a ParameterError naming the sensor. The channel holds each
    measurement from t_k + delay (NaN before the first). The channels are added to the
    result (``Result.extra`` / ``DriveResult.outputs``, a vector sensor as
    (nt, size)) with their units in ``result.info["units"]``; returns
    {name: (nt,) or (nt, size) array}.
    """
    sensors = list(sensors) if isinstance(sensors, (list, tuple)) else [sensors]
    t, arrays, kind = _states_of(result, any(getattr(s, "needs_drive_states", False)
                                             for s in sensors))
    if t.size < 2:
        raise ParameterError("result", result, "must hold at least two output times")
    dt = float(np.min(np.diff(t)))
    channels = {}
    for s in sensors:
        if not isinstance(s, Sensor):
            raise ParameterError("sensors", s, "must be sensors of chrono_flex.control.sensors")
        if s.kind != kind:
            raise ParameterError("sensors", s, f"is attached to a {s.kind}, the result is "
                                 f"of a {kind}")
        if s.name in channels:
            raise ParameterError("name", s.name, "is used by two sensors")
        s.reset()
        if s.period == 0.0:
            tk = t.copy()
        else:
            if s.period < dt * (1 - 1e-9):
                raise ParameterError("period", s.period, f"of sensor {s.name!r} is below the "
                                     f"result's output interval {dt:g} s (run with a "
                                     f"smaller dt_out)")
            tk = t[0] + s.period * np.arange(int(math.floor((t[-1] - t[0]) / s.period
                                                            + 1e-9)) + 1)
        mine = arrays if kind == "drive" or s.needs_drive_states else arrays[:2]
        rows = mine if s.period == 0.0 else _interp(t, mine, tk)
        if s.needs_accelerations:
            rows = list(rows) + [_accelerations(s.plant, result, rows, tk)]
        values = np.array([s.measured(s.value(tk[k], *(r[k] for r in rows)))
                           for k in range(tk.size)], dtype=float)
        # the channel: the latest measurement with t_k + delay <= t
        j = np.searchsorted(tk + s.delay, t + 1e-9 * max(dt, 1e-300), side="right") - 1
        shape = (t.size,) + values.shape[1:]
        ch = np.full(shape, np.nan)
        ok = j >= 0
        ch[ok] = values[j[ok]]
        channels[s.name] = ch
    units = result.info.setdefault("units", {})
    store = result.outputs if kind == "drive" else result.extra
    for s in sensors:
        store[s.name] = channels[s.name]
        units[s.name] = s.unit
    return channels


def _accelerations(arm, result, rows, tk):
    """qdd at the sampled states from the arm's equations with the result's joint
    forces (interpolated as the states are)."""
    tau = _interp(result.t, [np.asarray(result.joint_torque, dtype=float)], tk)[0] \
        if rows[0].shape[0] != result.t.size else np.asarray(result.joint_torque)
    Q = np.zeros((tk.size, arm.nq))
    Q[:, arm.joint_index] = tau
    return np.array([arm.accelerations(tt, q, qd, Qk)
                     for tt, q, qd, Qk in zip(tk, rows[0], rows[1], Q)])


__all__ = ["Accelerometer", "CurrentSensor", "Encoder", "Sensor", "StrainGauge",
           "Tachometer", "TipPosition", "TipVelocity", "quantise", "record",
           "surface_strain"]
