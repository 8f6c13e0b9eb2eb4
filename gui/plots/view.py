"""The plot area the window embeds: a GraphicsLayoutWidget whose right-click menu exports or copies the figure."""

from __future__ import annotations

from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QMenu, QWidget

from .style import PlotOptions


class FigureView(pg.GraphicsLayoutWidget):
    """Draw into `self.ci` with draw_stage; right-click offers "Export figure…" and "Copy figure".

    `options` returns the PlotOptions the window currently shows (head, row, temperature, language).
    """

    def __init__(self, state, options: Callable[[], PlotOptions], parent: QWidget | None = None):
        super().__init__(parent)
        self.state, self.options = state, options

    def context_menu(self) -> QMenu:
        from gui.export.dialogs import copy_figure_to_clipboard, export_figure_dialog

        menu = QMenu(self)
        menu.addAction(self.tr("Export figure…"), lambda: export_figure_dialog(self, self.state, self.options()))
        menu.addAction(self.tr("Copy figure"), lambda: copy_figure_to_clipboard(self, self.state, self.options()))
        return menu

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        self.context_menu().exec(event.globalPos())
