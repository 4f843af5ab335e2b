"""Friction laws and the LuGre family (docs/drive.md §1-2)."""

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from chrono_flex.drive import (DissipativeLuGre, DriveParams, LuGre, ModifiedLuGre,
                               classic_static, coulomb, modified_coulomb, modified_stribeck, stribeck,
                               stribeck_curve, viscous)
from chrono_flex.errors import ParameterError

# Canudas de Wit et al. 1995 (N, m, s)
CW = dict(sigma0=1e5, sigma1=math.sqrt(1e5), sigma2=0.4, Fc=1.0, Fs=1.5, vs=1e-3)
# The exponential variant is passive for sigma1 vd / sqrt(2e) <= 4 Fc, i.e. vd <= 0.0295 m/s.
VD = 0.02


def models():
    return {
        "classic": LuGre(**CW),
        "cap": DissipativeLuGre(**CW),
        "exponential": DissipativeLuGre(**CW, damping="exponential", vd=VD),
        "modified": ModifiedLuGre(**CW, T_min=1e-3),
        "drive": DriveParams.serebrenny2019().friction_model,
    }


def run_lugre(model, v_of_t, t_end, z0, rtol=1e-10, max_step=np.inf, n_out=4001):
    """Integrate z and the work W = int F v dt for a prescribed velocity history."""
    def rhs(t, y):
        v = v_of_t(t)
        dz, F = model.rates(v, y[0])
        return [dz, F * v]

    t_eval = np.linspace(0.0, t_end, n_out)
    sol = solve_ivp(rhs, (0.0, t_end), [z0, 0.0], method="Radau", t_eval=t_eval, rtol=rtol,
                    atol=[1e-14, 1e-14], max_step=max_step)
    assert sol.success
    return sol.t, sol.y[0], sol.y[1]


def worst_energy_gain(model, t, z, W, z0):
    """max over t0 < t1 of -(dissipated energy on [t0, t1]), dissipated = W - storage change."""
    D = W - (model.stored_energy(z) - model.stored_energy(z0))
    return float(np.max(np.maximum.accumulate(D) - D))


def piecewise_history(rng, v_slow, v_fast, n=5, ramp=2e-4):
    """Velocity levels held 2-12 ms, each slow (|v| < v_slow) or fast (|v| < v_fast),
    joined by short ramps: creeping builds z up, fast jumps then test the damping."""
    dur = rng.uniform(2e-3, 12e-3, n)
    lev = np.where(rng.random(n) < 0.5, rng.uniform(-v_slow, v_slow, n),
                   rng.uniform(-v_fast, v_fast, n))
    tk, vk, t = [0.0], [lev[0]], 0.0
    for k in range(n):
        t += dur[k]
        tk.append(t)
        vk.append(lev[k])
        if k + 1 < n:
            t += ramp
            tk.append(t)
            vk.append(lev[k + 1])
    tk, vk = np.array(tk), np.array(vk)
    return t, lambda s: float(np.interp(s, tk, vk))


# ---------------------------------------------------------------------------------------
# static curves


def test_stribeck_shapes_limits_and_continuity():
    v = np.array([0.0, 1e-9, 1e3])
    for shape in ("lorentzian", "tustin", "gaussian", "generalized"):
        g = stribeck_curve(v, 1.0, 1.5, 1e-3, shape, delta=0.7)
        # g(0) = Fs exactly; far beyond vs the curve is Fc up to its tail, which is largest
        # for the Lorentzian, (Fs - Fc) / (1 + 1e12) ~ 5e-13.
        assert g[0] == 1.5
        assert abs(g[2] - 1.0) < 1e-12
    # the generalized curve with delta = 2 is the Gaussian, with delta = 1 Tustin's
    vv = np.linspace(-5e-3, 5e-3, 101)
    np.testing.assert_allclose(stribeck_curve(vv, 1, 1.5, 1e-3, "generalized", 2.0),
                               stribeck_curve(vv, 1, 1.5, 1e-3, "gaussian"), rtol=1e-14)
    np.testing.assert_allclose(stribeck_curve(vv, 1, 1.5, 1e-3, "generalized", 1.0),
                               stribeck_curve(vv, 1, 1.5, 1e-3, "tustin"), rtol=1e-14)


def test_classic_switching_model():
    # at v = 0 the force balances the external force up to Fs; elsewhere the signed curve
    f_ext = np.array([0.7, -0.7, 3.0, -3.0])
    np.testing.assert_array_equal(classic_static(np.zeros(4), f_ext, 1.0, 1.5, 1e-3),
                                  [0.7, -0.7, 1.5, -1.5])
    assert classic_static(-0.01, 3.0, 1.0, 1.5, 1e-3) == stribeck(-0.01, 1.0, 1.5, 1e-3)
    np.testing.assert_array_equal(coulomb(np.array([-2.0, 0.0, 1e-300]), 0.3), [-0.3, 0.0, 0.3])


