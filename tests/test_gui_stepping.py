"""Stepping through every stage of each architecture, forward and back, by buttons and by keys."""

import pytest
import torch
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit, QToolButton

from engine import ModelConfig
from engine.formats.lesson import open_lesson
from gui.state.app_state import AppState
from gui.text.formulas import formula
from gui.text.operations import text_key
from gui.text.stage_texts import op_title
from gui.views.stage_list import NAME_ROLE, NOT_COMPUTED, leaf_text
from gui.views.tensor_slice import slice_for
from tests import gui_lessons
from tests.gui_window import SMALL, open_lesson_window, open_window, press

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures

ARCHITECTURES = [
    (SMALL, ""),
    (ModelConfig(architecture="decoder", norm="pre", decimals=1), ""),
    (ModelConfig(architecture="encoder-decoder", decimals=1, positional="learned"), "我 爱 AI"),
]
IDS = ["encoder", "decoder-preLN", "encoder-decoder"]


def button(window, action) -> QToolButton:
    return next(b for b in window.stepper.findChildren(QToolButton) if b.defaultAction() is action)


def assert_shows(window, i: int) -> None:
    """The window shows stage i: counter, list, title, formula, and the output's real numbers."""
    state, view = window.state, window.stage_view
    trace, name, n = state.view, state.stage_names[i], len(state.stage_names)  # the loss, the backward pass too
    assert state.cursor == i
    assert window.stepper.counter.text() == f"stage {i + 1} / {n}"
    assert view.title.text() == op_title(text_key(trace, name))
    assert view.formula.text() == formula(trace, name, state.head)
    output = view.output.model
    assert output.slice.name == name
    assert torch.equal(output.shown, slice_for(trace, name, name, state.head).slice2d(trace[name]))
    stage = trace.stage(name)
    assert [p.model.slice.name for p in view.inputs if p.model.slice] == list(stage.inputs if stage else [])
    leaves = window.stage_list.leaves
    assert leaves[i].font().bold() and not leaves[i].font().italic()
    assert all(leaf.font().italic() for leaf in leaves[i + 1 :])  # "not computed yet"
    assert not any(leaf.font().italic() or leaf.font().bold() for leaf in leaves[:i])
    for k, leaf in enumerate(leaves):  # its tooltip and colour say whether it is computed yet
        later = k > i
        assert leaf.toolTip().endswith("not computed yet") == later, (k, i)
        path, title, _ = window.stage_list.rows[k]  # the whole title: the leaf may leave its group's name out
        assert leaf.toolTip().startswith(title + "\n" + state.stage_names[k]) and leaf.text() == leaf_text(path, title)
        assert (leaf.foreground().color().name() == NOT_COMPUTED.name()) == later, (k, i)


@pytest.mark.parametrize("cfg, target", ARCHITECTURES, ids=IDS)
def test_buttons_step_through_every_stage_and_back(qtbot, cfg, target):
    window = open_window(qtbot, cfg, target=target)
    stepper, n = window.stepper, len(window.state.stage_names)
    assert_shows(window, 0)
    assert not stepper.prev_action.isEnabled()
    for i in range(1, n):
        qtbot.mouseClick(button(window, stepper.next_action), Qt.LeftButton)
        assert_shows(window, i)
    assert not stepper.next_action.isEnabled()
    for i in reversed(range(n - 1)):
        qtbot.mouseClick(button(window, stepper.prev_action), Qt.LeftButton)
        assert_shows(window, i)
    qtbot.mouseClick(button(window, stepper.last_action), Qt.LeftButton)
    assert_shows(window, n - 1)
    qtbot.mouseClick(button(window, stepper.first_action), Qt.LeftButton)
    assert_shows(window, 0)


@pytest.mark.parametrize("cfg, target", ARCHITECTURES, ids=IDS)
def test_keys_step_through_every_stage_and_back(qtbot, cfg, target):
    window = open_window(qtbot, cfg, target=target)
    n = len(window.state.stage_names)
    forward, back = [Qt.Key_Right, Qt.Key_PageDown, Qt.Key_Space], [Qt.Key_Left, Qt.Key_PageUp]
    for i in range(1, n):
        press(qtbot, window, forward[i % 3])
        assert_shows(window, i)
    press(qtbot, window, Qt.Key_Right)  # past the end: stays
    assert_shows(window, n - 1)
    for i in reversed(range(n - 1)):
        press(qtbot, window, back[i % 2])
        assert_shows(window, i)
    press(qtbot, window, Qt.Key_End)
    assert_shows(window, n - 1)
    press(qtbot, window, Qt.Key_Home)
    assert_shows(window, 0)


