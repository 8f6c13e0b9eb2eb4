"""A plot area whose right-click menu exports or copies its figure in the slide style, as File ▸ Export figure
does: the stage view's plots, and a dock's own figure (the cost of the model)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QMenu, QWidget

from gui.plots import draw_stage
from gui.plots.view import FittedLayoutWidget
from gui.views.export_dialogs import copy_figure_to_clipboard, export_figure_dialog


class FigureView(FittedLayoutWidget):
    """Draw into `self.ci` with draw_stage (or `draw`, the same way export draws it: a dock's own figure, named
    `prefix` + the stage in the file suggested); right-click offers "Export figure…" and "Copy figure", drawn
    with the app state's display settings (gui/state/display.py)."""

    def __init__(self, state, parent: QWidget | None = None, draw: Callable | None = None, prefix: str = ""):
        super().__init__(parent)
        self.state = state
        self.draw, self.prefix = draw or draw_stage, prefix

    def context_menu(self) -> QMenu:
        menu = QMenu(self)
        menu.addAction(
            self.tr("Export figure…"), lambda: export_figure_dialog(self, self.state, self.draw, self.prefix)
        )
        menu.addAction(self.tr("Copy figure"), lambda: copy_figure_to_clipboard(self, self.state, self.draw))
        return menu

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        self.context_menu().exec(event.globalPos())
