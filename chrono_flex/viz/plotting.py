"""Time histories of runs in one figure (matplotlib): joint coordinates, tip deflections,
energies and joint torques, for one run or several overlaid. 3D pictures of the arm are
in :mod:`chrono_flex.viz`.

The figure is meant for a paper: every axis has its quantity, symbol and unit; the
panels are the ones the run has something to show in. What is left out is said in a
note under the title:

- joint torques that are zero throughout (an unforced run) and joint coordinates that do
  not move;
- the energies, where the engine gives none;
- the energy balance error (T + V - W_in + D, from its value at t = 0) where it stays
  within round-off, below ``BALANCE_ROUNDOFF`` of the energy exchanged. Otherwise it
  has its own panel: it measures the integration error, which a panel of the total
  energy, flat on the scale of the exchanged energy, would hide.

The energy panel shows the kinetic energy T, the potential energy V (elastic and
gravity), the input work W_in and the dissipated energy D, each where it is not zero
throughout.

A tip deflection that oscillates more than ``DENSE_OSCILLATIONS`` times across the
panel (a bending mode over a long run) would draw as a solid band of lines; it is
drawn instead as its envelope (minimum and maximum over windows of about two of its
periods, at most ``ENVELOPE_WINDOWS`` across the span, shaded) and its mean over the
same windows (a line), and the panel says so. The sampling must still resolve the
oscillation for the envelope to be its amplitude: ``chrono-flex run`` and ``render``
choose the output step from the arm's bending frequencies, ten or more samples a period
(:func:`chrono_flex.engines.resolving_dt_out`).

Figures are plain :class:`matplotlib.figure.Figure` objects on an Agg canvas (no pyplot,
no window, no display needed); Jupyter shows them, ``path=`` saves them, in the format
of the file's suffix: ``.png``, or vector ``.pdf`` and ``.svg`` for a paper.
"""

import os

import numpy as np

from .._files import atomic_path
from ..errors import ParameterError

#: A balance error below this fraction of the largest energy exchanged is round-off.
#: The energies are sums of a few hundred products of order-one terms per step, each
#: within a few ulp: their round-off over a run stays near 1e-13 of the energies,
#: while the integrators' tolerances (1e-3 to 1e-10) leave errors far above it.
BALANCE_ROUNDOFF = 1e-10
#: More oscillations than this across a panel draw as its envelope (see the module).
DENSE_OSCILLATIONS = 60
#: Windows of the envelope across the time span.
ENVELOPE_WINDOWS = 200
#: Line styles of the joints, links and energy terms when several results are overlaid
#: (a colour per result).
OVERLAY_STYLES = ("-", "--", ":", "-.")
#: At most this many results overlaid: the colours of matplotlib's default cycle.
MAX_OVERLAY = 10

_FONTS = {"font.size": 9, "axes.titlesize": 9, "axes.labelsize": 9, "legend.fontsize": 8,
          "xtick.labelsize": 8, "ytick.labelsize": 8, "figure.titlesize": 10,
          "svg.fonttype": "none", "pdf.fonttype": 42}


def save_figure(fig, path, dpi):
    """``fig.savefig(path)`` through a temporary file that replaces ``path`` only once the
    picture is complete, in the format of the suffix of ``path`` (``.png``, ``.pdf``,
    ``.svg``, ... as savefig; ``dpi`` matters for raster formats only). A file object
    is handed to savefig as it is."""
    from matplotlib import rc_context, rcParams

    with rc_context({"svg.fonttype": "none", "pdf.fonttype": 42}):   # text stays text
        if not isinstance(path, (str, bytes, os.PathLike)):
            fig.savefig(path, dpi=dpi)
            return
        ext = os.path.splitext(os.fspath(path))[1][1:].lower()
        with atomic_path(path) as tmp:
            fig.savefig(tmp, dpi=dpi, format=ext or rcParams["savefig.format"])


def _oscillations(y):
    """About how many oscillations ``y`` makes: half its number of local extrema."""
    d = np.diff(np.asarray(y, dtype=float))
    d = d[d != 0.0]
    return int(np.count_nonzero(np.signbit(d[1:]) != np.signbit(d[:-1]))) // 2


