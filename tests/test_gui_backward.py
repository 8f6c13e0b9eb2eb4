"""The window steps past the loss and back through the backward pass (issue 16)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PySide6.QtCore import Qt

from engine import Model, ModelConfig
from engine.formats.reading import MAX_ABS_VALUE
from engine.training.backward import MAX_LR, backward, training_step
from gui.export.figure import export_figure
from gui.export.matrix import export_matrix
from gui.plots import PlotOptions
from gui.state.app_state import AppState
from gui.text.numbers import loss_texts
from gui.text.operations import text_key
from gui.text.stage_texts import op_title
from gui.views.stage_list import tree_title
from tests.gui_window import open_lesson_window, open_window, panel_for, press, show_window


def forward_and_backward(state) -> tuple[list[str], list[str]]:
    names = state.stage_names
    split = names.index("probs") + 1
    return names[:split], names[split:]


def test_a_decoder_steps_to_the_loss_and_back_through_every_backward_stage(qtbot):
    window = open_lesson_window(qtbot, "masked-decoder")
    state, view = window.state, window.stage_view
    forward, after = forward_and_backward(state)
    assert forward == state.trace.stage_names  # the forward stages as the command line lists them
    assert after[:3] == ["loss.per_position", "loss", "grad.loss"] and after[-1].startswith("grad.dec.")
    state.go_to("probs")
    for name in after:  # the Right key, stage by stage
        press(qtbot, window, Qt.Key_Right)
        assert state.current_stage == name
        assert view.title.text() == op_title(text_key(state.trace, name)) and view.formula.text()
        assert view.explanation.text()
    leaves = {leaf.data(Qt.UserRole + 1): leaf for leaf in window.stage_list.leaves}
    assert leaves["grad.dec.0.self_attn.weights"].text() == "∂L/∂ " + tree_title(
        state.trace, "dec.0.self_attn.weights", "en"
    )
    group = leaves["grad.dec.0.self_attn.weights"].parent()
    assert [group.text(), group.parent().parent().text(), group.parent().parent().parent().text()] == [
        "Masked self-attention",
        "Decoder",
        "Backward pass",
    ]


def test_a_backward_stage_shows_engine_gradients_beside_the_weights(qtbot):
    window = open_lesson_window(qtbot, "masked-decoder")
    state = window.state
    grads = backward(state.trace)
    state.go_to("grad.logits")
    assert "∂L/∂X = G·Wᵀ" in window.stage_view.formula.text()
    output = panel_for(window, "grad.logits")
    assert torch.equal(output.model.shown, grads["grad.logits"])
    assert torch.equal(panel_for(window, "grad.unembed.W_U").model.shown, grads["grad.unembed.W_U"])
    weights = panel_for(window, "unembed.W_U")
    assert weights.model.editable and not panel_for(window, "grad.unembed.W_U").model.editable
    weights.model.setData(weights.model.index(0, 0), "0.75")  # an edit: every gradient is computed again
    assert torch.equal(output.model.shown, backward(state.trace)["grad.logits"])
    assert not torch.equal(output.model.shown, grads["grad.logits"])
    state.undo_stack.undo()
    assert torch.equal(output.model.shown, grads["grad.logits"])


def test_forward_edits_do_not_compute_the_backward_pass(qtbot, monkeypatch):
    window = open_lesson_window(qtbot, "masked-decoder")
    calls = []
    monkeypatch.setattr("engine.training.shown_trace.backward", lambda trace: calls.append(trace))
    window.state.go_to("dec.x0")
    window.state.edit_cell("dec.embed.W_E", (1, 1), 0.5)
    assert calls == []


def test_an_encoder_decoder_steps_back_to_the_encoder(qtbot):
    window = open_lesson_window(qtbot, "cross-attention")
    state, view = window.state, window.stage_view
    _, after = forward_and_backward(state)
    assert "grad.dec.0.cross_attn.weights" in after and after[-1].startswith("grad.enc.")
    grads = backward(state.trace)
    for name in after:
        state.go_to(name)
        assert view.title.text() == op_title(text_key(state.trace, name))
    state.go_to("grad.dec.0.cross_attn.weights")
    head = state.head
    assert torch.equal(
        panel_for(window, name="grad.dec.0.cross_attn.weights").model.shown,
        grads["grad.dec.0.cross_attn.weights"][head],
    )


def test_an_encoder_has_no_loss(qtbot):
    window = open_window(qtbot)
    assert window.state.stage_names == window.state.trace.stage_names


def test_one_training_step_is_one_command_and_undone_exactly(qtbot):
    window = open_lesson_window(qtbot, "masked-decoder")
    state = window.state
    before = {k: v.clone() for k, v in state.trace.params.items()}
    grads = backward(state.trace)
    window.training_step.lr.setValue(0.5)
    messages = []
    state.message.connect(messages.append)
    state.go_to("dec.0.ffn.up")
    window.training_step.step_action.trigger()
    assert state.undo_stack.count() == 1
    for name, w in before.items():
        assert torch.equal(state.trace.params[name], w - 0.5 * grads[f"grad.{name}"]), name
    loss_after = float(backward(state.trace)["loss"])
    assert loss_after < float(grads["loss"])
    loss_then, loss_now = loss_texts(float(grads["loss"]), loss_after)
    assert messages[-1] == f"Training step: loss {loss_then} → {loss_now}"
    view = window.stage_view
    view.controls.difference_action.setChecked(True)  # the weight table shows the step: −lr·∂L/∂W
    weights = panel_for(window, "dec.0.ffn.W1")
    assert torch.allclose(weights.model.shown, -0.5 * grads["grad.dec.0.ffn.W1"])
    press(qtbot, window, Qt.Key_Z, Qt.ControlModifier)
    assert state.undo_stack.index() == 0
    assert all(torch.equal(state.trace.params[name], w) for name, w in before.items())


def test_the_training_step_view_shows_before_gradient_and_after_until_undone(qtbot):
    window = open_lesson_window(qtbot, "masked-decoder")
    state, view = window.state, window.training_step_dock.widget()
    state.go_to("dec.0.self_attn.q")
    assert view.step is None and not window.training_step_dock.isVisible()
    before = {k: v.clone() for k, v in state.trace.params.items()}
    expected = training_step(state.trace, window.training_step.lr.value())
    window.training_step.step_action.trigger()
    assert window.training_step_dock.isVisible() and view.weight.currentData() == "dec.0.self_attn.W_Q"
    for name in ("dec.0.self_attn.W_Q", "dec.0.norm1.gamma"):  # the stage's weight, then one chosen (a vector)
        view.weight.setCurrentIndex(view.weight.findData(name))
        update = expected.params[name]
        shown = [np.asarray(h.image.image).T for h in view.heatmaps]  # ImageItem holds [column, row]
        for matrix, tensor in zip(shown, (update.before, update.grad, update.after)):
            assert np.array_equal(matrix, np.atleast_2d(tensor.double().numpy())), name
    assert f"{expected.loss_before:.4f} → {expected.loss_after:.4f}" in view.loss.text()
    assert f"W after = W − {window.training_step.lr.value():g}·∂L/∂W" in view.loss.text()  # the rule, once
    dock = window.training_step_dock  # narrow, as at 1280×720: three matrices of one shape are drawn alike
    dock.setFloating(True)
    dock.resize(520, 500)
    view.weight.setCurrentIndex(view.weight.findData("dec.0.self_attn.W_Q"))
    qtbot.waitUntil(lambda: view.figure.width() < 520)
    widths = [h.plot.vb.width() for h in view.heatmaps]
    assert max(widths) < 1.1 * min(widths), widths
    state.go_to("dec.0.ffn.up")  # a stage with weights: its weight is shown
    assert view.weight.currentData() == "dec.0.ffn.W1"
    assert view.weight.currentText() == "W1 (Decoder · Block 0 · Feed-forward)"  # the id only in its tooltip
    press(qtbot, window, Qt.Key_Z, Qt.ControlModifier)
    assert view.step is None and view.weight.count() == 0 and not view.figure.isVisible()
    assert all(torch.equal(state.trace.params[name], w) for name, w in before.items())
    state.undo_stack.redo()
    assert view.step is not None and torch.equal(
        state.trace.params["dec.0.ffn.W1"], expected.params["dec.0.ffn.W1"].after
    )


def test_an_encoder_takes_no_training_step(qtbot):
    window = open_window(qtbot)
    assert not window.training_step.step_action.isEnabled()
    assert not window.state.take_training_step(0.1) and window.state.undo_stack.count() == 0


def test_the_figure_of_a_backward_stage_exports(qtbot, tmp_path):
    window = open_lesson_window(qtbot, "masked-decoder")
    path = export_figure(
        window.state.view, "grad.dec.0.self_attn.weights", PlotOptions(), tmp_path / "g.png", width=400
    )
    assert path.stat().st_size > 0
    grad = export_matrix(window.state.view, "grad.unembed.b_U", tmp_path / "g.csv", decimals=6)
    assert grad.read_text().count("\n") == 2  # the header and one row: b_U's gradient


def test_a_lesson_saved_on_the_backward_pass_reopens_on_a_forward_stage(qtbot):
    """Lesson files hold forward stages: ∂L/∂X reopens on X, the loss on the probabilities."""
    window = open_lesson_window(qtbot, "masked-decoder")
    for shown, saved in (("grad.dec.0.self_attn.weights", "dec.0.self_attn.weights"), ("loss", "probs")):
        window.state.go_to(shown)
        lesson = window.state.to_lesson()
        lesson.validate()
        assert lesson.stage == saved


def test_the_labels_of_the_loss_name_the_word_each_row_should_predict(qtbot):
    """y of ℓᵢ = −log p[i, yᵢ] showed rows 0–4 and the ids 3, 4, 5, 6, 2: nothing said which word an id is."""
    window = open_lesson_window(qtbot, "masked-decoder")
    state = window.state
    state.go_to("loss.per_position")
    y = panel_for(window, "dec.labels").model
    words = state.model.vocabs["dec"].tokens
    ids = [int(i) for i in y.shown[:, 0]]
    tokens = list(state.trace.tokens["dec"])
    assert y.row_labels == [f"{t} → {words[i]}" for t, i in zip(tokens, ids)] and y.col_labels == ["y"]
    assert y.row_labels[0] == f"<start> → {tokens[1]}" and y.row_labels[-1] == f"{tokens[-1]} → <end>"


def all_params(state) -> dict[str, torch.Tensor]:
    return {k: v.clone() for k, v in state.trace.params.items()}


def assert_params(state, expected: dict[str, torch.Tensor]) -> None:
    assert state.trace.params.keys() == expected.keys()
    assert all(torch.equal(state.trace.params[k], v) for k, v in expected.items())


def take_step_or_refuse(window, lr: float, messages: list[str], what_to_try: str) -> None:
    """Model ▸ Take one training step: it is taken, or refused saying what to try with nothing pushed; either
    way every weight stays finite and within a cell edit's limit."""
    state = window.state
    count = state.undo_stack.count()
    window.training_step.lr.setValue(lr)
    window.training_step.step_action.trigger()
    if state.undo_stack.count() == count:
        assert "no step was taken" in messages[-1] and what_to_try in messages[-1]
    for name, w in state.trace.params.items():
        assert torch.isfinite(w).all() and w.abs().max() <= MAX_ABS_VALUE, name


