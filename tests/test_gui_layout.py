"""The window as a class sees it at 1280×720 and 1920×1080, in English and Chinese: at every stage of the lessons
the-cat-sat, masked-decoder and cross-attention, no text of the figure overlaps another or a cell's
number, no tick mark touches a number, every token axis names every token, and no plot or table is cut by the
window (the tables show all their cells without scrolling inside, the matrices' area scrolls where they are more
than it holds, every plot has room to draw in).

The tight screen, 1280×720, is checked in both languages at every forward stage and in English at every backward
stage too (their pictures differ from the forward ones, their words hardly); the large one in both languages at
every forward stage. Presentation mode: tests/test_gui_present_mode.py."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import QPoint, QRect

from engine.training.backward import is_backward
from gui.views import matrix_view
from tests.figure_checks import view_problems
from tests.gui_lessons import own_folders, start_controller  # noqa: F401 (a fixture)

SCREENS = {(1280, 720): 1.0, (1920, 1080): 1.2}  # the tables' font scale a screen that size gives
CASES = [
    (lesson, (1280, 720), lang)
    for lesson in ("the-cat-sat", "masked-decoder", "cross-attention")
    for lang in ("en", "zh")
]
CASES += [
    (lesson, (1920, 1080), lang)
    for lesson in ("the-cat-sat", "masked-decoder", "cross-attention")
    for lang in ("en", "zh")
]
MIN_PLOT = 24  # px: a plot area smaller than this is blank to the class
WHOLE = 16  # tables up to 16 × 16 show whole


def stages(state, backward: bool = True) -> list[int]:
    """The cursor of every stage of the lesson (forward ones only unless `backward`)."""
    return [i for i, name in enumerate(state.stage_names) if backward or not is_backward(name)]


def inside(widget, outer) -> bool:
    rect = QRect(widget.mapTo(outer, QPoint(0, 0)), widget.size())
    return outer.rect().contains(rect)


def cut_tables(window) -> list[str]:
    """Tables of up to WHOLE × WHOLE numbers that do not show whole: scrolled inside, cut by the matrices' area, or
    the area itself cut by the window (larger ones, like a d_ff = 32 weight, may scroll). Where a stage's tables
    are more than the area can hold, even in the smaller table font, the area scrolls them into view (the issue's
    "it scrolls or reflows"): a table below the fold is reachable, not cut."""
    view = window.stage_view
    area = view.matrices.parentWidget()  # the viewport of the scroll area around the matrices
    found = [] if inside(area, window) else ["the matrices' area is cut by the window"]
    for panel in view.panels():
        table, name = panel.table, panel.model.slice.name
        rows, cols = panel.model.shown.shape
        if rows > WHOLE or cols > WHOLE:
            continue
        if table.horizontalScrollBar().maximum() > 0 or table.verticalScrollBar().maximum() > 0:
            found.append(f"table {name} [{rows}×{cols}] scrolls")
        if not inside(table, view.matrices):
            found.append(f"table {name} [{rows}×{cols}] is cut")
    return found


def small_plots(view) -> list[str]:
    """Plot areas the class cannot read: smaller than MIN_PLOT pixels on screen."""
    import pyqtgraph as pg

    from gui.plots.view import parked

    found = []
    for item in view.scene().items():
        if (
            isinstance(item, pg.ViewBox)
            and item.isVisible()
            and not parked(item)
            and not isinstance(item.parentItem(), pg.ColorBarItem)
        ):
            rect = view.mapFromScene(item.sceneBoundingRect()).boundingRect()
            if min(rect.width(), rect.height()) < MIN_PLOT:
                found.append(f"a plot area is {rect.width()}×{rect.height()} px")
    return found


@pytest.mark.parametrize(("lesson", "screen", "lang"), CASES, ids=[f"{a}-{w}x{h}-{c}" for a, (w, h), c in CASES])
def test_every_stage_is_readable_and_whole(qtbot, own_folders, monkeypatch, lesson, screen, lang):  # noqa: F811
    monkeypatch.setattr(matrix_view, "cell_font_scale", lambda presenting: SCREENS[screen])
    controller = start_controller(lesson, lang)
    window, state = controller.window, controller.state
    window.showNormal()
    if screen == (1280, 720):  # the stage view's own bound, as in test_gui_fit; beside the map: test_gui_map_window
        window.map_dock.hide()
    window.resize(*screen)
    qtbot.waitExposed(window)
    failures = []
    for cursor in stages(state, backward=screen == (1280, 720) and lang == "en"):
        state.set_cursor(cursor)
        view = window.stage_view
        view.draw_plots()
        view.plot_timer.stop()  # drawn now: not once more when the event loop next runs
        for _ in range(3):  # the figure lays out, its axes fit their labels, the view fits the figure
            qtbot.wait(1)
            view.plot.grab()
        plot = view.plot
        found = view_problems(plot, view.figure, state.view)
        found += cut_tables(window) + small_plots(plot)
        if not inside(plot, window):
            found.append("the plot area is cut by the window")
        failures += [f"{state.current_stage}: {problem}" for problem in found]
    window.close()
    assert not failures, "\n".join(failures[: int(os.environ.get("LAYOUT_FAILURES", 40))])