def envelope(t, y, n_windows=ENVELOPE_WINDOWS):
    """(t_mid, lower, upper, mean) of ``y`` over ``n_windows`` windows of the time span
    (each at least two samples): the drawing of a dense oscillation."""
    t, y = np.asarray(t, dtype=float), np.asarray(y, dtype=float)
    n = max(1, min(n_windows, t.size // 2))
    edges = np.linspace(0, t.size, n + 1).astype(int)
    parts = [(t[a:b], y[a:b]) for a, b in zip(edges[:-1], edges[1:]) if b > a]
    return tuple(np.array(v) for v in zip(*[
        (0.5 * (tt[0] + tt[-1]), yy.min(), yy.max(), yy.mean()) for tt, yy in parts]))


def _joint_kinds(result):
    """"prismatic" or "revolute" for each joint of a result (from its model)."""
    return list(result.joint_kinds)


def _flat(a):
    """True when every column of ``a`` is constant (to 1e-12 of its size)."""
    a = np.asarray(a, dtype=float)
    scale = max(float(np.max(np.abs(a))), 1e-300) if a.size else 1.0
    return a.size == 0 or float(np.max(np.ptp(a, axis=0))) <= 1e-12 * scale


def _energy_terms(e):
    """The drawn energy terms of ``e``: [(symbol, name, series)], each not zero throughout."""
    terms = [("T", "kinetic", e.kinetic), ("V", "potential", e.elastic + e.gravity),
             (r"W_\mathrm{in}", "input work", e.input_work), ("D", "dissipated", e.dissipated)]
    v0 = np.asarray(terms[1][2])
    terms[1] = ("V - V_0", "potential", v0 - v0[0])           # from its value at rest
    return [(sym, name, np.asarray(y)) for sym, name, y in terms if np.any(np.asarray(y) != 0)]


def plot_results(results, labels=None, path=None, title=None):
    """One figure of one or several runs (:class:`~chrono_flex.result.Result`), overlaid
    with the same panels: joint coordinates, tip deflection per link, energies and the
    energy balance error, joint torques (the panels a run has, see the module). With
    several results each has its colour and its ``labels`` entry (default: each
    result's title and engine) in the legends; line styles tell joints, links and
    energy terms apart.

    Returns the Figure; saves it to ``path`` when given (format from the suffix: PNG,
    PDF, SVG).
    """
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    results = list(results) if isinstance(results, (list, tuple)) else [results]
    if not results:
        raise ParameterError("results", results, "must hold at least one Result")
    for i, r in enumerate(results):
        # a Result (duck-typed: the view layer does not import the result module, which
        # hands its drawing to this one)
        if not all(hasattr(r, a) for a in ("t", "joint_angles", "tip_deflection", "energy")):
            raise ParameterError(f"results[{i}]", r, "must be a chrono_flex.Result")
    if labels is None:
        labels = [f"{r.title} ({r.engine})" for r in results]
        if len(set(labels)) < len(labels):
            labels = [f"{lab} #{i + 1}" for i, lab in enumerate(labels)]
    labels = [str(lab) for lab in labels]
    if len(labels) != len(results):
        raise ParameterError("labels", labels, f"must have one label per result "
                                               f"({len(results)})")
    many = len(results) > 1
    if len(results) > MAX_OVERLAY:
        raise ParameterError("results", f"{len(results)} results",
                             f"must be at most {MAX_OVERLAY} to overlay")

    kinds = [_joint_kinds(r) for r in results]
    moving = [not _flat(r.joint_angles) for r in results]
    torques = [r.joint_torque is not None and np.any(np.asarray(r.joint_torque) != 0)
               for r in results]
    energies = [r.energy for r in results]
    balances = []
    for r, e in zip(results, energies):
        if e is None:
            balances.append(False)
            continue
        scale = max([float(np.ptp(y)) for _, _, y in _energy_terms(e)] + [1e-300])
        balances.append(float(np.max(np.abs(e.balance_error))) > BALANCE_ROUNDOFF * scale)
    panels = (["joints"] if any(moving) else []) + ["deflection"]
    if any(e is not None for e in energies):
        panels.append("energy")
    if any(balances):
        panels.append("balance")
    if any(torques):
        panels.append("torque")

    found = {}                                  # note -> the results it holds for
    for i in range(len(results)):
        if not moving[i]:
            found.setdefault("joint coordinates constant", []).append(i)
        if energies[i] is None:
            found.setdefault(f"energies not given by engine {results[i].engine!r}",
                             []).append(i)
        elif not balances[i]:
            found.setdefault(f"energy balance error within round-off (< "
                             f"{BALANCE_ROUNDOFF:g} of the energy exchanged)", []).append(i)
        if not torques[i]:
            found.setdefault("no joint torque", []).append(i)
    notes = [note if len(who) == len(results) else
             f"{', '.join(labels[i] for i in who)}: {note}" for note, who in found.items()]

    with rc_context(_FONTS):
        fig = Figure(figsize=(7.0, 1.55 * len(panels) + 0.9), layout="constrained")
        FigureCanvasAgg(fig)
        axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
        ax = dict(zip(panels, axes))
        any_prismatic = any("prismatic" in k for k in kinds)
        any_revolute = any("revolute" in k for k in kinds)
        dense = False
        for i, r in enumerate(results):
            t = np.asarray(r.t)
            tag = f"{labels[i]}, " if many else ""

            def style(k):
                """One result: a colour per joint, link or term; several: a colour per
                result and a line style per joint, link or term."""
                if many:
                    return dict(color=f"C{i}", ls=OVERLAY_STYLES[k % len(OVERLAY_STYLES)])
                return dict(color=f"C{k}", ls="-")

            if "joints" in ax and moving[i]:
                q = np.asarray(r.joint_angles)
                for j in range(q.shape[1]):
                    sym = f"$d_{{{j + 1}}}$" if kinds[i][j] == "prismatic" else \
                        f"$\\theta_{{{j + 1}}}$"
                    ax["joints"].plot(t, q[:, j], label=tag + sym, **style(j))
            w = 1e3 * np.asarray(r.tip_deflection)
            for k in range(w.shape[1]):
                name = f"{tag}link {k + 1}"
                n_osc = _oscillations(w[:, k])
                if n_osc > DENSE_OSCILLATIONS and t.size >= 4:
                    tm, lo, hi, mean = envelope(t, w[:, k], min(ENVELOPE_WINDOWS, n_osc // 2))
                    ax["deflection"].fill_between(tm, lo, hi, color=style(k)["color"],
                                                  alpha=0.25, lw=0, label=f"{name}: envelope")
                    ax["deflection"].plot(tm, mean, lw=1.0, label=f"{name}: mean", **style(k))
                    dense = True
                else:
                    ax["deflection"].plot(t, w[:, k], label=name, **style(k))
            if energies[i] is not None:
                for c, (sym, name, y) in enumerate(_energy_terms(energies[i])):
                    ax["energy"].plot(t, y, label=f"{tag}${sym}$", **style(c))
                if balances[i]:
                    ax["balance"].plot(t, energies[i].balance_error, color=f"C{i}",
                                       label=f"{labels[i]}" if many else
                                       r"$\Delta(T + V - W_\mathrm{in} + D)$")
            if torques[i]:
                tau = np.asarray(r.joint_torque)
                for j in range(tau.shape[1]):
                    sym = f"$F_{{{j + 1}}}$" if kinds[i][j] == "prismatic" else \
                        f"$\\tau_{{{j + 1}}}$"
                    ax["torque"].plot(t, tau[:, j], label=tag + sym, **style(j))

        if "joints" in ax:
            ax["joints"].set_ylabel(
                "joint coordinate\n" + " ".join(u for u, has in (
                    (r"$\theta$ (rad)", any_revolute), (r"$d$ (m)", any_prismatic)) if has))
        ax["deflection"].set_ylabel("tip deflection\n$w_i(L_i)$ (mm)")
        if dense:
            ax["deflection"].set_title(
                f"over {DENSE_OSCILLATIONS} oscillations: envelope (shaded) and mean over "
                "windows of about two periods", loc="left", fontsize=7.5, color="0.3")
        if "energy" in ax:
            ax["energy"].set_ylabel("energy\n(J)")
        if "balance" in ax:
            ax["balance"].set_ylabel("balance error\n$\\Delta E$ (J)")
        if "torque" in ax:
            ax["torque"].set_ylabel(("joint input\n" if any_prismatic else "joint torque\n")
                                    + " ".join(u for u, has in (
                (r"$\tau$ (N m)", any_revolute), (r"$F$ (N)", any_prismatic)) if has))
        for a in axes:
            a.grid(True, alpha=0.3)
            a.ticklabel_format(axis="y", style="sci", scilimits=(-3, 4), useMathText=True)
            if a.get_legend_handles_labels()[0]:      # outside, right: covers no curve
                a.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
        axes[-1].set_xlabel("time $t$ (s)")
        if title is None:
            title = " vs ".join(labels) if many else labels[0]
        fig.suptitle(title)
        if notes:                                   # what is left out, under the figure
            fig.supxlabel("not drawn: " + "; ".join(notes), fontsize=7.5, color="0.3")
    if path is not None:
        save_figure(fig, path, 150)
    return fig


def plot_result(result, path=None, title=None, others=(), labels=None):
    """:func:`plot_results` of ``result`` and ``others`` (overlaid); ``labels`` one per
    result. Returns the Figure; saves it to ``path`` when given."""
    return plot_results([result, *others], labels=labels, path=path, title=title)


def readable_log_ticks(fig):
    """Log axes spanning less than two decades label their ticks as plain numbers (0.2,
    3, 50) rather than matplotlib's 2x10^0 of minor ticks."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    plain = FuncFormatter(lambda v, _: f"{v:g}")
    for a in fig.axes:
        for axis, lim in ((a.xaxis, a.get_xlim()), (a.yaxis, a.get_ylim())):
            if axis.get_scale() != "log":
                continue
            lo, hi = sorted(abs(v) for v in lim)
            if lo > 0 and np.log10(hi / lo) < 2:
                axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
                axis.set_major_formatter(plain)
                axis.set_minor_formatter(NullFormatter())

def draw_figure(draw, path, title=None, size=(9, 4.5), dpi=90):
    """A Figure of ``size`` inches handed to ``draw(fig)`` (a validation case's plot),
    titled, laid out and saved to ``path``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size)
    FigureCanvasAgg(fig)
    draw(fig)
    readable_log_ticks(fig)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    save_figure(fig, path, dpi)
    return fig


def plot_panels(scenario, path=None):
    """The panels of a drive scenario (:class:`~chrono_flex.scenarios.drive.ScenarioResult`)
    stacked; saved to ``path`` when given; returns the Figure."""
    from matplotlib.figure import Figure

    n = len(scenario.panels)
    fig = Figure(figsize=(8, 3.0 * n), constrained_layout=True)
    axes = np.atleast_1d(fig.subplots(n, 1))
    for ax, panel in zip(axes, scenario.panels):
        for x, y, label, style in panel["lines"]:
            ax.plot(scenario.data[x], scenario.data[y], style, label=label, lw=1.2)
        ax.set_title(panel.get("title", ""), fontsize=10)
        ax.set_xlabel(panel.get("xlabel", ""))
        ax.set_ylabel(panel.get("ylabel", ""))
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize=8)
    fig.suptitle(f"{scenario.name}: {scenario.description}", fontsize=10)
    if path is not None:
        save_figure(fig, path, 110)
    return fig


def plot_drive(result, path=None, title=None):
    """Current, speeds, torques and twist of a drive run
    (:class:`~chrono_flex.drive.simulate.DriveResult`) in one figure; saved to ``path``
    if given; returns the Figure."""
    from matplotlib import rc_context
    from matplotlib.figure import Figure

    o = result.outputs
    with rc_context(_FONTS):
        fig = Figure(figsize=(7.0, 7.0), constrained_layout=True)
        ax = fig.subplots(4, 1, sharex=True)
        ax[0].plot(result.t, o["current"], label="$i_a$")
        ax[0].set_ylabel("motor current\n$i_a$ (A)")
        ax[1].plot(result.t, o["motor_speed"] / result.info.get("ratio", 1.0),
                   label=r"$\Omega_1 / i$")
        ax[1].plot(result.t, o["output_speed"], "--", label=r"$\Omega_2$")
        ax[1].set_ylabel("speed\n(rad/s)")
        ax[2].plot(result.t, o["transmitted_torque"], label="$M_1'$")
        ax[2].plot(result.t, o["friction_torque"], label="$M_F'$")
        ax[2].plot(result.t, o["m_out"], ":", label=r"$M_\mathrm{out}$")
        ax[2].set_ylabel("torque\n(N m)")
        ax[3].plot(result.t, o["twist"], label=r"twist $\theta$")
        ax[3].plot(result.t, o["z"], label="bristle $z$")
        ax[3].set_ylabel("angle\n(rad)")
        ax[3].set_xlabel("time $t$ (s)")
        for a in ax:
            a.grid(True, alpha=0.3)
            a.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    if title:
        fig.suptitle(title)
    if path is not None:
        save_figure(fig, path, 110)
    return fig


def plot_channels(result, names=None, path=None, title=None):
    """The sensor channels of a run (``chrono_flex.control.record``), one panel each,
    labelled with their units (``result.info["units"]``): a :class:`Result` or a
    :class:`DriveResult`; ``names`` default all channels with a unit. Saved to ``path``
    when given; returns the figure."""
    units = result.info.get("units", {})
    store = result.outputs if hasattr(result, "outputs") else result.extra
    names = list(units) if names is None else list(names)
    missing = [n for n in names if n not in store]
    if missing or not names:
        from ..errors import ParameterError

        raise ParameterError("names", missing or names, "must name recorded channels "
                             f"(recorded: {', '.join(units) or 'none'})")

    def draw(fig):
        axes = fig.subplots(len(names), 1, sharex=True, squeeze=False)[:, 0]
        for ax, n in zip(axes, names):
            y = np.asarray(store[n])
            ax.plot(result.t, y, lw=0.8, drawstyle="steps-post")
            ax.set_ylabel(f"{n}, {units.get(n, '?')}", fontsize=8)
            ax.grid(True, alpha=0.3)
        axes[-1].set_xlabel("t, s")

    return draw_figure(draw, path, title=title, size=(9, 1.8 + 1.6 * len(names)))
