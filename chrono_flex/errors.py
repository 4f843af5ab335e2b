"""Exceptions raised by chrono_flex.

Every error about user input names the parameter and the offending value; numerical
trouble during a run is reported as :class:`SimulationError` with the time and cause.
"""


class ChronoFlexError(Exception):
    """Base class of all chrono_flex errors."""


class ParameterError(ChronoFlexError, ValueError):
    """A parameter has an invalid value, type or shape.

    ``parameter`` holds the parameter's name and ``value`` the value that was given.
    """

    def __init__(self, parameter, value, requirement):
        self.parameter = parameter
        self.value = value
        self.requirement = requirement
        super().__init__(f"`{parameter}` {requirement}, got {value!r}")


class ModelFileError(ParameterError):
    """A model file is not valid TOML, or a key in it has a bad value.

    ``path`` is the file, ``line`` the line of the key (None where unknown), ``parameter``
    the key's full name (``links[1].EI``, ``simulation.t_end``).
    """

    def __init__(self, path, line, parameter, value, requirement):
        super().__init__(parameter, value, requirement)
        self.path, self.line = path, line
        where = f"{path}, line {line}" if line else f"{path}"
        self.args = (f"{where}: {self.args[0]}",)


class SimulationError(ChronoFlexError, RuntimeError):
    """A simulation could not go on: divergence, NaN, a step the model cannot take.

    ``time`` is the simulated time at which it was detected (None if before start).
    """

    def __init__(self, message, time=None):
        self.time = time
        where = "" if time is None else f" at t = {time:.6g} s"
        super().__init__(f"simulation stopped{where}: {message}")


class BudgetExceeded(SimulationError):
    """A run stopped because it used up its budget (``max_wall_time``, ``max_nfev``).

    ``partial`` holds the :class:`~chrono_flex.result.Result` of the outputs it reached
    (``info["partial"]`` True; None where the engine could not build one).
    """

    partial = None
    recording = None


class PyChronoUnavailable(ChronoFlexError, ImportError):
    """The real PyChrono (Project Chrono's Python modules) cannot be imported."""


class MissingExtra(ChronoFlexError, ImportError):
    """An optional dependency is not installed: names the feature, the package and the
    extra of chrono_flex that brings it."""

    def __init__(self, extra, package, feature):
        self.extra, self.package, self.feature = extra, package, feature
        super().__init__(f"{feature} needs {package}, which is not installed (the optional "
                         f"'{extra}' extra): pip install 'chrono_flex[{extra}]'")


class StiffeningWarning(UserWarning):
    """A run of the papers' linear model (``geometric_stiffening=False``) went where the
    axial load or the spin rate of a link changes its bending stiffness by more than the
    rule of docs/planar-link.md §4.5 allows: rerun with ``geometric_stiffening=True``."""
