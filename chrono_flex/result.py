"""One trajectory type for every engine (reference, Chrono custom element, Chrono beams).

Shapes use nt = number of output times, nq = generalized coordinates, nj = joints,
nl = links, ns = centreline samples per link.
"""

from dataclasses import dataclass, field
import csv
import json
import re
import os
import zipfile
import zlib

import numpy as np

from ._files import atomic_write
from .errors import ParameterError
from .planar.params import Plane


#: The array attributes of :class:`Result` that :meth:`Result.to_npz` stores as they are.
ARRAY_FIELDS = ("q", "qd", "joint_angles", "joint_rates", "tip_position", "tip_deflection",
                "joint_torque", "centerline", "centerline_rigid", "curvature",
                "link_thickness")


def _plain(value):
    """``value`` with numpy scalars and arrays as Python numbers and lists, tuples as
    lists, dict keys as strings: what :func:`json.dumps` writes. Anything else is
    written as its ``repr`` (a note in ``info`` stays readable rather than lost)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


class _NotResult(Exception):
    """What makes a file not a result file (:meth:`Result.from_npz`)."""


@dataclass
class Energy:
    """Energy bookkeeping along a trajectory (J, arrays of length nt).

    ``input_work`` is the work done by joint torques/forces (and drives) since t0;
    ``dissipated`` the energy removed by structural damping and friction since t0.
    The balance kinetic + elastic + gravity - input_work + dissipated is constant for an
    exact solution; :attr:`balance_error` is its drift from the initial value.
    """

    kinetic: np.ndarray
    elastic: np.ndarray
    gravity: np.ndarray
    input_work: np.ndarray
    dissipated: np.ndarray

    @property
    def mechanical(self):
        """Kinetic + elastic + gravitational potential energy."""
        return self.kinetic + self.elastic + self.gravity

    @property
    def balance(self):
        return self.mechanical - self.input_work + self.dissipated

    @property
    def balance_error(self):
        b = self.balance
        return b - b[0]


@dataclass
class Result:
    """A simulated trajectory of a flexible-link arm.

    Attributes:
        t: times, s (nt,).
        q, qd: generalized coordinates and their rates (nt, nq); the layout is
            [joint_1, elastic_1..., joint_2, elastic_2..., ...] (docs/planar-link.md eq. (1.7)).
            Engines whose coordinates differ (Chrono beams) fill what they can and say
            so in ``info["coordinates"]``.
        joint_angles, joint_rates: joint coordinates (rad, or m for a prismatic joint)
            and rates (nt, nj).
        tip_position: end-effector position, m: in the arm plane (nt, 2), or in space
            (nt, 3) for a spatial arm (the CSV's tip_z).
        tip_deflection: transverse tip deflection of each link in its own floating
            frame (tangent to the root), m (nt, nl).
        energy: :class:`Energy`, or None where an engine cannot compute it.
        joint_torque: torque (N m) or force (N) applied at each joint (nt, nj).
        centerline: deformed centreline of each link in world coordinates (nt, nl, ns, 3).
        centerline_rigid: the same links with zero elastic deformation (nt, nl, ns, 3).
        curvature: bending curvature w'' along each link, 1/m (nt, nl, ns).
        plane: the arm plane in 3D (None for a spatial arm).
        link_thickness: section height of each link (nl,), m (drawing and strain).
        extra: further named series (drive currents, LuGre z, sensor channels), each
            (nt, ...); ``info["units"]`` maps a channel's name to its unit (the CSV
            header writes it as "name [unit]").
        info: engine name, method and settings, case name, solver statistics, wall
            time, notes; ``info["run"]``: the arguments of the run as data (input
            profiles of :mod:`chrono_flex.inputs` as their description).
        model: the arm that ran, as plain data (its ``to_dict()``; rebuild any kind,
            planar, spatial or RRRP, with ``chrono_flex.arm_from_dict(res.model)``), or
            None where the engine gave none.

    :meth:`to_npz` keeps all of it (``info`` and ``model`` as JSON inside the file) and
    :meth:`from_npz` reads it back.
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    joint_angles: np.ndarray
    joint_rates: np.ndarray
    tip_position: np.ndarray
    tip_deflection: np.ndarray
    energy: Energy = None
    joint_torque: np.ndarray = None
    centerline: np.ndarray = None
    centerline_rigid: np.ndarray = None
    curvature: np.ndarray = None
    plane: Plane = field(default_factory=Plane)
    link_thickness: np.ndarray = None
    extra: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)
    model: dict = None

    def __repr__(self):
        method = self.info.get("method") or self.info.get("timestepper")
        engine = f"{self.engine} ({method})" if method else self.engine
        tip = ", ".join(f"{1e3 * w:+.4g}" for w in self.tip_deflection[-1])
        return (f"<Result {self.title!r} on {engine}: t = {self.t[0]:.4g} .. "
                f"{self.t[-1]:.4g} s, {self.t.size} samples, nq = {self.q.shape[1]}, "
                f"final tip deflection [{tip}] mm>")

    @property
    def title(self):
        """A short name for figures and listings: the case's name, else the arm's links
        and joints ("2-link revolute-revolute arm", "spatial arm, 2 links", "RRRP arm")."""
        if self.info.get("case"):
            return str(self.info["case"])
        kind = (self.model or {}).get("kind")
        if kind in ("rrrp", "spatial"):
            n = self.n_links
            return "RRRP arm" if kind == "rrrp" else f"spatial arm, {n} link{'s' * (n != 1)}"
        if self.model is not None and self.model.get("joints"):
            kinds = "-".join(j.get("type", "revolute") for j in self.model["joints"])
            return f"{self.n_links}-link {kinds} arm"
        return f"{self.n_links}-link arm"

    @property
    def joint_kinds(self):
        """"revolute" or "prismatic" for each joint of ``joint_angles``, from the model
        (its fixed joints left out; the RRRP arm's fourth joint slides)."""
        model = self.model or {}
        kinds = (["revolute"] * 3 + ["prismatic"] if model.get("kind") == "rrrp" else
                 [str(j.get("type", "")) for j in model.get("joints") or ()
                  if j.get("type") != "fixed"])
        return ["prismatic" if j < len(kinds) and "prismatic" in kinds[j] else "revolute"
                for j in range(self.joint_angles.shape[1])]

    @property
    def n_links(self):
        return self.tip_deflection.shape[1]

    @property
    def engine(self):
        return self.info.get("engine", "?")

    @property
    def bending_strain(self):
        """Surface bending strain h/2 * w'' (nt, nl, ns), from ``curvature``."""
        if self.curvature is None:
            return None
        h = np.ones(self.n_links) if self.link_thickness is None else np.asarray(self.link_thickness)
        return self.curvature * (0.5 * h)[None, :, None]

    def series(self):
        """Flat dict name -> 1-D array of everything that varies in time (for export)."""
        cols = {"t": self.t}
        nj = self.joint_angles.shape[1]
        for j in range(nj):
            cols[f"joint{j + 1}"] = self.joint_angles[:, j]
            cols[f"joint{j + 1}_rate"] = self.joint_rates[:, j]
            if self.joint_torque is not None:
                cols[f"joint{j + 1}_torque"] = self.joint_torque[:, j]
        for i in range(self.n_links):
            cols[f"tip_deflection{i + 1}"] = self.tip_deflection[:, i]
        for k, axis in enumerate("xyz"[:self.tip_position.shape[1]]):   # z: a spatial arm
            cols[f"tip_{axis}"] = self.tip_position[:, k]
        if self.energy is not None:
            for k in ("kinetic", "elastic", "gravity", "input_work", "dissipated"):
                cols[f"energy_{k}"] = getattr(self.energy, k)
        for k in range(self.q.shape[1]):
            cols[f"q{k}"] = self.q[:, k]
        for k in range(self.qd.shape[1]):
            cols[f"qd{k}"] = self.qd[:, k]
        for name, arr in self.extra.items():
            arr = np.asarray(arr)
            if arr.ndim == 1 and arr.shape[0] == self.t.shape[0]:
                cols[name] = arr
            elif arr.ndim == 2 and arr.shape[0] == self.t.shape[0]:
                for k in range(arr.shape[1]):
                    cols[f"{name}{k}"] = arr[:, k]
        return cols

    def units(self):
        """The unit of every column of :meth:`series`, as a dict name -> unit (SI): joint
        coordinates rad (m for a prismatic joint), torques N m (N), energies J, the
        generalized coordinates from ``info["coordinate_units"]``, a drive's states from
        ``info["extra_units"]`` (one unit for all components of a series, or one per
        component), sensor channels from ``info["units"]``; "?" where the engine
        declared none."""
        prismatic = [k == "prismatic" for k in self.joint_kinds]
        q_units = list(self.info.get("coordinate_units") or ())
        extra_units = self.info.get("extra_units") or {}
        units = {}
        for name in self.series():
            if name == "t":
                u = "s"
            elif re.fullmatch(r"joint\d+(_rate|_torque)?", name):
                j = int(re.match(r"joint(\d+)", name).group(1)) - 1
                base = "m" if j < len(prismatic) and prismatic[j] else "rad"
                u = {"rate": f"{base}/s", "torque": "N" if base == "m" else "N m"}.get(
                    name.rpartition("_")[2] if "_" in name else "", base)
            elif name.startswith(("tip_deflection", "tip_x", "tip_y", "tip_z")):
                u = "m"
            elif name.startswith("energy_"):
                u = "J"
            elif name[:1] == "q" and name[1:].isdigit() or name[:2] == "qd" and name[2:].isdigit():
                k = int(name.lstrip("qd"))
                u = q_units[k] if k < len(q_units) else "?"
                u = f"{u}/s" if name.startswith("qd") and u != "?" else u
            else:
                u = "?"
                for stem, us in extra_units.items():
                    if name == stem and isinstance(us, str):
                        u = us
                    elif name.startswith(stem) and name[len(stem):].isdigit():
                        k = int(name[len(stem):])
                        u = us if isinstance(us, str) else us[k] if k < len(us) else "?"
            units[name] = u
        # sensor channels (chrono_flex.control.record) name their own units
        channels = self.info.get("units") or {}
        for name in units:
            u = channels.get(name, channels.get(name.rstrip("0123456789")))
            if isinstance(u, str):
                units[name] = u
        return units

    def to_csv(self, path):
        """Write the time series to a CSV file at ``path`` (atomically: a failed write
        leaves an existing file as it was); return ``path``. The first row names the
        columns, the second gives their units (:meth:`units`), then one row per output
        time (numbers with 17 significant digits, exact on reading back). pandas reads
        it with ``pandas.read_csv(path, skiprows=[1])``, numpy with
        ``numpy.loadtxt(path, delimiter=",", skiprows=2)``."""
        cols = self.series()
        names = list(cols)
        units = self.units()
        data = np.column_stack([np.asarray(cols[n], dtype=float) for n in names])
        with atomic_write(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(names)
            w.writerow([units[n] for n in names])
            for row in data:
                w.writerow([repr(float(v)) for v in row])
        return path

    def to_npz(self, path):
        """Write every array (including centrelines and ``extra``), ``info`` and ``model``
        (as JSON text) to a compressed NPZ file at exactly ``path`` (no ".npz" is
        appended; atomically, as :meth:`to_csv`); return ``path``."""
        arrays = {k: np.asarray(v) for k, v in self.series().items()}
        for k in ARRAY_FIELDS:
            v = getattr(self, k)
            if v is not None:
                arrays[f"array_{k}"] = np.asarray(v)
        for name, v in self.extra.items():
            arrays[f"extra_{name}"] = np.asarray(v)
        if self.plane is not None:                      # None: a spatial arm's result
            arrays["plane"] = np.array([self.plane.origin, self.plane.x_axis, self.plane.y_axis])
        meta = {"info": self.info, "model": self.model, "extra": list(self.extra)}
        arrays["meta_json"] = np.array(json.dumps(_plain(meta)))
        with atomic_write(path, "wb") as f:
            np.savez_compressed(f, **arrays)
        return path

    @classmethod
    def from_npz(cls, path, info=None):
        """Read back a file written by :meth:`to_npz`: arrays, ``extra``, ``info`` (updated
        with the ``info`` given here) and ``model``. Files written before ``info`` and
        ``model`` were stored read with ``info`` as given and ``model`` None."""
        with open(path, "rb") as f:         # missing or unreadable: names the path
            head = f.read(4)
        try:
            if head != b"PK\x03\x04":
                raise _NotResult("it is not an NPZ (zip) archive")
            return cls._read_npz(path, info)
        except Exception as exc:  # noqa: BLE001 - a damaged or foreign file: one error
            if isinstance(exc, _NotResult):
                what = str(exc)
            elif isinstance(exc, (zipfile.BadZipFile, EOFError, zlib.error)):
                what = f"it is damaged or truncated ({exc})"
            elif isinstance(exc, ValueError) and "pickle" in str(exc):
                what = "it holds Python objects (pickled data), which are never loaded"
            else:
                what = f"{type(exc).__name__}: {exc}"
            raise ParameterError("path", os.fspath(path), f"is not a result file written "
                                 f"by Result.to_npz: {what}") from None

    @classmethod
    def _read_npz(cls, path, info):
        with np.load(path, allow_pickle=False) as d:
            for k in ("t",):                 # a spatial result has no plane
                if k not in d:
                    raise _NotResult(f"it has no `{k}` array (a foreign NPZ file?)")
            get = lambda k: d[f"array_{k}"] if f"array_{k}" in d else None  # noqa: E731
            energy = None
            if "energy_kinetic" in d:
                energy = Energy(*(d[f"energy_{k}"] for k in
                                  ("kinetic", "elastic", "gravity", "input_work", "dissipated")))
            meta = json.loads(str(d["meta_json"])) if "meta_json" in d else {}
            extra = {name: d[f"extra_{name}"] for name in meta.get("extra", ())}
            p = d["plane"] if "plane" in d else None
            arrays = {k: get(k) for k in ARRAY_FIELDS}
            t = d["t"]
        return cls(t=t, energy=energy,
                   plane=None if p is None else Plane(tuple(p[0]), tuple(p[1]), tuple(p[2])),
                   extra=extra, info={**meta.get("info", {}), **(info or {})},
                   model=meta.get("model"), **arrays)

    def save(self, directory, stem="trajectory"):
        """Write CSV and NPZ into ``directory``; return their paths."""
        os.makedirs(directory, exist_ok=True)
        return (self.to_csv(os.path.join(directory, stem + ".csv")),
                self.to_npz(os.path.join(directory, stem + ".npz")))

    def plot(self, path=None, title=None, others=(), labels=None):
        """Joint coordinates, tip deflections, energies and joint torques in one figure
        (matplotlib; the panels the run has, :mod:`chrono_flex.viz.plotting`), with the
        results ``others`` overlaid (``labels``: one per result, this one first).

        Returns the figure; saves it to ``path`` when given (format from the suffix:
        PNG, PDF, SVG).
        """
        from .viz.plotting import plot_result

        return plot_result(self, path=path, title=title, others=others, labels=labels)

    def summary(self):
        """A few lines describing the run (printed by the CLI)."""
        lines = [f"engine: {self.engine}   t = {self.t[0]:.4g} .. {self.t[-1]:.4g} s   "
                 f"{len(self.t)} output points"]
        for j in range(self.joint_angles.shape[1]):
            lines.append(f"joint {j + 1}: start {self.joint_angles[0, j]:+.6g}  "
                         f"end {self.joint_angles[-1, j]:+.6g}")
        for i in range(self.n_links):
            d = self.tip_deflection[:, i]
            lines.append(f"link {i + 1}: tip deflection max |w| = {np.max(np.abs(d)):.4e} m, "
                         f"end {d[-1]:+.4e} m")
        if self.energy is not None:
            e = self.energy
            lines.append(f"energy: mechanical start {e.mechanical[0]:.6g} J, end "
                         f"{e.mechanical[-1]:.6g} J; balance drift max "
                         f"{np.max(np.abs(e.balance_error)):.3e} J")
        for k in ("method", "rtol", "step", "wall_time", "nfev", "solver"):
            if k in self.info:
                lines.append(f"{k}: {self.info[k]}")
        return "\n".join(lines)


class SeriesFiles:
    """``to_csv``, ``to_npz`` and ``from_npz`` for a result made of named series of one
    length (:meth:`columns`, each (nt,)) and plain data (:meth:`meta`: JSON-able); a
    class using it rebuilds itself in :meth:`from_parts`. The files are laid out as
    :class:`Result`'s: the CSV's first row names the columns, the second gives their
    units (:meth:`units`), then one row per sample; the NPZ holds each column and the
    meta data as JSON."""

    def columns(self):
        raise NotImplementedError

    def meta(self):
        raise NotImplementedError

    def units(self):
        return {}

    @classmethod
    def from_parts(cls, columns, meta):
        raise NotImplementedError

    def to_csv(self, path):
        """Write :meth:`columns` to a CSV file at ``path`` (atomically); return ``path``."""
        cols, units = self.columns(), self.units()
        data = np.column_stack([np.asarray(v, dtype=float) for v in cols.values()])
        with atomic_write(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(list(cols))
            w.writerow([units.get(n, "") for n in cols])
            for row in data:
                w.writerow([repr(float(v)) for v in row])
        return path

    def to_npz(self, path):
        """Write the columns and the meta data (JSON) to a compressed NPZ file at
        ``path`` (atomically); :meth:`from_npz` reads it back. Returns ``path``."""
        cols = self.columns()
        arrays = {f"col_{k}": np.asarray(v) for k, v in cols.items()}
        arrays["meta_json"] = np.array(json.dumps(_plain({"columns": list(cols),
                                                          "meta": self.meta()})))
        with atomic_write(path, "wb") as f:
            np.savez_compressed(f, **arrays)
        return path

    @classmethod
    def from_npz(cls, path):
        """The result written by :meth:`to_npz` at ``path``; ParameterError naming the
        path for a file that is not one."""
        try:
            with np.load(path, allow_pickle=False) as d:
                head = json.loads(str(d["meta_json"]))
                cols = {k: d[f"col_{k}"] for k in head["columns"]}
            return cls.from_parts(cols, head["meta"])
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            raise ParameterError("path", os.fspath(path), f"is not a file written by "
                                 f"{cls.__name__}.to_npz ({type(exc).__name__}: {exc})") \
                from None


def plot(results, labels=None, path=None, title=None):
    """One figure of several results overlaid (``chrono_flex.plot([res1, res2],
    labels=["Radau", "generalized-alpha"], path="compare.pdf")``): the same panels as
    :meth:`Result.plot`, a line style per result. Returns the Figure."""
    from .viz.plotting import plot_results

    return plot_results(results, labels=labels, path=path, title=title)
