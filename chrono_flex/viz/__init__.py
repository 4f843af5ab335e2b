"""Seeing a run: 3D pictures and animations, VTK time series for ParaView, and the check
for a live Chrono window.

    render_frame(result, k)            one 3D frame -> Figure (PNG with path=)
    render_animation(result, path)     GIF (Pillow) or MP4 (ffmpeg)
    write_vtk_series(result, dir)      .vtu per frame + .pvd collection -> .pvd path
    suggest_scale(result)              exaggeration showing the max deflection ~10 % of the arm
    live_window_available()            (bool, reason) for Irrlicht/VSG windows

The interactive PyVista viewer (the optional ``viz`` extra) is :mod:`chrono_flex.viz.viewer`,
imported on use only.
"""

from .command import render_command
from ..chrono.window import live_window_available, require_live_window
from .render import render_animation, render_frame, suggest_scale
from .vtk import write_vtk_series

__all__ = ["render_frame", "render_animation", "write_vtk_series", "suggest_scale",
           "live_window_available", "require_live_window", "render_command"]
