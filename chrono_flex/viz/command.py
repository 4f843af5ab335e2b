"""What ``chrono-flex render CASE [--scale K] [--gif FILE] [--vtk DIR]`` writes."""

import os

from .. import _checks as ck
from .render import max_deflection_frame, render_animation, render_frame, suggest_scale
from .vtk import write_vtk_series


def planned_outputs(out_dir, stem, gif=None, vtk=None):
    """The paths :func:`render_command` writes for a run named ``stem``, as a dict:
    "frame" (3D PNG), "gif" (or None), "vtk" (the directory, or None), "pvd" (or None),
    "plot" (PNG); the command line checks them before the run starts. A ``gif`` or ``vtk``
    given as a path is taken as it is (a relative one from the current directory, as any
    path on a command line); True puts it into ``out_dir``."""
    out_dir = os.fspath(out_dir)
    vtk_dir = None if not vtk else (os.path.join(out_dir, "vtk") if vtk is True
                                    else os.fspath(vtk))
    return {
        "frame": os.path.join(out_dir, f"{stem}_max_deflection.png"),
        "gif": (os.path.join(out_dir, f"{stem}.gif") if gif is True else os.fspath(gif))
               if gif else None,
        "vtk": vtk_dir,
        "pvd": None if vtk_dir is None else os.path.join(vtk_dir, f"{stem}.pvd"),
        "plot": os.path.join(out_dir, f"{stem}_plot.png"),
    }


def render_command(result, out_dir, scale=None, gif=None, vtk=None, n_frames=100,
                   vtk_fields="essential"):
    """Write the pictures of a run into ``out_dir``; return the written paths.

    Always: ``<stem>_max_deflection.png`` (3D frame of largest deflection) and
    ``<stem>_plot.png`` (time histories, :func:`chrono_flex.viz.plotting.plot_result`), with
    ``stem`` the case name. ``gif``: a file path (a relative one from the current directory)
    or True for ``<out_dir>/<stem>.gif``, animated with at most ``n_frames`` frames.
    ``vtk``: a directory (relative: from the current directory) or True for
    ``<out_dir>/vtk``; the .pvd path is listed; ``vtk_fields`` its point data
    (:func:`~chrono_flex.viz.write_vtk_series`'s ``fields``).
    ``scale`` None: :func:`~chrono_flex.viz.suggest_scale`. Tubes are coloured by bending
    strain when the engine gave curvature, else by |deflection|. Every file is written
    atomically (an existing one is replaced only by a complete new one).
    """
    from .plotting import plot_result

    os.makedirs(out_dir, exist_ok=True)
    stem = str((result.info or {}).get("case") or "arm")
    paths = planned_outputs(out_dir, stem, gif, vtk)
    scale = suggest_scale(result) if scale is None else ck.non_negative("scale", scale)
    color_by = "strain" if result.curvature is not None else "deflection"
    written = []
    render_frame(result, max_deflection_frame(result), scale=scale, color_by=color_by,
                 path=paths["frame"])
    written.append(paths["frame"])
    if paths["gif"]:
        written.append(render_animation(result, paths["gif"], scale=scale, n_frames=n_frames,
                                        color_by=color_by))
    if paths["vtk"]:
        written.append(write_vtk_series(result, paths["vtk"], stem=stem, n_frames=n_frames,
                                        fields=vtk_fields))
    plot_result(result, path=paths["plot"])
    written.append(paths["plot"])
    return written
