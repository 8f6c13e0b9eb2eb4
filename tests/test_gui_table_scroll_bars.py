"""A matrix table shows a scroll bar only while its rows or columns do not fit: squeezed for a moment and given its
whole size back, it shows every row and no bar (issue 46: cross-attention in Chinese at 1280×720 beside the map, a
2-row table as large as its content with both bars shown and its last row under the horizontal one)."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QWidget

from gui.views.matrix_view import MatrixPanel
from gui.views.tensor_slice import slice_for
from tests.gui_lessons import state_for
from tests.test_gui_fit import every_row_shows


def shown_table(qtbot):
    """The 2-row table of the defect (cross-attention's FFN up-projection), shown, as large as its content; and the
    widget holding it (the table lives as long as it)."""
    state = state_for("cross-attention")
    name = "enc.0.ffn.up"
    host = QWidget()
    panel = MatrixPanel(state, host)
    panel.show_tensor(slice_for(state.view, name, name, 0), "up", False)
    qtbot.addWidget(host)
    host.resize(1000, 400)
    host.show()
    qtbot.waitExposed(host)
    host.state = state  # (kept alive with the widgets)
    table = panel.table
    table.resize(table.content_size())
    QApplication.processEvents()
    assert table.matrix().shown.shape[0] == 2 and every_row_shows(table)
    return host, table


def bars_shown(table) -> tuple[bool, bool]:
    return table.horizontalScrollBar().isVisible(), table.verticalScrollBar().isVisible()


def test_a_table_squeezed_for_a_moment_shows_every_row_once_given_its_size_back(qtbot):
    """The stage view's path: a new arrangement laid out before the matrices' area grew gives the table a bar's
    height less than its rows (the vertical bar shows, narrowing the columns, so the horizontal one comes too); its
    items laid out (StageView._show_matrices); then the area gives it its whole size back as that bar appears, so
    its viewport keeps its size. Both bars stayed, and the last row was under the horizontal one."""
    host, table = shown_table(qtbot)
    content = table.content_size()
    bar = table.horizontalScrollBar().sizeHint().height()
    table.resize(content.width(), content.height() - bar)
    table.doItemsLayout()
    assert bars_shown(table) == (False, True) and not every_row_shows(table)  # (the squeeze the test stands for)
    table.resize(content)
    QApplication.processEvents()
    assert table.size() == content
    assert every_row_shows(table), (table.viewport().size().toTuple(), bars_shown(table))
    assert bars_shown(table) == (False, False)
    assert table.maximumSize() == content  # no room kept for a bar it does not show
