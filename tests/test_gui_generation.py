"""Decoder and encoder-decoder lessons stepped end to end with two generated tokens (the engine's tokens), the
KV-cache view growing by one row per token, the head grid, head colours and cross-attention labels."""

import pytest
import torch
from PySide6.QtCore import Qt

from engine import ModelConfig, ops
from engine.generate import generate
from engine.tokenizer import END
from gui.plots.kv_cache import choice_title
from gui.plots.rope import RopePanel
from gui.text.formulas import formula
from gui.text.operations import text_key
from gui.text.stage_texts import op_text
from gui.views.head_colors import header_head
from tests.gui_window import open_lesson_window, open_window, panel_for


def step_to_end(window, start: int = 0) -> list[str]:
    """Press Next from `start` to the last stage; the names passed, in order."""
    state, seen = window.state, []
    state.set_cursor(start)
    while state.cursor < len(state.stage_names) - 1:
        window.stepper.next_action.trigger()
        seen.append(state.current_stage)
        assert window.stage_view.output.model.slice.name == state.current_stage
    return seen


def generate_twice(qtbot, window) -> list[str]:
    """Generate two tokens through the action; after each the window stands on the new position's
    probabilities, the KV cache beside it has grown by a row, and the class can step the new token from the
    decoder's input to the end. (The window is wide enough for both docks beside the stage view: in a smaller one
    they float over it and take turns: the generation dock, opening, closes the KV cache, which then draws nothing.)"""
    views, state = window.teaching, window.state
    window.resize(1920, 1080)
    qtbot.waitUntil(lambda: window.size().toTuple() == (1920, 1080))
    views.kv_action.trigger()
    assert views.kv_dock.isVisible()
    qtbot.waitUntil(lambda: views.kv_cache.rows() == len(state.trace.tokens["dec"]))  # drawn once shown
    attentions = views.kv_cache.attention  # the self-attention shown: kept, its list not made again per token
    attentions.setCurrentIndex(attentions.count() - 1)
    chosen, listed_again = attentions.currentData(), []
    attentions.model().rowsRemoved.connect(lambda *_: listed_again.append(True))
    grown = []
    for _ in range(2):
        n = len(state.trace.tokens["dec"])
        assert views.kv_cache.rows() == n  # one cached K and V row per token read
        views.generation.generate_action.trigger()
        assert len(state.trace.tokens["dec"]) == n + 1
        assert state.current_stage == "probs" and state.row == n
        assert views.generation_dock.isVisible()
        qtbot.waitUntil(lambda grown_to=n + 1: views.kv_cache.rows() == grown_to)  # one more row
        cached, full = views.kv_cache.macs.counts[-1]
        assert cached < full and f"{cached:,}" in views.kv_cache.summary.text()
        assert attentions.currentData() == chosen and not listed_again
        grown.append(state.trace.tokens["dec"][-1])
        views.generation.step_action.trigger()
        assert state.current_stage == "dec.tokens" and state.row == n
        step_to_end(window, state.cursor)
    return grown


def test_a_decoder_lesson_end_to_end_with_two_generated_tokens(qtbot):
    window = open_lesson_window(qtbot, "masked-decoder", text="我 爱")
    state = window.state
    assert state.trace.tokens["dec"] == ["<start>", "我", "爱"]
    passed = step_to_end(window)
    assert "probs" in passed and "dec.0.self_attn.masked" in passed
    assert passed[-1] == "grad.dec.embed"  # past the loss and back through the backward pass
    state.go_to("dec.0.self_attn.masked")  # the mask shows what each position may see
    output = window.stage_view.output.model
    assert [output.text(0, j) for j in range(3)][1:] == ["−∞", "−∞"] and output.text(2, 1) != "−∞"
    expected = generate(state.model, "我 爱", None, steps=2, greedy=True).generated
    before = {k: v for k, v in state.trace.values.items()}
    assert generate_twice(qtbot, window) == expected == ["大", "我"]
    assert state.text == "我 爱 大 我"
    window.undo_action.trigger()
    window.undo_action.trigger()
    assert state.text == "我 爱" and state.trace.values.keys() == before.keys()
    assert all(torch.equal(state.trace.values[k], v) for k, v in before.items())


