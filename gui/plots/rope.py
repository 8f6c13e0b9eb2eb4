"""RoPE: the angle each position turns each pair of dimensions by, and pair 0 of every token before and after
turning (position p turns by p radians: the first token not at all)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from engine import ops
from gui.text.operations import operation

from .captions import caption
from .heatmap import Heatmap, axis_labels
from .matrix import head_in, head_of
from .style import PlotOptions, color, font, foreground, new_plot, set_caption, with_overflow_note


class RopePanel:
    """Angles θ[position, pair] as a heatmap, and pair 0 of each token's q (or k) before (○) and after (●)."""

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int, col: int):
        self.name = name
        self.plot = new_plot(layout, opts, row, col)
        self.plot.setAspectLocked(True)
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        for angle in (0, 90):
            self.plot.addItem(
                pg.InfiniteLine(pos=0, angle=angle, pen=pg.mkPen(foreground(opts), style=Qt.PenStyle.DotLine))
            )
        self.items: list = []
        self.angles = Heatmap(layout, opts, False, row + 1, 0, colspan=col + 1)

    def update(self, trace, opts: PlotOptions) -> None:
        before_name = trace.stage(self.name).inputs[0]
        h = head_in(trace, trace[self.name].shape[0], head_of(trace, opts))  # K of grouped-query attention: its head
        before, after = trace[before_name][h], trace[self.name][h]  # [n, d_k]
        n = after.shape[0]
        cfg = trace.config
        pair_dims = ops.rope_pair_dims(cfg.rotated, cfg.rope_pairs)  # (2i, 2i+1) or (i, i + r/2)
        first = list(pair_dims[0])
        tokens = axis_labels(trace, trace.stage(self.name).rows, n)
        for item in self.items:
            self.plot.removeItem(item)
        self.items = []
        size, width = (14, 3) if opts.slide else (10, 2)
        for p in range(n):
            c = color(p)
            (x0, y0), (x1, y1) = before[p, first].tolist(), after[p, first].tolist()
            line = self.plot.plot([0, x1], [0, y1], pen=pg.mkPen(c, width=width))
            was = self.plot.plot([0, x0], [0, y0], pen=pg.mkPen(c, width=1, style=Qt.PenStyle.DashLine))
            start = self.plot.plot(
                [x0], [y0], pen=None, symbol="o", symbolSize=size, symbolBrush=None, symbolPen=pg.mkPen(c, width=2)
            )
            end = self.plot.plot([x1], [y1], pen=None, symbol="o", symbolSize=size, symbolBrush=c, symbolPen=None)
            label = pg.TextItem(tokens[p], color=c, anchor=(0, 1))
            label.setFont(font(opts, "tick"))
            label.setPos(x1, y1)
            self.plot.addItem(label)
            self.items += [line, was, start, end, label]
        points = np.abs(np.concatenate([before[:, first].numpy(), after[:, first].numpy()]))  # [2n, 2]
        reach = max(float(points[np.isfinite(points)].max(initial=0.0)), 1e-6) * 1.3  # (∞, NaN cannot set a range)
        self.plot.setRange(xRange=(-reach, reach), yRange=(-reach, reach), padding=0)
        letter = operation(trace.stage(self.name).op).letter.removesuffix("_rot")  # Q or K
        turn = caption("rope_turn", opts.lang, letter=letter, head=caption("head", opts.lang, head=h))
        set_caption(self.plot, with_overflow_note(turn, points, opts), opts)
        angles = ops.rope_angles(n, cfg.rotated, theta=cfg.rope_theta).numpy()  # [n, r/2]
        pairs = [caption("pair", opts.lang, i=i, a=a, b=b) for i, (a, b) in enumerate(pair_dims)]
        top = float(np.max(angles)) or 1.0
        self.angles.set(
            angles,
            tokens,
            pairs,
            opts,
            caption(
                "rope_angles",
                opts.lang,
                theta=f"{cfg.rope_theta:g}",
                r="d_k" if cfg.rotary_dim is None else cfg.rotated,
            ),
            levels=(0.0, top),
        )