def undo_all(state) -> None:
    while state.undo_stack.canUndo():
        state.undo_stack.undo()


def test_training_steps_at_the_largest_learning_rate_keep_the_weights_finite_and_undo_exactly(qtbot):
    """At MAX_LR one step sent masked-decoder's loss to inf and the next left 227 weights NaN (issue 44)."""
    window = open_lesson_window(qtbot, "masked-decoder")
    state, messages = window.state, []
    state.message.connect(messages.append)
    before = all_params(state)
    take_step_or_refuse(window, 0.1, messages, "")
    for _ in range(2):  # two in a row
        take_step_or_refuse(window, MAX_LR, messages, "try a smaller learning rate")
    undo_all(state)
    assert_params(state, before)


@pytest.mark.parametrize("name", ["unembed.W_U", "dec.0.norm2.gamma"])
def test_training_steps_after_a_huge_cell_edit_keep_the_weights_finite_and_undo_exactly(qtbot, name):
    """lr 0.1 after a ±1e6 cell edit left every weight NaN."""
    window = open_lesson_window(qtbot, "masked-decoder")
    state, messages = window.state, []
    state.message.connect(messages.append)
    before = all_params(state)
    assert state.edit_cell(name, (0,) * state.trace.params[name].dim(), -MAX_ABS_VALUE)
    for _ in range(2):
        take_step_or_refuse(window, 0.1, messages, "")
    undo_all(state)
    assert_params(state, before)


