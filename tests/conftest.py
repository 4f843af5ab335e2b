"""Shared test configuration.

Tests marked ``@pytest.mark.pychrono`` need Project Chrono's PyChrono (the conda package
from the ``projectchrono`` channel, or a build from source); where it is absent they are
skipped with the reason given by :func:`chrono_flex.chrono._detect.pychrono_status`
(which also recognises the unrelated PyPI package named ``pychrono``).

Under CI (the environment variable ``CI`` set to a true value) such a skip is a failure:
``.ci/run`` builds PyChrono from the vendored source when it is absent
(``scripts/build-pychrono.sh``), so a Chrono test that cannot run there means a broken
set-up, not a machine without Chrono.
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


def _start_order(item):
    """0 for a test marked ``slow``, 1 for the rest (a stable sort keeps the order within
    each)."""
    return 0 if item.get_closest_marker("slow") is not None else 1


def pytest_collection_modifyitems(config, items):
    # Long tests first: pytest-xdist's workers take the tests in this order, and a long
    # test taken near the end keeps one worker busy while the other has finished (the
    # many short tests at the end then even out the two workers). A test is marked slow
    # where it takes tens of seconds; the mark is not put on a test whose module-scoped
    # fixture its neighbours share, which the reordering would set up twice.
    items.sort(key=_start_order)
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


_NEEDS_PYCHRONO = "needs the real PyChrono"


def _under_ci():
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not (report.skipped and _under_ci()):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if _NEEDS_PYCHRONO in reason:
        report.outcome = "failed"
        report.longrepr = (f"under CI every test that needs PyChrono must run, and this one "
                           f"skipped ({reason}); .ci/run builds PyChrono with "
                           f"scripts/build-pychrono.sh when it is absent")
