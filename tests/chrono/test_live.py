"""The live window on a real (virtual) display.

Runs where PyChrono's Irrlicht module imports and ``xvfb-run`` (a virtual X server) is
installed: a short chrono-engine run is drawn in a LiveWindow on the virtual display and a
screenshot of its last frame is checked to show something besides the background.
Skipped, with the reason, elsewhere.
"""

import importlib.util
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import subprocess
    import sys
    from chrono_flex import scenarios
    from chrono_flex.chrono.engine import simulate_chrono
    from chrono_flex.chrono.live import LiveWindow

    class Shot(LiveWindow):
        def __call__(self, system, t):
            super().__call__(system, t)
            self.last = t

    arm, kw = scenarios.get("bien-1link-n1").arm_and_kwargs(t_end=0.2)
    win = Shot(scale=20.0, module="pychrono.irrlicht", realtime=False, size=(320, 240))
    res = simulate_chrono(arm, **dict(kw, dt_out=0.02), on_output=win)
    # Irrlicht's own screenshot reads the front buffer, which Xvfb leaves black: take the
    # X server's picture of the screen instead
    subprocess.run(["xwd", "-root", "-silent", "-out", sys.argv[1]], check=True)
    print("frames-done", win.last, res.joint_angles[-1, 0])
""")


def read_xwd(path):
    """Pixels (height, width, 3) of a 24- or 32-bit ZPixmap XWD file (X Window Dump format:
    a header of 25 big-endian uint32, the window name, the colour map, the rows)."""
    import numpy as np

    raw = open(path, "rb").read()
    h = np.frombuffer(raw[:100], dtype=">u4")
    header_size, width, height = int(h[0]), int(h[4]), int(h[5])
    byte_order, bpp, bytes_per_line, ncolors = int(h[7]), int(h[11]), int(h[12]), int(h[19])
    nb = bpp // 8
    assert nb in (3, 4), bpp
    start = header_size + 12 * ncolors
    rows = np.frombuffer(raw[start:start + height * bytes_per_line], dtype=np.uint8)
    px = rows.reshape(height, bytes_per_line)[:, :nb * width].reshape(height, width, nb)
    if byte_order == 0:                       # LSB first: B G R (x)
        return px[..., [2, 1, 0]]
    return px[..., [nb - 3, nb - 2, nb - 1]]  # MSB first: (x) R G B


def _irrlicht_status():
    try:
        from chrono_flex.chrono._detect import pychrono_status
    except Exception as exc:  # noqa: BLE001
        return False, str(exc)
    ok, why = pychrono_status()
    if not ok:
        return False, f"needs the real PyChrono: {why}"
    if importlib.util.find_spec("pychrono.irrlicht") is None:
        return False, "PyChrono was built without its Irrlicht module (pychrono.irrlicht)"
    if shutil.which("xvfb-run") is None or shutil.which("xwd") is None:
        return False, "xvfb-run and xwd (a virtual X display and its screenshot) are not installed"
    return True, ""


@pytest.mark.pychrono
def test_live_window_draws_the_arm_on_a_virtual_display(tmp_path):
    ok, why = _irrlicht_status()
    if not ok:
        pytest.skip(why)
    shot = tmp_path / "live.xwd"
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    proc = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 640x480x24", sys.executable,
                           "-c", SCRIPT, str(shot)], capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "frames-done" in proc.stdout
    import numpy as np

    img = read_xwd(str(shot))[:240, :320]           # the window sits at the screen's corner
    # more than the background: the arm, seen from its plane's normal, is a thin line (a
    # 5 mm section on a 1 m link); at least 0.1 % of the window's pixels differ from the
    # most common colour, and they lie in a band across the window
    flat = img.reshape(-1, 3).astype(int)
    values, counts = np.unique(flat, axis=0, return_counts=True)
    background = values[np.argmax(counts)]
    drawn = np.any(img.astype(int) != background, axis=2)
    assert drawn.mean() > 1e-3, drawn.mean()
    cols = np.nonzero(drawn.any(axis=0))[0]
    assert cols.max() - cols.min() > 0.25 * img.shape[1]    # the arm spans the view
