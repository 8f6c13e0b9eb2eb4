"""What the random walks through the new docks found (tests/walk.py, tests/random_walk.py), each reproduced in
the fewest actions: the overview, the heads dock, the neuron view, the logit lens and 2017 → today, with other
lessons and models opened under them."""

from __future__ import annotations

from engine import Model, ModelConfig
from gui.state.app_state import AppState
from tests.gui_window import settle, show_window

ENC_DEC = ModelConfig(architecture="encoder-decoder", d_model=8, n_heads=4, d_ff=12, n_layers=2)
SMALL_DECODER = ModelConfig(architecture="decoder", d_model=4, n_heads=2, d_ff=8, n_layers=1)


def overview_shown(qtbot, state: AppState):
    window = show_window(qtbot, state)
    window.docks["overview"].toggle.trigger()
    view = window.docks["overview"].view
    qtbot.waitUntil(lambda: view.figure is not None and bool(view.figure.grid.thumbs), timeout=10000)
    return window, view


def test_the_overview_follows_another_model_with_fewer_attentions_and_heads(qtbot):
    """Another model opened (a new lesson): the cursor's signal came before the overview was drawn again, and
    choosing the outlined head in the old model's rows raised "ValueError: 'dec.0.self_attn.weights' is not in
    list"; the head under the pointer (row 5, head 3) was not in the new model either."""
    window, view = overview_shown(qtbot, AppState(ENC_DEC, "the cat sat", "猫 坐"))
    state = window.state
    state.go_to("dec.1.cross_attn.weights")
    view.figure.grid.set_pointed((5, 3))
    settle(qtbot)
    state.load_model(Model.create(SMALL_DECODER), "I love AI")
    settle(qtbot)
    qtbot.waitUntil(lambda: view.figure.trace is state.trace)
    assert [a.stages.weights.name for a in view.figure.grid.rows] == ["dec.0.self_attn.weights"]
    assert view.shown_head() in ((0, 0), (0, 1))
    view.figure.grid.set_pointed(None)
    window.docks["overview"].toggle.trigger()  # hidden, it is told of the next model too
    state.load_model(Model.create(ENC_DEC), "the cat sat", "猫 坐")
    settle(qtbot)


def test_the_heads_dock_takes_apart_the_output_of_a_model_without_biases(qtbot):
    """Llama, Mistral and Qwen3 have no b_O: the heads dock at attn.out unpacked three inputs (concat, W_O, b_O)
    and raised "ValueError: not enough values to unpack" (a Qwen3 folder)."""
    config = ModelConfig(architecture="decoder", d_model=8, n_heads=2, d_ff=8, n_layers=1, biases="none")
    window = show_window(qtbot, AppState(config, "I love AI", ""))
    window.docks["heads"].toggle.trigger()
    heads = window.docks["heads"].view
    window.state.go_to("dec.0.self_attn.out")
    qtbot.waitUntil(lambda: heads.shown == "dec.0.self_attn.out")
    panel = heads.figure.panels[0]
    assert type(panel).__name__ == "OutputPartsPanel" and len(heads.tiles()) == 2
    parts = [tile.heatmap.image.image.T for tile in panel.tiles]
    out = window.state.trace["dec.0.self_attn.out"].numpy()
    assert abs(sum(parts) - out).max() < 1e-5  # without a bias the heads' parts add up to the output


def test_the_overview_resized_before_it_draws_another_model_lays_out_nothing_of_the_old_one(qtbot):
    """Another model opened, and the overview resized before its grid was drawn again (a lesson's views open
    their docks): its resize laid out the enlarged head from the old model's rows ("EngineError: no stage or
    parameter named 'dec.1.self_attn.weights'" in resizeEvent). An exception in a Qt override is worse than its
    message with PySide6 6.10: the overrides Qt calls while it is pending each lose a reference to their Python
    function, and the walk that found it (masked-decoder, seed 3) ended in a segmentation fault a few events later."""
    window, view = overview_shown(qtbot, AppState(ENC_DEC, "the cat sat", "猫 坐"))
    state = window.state
    state.load_model(Model.create(SMALL_DECODER), "I love AI")
    view.resize(view.width() - 40, view.height() - 30)  # (at once: before the grid is drawn again)
    settle(qtbot)
    qtbot.waitUntil(lambda: view.figure.trace is state.trace)
    assert [a.stages.weights.name for a in view.figure.grid.rows] == ["dec.0.self_attn.weights"]
