"""What an action redraws: a figure drawn once is swapped back in (and refreshed) when its stage or head grid is
shown again, a what-if switch and its undo, or a new sentence, refresh the figures instead of building them anew,
and hidden docks draw nothing at all and build no plots."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtWidgets import QDockWidget

from gui.docks.generation import GenerationPanel
from gui.docks.heads import HeadGridView
from gui.docks.kv_cache import KVCacheView
from gui.docks.whatif import WhatIfView
from gui.plots.captions import plain
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


def test_a_new_sentence_refreshes_its_figures_with_the_new_tokens(qtbot, window):
    """Tokens are not part of what a figure is built from (gui.plots.figure_build_key): a new sentence keeps the
    figure shown and refreshes it, its rows and labels those of the new tokens."""
    state, view = window.state, window.stage_view
    state.go_to("enc.0.attn.q")
    qtbot.waitUntil(lambda: view.figure is not None and view.figure.stage == "enc.0.attn.q")
    first = view.figure
    assert state.set_sentences("the cat sat down")
    state.go_to("enc.0.attn.q")
    tokens = state.trace.tokens["enc"]
    qtbot.waitUntil(lambda: view.figure is not None and shown_matrix(view).shape[0] == len(tokens))
    assert view.figure is first
    assert np.allclose(shown_matrix(view), state.trace["enc.0.attn.q"][state.head].numpy())
    assert first.panels[0].heatmap.labels[0] == tokens


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


def test_a_switch_and_its_undo_keep_the_figure_with_the_numbers_of_each_trace(qtbot, window):
    """A what-if switch changes the numbers, not the figure's structure: its figures are refreshed, not rebuilt."""
    state, view = window.state, window.stage_view
    state.go_to("enc.0.attn.weights")
    qtbot.waitUntil(lambda: view.figure is not None and view.figure.stage == "enc.0.attn.weights")
    first, before = view.figure, state.trace["enc.0.attn.weights"][state.head].numpy()
    assert state.set_switch("no_scale", True)
    after = state.trace["enc.0.attn.weights"][state.head].numpy()
    assert not np.allclose(before, after)
    qtbot.waitUntil(lambda: view.figure is not None and np.allclose(shown_matrix(view), after))
    assert view.figure is first
    state.undo_stack.undo()
    qtbot.waitUntil(lambda: view.figure is not None and np.allclose(shown_matrix(view), before))
    assert view.figure is first


def test_hidden_docks_build_no_plots(qtbot):
    """Not one pyqtgraph plot exists in a dock that has not been shown (steps, edits and switches included)."""
    window = open_lesson_window(qtbot, "masked-decoder")
    state = window.state
    for name in state.stage_names[:8]:
        state.go_to(name)
        qtbot.wait(1)
    assert state.edit_cell("dec.0.self_attn.W_Q", (0, 0), 2.5)
    assert state.set_switch("no_scale", True)
    window.training_step.step_action.trigger()  # shows the training step dock: it draws
    qtbot.wait(5)
    hidden = [dock for dock in window.findChildren(QDockWidget) if not dock.isVisible()]
    assert len(hidden) >= 5 and window.training_step_dock not in hidden
    for dock in hidden:
        plots = [
            item
            for view in dock.findChildren(pg.GraphicsView)
            for item in view.scene().items()
            if isinstance(item, pg.PlotItem)
        ]
        assert plots == [], dock.objectName()
    shown = window.training_step_dock.findChildren(pg.GraphicsView)
    assert any(isinstance(item, pg.PlotItem) for view in shown for item in view.scene().items())


def test_a_dock_tabbed_behind_another_draws_nothing_until_its_tab_is_chosen(qtbot, monkeypatch):
    """Qt keeps a dock tabbed behind another "visible" (moved out of the window): the What-if view behind the heads
    drew every step, edit and language switch for nothing (11 ms of a switch at 1920×1080). It draws once its tab
    is chosen, what it missed; then the heads, behind it, draw nothing."""
    drawn = []
    for cls in (HeadGridView, WhatIfView):
        monkeypatch.setattr(cls, "draw", lambda self, *_, draw=cls.draw: drawn.append(type(self)) or draw(self))
    window = open_lesson_window(qtbot, "masked-decoder")
    window.resize(1920, 1080)
    qtbot.waitUntil(lambda: window.size().toTuple() == (1920, 1080))
    views, state = window.teaching, window.state
    state.go_to("dec.0.self_attn.weights")
    views.show_effect("no_scale")  # the what-if dock, shown at its switch's tab
    qtbot.waitUntil(lambda: WhatIfView in drawn)
    views.heads_action.trigger()
    views.heads_dock.raise_()
    qtbot.waitUntil(lambda: HeadGridView in drawn and views.heads.figure is not None)
    assert views.whatif_dock in window.tabifiedDockWidgets(views.heads_dock)
    assert views.whatif_dock.isVisible()  # (Qt's word for it)
    qtbot.wait(20)
    drawn.clear()
    for name in ("dec.0.self_attn.q", "dec.0.self_attn.scores", "dec.0.self_attn.weights"):
        state.go_to(name)
        qtbot.waitUntil(lambda: HeadGridView in drawn)
    assert state.set_switch("no_scale", True)
    qtbot.wait(20)
    assert WhatIfView not in drawn and HeadGridView in drawn
    drawn.clear()
    views.whatif_dock.raise_()  # its tab chosen: drawn, with the switch made while it was behind
    qtbot.waitUntil(lambda: WhatIfView in drawn)
    assert views.whatif.explanation.text().endswith(plain("switch_on", "en"))
    drawn.clear()
    state.go_to("dec.0.self_attn.out")
    qtbot.wait(20)
    assert HeadGridView not in drawn  # now the heads are behind
