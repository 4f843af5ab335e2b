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

import os
from xml.sax.saxutils import quoteattr

import numpy as np

from .. import _checks as ck
from .render import checked_centerlines

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


def write_vtk_series(result, directory, stem="arm", every=1):
    """Write every ``every``-th output time as a .vtu file and a .pvd collection of them
    into ``directory`` (created if needed); return the path of the .pvd."""
    every = ck.positive_int("every", every)
    c, r = checked_centerlines(result)
    nt, nl, ns, _ = c.shape
    os.makedirs(directory, exist_ok=True)
    link_id = np.repeat(np.arange(1, nl + 1), ns)
    curvature = None if result.curvature is None else np.asarray(result.curvature, dtype=float)
    strain = None if curvature is None else np.asarray(result.bending_strain, dtype=float)
    entries = []
    for k in range(0, nt, every):
        fields = {}
        if curvature is not None:
            fields["bending_strain"] = strain[k].ravel()
            fields["curvature"] = curvature[k].ravel()
        text = frame_vtu(c[k].reshape(-1, 3), (c[k] - r[k]).reshape(-1, 3), link_id, fields)
        name = f"{stem}_{k:05d}.vtu"
        with open(os.path.join(directory, name), "w") as f:
            f.write(text)
        entries.append(f'<DataSet timestep="{float(result.t[k])!r}" group="" part="0" '
                       f"file={quoteattr(name)}/>")
    pvd = os.path.join(directory, f"{stem}.pvd")
    with open(pvd, "w") as f:
        f.write("\n".join(['<?xml version="1.0"?>',
                           '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">',
                           "<Collection>", *entries, "</Collection>", "</VTKFile>", ""]))
    return pvd
