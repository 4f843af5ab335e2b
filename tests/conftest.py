"""Shared test configuration.

Tests marked ``@pytest.mark.pychrono`` need Project Chrono's PyChrono (the conda package
from the ``projectchrono`` channel, or a build from source); where it is absent they are
skipped with the reason given by :func:`chrono_flex.chrono._detect.pychrono_status`
(which also recognises the unrelated PyPI package named ``pychrono``).
"""

import os

# The suite runs two workers on two cores and its matrices are small (tens to a few
# hundred coordinates): BLAS threads on top of that only contend for the cores (the
# spatial-link cases took 48 s with OpenBLAS's threads and 22 s without, side by side).
# Set before numpy is first imported; a value already in the environment wins.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import pytest  # noqa: E402

from chrono_flex.chrono._detect import pychrono_status  # noqa: E402

_STATUS = None


def _status():
    global _STATUS
    if _STATUS is None:
        _STATUS = pychrono_status()
    return _STATUS


def pytest_collection_modifyitems(config, items):
    marked = [item for item in items if item.get_closest_marker("pychrono") is not None]
    if not marked:
        return
    available, message = _status()
    if available:
        return
    skip = pytest.mark.skip(reason=f"needs the real PyChrono: {message}")
    for item in marked:
        item.add_marker(skip)


@pytest.fixture
def chrono():
    """The real ``pychrono`` module (tests using it should also carry the marker)."""
    available, message = _status()
    if not available:
        pytest.skip(f"needs the real PyChrono: {message}")
    import pychrono
    return pychrono
