"""The cost view (engine/cost.py) drawn beside a stage: the multiply-adds and bytes of every stage, attention's
share as n grows with the time measured on this machine, the KV cache per token, and the memory of inference
against training."""

from __future__ import annotations

from functools import cache

import numpy as np
import pyqtgraph as pg
import torch
from PySide6.QtCore import Qt

from engine import cost

from .bars import Bars
from .style import PlotOptions, color, foreground, markers, new_plot, set_caption
from .text import caption

MEASURED_N = (64, 128, 256, 512)  # small enough to time while a figure is drawn (a few ms in all)


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB"):
        if n < 1024 or unit == "MiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return ""


def _log_axes(plot: pg.PlotItem, xs, ys, y_label) -> None:
    """Log-log axes with a few labelled ticks (pyqtgraph's own log ticks crowd into each other)."""
    plot.setLogMode(x=True, y=True)
    plot.getAxis("bottom").setTicks([[(np.log10(x), str(x)) for x in xs], []])
    plot.getAxis("left").setTicks([[(np.log10(y), y_label(y)) for y in ys], []])


def _short(name: str) -> str:
    """A stage's last word ("q", "scores", "up"), enough beside the layer of a small lesson's model."""
    return name.rsplit(".", 1)[-1]


class StageCostPanel:
    """Bars of every stage's multiply-adds, the current stage's bar beside them in its own colour."""

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int, col: int,
                 colspan: int = 1, key: str = "macs"):
        self.name, self.key = name, key
        label = caption("multiply_adds" if key == "macs" else "bytes", opts.lang)
        series = [(label, color(0)), (caption("this_stage", opts.lang), color(1))]
        self.bars = Bars(layout, opts, row, col, series, colspan=colspan)

    def update(self, trace, opts: PlotOptions) -> None:
        costs = cost.stage_costs(trace)
        names = [n for n, c in costs.items() if c["macs"] > 0] if self.key == "macs" else [
            st.name for st in trace.stages]
        values = np.array([costs[n][self.key] for n in names], dtype=float)
        mine = np.where([n == self.name for n in names], values, 0.0)
        this = costs[self.name]
        text = caption("stage_macs", opts.lang, macs=f"{this['macs']:,}", size=_size(this["bytes"])) \
            if self.key == "macs" else caption("stage_bytes", opts.lang)
        self.bars.set([_short(n) for n in names], [values, mine], opts, text, show_values=False)


@cache
def _measured(cfg) -> list[dict]:
    return cost.measured_times(cfg, MEASURED_N)


class SharePanel:
    """Attention's share of the multiply-adds by the formulas, n = 8 … 8192, and this sentence's counted share."""

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int, col: int):
        self.plot = new_plot(layout, opts, row=row, col=col)
        _log_axes(self.plot, (8, 64, 512, 4096), (0.01, 0.1, 0.2, 0.5, 1.0), lambda y: f"{y:.0%}")
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.setLabel("bottom", caption("tokens_n", opts.lang), color=foreground(opts).name())
        self.plot.setLabel("left", caption("share_axis", opts.lang), color=foreground(opts).name())
        self.curve = self.plot.plot(pen=pg.mkPen(color(0), width=2))
        self.point = self.plot.plot(**markers(opts), pen=None, symbol="o", symbolSize=12, symbolBrush=color(1))

    def update(self, trace, opts: PlotOptions) -> None:
        rows = cost.share_curve(trace.config, cost.vocab_out(trace))
        self.curve.setData([r["n"] for r in rows], [r["share"] for r in rows])
        n = max(len(t) for t in trace.tokens.values())
        self.point.setData([n], [cost.counted_share(cost.stage_costs(trace), trace)])
        set_caption(self.plot, caption("share", opts.lang), opts)


