"""The training lab runs in the background: the window answers while it trains; pause, stop, results."""

from __future__ import annotations

import re

import numpy as np
import torch
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QBoxLayout, QScrollArea

from engine.training.lab import NO_LAYERNORM_LRS, watch_sentence
from gui.docks.training_lab import layer_title
from gui.plots.pyqtgraph_compat import fixed_tick_levels
from tests import gui_lessons
from tests import test_gui_i18n as i18n_check
from tests.figure_checks import axis_specs, rule_problems
from tests.gui_lessons import FakePrompts
from tests.gui_window import open_lesson_window, press
from tests.test_gui_present_mode import present

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures


def lab_of(window):
    window.lab_dock.show()
    return window.lab_dock.widget()


def test_the_lab_trains_while_the_window_answers_and_draws_the_result(qtbot):
    window = open_lesson_window(qtbot, "masked-decoder")
    lab = lab_of(window)
    assert lab.start("no-layernorm", seeds=1, steps=4)
    assert lab.running and not lab.run_button.isEnabled()
    cursor = window.state.cursor
    press(qtbot, window, Qt.Key_Right)  # handled at once, while the experiment trains in its thread
    assert window.state.cursor == cursor + 1
    qtbot.waitUntil(lambda: lab.result is not None, timeout=60_000)
    assert lab.verdict.text() == lab.result["verdict"] and lab.run_button.isEnabled()
    assert {arm for arm, _ in lab.items} == set(lab.result["summary"])  # the two arms on one plot
    assert [label.text for _, label in lab.curve_plot.plotItem.legend.items] == list(lab.result["summary"])
    assert all(len(xs) == len(NO_LAYERNORM_LRS) for xs, _ in lab.curves.values())  # done: final loss per rate
    assert lab.layers[:2] == ["dec.embed", "dec.0"] and lab.layers[-1] == "unembed"
    assert len(lab.bars.opts["width"]) == len(lab.layers) and lab.bars.opts["width"][1] > 0
    names = lab.bar_plot.getAxis("left").categories  # the bars named as the map names their boxes, not by id
    assert names[:2] == ["Embedding", "Block 0"] and names[-2:] == ["Final LayerNorm", "Linear + Softmax"]


def test_the_gradient_bars_name_their_layers_in_words_in_either_language():
    decoder = ["dec.embed", "dec.0", "dec.final_norm", "unembed"]
    assert [layer_title(g, decoder, "zh") for g in decoder] == ["词嵌入", "第 0 层", "最终层归一化", "线性层 + Softmax"]
    both = ["enc.embed", "enc.0", "dec.embed", "dec.1", "unembed"]
    assert [layer_title(g, both, "en") for g in both] == [
        "Encoder Embedding",
        "Encoder Block 0",
        "Decoder Embedding",
        "Decoder Block 1",
        "Linear + Softmax",
    ]


def test_the_lab_pauses_and_stop_keeps_what_was_drawn(qtbot):
    window = open_lesson_window(qtbot, "masked-decoder")
    lab = lab_of(window)
    lab.start("no-layernorm", seeds=1, steps=200)
    qtbot.waitUntil(lambda: any(len(xs) >= 2 for xs, _ in lab.curves.values()), timeout=30_000)
    lab.pause_button.setChecked(True)
    qtbot.waitUntil(lambda: lab.runner.waiting, timeout=30_000)  # the step under way is done
    qtbot.wait(50)  # and drawn
    drawn = sum(len(xs) for xs, _ in lab.curves.values())
    qtbot.wait(500)
    assert sum(len(xs) for xs, _ in lab.curves.values()) == drawn and lab.running  # paused, not ended
    lab.stop()
    qtbot.waitUntil(lambda: lab.run_button.isEnabled())
    assert not lab.running and lab.result is None
    assert sum(len(xs) for xs, _ in lab.curves.values()) == drawn and "Stopped" in lab.status.text()


def test_an_experiment_that_does_not_train_draws_its_curves_when_done(qtbot):
    window = open_lesson_window(qtbot, "masked-decoder")
    lab = lab_of(window)
    lab.start("scale-saturation", seeds=2)
    qtbot.waitUntil(lambda: lab.result is not None, timeout=30_000)
    assert len(lab.items) == 4  # 2 arms × 2 seeds, over d_k
    assert lab.result["x"]["label"] == "d_k" and "d_k = 64" in lab.verdict.text()
    # no gradient bars or attention of a model in training, empty on their axes: the curves take the room
    assert not lab.bar_plot.isVisible() and not lab.attention_panel.isVisible() and lab.curve_plot.isVisible()
    assert lab.curve_plot.getAxis("left").labelText == "softmax gradient p(1−p)"  # not "value"
    lab.start("no-layernorm", seeds=1, steps=2)
    assert lab.bar_plot.isVisible() and lab.attention_panel.isVisible()
    assert lab.curve_plot.getAxis("left").labelText == "loss"
    qtbot.waitUntil(lambda: lab.result is not None, timeout=60_000)


