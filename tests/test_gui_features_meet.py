"""Where features meet: a language switch in presentation mode, and the short random walk that drives the whole
window as a teacher does (tests/walk.py; the long walks are tests/random_walk.py)."""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from shiboken6 import isValid

from engine import Model
from tests import gui_lessons, test_lab_model
from tests.walk import Walker, lesson_words

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures
ROOT = Path(__file__).resolve().parent.parent


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


WALKS = [("two-heads", 11, 100), ("cross-attention", 3, 100), ("lab-no-layernorm", 3, 120), ("2017-to-today", 3, 100)]


@pytest.mark.parametrize("lesson, seed, actions", WALKS)
def test_a_short_walk_through_every_feature_raises_nothing_keeps_weights_finite_and_undoes_to_the_start(
    qtbot, start_window, lesson, seed, actions
):
    """tests/walk.py's actions on four lessons: every dock (the overview, neuron view, logit lens and 2017 → today
    driven through their own controls), the lab (on the lab lesson it is running from the start, so the window is
    built anew under it), training steps up to the largest learning rate, F5 and Esc,
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


def test_a_diverged_lab_run_is_not_stepped_through_and_the_lab_says_why(qtbot, start_window):
    """The engine refuses a lab model whose weights diverged; the lab's button raised that refusal in its slot."""
    controller = start_window("masked-decoder")
    lab = controller.window.lab_dock.widget()
    model = Model.create(test_lab_model.CONFIG)
    params = {**model.params, "dec.1.self_attn.W_Q": torch.full_like(model.params["dec.1.self_attn.W_Q"], math.nan)}
    lab.run.latest = test_lab_model.progress_of(Model(test_lab_model.CONFIG, params, model.vocabs))
    config = controller.state.config
    lab.attention_panel.setEnabled(True)  # as after a training run's first step
    lab._enable(running=False)
    assert lab.step_through_button.isEnabled()
    lab.step_through_button.click()
    assert "diverged" in lab.status.text() and controller.state.config == config


def test_a_stage_that_overflowed_cannot_be_pinned_by_a_cell_edit(qtbot, start_window):
    """Pinning a stage pins all of it: NaN cells pinned made a lesson that could not be saved or autosaved."""
    controller = start_window("masked-decoder")
    state = controller.state
    stage = "dec.0.self_attn.q"
    overflowed = state.trace.values[stage].clone()
    overflowed[0, 0, 0] = math.inf
    state.trace.values[stage] = overflowed
    messages = []
    state.message.connect(messages.append)
    assert not state.edit_cell(stage, (0, 1, 0), "0.5")
    assert "overflowed" in messages[-1] and state.undo_stack.count() == 0 and stage not in state.trace.overrides


LAB_THEN_EXIT = """
import sys, time
from PySide6.QtWidgets import QApplication
app = QApplication([])
from tests.gui_lessons import start_controller
controller = start_controller("masked-decoder")
lab = controller.window.lab_dock.widget()
lab.start("no-layernorm", seeds=1, steps=400)
end = time.monotonic() + 1.5
while time.monotonic() < end:
    app.processEvents()
assert lab.running
if sys.argv[1] == "delete":
    import shiboken6
    shiboken6.delete(controller)  # its state, and the lab's run with it
print("exiting", flush=True)
"""


@pytest.mark.parametrize("how", ["exit", "delete"])
def test_a_lab_run_ends_cleanly_when_its_owner_goes_or_the_process_ends(tmp_path, how):
    """A QThread destroyed while running aborts the process ("QThread: Destroyed while thread is still running"):
    the run stops first, whether its owner is deleted or a script ends without closing the window."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "STEPFORMER_SETTINGS_DIR": str(tmp_path / "s"),
           "STEPFORMER_DATA_DIR": str(tmp_path / "d")}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", LAB_THEN_EXIT, how], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and "exiting" in done.stdout, done.stderr[-2000:]
    assert "QThread" not in done.stderr and "Traceback" not in done.stderr, done.stderr[-2000:]
