"""Plot areas the window embeds: a GraphicsLayoutWidget that shrinks a figure too big for it to fit, and the
stage view's FigureView, whose right-click menu exports or copies the figure."""

from __future__ import annotations

from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QRectF, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QMenu, QWidget

from .style import PlotOptions


class FittedLayoutWidget(pg.GraphicsLayoutWidget):
    """A figure whose panels need more room than the view has (titles, axes and colour bars have minimum
    sizes) is scaled down as a whole, so it is never cut at the edge; otherwise one scene unit is one pixel."""

    fitting = False  # pyqtgraph resizes the view while it is being built, before there is a figure to fit

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.scale = 1.0  # scene units per pixel: above 1 when the figure is shrunk to fit
        self.fit_timer = QTimer(self)
        self.fit_timer.setSingleShot(True)
        self.fit_timer.setInterval(0)
        self.fit_timer.timeout.connect(self.fit)
        self.ci.installEventFilter(self)  # a new or re-captioned panel changes the figure's minimum size
        self.fitting = True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.ci and event.type() == QEvent.Type.LayoutRequest:
            self.fit_timer.start()
        return False

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.fitting:
            self.fit()

    def fit(self) -> None:
        """Show the figure at its natural size, or scaled down until its minimum size fits the view."""
        if self.closed:
            return
        width, height = max(1, self.width()), max(1, self.height())
        least = self.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize)
        scale = max(1.0, least.width() / width, least.height() / height)
        if scale == 1.0:
            if not self.autoPixelRange:
                self.autoPixelRange = True
                super().resizeEvent(None)  # back to one scene unit per pixel
        elif abs(scale - self.scale) > 1e-3 or self.autoPixelRange:
            self.setRange(QRectF(0, 0, width * scale, height * scale), padding=0, lockAspect=True)
        self.scale = scale


class FigureView(FittedLayoutWidget):
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
