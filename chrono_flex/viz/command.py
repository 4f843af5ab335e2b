"""What ``chrono-flex render CASE [--scale K] [--gif FILE] [--vtk DIR]`` writes."""

import os

from .. import _checks as ck
from .render import max_deflection_frame, render_animation, render_frame, suggest_scale
from .vtk import write_vtk_series


def render_command(result, out_dir, scale=None, gif=None, vtk=None, n_frames=100):
    """Write the pictures of a run into ``out_dir``; return the written paths.

    Always: ``<stem>_max_deflection.png`` (3D frame of largest deflection) and
    ``<stem>_plot.png`` (time histories, :func:`chrono_flex.viz.plotting.plot_result`), with
    ``stem`` the case name. ``gif``: a file name (relative names go into ``out_dir``) or
    True for ``<stem>.gif``, animated with at most ``n_frames`` frames. ``vtk``: a directory
    (relative: inside ``out_dir``) or True for ``<out_dir>/vtk``; the .pvd path is listed.
    ``scale`` None: :func:`~chrono_flex.viz.suggest_scale`. Tubes are coloured by bending
    strain when the engine gave curvature, else by |deflection|.
    """
    from .plotting import plot_result

    os.makedirs(out_dir, exist_ok=True)
    stem = str((result.info or {}).get("case") or "arm")
    scale = suggest_scale(result) if scale is None else ck.non_negative("scale", scale)
    color_by = "strain" if result.curvature is not None else "deflection"
    written = []
    png = os.path.join(out_dir, f"{stem}_max_deflection.png")
    render_frame(result, max_deflection_frame(result), scale=scale, color_by=color_by, path=png)
    written.append(png)
    if gif:
        path = os.path.join(out_dir, f"{stem}.gif" if gif is True else os.fspath(gif))
        written.append(render_animation(result, path, scale=scale, n_frames=n_frames,
                                        color_by=color_by))
    if vtk:
        directory = os.path.join(out_dir, "vtk" if vtk is True else os.fspath(vtk))
        written.append(write_vtk_series(result, directory, stem=stem))
    plot = os.path.join(out_dir, f"{stem}_plot.png")
    plot_result(result, path=plot)
    written.append(plot)
    return written