class TimePanel:
    """One attention's wall time at a few n, measured here, beside the n² the formula predicts."""

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int, col: int):
        self.plot = new_plot(layout, opts, row=row, col=col)
        _log_axes(self.plot, MEASURED_N, (0.01, 0.1, 1, 10, 100), lambda y: f"{y:g}")
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.setLabel("bottom", caption("tokens_n", opts.lang), color=foreground(opts).name())
        self.plot.setLabel("left", caption("milliseconds", opts.lang), color=foreground(opts).name())
        self.formula = self.plot.plot(pen=pg.mkPen(color(5), width=2, style=Qt.PenStyle.DashLine))
        self.measured = self.plot.plot(**markers(opts), pen=pg.mkPen(color(1), width=2), symbol="o",
                                       symbolBrush=color(1))

    def update(self, trace, opts: PlotOptions) -> None:
        rows = _measured(trace.config)
        ns = np.array([r["n"] for r in rows], dtype=float)
        ms = np.array([max(r["seconds"], 1e-9) * 1e3 for r in rows])
        macs = np.array([r["formula_macs"] for r in rows], dtype=float)
        self.measured.setData(ns, ms)
        self.formula.setData(ns, macs * ms[-1] / macs[-1])  # ∝ n², through the largest measured point
        set_caption(self.plot, caption("measured_time", opts.lang, threads=torch.get_num_threads()), opts)


class KVPanel:
    """The KV cache's bytes after each token: one more row of K and V per layer, per token."""

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int, col: int,
                 colspan: int = 2):
        self.bars = Bars(layout, opts, row, col, [(caption("kv_cache", opts.lang), color(2))], colspan=colspan)

    def update(self, trace, opts: PlotOptions) -> None:
        kv = cost.kv_cache(trace)
        tokens = list(trace.tokens.get("dec", []))
        values = np.array([kv["per_token_bytes"] * (k + 1) for k in range(len(tokens))], dtype=float)
        text = caption("kv_growth", opts.lang, per_token=kv["per_token_bytes"], layers=kv["layers"],
                       d=trace.config.d_model)
        self.bars.set(tokens, [values], opts, text)


class MemoryPanel:
    """Memory of inference and of training with Adam, part by part, from the actual tensors."""

    PARTS = ("weights", "gradients", "adam_moments", "activations", "largest_stage", "kv_cache")

    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int, col: int,
                 colspan: int = 2):
        series = [(caption("inference", opts.lang), color(0)), (caption("training", opts.lang), color(4))]
        self.bars = Bars(layout, opts, row, col, series, colspan=colspan)
        self.bars.plot.setLabel("left", caption("bytes", opts.lang), color=foreground(opts).name())

    def update(self, trace, opts: PlotOptions) -> None:
        mem = cost.memory(trace)
        inference = {"weights", "largest_stage", "kv_cache"}
        training = {"weights", "gradients", "adam_moments", "activations"}
        first = np.array([mem[p] if p in inference else 0 for p in self.PARTS], dtype=float)
        second = np.array([mem[p] if p in training else 0 for p in self.PARTS], dtype=float)
        text = caption("memory", opts.lang, inference=_size(mem["inference"]), training=_size(mem["training"]),
                       ratio=f"{mem['adam_moments'] / mem['weights']:.1f}")
        self.bars.set([caption(p, opts.lang) for p in self.PARTS], [first, second], opts, text, show_values=False)


def cost_panels(layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, top: int, first: list) -> list:
    """The stage's own panel (`first`, at row top, column 0), its multiply-adds beside it, and under them the part
    of the cost view this stage teaches: attention's share and time at the scores, the KV cache at K and V,
    memory at the last stage, else the bytes of every stage."""
    args = (layout, trace, name, opts)
    op = trace.stage(name).op if trace.stage(name) is not None else "tokens"
    panels = [*first, StageCostPanel(*args, top, 1)]
    if op in ("attn.scores", "attn.weights"):
        return panels + [SharePanel(*args, top + 1, 0), TimePanel(*args, top + 1, 1)]
    if op in ("attn.k", "attn.v") and trace.stage(name).rows == "dec":  # the decoder's own K, V: the cached ones
        return panels + [KVPanel(*args, top + 1, 0)]
    if name == trace.stages[-1].name:
        return panels + [MemoryPanel(*args, top + 1, 0)]
    return panels + [StageCostPanel(*args, top + 1, 0, colspan=2, key="bytes")]