def test_keys_work_from_any_widget_but_not_while_typing(qtbot):
    window = open_window(qtbot)
    state = window.state
    table = window.stage_view.output.table
    table.setFocus()
    press(qtbot, table, Qt.Key_Right)
    assert state.cursor == 1
    window.stage_list.tree.setFocus()
    press(qtbot, window.stage_list.tree, Qt.Key_PageDown)
    assert state.cursor == 2
    window.source.setFocus()
    for key in (Qt.Key_Left, Qt.Key_Right, Qt.Key_Home, Qt.Key_End, Qt.Key_Space):
        qtbot.keyClick(window.source, key)
    assert state.cursor == 2 and window.source.text() == "I love AI "  # the space was typed, not a step
    state.go_to("enc.0.attn.q")
    w_q = next(p for p in window.stage_view.inputs if p.model.slice.name.endswith("W_Q"))
    w_q.table.setFocus()
    w_q.table.edit(w_q.model.index(0, 0))
    editor = w_q.table.findChild(QLineEdit)
    assert editor is not None and editor.isVisible()
    cursor = state.cursor
    for key in (Qt.Key_Left, Qt.Key_Right, Qt.Key_Home, Qt.Key_End):
        qtbot.keyClick(editor, key)
    assert state.cursor == cursor


def test_plots_follow_the_stage(qtbot):
    window = open_window(qtbot)
    view = window.stage_view
    for name in ("enc.embed", "enc.0.attn.scores", "enc.0.attn.weights", "enc.0.norm1.out", "enc.0.ffn.act"):
        window.state.go_to(name)
        qtbot.waitUntil(lambda n=name: view.figure is not None and view.figure.stage == n)


def test_stage_list_click_jumps(qtbot):
    window = open_window(qtbot)
    state, tree = window.state, window.stage_list.tree
    target = window.stage_list.leaves[9]
    qtbot.mouseClick(tree.viewport(), Qt.LeftButton, pos=tree.visualRect(target.index()).center())
    assert state.cursor == 9
    assert_shows(window, 9)
    group = target.parent()  # a sublayer group ("Self-attention") jumps to its first stage
    state.set_cursor(0)
    qtbot.mouseClick(tree.viewport(), Qt.LeftButton, pos=tree.visualRect(group.index()).center())
    assert state.current_stage == group.child(0).data(NAME_ROLE) == "enc.0.attn.q"


def test_the_stage_list_does_not_repeat_a_groups_name_in_its_stages(qtbot):
    """Under Cross-attention, "Cross-attention: queries from the decoder" reads "queries from the decoder" (∂L/∂ kept):
    at a fifth of a 1280-px window nine stages were cut to "Cross-attention: quer…", "… keys…", "… valu…"."""
    window = open_lesson_window(qtbot, "cross-attention")
    leaves = {leaf.data(NAME_ROLE): leaf for leaf in window.stage_list.leaves}
    for name, text in (
        ("dec.0.cross_attn.q", "queries from the decoder"),
        ("grad.dec.0.cross_attn.q", "∂L/∂ queries from the decoder"),
        ("dec.0.cross_attn.concat", "Concatenate heads"),  # no group name in it: as it is
    ):
        assert leaves[name].text() == text and leaves[name].parent().text() == "Cross-attention"
    assert leaves["grad.dec.0.cross_attn.q"].toolTip().startswith("∂L/∂ Cross-attention: queries from the decoder\n")
    group = ("Decoder", "Block 0", "交叉注意力")
    assert leaf_text(group, "交叉注意力：除以 √d_k") == "除以 √d_k"
    assert leaf_text(group, "交叉注意力分数 Q·Kᵀ") == "交叉注意力分数 Q·Kᵀ"  # a word of its own, not a repeated name
    assert leaf_text(group, "交叉注意力：") == "交叉注意力："  # never an empty leaf


