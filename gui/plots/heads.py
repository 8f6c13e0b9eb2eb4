"""Multi-head attention side by side: every head's pattern in one grid, Q/K/V before the split with each head's
columns in its own colour, and how concat and W_O put the heads back together.

    figure = draw_heads(layout, trace, "enc.0.attn.weights", PlotOptions(lang="zh"))   # a StageFigure
    figure.refresh(trace, opts)
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPen
from PySide6.QtWidgets import QGraphicsRectItem

from engine.heads import head_columns, head_contributions, merge_heads
from engine.whatif import attention_weights
from gui.text.operations import HEAD_PRODUCT, PROBABILITY, colour_kind, stage_op, stage_operation

from .captions import caption
from .figure import StageFigure
from .heatmap import Heatmap, axis_labels, color_bar
from .matrix import row_of, stage_caption
from .predicts import row_labels
from .scale import Scale, is_dark, scale_of
from .style import PlotOptions, color, colormap, font, html_size
from .view import clear_layout

MAX_COLUMNS = 4  # tiles per row


def heads_stage(trace, name: str) -> str | None:
    """What the head grid shows at stage `name`: the stage itself when it has heads (or is concat / W_O: the
    `heads` of its entry in gui/text/operations.py), else the latest attention weights at or before it (None
    before the first attention)."""
    if stage_operation(trace, name).heads:
        return name
    weights = {st.name for st in attention_weights(trace.stages)}
    before = [n for n in trace.stage_names[: trace.stage_names.index(name) + 1] if n in weights]
    return before[-1] if before else None


def _frame(plot: pg.PlotItem, width: int) -> QGraphicsRectItem:
    item = QGraphicsRectItem()
    item.setBrush(QBrush(Qt.BrushStyle.NoBrush))
    plot.addItem(item)
    item.setZValue(10)
    item.setData(0, width)
    return item


def _set_frame(item: QGraphicsRectItem, rect: QRectF, c: QColor) -> None:
    pen = QPen(c, item.data(0))
    pen.setCosmetic(True)
    item.setPen(pen)
    item.setRect(rect)


class HeadTile:
    """One head's matrix framed and titled in the head's colour."""

    def __init__(self, layout: pg.GraphicsLayout, opts: PlotOptions, signed: bool, row: int, col: int):
        self.heatmap = Heatmap(layout, opts, signed, row, col, colorbar=False)
        self.frame = _frame(self.heatmap.plot, 6 if opts.slide else 4)
        self.shape = (1, 1)
        self.heatmap.plot.vb.sigResized.connect(self._fit)

    def _fit(self, *_) -> None:
        """No taller than square cells need: the tiles stay side by side instead of stretching down."""
        plot, (r, c) = self.heatmap.plot, self.shape
        chrome = plot.height() - plot.vb.height()
        plot.setMaximumHeight(max(80.0, plot.vb.width() * r / c + chrome))

    def set(
        self,
        matrix: np.ndarray,
        rows: list[str],
        cols: list[str],
        opts: PlotOptions,
        title: str,
        head: int,
        scale: Scale,
        selected: int | None = None,
    ) -> None:
        self.heatmap.set(matrix, rows, cols, opts, "", selected, scale=scale)
        r, c = self.shape = np.atleast_2d(matrix).shape
        _set_frame(self.frame, QRectF(0, 0, c, r), color(head))
        self._fit()
        self.heatmap.plot.setTitle(f"<b>{title}</b>", color=color(head).name(), size=html_size(opts, "caption"))


def _tile_grid(layout, trace, opts: PlotOptions, signed: bool, top: int, n: int) -> list[HeadTile]:
    cols = min(n, MAX_COLUMNS)
    return [HeadTile(layout, opts, signed, top + k // cols, k % cols) for k in range(n)]


class HeadTilesPanel:
    """Every head's slice of a per-head stage [h, n, m], side by side on one colour scale, its bar right of them."""

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, top: int):
        self.name = name
        self.probability = colour_kind(stage_op(trace, name)) == PROBABILITY
        n = trace[name].shape[0]  # n_heads, or K and V's n_kv_heads
        self.tiles = _tile_grid(layout, trace, opts, not self.probability, top, n)
        self.bar = color_bar(opts, colormap(opts, not self.probability), [t.heatmap.image for t in self.tiles])
        layout.addItem(self.bar, row=top, col=min(n, MAX_COLUMNS), rowspan=-(-n // MAX_COLUMNS))

    def head_plots(self) -> list[pg.PlotItem]:
        return [t.heatmap.plot for t in self.tiles]

    def update(self, trace, opts: PlotOptions) -> None:
        st, value = trace.stage(self.name), trace[self.name]  # [h, n, m]
        rows = row_labels(trace, self.name, axis_labels(trace, st.rows, value.shape[1]))
        cols = axis_labels(trace, st.cols, value.shape[2])
        if st.cols is None:  # features of a head: the d_model columns it owns
            cols = None
        matrices = [value[h].numpy().astype(np.float64) for h in range(value.shape[0])]
        scale = scale_of(*matrices, probability=self.probability)  # one scale: the heads compared cell by cell
        selected = row_of(len(rows), opts) if st.rows is not None else None
        for h, (tile, m) in enumerate(zip(self.tiles, matrices)):
            start, stop = head_columns(trace.config, h)
            labels = cols if cols is not None else [str(c) for c in range(start, stop)]
            tile.set(m, rows, labels, opts, caption("head", opts.lang, head=h), h, scale, selected)
        cmap = colormap(opts, scale.signed)
        if cmap.name != self.bar.colorMap().name:
            self.bar.setColorMap(cmap)
        self.bar.setLevels((scale.lo, scale.hi))


def head_ink(head: int) -> QColor:
    """White or black, whichever reads on the head's colour (white on head 6's yellow could not be read)."""
    c = color(head)
    return QColor("white") if is_dark([[c.red(), c.green(), c.blue()]])[0] else QColor("black")


class BandedPanel:
    """A d_model-wide matrix [n, d] with a coloured band over each head's columns."""

    def __init__(
        self, layout: pg.GraphicsLayout, trace, opts: PlotOptions, row: int, colspan: int, heads: int | None = None
    ):
        self.heatmap = Heatmap(layout, opts, None, row, 0, colspan=colspan)
        plot = self.heatmap.plot
        self.bands = [QGraphicsRectItem() for _ in range(heads or trace.config.n_heads)]  # K, V of GQA: fewer
        self.labels = [pg.TextItem(anchor=(0.5, 0.5)) for _ in self.bands]
        self.frames = [_frame(plot, 5 if opts.slide else 3) for _ in self.bands]
        for band, label in zip(self.bands, self.labels):
            band.setPen(QPen(Qt.PenStyle.NoPen))
            plot.addItem(band)
            label.setFont(font(opts, "tick"))
            plot.addItem(label)

    def set(self, trace, matrix: np.ndarray, rows: list[str], opts: PlotOptions, title: str) -> None:
        n, d = matrix.shape
        self.heatmap.set(matrix, rows, [str(c) for c in range(d)], opts, title)
        strip = 0.5  # a coloured strip above row 0 names each head's columns
        for h, (band, label, frame) in enumerate(zip(self.bands, self.labels, self.frames)):
            start, stop = head_columns(trace.config, h)
            band.setBrush(QBrush(color(h)))
            band.setRect(QRectF(start, -strip, stop - start, strip * 0.9))
            label.setText(caption("head", opts.lang, head=h), color=head_ink(h))
            label.setPos((start + stop) / 2, -strip * 0.55)
            _set_frame(frame, QRectF(start, 0, stop - start, n), color(h))
        self.heatmap.plot.setRange(xRange=(0, d), yRange=(-strip, n), padding=0)


class SplitPanel:
    """Q (or K, V) before the split, [n, d_model] with each head's columns banded, then each head's part."""

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, top: int):
        self.name = name
        h = trace[name].shape[0]  # n_heads, or K and V's n_kv_heads
        self.merged = BandedPanel(layout, trace, opts, top, min(h, MAX_COLUMNS), heads=h)
        self.tiles = HeadTilesPanel(layout, trace, name, opts, top + 1)

    def head_plots(self) -> list[pg.PlotItem]:
        return self.tiles.head_plots()

    def update(self, trace, opts: PlotOptions) -> None:
        value = trace[self.name]  # [h, n, d_k]
        cfg = trace.config
        is_projection = stage_operation(trace, self.name).inputs == HEAD_PRODUCT  # else RoPE turning one
        letter = stage_operation(trace, self.name if is_projection else trace.stage(self.name).inputs[0]).letter
        rows = axis_labels(trace, trace.stage(self.name).rows, value.shape[1])
        title = caption(
            "split",
            opts.lang,
            letter=letter,
            n=value.shape[1],
            d=value.shape[0] * cfg.d_k,
            d_k=cfg.d_k,
            last=cfg.d_k - 1,
        )
        self.merged.set(trace, merge_heads(value).numpy().astype(np.float64), rows, opts, title)
        self.tiles.update(trace, opts)


class ConcatPanel:
    """Each head's Z, then the concat with each head's columns banded: the heads put back side by side."""

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, top: int):
        self.name = name
        self.z = HeadTilesPanel(layout, trace, trace.stage(name).inputs[0], opts, top)
        rows_used = -(-trace.config.n_heads // MAX_COLUMNS)
        self.concat = BandedPanel(layout, trace, opts, top + rows_used, min(trace.config.n_heads, MAX_COLUMNS))

    def head_plots(self) -> list[pg.PlotItem]:
        return self.z.head_plots()

    def update(self, trace, opts: PlotOptions) -> None:
        self.z.update(trace, opts)
        value = trace[self.name]  # [n, d]
        rows = axis_labels(trace, trace.stage(self.name).rows, value.shape[0])
        title = caption("concat", opts.lang, n=value.shape[0], d=value.shape[1])
        self.concat.set(trace, value.numpy().astype(np.float64), rows, opts, title)


class OutputPartsPanel:
    """attn.out = concat·W_O + b_O as the sum of each head's part Z_j·W_O[head j's rows], then the output."""

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, top: int):
        self.name = name
        n = trace.config.n_heads
        self.tiles = _tile_grid(layout, trace, opts, True, top, n)
        self.out = Heatmap(layout, opts, None, top + -(-n // MAX_COLUMNS), 0, colspan=min(n, MAX_COLUMNS))

    def head_plots(self) -> list[pg.PlotItem]:
        return [t.heatmap.plot for t in self.tiles]

    def update(self, trace, opts: PlotOptions) -> None:
        concat, W_O = trace.stage(self.name).inputs[:2]  # (then b_O, where the model has biases)
        cfg = trace.config
        parts = head_contributions(trace[concat], trace[W_O], cfg.n_heads)  # [h, n, d]
        rows = axis_labels(trace, trace.stage(self.name).rows, parts.shape[1])
        cols = [str(c) for c in range(parts.shape[2])]
        out = trace[self.name].numpy().astype(np.float64)
        matrices = [p.numpy().astype(np.float64) for p in parts]
        scale = scale_of(*matrices, out)
        for h, (tile, m) in enumerate(zip(self.tiles, matrices)):
            a, b = head_columns(cfg, h)
            title = caption("part_of", opts.lang, head=h, sub=_sub(h), a=a, b=b - 1)
            tile.set(m, rows, cols, opts, title, h, scale)
        self.out.set(out, rows, cols, opts, caption("out_sum", opts.lang), scale=scale)


def _sub(i: int) -> str:
    return str(i).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def draw_heads(layout: pg.GraphicsLayout, trace, stage: str, opts: PlotOptions) -> StageFigure:
    """Clear `layout` and draw every head of `stage` (see heads_stage), titled with the stage."""
    kind = stage_operation(trace, stage).heads
    if kind is None:
        raise KeyError(f"{stage!r} has no heads to show side by side")
    clear_layout(layout)
    title = pg.LabelItem(justify="left")
    title.item.setFont(font(opts, "caption"))
    title.setText(caption("every_head", opts.lang, stage=stage_caption(trace, stage, opts).split(" · ")[0]))
    n = trace.config.n_heads
    layout.addItem(title, row=0, col=0, colspan=min(n, MAX_COLUMNS))
    panel = {"split": SplitPanel, "concat": ConcatPanel, "parts": OutputPartsPanel, "tiles": HeadTilesPanel}[kind](
        layout, trace, stage, opts, 1
    )
    figure = StageFigure(stage, [panel], None)
    figure.refresh(trace, opts)
    return figure
