"""Attention panels: why scale, what the mask hides, a softmax row, who attends to whom, the weighted sum."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QLineF, Qt
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QGraphicsLineItem

from engine import teaching

from .bars import Bars, add_legend, value_range
from .captions import caption
from .heatmap import Heatmap, axis_labels, format_cell
from .matrix import head_of, row_of
from .predicts import row_labels
from .style import HIDDEN_COLOR, PlotOptions, color, foreground, new_plot, set_caption


def _input(trace, name: str, k: int = 0) -> str:
    return trace.stage(name).inputs[k]


def _grid_labels(trace, name: str) -> tuple[list[str], list[str]]:
    """Query and key tokens of a [h, n_q, n_k] stage."""
    st, (_, n_q, n_k) = trace.stage(name), trace[name].shape
    return row_labels(trace, name, axis_labels(trace, st.rows, n_q)), axis_labels(trace, st.cols, n_k)


class ScalePanel:
    """Softmax of the selected row without and with ÷√d_k, each bar with its gradient p(1 − p)."""

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int):
        self.name = name
        series = [(caption("probability", opts.lang), color(0)), (caption("gradient", opts.lang), color(1))]
        self.unscaled = Bars(layout, opts, row, 0, series)
        self.scaled = Bars(layout, opts, row, 1, series)

    def update(self, trace, opts: PlotOptions) -> None:
        h = head_of(trace, opts)
        queries, keys = _grid_labels(trace, self.name)
        r = row_of(len(queries), opts)
        rows = {"unscaled_softmax": trace[_input(trace, self.name)][h, r], "scaled_softmax": trace[self.name][h, r]}
        series = {}
        for key, scores in rows.items():
            p = teaching.row_softmax(scores)
            series[key] = [p.numpy(), teaching.softmax_slope(p).numpy()]
        span = value_range([v for pair in series.values() for v in pair], probability=True)  # one axis for both
        for bars, (key, values) in zip((self.unscaled, self.scaled), series.items()):
            title = caption(key, opts.lang, token=queries[r])  # (a "·" before the token read as a product)
            bars.set(keys, values, opts, title, span)


class MaskPanel:
    """The visible/hidden pattern, and the selected row's softmax before and after masking."""

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int):
        self.name = name
        pattern = pg.ColorMap([0.0, 1.0], [QColor("#cfe8cf"), HIDDEN_COLOR])
        self.pattern = Heatmap(layout, opts, signed=False, row=row, col=1, cmap=pattern, colorbar=False)
        series = [(caption("before_mask", opts.lang), color(5)), (caption("after_mask", opts.lang), color(0))]
        self.bars = Bars(layout, opts, row + 1, 0, series, colspan=2)

    def update(self, trace, opts: PlotOptions) -> None:
        h = head_of(trace, opts)
        queries, keys = _grid_labels(trace, self.name)
        r = row_of(len(queries), opts)
        hidden = teaching.hidden_pattern(trace[self.name][h])  # [n_q, n_k]
        marks = ["−∞" if x else "✓" for x in hidden.flatten().tolist()]
        title = f"{caption('mask_pattern', opts.lang)} · {caption('head', opts.lang, head=h)}"
        self.pattern.set(hidden.numpy(), queries, keys, opts, title, r, (0.0, 1.0), marks)
        scaled = trace[_input(trace, self.name)][h, r]
        before = teaching.row_softmax(scaled)
        after = teaching.row_softmax(scaled, hidden=hidden[r])
        self.bars.set(
            keys, [before.numpy(), after.numpy()], opts, caption("row", opts.lang, token=queries[r]), probability=True
        )


class RowBarsPanel:
    """The selected row of the attention weights as bars, with its sum (always 1)."""

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int, col: int):
        self.name = name
        self.bars = Bars(layout, opts, row, col, [("", color(0))])

    def update(self, trace, opts: PlotOptions) -> None:
        queries, keys = _grid_labels(trace, self.name)
        r = row_of(len(queries), opts)
        weights = trace[self.name][head_of(trace, opts), r]
        total = format_cell(float(weights.sum()), opts.decimals)
        self.bars.set(
            keys,
            [weights.numpy()],
            opts,
            caption("row_bars", opts.lang, token=queries[r], total=total),
            probability=True,
        )