def test_a_finished_run_draws_its_curves_on_the_axes_its_result_asks_for(qtbot):
    """The gradient over depth spans orders of magnitude (a log y axis); p(1−p) over d_k and the wall time over the
    tokens are log-log; the final loss over the learning rates has a log x axis."""
    window = open_lesson_window(qtbot, "masked-decoder")
    lab = lab_of(window)
    log_axes = {"gradient-highway": (False, True), "scale-saturation": (True, True), "teacher-forcing": (True, True)}
    for name, axes in log_axes.items():
        lab.start(name, seeds=2)
        qtbot.waitUntil(lambda: lab.result is not None, timeout=30_000)
        assert (lab.curve_plot.getAxis("bottom").logMode, lab.curve_plot.getAxis("left").logMode) == axes
        assert lab.curve_plot.getAxis("left").labelText == lab.result["y"]["label"]
        for side, log in zip(("bottom", "left"), axes):  # labelled at its values or decades, not minor ticks
            levels = fixed_tick_levels(lab.curve_plot.getAxis(side))
            assert (levels is not None) == log, (name, side)
    labels = [text for _, text in fixed_tick_levels(lab.curve_plot.getAxis("bottom"))[0]]
    assert labels == ["4", "8", "16", "32", "64"]  # teacher-forcing's n
    lab.start("no-layernorm", seeds=1, steps=2)
    assert not lab.curve_plot.getAxis("left").logMode  # a new run: loss over steps again
    assert fixed_tick_levels(lab.curve_plot.getAxis("bottom")) is None
    qtbot.waitUntil(lambda: lab.result is not None, timeout=60_000)
    assert lab.curve_plot.getAxis("bottom").logMode and lab.curve_plot.getAxis("bottom").labelText == "learning rate"
    assert lab.curve_plot.getAxis("left").labelText == "final loss"


def test_a_chinese_window_shows_the_verdict_and_the_arms_in_chinese(qtbot, start_window):
    window = start_window("masked-decoder", lang="zh").window
    lab = lab_of(window)
    lab.start("scale-saturation", seeds=1)
    qtbot.waitUntil(lambda: lab.result is not None, timeout=30_000)
    shown = [lab.verdict.text(), lab.status.text(), lab.curve_plot.getAxis("bottom").labelText]
    shown += [label.text for _, label in lab.curve_plot.plotItem.legend.items]
    assert shown[3:] == ["除以 √d_k", "不缩放"]
    assert not i18n_check.untranslated(shown, i18n_check.DATA_WORDS)
    numbers = i18n_check.re.compile(r"\d+(?:\.\d+)?(?:e[-+]\d+)?").findall
    assert numbers(lab.verdict.text()) == numbers(lab.result["verdict"]) and len(numbers(lab.verdict.text())) == 12


def test_the_lab_redraws_a_heads_attention_as_it_trains(qtbot):
    window = open_lesson_window(qtbot, "masked-decoder")
    window.resize(1280, 720)
    lab = lab_of(window)
    lab.start("no-layernorm", seeds=1, steps=7)
    qtbot.waitUntil(lambda: lab.result is not None, timeout=60_000)
    last = lab.watched
    last_step = 7 * len(NO_LAYERNORM_LRS) - 1  # 7 steps at each learning rate
    assert (last.arm, last.step) == ("no LayerNorm", last_step)  # re-traced every 5 steps of each arm, and at the end
    assert (lab.layer_box.value(), lab.layer_box.maximum(), lab.head_box.value()) == (3, 3, 0)  # default: last layer
    trace = last.model.trace(watch_sentence())
    expected = trace["dec.3.self_attn.weights"][0].numpy().T
    assert np.allclose(lab.attention.image.image, expected)
    lab.layer_box.setValue(1)
    lab.head_box.setValue(1)
    assert np.allclose(lab.attention.image.image, trace["dec.1.self_attn.weights"][1].numpy().T)
    tokens = trace.tokens["dec"]
    for axis in ("left", "top"):  # every token labelled
        labels = [text for _, text in fixed_tick_levels(lab.attention.plot.getAxis(axis))[0]]
        assert labels == tokens
    assert lab.attention.bar.levels() == (0.0, 1.0) and f"step {last_step + 1}" in lab.attention_caption.text()


