"""VTK time series of the deformed centrelines for ParaView (ASCII XML, no VTK library).

One UnstructuredGrid file ``<stem>_NNNNN.vtu`` per written frame and a ``<stem>.pvd``
collection giving each file its time. In each .vtu:

    points     the deformed centreline samples of every link (world coordinates, m)
    cells      line segments (VTK_LINE) between consecutive samples of a link
    point data "deflection" (3-vector, m) = centerline - centerline_rigid,
               "deflection_magnitude" (m), "bending_strain" h/2 w'' (-),
               "curvature" w'' (1/m) (the last two when the engine filled curvature)
    cell data  "link_id" (1 = first link)

Numbers are written with 17 significant digits, so they read back bit for bit. In
ParaView, "Warp By Vector" on "deflection" with scale factor K - 1 shows the deformation
exaggerated K times, and "Tube" gives the links a thickness.
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

VTK_LINE = 3


def _ascii(a, fmt):
    """Numbers of an array as lines of ASCII text (6 per line)."""
    flat = np.asarray(a).ravel()
    rows = [" ".join(fmt % x for x in flat[i:i + 6]) for i in range(0, flat.size, 6)]
    return "\n".join(rows)


def _data_array(name, a, vtk_type, components=1, fmt="%.17g"):
    head = f'<DataArray type="{vtk_type}" Name="{name}"'
    if components > 1:
        head += f' NumberOfComponents="{components}"'
    return f'{head} format="ascii">\n{_ascii(a, fmt)}\n</DataArray>'


def frame_vtu(points, deflection, link_id_of_point, point_fields):
    """Text of one .vtu file.

    Args:
        points: (n, 3) world coordinates, m.
        deflection: (n, 3) centerline - centerline_rigid, m.
        link_id_of_point: (n,) link number (1-based) of each point; consecutive points of
            the same link are joined by a line cell.
        point_fields: dict name -> (n,) further point data (written as Float64).
    """
    n = len(points)
    same = link_id_of_point[1:] == link_id_of_point[:-1]
    start = np.nonzero(same)[0]
    conn = np.column_stack([start, start + 1])
    cell_link = link_id_of_point[start]
    nc = len(conn)
    pd = [_data_array("deflection", deflection, "Float64", 3),
          _data_array("deflection_magnitude", np.linalg.norm(deflection, axis=1), "Float64")]
    pd += [_data_array(name, v, "Float64") for name, v in point_fields.items()]
    return "\n".join([
        '<?xml version="1.0"?>',
        '<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" '
        'header_type="UInt64">',
        "<UnstructuredGrid>",
        f'<Piece NumberOfPoints="{n}" NumberOfCells="{nc}">',
        '<PointData Vectors="deflection" Scalars="deflection_magnitude">',
        *pd,
        "</PointData>",
        "<CellData>",
        _data_array("link_id", cell_link, "Int32", fmt="%d"),
        "</CellData>",
        "<Points>",
        _data_array("Points", points, "Float64", 3),
        "</Points>",
        "<Cells>",
        _data_array("connectivity", conn, "Int64", fmt="%d"),
        _data_array("offsets", 2 * np.arange(1, nc + 1), "Int64", fmt="%d"),
        _data_array("types", np.full(nc, VTK_LINE), "UInt8", fmt="%d"),
        "</Cells>",
        "</Piece>",
        "</UnstructuredGrid>",
        "</VTKFile>",
        "",
    ])


def _frame_name_pattern(stem):
    """The names of the frames of a series called ``stem``: ``<stem>_NNNNN.vtu``."""
    return re.compile(re.escape(stem) + r"_\d{5,}\.vtu")


def write_vtk_series(result, directory, stem="arm", every=1, n_frames=None):
    """Write every ``every``-th output time as a .vtu file and a .pvd collection of them
    into ``directory`` (created if needed); return the path of the .pvd.

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
            fields = {}
            if curvature is not None:
                fields["bending_strain"] = strain[k].ravel()
                fields["curvature"] = curvature[k].ravel()
            text = frame_vtu(c[k].reshape(-1, 3), (c[k] - r[k]).reshape(-1, 3), link_id, fields)
            name = f"{stem}_{k:05d}.vtu"
            with open(os.path.join(staging, name), "w") as f:
                f.write(text)
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
