"""A table's column width comes from the shapes of its numbers (each digit written 0, measured once per set of
numbers and decimals, gui/views/matrix_model.number_shapes): as wide as the widest number itself, at every table
font the stage view tries, for every stage of a lesson; and a stage's numbers are formatted once, not once per font."""

from __future__ import annotations

from PySide6.QtGui import QFontMetrics

from gui.views.matrix_layout import TABLE_SCALES
from tests.gui_window import open_lesson_window


def widest_number(table) -> int:
    model = table.matrix()
    rows, cols = model.shown.shape
    fm = QFontMetrics(table.font())
    return max([fm.horizontalAdvance(model.text(r, c)) for r in range(min(rows, 50)) for c in range(min(cols, 50))])


def test_the_widest_shape_is_as_wide_as_the_widest_number_at_every_font(qtbot):
    window = open_lesson_window(qtbot, "cross-attention")
    state, view = window.state, window.stage_view
    state.display.set(decimals=3)
    for stage in state.stage_names:
        state.go_to(stage)
        for panel in view.panels():
            table = panel.table
            for scale in TABLE_SCALES:
                table.set_scale(scale)
                fm = QFontMetrics(table.font())
                shapes = max(fm.horizontalAdvance(s) for s in panel.model.number_shapes())
                assert shapes == widest_number(table), (stage, panel.model.slice.name, scale)
            table.set_scale(1.0)


def test_a_stage_s_numbers_are_formatted_once_for_all_the_fonts_tried(qtbot, monkeypatch):
    window = open_lesson_window(qtbot, "two-heads")
    state, view = window.state, window.stage_view
    state.go_to("enc.0.ffn.up")
    formatted = []
    original = state.display.format_value
    monkeypatch.setattr(state.display, "format_value", lambda *a, **k: formatted.append(1) or original(*a, **k))
    view.layout_of_matrices.show("stacked", 2)  # measured again at every font
    view.layout_of_matrices.fit([view.matrices.size()], TABLE_SCALES)
    cells = sum(min(p.model.shown.shape[0], 50) * min(p.model.shown.shape[1], 50) for p in view.panels())
    assert len(formatted) == 0  # the shapes were kept from the stage's first measure
    state.display.set(decimals=1)  # other decimals, other shapes: the view lays its tables out again
    distinct = sum(len(set(p.model.shown[:50, :50].flatten().tolist())) for p in view.panels())
    assert len(formatted) == distinct < cells  # each number once, at one font for all
