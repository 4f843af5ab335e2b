"""Time histories of a run in one figure (matplotlib): joint coordinates, tip deflections,
energies and joint torques. 3D pictures of the arm are in :mod:`chrono_flex.viz`.

Figures are plain :class:`matplotlib.figure.Figure` objects on an Agg canvas (no pyplot,
no window, no display needed); Jupyter shows them, ``path=`` saves them.
"""

import os

import numpy as np

from .._files import atomic_path


def save_figure(fig, path, dpi):
    """``fig.savefig(path)`` through a temporary file that replaces ``path`` only once the
    picture is complete (the format from the extension of ``path``, as savefig). A file
    object is handed to savefig as it is."""
    from matplotlib import rcParams

    if not isinstance(path, (str, bytes, os.PathLike)):
        fig.savefig(path, dpi=dpi)
        return
    ext = os.path.splitext(os.fspath(path))[1][1:].lower()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=dpi, format=ext or rcParams["savefig.format"])


def plot_result(result, path=None, title=None):
    """Joint coordinates, tip deflection per link, energies (mechanical, input work,
    dissipated and the balance error) and joint torques when present, stacked over time.
    Legends sit to the right of their panels; the mechanical energy is dashed over a wide
    pale input-work line, so both show where they coincide.

    Returns the Figure; saves it to ``path`` (format from the extension) when given.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    t = np.asarray(result.t)
    e = result.energy
    panels = ["joints", "deflection", "energy"] + (["balance"] if e is not None else [])
    if result.joint_torque is not None:
        panels.append("torque")
    fig = Figure(figsize=(9.0, 1.9 * len(panels) + 0.8), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    ax = dict(zip(panels, axes))

    q = np.asarray(result.joint_angles)
    for j in range(q.shape[1]):
        ax["joints"].plot(t, q[:, j], label=f"joint {j + 1}")
    ax["joints"].set_ylabel("joint coordinate\n(rad; m if prismatic)")

    w = np.asarray(result.tip_deflection)
    for i in range(w.shape[1]):
        ax["deflection"].plot(t, 1e3 * w[:, i], label=f"link {i + 1}")
    ax["deflection"].set_ylabel("tip deflection\n(mm)")

    if e is None:
        ax["energy"].text(0.5, 0.5, f"energy not available from engine {result.engine!r}",
                          transform=ax["energy"].transAxes, ha="center", va="center",
                          color="0.4")
        ax["energy"].set_yticks([])
    else:
        # Without dissipation the mechanical energy equals the input work (plus its value
        # at t = 0): the input work is drawn first, wide and pale, and the mechanical
        # energy dashed on top of it, so both stay visible where they coincide.
        for name, series, style in (
                ("input work", e.input_work, dict(color="tab:orange", lw=3.5, alpha=0.55,
                                                  zorder=2)),
                ("mechanical", e.mechanical, dict(color="tab:blue", lw=1.6, ls="--",
                                                  zorder=3)),
                ("dissipated", e.dissipated, dict(color="tab:green", lw=1.4, ls=":",
                                                  zorder=3))):
            ax["energy"].plot(t, series, label=name, **style)
        ax["balance"].plot(t, e.balance_error, color="tab:red", label="balance error")
        ax["balance"].set_ylabel("balance error\n(J)")
        ax["balance"].ticklabel_format(axis="y", style="sci", scilimits=(-2, 3))
    ax["energy"].set_ylabel("energy (J)")

    if result.joint_torque is not None:
        tau = np.asarray(result.joint_torque)
        for j in range(tau.shape[1]):
            ax["torque"].plot(t, tau[:, j], label=f"joint {j + 1}")
        ax["torque"].set_ylabel("joint torque\n(N m; N if prismatic)")

    for a in axes:
        a.grid(True, alpha=0.3)
        if a.get_legend_handles_labels()[0]:      # outside, right: covers no curve
            a.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                     fontsize=8)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(title if title is not None else f"{result.title}  ({result.engine})")
    if path is not None:
        save_figure(fig, path, 120)
    return fig

def draw_figure(draw, path, title=None, size=(9, 4.5), dpi=90):
    """A Figure of ``size`` inches handed to ``draw(fig)`` (a validation case's plot),
    titled, laid out and saved to ``path``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size)
    FigureCanvasAgg(fig)
    draw(fig)
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
    from matplotlib.figure import Figure

    o = result.outputs
    fig = Figure(figsize=(8, 8), constrained_layout=True)
    ax = fig.subplots(4, 1, sharex=True)
    ax[0].plot(result.t, o["current"], label="i")
    ax[0].set_ylabel("current, A")
    ax[1].plot(result.t, o["motor_speed"] / result.info.get("ratio", 1.0), label="Omega1 / i")
    ax[1].plot(result.t, o["output_speed"], "--", label="Omega2")
    ax[1].set_ylabel("speed, rad/s")
    ax[2].plot(result.t, o["transmitted_torque"], label="M1'")
    ax[2].plot(result.t, o["friction_torque"], label="M_F'")
    ax[2].plot(result.t, o["m_out"], ":", label="M_out")
    ax[2].set_ylabel("torque, N m")
    ax[3].plot(result.t, o["twist"], label="twist theta")
    ax[3].plot(result.t, o["z"], label="z")
    ax[3].set_ylabel("angle, rad")
    ax[3].set_xlabel("t, s")
    for a in ax:
        a.grid(True, alpha=0.3)
        a.legend(loc="best", fontsize=8)
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
