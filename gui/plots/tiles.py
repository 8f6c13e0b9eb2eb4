"""Panels of tiled (FlashAttention) attention: the tile with its tokens, where it sits in the n × n scores,
and at the end how little was held beside the matrix the normal path stores."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPen
from PySide6.QtWidgets import QGraphicsRectItem

from engine import tiled
from gui.text.operations import operation

from .bars import Bars
from .captions import caption
from .heatmap import Heatmap, axis_labels
from .matrix import MatrixPanel, head_of, stage_caption
from .scale import scale_for, shared_scale, shared_scale_names
from .style import HIDDEN_COLOR, PlotOptions, color


def _tokens(trace, name: str) -> tuple[list[str], list[str]]:
    """Query and key tokens of the attention a tile stage explains."""
    scores = trace.attention_of(name).scores
    n_q, n_k = trace[scores.name].shape[1:]
    return axis_labels(trace, scores.rows, n_q), axis_labels(trace, scores.cols, n_k)


class TilePanel:
    """The tile stage's own numbers for the shown head, its rows and columns named by their tokens."""

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int, col: int):
        self.name = name
        op = trace.stage(name).op
        if op == "attn.tiled.skipped":  # drawn like the mask panel: grey = hidden
            pattern = pg.ColorMap([0.0, 1.0], [QColor("#cfe8cf"), HIDDEN_COLOR])
            self.heatmap = Heatmap(layout, opts, False, row, col, cmap=pattern, colorbar=False)
        else:
            self.heatmap = Heatmap(layout, opts, None, row, col)  # scale_for: ℓ ≥ 0 gets a sequential map

    def update(self, trace, opts: PlotOptions) -> None:
        st = trace.stage(self.name)
        (r0, r1), (c0, c1) = st.tile.rows, st.tile.cols
        value = trace[self.name]
        m = (value if value.dim() == 2 else value[head_of(trace, opts)]).numpy().astype(np.float64)
        queries, keys = _tokens(trace, self.name)
        features = [str(c) for c in range(m.shape[1])]
        entry = operation(st.op)  # m and ℓ: one column named by the letter; o: d_k features; else the tile's keys
        cols = [entry.letter] if entry.columns == "letter" else features if st.op == "attn.tiled.o" else keys[c0:c1]
        text = caption(
            "tile_of", opts.lang, what=stage_caption(trace, self.name, opts), r0=r0, r1=r1 - 1, c0=c0, c1=c1 - 1
        )
        if st.op == "attn.tiled.skipped":
            self.heatmap.set(m, queries[r0:r1], cols, opts, text, levels=(0.0, 1.0))
        else:  # S and m on the scale of the full scores drawn beside them; ℓ and o on their own
            shared = self.name in shared_scale_names(trace, self.name)
            scale = shared_scale(trace, self.name, head_of(trace, opts)) if shared else scale_for(st.op, m)
            self.heatmap.set(m, queries[r0:r1], cols, opts, text, scale=scale)


class TileMapPanel:
    """The attention's full masked scores for the shown head, the tile outlined: where this step works."""

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int, col: int):
        self.name = name
        self.heatmap = Heatmap(layout, opts, None, row, col)
        self.frame = QGraphicsRectItem()
        pen = QPen(color(4), 4)
        pen.setCosmetic(True)
        self.frame.setPen(pen)
        self.frame.setBrush(QBrush(Qt.BrushStyle.NoBrush))
        self.frame.setZValue(10)
        self.heatmap.plot.addItem(self.frame)

    def update(self, trace, opts: PlotOptions) -> None:
        h = head_of(trace, opts)
        masked = trace[trace.attention_of(self.name).masked.name][h].numpy().astype(np.float64)
        queries, keys = _tokens(trace, self.name)
        head = caption("head", opts.lang, head=h)
        scale = shared_scale(trace, self.name, h)  # the tile's own scale (one number, one colour beside the tile)
        self.heatmap.set(masked, queries, keys, opts, caption("tile_map", opts.lang, head=head), scale=scale)
        (r0, r1), (c0, c1) = trace.stage(self.name).tile.rows, trace.stage(self.name).tile.cols
        self.frame.setRect(QRectF(c0, r0, c1 - c0, r1 - r0))


class HeldPanel:
    """The most numbers a tile held per head beside the n × n scores the normal path stores, and the largest
    difference between the tiled output and A·V."""

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int, col: int):
        self.name = name
        self.bars = Bars(layout, opts, row, col, [(caption("value", opts.lang), color(0))])

    def update(self, trace, opts: PlotOptions) -> None:
        r, c = tiled.largest_tile(trace, self.name)
        n, m = trace[trace.attention_of(self.name).scores.name].shape[1:]
        labels = [caption("largest_tile", opts.lang, r=r, c=c), caption("full_scores", opts.lang, n=n, m=m)]
        diff = f"{tiled.difference(trace, self.name):.1e}"
        self.bars.set(
            labels, [np.array([r * c, n * m], dtype=float)], opts, caption("numbers_held", opts.lang, diff=diff)
        )


def tile_panels(layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, top: int) -> list:
    """The tile beside its place in the n × n scores; for the output, the output beside what was held."""
    args = (layout, trace, name, opts)
    if trace.stage(name).op == "attn.tiled.z":
        return [MatrixPanel(layout, trace, name, opts, top, 0, select_row=True), HeldPanel(*args, top, 1)]
    return [TilePanel(*args, top, 0), TileMapPanel(*args, top, 1)]
