"""Grouped bar charts with category labels and the value written on each bar."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from .fit import set_category_ticks, slot, text_width
from .heatmap import format_cell
from .style import PlotOptions, font, foreground, new_plot, set_caption

MAX_VALUE_LABELS = 40


def add_legend(plot: pg.PlotItem, opts: PlotOptions) -> pg.LegendItem:
    """A legend in a row of its own under the plot, where it never covers the data; items plotted with a
    name join it."""
    size = f"{font(opts, 'tick').pointSize()}pt"
    legend = pg.LegendItem(offset=None, labelTextSize=size, labelTextColor=foreground(opts))
    plot.layout.addItem(legend, 4, 1, Qt.AlignmentFlag.AlignHCenter)  # row 4: under the bottom axis
    plot.legend = legend
    return legend


class Bars:
    """Bars for one or more series over the same categories; set() updates heights in place."""

    def __init__(self, layout: pg.GraphicsLayout, opts: PlotOptions, row: int, col: int,
                 series: list[tuple[str, QColor]], colspan: int = 1):
        self.plot = new_plot(layout, opts, row=row, col=col, colspan=colspan)
        self.plot.showGrid(y=True, alpha=0.25)
        legend = add_legend(self.plot, opts) if len(series) > 1 else None
        if legend is not None:
            legend.setColumnCount(len(series))  # one row: the bars keep the height
        self.items = []
        for name, color in series:
            item = pg.BarGraphItem(x=[0], height=[0], width=0.8, brush=color, pen=pg.mkPen(color.darker(130)))
            self.plot.addItem(item)
            if legend is not None:
                legend.addItem(item, name)
            self.items.append(item)
        self.labels: list[pg.TextItem] = []
        self.categories: list[str] = []
        self.tick_font, self.value_font = font(opts, "tick"), font(opts, "text")
        self.plot.vb.sigResized.connect(self.fit)

    def set(self, categories: list[str], values: list[np.ndarray], opts: PlotOptions, caption: str,
            y_range: tuple[float, float] | None = None, show_values: bool = True) -> None:
        """values: one array per series, each as long as `categories`."""
        n, k = len(categories), len(values)
        width = 0.8 / k
        x0 = np.arange(n, dtype=float)
        for s, (item, heights) in enumerate(zip(self.items, values)):
            item.setOpts(x=x0 - 0.4 + width * (s + 0.5), height=np.asarray(heights, dtype=float), width=width * 0.92)
        self.categories = list(categories)
        self.plot.setXRange(-0.6, n - 0.4, padding=0)
        if y_range is None:
            lo = min(0.0, *(float(np.min(v)) for v in values))
            hi = max(0.0, *(float(np.max(v)) for v in values))
            y_range = (lo - 0.08 * (hi - lo or 1), hi + 0.15 * (hi - lo or 1))
        self.plot.setYRange(*y_range, padding=0)
        set_caption(self.plot, caption, opts)
        texts = []
        if show_values and n * k <= MAX_VALUE_LABELS:
            for s, heights in enumerate(values):
                for i, v in enumerate(heights):
                    texts.append((x0[i] - 0.4 + width * (s + 0.5), float(v)))
        self._labels(texts, opts)
        self.fit()

    def fit(self, *_) -> None:
        """Category ticks thinned and bar values hidden when the bars are too narrow for them."""
        set_category_ticks(self.plot, "bottom", self.categories, self.tick_font, 0.0)
        width = slot(self.plot, len(self.categories)) * 0.8 / max(len(self.items), 1)
        fits = text_width(self.value_font, [item.textItem.toPlainText() for item in self.labels]) <= width
        for item in self.labels:
            item.setVisible(fits)

    def _labels(self, texts: list[tuple[float, float]], opts: PlotOptions) -> None:
        while len(self.labels) > len(texts):
            self.plot.removeItem(self.labels.pop())
        while len(self.labels) < len(texts):
            item = pg.TextItem(color=foreground(opts))
            item.setFont(self.value_font)
            self.plot.addItem(item)
            self.labels.append(item)
        for item, (x, v) in zip(self.labels, texts):
            item.setAnchor((0.5, 1.0) if v >= 0 else (0.5, 0.0))
            item.setPos(x, v)
            item.setText(format_cell(v))
