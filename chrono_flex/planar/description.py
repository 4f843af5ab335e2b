"""An arm as plain data: the dict (JSON- and TOML-able) that rebuilds a PlanarArm.

A result keeps it beside its trajectory (``Result.model``, stored in the NPZ file) and a
model file is this dict written as TOML. The layout, version :data:`VERSION`::

    {"version": 1,
     "links": [{"length": 1.0, "n_elements": 4, "EI": ..., "rho_A": ..., ...}, ...],
     "joints": [{"type": "revolute", "hub_inertia": 0.0, ...}, ...],
     "payload": {"mass": 0.1, "inertia": 0.0},
     "hub_inertia": 0.0, "gravity": 9.81, "geometric_stiffening": false,
     "plane": {"origin": [0, 0, 0], "x_axis": [1, 0, 0], "y_axis": [0, 1, 0]},
     "drives": [{"joint": 0, "type": "gear", ...DriveParams fields...}]}

Keys of a link, joint or payload are the fields of :class:`~.params.Link`,
:class:`~.params.RevoluteJoint`, :class:`~.params.PrismaticJoint` and
:class:`~.params.Payload`; a drive's are those of
:class:`~chrono_flex.drive.gear_drive.DriveParams`. Missing keys take the classes'
defaults; an unknown key is an error that names it (``links[1].lenght``).

A varying section is data when given per element (``EI``, ``rho_A`` as lists, one value
per element; ``element_lengths`` as a list): those round-trip exactly. A section given as
a callable is not: :func:`arm_to_dict` refuses it with a ParameterError naming the key
(a result then stores no model and says why), rather than store a sampled copy that
would not rebuild the same arm. ``Link.per_element()`` makes the explicit, describable
approximation (element averages).
"""

from dataclasses import fields

import numpy as np

from ..drive.gear_drive import DriveParams, GearDrive
from ..errors import ParameterError
from .params import Link, Payload, Plane, PrismaticJoint, RevoluteJoint

#: Version of the dict layout (stored under "version").
VERSION = 1

JOINT_TYPES = {"revolute": RevoluteJoint, "prismatic": PrismaticJoint}

#: Top-level keys and their defaults (``links`` is required).
ARM_DEFAULTS = {"joints": None, "payload": None, "hub_inertia": 0.0, "gravity": 0.0,
                "geometric_stiffening": False, "plane": None, "drives": None}


def _fields_of(obj, skip=()):
    """The dataclass fields of ``obj`` as plain numbers, strings and lists (None dropped)."""
    out = {}
    for f in fields(obj):
        v = getattr(obj, f.name)
        if f.name in skip or v is None:
            continue
        out[f.name] = list(v) if isinstance(v, tuple) else v
    return out


def arm_to_dict(links, joints, payload, hub_inertia, gravity, geometric_stiffening, plane,
                drives):
    """The plain-data description of an arm from PlanarArm's arguments (joints as given,
    before a drive's output inertia joins the hub).

    ParameterError for a drive that is not a :class:`GearDrive` (no data describes it).
    """
    for k, lk in enumerate(links):
        for name in ("EI", "rho_A"):
            if callable(getattr(lk, name)):
                raise ParameterError(f"links[{k}].{name}", getattr(lk, name),
                                     "is a callable, which cannot be described as data; "
                                     "give one value per element (Link.per_element() "
                                     "averages it over each element)")
    out = {"version": VERSION,
           "links": [_fields_of(lk) for lk in links],
           "joints": [dict(type=jt.kind, **_fields_of(jt)) for jt in joints],
           "payload": _fields_of(payload),
           "hub_inertia": float(hub_inertia), "gravity": float(gravity),
           "geometric_stiffening": bool(geometric_stiffening),
           "plane": {k: list(getattr(plane, k)) for k in ("origin", "x_axis", "y_axis")},
           "drives": []}
    for j, d in sorted(drives.items()):
        if not isinstance(d, GearDrive):
            raise ParameterError(f"drives[{j}]", d, "cannot be described as data (only a "
                                 "GearDrive built from DriveParams can)")
        out["drives"].append(dict(joint=int(j), type="gear", **_fields_of(d.params)))
    return out


def _table(where, value):
    if not isinstance(value, dict):
        raise ParameterError(where, value, "must be a table of keys and values")
    return value


