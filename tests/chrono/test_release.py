"""Releasing a welded body (Attachment.release, BeamWeld.release; docs/chrono.md §9):
afterwards the body falls freely and the link no longer carries it."""

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.errors import ParameterError

pytestmark = pytest.mark.pychrono

from chrono_flex.chrono import scenes

G = 9.81
EI, RHO_A, L = 50.0, 0.5, 1.0


def hanging(formulation):
    """A clamped link (2 elements) under gravity -Y with a 0.1 kg body welded at its tip."""
    system = scenes.new_system(gravity=(0.0, -G, 0.0))
    arm = cf.PlanarArm([cf.Link(length=L, n_elements=2, EI=EI, rho_A=RHO_A)])
    link = scenes.clamped_link(system, arm, formulation)
    body = scenes.free_body(system, 0.1, (1e-4,) * 3, (L, 0.0, 0.0))
    kw = dict(stiffness_ratio=100.0) if formulation == "element" else {}
    return system, link, body, link.attach(body, **kw)


@pytest.mark.parametrize("formulation", ["element", "beam"])
def test_a_released_body_falls_freely_and_leaves_the_link(formulation):
    system, link, body, weld = hanging(formulation)
    h = 1e-3
    scenes.run(system, h, 0.05, lambda: 0.0)
    assert np.linalg.norm(weld.force) > 0.05       # it carries the body ...
    y0, v0 = body.GetPos().y, body.GetPosDt().y
    weld.release()
    assert weld.released and weld.released_at == pytest.approx(0.05)
    assert np.all(weld.force == 0.0) and np.all(weld.moment == 0.0)
    # the release moves nothing
    assert body.GetPos().y == y0 and body.GetPosDt().y == v0
    rows = scenes.run(system, h, 0.15, lambda: [system.GetChTime(), body.GetPos().y,
                                                body.GetPosDt().y])
    t = rows[:, 0] - 0.05
    # free fall: the trapezoidal rule (HHT, alpha = 0) is exact for a constant
    # acceleration when it starts from it, and the release sets it (-g): round-off
    # (4e-15 m/s seen)
    assert np.allclose(rows[:, 2], v0 - G * t, rtol=0, atol=1e-12)
    assert np.allclose(rows[:, 1], y0 + v0 * t - 0.5 * G * t ** 2, rtol=0, atol=1e-12)
    # ... and the link springs back without it: its tip (static sag q L^4 / 8 EI = 1.2 cm)
    # stays above the body, which fell 5 cm
    assert link.tip_deflections()[0] > rows[-1, 1] + 0.03
    with pytest.raises(ParameterError, match="already released"):
        weld.release()


def test_releasing_one_of_two_welds_keeps_the_other():
    system = scenes.new_system(gravity=(0.0, -G, 0.0))
    arm = cf.PlanarArm([cf.Link(length=L, n_elements=2, EI=EI, rho_A=RHO_A)])
    link = scenes.clamped_link(system, arm)
    a = scenes.free_body(system, 0.1, (1e-4,) * 3, (L, 0.0, 0.0))
    b = scenes.free_body(system, 0.1, (1e-4,) * 3, (L / 2, 0.0, 0.0))
    wa, wb = link.attach(a, stiffness_ratio=100.0), link.attach(b, s=L / 2, stiffness_ratio=100.0)
    scenes.run(system, 1e-3, 0.02, lambda: 0.0)
    y0, v0 = a.GetPos().y, a.GetPosDt().y
    wa.release()
    assert link.attachments == [wb] and wb.index == 0
    rows = scenes.run(system, 1e-3, 0.1, lambda: [a.GetPos().y, wb.error()[0],
                                                  np.linalg.norm(wb.force)])
    # a falls freely (round-off, as above); b stays welded: its gap is its force over
    # k_p (micrometres), not the centimetre a free body would have fallen by
    t = 1e-3 * np.arange(1, len(rows) + 1)
    assert np.allclose(rows[:, 0], y0 + v0 * t - 0.5 * G * t ** 2, rtol=0, atol=1e-12)
    assert np.allclose(rows[:, 1], rows[:, 2] / wb.stiffness[0], rtol=1e-6, atol=0)
    assert rows[:, 1].max() < 1e-4
