"""The Markdown validation report: a summary table and one figure per case."""

import os
import re

from .._files import atomic_write


def _fmt(value):
    return "n/a" if value is None else f"{value:.6g}"


def cell(value):
    """``value`` as the text of one Markdown table cell: a ``|`` would end the cell and a
    line break the row, so pipes are escaped (``\\|``, GitHub's table syntax; backslashes
    doubled first so that a backslash before a pipe stays a backslash) and line breaks
    become spaces."""
    text = " ".join(str(value).splitlines())
    return text.replace("\\", "\\\\").replace("|", "\\|")


def _slug(name):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def write_report(rows, outcomes, directory):
    """Write ``directory/report.md`` and ``directory/figures/<case>.png``; returns the path."""
    from ..viz.plotting import draw_figure

    fig_dir = os.path.join(directory, "figures")
    os.makedirs(fig_dir, exist_ok=True)
    n_pass = sum(r["status"] == "passed" for r in rows)
    n_skip = sum(r["status"] == "skipped" for r in rows)
    lines = ["# chrono_flex validation report", "",
             f"{n_pass} passed, {len(rows) - n_pass - n_skip} failed, {n_skip} skipped.", "",
             "| case | kind | status | value | tolerance | metric | engines | s |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        val = "" if r["value"] is None else f"{r['value']:.4g}"
        anchor = _slug(r["name"]).lower().replace(".", "")
        cells = [f"[{cell(r['name'])}](#{anchor})", r["kind"], r["status"], val,
                 r["tolerance_text"], r["metric"], ", ".join(r["engines"]),
                 f"{r['seconds']:.1f}"]
        lines.append("| " + " | ".join(cell(c) if k else c for k, c in enumerate(cells)) + " |")
    lines.append("")
    for r in rows:
        lines += [f"## {r['name']}", "",
                  f"- quantity: {r['quantity']}",
                  f"- metric: {r['metric']}",
                  f"- value: {_fmt(r['value'])} (tolerance {r['tolerance_text']}) "
                  f"-> **{r['status']}**",
                  f"- tolerance reason: {r['reason']}",
                  f"- engines: {', '.join(r['engines'])}"
                  + (" (needs PyChrono)" if r["needs_pychrono"] else ""),
                  f"- wall time: {r['seconds']:.1f} s"]
        if r.get("source"):
            lines.append(f"- source: {r['source']}")
        if r["message"]:
            lines.append(f"- message: {r['message']}")
        for d in r.get("details") or []:
            lines.append(f"    {d}")
        out = outcomes.get(r["name"])
        if out is not None and out.plot is not None:
            fname = f"{_slug(r['name'])}.png"
            try:
                draw_figure(out.plot, os.path.join(fig_dir, fname), title=r["name"])
                lines += ["", f"![{r['name']}](figures/{fname})"]
            except Exception as exc:  # a broken figure must not hide the numbers
                lines.append(f"- figure failed: {type(exc).__name__}: {exc}")
        lines.append("")
    path = os.path.join(directory, "report.md")
    with atomic_write(path, "w") as f:
        f.write("\n".join(lines))
    return path