def test_modified_laws_are_continuous_lines_inside_the_zone():
    dv = 1e-4
    for v in (0.3 * dv, -0.7 * dv):
        # inside |v| <= dv: exactly Fc k v and Fs k v ([S] eqs. 2-3)
        assert modified_coulomb(v, 0.04, dv) == pytest.approx(0.04 * v / dv, rel=1e-15)
        assert modified_stribeck(v, 0.04, 0.05, 10.0, dv) == pytest.approx(0.05 * v / dv, rel=1e-15)
    # continuity at |v| = dv: one ulp either side differs by the curve's slope times 1 ulp
    for s in (1.0, -1.0):
        lo = modified_stribeck(s * dv * (1 - 1e-12), 0.04, 0.05, 10.0, dv)
        hi = modified_stribeck(s * dv * (1 + 1e-12), 0.04, 0.05, 10.0, dv)
        assert abs(hi - lo) < 1e-12 * 0.05 * 10
    # outside: the shifted curve
    assert modified_stribeck(5.0, 0.04, 0.05, 10.0, dv) == pytest.approx(
        stribeck(5.0 - dv, 0.04, 0.05, 10.0), rel=1e-15)


def test_scalar_and_array_paths_agree():
    v = np.array([-3.0, -1e-3, 0.0, 2e-5, 0.02, 7.0])
    z = np.array([1e-6, -2e-6, 0.0, 3e-6, -1e-5, 1e-5])
    for name, m in models().items():
        dz, F = m.rates(v, z)
        for k in range(v.size):
            dzk, Fk = m.rates(float(v[k]), float(z[k]))
            assert isinstance(Fk, float)
            # same formula, float (math) vs array (numpy) arithmetic: a few ulps
            assert Fk == pytest.approx(F[k], rel=1e-13, abs=1e-300), name
            assert dzk == pytest.approx(dz[k], rel=1e-13, abs=1e-300), name


# ---------------------------------------------------------------------------------------
# LuGre: steady state, bound, presliding stiffness


@pytest.mark.parametrize("name", ["classic", "cap", "exponential", "modified", "drive"])
def test_steady_state_is_stribeck_plus_viscous(name):
    m = models()[name]
    scale = m.vs
    v = np.concatenate([-np.logspace(-3, 3, 25), np.logspace(-3, 3, 25)]) * scale
    z = m.steady_state_z(v)
    # dz/dt = v - v (s0 |v| z / (g v)) cancels to rounding: a few ulps of |v|
    assert np.all(np.abs(m.dzdt(v, z)) <= 1e-14 * np.abs(v))
    expected = stribeck(v, m.Fc, m.Fs, m.vs, m.shape, m.delta) + viscous(v, m.sigma2)
    np.testing.assert_allclose(m.force(v, z), expected, rtol=1e-13)
    np.testing.assert_allclose(m.steady_state_force(v), expected, rtol=1e-15)

    # and the dynamics get there: from z = 0 at constant v, integrate 40 time constants
    for vk in (0.3 * scale, -4.0 * scale):
        T = m.time_constant(vk)
        sol = solve_ivp(lambda t, y: [m.dzdt(vk, y[0])], (0, 40 * T), [0.0], method="Radau",
                        rtol=1e-10, atol=1e-16)
        F_end = m.force(vk, sol.y[0, -1])
        # exp(-40) of transient is left; the rest is solver error, ~rtol relative
        assert F_end == pytest.approx(float(m.steady_state_force(vk)), rel=1e-8)


@pytest.mark.parametrize("name", ["classic", "cap", "exponential"])
def test_bristle_deflection_stays_inside_fs_over_sigma0(name):
    m = models()[name]
    zmax = m.Fs / m.sigma0
    rng = np.random.default_rng(7)
    for _ in range(2):
        t_end, v = piecewise_history(rng, m.vs, 0.2)
        z0 = rng.uniform(-1.0, 1.0) * zmax
        _, z, _ = run_lugre(m, v, t_end, z0, rtol=1e-9, max_step=2e-4, n_out=2001)
        # z approaches +-g/sigma0 <= Fs/sigma0 from inside; allow the solver's atol (1e-14)
        # and rtol (1e-9) on top
        assert np.max(np.abs(z)) <= zmax * (1 + 1e-9) + 1e-14
        # ...and the histories do push z to the bound (else the test would prove nothing)
        assert np.max(np.abs(z)) > 0.6 * zmax


def test_modified_bristle_bound_includes_v_T_min():
    m = models()["modified"]
    v_fast = 10.0 * m.transition_speed          # well above v_t: z -> v T_min
    rng = np.random.default_rng(3)
    t_end, v = piecewise_history(rng, m.vs, v_fast)
    _, z, _ = run_lugre(m, v, t_end, 0.0, rtol=1e-9, max_step=2e-4, n_out=2001)
    bound = m.z_max(v_fast)
    assert bound == pytest.approx(v_fast * m.T_min)
    assert np.max(np.abs(z)) <= bound * (1 + 1e-9) + 1e-14     # solver rtol/atol
    assert np.max(np.abs(z)) > m.Fs / m.sigma0                  # the classic bound is exceeded


@pytest.mark.parametrize("name", ["classic", "cap", "exponential", "drive"])
def test_presliding_stiffness_is_sigma0(name):
    m = models()[name]
    # constant small speed v0 from z = 0: closed form z(x) = (g/s0)(1 - exp(-s0 x / g)),
    # so dF/dx at x = 0 is s0 (1 - s1 v0 / g) -> s0; integrate over dx and difference.
    v0 = 1e-6 * m.vs
    dx = 1e-4 * m.Fs / m.sigma0
    sol = solve_ivp(lambda t, y: [m.dzdt(v0, y[0])], (0, dx / v0), [0.0], method="Radau",
                    rtol=1e-12, atol=1e-22)
    slope = (m.force(v0, sol.y[0, -1]) - m.force(v0, 0.0)) / dx
    # error terms: curvature s0 dx / (2 g) = 5e-5 relative, s1 v0 / g; sigma2 v0 cancels
    tol = m.sigma0 * dx / m.Fc + m.sigma1_eff(v0) * v0 / m.Fc + 1e-9
    assert slope == pytest.approx(m.sigma0, rel=tol)


# ---------------------------------------------------------------------------------------
# passivity


def test_dissipative_variants_never_gain_energy():
    rng = np.random.default_rng(11)
    all_models = models()
    for name in ("cap", "exponential"):
        m = all_models[name]
        gains, scale = [], 0.0
        for _ in range(3):
            t_end, v = piecewise_history(rng, m.vs, 0.1)
            z0 = rng.uniform(-1.0, 1.0) * m.Fs / m.sigma0
            t, z, W = run_lugre(m, v, t_end, z0, rtol=1e-9, max_step=2e-4, n_out=2001)
            gains.append(worst_energy_gain(m, t, z, W, z0))
            scale = max(scale, np.max(np.abs(W)))
        # W is integrated to rtol 1e-9: allow 1e-7 of its magnitude
        assert max(gains) <= 1e-7 * scale, name


def test_classic_lugre_is_passive_only_below_4fc_over_sigma1():
    classic = models()["classic"]
    v_pass = classic.passivity_speed
    assert v_pass == pytest.approx(4 * 1.0 / math.sqrt(1e5))  # 0.0126 m/s (docs/drive.md §2)
    rng = np.random.default_rng(5)
    for _ in range(2):
        t_end, v = piecewise_history(rng, classic.vs, 0.95 * v_pass)
        z0 = rng.uniform(-1.0, 1.0) * classic.Fs / classic.sigma0
        t, z, W = run_lugre(classic, v, t_end, z0, rtol=1e-9, max_step=2e-4, n_out=2001)
        # below the passivity speed: no gain beyond the solver's rtol on W
        assert worst_energy_gain(classic, t, z, W, z0) <= 1e-7 * np.max(np.abs(W))

    # Above it: creep (z -> Fs/s0 at v << vs), then a jump to 0.05 m/s. While z is still near
    # Fs/s0 > g/s0 the dissipation rate |v| w^2/g + s1 v^2 (1 - w/g) + s2 v^2 (w = s0 z sign v)
    # is negative ([BO]); the cap variant holds it >= 0 with the same history.
    def v(t):
        return 1e-4 if t < 0.05 else min(0.05, 1e-4 + (t - 0.05) / 1e-4 * 0.05)

    z0 = 0.999 * classic.Fs / classic.sigma0
    gain = {}
    for name in ("classic", "cap", "exponential"):
        m = models()[name]
        t, z, W = run_lugre(m, v, 0.052, z0, rtol=1e-10, max_step=2e-5, n_out=5201)
        gain[name] = worst_energy_gain(m, t, z, W, z0)
    # energy scale of the violation: ~0.3 W for ~1e-4 s -> ~1e-5 J, far above solver error
    assert gain["classic"] > 1e-6
    assert gain["cap"] <= 1e-9 and gain["exponential"] <= 1e-9

    # [S] eq. 12 as printed bounds sigma1 by 4 sigma0(v) g/|v|: 1e5 times the cap here, so
    # on the same history it gains energy like the classic model; the cap does not
    printed = ModifiedLuGre(**CW, T_min=1e-7, damping="printed")    # v_t = 100 m/s
    capped = ModifiedLuGre(**CW, T_min=1e-7)
    assert not printed.passive and capped.passive
    for m, gains in ((printed, True), (capped, False)):
        t, z, W = run_lugre(m, v, 0.052, z0, rtol=1e-10, max_step=2e-5, n_out=5201)
        assert (worst_energy_gain(m, t, z, W, z0) > 1e-6) is gains


