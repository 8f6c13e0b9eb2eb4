"""A matrix table's size hints never follow the size the layout gave it (issue 44: a stack overflow of
QScrollArea::eventFilter → QWidget::resize, its last Python frame MatrixTable.sizeHint).

Its hints once added a scroll bar's room from its own geometry: the horizontal bar's height while it was narrower than
its columns, the vertical bar's width while its rows did not fit the height left above that bar. A table whose columns
were 1 to 14 px wider than its least width (560 px at the desk), squeezed there by a narrow matrices area, then asked
for both bars' room (560 px wide: the horizontal bar shows, the rows no longer fit above it); given it, it was as wide
as its columns and asked for neither. The matrices area resized it between the two forever: in the event loop, or,
inside a show (the stage page coming back after a refused sentence, presentation mode), in one recursion.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import QApplication, QGridLayout, QScrollArea, QStackedWidget, QWidget

from gui.views.matrix_view import MatrixPanel, MatrixTable
from gui.views.tensor_slice import slice_for
from tests import gui_lessons
from tests.gui_lessons import state_for
from tests.gui_window import settle

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures

LEAST_WIDTH = 560  # MatrixTable.minimumSizeHint's width at type scale 1 (the desk's)
ENOUGH = 200  # Resize events of the matrices in one go: past it, a loop (swallowed, so that the test ends)


class Resizes(QObject):
    """Counts a widget's Resize events; past ENOUGH in a row it swallows them, which breaks a resize loop (this
    filter, installed last, runs before the scroll area's)."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.count += 1
            return self.count > ENOUGH
        return False


class TableResizes(QObject):
    """Installed on the application: counts each matrix table's Resize events, and past ENOUGH for one table swallows
    them (a loop that would overflow the stack ends, and the test fails instead of the process)."""

    def __init__(self):
        super().__init__()
        self.counts: dict[int, int] = {}

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Resize and isinstance(watched, MatrixTable):
            count = self.counts[id(watched)] = self.counts.get(id(watched), 0) + 1
            return count > ENOUGH
        return False


def matrices_area(qtbot):
    """One matrix panel in a resizable scroll area, placed as the stage view places its panels (top left of a grid
    whose last row and column take the room left), on a page of a stack beside a problem page."""
    state = state_for("two-heads")
    name = "enc.0.attn.W_Q"
    box = QScrollArea()
    box.setWidgetResizable(True)
    matrices = QWidget()
    grid = QGridLayout(matrices)
    grid.setContentsMargins(0, 0, 0, 0)
    panel = MatrixPanel(state, matrices)
    panel.show_tensor(slice_for(state.view, name, name, 0), "W_Q", True)
    grid.addWidget(panel, 0, 0, Qt.AlignLeft | Qt.AlignTop)
    grid.setRowStretch(1, 1)
    grid.setColumnStretch(1, 1)
    box.setWidget(matrices)
    pages = QStackedWidget()
    pages.addWidget(box)
    pages.addWidget(QWidget())
    qtbot.addWidget(pages)
    pages.state = state  # (kept alive with the widgets)
    return pages, box, matrices, panel.table


def columns_wider_than_least_by(table, extra: int) -> None:
    """Section widths that make the table's columns (with its row labels and frame) `extra` px wider than its least
    width."""
    _, cols = table.matrix().shown.shape
    _, row_header = table.natural_sizes()
    frame = 2 * table.frameWidth()
    target = LEAST_WIDTH + extra
    column = (target - row_header - frame) // cols
    table.apply_sizes(column, target - frame - cols * column)
    assert table.content_size().width() == target


def settle_passes(passes: int = 6) -> None:
    for _ in range(passes):
        QApplication.processEvents()


