"""Time histories of a run in one figure (matplotlib): joint coordinates, tip deflections,
energies and joint torques. 3D pictures of the arm are in :mod:`chrono_flex.viz`.

Figures are plain :class:`matplotlib.figure.Figure` objects on an Agg canvas (no pyplot,
no window, no display needed); Jupyter shows them, ``path=`` saves them.
"""

import numpy as np


def plot_result(result, path=None, title=None):
    """Joint coordinates, tip deflection per link, energies (mechanical, input work,
    dissipated and the balance error) and joint torques when present, stacked over time.

    Returns the Figure; saves it to ``path`` (format from the extension) when given.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    t = np.asarray(result.t)
    e = result.energy
    panels = ["joints", "deflection", "energy"] + (["balance"] if e is not None else [])
    if result.joint_torque is not None:
        panels.append("torque")
    fig = Figure(figsize=(8.0, 1.9 * len(panels) + 0.8), dpi=100, layout="constrained")
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
        for name, series in (("mechanical", e.mechanical), ("input work", e.input_work),
                             ("dissipated", e.dissipated)):
            ax["energy"].plot(t, series, label=name)
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
        if a.get_legend_handles_labels()[0]:
            a.legend(loc="upper right", fontsize=8, ncol=3)
    axes[-1].set_xlabel("time (s)")
    info = result.info or {}
    fig.suptitle(title if title is not None else f"{info.get('case', 'run')}  ({result.engine})")
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig
