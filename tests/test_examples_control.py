"""The control examples run and give the answers their docstrings state."""


from _examples import load


def test_servo_example_predictions():
    ex = load("control_servo_limit_cycle")
    play = ex.predictions["play only, kp = 1000"]
    # the harmonic balance of docs/control.md §4: a root of the loop's eigenvalues (brentq
    # to 1e-13): the stated 19.5 ms and 0.80 mrad to their printed digits
    assert abs(play["period"] - 0.0195) < 5e-5 and abs(play["output"] - 0.80e-3) < 5e-6
    assert not ex.predictions["play + friction, kp = 1000"]["exists"]
    assert ex.predictions["play + friction, kp = 3000"]["exists"]
    assert ex.predictions["kp = 1000, friction compensated"]["exists"]


def test_torque_observer_example():
    ex = load("control_torque_observer")
    # the docstring's "within about 7 mN m" on the smooth stretch; the lag 3 M'/w_o of
    # a ~1 N m/s torque slope is 3 mN m, so an error far below 1 mN m would be suspicious
    assert 1e-3 < ex.error_smooth < 7e-3


def test_hunting_example_drives():
    ex = load("control_servo_hunting")
    # the docstring's presliding ranges Ms/sigma0: 4.7 urad for the hunting drive, 0.47
    # mrad for [S]'s (exact quotients of the parameters, printed to two digits)
    assert abs(ex.PRESLIDING["hunting"] - 4.67e-6) < 5e-8
    assert abs(ex.PRESLIDING["[S]"] - 4.67e-4) < 5e-6
    assert ex.HUNTING.theta_b == 0.0 and ex.HUNTING.Omega2s == 1e-3
    assert ex.HUNTING.sigma0 == 1e4
    assert [s[2] for s in ex.SERVOS] == [0.0] + [ex.KI] * 4
    # the docstring's fall time at breakaway (~1.9 ms) and gear lag (1.35 ms), to their
    # printed digits: the demonstration sits on the side where the fall is the slower
    assert abs(ex.FALL_TIME - 1.93e-3) < 5e-6 and abs(ex.GEAR_LAG - 1.353e-3) < 5e-7
    assert ex.FALL_TIME > ex.GEAR_LAG