def _build(cls, where, table, skip=()):
    """``cls(**table)``, naming an unknown key or a rejected value by its full path."""
    table = _table(where, table)
    known = {f.name for f in fields(cls)}
    for k in table:
        if k not in known and k not in skip:
            raise ParameterError(f"{where}.{k}", table[k],
                                 f"is not a key of {where} (known: {', '.join(sorted(known))})")
    kw = {k: (tuple(v) if isinstance(v, list) else v) for k, v in table.items() if k not in skip}
    try:
        return cls(**kw)
    except ParameterError as exc:
        raise ParameterError(f"{where}.{exc.parameter}", exc.value, exc.requirement) from None


def drives_from_data(data, what="a joint number"):
    """{joint: GearDrive} from the ``drives`` list of an arm's plain data (each a table
    with ``joint``, an optional ``type = "gear"`` and DriveParams' fields);
    ParameterError naming ``drives[k]...``. ``what`` says what ``joint`` counts (a joint
    of a planar arm, a body of a spatial tree)."""
    drives = {}
    for k, t in enumerate(_list("drives", data.get("drives") or [])):
        t = _table(f"drives[{k}]", t)
        if t.get("type", "gear") != "gear":
            raise ParameterError(f"drives[{k}].type", t["type"], "must be 'gear'")
        j = t.get("joint")
        if isinstance(j, bool) or not isinstance(j, int):
            raise ParameterError(f"drives[{k}].joint", j, f"must be {what} (0-based)")
        if j in drives:
            raise ParameterError(f"drives[{k}].joint", j, "has a drive already")
        drives[j] = GearDrive(_build(DriveParams, f"drives[{k}]", t, skip=("joint", "type")))
    return drives


def _list(where, value):
    if not isinstance(value, (list, tuple)):
        raise ParameterError(where, value, "must be a list of tables")
    return list(value)


def arm_arguments(data):
    """PlanarArm's keyword arguments from the plain-data description ``data``.

    Errors name the full key (``links[0].EI``, ``joints[1].type``, ``drives[0].joint``).
    """
    data = _table("model", data)
    unknown = set(data) - set(ARM_DEFAULTS) - {"links", "version"}
    if unknown:
        k = sorted(unknown)[0]
        raise ParameterError(k, data[k], "is not a key of a model (known: links, "
                             + ", ".join(ARM_DEFAULTS) + ", version)")
    version = data.get("version", VERSION)
    if version != VERSION:
        raise ParameterError("version", version, f"must be {VERSION} (this chrono_flex reads "
                             "that layout)")
    if "links" not in data:
        raise ParameterError("links", None, "must be given: a list of links")
    links = [_build(Link, f"links[{k}]", t) for k, t in enumerate(_list("links", data["links"]))]
    joints = None
    if data.get("joints") is not None:
        joints = []
        for k, t in enumerate(_list("joints", data["joints"])):
            t = _table(f"joints[{k}]", t)
            kind = t.get("type", "revolute")
            if kind not in JOINT_TYPES:
                raise ParameterError(f"joints[{k}].type", kind,
                                     f"must be one of {tuple(JOINT_TYPES)}")
            joints.append(_build(JOINT_TYPES[kind], f"joints[{k}]", t, skip=("type",)))
    payload = None
    if data.get("payload") is not None:
        payload = _build(Payload, "payload", data["payload"])
    plane = None
    if data.get("plane") is not None:
        plane = _build(Plane, "plane", data["plane"])
    drives = drives_from_data(data, "a joint number")
    return dict(links=links, joints=joints, payload=payload,
                hub_inertia=data.get("hub_inertia", 0.0), gravity=data.get("gravity", 0.0),
                geometric_stiffening=data.get("geometric_stiffening", False), plane=plane,
                drives=drives)


#: Arguments of a run that say nothing about its result (display and callbacks).
NOT_SETTINGS = ("progress", "on_output")


def run_settings(kwargs):
    """The arguments of a run as plain data, for ``Result.info["run"]``: numbers, strings
    and lists as they are (arrays as lists); an input profile of
    :mod:`chrono_flex.inputs` as its description (``profile`` rebuilds it); any other
    callable by its name only ("<callable f>": it cannot be rebuilt from the file)."""
    out = {}
    for k, v in kwargs.items():
        if k in NOT_SETTINGS or v is None:
            continue
        if hasattr(v, "spec"):
            out[k] = v.spec
        elif callable(v):
            out[k] = f"<callable {getattr(v, '__qualname__', type(v).__name__)}>"
        elif isinstance(v, np.ndarray):
            out[k] = v.tolist()
        else:
            out[k] = v
    return out


__all__ = ["VERSION", "arm_arguments", "arm_to_dict", "run_settings"]