def test_a_paused_run_opens_its_model_in_the_window_asking_about_unsaved_edits(qtbot, start_window):
    prompts = FakePrompts()
    controller = start_window("masked-decoder", prompts=prompts)
    window, state = controller.window, controller.state
    lab = lab_of(window)
    assert not lab.step_through_button.isEnabled()  # nothing trained yet
    lab.start("no-layernorm", seeds=1, steps=200)
    qtbot.waitUntil(lambda: lab.latest is not None and lab.latest.step >= 2, timeout=30_000)
    assert not lab.step_through_button.isEnabled()  # still training
    lab.pause_button.setChecked(True)
    qtbot.waitUntil(lambda: lab.runner.waiting, timeout=30_000)
    qtbot.wait(50)  # the last step is drawn
    paused = lab.latest
    state.edit_cell("dec.0.self_attn.W_Q", (0, 1), 2.0)  # an unsaved edit: asked about, kept on "cancel"
    prompts.unsaved_answer = "cancel"
    lab.step_through_button.click()
    assert prompts.asked == ["unsaved"] and state.model.config.n_layers == 1
    prompts.unsaved_answer = "discard"
    lab.layer_box.setValue(2)
    lab.step_through_button.click()
    assert state.model.config == paused.model.config and state.text == watch_sentence()
    assert state.model.params.keys() == paused.model.params.keys()
    assert all(torch.equal(state.model.params[name], paused.model.params[name]) for name in state.model.params)
    assert state.current_stage == "dec.2.self_attn.weights" and "after step" in window.windowTitle()
    assert lab.running and lab.runner.waiting  # the lab stays paused; Resume goes on training its own copy
    lab.stop()
    assert lab.step_through_button.isEnabled()


def test_a_lab_lesson_opens_the_lab_with_its_experiment_chosen_not_running(qtbot, start_window):
    controller = start_window("two-heads")
    window = controller.window
    lab = window.lab_dock.widget()
    assert not window.lab_dock.isVisible()
    assert controller.open_shipped("lab-no-layernorm")
    assert window.lab_dock.isVisible() and lab.choice.currentData() == "no-layernorm" and not lab.running
    assert "roller coaster" in lab.claim.text() and controller.state.to_lesson().lab == "no-layernorm"
    assert controller.open_shipped("lab-teacher-forcing") and lab.choice.currentData() == "teacher-forcing"


def test_the_lab_and_training_step_docks_fit_a_1280x720_screen(qtbot):
    """Their plots have minimum heights; in the docks they scroll instead of making the window taller than a
    720-pixel projector (the lab lessons open with the lab shown)."""
    window = open_lesson_window(qtbot, "masked-decoder")
    window.lab_dock.show()
    window.training_step_dock.show()
    assert window.minimumSizeHint().height() <= 720
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.height() <= 720)


def test_a_narrow_lab_stacks_its_parts_and_keeps_its_buttons_in_sight(qtbot):
    """At 1280×720 the lab is a column of about 330 px beside the stage view: Run, Pause and Stop were off its edge,
    the loss curves 50 px wide beside the attention map (which asked for 710 px), the gradient bars flattened under
    their turned names, the claim cut."""
    window = open_lesson_window(qtbot, "masked-decoder")
    lab = lab_of(window)
    dock = window.lab_dock
    dock.setFloating(True)
    dock.resize(340, 700)
    assert lab.start("no-layernorm", seeds=1, steps=6)
    qtbot.waitUntil(lambda: lab.result is not None, timeout=60_000)
    qtbot.waitUntil(lambda: lab.width() <= 340)
    area = lab.findChild(QScrollArea)
    assert area.widget().width() <= area.viewport().width()  # nothing scrolls sideways
    for button in (lab.run_button, lab.pause_button, lab.stop_button):
        assert area.viewport().rect().contains(button.mapTo(area.viewport(), button.rect().bottomRight()))
    assert lab.middle.direction() == QBoxLayout.Direction.TopToBottom
    assert lab.curve_plot.width() > 250 and lab.bar_plot.plotItem.vb.height() > 60
    dock.resize(1200, 500)  # wide again: side by side
    qtbot.waitUntil(lambda: lab.middle.direction() == QBoxLayout.Direction.LeftToRight)


