"""How long the headless renderer takes: ``chrono-flex bench render``."""

import os
import tempfile
import time

from .. import _checks as ck
from .render import render_animation, suggest_scale


def bench_render(case="bien-2link", n_frames=200, path=None, engine="reference"):
    """Wall time to write an ``n_frames``-frame GIF of a case run.

    The case is simulated first (timed apart); then :func:`render_animation` writes the
    GIF (automatic exaggeration, colour by strain when the engine gave curvature) to
    ``path`` (default: a temporary file, removed afterwards). Returns a dict: case,
    engine, n_frames, simulate_s, render_s, ms_per_frame, gif_bytes.
    """
    from .. import engines

    n_frames = ck.positive_int("n_frames", n_frames)
    t0 = time.perf_counter()
    res = engines.run_case(case, engine)
    simulate_s = time.perf_counter() - t0
    frames = min(n_frames, len(res.t))
    color_by = "strain" if res.curvature is not None else "deflection"
    with tempfile.TemporaryDirectory() as tmp:
        out = os.fspath(path) if path is not None else os.path.join(tmp, f"{case}.gif")
        t0 = time.perf_counter()
        render_animation(res, out, scale=suggest_scale(res), n_frames=frames, color_by=color_by)
        render_s = time.perf_counter() - t0
        size = os.path.getsize(out)
    return dict(case=case, engine=res.engine, n_frames=frames, simulate_s=simulate_s,
                render_s=render_s, ms_per_frame=1e3 * render_s / frames, gif_bytes=size)


__all__ = ["bench_render"]
