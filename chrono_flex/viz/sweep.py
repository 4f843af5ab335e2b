"""The figure of a parameter sweep (``chrono-flex sweep``): summary quantities against
the first varied key, one line per combination of the other keys.

Two panels: the peak tip deflection of each link (mm) and the final joint coordinates.
Failed runs are left out (their rows carry no results); a varied key whose values are
not numbers is drawn at its values' positions, labelled with them.
"""

import numbers

import numpy as np

from .plotting import save_figure


#: Units of the model-file keys a sweep varies, by the key's last name (SI; "" for pure
#: numbers). The fields' documentation in chrono_flex.planar.params states the same.
KEY_UNITS = {
    "length": "m", "EI": "N m$^2$", "rho_A": "kg/m", "E": "Pa", "I": "m$^4$",
    "rho": "kg/m$^3$", "A": "m$^2$", "damping_alpha": "1/s", "damping_beta": "s",
    "thickness": "m", "mass": "kg", "inertia": "kg m$^2$", "hub_inertia": "kg m$^2$",
    "hub_mass": "kg", "slider_mass": "kg", "axis_angle": "rad", "link_angle": "rad",
    "angle_offset": "rad", "gravity": "m/s$^2$", "t_end": "s", "dt_out": "s", "step": "s",
    "max_step": "s", "n_elements": "", "n_modes": "", "rtol": "", "rho_inf": "",
}


def key_label(key):
    """An axis label for a varied model-file key: the key and its unit ("payload.mass
    (kg)"), or the key alone for a number without unit or a key not in KEY_UNITS."""
    name = key.rsplit(".", 1)[-1].split("[", 1)[0]
    unit = KEY_UNITS.get(name, "")
    return f"{key} ({unit})" if unit else key


def _is_number(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def plot_sweep(rows, keys, path=None, title=None):
    """Draw the summary ``rows`` (dicts as written to summary.json) of a sweep over
    ``keys`` (the varied keys, in order); return the Figure, saved to ``path`` if given."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    keys = list(keys)
    ok = [r for r in rows if r.get("status") == "ok"]
    x_key, others = keys[0], keys[1:]
    xs = [r[x_key] for r in rows]
    numeric = all(_is_number(v) for v in xs)
    labels = list(dict.fromkeys(repr(v) for v in xs))
    fig = Figure(figsize=(9.0, 3.6), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    ax_d, ax_q = fig.subplots(1, 2)
    groups = {}
    for r in ok:
        groups.setdefault(tuple(repr(r[k]) for k in others), []).append(r)
    for g, members in groups.items():
        members.sort(key=lambda r: r[x_key] if numeric else labels.index(repr(r[x_key])))
        x = [r[x_key] if numeric else labels.index(repr(r[x_key])) for r in members]
        tag = ", ".join(f"{k}={v}" for k, v in zip(others, g))
        for ax, prefix, scale in ((ax_d, "peak_tip_deflection", 1e3), (ax_q, "joint", 1.0)):
            cols = sorted(k for k in members[0] if k.startswith(prefix))
            for c in cols:
                name = c.replace("peak_tip_deflection", "link ").replace("_final", "")
                ax.plot(x, scale * np.array([r[c] for r in members]), "o-",
                        label=f"{name}" + (f" ({tag})" if tag else ""))
    for ax, ylabel in ((ax_d, r"peak $|w_i(L_i)|$ (mm)"),
                       (ax_q, r"final joint coordinate $\theta_j$ (rad; m if prismatic)")):
        ax.set_xlabel(key_label(x_key))
        ax.set_ylabel(ylabel)
        if not numeric:
            ax.set_xticks(range(len(labels)), labels)
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="best")
    n_fail = len(rows) - len(ok)
    fig.suptitle((title or "sweep") + (f" ({n_fail} failed run(s) not shown)" if n_fail else ""))
    if path is not None:
        save_figure(fig, path, dpi=100)
    return fig


__all__ = ["plot_sweep"]
