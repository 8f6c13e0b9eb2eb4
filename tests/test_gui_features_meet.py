"""Where features meet: a language switch in presentation mode, and the short random walk that drives the whole
window as a teacher does (tests/walk.py; the long walks are tests/random_walk.py)."""

from __future__ import annotations

from shiboken6 import isValid

from tests import gui_lessons

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures


def test_a_language_switch_in_presentation_mode_translates_the_stage_and_keeps_every_menu(qtbot, start_window):
    """Presentation mode gave the window every menu's action (its shortcuts work with the menus hidden); gathering
    them freed File ▸ Open Recent ("RuntimeError: QMenu already deleted" at the next language switch, which then
    left the stage's title and explanation in the old language)."""
    controller = start_window("two-heads")
    controller.window.presentation.present.trigger()  # F5: a new window, full screen
    window = controller.window
    window.stepper.next_action.trigger()
    assert isValid(window.menu_bar.recent_menu)
    for lang, words in (("zh", "编码器"), ("en", "Encoder"), ("zh", "编码器")):
        controller.set_language(lang)
        assert words in window.stage_view.location.text(), window.stage_view.location.text()
        assert isValid(window.menu_bar.recent_menu) and window.menu_bar.recent_menu.actions()
