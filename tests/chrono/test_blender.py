"""Blender export of Chrono runs (Chrono's ChBlender), the visual shapes it needs, and the
command-line paths of ``--blender`` and ``--live`` that work without PyChrono."""

import ast
import os
import re
import sys

import numpy as np
import pytest

from chrono_flex import cli, engines
from chrono_flex.chrono.visual import tube_mesh
from chrono_flex.errors import PyChronoUnavailable
from chrono_flex.chrono import window as interactive

# ChBlender writes numbers with C++'s default stream precision, 6 significant digits:
# positions of ~1 m read back to within 1e-5 m.
PRINT_ATOL = 1e-5

ITEM = re.compile(r"make_chrono_object_assetlist\('([^']*)',\(([^)]*)\)")


ITEM_SHAPES = re.compile(r"make_chrono_object_assetlist\('([^']*)',.*?\n\[\n \['([^']*)'", re.S)
MESH = re.compile(r"verts = \[ \n(.*?)\] .*?new_object\.name= '([^']*)'", re.S)


def parse_state(path):
    """{item name: position (3,)}, time, and {item name: vertices (n, 3)} of the items
    whose (first) shape is a per-frame mesh."""
    text = open(path).read()
    items = {m.group(1): np.array([float(x) for x in m.group(2).split(",")])
             for m in ITEM.finditer(text)}
    t = float(re.search(r"^chrono_flex_time = (.+)$", text, re.M).group(1))
    verts = {m.group(2): np.array(ast.literal_eval("[" + m.group(1) + "]"))
             for m in MESH.finditer(text)}
    meshes = {m.group(1): verts[m.group(2)] for m in ITEM_SHAPES.finditer(text)
              if m.group(2) in verts}
    return items, t, meshes


# --------------------------------------------------------------------------- no PyChrono

def test_tube_mesh_is_closed_around_the_centreline():
    pts = np.linspace(0, 1, 5)[:, None] * [1.0, 0.0, 0.0]
    verts, faces = tube_mesh(pts, (0, 0, 1), 0.1, sides=8)
    assert verts.shape == (5 * 8 + 2, 3) and faces.max() == len(verts) - 1
    ring = verts[:-2].reshape(5, 8, 3)
    # every ring vertex lies at the radius from its centreline point (exact up to round-off)
    assert np.allclose(np.linalg.norm(ring - pts[:, None], axis=-1), 0.1, atol=1e-12)
    # closed surface: every edge is shared by exactly two triangles
    edges = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]]),
                    axis=1)
    _, counts = np.unique(edges, axis=0, return_counts=True)
    assert np.all(counts == 2)


def test_blender_export_without_pychrono_names_what_is_missing(monkeypatch, tmp_path):
    from chrono_flex.chrono.blender import BlenderExporter

    monkeypatch.setitem(sys.modules, "pychrono", None)
    with pytest.raises(PyChronoUnavailable, match="Blender export.*PyChrono.*conda install"):
        BlenderExporter(tmp_path)


@pytest.mark.pychrono
def test_blender_export_without_postprocess_module_says_so(monkeypatch, tmp_path):
    from chrono_flex.chrono.blender import BlenderExporter

    monkeypatch.setitem(sys.modules, "pychrono.postprocess", None)
    with pytest.raises(PyChronoUnavailable, match=r"pychrono\.postprocess.*ChBlender"):
        BlenderExporter(tmp_path)


def _no_window(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(interactive, "_importable",
                        lambda name: (False, f"ModuleNotFoundError: No module named {name!r}"))


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="these always have a display")
def test_cli_live_without_display_or_module_says_what_is_missing(monkeypatch, capsys):
    _no_window(monkeypatch)
    ran = []
    monkeypatch.setattr(engines, "run_case", lambda *a, **k: ran.append(a))
    assert cli.main(["render", "bien-2link", "--live"]) == 2
    err = capsys.readouterr().err
    assert "cannot open a live 3D window" in err and "no display" in err
    assert "pychrono.irrlicht" in err and "pychrono.vsg" in err
    assert not ran                      # nothing is simulated before the check


