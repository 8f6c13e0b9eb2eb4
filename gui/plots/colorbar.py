"""A colour bar: the map as a strip beside a heatmap (or a grid of heatmaps on one scale), its values on an axis.

pyqtgraph's ColorBarItem draws the same, but it is a whole PlotItem (a ViewBox, four axes, two context menus
built and thrown away): about 15 ms to build, as much as the heatmap it belongs to. This is a strip and one axis.
It keeps ColorBarItem's calls: setImageItem, setColorMap, colorMap, setLevels, levels, and `axis`; the strip stops
half a label short of its ends, so the labels at its ends stay inside the figure.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont, QFontMetrics, QImage, QPixmap
from PySide6.QtWidgets import QGraphicsGridLayout, QSizePolicy

from .axis import Axis
from .pyqtgraph_compat import ExactTextWidth

# after the values: a panel to the right starts with its own numbers ("1.0 0.5" read as one row of two)
RIGHT_GAP = 16


class _Strip(pg.GraphicsWidget):
    """The colour map from its low end (bottom) to its high end (top), framed."""

    def __init__(self, width: float, parent=None):
        super().__init__(parent)
        self.pixmap = QPixmap()
        self.pen = pg.mkPen(pg.getConfigOption("foreground"), width=0)  # the frame, as the axis's line
        self.setFixedWidth(width)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Expanding)

    def set_map(self, cmap: pg.ColorMap) -> None:
        lut = np.ascontiguousarray(cmap.getLookupTable(nPts=256, alpha=True)[::-1, None])  # [256, 1, 4], top first
        self.pixmap = QPixmap.fromImage(pg.functions.ndarray_to_qimage(lut, QImage.Format.Format_RGBA8888))
        self.update()

    def paint(self, painter, *_) -> None:
        rect = self.boundingRect()
        painter.drawPixmap(rect, self.pixmap, QRectF(self.pixmap.rect()))
        painter.setPen(self.pen)
        painter.drawRect(rect)


class _ValueAxis(ExactTextWidth, Axis):
    """The bar's number line, exactly as wide as its labels: a figure refreshed for smaller numbers stayed wider than
    one drawn anew while it kept pyqtgraph's spare room."""


class ColorBar(pg.GraphicsWidget):
    """The scale of `images`: setLevels and setColorMap set theirs too."""

    def __init__(self, cmap: pg.ColorMap, width: float, images=()):
        super().__init__()
        self.strip = _Strip(width, self)
        self.axis = _ValueAxis("right", parent=self)  # a number line that rewrites no hidden label at each new range
        # Ticks at the labelled values and halfway only: pyqtgraph's third level (every 0.1 of ±2) took 2 of the
        # 3 ms of laying the bar out anew, at every edit that moves the largest number.
        self.axis.setStyle(maxTickLevel=1)
        self.grid = layout = QGraphicsGridLayout()
        layout.setContentsMargins(5, 0, RIGHT_GAP, 0)  # apart from the heatmap, as a ColorBarItem sat
        layout.setSpacing(0)
        layout.addItem(self.strip, 0, 0)
        layout.addItem(self.axis, 0, 1)
        self.setLayout(layout)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Expanding)
        self.images: list[pg.ImageItem] = []
        self.values = (0.0, 1.0)
        self._cmap = cmap
        self.axis.setRange(*self.values)
        self.strip.set_map(cmap)
        self.setImageItem(images)

    def set_tick_font(self, font: QFont) -> None:
        """The values' font; the strip ends half a label in from the bar's ends (the label at an end is centred
        on it)."""
        self.axis.setStyle(tickFont=font)
        half = -(-QFontMetrics(font).height() // 2)
        self.grid.setContentsMargins(5, half, RIGHT_GAP, half)

    def setImageItem(self, images, insert_in: pg.PlotItem | None = None) -> None:
        """The images this bar colours (one or a list); inserted right of the plot `insert_in`, as a
        ColorBarItem would be."""
        self.images = list(images) if isinstance(images, (list, tuple)) else [images]
        for image in self.images:
            image.setColorMap(self._cmap)
            image.setLevels(self.values)
        if insert_in is not None:
            insert_in.layout.addItem(self, 2, 5)

    def setColorMap(self, cmap: pg.ColorMap) -> None:
        self._cmap = cmap
        self.strip.set_map(cmap)
        for image in self.images:
            image.setColorMap(cmap)

    def colorMap(self) -> pg.ColorMap:
        return self._cmap

    def setLevels(self, values: tuple[float, float]) -> None:
        self.values = (float(values[0]), float(values[1]))
        self.axis.setRange(*self.values)
        for image in self.images:
            image.setLevels(self.values)

    def levels(self) -> tuple[float, float]:
        return self.values
