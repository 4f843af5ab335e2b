"""Three planar problems computed by Exudyn (an independent flexible multibody code), and
the convergence study behind each reference stored in a source checkout's
``validation/exudyn/``.

* ``pendulum``: the Kozlowski link (1 m, 5 kg/m, EI = 1000 N m^2) released at rest
  horizontal under gravity, with geometric stiffening, 1.5 s, 8 elements;
* ``tip-mass``: a [B] link (1 m) with a 0.1 kg tip mass turned by the torque pulse
  0.4 N m over 2 s, no gravity, 3 s, 4 elements;
* ``two-link``: [B]'s two links (1 m and 0.5 m), payload 0.15 kg, torque pulses
  (0.2, 0.05) N m over 2 s, no gravity, 3 s, 4 + 2 elements.

Exudyn models each link with ANCF Cable2D elements
(:func:`chrono_flex.bench_perf.exudyn_cable_chain`): cubic Hermite in position like the
reference engine's elements, but in absolute coordinates with the full geometric
nonlinearity and an axial stiffness EA (the reference link is inextensible and its
geometric stiffening is the second-order foreshortening). :func:`generate` runs Exudyn at
the matched resolution (the same elements, step h/2), at step h (its time error) and
with twice the elements (its discretisation error), and returns the data a case reads.
"""

import numpy as np

from .. import scenarios
from ..bench_perf import exudyn_cable_chain
from ..planar.arm import PlanarArm
from ..planar.params import Payload

DT_OUT = 0.01


def _pendulum(n):
    return PlanarArm([scenarios.kozlowski_link(n)], gravity=True, geometric_stiffening=True)


def _tip_mass(n):
    return PlanarArm([scenarios.bien_link(1.0, n)], payload=Payload(0.1),
                     geometric_stiffening=True)


def _two_link(n):
    return PlanarArm([scenarios.bien_link(1.0, n), scenarios.bien_link(0.5, max(1, n // 2))],
                     payload=Payload(0.15), geometric_stiffening=True)


#: name: (arm builder of n elements, n, t_end s, initial joint angles, torque, Exudyn step
#: h s: the stored reference is at h/2)
PROBLEMS = {
    "pendulum": (_pendulum, 8, 1.5, [0.0], None, 2e-4),
    "tip-mass": (_tip_mass, 4, 3.0, [0.0], scenarios.pulse(0.4, 2.0), 1e-3),
    "two-link": (_two_link, 4, 3.0, [0.0, 0.0], scenarios.pulse([0.2, 0.05], 2.0), 1e-3),
}


def _exudyn(name, n, step):
    build, _, t_end, angles0, torque, _ = PROBLEMS[name]
    return exudyn_cable_chain(build(n), step, t_end, angles0, torque, what=name,
                              dt_out=DT_OUT)


def differences(a, b):
    """Raw differences of two runs (dicts of :func:`exudyn_cable_chain`'s form, the same
    times): max |angle| per joint (rad), max |tip position| (m), max |deflection| per
    link (m)."""
    m = min(len(a["t"]), len(b["t"]))
    return dict(angles=np.max(np.abs(a["angles"][:m] - b["angles"][:m]), axis=0),
                tip=float(np.max(np.linalg.norm(a["tip"][:m] - b["tip"][:m], axis=1))),
                deflections=np.max(np.abs(a["deflections"][:m] - b["deflections"][:m]), axis=0))


def generate(name):
    """Exudyn's reference for problem ``name`` and its convergence: a dict of arrays
    (t, angles, tip, deflections at the matched resolution; time_angles, time_tip,
    time_deflections: step h against h/2, Richardson factor 4/3 of a second-order
    method; space_*: n against 2n elements at h/2) and the settings."""
    import exudyn

    build, n, t_end, angles0, torque, h = PROBLEMS[name]
    fine = _exudyn(name, n, h / 2)
    coarse = _exudyn(name, n, h)
    refined = _exudyn(name, 2 * n, h / 2)
    dt, ds = differences(coarse, fine), differences(refined, fine)
    out = dict(t=fine["t"], angles=fine["angles"], tip=fine["tip"],
               deflections=fine["deflections"],
               n_elements=np.array(n), step=np.array(h / 2), t_end=np.array(t_end),
               exudyn_version=np.array(exudyn.__version__))
    for k in ("angles", "tip", "deflections"):
        out[f"time_{k}"] = np.atleast_1d(4.0 / 3.0 * np.asarray(dt[k]))
        out[f"space_{k}"] = np.atleast_1d(np.asarray(ds[k]))
    return out
