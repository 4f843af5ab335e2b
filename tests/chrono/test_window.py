"""The live-window check: what it reports with and without a display and PyChrono's
window modules (both faked here), and that the real check never raises."""

import sys

import pytest

from chrono_flex.chrono import window as interactive
from chrono_flex.chrono.window import LiveWindowUnavailable, require_live_window
from chrono_flex.viz import live_window_available

linux_only = pytest.mark.skipif(sys.platform in ("darwin", "win32"),
                                reason="macOS and Windows always count as having a display")


def fake_modules(monkeypatch, present):
    monkeypatch.setattr(interactive, "_importable",
                        lambda name: (True, "") if name in present
                        else (False, f"ModuleNotFoundError: No module named {name!r}"))


def test_real_check_returns_a_reason_and_never_raises():
    ok, reason = live_window_available()
    assert isinstance(ok, bool) and isinstance(reason, str) and reason


@linux_only
def test_no_display_and_no_module(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    fake_modules(monkeypatch, set())
    ok, reason = live_window_available()
    assert not ok
    assert "no display" in reason and "pychrono.irrlicht" in reason and "conda" in reason
    with pytest.raises(LiveWindowUnavailable, match="DISPLAY"):
        require_live_window()


@linux_only
def test_display_but_no_module(monkeypatch):
    monkeypatch.setenv("DISPLAY", ":0")
    fake_modules(monkeypatch, set())
    ok, reason = live_window_available()
    assert not ok and "no display" not in reason and "pychrono.vsg" in reason


@linux_only
def test_module_but_no_display(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    fake_modules(monkeypatch, {"pychrono.vsg"})
    ok, reason = live_window_available()
    assert not ok and "no display" in reason and "PyChrono window module" not in reason


@linux_only
def test_wayland_display_and_vsg(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    fake_modules(monkeypatch, {"pychrono.vsg"})
    assert live_window_available() == (
        True, "display $WAYLAND_DISPLAY=wayland-0, module pychrono.vsg")
    assert require_live_window() == "pychrono.vsg"


def test_a_module_that_fails_to_import_is_reported_not_raised():
    ok, why = interactive._importable("chrono_flex_no_such_module_xyz")
    assert not ok and "ModuleNotFoundError" in why
