"""Today's decoder block in the window: every stage of a Qwen3-like model (RMSNorm, grouped-query attention with
its shared K and V, QK-norm, rotate-half RoPE, no biases, a tied output head, a sliding window) shown and stepped,
the last head's K and W_K sliced by the K/V head it reads, and the map's and cost dock's words for them."""

import pytest
import torch
from PySide6.QtCore import Qt

from engine import ModelConfig
from tests.gui_window import open_window, press
from tests.test_gui_stepping import assert_shows

MODERN = ModelConfig(
    architecture="decoder",
    d_model=8,
    n_heads=4,
    n_kv_heads=2,
    head_dim=2,
    d_ff=12,
    norm="pre",
    norm_type="rmsnorm",
    activation="swiglu",
    positional="rope",
    rope_pairs="half",
    qk_norm=True,
    biases="none",
    tied_embeddings=True,
    sliding_window=3,
    decimals=1,
)


def test_every_stage_of_today_s_decoder_is_shown_on_its_last_head(qtbot):
    window = open_window(qtbot, MODERN, text="the cat sat on the mat")
    state = window.state
    state.set_head(3)
    n = len(state.stage_names)
    for i in range(1, n):
        press(qtbot, window, Qt.Key_Right)
        assert_shows(window, i)


def test_k_and_w_k_of_a_query_head_are_those_of_its_kv_head(qtbot):
    window = open_window(qtbot, MODERN, text="the cat sat on the mat")
    state, view = window.state, window.stage_view
    state.go_to("dec.0.self_attn.k")
    state.set_head(3)  # query heads 2 and 3 read K/V head 1
    w_k = next(p for p in view.inputs if p.model.slice.name == "dec.0.self_attn.W_K")
    assert torch.equal(w_k.model.shown, state.trace["dec.0.self_attn.W_K"][:, 2:4])
    assert torch.equal(view.output.model.shown, state.trace["dec.0.self_attn.k"][1])
    assert "head 1 of 2" in view.formula.text()
    state.go_to("dec.0.self_attn.k_shared")
    assert "query heads 2–3 share K/V head 1" in view.formula.text()


def test_the_kv_cache_and_cost_docks_show_the_kv_heads(qtbot):
    window = open_window(qtbot, MODERN, text="the cat sat on the mat")
    window.resize(1920, 1080)
    qtbot.waitUntil(lambda: window.size().toTuple() == (1920, 1080))
    views, state = window.teaching, window.state
    state.set_head(3)
    views.kv_action.trigger()
    qtbot.waitUntil(lambda: views.kv_cache.rows() == len(state.trace.tokens["dec"]))
    caption = views.kv_cache.cache.maps[0].plot.caption_shown[0]
    assert "head 1" in caption and "head 3" not in caption  # query head 3 reads K/V head 1 of the cache's 2


def test_a_rotate_half_pair_highlights_its_two_cells_only():
    from engine import Model
    from engine.provenance import sources
    from gui.views.tensor_slice import hits

    trace = Model.create(MODERN.replace(head_dim=4, n_heads=2, n_kv_heads=1)).trace("the cat sat")
    (selector,) = sources(trace, "dec.0.self_attn.q_rot", (1, 2, 3)).values()  # pair (1, 3) of d_k 4
    assert [c for c in range(4) if hits(selector[2], c)] == [1, 3]


def test_the_settings_dialog_shows_and_sets_today_s_fields(qtbot):
    from gui.window.settings_dialog import SettingsDialog

    window = open_window(qtbot, MODERN, text="the cat sat on the mat")
    state = window.state
    dialog = SettingsDialog(state, window)
    qtbot.addWidget(dialog)
    shown = (dialog.norm_type, dialog.qk_norm, dialog.rope_pairs, dialog.biases, dialog.tied)
    assert [box.currentData() for box in shown] == ["rmsnorm", True, "half", "none", True]
    assert dialog.n_kv_heads.value() == 2 and dialog.error.isHidden()
    dialog.n_kv_heads.setValue(3)  # does not divide 4 heads
    assert "n_kv_heads" in dialog.error.text() and not dialog.apply()
    dialog.n_kv_heads.setValue(0)  # one per head
    dialog.norm_type.setCurrentIndex(dialog.norm_type.findData("layernorm"))
    dialog.tied.setCurrentIndex(dialog.tied.findData(False))
    dialog.biases.setCurrentIndex(dialog.biases.findData("qkv"))
    assert dialog.apply()
    cfg = state.config
    assert (cfg.n_kv_heads, cfg.norm_type, cfg.tied_embeddings, cfg.biases) == (None, "layernorm", False, "qkv")
    assert cfg.qk_norm and cfg.sliding_window == 3 and cfg.head_dim == 2  # the fields it does not show are kept
    assert "unembed.W_U" in state.trace.params and "dec.0.norm1.beta" in state.trace.params


def test_the_rmsnorm_plots_walk_x_through_its_steps(qtbot):
    from engine import Model
    from gui.plots import PlotOptions, draw_stage
    from gui.plots.norm import NormStepsPanel
    from gui.plots.view import FittedLayoutWidget

    trace = Model.create(MODERN).trace("the cat sat")
    view = FittedLayoutWidget()
    qtbot.addWidget(view)
    figure = draw_stage(view.ci, trace, "dec.0.norm2.out", PlotOptions(row=1))
    (steps,) = [p for p in figure.panels if isinstance(p, NormStepsPanel)]
    ys = [line.yData for line in steps.lines]  # one line per feature: x, x/√(ms+ε), γ ⊙ that
    for f, y in enumerate(ys):
        want = [trace["dec.0.add1"][1, f], trace["dec.0.norm2.hat"][1, f], trace["dec.0.norm2.out"][1, f]]
        assert y == pytest.approx([float(w) for w in want], abs=1e-6)
