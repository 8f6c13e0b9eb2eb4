"""Sentences: Enter retokenizes; an empty sentence explains itself; 200 tokens still work."""

import torch
from PySide6.QtCore import Qt

from engine import ModelConfig
from tests.gui_window import open_window, panel_for, press, snapshot


def test_enter_retokenizes_and_recomputes(qtbot):
    window = open_window(qtbot)
    state = window.state
    state.go_to("enc.0.attn.scores")
    window.source.setText("we love AI too")
    qtbot.keyClick(window.source, Qt.Key_Return)
    assert state.trace.tokens["enc"] == ["we", "love", "AI", "too"]
    assert state.current_stage == "enc.0.attn.scores"
    output = window.stage_view.output
    assert output.model.col_labels == ["we", "love", "AI", "too"]
    assert torch.equal(output.model.shown, state.trace["enc.0.attn.scores"][state.head])
    assert window.windowTitle().endswith("we love AI too")


def test_empty_sentence_explains_itself_and_changes_nothing(qtbot):
    window = open_window(qtbot)
    state, view = window.state, window.stage_view
    trace, before = state.trace, snapshot(state)
    window.source.clear()
    qtbot.keyClick(window.source, Qt.Key_Return)
    assert state.trace is trace and all(snapshot(state)[n] is before[n] for n in before)
    assert view.pages.currentWidget() is view.problem
    assert "empty" in view.problem.text() and "press Enter" in view.problem.text()
    assert "empty" in window.statusBar().currentMessage()
    window.source.setText("I love AI")
    qtbot.keyClick(window.source, Qt.Key_Return)
    assert view.pages.currentIndex() == 0 and state.problem == ""


def test_target_box_only_for_encoder_decoder(qtbot):
    window = open_window(qtbot)
    assert window.target.isHidden()
    two = open_window(qtbot, ModelConfig(architecture="encoder-decoder", decimals=1), target="我 爱 AI")
    assert not two.target.isHidden() and two.target.text() == "我 爱 AI"
    two.target.setText("我 爱 你")
    qtbot.keyClick(two.target, Qt.Key_Return)
    assert two.state.trace.tokens["dec"] == ["<start>", "我", "爱", "你"]


def test_a_200_token_sentence_steps_scrolls_and_edits(qtbot):
    words = " ".join(f"w{i % 37}" for i in range(200))
    window = open_window(qtbot, ModelConfig(d_model=8, n_heads=2, d_ff=16, decimals=1), text=words)
    state, view = window.state, window.stage_view
    assert len(state.trace.tokens["enc"]) == 200
    state.go_to("enc.0.attn.scores")
    qtbot.wait(1)
    table = view.output.table
    assert table.model().rowCount() == 200 and table.model().columnCount() == 200
    assert table.verticalScrollBar().maximum() > 0 and table.horizontalScrollBar().maximum() > 0
    table.scrollToBottom()
    press(qtbot, window, Qt.Key_Right)
    press(qtbot, window, Qt.Key_Left)
    assert state.current_stage == "enc.0.attn.scores"
    state.go_to("enc.0.attn.q")
    before = snapshot(state)
    assert state.edit_cell("enc.0.attn.W_Q", (2, 1), 0.75)
    changed = {n for n in state.stage_names if not torch.equal(before[n], state.trace.values[n])}
    assert changed == set(state.trace.downstream("enc.0.attn.W_Q"))
    assert torch.equal(panel_for(window, "enc.0.attn.q").model.shown, state.trace["enc.0.attn.q"][state.head])
    qtbot.waitUntil(lambda: view.figure is not None)
