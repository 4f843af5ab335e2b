"""Can a live Chrono window (Irrlicht or VSG) be opened here?

Both need a display and PyChrono's visualisation module. The checks never raise and never
import anything but the candidate modules, inside a guard.
"""

import importlib
import os
import sys

from ..errors import ChronoFlexError

#: Live-window modules of PyChrono, in order of preference.
LIVE_MODULES = ("pychrono.irrlicht", "pychrono.vsg")


class LiveWindowUnavailable(ChronoFlexError, RuntimeError):
    """A live 3D window cannot be opened (no display, or no PyChrono window module)."""


def _importable(name):
    """(True, "") if ``name`` imports, else (False, why)."""
    try:
        importlib.import_module(name)
    except Exception as exc:  # ImportError, OSError of a missing shared library, ...
        return False, f"{type(exc).__name__}: {exc}"
    return True, ""


def _display():
    """Name of the display, or None. macOS and Windows always have one."""
    if sys.platform in ("darwin", "win32"):
        return sys.platform
    for var in ("DISPLAY", "WAYLAND_DISPLAY"):
        if os.environ.get(var):
            return f"${var}={os.environ[var]}"
    return None


def live_modules():
    """Names of the importable live-window modules (subset of :data:`LIVE_MODULES`)."""
    return [m for m in LIVE_MODULES if _importable(m)[0]]


def live_window_available():
    """(available, reason): whether a live Chrono window can open, and why (not)."""
    display = _display()
    found, why = [], []
    for m in LIVE_MODULES:
        ok, err = _importable(m)
        (found if ok else why).append(m if ok else f"{m} ({err})")
    missing = []
    if display is None:
        missing.append("no display: $DISPLAY and $WAYLAND_DISPLAY are unset (run in a "
                       "desktop session or with ssh -X, or write a GIF/VTK instead with "
                       "chrono_flex.viz.render_animation / write_vtk_series)")
    if not found:
        missing.append("no PyChrono window module: " + "; ".join(why) + " (install PyChrono "
                       "with Irrlicht or VSG, e.g. conda install -c projectchrono pychrono)")
    if missing:
        return False, "; ".join(missing)
    return True, f"display {display}, module {found[0]}"


def require_live_window():
    """Return the name of a usable live-window module, or raise
    :class:`LiveWindowUnavailable` saying what is missing and how to get it."""
    ok, reason = live_window_available()
    if not ok:
        raise LiveWindowUnavailable(f"cannot open a live 3D window: {reason}")
    return live_modules()[0]