def test_an_encoder_decoder_lesson_end_to_end_with_two_generated_tokens(qtbot):
    window = open_lesson_window(qtbot, "cross-attention")
    state = window.state
    names = state.stage_names
    last_enc = max(i for i, n in enumerate(names) if n.startswith("enc."))
    assert last_enc < min(i for i, n in enumerate(names) if n.startswith("dec."))  # the encoder runs first
    assert step_to_end(window) == names[1:]
    for stage in ("dec.0.cross_attn.scores", "dec.0.cross_attn.weights"):
        state.go_to(stage)
        table = window.stage_view.output.model
        assert [r.split(" → ")[0] for r in table.row_labels] == ["<start>", "我", "爱"]  # rows: target tokens
        assert table.col_labels == ["I", "love"]  # columns: source tokens
        assert "q from the decoder" in window.stage_view.formula.text()
        assert "k from the encoder" in window.stage_view.formula.text()
        assert text_key(state.trace, stage) == "cross_attn." + stage.rsplit(".", 1)[1]
        explanation = window.stage_view.explanation.text()
        assert explanation == op_text(text_key(state.trace, stage)) and "from the decoder" in explanation
    state.go_to("dec.0.cross_attn.k")
    assert panel_for(window, "enc.0.norm2.out").model.row_labels == ["I", "love"]
    assert formula(state.trace, "dec.0.cross_attn.q").startswith("Q = X_dec·W_Q")
    expected = generate(state.model, "I love", "我 爱", steps=2, greedy=True).generated
    assert generate_twice(qtbot, window) == expected
    assert state.target == "我 爱 " + " ".join(expected) and state.text == "I love"


def test_sampling_uses_seed_plus_step_like_the_engine(qtbot):
    window = open_lesson_window(qtbot, "masked-decoder", text="我")
    panel, state = window.teaching.generation, window.state
    window.teaching.generation_dock.show()  # a hidden panel draws no choice
    panel.sampled.setChecked(True)
    panel.temperature.setValue(3.0)
    panel.top_k.setValue(4)
    panel.seed.setValue(11)
    expected = generate(state.model, "我", None, steps=3, temperature=3.0, top_k=4, greedy=False, seed=11)
    got = []
    for _ in range(3):
        if state.trace.tokens["dec"][-1] == END:
            break
        assert panel.generate()
        got.append(state.trace.tokens["dec"][-1])
    assert got == expected.generated
    shown = panel.choice_panel.bars.items[0].opts["height"]
    torch.testing.assert_close(
        torch.tensor(sorted(shown, reverse=True), dtype=torch.float32),
        torch.sort(expected.steps[len(got) - 1].probs, descending=True).values[: len(shown)],
    )


def test_generation_explains_when_it_cannot_run(qtbot):
    window = open_window(qtbot)  # an encoder
    panel = window.teaching.generation
    assert not panel.generate_action.isEnabled() and "decoder" in panel.can_generate()
    assert not panel.generate() and window.state.undo_stack.count() == 0
    window = open_lesson_window(qtbot, "masked-decoder")  # greedy chooses <end> here
    assert window.teaching.generation.generate()
    assert window.state.trace.tokens["dec"][-1] == END
    assert "<end>" in window.teaching.generation.can_generate() and not window.teaching.generation.generate()


def test_the_head_grid_shows_every_head(qtbot):
    cfg = ModelConfig(d_model=8, n_heads=4, d_ff=8, decimals=1)
    window = open_window(qtbot, cfg)
    views, state = window.teaching, window.state
    views.heads_action.trigger()
    assert views.heads_dock.isVisible()
    state.go_to("enc.0.attn.weights")
    qtbot.waitUntil(lambda: views.heads.shown == "enc.0.attn.weights")
    tiles = views.heads.tiles()
    assert len(tiles) == 4
    weights = state.trace["enc.0.attn.weights"]
    for h, tile in enumerate(views.heads.figure.panels[0].tiles):
        assert torch.allclose(torch.tensor(tile.heatmap.image.image.T, dtype=torch.float32), weights[h])
    click = type("Click", (), {"scenePos": lambda self: tiles[2].sceneBoundingRect().center()})()
    views.heads._clicked(click)  # a click on head 2's tile selects head 2 for the stage view
    assert state.head == 2 and window.stage_view.controls.head_box.currentIndex() == 2
    state.go_to("enc.0.norm1.out")  # after the attention: the latest weights stay in view
    qtbot.waitUntil(lambda: views.heads.figure is not None)
    assert views.heads.shown == "enc.0.attn.weights"
    for stage, kind in (
        ("enc.0.attn.q", "SplitPanel"),
        ("enc.0.attn.concat", "ConcatPanel"),
        ("enc.0.attn.out", "OutputPartsPanel"),
    ):
        state.go_to(stage)
        qtbot.waitUntil(lambda s=stage: views.heads.shown == s)
        assert type(views.heads.figure.panels[0]).__name__ == kind and len(views.heads.tiles()) == 4
    state.go_to("enc.embed")
    qtbot.waitUntil(lambda: views.heads.shown is None)
    assert views.heads.pages.currentWidget() is views.heads.empty


