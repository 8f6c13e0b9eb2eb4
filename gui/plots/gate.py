"""SwiGLU's gate for one token: each unit's up value, the gate's SiLU that scales it, and their product."""

from __future__ import annotations

import pyqtgraph as pg

from engine import teaching

from .bars import Bars
from .captions import caption
from .ffn import ffn_parts
from .heatmap import axis_labels
from .matrix import row_of
from .style import PlotOptions, color


class GatePanel:
    """Bars per FFN unit for the selected token: up, SiLU(gate) and act = up ⊙ SiLU(gate)."""

    def __init__(
        self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int, col: int, colspan: int = 1
    ):
        self.name = name
        series = [(caption(key, opts.lang), color(k)) for k, key in ((0, "up"), (1, "silu_gate"), (2, "act"))]
        self.bars = Bars(layout, opts, row, col, series, colspan=colspan)

    def update(self, trace, opts: PlotOptions) -> None:
        up, gate, act = (trace[stage] for stage in ffn_parts(trace, self.name))  # [n, d_ff]
        r = row_of(up.shape[0], opts)
        token = axis_labels(trace, trace.stage(self.name).rows, up.shape[0])[r]
        opened = teaching.activation_values("swiglu", gate[r])
        units = [str(u) for u in range(up.shape[1])]
        self.bars.set(
            units, [up[r].numpy(), opened.numpy(), act[r].numpy()], opts, caption("gate_bars", opts.lang, token=token)
        )