class LinesPanel:
    """Queries on the left, keys on the right, one line per pair whose opacity is the weight (BertViz style).

    The words are the plot's left and right axes (every one drawn, the selected query in bold), so the layout
    keeps room for them. all_heads draws every head in its own colour, named in a legend; otherwise only the
    selected head. Long sentences keep each query's strongest keys only (at most MAX_LINES lines), so big models
    stay quick to draw.
    """

    MAX_LINES = 1200

    def __init__(
        self,
        layout: pg.GraphicsLayout,
        trace,
        name: str,
        opts: PlotOptions,
        row: int,
        col: int,
        all_heads: bool,
        colspan: int = 1,
    ):
        self.name, self.all_heads = name, all_heads
        self.plot = new_plot(layout, opts, row=row, col=col, colspan=colspan)
        self.plot.hideAxis("bottom")
        self.plot.showAxis("right")
        self.plot.invertY(True)
        self.lines: list[QGraphicsLineItem] = []
        self.shape = None
        if all_heads and trace.config.n_heads > 1:  # which colour is which head
            legend = add_legend(self.plot, opts)
            legend.setColumnCount(min(trace.config.n_heads, 4))
            for h in range(trace.config.n_heads):
                legend.addItem(pg.PlotDataItem(pen=pg.mkPen(color(h), width=4)), caption("head", opts.lang, head=h))

    def _build(self, n_lines: int, queries: list[str], keys: list[str]) -> None:
        for item in self.lines:
            self.plot.removeItem(item)
        self.lines = []
        for _ in range(n_lines):
            line = QGraphicsLineItem()
            self.plot.addItem(line)
            self.lines.append(line)
        self.plot.setXRange(0, 1, padding=0.02)
        self.plot.setYRange(-0.5, max(len(queries), len(keys)) - 0.5, padding=0)

    def update(self, trace, opts: PlotOptions) -> None:
        weights = trace[self.name]  # [h, n_q, n_k]
        heads = list(range(weights.shape[0])) if self.all_heads else [head_of(trace, opts)]
        queries, keys = _grid_labels(trace, self.name)
        per_query = max(1, min(len(keys), self.MAX_LINES // (len(heads) * len(queries))))
        shape = (len(heads), *weights.shape[1:])
        if shape != self.shape:
            self.shape = shape
            self._build(len(heads) * len(queries) * per_query, queries, keys)
        r = row_of(len(queries), opts)
        self.plot.getAxis("left").set_categories(queries, 0.0, bold=r)
        self.plot.getAxis("right").set_categories(keys, 0.0)
        width = 4 if opts.slide else 2
        spread = 0.12 if len(heads) > 1 else 0.0  # heads fan out slightly so their colours stay apart
        lines = iter(self.lines)
        for k, h in enumerate(heads):
            dy = (k - (len(heads) - 1) / 2) * spread / max(1, len(heads) - 1)
            base = color(h) if self.all_heads else color(0)
            for i in range(len(queries)):
                _, strongest = teaching.top_k(weights[h, i], per_query)
                for j in sorted(strongest.tolist()):
                    c = QColor(base)
                    # an overflowed weight (NaN) draws no line
                    c.setAlphaF(min(1.0, max(0.0, float(weights[h, i, j].nan_to_num(0.0)))))
                    pen = QPen(c, width * (1.6 if i == r else 1.0))
                    pen.setCosmetic(True)
                    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
                    line = next(lines)
                    line.setLine(QLineF(0.0, i + dy, 1.0, j + dy))
                    line.setPen(pen)
        which = caption("all_heads", opts.lang) if self.all_heads else caption("head", opts.lang, head=heads[0])
        set_caption(self.plot, caption("lines", opts.lang, which=which), opts)


class WeightedSumPanel:
    """The selected output row z as the sum of the value rows, each scaled by its weight."""

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int, col: int):
        self.name = name
        self.heatmap = Heatmap(layout, opts, signed=None, row=row, col=col)
        self.rule = pg.InfiniteLine(angle=0, pen=pg.mkPen(foreground(opts), width=3))
        self.heatmap.plot.addItem(self.rule)

    def update(self, trace, opts: PlotOptions) -> None:
        weights_name, v_name = trace.stage(self.name).inputs  # [h, n_q, n_k], [h, n_k, d_k]
        h = head_of(trace, opts)
        queries, keys = _grid_labels(trace, weights_name)
        r = row_of(len(queries), opts)
        w = trace[weights_name][h, r]  # [n_k]
        parts = teaching.weighted_rows(w, trace[v_name][h])  # [n_k, d_k]
        z = trace[self.name][h, r : r + 1]  # [1, d_k]
        matrix = np.vstack([parts.numpy(), z.numpy()])
        rows = [f"{format_cell(float(x), opts.decimals)} · v({k})" for x, k in zip(w, keys)] + [f"= z({queries[r]})"]
        cols = [str(i) for i in range(matrix.shape[1])]
        self.heatmap.set(matrix, rows, cols, opts, caption("weighted_rows", opts.lang, token=queries[r]))
        self.rule.setPos(len(keys))
