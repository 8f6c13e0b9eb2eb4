"""A stage's tables are painted once when it is shown: Qt lays a table's rows and columns out on a timer after its model
is reset, and left to that timer the layout came after the first paint and every table was painted a second time (at
each step, each generated token)."""

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from tests.gui_window import open_window


class Paints(QObject):
    def __init__(self):
        super().__init__()
        self.count = 0

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def idle(qtbot) -> None:
    """Until the window has drawn and painted everything a step leaves to the event loop (lazy figures, timers)."""
    for _ in range(10):
        QApplication.processEvents()
        qtbot.wait(20)


def test_a_step_paints_each_table_of_the_new_stage_once(qtbot):
    window = open_window(qtbot)
    state, view = window.state, window.stage_view
    state.go_to("enc.0.attn.q")
    idle(qtbot)
    for stage in ("enc.0.attn.k", "enc.0.attn.v", "enc.0.attn.scores"):
        tables = [panel.table for panel in view.panels()]
        paints = [Paints() for _ in tables]
        for table, counter in zip(tables, paints):
            table.viewport().installEventFilter(counter)
        state.go_to(stage)
        idle(qtbot)
        shown = [table.viewport().isVisible() for table in tables]
        counts = [counter.count for counter, visible in zip(paints, shown) if visible]
        assert counts and all(count == 1 for count in counts), (stage, counts)
        for table, counter in zip(tables, paints):
            table.viewport().removeEventFilter(counter)