def test_the_lab_runs_on_through_ctrl_plus_f5_esc_and_a_language_switch_and_the_new_window_shows_it(
    qtbot, start_window
):
    """The run is the app state's, not the dock's: each of these builds the window anew (or retranslates it) while
    the lab trains, and the old window's dock going took the thread with it ("QThread: Destroyed while thread is
    still running", SIGABRT). The new window's lab shows the run where it was, and its end."""
    controller = start_window("masked-decoder")
    lab = lab_of(controller.window)
    assert lab.start("no-layernorm", seeds=1, steps=40)
    qtbot.waitUntil(lambda: lab.latest is not None and lab.latest.step >= 1, timeout=30_000)
    presentation = controller.window.presentation
    for rebuild in (
        presentation.larger.trigger,
        lambda: controller.window.presentation.present.trigger(),  # F5
        lambda: controller.window.presentation.leave.trigger(),  # Esc
        lambda: controller.set_language("zh"),
        lambda: controller.window.presentation.normal.trigger(),  # Ctrl+0
    ):
        rebuild()
        qtbot.wait(10)  # the old window deleted (its dock and lab with it)
        lab = lab_of(controller.window)
        assert lab.running or lab.result is not None
        drawn = sum(len(xs) for xs, _ in lab.curves.values())
        assert drawn >= 2 and sum(len(item.xData) for item in lab.items.values()) == drawn  # every point drawn
        assert lab.choice.currentData() == "no-layernorm" and lab.run_button.isEnabled() == (not lab.running)
    qtbot.waitUntil(lambda: lab.result is not None, timeout=60_000)
    assert lab.verdict.text() == lab.result["verdict_zh"] and "完成" in lab.status.text()
    assert {arm for arm, _ in lab.items} == set(lab.result["summary"]) and lab.attention.image.image is not None


def test_a_finished_run_is_still_shown_after_f5(qtbot, start_window):
    """F5 after a finished run switched the experiment back to "Gradient highway" and lost the curves and verdict."""
    controller = start_window("masked-decoder")
    lab = lab_of(controller.window)
    lab.start("scale-saturation", seeds=1)
    qtbot.waitUntil(lambda: lab.result is not None, timeout=30_000)
    verdict, curves = lab.verdict.text(), {k: list(v[1]) for k, v in lab.curves.items()}
    controller.window.presentation.present.trigger()
    lab = lab_of(controller.window)
    assert lab.choice.currentData() == "scale-saturation" and lab.verdict.text() == verdict
    assert {k: list(item.yData) for k, item in lab.items.items()} == curves
    assert lab.curve_plot.getAxis("bottom").labelText == "d_k" and not lab.bar_plot.isVisible()


def test_a_finished_run_on_a_1920x1080_slide_shows_claim_curves_verdict_and_whole_bar_names_without_scrolling(
    qtbot, start_window
):
    """Presentation mode at 1920×1080 (issue 46): the verdict stood below the fold of the lab's scroll area (the
    teacher scrolled to read the conclusion), the gradient bars' turned names were cut at its bottom, and the bars'
    axis read "1e+08" and "5e+07"."""
    controller = start_window("lab-no-layernorm")
    window = present(qtbot, controller, (1920, 1080))
    lab = lab_of(window)
    assert lab.start("no-layernorm", seeds=1, steps=4)
    qtbot.waitUntil(lambda: lab.result is not None, timeout=60_000)
    qtbot.wait(100)  # laid out
    viewport = lab.findChild(QScrollArea).viewport()

    def in_sight(widget, rect: QRect) -> bool:
        return viewport.rect().contains(QRect(widget.mapTo(viewport, rect.topLeft()), rect.size()))

    for widget in (lab.claim, lab.curve_plot, lab.status, lab.verdict, lab.bar_plot):
        assert widget.isVisible() and in_sight(widget, widget.rect()), widget
    names = lab.bar_plot.getAxis("left").categories
    drawn = axis_specs(lab.bar_plot.getAxis("left"))[0]
    assert sorted(text for text, _ in drawn) == sorted(names)  # every bar named
    for text, rect in drawn:  # whole: inside its plot, and its plot in sight
        on_plot = lab.bar_plot.mapFromScene(rect).boundingRect()
        assert lab.bar_plot.rect().contains(on_plot) and in_sight(lab.bar_plot, on_plot), text
    lab.bar_plot.setXRange(0, 1.4e8, padding=0)  # the gradient norms of a diverged run
    assert lab.start("no-layernorm", seeds=1, steps=12)  # linear axes again: a loss over steps
    qtbot.waitUntil(lambda: len(lab.items) == 2, timeout=60_000)  # both arms drawn as they train
    qtbot.wait(50)
    assert [p for p in rule_problems(lab.curve_plot.scene()) if "legend" in p] == []  # it stayed under the curves
    lab.curve_plot.setYRange(0, 1.4e8, padding=0)  # a loss that diverged
    qtbot.wait(50)
    for plot in (lab.curve_plot, lab.bar_plot):
        for side in ("left", "bottom"):
            axis = plot.getAxis(side)
            texts = [text for text, _ in axis_specs(axis)[0]]
            assert texts and not any(re.search(r"\de[+-]?\d", text) for text in texts), (side, texts)
            assert "(x" not in axis.labelString() and "×" not in axis.labelString()
    assert "10⁸" in [text for text, _ in axis_specs(lab.curve_plot.getAxis("left"))[0]]
    qtbot.waitUntil(lambda: lab.result is not None, timeout=60_000)
