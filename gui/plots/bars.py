"""Grouped bar charts: every bar named on the axis (gui/plots/axis.py), its value written on it, and the value
axis scaled to the data (a probability of 0.19 is not drawn on an axis that runs to 1.1)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontMetrics
from PySide6.QtWidgets import QGraphicsItem

from .fit import slot, text_width
from .heatmap import format_cell
from .style import PlotOptions, font, foreground, new_plot, set_caption

MAX_VALUE_LABELS = 40
LABEL_ROOM = 1.5  # a value label's height, in lines of its font, kept free above (or below) the tallest bar


def add_legend(plot: pg.PlotItem, opts: PlotOptions) -> pg.LegendItem:
    """A legend in a row of its own under the plot, where it never covers the data; items plotted with a
    name join it."""
    size = f"{font(opts, 'tick').pointSize()}pt"
    legend = pg.LegendItem(offset=None, labelTextSize=size, labelTextColor=foreground(opts))
    # pyqtgraph draws a legend at its own size whatever the view's scale (one floating over a zoomed plot); in a
    # row of the figure it must shrink with the rest when the figure is scaled down to fit, or beside another
    # plot's legend the two run into each other ("probability gradient probability")
    legend.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, False)
    plot.layout.addItem(legend, 4, 1, Qt.AlignmentFlag.AlignHCenter)  # row 4: under the bottom axis
    plot.legend = legend
    return legend


def value_range(values: list[np.ndarray], probability: bool = False) -> tuple[float, float]:
    """The data's span along the value axis, from 0 (several panels compared side by side share it)."""
    finite = [v[np.isfinite(v)] for v in (np.asarray(v, dtype=float) for v in values)]
    lo = min([0.0] + [float(v.min()) for v in finite if v.size])
    hi = max([0.0] + [float(v.max()) for v in finite if v.size])
    if probability:
        lo, hi = 0.0, min(1.0, hi)
    return lo, hi if hi > lo else lo + 1.0


class Bars:
    """Bars for one or more series over the same categories; set() updates heights in place."""

    def __init__(
        self,
        layout: pg.GraphicsLayout,
        opts: PlotOptions,
        row: int,
        col: int,
        series: list[tuple[str, QColor]],
        colspan: int = 1,
    ):
        self.plot = new_plot(layout, opts, row=row, col=col, colspan=colspan)
        self.plot.showGrid(y=True, alpha=0.25)
        legend = add_legend(self.plot, opts) if len(series) > 1 else None
        if legend is not None:
            legend.setColumnCount(len(series))  # one row: the bars keep the height
        self.items = []
        self.colors = [c for _, c in series]
        for name, color in series:
            item = pg.BarGraphItem(x=[0], height=[0], width=0.8, brush=color, pen=pg.mkPen(color.darker(130)))
            self.plot.addItem(item)
            if legend is not None:
                legend.addItem(item, name)
            self.items.append(item)
        self.labels: list[pg.TextItem] = []
        self.categories: list[str] = []
        self.span = (0.0, 1.0)  # the data's extent along the value axis
        self.value_font = font(opts, "text")
        # room for a few bars' heights and their values, however little the dock or slide leaves
        self.plot.vb.setMinimumHeight(4 * QFontMetrics(self.value_font).height())
        self.plot.vb.sigResized.connect(self.fit)

    def set(
        self,
        categories: list[str],
        values: list[np.ndarray],
        opts: PlotOptions,
        caption: str,
        span: tuple[float, float] | None = None,
        show_values: bool = True,
        probability: bool = False,
        highlight: int | None = None,
        highlight_color: QColor | None = None,
    ) -> None:
        """values: one array per series, each as long as `categories`. The value axis covers `span` (default:
        the data, from 0; probabilities up to 1 at most) and room for the value labels. `highlight`: the bar of
        the first series drawn in `highlight_color` (the chosen token)."""
        n, k = len(categories), len(values)
        width = 0.8 / k
        x0 = np.arange(n, dtype=float)
        for s, (item, heights) in enumerate(zip(self.items, values)):
            brushes = [highlight_color if i == highlight and s == 0 else self.colors[s] for i in range(n)]
            item.setOpts(
                x=x0 - 0.4 + width * (s + 0.5),
                height=np.asarray(heights, dtype=float),
                width=width * 0.92,
                brushes=brushes,
            )
        self.categories = list(categories)
        self.plot.setXRange(-0.6, n - 0.4, padding=0)
        self.span = span or value_range(values, probability)
        set_caption(self.plot, caption, opts)
        texts = []
        if show_values and n * k <= MAX_VALUE_LABELS:
            for s, heights in enumerate(values):
                for i, v in enumerate(heights):
                    texts.append((x0[i] - 0.4 + width * (s + 0.5), float(v)))
        self._labels(texts, opts)
        self.plot.getAxis("bottom").set_categories(self.categories, 0.0)
        self.fit()

    def fit(self, *_) -> None:
        """The value axis with room for the labels over the bars; labels hidden where bars are too narrow."""
        lo, hi = self.span
        height = self.plot.vb.height()
        room = LABEL_ROOM * QFontMetrics(self.value_font).height() / height if height > 0 else 0.0
        labelled = bool(self.labels) and room < 0.4
        if labelled:  # solve for the range whose top (bottom) leaves `room` of the height free
            top = (hi - room * lo) / (1 - room) if hi > 0 else hi
            bottom = (lo - room * top) / (1 - room) if lo < 0 else lo
        else:
            top, bottom = hi + 0.05 * (hi - lo), lo - (0.05 * (hi - lo) if lo < 0 else 0.0)
        self.plot.setYRange(bottom, top, padding=0)
        width = slot(self.plot, len(self.categories)) * 0.8 / max(len(self.items), 1)
        texts = [item.textItem.toPlainText() for item in self.labels]
        gap = QFontMetrics(self.value_font).horizontalAdvance(" ")  # neighbours' values never touch: "0.040.04"
        fits = labelled and text_width(self.value_font, texts) + gap <= width
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
            item.setText(format_cell(v, opts.decimals))
