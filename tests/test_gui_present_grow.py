"""Presentation mode, a stage shown as tables alone (no figure beside them): the tables take a larger type and fill
the slide, rather than its top-left third at the presentation type (issue 46: x0 and the residual Add at 1920×1080
left two thirds of the slide empty). Beside a figure, and at the desk, they keep their type."""

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QFontInfo, QFontMetrics
from PySide6.QtWidgets import QApplication

from tests import gui_lessons
from tests.test_gui_present_mode import go, present, settled

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures

GROWN = 1.3  # the tables' type against the presentation type, at least
COVERED = 0.5  # the tables' share of the room between the formula and the explanation, at least


def in_view(view, widget) -> QRect:
    return QRect(widget.mapTo(view, QPoint(0, 0)), widget.size())


def tables_box(view) -> QRect:
    box = QRect()
    for panel in view.panels():
        box = box.united(in_view(view, panel.table))
    return box


def cut_numbers(view) -> list[str]:
    """Tables not shown whole: scrolling (the matrices area or the table itself), or a number wider than its column."""
    cut = []
    bars = [view.matrices_box.horizontalScrollBar(), view.matrices_box.verticalScrollBar()]
    if any(bar.maximum() > 0 for bar in bars):
        cut.append(f"the matrices area scrolls ({view.matrices.size().toTuple()})")
    for panel in view.panels():
        table, name = panel.table, panel.model.slice.name
        if table.horizontalScrollBar().maximum() > 0 or table.verticalScrollBar().maximum() > 0:
            cut.append(f"{name} scrolls inside itself")
        fm, column = QFontMetrics(table.font()), table.horizontalHeader().defaultSectionSize()
        wide = [s for s in panel.model.number_shapes() if fm.horizontalAdvance(s) > column]
        cut += [f"{name}: {s!r} in {column} px" for s in wide]
    return cut


def type_ratio(view) -> float:
    table = view.output.table
    return QFontInfo(table.font()).pixelSize() / QFontInfo(table.scaled_font(1.0)).pixelSize()


@pytest.mark.parametrize(("lesson", "stage"), [("i-love-ai", "enc.x0"), ("layernorm", "enc.0.add1")])
def test_tables_alone_fill_the_slide_in_presentation_mode(qtbot, start_window, lesson, stage):
    window = present(qtbot, start_window(lesson), (1920, 1080))
    go(qtbot, window, stage)
    settled(qtbot, window)
    QApplication.processEvents()
    view = window.stage_view
    assert view.plot.isHidden()  # tables alone
    formula, explanation = in_view(view, view.formula), in_view(view, view.explanation_box)
    room = QRect(0, formula.bottom(), view.width(), explanation.top() - formula.bottom())
    box = tables_box(view).intersected(room)
    assert type_ratio(view) >= GROWN, type_ratio(view)
    assert box.width() * box.height() >= COVERED * room.width() * room.height(), (box, room)
    assert not cut_numbers(view)


def test_tables_beside_a_figure_and_at_the_desk_keep_their_type(qtbot, start_window):
    controller = start_window("layernorm")
    window = controller.window
    go(qtbot, window, "enc.0.add1")
    assert type_ratio(window.stage_view) == 1.0  # the desk
    window = present(qtbot, controller, (1920, 1080))
    go(qtbot, window, "enc.0.norm1.hat")  # a figure beside the tables
    settled(qtbot, window)
    assert not window.stage_view.plot.isHidden()
    assert type_ratio(window.stage_view) <= 1.0
