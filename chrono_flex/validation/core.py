"""The contract of a validation case and the registry the runner reads.

A case is a small function decorated with :func:`case`. It runs the model(s), compares one
quantity and returns an :class:`Outcome`; everything the report needs (the numbers, the
tolerance and where the tolerance comes from, a figure) is declared with it: the numbers
and flags in the decorator, the words in labelled paragraphs of the docstring::

    @case("beam.static-tip", tolerance=1e-10, engines=("reference",))
    def static_tip(ctx):
        '''Quantity: tip deflection of a cantilever under a tip load

        Metric: max relative error at the nodes

        Reason: Hermite elements are nodally exact for a tip load; 1e-10 is round-off
            in a solve of condition ~1e6'''
        ...
        return Outcome(value=err, plot=lambda fig: ...)

A paragraph's lines are joined by single spaces; ``Source:`` names the papers or docs
the case follows. Cases made by a loop give the same words as decorator arguments
(``quantity=``, ``metric=``, ``reason=``, ``source=``).

``passed`` is ``value <= tolerance`` unless the case states ``compare="ge"`` (a rate that
must reach a floor) or ``compare="window"`` (``tolerance = (low, high)``). A case whose
data are absent (the reference data of a source checkout's ``validation/`` folder) raises
:class:`Skip` with the reason, and is reported as skipped.
"""

from dataclasses import dataclass, field
import fnmatch
import inspect
import math

KINDS = ("verification", "regression")
COMPARES = ("le", "ge", "window")


class Skip(Exception):
    """Raised by a case that cannot run here (its data are absent); the message is the
    reason the report gives."""


@dataclass
class Outcome:
    """What a case measured.

    value: the metric (a float). plot: callable(fig) drawing the case's figure on a
    matplotlib Figure (no import of matplotlib needed in the case), or None.
    details: short lines for the report (e.g. a measured table). data: numbers for the
    JSON summary (lists or floats).
    """

    value: float
    plot: object = None
    details: list = field(default_factory=list)
    data: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Case:
    """A named validation case.

    name: dotted identifier (``group.case``). quantity: what is compared. metric: how.
    tolerance: bound on the metric (a float, or (low, high) with compare="window").
    reason: where the tolerance comes from. engines: the engines (or models) it runs.
    needs_pychrono: skipped with the reason when PyChrono is absent. kind: verification
    (against closed forms, convergence, another formulation) or regression (a stored
    value, see :mod:`chrono_flex.validation.regression`). run: callable(ctx) -> Outcome.
    """

    name: str
    quantity: str
    metric: str
    tolerance: object
    reason: str
    engines: tuple
    run: object
    needs_pychrono: bool = False
    kind: str = "verification"
    compare: str = "le"
    source: str = ""

    def passed(self, value):
        if value is None or not math.isfinite(value):
            return False
        if self.compare == "le":
            return value <= self.tolerance
        if self.compare == "ge":
            return value >= self.tolerance
        lo, hi = self.tolerance
        return lo <= value <= hi

    def tolerance_text(self):
        if self.compare == "le":
            return f"<= {self.tolerance:.3g}"
        if self.compare == "ge":
            return f">= {self.tolerance:.3g}"
        return f"in [{self.tolerance[0]:.3g}, {self.tolerance[1]:.3g}]"


CASES = {}


#: The docstring labels of a case's words, and the :class:`Case` fields they fill.
DOC_FIELDS = {"Quantity": "quantity", "Metric": "metric", "Reason": "reason", "Source": "source"}


def declared_words(fn):
    """The labelled paragraphs (:data:`DOC_FIELDS`) of ``fn``'s docstring, each paragraph's
    lines joined by single spaces: {field: text}."""
    words = {}
    for paragraph in inspect.cleandoc(fn.__doc__ or "").split("\n\n"):
        label, sep, text = paragraph.partition(": ")
        if sep and label in DOC_FIELDS:
            words[DOC_FIELDS[label]] = " ".join(line.strip() for line in text.split("\n"))
    return words


