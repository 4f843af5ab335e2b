"""Find the real PyChrono, lazily, and say clearly when it is not there.

Two things can go wrong. PyChrono may be missing (it is not on PyPI: it comes from the
``projectchrono`` conda channel or from a build of Chrono with ``CH_ENABLE_MODULE_PYTHON``).
Or ``import pychrono`` may find the *unrelated* PyPI package of the same name, which
has nothing of Chrono in it. Both raise :class:`~chrono_flex.errors.PyChronoUnavailable`
with a message that names what was found and how to get the real one.

A real PyChrono exposes the core classes (``ChSystemNSC``, ``ChBody``, ...) at the top
of the package, because its ``__init__`` does ``from .core import *``. A source build
is a plain directory (``<build>/bin/pychrono``) with no distribution metadata; a conda
install may have metadata. The unrelated PyPI package always does, so its metadata is
only used to explain the failure, never to accept a module.
"""

import importlib
import importlib.metadata

from ..errors import PyChronoUnavailable

#: Attributes a real PyChrono (10.x) has at the top level of ``pychrono``.
REQUIRED_ATTRIBUTES = ("ChSystemNSC", "ChBody", "ChShaft", "ChLoadCustomMultiple",
                       "ChLoadContainer", "ChVector3d")

HOW_TO_GET_IT = (
    "Get Project Chrono's PyChrono (not the unrelated PyPI package of the same name): "
    "`conda install -c projectchrono pychrono`, or build Chrono from source with "
    "CH_ENABLE_MODULE_PYTHON=ON and put the build's bin directory (the one holding "
    "the `pychrono` package) on PYTHONPATH. `pip install pychrono` does NOT give it."
)


def _found_description(module):
    """Say what ``import pychrono`` found: its file and any distribution metadata."""
    where = getattr(module, "__file__", None) or "<no __file__>"
    try:
        dist = importlib.metadata.distribution("pychrono")
    except importlib.metadata.PackageNotFoundError:
        return f"a module `pychrono` at {where} (no distribution metadata)"
    summary = (dist.metadata.get("Summary") or "").strip()
    described = f" ({summary})" if summary else ""
    return (f"a module `pychrono` at {where}, from the installed distribution "
            f"pychrono {dist.version}{described}")


def _load():
    """Return (module or None, message)."""
    try:
        module = importlib.import_module("pychrono")
    except ImportError as exc:
        return None, f"PyChrono is not importable ({exc}). {HOW_TO_GET_IT}"
    missing = [name for name in REQUIRED_ATTRIBUTES if not hasattr(module, name)]
    if missing:
        return None, (f"`import pychrono` found {_found_description(module)}, which is not "
                      f"Project Chrono's PyChrono: it lacks {', '.join(missing)}. "
                      f"{HOW_TO_GET_IT}")
    return module, f"Project Chrono's PyChrono at {getattr(module, '__file__', '?')}"


def pychrono_status():
    """Return ``(available, message)`` without raising.

    ``message`` says where the real PyChrono was found, or why it was not and how to get it.
    """
    module, message = _load()
    return module is not None, message


def require_pychrono():
    """Return the real ``pychrono`` module, or raise :class:`PyChronoUnavailable`.

    The import happens here, on first use: nothing outside :mod:`chrono_flex.chrono`
    imports PyChrono, and importing :mod:`chrono_flex` never needs it.
    """
    module, message = _load()
    if module is None:
        raise PyChronoUnavailable(message)
    return module


def require_fea():
    """Return ``pychrono.fea`` (Chrono's finite elements), or raise PyChronoUnavailable."""
    require_pychrono()
    try:
        return importlib.import_module("pychrono.fea")
    except ImportError as exc:
        raise PyChronoUnavailable(
            f"PyChrono was found but its FEA module is not ({exc}); build Chrono with "
            f"the FEA module, or install the conda package, which has it. "
            f"{HOW_TO_GET_IT}") from exc


__all__ = ["pychrono_status", "require_pychrono", "require_fea", "HOW_TO_GET_IT"]