@pytest.mark.parametrize("when", ["before the window", "after it is shown"])
def test_the_current_stage_is_shown_among_the_stages_around_it(qtbot, start_window, when):
    """A window opened at a stage deep in the list (`python main.py --stage …` goes there before the window is made),
    or a jump to a stage out of sight: it is brought to the middle of the list, the group it sits in and the stages
    before and after it in sight (scrolled only into sight it stood in the list's top row, "查询来自解码器" under no
    group, or in its bottom row)."""
    lesson = open_lesson("cross-attention")
    state = AppState(lesson.config, lesson.text, lesson.target, model=lesson.build_model())
    if when == "before the window":
        state.go_to("dec.0.cross_attn.q")
    window = start_window("cross-attention", "en", state=state).window
    if when == "after it is shown":
        state.go_to("dec.0.cross_attn.q")
    tree, leaf = window.stage_list.tree, window.stage_list.leaves[state.cursor]
    assert leaf.parent().text() == "Cross-attention"
    rect, seen = tree.visualRect(leaf.index()), tree.viewport().rect()
    assert seen.contains(tree.visualRect(leaf.parent().index()))
    assert 3 * rect.height() <= rect.top() and rect.bottom() <= seen.bottom() - 3 * rect.height(), (rect, seen)


def test_head_selector_reslices_every_per_head_matrix(qtbot):
    window = open_window(qtbot)
    state, view = window.state, window.stage_view
    state.go_to("enc.0.attn.q")
    assert not view.controls.head_box.isHidden()
    view.controls.head_box.activated.emit(1)
    assert state.head == 1
    w_q = next(p for p in view.inputs if p.model.slice.name == "enc.0.attn.W_Q")
    assert torch.equal(w_q.model.shown, state.trace["enc.0.attn.W_Q"][:, 2:4])
    assert torch.equal(view.output.model.shown, state.trace["enc.0.attn.q"][1])
    assert "head 1 of 2: columns 2–3 of W_Q" in view.formula.text()
    state.go_to("enc.0.attn.out")
    assert view.controls.head_box.isHidden()  # nothing per head here


def test_play_advances_to_the_end_and_stops(qtbot):
    window = open_window(qtbot)
    state, stepper = window.state, window.stepper
    stepper.pace.setValue(0.2)
    state.set_cursor(len(state.stage_names) - 3)
    stepper.play_action.trigger()
    assert stepper.play_action.isChecked()
    qtbot.waitUntil(lambda: state.cursor == len(state.stage_names) - 1, timeout=5000)
    qtbot.waitUntil(lambda: not stepper.play_action.isChecked(), timeout=2000)
    assert not stepper.timer.isActive()


def test_the_window_opens_ready_to_step_and_f6_types_a_sentence(qtbot):
    window = open_window(qtbot)
    state = window.state
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None)
    assert not window.source.hasFocus()  # → steps at once, never moves a text cursor
    press(qtbot, QApplication.focusWidget(), Qt.Key_Right)
    assert state.cursor == 1
    press(qtbot, window, Qt.Key_F6)
    qtbot.waitUntil(window.source.hasFocus)
    assert window.source.selectedText() == "I love AI"


def test_one_head_offers_no_head_choice(qtbot):
    window = open_window(qtbot, ModelConfig(d_model=4, n_heads=1, d_ff=8, n_layers=1, seed=0))
    window.state.go_to("enc.0.attn.weights")
    assert window.stage_view.controls.head_box.isHidden() and window.stage_view.controls.head_label.isHidden()
    assert "head 0 of 1" in window.stage_view.formula.text()  # the formula still says which


def test_a_vector_parameter_row_is_named_as_the_formula_names_it(qtbot):
    """γ and β of Add & Norm were rows named "gamma" and "beta" (in Chinese too) under captions γ [1×4], β [1×4]:
    a one-row parameter's row is named by its letter."""
    window = open_lesson_window(qtbot, "layernorm")
    window.state.go_to("enc.0.norm1.out")
    rows = {
        p.model.slice.name.rsplit(".", 1)[1]: p.model.headerData(0, Qt.Vertical, Qt.DisplayRole)
        for p in window.stage_view.inputs
        if p.model.slice is not None and p.model.slice.name in window.state.trace.params
    }
    assert rows == {"gamma": "γ", "beta": "β"}
    window.state.go_to("enc.0.attn.q")
    bias = next(p for p in window.stage_view.inputs if p.model.slice and p.model.slice.name.endswith("b_Q"))
    assert bias.model.headerData(0, Qt.Vertical, Qt.DisplayRole) == "b_Q"