def test_undo_after_a_refused_training_step_is_exact(qtbot):
    """No LayerNorm, one large embedding column and W_U = 0: at lr 100 a step would take W_U beyond ±1e6."""
    cfg = ModelConfig(
        architecture="decoder", d_model=4, n_heads=1, d_ff=4, n_layers=1, positional="none", switches=("no_layernorm",)
    )
    trace = Model.create(cfg).trace("a b")  # (its vocabulary grows by a and b)
    params = {name: 0 * w for name, w in trace.params.items()}
    params["dec.embed.W_E"][:, 0] = 1e5
    window = show_window(qtbot, AppState(cfg, "a b", model=Model(cfg, params, trace.model.vocabs)))
    state, messages = window.state, []
    state.message.connect(messages.append)
    before = all_params(state)
    assert state.edit_cell("dec.0.ffn.b1", (0,), 0.5)
    edited = all_params(state)
    window.training_step.lr.setValue(MAX_LR)
    window.training_step.step_action.trigger()
    assert "unembed.W_U" in messages[-1] and "try a smaller learning rate" in messages[-1]
    assert state.undo_stack.count() == 1 and window.training_step_dock.widget().step is None
    assert_params(state, edited)
    state.undo_stack.undo()
    assert_params(state, before)
    state.undo_stack.redo()
    assert_params(state, edited)


def test_the_training_step_view_shows_a_step_taken_with_no_layernorm(qtbot):
    """With "No LayerNorm" on, no stage reads the LayerNorms' gamma and beta: naming them raised StopIteration."""
    window = open_lesson_window(qtbot, "masked-decoder")
    state, view, dock = window.state, window.training_step_dock.widget(), window.training_step_dock
    assert state.set_switch("no_layernorm", True)
    window.training_step.lr.setValue(0.1)
    window.training_step.step_action.trigger()
    if not dock.isVisible():
        dock.toggleViewAction().trigger()  # View ▸ Training step
    qtbot.waitUntil(dock.isVisible)
    assert view.step is not None and view.heatmaps
    listed = [view.weight.itemData(k) for k in range(view.weight.count())]
    read = {i for st in state.trace.stages for i in st.inputs}
    assert listed == [name for name in state.trace.params if name in read]  # gamma and beta: not read, not listed
    assert "dec.0.norm1.gamma" not in listed and "dec.0.self_attn.W_Q" in listed
