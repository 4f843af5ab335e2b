"""VTK time series of the deformed centrelines for ParaView: binary, zlib-compressed XML
files written by meshio.

One UnstructuredGrid file ``<stem>_NNNNN.vtu`` per written frame and a ``<stem>.pvd``
collection giving each file its time. In each .vtu:

    points     the deformed centreline samples of every link (world coordinates, m)
    cells      line segments (VTK_LINE) between consecutive samples of a link
    point data "deflection" (3-vector, m) = centerline - centerline_rigid, and
               "bending_strain" h/2 w'' (-) when the engine filled curvature;
               with ``fields="all"`` also "deflection_magnitude" (m) and "curvature"
               w'' (1/m)
    cell data  "link_id" (1 = first link)

The two fields of ``"all"`` are derived: ParaView shows the magnitude of any vector
(colour by "deflection", Magnitude), and the curvature is 2/h times the bending strain
(h the link's section height, ``Link.thickness``); the run's NPZ file holds both. The
default ``fields="essential"`` leaves them out.

Coordinates and point data are stored as Float32 (seven significant digits: 0.1 um on
a 1 m arm, far below what a picture shows or the model holds; VTK and ParaView use the
same precision for points by default), binary and zlib-compressed, the connectivity as
Int32. The series of ``chrono-flex render bien-2link --vtk`` (100 frames) takes 3.1
times less space than the same frames written as 17-digit text with all four fields
(2.5 times with ``fields="all"``); what is left per frame is mostly the XML markup and
the float32 mantissas, which do not compress. The exact numbers of a run are in its NPZ
file. In ParaView, "Warp By Vector" on "deflection" with scale factor K - 1 shows the
deformation exaggerated K times, and "Tube" gives the links a thickness.
"""

import contextlib
import os
import re
import shutil
import tempfile
from xml.sax.saxutils import quoteattr

import numpy as np

from .. import _checks as ck
from .. import _files
from ..errors import ParameterError
from .render import animation_frames, checked_centerlines


def frame_vtu(points, deflection, link_id_of_point, point_fields, magnitude=False):
    """The mesh of one .vtu file (a :class:`meshio.Mesh`).

    Args:
        points: (n, 3) world coordinates, m.
        deflection: (n, 3) centerline - centerline_rigid, m.
        link_id_of_point: (n,) link number (1-based) of each point; consecutive points of
            the same link are joined by a line cell.
        point_fields: dict name -> (n,) further point data.
        magnitude: also the point data "deflection_magnitude" = |deflection|.

    Points and point data are rounded to float32 (see the module).
    """
    import meshio

    deflection = np.asarray(deflection, dtype=float)
    f32 = np.float32
    same = link_id_of_point[1:] == link_id_of_point[:-1]
    start = np.nonzero(same)[0]
    conn = np.column_stack([start, start + 1]).astype(np.int32)
    point_data = {"deflection": deflection.astype(f32)}
    if magnitude:
        point_data["deflection_magnitude"] = np.linalg.norm(deflection, axis=1).astype(f32)
    point_data.update({name: np.asarray(v, dtype=f32) for name, v in point_fields.items()})
    return meshio.Mesh(np.asarray(points, dtype=f32), [("line", conn)],
                       point_data=point_data,
                       cell_data={"link_id": [link_id_of_point[start].astype(np.int32)]})


def write_vtu(path, mesh):
    """Write ``mesh`` (from :func:`frame_vtu`) to ``path`` as binary, zlib-compressed
    VTK XML."""
    import meshio

    meshio.write(path, mesh, file_format="vtu", binary=True, compression="zlib")


def _frame_name_pattern(stem):
    """The names of the frames of a series called ``stem``: ``<stem>_NNNNN.vtu``."""
    return re.compile(re.escape(stem) + r"_\d{5,}\.vtu")


#: The point-data choices of :func:`write_vtk_series`.
VTK_FIELDS = ("essential", "all")


def write_vtk_series(result, directory, stem="arm", every=1, n_frames=None,
                     fields="essential"):
    """Write every ``every``-th output time as a .vtu file and a .pvd collection of them
    into ``directory`` (created if needed); return the path of the .pvd.

    ``fields``: "essential" (deflection, bending strain) or "all" (also the deflection's
    magnitude and the curvature, which are derived from them: see the module).

    ``n_frames`` instead of ``every``: that many frames evenly spread over the run, first
    and last output included (the frames of an animation with ``n_frames``; fewer only
    when the run has fewer output times).

    The series is written as a whole or not at all: the frames go to a hidden staging
    directory first, and only when every frame is written are they moved into
    ``directory`` and the .pvd replaced (atomically), so a failure part-way leaves the
    previous series as it was and no .vtu without its .pvd. Frames of an earlier series
    of the same ``stem`` that the new one does not overwrite (``<stem>_NNNNN.vtu`` of
    a longer run) are removed; other files are left alone.
    """
    every = ck.positive_int("every", every)
    if n_frames is not None:
        n_frames = ck.positive_int("n_frames", n_frames)
    if n_frames is not None and every != 1:
        raise ParameterError("every", every, "must be 1 when n_frames is given (n_frames "
                                             "chooses the frames)")
    fields = ck.choice("fields", fields, VTK_FIELDS)
    stem = str(stem)
    if not stem or os.sep in stem or (os.altsep and os.altsep in stem):
        raise ParameterError("stem", stem, "must be a plain file name stem")
    c, r = checked_centerlines(result)
    nt, nl, ns, _ = c.shape
    os.makedirs(directory, exist_ok=True)
    link_id = np.repeat(np.arange(1, nl + 1), ns)
    curvature = None if result.curvature is None else np.asarray(result.curvature, dtype=float)
    strain = None if curvature is None else np.asarray(result.bending_strain, dtype=float)
    entries, names = [], []
    staging = tempfile.mkdtemp(dir=directory, prefix=f".{stem[:40]}.vtk-")
    try:
        frames = range(0, nt, every) if n_frames is None else animation_frames(nt, n_frames)
        for k in map(int, frames):
            extra = {}
            if curvature is not None:
                extra["bending_strain"] = strain[k].ravel()
                if fields == "all":
                    extra["curvature"] = curvature[k].ravel()
            mesh = frame_vtu(c[k].reshape(-1, 3), (c[k] - r[k]).reshape(-1, 3), link_id, extra,
                             magnitude=fields == "all")
            name = f"{stem}_{k:05d}.vtu"
            write_vtu(os.path.join(staging, name), mesh)
            names.append(name)
            entries.append(f'<DataSet timestep="{float(result.t[k])!r}" group="" part="0" '
                           f"file={quoteattr(name)}/>")
        pvd_text = "\n".join(['<?xml version="1.0"?>',
                              '<VTKFile type="Collection" version="0.1" '
                              'byte_order="LittleEndian">',
                              "<Collection>", *entries, "</Collection>", "</VTKFile>", ""])
        pvd = os.path.join(directory, f"{stem}.pvd")
        mode = _files.new_file_mode(pvd)
        for name in names:
            os.chmod(os.path.join(staging, name), mode)
            os.replace(os.path.join(staging, name), os.path.join(directory, name))
        with _files.atomic_write(pvd, "w") as f:
            f.write(pvd_text)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    pattern, keep = _frame_name_pattern(stem), set(names)
    for old in os.listdir(directory):
        if pattern.fullmatch(old) and old not in keep:
            with contextlib.suppress(OSError):
                os.remove(os.path.join(directory, old))
    return pvd
