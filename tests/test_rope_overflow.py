"""The RoPE plot with overflowed q and k: weights within a cell edit's limit (±1e6) can still overflow float32 in
a model without LayerNorm, and the plot raised `Cannot set range [nan, nan]` (issue 44)."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
import torch

from engine import Model, ModelConfig
from gui.plots import PlotOptions, draw_stage
from gui.plots.rope import RopePanel

CONFIG = ModelConfig(
    architecture="decoder", d_model=4, n_heads=1, d_ff=4, n_layers=1, positional="rope", activation="gelu"
)


@pytest.mark.parametrize("stage", ["dec.0.self_attn.q_rot", "dec.0.self_attn.k_rot"])
@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_the_rope_plot_draws_overflowed_values(qapp, stage, value):
    trace = Model.create(CONFIG).trace("a b c")
    for name in (trace.stage(stage).inputs[0], stage):  # before and after turning: the first token overflowed
        tensor = trace.values[name].clone()
        tensor[:, 0, :2] = value
        trace.values[name] = tensor
    widget = pg.GraphicsLayoutWidget()
    widget.resize(1000, 600)
    opts = PlotOptions()
    figure = draw_stage(widget.ci, trace, stage, opts)
    figure.refresh(trace, opts)
    assert not widget.grab().isNull()
    rope = next(panel for panel in figure.panels if isinstance(panel, RopePanel))
    drawn = torch.cat([trace.values[trace.stage(stage).inputs[0]][0, 1:, :2], trace[stage][0, 1:, :2]])
    (x0, x1), (y0, y1) = rope.plot.vb.viewRange()  # the finite points' reach (the locked aspect widens one axis)
    assert x0 == -x1 and y0 == -y1 and min(x1, y1) == pytest.approx(1.3 * float(drawn.abs().max()))
    assert "4 values overflowed" in rope.plot.titleLabel.text  # pair 0 of the first token, before and after
