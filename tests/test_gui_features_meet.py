"""Where features meet: a language switch in presentation mode, and the short random walk that drives the whole
window as a teacher does (tests/walk.py; the long walks are tests/random_walk.py)."""

from __future__ import annotations

import random

import pytest
from shiboken6 import isValid

from tests import gui_lessons
from tests.walk import Walker, lesson_words

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


WALKS = [("two-heads", 11, 100), ("cross-attention", 3, 100), ("lab-no-layernorm", 3, 120)]  # 320 actions


@pytest.mark.parametrize("lesson, seed, actions", WALKS)
def test_a_short_walk_through_every_feature_raises_nothing_keeps_weights_finite_and_undoes_to_the_start(
    qtbot, start_window, lesson, seed, actions
):
    """tests/walk.py's actions on three lessons: every dock, the lab (on the lab lesson it is running from the
    start, so the window is built anew under it), training steps up to the largest learning rate, F5 and Esc,
    the text size, both languages, other lessons and models. tests/random_walk.py runs the long walks."""
    controller = start_window(lesson)
    walker = Walker(controller, random.Random(seed), lesson_words(controller.state))
    lab_lesson = controller.state.lab is not None
    if lab_lesson:
        lab = controller.window.lab_dock.widget()
        lab.run_button.click()  # the lesson's experiment, its default seeds and steps: it runs through the walk
        assert lab.running
    walker.run(actions)
    if lab_lesson:
        assert walker.rebuilds_while_training >= 2
