"""Damaged, truncated and foreign result files, and write errors, name the user's file.

Result.from_npz and `chrono-flex view` give one error naming the file and what is wrong
(never numpy's or zipfile's own, and never unpickling anything); writes that cannot
happen name the path the user gave, not the temporary file beside it.
"""

import os

import numpy as np
import pytest

from _synthetic import two_link_result
from chrono_flex import cli
from chrono_flex.errors import ParameterError
from chrono_flex.result import Result


@pytest.fixture(scope="module")
def result():
    return two_link_result(nt=5, ns=4)


@pytest.fixture
def files(tmp_path, result):
    good = result.to_npz(str(tmp_path / "good.npz"))
    raw = open(good, "rb").read()
    (tmp_path / "truncated.npz").write_bytes(raw[: len(raw) // 2])
    (tmp_path / "text.npz").write_text("t,q\n0,1\n")
    np.savez(tmp_path / "foreign.npz", a=np.arange(3))
    np.save(tmp_path / "objects.npy", np.array([{"a": 1}], dtype=object))
    os.replace(tmp_path / "objects.npy", tmp_path / "objects.npz")
    return tmp_path


@pytest.mark.parametrize("name,words", [("truncated", "damaged or truncated"),
                                        ("text", "not an NPZ"),
                                        ("foreign", "no `t` array"),
                                        ("objects", "not an NPZ")])
def test_bad_result_file_is_one_error_naming_it(files, name, words):
    path = str(files / f"{name}.npz")
    with pytest.raises(ParameterError) as e:
        Result.from_npz(path)
    assert path in str(e.value) and words in str(e.value), str(e.value)


def test_good_file_reads_back(files, result):
    np.testing.assert_array_equal(Result.from_npz(files / "good.npz").q, result.q)


def test_pickled_objects_in_a_zip_are_never_loaded(tmp_path, result):
    path = tmp_path / "r.npz"
    np.savez(path, t=result.t, plane=np.eye(3), meta_json=np.array([{"x": 1}], dtype=object))
    with pytest.raises(ParameterError) as e:
        Result.from_npz(path)
    assert "pickled" in str(e.value)


def test_view_of_a_bad_file_is_one_line(files, capsys):
    pytest.importorskip("pyvista")
    path = str(files / "truncated.npz")
    assert cli.main(["view", path, "--screenshot", str(files / "v.png")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and path in err, err


def test_view_of_a_series_with_a_non_vtk_frame_names_the_frame(tmp_path, capsys):
    pytest.importorskip("pyvista")
    (tmp_path / "frame.vtu").write_text("not VTK at all")
    (tmp_path / "s.pvd").write_text('<VTKFile type="Collection"><Collection>'
                                    '<DataSet timestep="0" file="frame.vtu"/>'
                                    '</Collection></VTKFile>')
    assert cli.main(["view", str(tmp_path / "s.pvd"), "--screenshot",
                     str(tmp_path / "v.png")]) == 2
    err = capsys.readouterr().err.strip()
    assert "frame.vtu" in err.splitlines()[-1], err


def test_write_errors_name_the_users_path(tmp_path, result):
    with pytest.raises(IsADirectoryError) as e:
        result.to_npz(str(tmp_path))
    assert e.value.filename == str(tmp_path)
    with pytest.raises(FileNotFoundError) as e:
        result.to_npz("no/such/dir/x.npz")
    assert e.value.filename == "no/such/dir/x.npz" and ".tmp" not in str(e.value)
    for write in (result.to_csv, result.to_npz):
        with pytest.raises(ParameterError) as e:
            write("")
        assert "`path`" in str(e.value)
    assert [p.name for p in tmp_path.iterdir()] == []       # no temporary file left