# ---------------------------------------------------------------------------------------
# modified LuGre


def test_modified_equals_lugre_below_transition_speed():
    base = dict(CW)
    for T_min in (1e-4, 1e-3):
        mod_cap = ModifiedLuGre(**base, T_min=T_min)
        mod_const = ModifiedLuGre(**base, T_min=T_min, damping="constant")
        vt = mod_cap.transition_speed
        # transition speed: g(vt)/vt = sigma0 T_min, and ~ Fc/(sigma0 T_min) for vt >> vs
        assert mod_cap.g(vt) / vt == pytest.approx(base["sigma0"] * T_min, rel=1e-12)
        assert vt == pytest.approx(base["Fc"] / (base["sigma0"] * T_min), rel=1e-6)
        v = np.linspace(-0.999 * vt, 0.999 * vt, 301)
        z = np.linspace(-1.5e-5, 1.5e-5, 301)[::-1]
        # below vt sigma0(v) = sigma0: bit-identical to the LuGre model with the same damping
        np.testing.assert_array_equal(mod_const.force(v, z), LuGre(**base).force(v, z))
        np.testing.assert_array_equal(mod_cap.force(v, z), DissipativeLuGre(**base).force(v, z))
        np.testing.assert_array_equal(mod_cap.dzdt(v, z), LuGre(**base).dzdt(v, z))
        # above vt the time constant is exactly T_min (classic: shorter)
        vf = np.array([1.5, 4.0, 20.0]) * vt
        np.testing.assert_allclose(mod_cap.time_constant(vf), T_min, rtol=1e-14)
        assert np.all(LuGre(**base).time_constant(vf) < T_min)


def test_modified_follows_static_curve_above_transition_speed():
    m = ModifiedLuGre(**CW, T_min=1e-4)
    T, vt = m.T_min, m.transition_speed
    P = 0.2                                   # speed period, P >> T_min

    def v(t):
        return vt * (4.0 + 2.0 * math.sin(2 * math.pi * t / P))   # 2 vt .. 6 vt

    def dv(t):
        return vt * 2.0 * (2 * math.pi / P) * math.cos(2 * math.pi * t / P)

    t, z, _ = run_lugre(m, v, P, float(m.steady_state_z(v(0.0))), rtol=1e-11, n_out=2001)
    vv = np.array([v(s) for s in t])
    a = np.array([dv(s) for s in t])
    F = m.force(vv, z)
    F_static = m.steady_state_force(vv)
    # Above vt, dz/dt = v - z/T_min exactly: z lags v T_min by T_min^2 dv/dt, so
    # F - F_static = T_min dv/dt (sigma1(v) - g(v)/v) to first order in T_min/P.
    predicted = T * a * (m.sigma1_eff(vv) - m.g(vv) / vv)
    settled = t > 20 * T                      # start-up transient exp(-t/T_min) gone
    err = np.abs((F - F_static) - predicted)[settled]
    # second-order terms are O(2 pi T_min / P) = 3e-3 of the first-order lag
    assert np.max(err) <= 0.02 * np.max(np.abs(predicted))
    # so the modified model is the static curve up to a lag that vanishes with T_min:
    assert np.max(np.abs(F - F_static)[settled]) <= 1.02 * np.max(np.abs(predicted))
    assert np.max(np.abs(predicted)) < 0.02 * m.Fc


# ---------------------------------------------------------------------------------------
# validation


@pytest.mark.parametrize("field,value", [("sigma0", 0.0), ("sigma0", -1.0), ("sigma1", -0.1),
                                         ("Fs", 0.5), ("vs", 0.0), ("Fc", float("nan"))])
def test_bad_lugre_parameters_name_parameter_and_value(field, value):
    kw = dict(CW)
    kw[field] = value
    with pytest.raises(ParameterError) as e:
        LuGre(**kw)
    assert e.value.parameter == field
    assert e.value.value == value or (value != value and e.value.value != e.value.value)


@pytest.mark.parametrize("T_min", [0.0, -1e-6, None])
def test_modified_lugre_needs_positive_T_min(T_min):
    with pytest.raises(ParameterError) as e:
        ModifiedLuGre(**CW, T_min=T_min)
    assert e.value.parameter == "T_min" and e.value.value == T_min


def test_exponential_variant_needs_vd_and_reports_passivity():
    with pytest.raises(ParameterError) as e:
        DissipativeLuGre(**CW, damping="exponential")
    assert e.value.parameter == "vd"
    assert DissipativeLuGre(**CW, damping="exponential", vd=VD).passive
    assert not DissipativeLuGre(**CW, damping="exponential", vd=0.05).passive
