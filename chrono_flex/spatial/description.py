"""A spatial arm or tree as plain data: the dict (JSON- and TOML-able) that rebuilds a
SpatialArm, kept in its results (``Result.model``) and written as a model file
(docs/model-files.md, "Spatial arms and trees"). The layout, version :data:`VERSION`::

    {"kind": "spatial", "version": 1,
     "bodies": [{"type": "link", "length": 1.2, "n_elements": 4, "EI_y": ..., ...},
                {"type": "rigid", "mass": 2.0, "inertia": [[...], [...], [...]]}, ...],
     "joints": [{"type": "revolute", "axis": [0, 0, 1], ...},
                {"type": "fixed", "offset": [0.1, 0, 0], ...}, ...],
     "parents": [-1, 0, 0], "gravity": [0, 0, -9.81], "geometric_stiffening": false,
     "drives": [{"joint": 0, "type": "gear", ...DriveParams fields...}]}

Keys of a body or joint are the fields of :class:`~.params.SpatialLink`,
:class:`~.params.RigidBody`, :class:`~.params.RevoluteJoint`,
:class:`~.params.PrismaticJoint` and :class:`~.params.FixedJoint`; a drive's those of
:class:`~chrono_flex.drive.gear_drive.DriveParams` with ``joint`` the body number.
Missing keys take the classes' defaults; an unknown key is an error naming it
(``bodies[1].lenght``).
"""

from ..drive.gear_drive import GearDrive
from ..errors import ParameterError
from ..planar.description import _build, _fields_of, _list, _table, drives_from_data
from .params import FixedJoint, PrismaticJoint, RevoluteJoint, RigidBody, SpatialLink

#: The value of ``kind`` that marks a spatial arm's description.
KIND = "spatial"

#: Version of the dict layout.
VERSION = 1

BODY_TYPES = {"link": SpatialLink, "rigid": RigidBody}
JOINT_TYPES = {"revolute": RevoluteJoint, "prismatic": PrismaticJoint, "fixed": FixedJoint}

#: Top-level keys besides ``bodies`` (required), ``kind`` and ``version``.
KEYS = ("joints", "parents", "gravity", "geometric_stiffening", "drives")


def arm_to_dict(arm):
    """The plain-data description of a :class:`~.arm.SpatialArm` (its joints as given,
    before a drive's output inertia joins the hub). ParameterError for a section given as
    a callable or a drive that is not a GearDrive."""
    bodies = []
    for k, b in enumerate(arm.bodies):
        if isinstance(b, SpatialLink):
            try:
                bodies.append(dict(type="link", **b.to_dict()))
            except ParameterError as exc:
                raise ParameterError(f"bodies[{k}].{exc.parameter}", exc.value,
                                     exc.requirement) from None
        else:
            bodies.append(dict(type="rigid", mass=b.mass,
                               inertia=[list(row) for row in b.inertia]))
    joints = [dict(type=jt.kind, **_fields_of(jt)) for jt in arm.joints_given]
    drives = []
    for j, d in sorted(arm.drives.items()):
        if not isinstance(d, GearDrive):
            raise ParameterError(f"drives[{j}]", d, "cannot be described as data (only a "
                                 "GearDrive built from DriveParams can)")
        drives.append(dict(joint=int(j), type="gear", **_fields_of(d.params)))
    return {"kind": KIND, "version": VERSION, "bodies": bodies, "joints": joints,
            "parents": [int(p) for p in arm.parents],
            "gravity": [float(g) + 0.0 for g in arm.gravity],      # no -0.0
            "geometric_stiffening": bool(arm.geometric_stiffening), "drives": drives}


def arm_arguments(data):
    """SpatialArm's keyword arguments from the description ``data``; errors name the full
    key (``bodies[0].EI_y``, ``joints[1].type``, ``drives[0].joint``)."""
    data = _table("model", data)
    unknown = set(data) - set(KEYS) - {"bodies", "kind", "version"}
    if unknown:
        k = sorted(unknown)[0]
        raise ParameterError(k, data[k], "is not a key of a spatial model (known: bodies, "
                             + ", ".join(KEYS) + ", kind, version)")
    if data.get("kind", KIND) != KIND:
        raise ParameterError("kind", data["kind"], f"must be {KIND!r} for a spatial arm")
    if data.get("version", VERSION) != VERSION:
        raise ParameterError("version", data["version"], f"must be {VERSION}")
    if "bodies" not in data:
        raise ParameterError("bodies", None, "must be given: a list of bodies")
    bodies = [_typed(BODY_TYPES, f"bodies[{k}]", t, "link")
              for k, t in enumerate(_list("bodies", data["bodies"]))]
    joints = None
    if data.get("joints") is not None:
        joints = [_typed(JOINT_TYPES, f"joints[{k}]", t, "revolute")
                  for k, t in enumerate(_list("joints", data["joints"]))]
    drives = drives_from_data(data, "a body number")
    gravity = data.get("gravity", 0.0)
    return dict(bodies=bodies, joints=joints, parents=data.get("parents"),
                gravity=tuple(gravity) if isinstance(gravity, list) else gravity,
                geometric_stiffening=data.get("geometric_stiffening", False), drives=drives)


def _typed(types, where, table, default):
    """The body or joint of ``table`` by its ``type`` key (default ``default``)."""
    table = _table(where, table)
    kind = table.get("type", default)
    if kind not in types:
        raise ParameterError(f"{where}.type", kind, f"must be one of {tuple(types)}")
    return _build(types[kind], where, table, skip=("type",))


def is_spatial(data):
    """Whether the plain-data description ``data`` is a spatial arm's."""
    return isinstance(data, dict) and data.get("kind") == KIND


__all__ = ["BODY_TYPES", "JOINT_TYPES", "KIND", "VERSION", "arm_arguments", "arm_to_dict",
           "is_spatial"]