def squeeze_extras(table) -> list[int]:
    """Widths past the least where the two bars' rooms flipped (1 to the vertical bar's width), and one on each side."""
    bar = table.verticalScrollBar().sizeHint().width()
    return [0, 1, bar // 2, bar, bar + 1]


def test_a_table_s_size_hints_do_not_depend_on_its_own_size(qtbot):
    """The hints are the table's wish for its content, whatever size it was given: the layout asks them again after
    each size it gives, and a wish that followed the size had no fixed point."""
    pages, _, _, table = matrices_area(qtbot)
    assert table.settings.type_scale == 1.0  # (the desk's: LEAST_WIDTH)
    for extra in squeeze_extras(table):
        columns_wider_than_least_by(table, extra)
        content = table.content_size()
        hints = set()
        for width in (LEAST_WIDTH - 20, LEAST_WIDTH, content.width() - 1, content.width(), content.width() + 20):
            for height in (content.height() - 20, content.height(), content.height() + 20):
                table.setMaximumSize(QSize(16777215, 16777215))
                table.resize(width, height)
                hints.add((table.sizeHint().toTuple(), table.minimumSizeHint().toTuple()))
        assert len(hints) == 1, (extra, sorted(hints))


def test_a_table_squeezed_just_below_its_columns_settles_in_the_scroll_area(qtbot):
    """Shown wide, then the area made narrower than the table's least width: the table is laid out once or twice
    and stays (it flipped between two sizes at every pass of the event loop)."""
    pages, box, matrices, table = matrices_area(qtbot)
    pages.resize(900, 600)
    pages.show()
    qtbot.waitExposed(pages)
    for extra in squeeze_extras(table):
        columns_wider_than_least_by(table, extra)
        pages.resize(900, 600)
        settle_passes()
        resizes = Resizes()
        table.installEventFilter(resizes)
        pages.resize(300, 600)
        settle_passes()
        settled_after = resizes.count
        settle_passes()
        table.removeEventFilter(resizes)
        assert resizes.count == settled_after <= 4, (extra, settled_after, resizes.count, table.size().toTuple())
        assert table.width() >= min(table.content_size().width(), LEAST_WIDTH)


def test_the_page_shown_again_after_a_problem_settles_in_one_go(qtbot):
    """The stage view's path in issue 44: the matrices' page hidden (a refused sentence shown), the room changed
    meanwhile, the page shown again (StageView._show_problem → pages.setCurrentIndex): the table is laid out a few
    times and stays."""
    pages, box, matrices, table = matrices_area(qtbot)
    pages.resize(900, 600)
    pages.show()
    qtbot.waitExposed(pages)
    for extra in squeeze_extras(table):
        columns_wider_than_least_by(table, extra)
        pages.setCurrentIndex(0)
        pages.resize(900, 600)
        settle_passes()
        pages.setCurrentIndex(1)
        pages.resize(300, 600)
        settle_passes()
        resizes = Resizes()
        table.installEventFilter(resizes)
        pages.setCurrentIndex(0)
        settle_passes()
        settled_after = resizes.count
        settle_passes()
        table.removeEventFilter(resizes)
        assert resizes.count == settled_after <= 4, (extra, settled_after, resizes.count, table.size().toTuple())


def test_presentation_mode_at_a_classroom_encoder_decoder_s_last_backward_stage_settles(qtbot, start_window):
    """Issue 44's crash, as a teacher gets there: the picker's classroom encoder-decoder, three decimals, the What-if
    dock open, the last backward stage, then F5. On the offscreen screen (800×800) the embedding tables' columns are
    568 px wide there, 8 px past their least width: presentation mode overflowed the stack."""
    controller = start_window("two-heads")
    assert controller.window.model_picker.choose("classroom", "encoder-decoder")
    settle(qtbot)
    window = controller.window
    controller.state.display.set(decimals=3)
    window.teaching.whatif_action.trigger()
    window.stepper.last_action.trigger()
    settle(qtbot)
    resizes = TableResizes()
    app = QApplication.instance()
    app.installEventFilter(resizes)
    try:
        controller.window.presentation.present.trigger()
        settle(qtbot)
    finally:
        app.removeEventFilter(resizes)
    assert controller.state.display.presenting
    assert max(resizes.counts.values(), default=0) <= ENOUGH // 10, sorted(resizes.counts.values())
