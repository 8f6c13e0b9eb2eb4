"""Add & Norm panels: each token before and after LayerNorm, and the steps for the selected token."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import torch
from PySide6.QtCore import Qt

from engine import teaching
from gui.text.operations import beside

from .bars import add_legend
from .captions import caption
from .heatmap import axis_labels, format_cell
from .matrix import row_of
from .style import PlotOptions, color, finite_range, foreground, markers, new_plot, set_caption, with_overflow_note

STEPS = ("step_x", "step_centred", "step_hat", "step_out")
MAX_COLOURED_FEATURES = 8
MAX_POINTS = 4000


def norm_stages(trace, name: str) -> dict[str, str]:
    """The steps of the LayerNorm that stage `name` is one of: {"mean": "enc.0.norm1.mean", …, "x": its input}."""
    steps = {step: beside(trace, name, f"norm.{step}") for step in ("mean", "var", "hat", "out")}
    return steps | {"x": trace.stage(steps["mean"]).inputs[0]}


def gain_and_shift(trace, steps: dict[str, str]) -> tuple[torch.Tensor, torch.Tensor]:
    """γ and β, read by the output step (with LayerNorm switched off it reads only x: γ = 1, β = 0)."""
    inputs = trace.stage(steps["out"]).inputs
    if len(inputs) == 3:
        return trace[inputs[1]], trace[inputs[2]]
    d = trace[steps["x"]].shape[-1]
    return torch.ones(d), torch.zeros(d)


def finite_points(xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The points whose value did not overflow (∞ or NaN cannot be placed; the caption counts them)."""
    drawn = np.isfinite(ys)
    return xs[drawn], ys[drawn]


class BeforeAfterPanel:
    """Per token: its values before LayerNorm (○, with mean and ±σ) and after (●)."""

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int, col: int):
        self.steps = norm_stages(trace, name)
        self.plot = new_plot(layout, opts, row=row, col=col)
        self.plot.showGrid(y=True, alpha=0.25)
        size = 12 if opts.slide else 7
        legend = add_legend(self.plot, opts)
        dots = dict(markers(opts), pen=None, symbolSize=size)
        self.before = self.plot.plot(
            **dots, symbol="o", symbolBrush=None, symbolPen=pg.mkPen(color(0), width=2), name="x"
        )
        self.after = self.plot.plot(**dots, symbol="o", symbolBrush=color(1), symbolPen=None, name="LN(x)")
        self.mean = self.plot.plot(
            **dict(dots, symbolSize=3 * size),
            symbol="_",
            symbolBrush=foreground(opts),
            symbolPen=pg.mkPen(foreground(opts), width=3),
        )
        legend.addItem(pg.PlotDataItem(pen=pg.mkPen(foreground(opts), width=4)), "μ ± σ")  # its key: a bar
        self.spread = pg.ErrorBarItem(beam=0.08, pen=pg.mkPen(foreground(opts), width=2))
        self.plot.addItem(self.spread)
        legend.setColumnCount(3)

    def update(self, trace, opts: PlotOptions) -> None:
        x = trace[self.steps["x"]].numpy()  # [n, d]
        out = trace[self.steps["out"]].numpy()
        mean = trace[self.steps["mean"]][:, 0]  # [n]
        sigma = teaching.layer_norm_spread(trace[self.steps["var"]][:, 0], trace.config.ln_eps)
        n, d = x.shape
        pos = np.arange(n, dtype=float)
        shown = slice(None, None, max(1, n * d // MAX_POINTS))  # big models: an even sample of each row's features
        k = len(range(d)[shown])
        self.before.setData(*finite_points(np.repeat(pos - 0.15, k), x[:, shown].flatten()))
        self.after.setData(*finite_points(np.repeat(pos + 0.15, k), out[:, shown].flatten()))
        self.mean.setData(*finite_points(pos - 0.15, mean.numpy()))
        drawn = np.isfinite(mean.numpy()) & np.isfinite(sigma.numpy())
        self.spread.setData(x=pos[drawn] - 0.15, y=mean.numpy()[drawn], height=2 * sigma.numpy()[drawn])
        tokens = axis_labels(trace, trace.stage(self.steps["mean"]).rows, n)
        self.plot.getAxis("bottom").set_categories(tokens, 0.0)
        self.plot.setXRange(-0.6, n - 0.4, padding=0)
        span = finite_range(x, out, (mean - sigma).numpy(), (mean + sigma).numpy())
        if span is not None:
            self.plot.setYRange(*span, padding=0.05)
        text = with_overflow_note(caption("before_after", opts.lang), np.concatenate([x.ravel(), out.ravel()]), opts)
        set_caption(self.plot, text, opts)


class NormStepsPanel:
    """The selected token through LayerNorm: x → x − μ → ÷√(σ²+ε) → × γ + β, one line per feature."""

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int, col: int):
        self.steps = norm_stages(trace, name)
        self.plot = new_plot(layout, opts, row=row, col=col)
        self.plot.showGrid(y=True, alpha=0.25)
        self.plot.addItem(pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen(foreground(opts), style=Qt.PenStyle.DotLine)))
        d = trace.config.d_model
        width = 3 if opts.slide else 2
        self.few = d <= MAX_COLOURED_FEATURES
        self.lines = []  # a coloured line per feature, or one grey polyline for all of them when there are many
        for f in range(d if self.few else 1):
            pen = pg.mkPen(color(f), width=width) if self.few else pg.mkPen(128, 128, 128, 90, width=1)
            self.lines.append(
                self.plot.plot(
                    **markers(opts),
                    pen=pen,
                    symbol="o" if self.few else None,
                    symbolBrush=color(f),
                    symbolPen=None,
                    symbolSize=9 if opts.slide else 5,
                    connect="finite",
                )
            )

    def update(self, trace, opts: PlotOptions) -> None:
        x = trace[self.steps["x"]]
        steps = teaching.layer_norm_steps(x, *gain_and_shift(trace, self.steps), trace.config.ln_eps)
        tokens = axis_labels(trace, trace.stage(self.steps["mean"]).rows, x.shape[0])
        r = row_of(x.shape[0], opts)
        values = np.stack([steps[k][r].numpy() for k in ("x", "centred", "hat", "out")])  # [4, d]
        at = np.arange(len(STEPS), dtype=float)
        if self.few:
            for f, line in enumerate(self.lines):
                line.setData(at, values[:, f])
        else:  # every feature's path, the paths separated by NaN breaks
            gap = np.full((values.shape[1], 1), np.nan)
            xs = np.hstack([np.tile(at, (values.shape[1], 1)), gap]).ravel()
            self.lines[0].setData(xs, np.hstack([values.T, gap]).ravel())
        span = finite_range(values, np.zeros(1))  # the dotted line at 0 in view
        if span is not None:
            self.plot.setYRange(*span, padding=0.05)
        self.plot.getAxis("bottom").set_categories([caption(k, opts.lang) for k in STEPS], 0.0)
        self.plot.setXRange(-0.55, len(STEPS) - 0.45, padding=0)  # room for the outer step names under the axis
        mean, var = (format_cell(float(steps[k][r]), opts.decimals) for k in ("mean", "var"))
        stats = f"μ = {mean}, σ² = {var}"
        text = with_overflow_note(f"{caption('norm_steps', opts.lang, token=tokens[r])}\n{stats}", values, opts)
        set_caption(self.plot, text, opts)