def test_each_heads_columns_carry_its_colour(qtbot):
    window = open_window(qtbot, ModelConfig(d_model=4, n_heads=2, d_ff=8, decimals=1))
    state = window.state
    state.go_to("enc.0.attn.q")
    state.set_head(1)
    W_Q = panel_for(window, "enc.0.attn.W_Q").model
    assert [header_head(state.trace, W_Q.slice, c, True) for c in range(2)] == [1, 1]
    assert W_Q.headerData(0, Qt.Horizontal, Qt.BackgroundRole) is not None
    assert W_Q.headerData(0, Qt.Vertical, Qt.BackgroundRole) is None
    state.go_to("enc.0.attn.out")
    concat = panel_for(window, "enc.0.attn.concat").model
    assert [header_head(state.trace, concat.slice, c, True) for c in range(4)] == [0, 0, 1, 1]
    W_O = panel_for(window, "enc.0.attn.W_O").model
    assert [header_head(state.trace, W_O.slice, r, False) for r in range(4)] == [0, 0, 1, 1]
    assert header_head(state.trace, panel_for(window, "enc.0.attn.out").model.slice, 0, True) is None


@pytest.mark.parametrize("stage", ["dec.0.self_attn.q_rot", "dec.0.ffn.gate"])
def test_rope_and_the_swiglu_gate_are_drawn(qtbot, stage):
    cfg = ModelConfig(architecture="decoder", d_model=8, n_heads=2, d_ff=8, positional="rope", activation="swiglu")
    window = open_window(qtbot, cfg, text="我 爱 大 模型")
    window.state.go_to(stage)
    window.stage_view.draw_plots()
    kinds = [type(p).__name__ for p in window.stage_view.figure.panels]
    if stage.endswith("q_rot"):
        assert "RopePanel" in kinds
        rope = next(p for p in window.stage_view.figure.panels if isinstance(p, RopePanel))
        angles = torch.tensor(rope.angles.image.image.T)
        torch.testing.assert_close(angles, ops.rope_angles(5, 4).to(angles.dtype))
    else:
        assert kinds == ["MatrixPanel", "ActivationPanel", "GatePanel"]


def test_a_generated_token_refreshes_the_probabilities_figure_in_place(qtbot, monkeypatch):
    """The figure shown at `probs` is kept for the sentence one token longer: refreshed with the new token's row
    and label, never built anew nor blanked in between (what made a token cost ~100 ms)."""
    window = open_lesson_window(qtbot, "masked-decoder")
    state, view, panel = window.state, window.stage_view, window.teaching.generation
    window.teaching.generation_dock.show()
    state.go_to("probs")
    qtbot.waitUntil(lambda: view.figure is not None and view.figure.stage == "probs")
    figure, layout = view.figure, view.plot.ci
    drawn, shown = [], []
    monkeypatch.setattr("gui.views.stage_view.draw_stage", lambda *a: drawn.append(a[2]))
    original = view.plot.show_layout
    monkeypatch.setattr(view.plot, "show_layout", lambda lay: lay is view.plot.ci or shown.append(lay) or original(lay))
    n = len(state.trace.tokens["dec"])
    panel.generate_action.trigger()
    qtbot.waitUntil(lambda: view.figure is not None)
    assert len(state.trace.tokens["dec"]) == n + 1 and state.current_stage == "probs"
    assert drawn == [] and shown == [] and view.figure is figure and view.plot.ci is layout  # no other layout
    heatmap = figure.panels[0].heatmap
    assert heatmap.shape[0] == n + 1 and heatmap.labels[0][-1] == state.trace.tokens["dec"][-1]


def test_after_the_end_the_panel_says_what_it_generated_and_why_no_more(qtbot):
    """The distribution is named by the token it follows (the output row it is), and once the sentence has ended the
    status no longer invites to generate again, above a line saying that it cannot."""
    window = open_lesson_window(qtbot, "masked-decoder")  # greedy chooses <end> after 模型 here
    panel = window.teaching.generation
    window.teaching.generation_dock.show()
    title = panel.choice_panel.bars.plot.titleLabel.text.replace("<br>", " ")
    assert "after “模型”" in title and "&lt;end&gt;" in title  # what Generate would choose now
    assert panel.generate()
    assert panel.status.text().splitlines() == ["Generated “<end>”.", panel.can_generate()]
    assert "after “模型”" in panel.choice_panel.bars.plot.titleLabel.text.replace("<br>", " ")
    window.state.undo_stack.undo()
    assert panel.status.text() == "“Generate next token” would choose “<end>”."
    assert panel.generate_action.isEnabled()
    choice = panel.next_choice()
    assert choice.after == "模型" and choice_title(choice, "zh").startswith("“模型”之后的下一个词元：选了“&lt;end&gt;”")