def case(name, *, tolerance, engines=("reference",), needs_pychrono=False,
         kind="verification", compare="le", **words):
    """Register the decorated function ``run(ctx) -> Outcome`` as validation case ``name``.

    ``words``: quantity, metric, reason and source, each given here or as a labelled
    paragraph of the function's docstring (module docstring), not both."""
    if name in CASES:
        raise ValueError(f"validation case {name!r} is registered twice")
    if kind not in KINDS:
        raise ValueError(f"case {name!r}: kind {kind!r} must be one of {KINDS}")
    if compare not in COMPARES:
        raise ValueError(f"case {name!r}: compare {compare!r} must be one of {COMPARES}")
    unknown = set(words) - set(DOC_FIELDS.values())
    if unknown:
        raise TypeError(f"case {name!r}: unknown arguments {sorted(unknown)}")
    for field_name, text in words.items():
        if not text or not text.strip():
            raise ValueError(f"case {name!r} has no {field_name} (an empty text)")

    def register(fn):
        given = dict(words)
        for field_name, text in declared_words(fn).items():
            if field_name in given:
                raise ValueError(f"case {name!r} gives its {field_name} twice (decorator "
                                 f"and docstring of {fn.__qualname__})")
            given[field_name] = text
        for field_name in ("quantity", "metric", "reason"):
            if not given.get(field_name, "").strip():
                raise ValueError(f"case {name!r} has no {field_name} (decorator argument "
                                 f"or docstring paragraph of {fn.__qualname__})")
        CASES[name] = Case(name, given["quantity"], given["metric"], tolerance,
                           given["reason"], tuple(engines), fn, needs_pychrono, kind, compare,
                           given.get("source", ""))
        return fn

    return register


def select(only=None, engines=None):
    """Registered cases matching the glob ``only`` (comma-separated globs allowed) and
    running only on engines in ``engines`` (None: all), in registration order."""
    from . import cases  # noqa: F401  (registers every case)

    patterns = [p.strip() for p in only.split(",")] if only else ["*"]
    chosen = []
    for c in CASES.values():
        if not any(fnmatch.fnmatchcase(c.name, p) for p in patterns):
            continue
        if engines is not None and not set(c.engines) <= set(engines) | {"closed form", "drive"}:
            continue
        chosen.append(c)
    return chosen


def rel_err(a, b, scale=None):
    """max|a - b| / scale (default max|b|): a relative error over a whole curve."""
    import numpy as np

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    s = float(np.max(np.abs(b))) if scale is None else float(scale)
    return float(np.max(np.abs(a - b)) / s)


def step_error(y_h, y_half, order=2):
    """Richardson estimate of the error of the run at step h, per column: with
    e(h) = C h^p, y(h) - y(h/2) = e(h) (1 - 2^-p), so
    e(h) = 2^p / (2^p - 1) max_t |y(h) - y(h/2)| (4/3 for order 2)."""
    import numpy as np

    f = 2.0 ** order
    return f / (f - 1.0) * np.max(np.abs(np.asarray(y_h) - np.asarray(y_half)), axis=0)


def observed_rate(hs, errs):
    """Slope of log(err) vs log(h): the measured order of convergence."""
    import numpy as np

    return float(np.polyfit(np.log(hs), np.log(errs), 1)[0])


def tidy(axes, legend=7, which="major"):
    """Grid and legend on each of a case figure's ``axes``, the one style of the report's
    figures (``legend`` the font size, 0 for none; ``which`` the grid's ticks)."""
    for ax in axes:
        ax.grid(True, which=which, alpha=0.3)
        if legend:
            ax.legend(fontsize=legend)


def labels(ax, xlabel, ylabel, title=None, size=9):
    """Axis labels (with their units) and a small title on one panel of a case figure."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title is not None:
        ax.set_title(title, fontsize=size)
