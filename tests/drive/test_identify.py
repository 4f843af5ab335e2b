"""Parameter identification from efficiency curves, breakaway and Stribeck measurements."""

import numpy as np
import pytest

from chrono_flex.drive import (breakaway_ms, efficiency_input, efficiency_output, fit_stribeck,
                               identify_command, identify_efficiency, identify_efficiency_output,
                               read_efficiency_csv, stribeck)
from chrono_flex.errors import ParameterError

K_ML, MC, MS, VS = 3.266, 0.0405, 0.0467, 10.47       # [S], docs/drive.md §6
SIGMA_ETA = 0.005                                      # datasheet-like efficiency noise


def synthetic_eta(rng, n=30, model="eq27"):
    M = np.linspace(0.1, 2.0, n)
    f = efficiency_input if model == "eq27" else efficiency_output
    return M, f(M, K_ML, MC) + rng.normal(0.0, SIGMA_ETA, n)


def test_eq27_recovers_K_ML_and_Mc_inside_their_intervals():
    M, eta = synthetic_eta(np.random.default_rng(2019))
    fit = identify_efficiency(M, eta)
    assert fit.n == 30 and fit.model == "eq27"
    for name, true in (("K_ML", K_ML), ("Mc", MC)):
        lo, hi = fit.ci[name]
        assert lo < true < hi, name
    # the residual std estimates the noise (chi^2 with 28 dof: +-27 % at 2 sigma)
    assert fit.residual_std == pytest.approx(SIGMA_ETA, rel=0.3)
    # interval widths from an independent route: eta = 1 - a - b/M is linear in
    # (a, b) = (K_ML Mc, Mc); se(Mc) = s sqrt([(A^T A)^-1]_bb) with A = [1, 1/M]
    A = np.column_stack([np.ones_like(M), 1.0 / M])
    cov_ab = fit.residual_std ** 2 * np.linalg.inv(A.T @ A)
    assert fit.stderr["Mc"] == pytest.approx(np.sqrt(cov_ab[1, 1]), rel=1e-6)
    # K_ML = a / b: delta method, exact for the Jacobian-based covariance
    g = np.array([1.0 / fit.Mc, -fit.K_ML / fit.Mc])
    assert fit.stderr["K_ML"] == pytest.approx(np.sqrt(g @ cov_ab @ g), rel=1e-6)


def test_eq27_intervals_cover_95_percent():
    rng = np.random.default_rng(7)
    hits = np.zeros(2)
    n_rep = 200
    for _ in range(n_rep):
        fit = identify_efficiency(*synthetic_eta(rng, n=12))
        hits += [fit.ci["K_ML"][0] < K_ML < fit.ci["K_ML"][1],
                 fit.ci["Mc"][0] < MC < fit.ci["Mc"][1]]
    # binomial sd of the coverage over 200 runs: 0.015; allow 3 sd around 0.95
    assert np.all(np.abs(hits / n_rep - 0.95) < 0.046)


def test_eq28_recovers_K_ML_and_Mc():
    M, eta = synthetic_eta(np.random.default_rng(28), n=40, model="eq28")
    fit = identify_efficiency_output(M, eta)
    assert fit.model == "eq28"
    for name, true in (("K_ML", K_ML), ("Mc", MC)):
        assert fit.ci[name][0] < true < fit.ci[name][1], name
    np.testing.assert_allclose(fit.efficiency(M), efficiency_output(M, fit.K_ML, fit.Mc))


def test_fit_stribeck_recovers_Ms_Mc_and_stribeck_speed():
    rng = np.random.default_rng(21)
    v = np.concatenate([-np.geomspace(0.2, 60, 80), np.geomspace(0.2, 60, 80)])
    noise = 2e-4                                   # N m, ~3 % of Ms - Mc
    F = stribeck(v, MC, MS, VS, "gaussian") + 0.002 * v + rng.normal(0.0, noise, v.size)
    fit = fit_stribeck(v, F, viscous=True)
    for name, true in (("Mc", MC), ("Ms", MS), ("vs", VS), ("K_V", 0.002)):
        lo, hi = fit.ci[name]
        assert lo < true < hi, name
    assert fit.residual_std == pytest.approx(noise, rel=0.3)   # 156 dof: +-11 % at 2 sigma
    # with delta fitted too (data generated with delta = 2)
    fit_d = fit_stribeck(v, F, fit_delta=True, viscous=True)
    assert fit_d.ci["delta"][0] < 2.0 < fit_d.ci["delta"][1]


