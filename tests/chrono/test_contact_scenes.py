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