def test_a_generated_token_draws_its_choice_once(qtbot, monkeypatch):
    """Generate draws the distribution the token was chosen from, once: the panel drew first what the next token
    would be (a distribution computed and drawn for nothing), then the choice over it."""
    window = open_lesson_window(qtbot, "masked-decoder", text="我")
    panel, state = window.teaching.generation, window.state
    window.teaching.generation_dock.show()
    panel.sampled.setChecked(True)
    drawn, previews = [], []
    original_draw, original_next = panel._draw, panel.next_choice
    monkeypatch.setattr(panel, "_draw", lambda choice: drawn.append(choice) or original_draw(choice))
    monkeypatch.setattr(panel, "next_choice", lambda: previews.append(1) or original_next())
    assert panel.generate()
    assert len(previews) == 1  # the choice itself; no preview of the token after it
    assert [c.token for c in drawn] == [state.trace.tokens["dec"][-1]]
    assert panel.status.text().startswith("Generated")
    state.undo_stack.undo()  # back: what Generate would choose now, drawn again
    assert len(drawn) == 2 and panel.status.text().startswith("“Generate next token” would choose")


def test_a_label_naming_a_token_is_as_tall_for_chinese_as_for_latin_text(qapp):
    """A line holding a Chinese character is a pixel taller (the CJK font's metrics): a label that names the token
    chosen grew and shrank from one token to the next, and the figure under it was resized and painted twice."""
    from PySide6.QtWidgets import QLabel

    from gui.views.steady_label import SteadyLabel

    def heights(kind) -> list[int]:
        shown = []
        for text in ("Generated “<unk>”.\nAgain?", "Generated “我”.\nAgain?", "Generated “我”.\n再来？"):
            label = kind()
            label.setWordWrap(True)
            label.setText(text)
            shown.append(label.heightForWidth(900))  # two lines each
        return shown

    plain = heights(QLabel)
    assert plain[0] < plain[1] < plain[2]  # (the fonts installed for the tests have the taller Chinese lines)
    assert len(set(heights(SteadyLabel))) == 1
    assert heights(SteadyLabel)[0] == plain[2]  # as tall as two Chinese lines


def test_a_steady_label_lays_its_text_out_once_per_width(qapp, monkeypatch):
    """A layout asks a label its height several times a pass (the KV cache's summary was laid out seven times at
    each generated token): each width is measured once per text, a new text anew, the same text set again not at
    all, and the height is the one measured afresh."""
    from PySide6.QtWidgets import QLabel

    from gui.views.steady_label import SteadyLabel, line_heights

    label = SteadyLabel()
    line_heights(label.font())  # (the font's line heights, measured once per process: not the label's lay-outs)
    laid_out = []
    measure = QLabel.heightForWidth
    monkeypatch.setattr(QLabel, "heightForWidth", lambda self, w: laid_out.append(w) or measure(self, w))
    label.setText("Generated “<unk>”.")
    one_line = [label.heightForWidth(400) for _ in range(5)]
    assert laid_out == [400] and len(set(one_line)) == 1
    label.setText("Generated “<unk>”.")  # the same text: nothing to measure again
    assert label.heightForWidth(400) == one_line[0] and laid_out == [400]
    label.setText("Generated “<unk>”. Generate again, or step through the new token, one stage at a time.")
    two_lines = label.heightForWidth(200)
    assert laid_out == [400, 200] and two_lines > one_line[0]
    fresh = SteadyLabel()
    fresh.setText(label.text())
    assert fresh.heightForWidth(200) == two_lines
    before = len(laid_out)
    label.clear()  # (a text set by Qt itself, not through setText, is measured anew too)
    assert label.heightForWidth(200) < two_lines and len(laid_out) == before + 1


def test_the_generate_and_kv_cache_figures_keep_their_size_whatever_the_tokens_script(qtbot):
    from dataclasses import replace

    window = open_lesson_window(qtbot, "masked-decoder", text="我")
    views, state = window.teaching, window.state
    window.resize(1920, 1080)
    qtbot.waitUntil(lambda: window.size().toTuple() == (1920, 1080))
    views.generation_dock.show()
    views.kv_action.trigger()
    panel = views.generation
    vocab = state.model.vocabs["dec"].tokens
    sizes = []
    for token in ["<unk>", "我", "<unk>", "爱"]:
        n = len(state.trace.tokens["dec"])
        choice = replace(panel.next_choice(), token=token, token_id=vocab.index(token))
        assert state.append_token(choice.token_id, choice)
        panel.show_choice()
        qtbot.waitUntil(lambda grown_to=n + 1: views.kv_cache.rows() == grown_to)
        qtbot.wait(50)
        assert panel.status.text().startswith(f"Generated “{token}”")
        sizes.append((panel.plot.geometry().getRect(), views.kv_cache.plot.geometry().getRect()))
    assert len(set(sizes)) == 1, sizes
