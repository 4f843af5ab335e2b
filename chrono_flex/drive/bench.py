"""Timing of the drive's real-time path: one fixed step (rates + update) of the whole drive
module ([S] eq. 24 with the output shaft), for static and dynamic friction."""

import time

from .. import _checks as ck
from .fixed_step import FixedStepDrive
from .unit import DriveParams, GearDrive


def _best_of(fn, n, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(n)
        best = min(best, time.perf_counter() - t0)
    return 1e6 * best / n


def bench_drive_step(n=20000, repeat=3, voltage=12.0):
    """Microseconds per call on this machine (best of ``repeat`` runs of ``n`` calls).

    Keys: "{friction}_{method}_step_us" for friction in (static, dynamic) and method in
    (rk4, euler): one FixedStepDrive.step of the [S] drive, sliding at speed after a
    12 V start (the drive states plus the output shaft, at the stable step bound);
    "{friction}_rates_tuple_us": one scalar evaluation of the drive's rates;
    "{friction}_rates_us": one call of the ndarray contract GearDrive.rates.
    """
    n = ck.positive_int("n", n)
    repeat = ck.positive_int("repeat", repeat)
    out = {}
    for friction in ("static", "dynamic"):
        drive = GearDrive(DriveParams.serebrenny2019(friction=friction))
        for method in ("rk4", "euler"):
            stepper = FixedStepDrive(drive, drive.max_stable_step(method), method)
            for _ in range(2000):  # leave the start, get into motion
                stepper.step(voltage)

            def run(k, s=stepper):
                step = s.step
                for _ in range(k):
                    step(voltage, 0.0)

            out[f"{friction}_{method}_step_us"] = _best_of(run, n, repeat)
        x = list(stepper.y)

        def tup(k, f=drive.rates_tuple, x=x):
            for _ in range(k):
                f(x[0], x[1], x[2], x[3], x[4], x[5], voltage)

        def arr(k, f=drive.rates, x=stepper.x, a=x[4], w=x[5]):
            for _ in range(k):
                f(0.0, x, a, w, voltage)

        out[f"{friction}_rates_tuple_us"] = _best_of(tup, n, repeat)
        out[f"{friction}_rates_us"] = _best_of(arr, n, repeat)
    return out
