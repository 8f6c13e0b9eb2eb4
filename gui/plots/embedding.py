"""Positional encoding as waves: each dimension's sin/cos over positions, fast to slow."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import torch

from engine import ops, teaching

from .bars import add_legend
from .captions import caption
from .style import PlotOptions, color, font, foreground, markers, new_plot, set_caption

MAX_CURVES = 6
MIN_SPAN = 12  # positions drawn at least, so the fastest wave shows about two periods


def shown_dims(d: int) -> list[int]:
    """Up to MAX_CURVES dimensions, sin/cos pairs from the fastest to the slowest frequency."""
    pairs = sorted(set(np.linspace(0, d // 2 - 1, min(d // 2, MAX_CURVES // 2)).round().astype(int)))
    return [2 * p + k for p in pairs for k in (0, 1)]


class PositionCurvesPanel:
    """sin/cos curves of the shown dimensions over positions, with this sentence's positions as dots."""

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int, col: int):
        self.name = name
        self.plot = new_plot(layout, opts, row=row, col=col)
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        label_style = {"font-size": f"{font(opts, 'tick').pointSize()}pt", "color": foreground(opts).name()}
        self.plot.setLabel("bottom", caption("position", opts.lang), **label_style)
        legend = add_legend(self.plot, opts)
        self.curves, self.dots = [], []
        width = 3 if opts.slide else 2
        periods = teaching.wavelengths(trace.config.d_model).tolist()
        for k, dim in enumerate(shown_dims(trace.config.d_model)):
            pen = pg.mkPen(
                color(k // 2),
                width=width,
                style=pg.QtCore.Qt.PenStyle.SolidLine if dim % 2 == 0 else pg.QtCore.Qt.PenStyle.DashLine,
            )
            wave = "sin" if dim % 2 == 0 else "cos"
            period = f"{periods[dim]:.3g}" if periods[dim] < 1000 else f"{periods[dim]:,.0f}"  # 6.28 … 6,283
            curve = self.plot.plot(pen=pen, name=f"{wave} {dim} ({caption('period', opts.lang)} {period})")
            dots = self.plot.plot(
                **markers(opts),
                pen=None,
                symbol="o",
                symbolSize=10 if opts.slide else 6,
                symbolBrush=color(k // 2),
                symbolPen=None,
            )
            self.curves.append((dim, curve))
            self.dots.append(dots)
        legend.setColumnCount(2)

    def update(self, trace, opts: PlotOptions) -> None:
        n, d = trace[self.name].shape
        span = max(n - 1, MIN_SPAN)
        smooth = torch.linspace(0, span, 200)
        waves = ops.sinusoidal_at(smooth, d).numpy()  # [200, d]
        at_tokens = trace[self.name].numpy()  # [n, d]: the stage's own values at integer positions
        for (dim, curve), dots in zip(self.curves, self.dots):
            curve.setData(smooth.numpy(), waves[:, dim])
            dots.setData(np.arange(n), at_tokens[:, dim])
        self.plot.setXRange(0, span, padding=0.03)
        self.plot.setYRange(-1.1, 1.1, padding=0)
        set_caption(self.plot, caption("pe_curves", opts.lang), opts)
