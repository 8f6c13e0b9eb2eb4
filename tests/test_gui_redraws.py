"""What an action redraws: a figure drawn once is swapped back in (and refreshed) when its stage or head grid is
shown again, an edit or a switch refreshes the What-if figure instead of building it anew, and hidden docks
draw nothing at all."""

from __future__ import annotations

import numpy as np
import pytest

from gui.docks.generation import GenerationPanel
from gui.docks.heads import HeadGridView
from gui.docks.kv_cache import KVCacheView
from gui.docks.whatif import WhatIfView
from tests.gui_window import open_lesson_window


@pytest.fixture
def window(qtbot):
    return open_lesson_window(qtbot, "two-heads")


def shown_matrix(view) -> np.ndarray:
    """The numbers the stage view's main heatmap holds (ImageItem keeps [column, row])."""
    return view.figure.panels[0].heatmap.image.image.T


def test_a_stage_shown_again_reuses_its_figure_with_the_numbers_of_now(qtbot, window):
    state, view = window.state, window.stage_view
    state.go_to("enc.0.attn.q")
    qtbot.waitUntil(lambda: view.figure is not None and view.figure.stage == "enc.0.attn.q")
    first, layout = view.figure, view.plot.ci
    state.go_to("enc.0.attn.k")
    qtbot.waitUntil(lambda: view.figure is not None and view.figure.stage == "enc.0.attn.k")
    assert state.edit_cell("enc.0.attn.W_Q", (0, 0), 3.5)  # changes Q while K is shown
    state.go_to("enc.0.attn.q")
    qtbot.waitUntil(lambda: view.figure is first)
    assert view.plot.ci is layout
    q = state.trace["enc.0.attn.q"][state.head].numpy()
    assert np.allclose(shown_matrix(view), q)


def test_a_new_sentence_draws_its_figures_anew(qtbot, window):
    state, view = window.state, window.stage_view
    state.go_to("enc.0.attn.q")
    qtbot.waitUntil(lambda: view.figure is not None and view.figure.stage == "enc.0.attn.q")
    first = view.figure
    assert state.set_sentences("the cat sat down")
    state.go_to("enc.0.attn.q")
    qtbot.waitUntil(lambda: view.figure is not None and view.figure is not first)
    assert shown_matrix(view).shape[0] == len(state.trace.tokens["enc"])


def test_edits_and_switches_refresh_the_what_if_figure(qtbot, window):
    whatif = window.teaching.whatif
    window.teaching.show_effect("no_scale")
    qtbot.waitUntil(lambda: whatif.figure is not None)
    figure = whatif.figure
    assert window.state.edit_cell("enc.0.attn.W_Q", (0, 0), 2.5)
    assert window.state.set_switch("no_scale", True)
    window.state.undo_stack.undo()
    qtbot.wait(5)
    assert whatif.figure is figure


def test_hidden_docks_draw_nothing(qtbot, monkeypatch):
    drawn = []
    for view in (HeadGridView, WhatIfView, KVCacheView):
        monkeypatch.setattr(view, "draw", lambda self, *_: drawn.append(type(self).__name__))
    monkeypatch.setattr(GenerationPanel, "next_choice", lambda self: drawn.append("GenerationPanel"))
    state = open_lesson_window(qtbot, "masked-decoder").state  # a decoder: it can generate
    for name in state.stage_names[:8]:
        state.go_to(name)
        qtbot.wait(1)
    assert state.edit_cell("dec.0.self_attn.W_Q", (0, 0), 2.5)
    assert state.set_switch("no_scale", True)
    state.set_head(1)
    qtbot.wait(5)
    assert drawn == []


def test_undoing_a_switch_brings_back_the_figure_of_the_trace_before(qtbot, window):
    state, view = window.state, window.stage_view
    state.go_to("enc.0.attn.weights")
    qtbot.waitUntil(lambda: view.figure is not None and view.figure.stage == "enc.0.attn.weights")
    first = view.figure
    assert state.set_switch("no_scale", True)
    qtbot.waitUntil(lambda: view.figure is not None and view.figure is not first)
    state.undo_stack.undo()
    qtbot.waitUntil(lambda: view.figure is first)
    weights = state.trace["enc.0.attn.weights"][state.head].numpy()
    assert np.allclose(shown_matrix(view), weights)
