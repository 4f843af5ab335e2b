"""Contact scenes (docs/chrono.md §13): a link swinging into a post, a link pushing a
box along a table; the pure helpers that measure them."""

import numpy as np
import pytest

from chrono_flex.chrono.contact_scenes import (contact_events, energy_through_contacts,
                                               largest_rise, strike_measures)
from tests._examples import load


def test_contact_events_are_the_runs_of_steps_in_contact():
    on = [False, True, True, False, False, True, False, True]
    assert contact_events(on) == [(1, 2), (5, 5), (7, 7)]
    assert contact_events([False, False]) == []


def test_energy_through_a_contact_is_taken_from_the_steps_around_it():
    E = np.array([5.0, 5.0, 4.0, 3.0, 3.0, 3.5, 2.0])
    on = np.array([False, False, True, True, False, True, False])
    # event 1: E[4] - E[1]; event 2: E[6] - E[4]
    assert np.allclose(energy_through_contacts(E, on), [3.0 - 5.0, 2.0 - 3.0], atol=0)


def test_largest_rise_is_the_largest_increase_over_any_interval():
    assert largest_rise([3.0, 1.0, 2.5, 0.5, 1.0]) == pytest.approx(1.5, abs=1e-15)
    assert largest_rise([3.0, 2.0, 1.0]) == 0.0


def test_a_tip_impulse_on_a_rigid_link_gives_the_rebound_of_newtons_law():
    # a rigid link (I = m L^2 / 3) struck at the tip by J = (1 + e) I omega / L leaves
    # with -e omega: the rebound is e
    m, L, w, e, h = 1.0, 1.0, 0.5, 0.5, 1e-3
    I = m * L ** 2 / 3
    J = (1 + e) * I * w / L
    F = np.zeros((5, 3))
    F[2, 1] = -J / h
    P = np.tile([L, 0.0, 0.0], (5, 1))
    r = strike_measures(F, P, h, I * w)
    assert r["rebound"] == pytest.approx(e, rel=1e-12)
    assert r["impulse"][1] == pytest.approx(-J, rel=1e-12)
    assert r["in_contact"].tolist() == [False, False, True, False, False]


@pytest.mark.pychrono
def test_post_strike_example_gives_the_same_strike_in_both_formulations():
    ex = load("chrono_post_strike")
    res = ex.run(t_end=0.15, step=1e-3)
    e, b = res["element"], res["beam"]
    # the case scene.contact-post-strike's bound at 1 ms: each formulation's impulse
    # changes by 5.4e-3 N s from 1 ms to 0.5 ms (seen 1.1e-3 N s apart here)
    assert abs(e["impulse"][1] - b["impulse"][1]) < 5.4e-3 + 5.5e-3
    # the flexible link leaves backwards, with more than the rigid link's e = 0.5
    # (the first mode throws it off) and less than it came with
    for r in (e, b):
        assert 0.5 < r["rebound"] < 1.0
        # the tip strikes at 0.05 s (0.025 rad at 0.5 rad/s), to a step
        first = r["t"][np.argmax(r["in_contact"])]
        assert first == pytest.approx(0.05, abs=1.5e-3)
        # energy never rises through a contact (implicit Euler only takes energy
        # without contact: the case scene.contact-post-energy measures it)
        assert np.all(energy_through_contacts(r["energy"], r["in_contact"]) < 0)


@pytest.mark.pychrono
def test_table_push_example_lands_the_link_and_sweeps_the_box_along():
    ex = load("chrono_table_push")
    # a short version: two elements, 4 ms, a 6 cm sweep over 0.4 s (its largest
    # deceleration 5.77 * 0.06 / 0.4^2 = 2.2 m/s^2 stays below the box's on the table,
    # mu g = 2.9 m/s^2: the box stays in touch to the end)
    travel, t_lower, t_push = -0.06, 0.3, 0.7
    res = ex.run(t_end=0.75, step=4e-3, formulations=("element",), n_elements=2,
                 travel=travel, t_lower=t_lower, t_push=t_push)
    r = res["element"]
    t, tip, box, Fs = r["t"], r["tip"], r["box"], r["forces"]
    # the tip lands and presses on the table before the carriage moves: the table
    # pushes up on the tip station (it rings after landing, so on average) and on none
    # of the others (they are above it)
    before = (t > t_lower - 0.05) & (t <= t_lower)
    assert np.mean(Fs[before, -1, 1]) > 0.5 and np.all(Fs[before, :-1] == 0.0)
    # ... its sphere on the table top (y = radius): never into it by more than the
    # weld's and ADMM's micrometres (1e-5 m), and off it by less than the ringing after
    # the landing (up to 0.2 mm seen at 4 ms; 0.5 mm)
    y = tip[before, 1] - 0.01
    assert np.all(y > -1e-5) and np.all(y < 5e-4)
    # the box stays on the table (its centre at half its height, 12.5 mm, within 1 mm
    # of rocking) and ends in touch with the tip: a sphere radius and half the box,
    # 30 mm, apart (1 mm: the contact's envelope and the sphere's bite on the corner)
    assert np.all(np.abs(box[:, 1] - 0.0125) < 1e-3)
    assert abs((tip[-1, 0] - box[-1, 0]) - 0.03) < 1e-3
    # it moved with the carriage: the travel less the gap the tip closed first
    gap = (tip[before, 0][-1] - box[0, 0]) - 0.03
    assert box[-1, 0] - box[0, 0] == pytest.approx(travel + gap, abs=1e-3)
    assert gap > 0.01