@pytest.mark.parametrize("kind", ["speed", "displacement"])
def test_breakaway_ms_from_a_torque_ramp(kind):
    rng = np.random.default_rng(3)
    dt, ramp = 1e-3, 0.02                         # 1 kHz samples, torque ramp 0.02 N m/s
    t = np.arange(0.0, 4.0, dt)
    torque = ramp * t
    t_b = MS / ramp                               # ideal stiction: sticks until torque = Ms
    accel = 50.0                                  # rad/s^2 after breakaway
    speed = np.where(t > t_b, accel * (t - t_b), 0.0)
    disp = np.where(t > t_b, 0.5 * accel * (t - t_b) ** 2, 0.0)
    noise = 1e-4 if kind == "speed" else 1e-7
    motion = (speed if kind == "speed" else disp) + rng.normal(0.0, noise, t.size)
    Ms_est = breakaway_ms(torque, motion, kind=kind)
    # detection needs the motion to exceed 10 noise levels (+ a 3-noise excursion): the
    # lag is (13 noise / accel) for speed, sqrt(2 x 13 noise / accel) for displacement
    lag = 13 * noise / accel if kind == "speed" else np.sqrt(2 * 13 * noise / accel)
    assert MS - ramp * dt <= Ms_est <= MS + ramp * (lag + dt)


def test_malformed_inputs_raise_parameter_errors():
    M = np.linspace(0.1, 1.0, 5)
    eta = efficiency_input(M, K_ML, MC)
    cases = [((M, eta[:4]), "eta"), ((M[:2], eta[:2]), "M_in"),
             ((M, np.where(M > 0.5, np.nan, eta)), "eta"), ((M, eta + 0.7), "eta"),
             ((M, -eta), "eta"), ((-M, eta), "M_in")]
    for args, name in cases:
        with pytest.raises(ParameterError) as e:
            identify_efficiency(*args)
        assert e.value.parameter == name
    with pytest.raises(ParameterError) as e:
        identify_efficiency(M, np.where(M > 0.5, 1.2, eta))
    assert e.value.value == 1.2
    with pytest.raises(ParameterError):
        fit_stribeck([1.0, 2.0], [0.1, 0.1])
    with pytest.raises(ParameterError):
        breakaway_ms(np.linspace(0, 1, 50), np.zeros(50), threshold=1e-3)   # no breakaway


# ---------------------------------------------------------------------------------------
# CSV and the CLI report


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_read_efficiency_csv_formats(tmp_path):
    M = np.linspace(0.2, 2.0, 8)
    eta = efficiency_input(M, K_ML, MC)
    rows = [f"{float(m)!r},{float(e)!r}" for m, e in zip(M, eta)]
    for name, text in [("h.csv", "M_in [N m],eta\n" + "\n".join(rows)),
                       ("n.csv", "# datasheet curve\n\n" + "\n".join(rows) + "\n"),
                       ("s.csv", "torque;efficiency\n"
                        + "\n".join(r.replace(",", ";") for r in rows)),
                       ("w.txt", "\n".join(r.replace(",", "  ") for r in rows))]:
        Mr, er = read_efficiency_csv(write(tmp_path, name, text))
        np.testing.assert_array_equal(Mr, M)
        np.testing.assert_array_equal(er, eta)


@pytest.mark.parametrize("body,line,value", [
    ("M,eta\n0.5,0.7\n1.0,abc\n1.5,0.8\n", 3, "abc"),
    ("0.5,0.7\n1.0,0.75,9\n1.5,0.8\n", 2, "1.0,0.75,9"),
    ("0.5,0.7\n1.0,75\n1.5,0.8\n", 2, "75"),
    ("0.5,0.7\n-1.0,0.7\n1.5,0.8\n", 2, "-1.0"),
    ("0.5,0.7\n1.0,nan\n1.5,0.8\n", 2, "nan"),
])
def test_malformed_csv_names_file_line_and_value(tmp_path, body, line, value):
    path = write(tmp_path, "bad.csv", body)
    with pytest.raises(ParameterError) as e:
        read_efficiency_csv(path)
    assert e.value.parameter == f"{path}, line {line}"
    assert e.value.value == value
    assert str(path) in str(e.value)


def test_too_short_or_missing_csv(tmp_path):
    with pytest.raises(ParameterError):
        read_efficiency_csv(write(tmp_path, "short.csv", "M,eta\n0.5,0.7\n1.0,0.8\n"))
    with pytest.raises(ParameterError) as e:
        read_efficiency_csv(tmp_path / "missing.csv")
    assert e.value.parameter == "path"


def test_identify_command_report(tmp_path):
    rng = np.random.default_rng(1)
    M, eta = synthetic_eta(rng)
    path = write(tmp_path, "eff.csv", "M_in,eta\n" + "\n".join(f"{m},{e}" for m, e in zip(M, eta)))
    report = identify_command(path)
    fit = identify_efficiency(*read_efficiency_csv(path))
    assert str(path) in report and "K_ML" in report and "Mc" in report
    assert f"{fit.K_ML:.6g}" in report and f"{fit.Mc:.6g}" in report
    assert len(report.splitlines()) > len(M)          # one row per measured point
