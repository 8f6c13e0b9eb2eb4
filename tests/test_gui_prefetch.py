"""While the window is idle, the stage view and the heads dock draw the figures of the stages next to the cursor
(gui/views/prefetch.py): the teacher's next step swaps in a figure already built, and shows exactly what a figure
drawn at that moment would show. A hidden dock draws nothing ahead."""

from __future__ import annotations

import pytest

from gui.plots.heads import heads_stage
from gui.views import prefetch
from tests.gui_window import open_lesson_window
from tests.test_figure_reuse import assert_same, describe


def idle_until_prefetched(qtbot, cache, keys) -> None:
    qtbot.waitUntil(lambda: all(key in cache.figures for key in keys), timeout=10_000)


def step_after(qtbot, window, start: str, pause: bool, monkeypatch=None) -> list[str]:
    """Go to `start`, (pause until its neighbours are drawn ahead), edit a weight, step on; the stages the step drew."""
    state, view = window.state, window.stage_view
    state.go_to(start)
    names = state.stage_names
    if pause:
        neighbours = [names[state.cursor + 1], names[state.cursor - 1]]
        idle_until_prefetched(qtbot, view.figures, [view.figure_key(s) for s in neighbours])
    state.edit_cell("enc.0.attn.W_Q", (0, 0), 0.75)  # after the figures were drawn: shown with the new numbers
    drawn = []
    if monkeypatch is not None:
        monkeypatch.setattr("gui.views.stage_view.draw_stage", lambda *a: drawn.append(a[2]))
    state.step(1)
    qtbot.waitUntil(lambda: view.figure is not None and view.figure.stage == names[names.index(start) + 1])
    view.plot.grab()  # painted: the auto ranges follow the size they are painted at
    return drawn


@pytest.mark.parametrize("start", ["enc.0.attn.scores", "enc.0.norm1.var"])
def test_a_step_after_a_pause_shows_the_figure_drawn_ahead_as_one_drawn_then(qtbot, monkeypatch, start):
    ahead, then = open_lesson_window(qtbot, "two-heads"), open_lesson_window(qtbot, "two-heads")
    step_after(qtbot, then, start, pause=False)
    assert step_after(qtbot, ahead, start, pause=True, monkeypatch=monkeypatch) == []  # swapped in, not built
    stage = ahead.state.current_stage
    assert_same(describe(ahead.stage_view.plot.ci), describe(then.stage_view.plot.ci), stage)


def test_the_heads_dock_draws_the_next_stages_heads_while_idle_and_only_when_shown(qtbot):
    window = open_lesson_window(qtbot, "two-heads")
    state, heads = window.state, window.teaching.heads
    window.teaching.heads_dock.show()
    state.go_to("enc.0.attn.q")
    nxt = heads_stage(state.trace, state.stage_names[state.cursor + 1])
    assert nxt == "enc.0.attn.k"  # another figure than the one shown
    idle_until_prefetched(qtbot, heads.figures, [heads.figure_key(nxt)])

    window.teaching.heads_dock.hide()
    state.go_to("enc.0.attn.scores")
    hidden_key = heads.figure_key("enc.0.attn.scaled")
    qtbot.wait(prefetch.IDLE_MS * 3)
    assert hidden_key not in heads.figures.figures  # a hidden dock costs nothing


def test_prefetching_waits_for_the_window_to_be_idle(qtbot):
    """A held arrow key steps faster than IDLE_MS: nothing is drawn ahead between its steps."""
    window = open_lesson_window(qtbot, "two-heads")
    state, view = window.state, window.stage_view
    state.go_to(state.stage_names[0])
    qtbot.wait(prefetch.IDLE_MS * 3)
    kept = set(view.figures.figures)
    for _ in range(5):
        state.step(1)
        qtbot.wait(prefetch.IDLE_MS // 5)
    far = view.figure_key(state.stage_names[state.cursor + 1])
    assert far not in view.figures.figures
    drawn_while_stepping = set(view.figures.figures) - kept
    assert drawn_while_stepping <= {view.figure_key(s) for s in state.stage_names[1 : state.cursor + 1]}
