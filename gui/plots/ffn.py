"""The FFN's activation curve with this sentence's pre-activations on it, and how many units it turns off."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from engine import teaching
from gui.text.operations import activation_of

from .captions import caption
from .matrix import row_of
from .style import PlotOptions, color, foreground, markers, new_plot, set_caption

MAX_POINTS = 4000
ACTIVATION_NAMES = {"relu": "ReLU", "gelu": "GELU", "gelu_tanh": "GELU (tanh)", "swiglu": "SiLU(gate)"}


def ffn_parts(trace, name: str) -> tuple[str, str | None, str]:
    """The up, gate (None without SwiGLU) and act stages of the FFN that stage `name` belongs to: act reads
    (gate, up) under SwiGLU, else (up,)."""
    act = trace.stage(activation_of(trace, name))
    *gate, up = act.inputs
    return up, (gate[0] if gate else None), act.name


class ActivationPanel:
    """The activation curve with each (pre, post) pair of this sentence as a dot, the selected token's larger."""

    def __init__(
        self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int, col: int, colspan: int = 1
    ):
        self.name = name
        self.plot = new_plot(layout, opts, row=row, col=col, colspan=colspan)
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        for angle in (0, 90):
            self.plot.addItem(
                pg.InfiniteLine(pos=0, angle=angle, pen=pg.mkPen(foreground(opts), style=Qt.PenStyle.DotLine))
            )
        self.curve = self.plot.plot(pen=pg.mkPen(foreground(opts), width=3 if opts.slide else 2))
        small, big = (9, 16) if opts.slide else (5, 9)
        dots = dict(markers(opts), pen=None, symbol="o")
        self.all = self.plot.plot(**dots, symbolSize=small, symbolBrush=color(0), symbolPen=None)
        outline = pg.mkPen(foreground(opts))
        self.selected = self.plot.plot(**dots, symbolSize=big, symbolBrush=color(4), symbolPen=outline)

    def update(self, trace, opts: PlotOptions) -> None:
        name = trace.config.activation
        # SwiGLU multiplies `up` by SiLU(gate): the curve is the gate's; otherwise act = f(up)
        up_stage, gate_stage, act_stage = ffn_parts(trace, self.name)
        up = trace[gate_stage if name == "swiglu" else up_stage]  # [n, d_ff]
        act = teaching.activation_values(name, up) if name == "swiglu" else trace[act_stage]
        reach = max(3.0, float(up.abs().max()) * 1.1)
        xs, ys = teaching.activation_curve(name, -reach, reach)
        self.curve.setData(xs.numpy(), ys.numpy())
        stride = max(1, up.numel() // MAX_POINTS)  # big models: an even sample of the points (the count uses all)
        self.all.setData(up.flatten()[::stride].numpy(), act.flatten()[::stride].numpy())
        r = row_of(up.shape[0], opts)
        self.selected.setData(up[r].numpy(), act[r].numpy())
        self.plot.setXRange(-reach, reach, padding=0.02)
        self.plot.setYRange(float(np.min(ys.numpy())) - 0.3, reach, padding=0.02)
        off = teaching.switched_off(up)
        text = caption("activation", opts.lang, name=ACTIVATION_NAMES[name], off=off, total=up.numel())
        set_caption(self.plot, text, opts)
