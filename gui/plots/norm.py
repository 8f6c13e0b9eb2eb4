"""Add & Norm panels: each token before and after LayerNorm (or RMSNorm), and the steps for the selected token."""

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
RMS_STEPS = ("step_x", "step_rms_hat", "step_gain")  # RMSNorm: no centring, no shift
RMS_KINDS = {"ms": "ms", "hat": "rms_hat", "out": "rms_out"}  # RMSNorm's steps: their operations' kinds
MAX_COLOURED_FEATURES = 8
MAX_POINTS = 4000


def is_rms(trace) -> bool:
    return trace.config.norm_type == "rmsnorm"


def norm_stages(trace, name: str) -> dict[str, str]:
    """The steps of the LayerNorm that stage `name` is one of: {"mean": "enc.0.norm1.mean", …, "x": its input};
    of an RMSNorm: {"ms", "hat", "out", "x"}."""
    if is_rms(trace):
        steps = {step: beside(trace, name, f"norm.{kind}") for step, kind in RMS_KINDS.items()}
        return steps | {"x": trace.stage(steps["ms"]).inputs[0]}
    steps = {step: beside(trace, name, f"norm.{step}") for step in ("mean", "var", "hat", "out")}
    return steps | {"x": trace.stage(steps["mean"]).inputs[0]}


def first_step(steps: dict[str, str]) -> str:
    """The norm's first statistic (μ, or RMSNorm's mean square), whose rows are the tokens."""
    return steps.get("mean", steps.get("ms"))


def gain_and_shift(trace, steps: dict[str, str]) -> tuple[torch.Tensor, torch.Tensor]:
    """γ and β, read by the output step (with LayerNorm switched off it reads only x: γ = 1, β = 0; RMSNorm has
    no β: 0)."""
    inputs = trace.stage(steps["out"]).inputs
    d = trace[steps["x"]].shape[-1]
    if len(inputs) >= 2:
        return trace[inputs[1]], trace[inputs[2]] if len(inputs) == 3 else torch.zeros(d)
    return torch.ones(d), torch.zeros(d)


def finite_points(xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The points whose value did not overflow (∞ or NaN cannot be placed; the caption counts them)."""
    drawn = np.isfinite(ys)
    return xs[drawn], ys[drawn]


class BeforeAfterPanel:
    """Per token: its values before LayerNorm (○, with mean and ±σ) and after (●); before RMSNorm with 0 ± its root
    mean square (the size RMSNorm divides by)."""

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
        after = "RMSNorm(x)" if is_rms(trace) else "LN(x)"
        self.after = self.plot.plot(**dots, symbol="o", symbolBrush=color(1), symbolPen=None, name=after)
        self.mean = self.plot.plot(
            **dict(dots, symbolSize=3 * size),
            symbol="_",
            symbolBrush=foreground(opts),
            symbolPen=pg.mkPen(foreground(opts), width=3),
        )
        spread = "0 ± rms" if is_rms(trace) else "μ ± σ"
        legend.addItem(pg.PlotDataItem(pen=pg.mkPen(foreground(opts), width=4)), spread)  # its key: a bar
        self.spread = pg.ErrorBarItem(beam=0.08, pen=pg.mkPen(foreground(opts), width=2))
        self.plot.addItem(self.spread)
        legend.setColumnCount(3)

    def update(self, trace, opts: PlotOptions) -> None:
        x = trace[self.steps["x"]].numpy()  # [n, d]
        out = trace[self.steps["out"]].numpy()
        if is_rms(trace):  # centred on 0, spread √(ms + ε): what RMSNorm divides by
            sigma = teaching.layer_norm_spread(trace[self.steps["ms"]][:, 0], trace.config.ln_eps)
            mean = torch.zeros_like(sigma)
        else:
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
        tokens = axis_labels(trace, trace.stage(first_step(self.steps)).rows, n)
        self.plot.getAxis("bottom").set_categories(tokens, 0.0)
        self.plot.setXRange(-0.6, n - 0.4, padding=0)
        span = finite_range(x, out, (mean - sigma).numpy(), (mean + sigma).numpy())
        if span is not None:
            self.plot.setYRange(*span, padding=0.05)
        key = "before_after_rms" if is_rms(trace) else "before_after"
        text = with_overflow_note(caption(key, opts.lang), np.concatenate([x.ravel(), out.ravel()]), opts)
        set_caption(self.plot, text, opts)


class NormStepsPanel:
    """The selected token through LayerNorm: x → x − μ → ÷√(σ²+ε) → × γ + β, one line per feature (RMSNorm:
    x → ÷√(ms+ε) → × γ)."""

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
        gamma, beta = gain_and_shift(trace, self.steps)
        eps, rms = trace.config.ln_eps, is_rms(trace)
        steps = teaching.rms_norm_steps(x, gamma, eps) if rms else teaching.layer_norm_steps(x, gamma, beta, eps)
        names, kept = (RMS_STEPS, ("x", "hat", "out")) if rms else (STEPS, ("x", "centred", "hat", "out"))
        tokens = axis_labels(trace, trace.stage(first_step(self.steps)).rows, x.shape[0])
        r = row_of(x.shape[0], opts)
        values = np.stack([steps[k][r].numpy() for k in kept])  # [steps, d]
        at = np.arange(len(names), dtype=float)
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
        self.plot.getAxis("bottom").set_categories([caption(k, opts.lang) for k in names], 0.0)
        self.plot.setXRange(-0.55, len(names) - 0.45, padding=0)  # room for the outer step names under the axis
        if rms:
            stats = f"ms = {format_cell(float(steps['ms'][r]), opts.decimals)}"
        else:
            mean, var = (format_cell(float(steps[k][r]), opts.decimals) for k in ("mean", "var"))
            stats = f"μ = {mean}, σ² = {var}"
        text = with_overflow_note(f"{caption('norm_steps', opts.lang, token=tokens[r])}\n{stats}", values, opts)
        set_caption(self.plot, text, opts)