def test_cli_blender_refuses_the_reference_engine(capsys, tmp_path):
    assert cli.main(["render", "bien-2link", "--engine", "reference",
                     "--blender", str(tmp_path)]) == 2
    assert "chrono or chrono-beam" in capsys.readouterr().err


# ------------------------------------------------------------------------- with PyChrono

@pytest.mark.pychrono
def test_blender_export_of_the_custom_element(tmp_path):
    from chrono_flex.engines import export_case

    scale = 5.0
    res, ex = export_case("bien-2link", tmp_path, engine="chrono", t_end=0.5, n_frames=5,
                          scale=scale)
    assert os.path.isfile(tmp_path / "bien-2link.assets.py")
    assets = open(tmp_path / "bien-2link.assets.py").read()
    assert f"chrono_flex_deformation_scale = {scale!r}" in assets
    assert "deformation x 5" in assets
    assert len(ex.frames) == 6 and np.allclose(ex.frames, np.linspace(0, 0.5, 6))
    frames = [parse_state(ex.state_path(k)) for k in range(6)]
    assert not os.path.exists(ex.state_path(6))
    for (items, t, meshes), t_ex in zip(frames, ex.frames):
        assert {"link1", "link2", "joint1", "joint2", "payload"} <= set(items)
        assert t == t_ex
        assert set(meshes) == {"link1", "link2"}      # one deformable tube per link
    # the payload sits at the drawn tip: rigid + scale * (deformed - rigid), Result's
    # centrelines from the same shape functions
    k_res = [int(np.argmin(np.abs(res.t - t))) for t in ex.frames]
    for (items, _, _), k in zip(frames, k_res):
        rigid, deformed = res.centerline_rigid[k, -1, -1], res.centerline[k, -1, -1]
        assert np.allclose(items["payload"], rigid + scale * (deformed - rigid),
                           atol=PRINT_ATOL)
    # things move: the payload and the tubes' vertices
    first, last = frames[0], frames[-1]
    assert np.linalg.norm(last[0]["payload"] - first[0]["payload"]) > 0.01
    assert np.max(np.abs(last[2]["link1"] - first[2]["link1"])) > 0.01
    # each tube starts at its joint: the centre of its first cap (last-but-one vertex)
    for i in (1, 2):
        assert np.allclose(last[2][f"link{i}"][-2], last[0][f"joint{i}"], atol=PRINT_ATOL)


@pytest.mark.pychrono
def test_the_export_does_not_change_the_run(tmp_path):
    from chrono_flex.engines import export_case

    res, _ = export_case("bien-2link", tmp_path, engine="chrono", t_end=0.2, n_frames=2,
                         scale=1.0)
    plain = engines.run_case("bien-2link", "chrono", t_end=0.2)
    # the exporter's bodies are fixed: no new unknowns, the same equations; only the
    # summation order inside the solver may change, so equal to round-off of the state
    scale = np.max(np.abs(plain.q), axis=0) + 1e-12
    assert np.max(np.abs(res.q - plain.q) / scale) < 1e-9


@pytest.mark.pychrono
def test_blender_export_of_chrono_beams(tmp_path):
    from chrono_flex.engines import export_case

    _, ex = export_case("bien-2link", tmp_path, engine="chrono-beam", t_end=0.6, n_frames=2)
    frames = [parse_state(ex.state_path(k)) for k in range(3)]
    for items, _, meshes in frames:
        assert {"beams", "hub1", "hub2", "payload"} <= set(items)
        assert set(meshes) == {"beams"} and len(meshes["beams"]) > 100  # Chrono's FEA surface
    # the FEA surface is filled at t = 0 and follows the beams
    assert np.max(np.abs(frames[-1][2]["beams"] - frames[0][2]["beams"])) > 1e-3
    assert np.linalg.norm(frames[-1][0]["payload"] - frames[0][0]["payload"]) > 1e-3


@pytest.mark.pychrono
def test_beams_cannot_be_exaggerated(tmp_path):
    from chrono_flex.engines import export_case
    from chrono_flex.errors import ParameterError

    with pytest.raises(ParameterError, match="true size"):
        export_case("bien-2link", tmp_path, engine="chrono-beam", t_end=0.01, n_frames=1,
                    scale=10.0)
