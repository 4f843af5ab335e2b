"""Model files, results and the command line for spatial arms, trees and the RRRP arm:
``kind = "spatial"`` / ``"rrrp"`` files read back to the same arm, results keep their
model (``from_npz`` rebuilds it), and ``chrono-flex run`` runs the spatial cases' files."""

import csv
import pathlib

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex import cli, scenarios
from chrono_flex.drive import DriveParams, GearDrive
from chrono_flex.errors import ModelFileError
from chrono_flex.formulations.rrrp import RRRPArm
from chrono_flex.inputs import step
from chrono_flex.planar.model_file import read_model
from chrono_flex.scenarios.spatial import hub_two_links

MODELS = pathlib.Path(__file__).resolve().parents[2] / "examples" / "models"
SPATIAL_CASES = ("spatial-hub-2links", "spatial-satellite", "rrrp-slew")


def test_a_tree_with_a_drive_reads_back_to_the_same_arm(tmp_path):
    arm = hub_two_links(2)
    driven = cf.SpatialArm(arm.bodies, arm.joints, arm.parents, gravity=(0, -1.0, -9.81),
                           drives={0: GearDrive(DriveParams.serebrenny2019(ratio=20.0))})
    path = driven.to_file(tmp_path / "tree.toml", inputs={"drive_input": step(1.5)},
                          simulation={"t_end": 0.5, "dt_out": 0.01, "q0": [0.2]})
    assert 'kind = "spatial"' in path.read_text()
    model = read_model(path)
    back = model.arm
    assert isinstance(back, cf.SpatialArm) and back.to_dict() == driven.to_dict()
    assert back.drives[0].params == driven.drives[0].params and back.parents == (-1, 0, 0)
    q = np.linspace(-0.1, 0.1, driven.nq)
    np.testing.assert_array_equal(back.mass_matrix(q), driven.mass_matrix(q))
    np.testing.assert_array_equal(back.gravity, driven.gravity)
    assert model.simulation["q0"] == [0.2] and model.inputs["drive_input"].spec["profile"] \
        == "step"
    assert cf.SpatialArm.from_file(path).to_dict() == driven.to_dict()


def test_a_bad_spatial_file_names_the_key_and_its_line(tmp_path):
    path = hub_two_links(1).to_file(tmp_path / "bad.toml")
    text = path.read_text().replace("EI_y = 3.0", "EI_y = -3.0", 1)
    path.write_text(text)
    with pytest.raises(ModelFileError) as e:
        read_model(path)
    line = text.splitlines().index("EI_y = -3.0") + 1
    assert e.value.parameter == "bodies[1].EI_y" and f"line {line}" in str(e.value)
    path.write_text(text.replace('kind = "spatial"', 'kind = "tensegrity"'))
    with pytest.raises(ModelFileError) as e:
        read_model(path)
    assert e.value.parameter == "kind"


@pytest.mark.parametrize("name", SPATIAL_CASES)
def test_the_command_line_runs_each_spatial_file_and_the_npz_rebuilds_the_arm(name, tmp_path):
    path = str(MODELS / f"{name}.toml")
    assert cli.main(["run", path, "--t-end", "0.02", "--quiet", "--out", str(tmp_path)]) == 0
    stem = tmp_path / f"{name}_reference"
    with open(f"{stem}.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert {"tip_x", "tip_y", "tip_z"} <= set(rows[0]) and len(rows) > 3
    assert rows[1][rows[0].index("tip_z")] == "m"             # the units row
    assert pathlib.Path(f"{stem}.png").stat().st_size > 10_000           # a figure
    res = cf.Result.from_npz(f"{stem}.npz")
    np.testing.assert_array_equal(res.tip_position[:, 2],
                                  [float(r[rows[0].index("tip_z")]) for r in rows[2:]])
    arm, _ = scenarios.get(name).arm_and_kwargs()
    rebuilt = cf.arm_from_dict(res.model)          # the package-level name
    assert type(rebuilt) is type(arm) and rebuilt.to_dict() == arm.to_dict()
    assert isinstance(rebuilt, RRRPArm if name == "rrrp-slew" else cf.SpatialArm)
