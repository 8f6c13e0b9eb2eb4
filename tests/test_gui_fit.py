"""At the classroom window sizes the issue names (1280×720 and 1600×1000), in both languages, every stage's
plot area lies inside the window and its figure inside the plot area, shrunk at most a little; and no table's
scroll bar covers its last row; the explanation shows every line."""

import pytest
from PySide6.QtCore import QRect, QRectF

from tests import gui_lessons

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures

MOST_SHRUNK = 1.25  # fonts at 80 % or more: still readable from the back of a classroom


def fits_inside(widget, outer) -> bool:
    top_left = widget.mapTo(outer, widget.rect().topLeft())
    return outer.rect().contains(QRect(top_left, widget.size()))


@pytest.mark.parametrize("lesson", ["the-cat-sat", "cross-attention"])
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", [(1280, 720), (1600, 1000)], ids=["1280x720", "1600x1000"])
def test_every_stage_figure_fits_the_window(qtbot, start_window, lesson, lang, size):
    window = start_window(lesson, lang).window
    if size == (1280, 720):  # the stage view's own bound; beside the map, see test_gui_map_window
        window.map_dock.hide()
    window.resize(*size)
    qtbot.waitUntil(lambda: window.size().toTuple() == size)
    state, view = window.state, window.stage_view
    plot = view.plot
    for name in state.stage_names:
        state.go_to(name)
        qtbot.waitUntil(lambda n=name: view.figure is not None and view.figure.stage == n)
        qtbot.waitUntil(lambda: not plot.fit_timer.isActive())
        assert fits_inside(plot, window), name
        shown = plot.mapFromScene(plot.ci.geometry()).boundingRect()
        assert QRectF(plot.viewport().rect()).adjusted(-1, -1, 1, 1).contains(QRectF(shown)), name
        assert plot.scale <= MOST_SHRUNK, (name, plot.scale)
        for panel in view.panels():
            assert every_row_shows(panel.table), (name, panel.model.slice.name)


def every_row_shows(table) -> bool:
    """A table short enough never to scroll up and down (under 300 px) shows all its rows, even when it
    scrolls sideways."""
    rows = table.model().rowCount() * table.verticalHeader().defaultSectionSize()
    return rows > 300 - table.header_height or table.viewport().height() >= rows


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_generation_and_kv_cache_docks_fit_beside_the_stage_view_at_1280x720(qtbot, start_window, lang):
    window = start_window("masked-decoder", lang).window
    views = window.teaching
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.size().toTuple() == (1280, 720))
    window.state.go_to("probs")
    # opened as a teacher opens them: tabbed beside the stage view (too short to stack them), or floating over it in
    # turns (gui/docks/placement.py)
    for action, dock, widgets in (
        (views.generation_panel_action, views.generation_dock, (views.generation.plot,)),
        (views.kv_action, views.kv_dock, (views.kv_cache.plot, views.kv_cache.summary)),
        (views.generation_panel_action, views.generation_dock, (views.generation.plot,)),
    ):
        if not dock.isVisible():
            action.trigger()
        dock.raise_()
        qtbot.waitUntil(dock.widget().isVisible)
        if dock is views.kv_dock:
            qtbot.waitUntil(lambda: views.kv_cache.rows() == len(window.state.trace.tokens["dec"]))
        assert window.size().toTuple() == (1280, 720)
        for widget in (*widgets, window.stage_view.plot, window.stepper):
            assert fits_inside(widget, window), type(widget).__name__
    assert views.kv_cache.plot.height() >= 150


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_docks_stacked_in_a_tall_window_share_its_height(qtbot, start_window, lang):
    """At 1920×1080 the KV cache opens under the Generate panel, one above the other: Qt gave it what the Generate
    panel could spare, a strip too low for its heatmaps' numbers to be read; opened, it shares the column's height."""
    window = start_window("masked-decoder", lang).window
    views = window.teaching
    window.resize(1920, 1080)
    qtbot.waitUntil(lambda: window.size().toTuple() == (1920, 1080))
    for action, dock in ((views.generation_panel_action, views.generation_dock), (views.kv_action, views.kv_dock)):
        if not dock.isVisible():
            action.trigger()
        qtbot.waitUntil(dock.widget().isVisible)
    qtbot.waitUntil(lambda: views.kv_cache.rows() == len(window.state.trace.tokens["dec"]))
    generate, kv = views.generation_dock, views.kv_dock
    assert not generate.isFloating() and not kv.isFloating()
    assert window.dockWidgetArea(generate) == window.dockWidgetArea(kv) and kv.y() > generate.y()  # stacked
    assert abs(generate.height() - kv.height()) <= 0.1 * window.height(), (generate.height(), kv.height())
    assert views.kv_cache.plot.height() >= 250


def test_the_explanation_shows_every_line_whatever_the_width_the_window_is_given(qtbot, start_window):
    """Its height follows the lines its width wraps it into: a viewport left its old height cut the last line
    off, with no scroll bar to reach it (1100 px wide after 1280, 1400 after 1100)."""
    window = start_window("the-cat-sat").window
    window.state.go_to("enc.0.ffn.act")  # an explanation of four lines and more
    box = window.stage_view.explanation_box
    cut = []
    for width in (1920, 1500, 1280, 1100, 1400, 1280):
        window.resize(width, 720)
        qtbot.waitUntil(lambda w=width: window.width() == w)
        qtbot.wait(50)
        if box.viewport().height() != box.height() or box.verticalScrollBar().isVisible():
            cut.append((width, box.height(), box.viewport().height()))
    assert not cut
