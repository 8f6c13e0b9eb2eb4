"""The cost of the model (engine/cost.py) as one figure, for the "Cost of this model" dock and its export: the
multiply-adds of every layer with the current stage's layer stage by stage, attention's share as n grows, one
attention's time measured on this machine beside the formula, memory of inference against training, and the KV
cache per token. Every bar is named: bars lie on their side, one labelled row each."""

from __future__ import annotations

import math
from dataclasses import replace
from functools import cache

import numpy as np
import pyqtgraph as pg
import torch
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics, QFontMetricsF

from engine import cost
from gui.text.operations import place_of, stage_title

from .captions import caption, plain
from .figure import figure_title, trace_structure, trace_tokens
from .style import (
    PlotOptions,
    caption_lines,
    color,
    font,
    foreground,
    html_size,
    markers,
    new_plot,
    set_caption,
    slide_title,
)
from .view import clear_layout

MEASURED_N = (32, 64, 128, 256)  # small enough to time when the dock is first shown (well under a second)
LAYER_COLOR = QColor("#9a9a9a")  # a whole layer's total
ROW_SPACING = 1.25  # a bar's row, in lines of the tick font: every label has room
CURVE_LINES = 7  # a curve's plot is at least this many lines of the tick font high


def _count(n: float) -> str:
    """1,234 or 12.3 k, 4.5 M, 6.7 G: short enough to print at the end of a bar."""
    for limit, unit in ((1e9, "G"), (1e6, "M"), (1e4, "k")):
        if n >= limit:
            return f"{n / limit:.1f} {unit}"
    return f"{n:,.0f}"


def _log_axes(plot: pg.PlotItem, xs, ys, y_label) -> None:
    """Log-log axes with a few labelled ticks (pyqtgraph's own log ticks crowd into each other)."""
    plot.setLogMode(x=True, y=True)
    plot.getAxis("bottom").setTicks([[(np.log10(x), str(x)) for x in xs], []])
    plot.getAxis("left").setTicks([[(np.log10(y), y_label(y)) for y in ys], []])


def _axis_labels(plot: pg.PlotItem, opts: PlotOptions, bottom: str, left: str) -> None:
    plot.showGrid(x=True, y=True, alpha=0.25)
    style = {"color": foreground(opts).name(), "font-size": html_size(opts, "tick")}
    for axis, key in (("bottom", bottom), ("left", left)):
        plot.setLabel(axis, caption(key, opts.lang), **style)
    plot.vb.setMinimumHeight(CURVE_LINES * QFontMetrics(font(opts, "tick")).height())


class SideBars:
    """Bars on their side, one row each, every row named on the left axis with its value ("ffn.up: 1,792")."""

    def __init__(self, layout: pg.GraphicsLayout, opts: PlotOptions, row: int, col: int, colspan: int = 1):
        self.plot = new_plot(layout, opts, row=row, col=col, colspan=colspan)
        self.plot.invertY(True)  # the first row on top
        self.plot.showGrid(x=True, alpha=0.25)
        self.plot.getAxis("bottom").setStyle(showValues=False)
        self.item = pg.BarGraphItem(x0=[0], y=[0], height=[0], width=[0])
        self.plot.addItem(self.item)
        self.tick_font = font(opts, "tick")
        self.line = QFontMetrics(self.tick_font).height()
        self.labels: list[str] = []  # each row's name and value, as the left axis shows them
        self.text = ""  # the caption
        self.room = (0, 1)  # rows and caption lines kept whatever set() shows (reserve)
        self.rows_shown = 0  # the rows the plot's range and height are for

    def reserve(self, rows: int, labels: list[str], lines: int) -> None:
        """Keep room for `rows` rows, the widest of `labels` and a caption of `lines` lines, whatever set() shows
        later: the plot keeps its size (a figure laid out anew lays out every other axis and range again)."""
        self.room = (rows, lines)
        axis = self.plot.getAxis("left")
        metrics = QFontMetricsF(self.tick_font)
        box = QRectF(0, 0, 100, 100)  # as pyqtgraph measures a tick label
        widest = max(
            (metrics.boundingRect(box, Qt.AlignmentFlag.AlignCenter, label).width() for label in labels), default=0
        )
        axis.setWidth(math.ceil(widest) + axis.style["tickTextOffset"][0] + max(0, axis.style["tickLength"]) + 1)
        self.labels, self.text = [], ""  # set() sets them again for the room

    def set(
        self,
        names: list[str],
        values: list[float],
        colors: list[QColor],
        texts: list[str],
        text: str,
        opts: PlotOptions,
    ) -> None:
        n, labels = len(names), [f"{name}: {value}" for name, value in zip(names, texts)]
        self.item.setOpts(
            x0=np.zeros(n),
            y=np.arange(n, dtype=float),
            height=0.7,
            width=np.asarray(values, float),
            brushes=colors,
            pens=[pg.mkPen(c.darker(130)) for c in colors],
        )
        if labels != self.labels:  # (another stage of the same layer moves only the colours: the axis stays laid out)
            self.labels = labels
            self.plot.getAxis("left").setTicks([list(enumerate(labels)), []])
        rows = max(n, self.room[0])  # reserved rows stay empty below the bars
        if rows != self.rows_shown:
            self.rows_shown = rows
            self.plot.setYRange(-0.6, rows - 0.4, padding=0)
            self.plot.vb.setMinimumHeight(rows * self.line * ROW_SPACING)  # too little room: the figure shrinks instead
            self.plot.vb.setMaximumHeight(rows * self.line * ROW_SPACING * 1.4)  # more: the other plots get it
        self.plot.setXRange(0, max(max(values, default=0), 1) * 1.05, padding=0)
        if text != self.text:
            self.text = text
            set_caption(self.plot, text, opts, lines=self.room[1])


def stage_rows(trace, costs: dict[str, dict[str, int]], stage: str) -> list[tuple[str, int, str]]:
    """(name, multiply-adds, kind) in trace order: a row per layer, except the current stage's layer, whose stages
    with a matrix product (and the current stage) each get a row. kind: "layer", "stage" or "this"."""
    layers = cost.per_layer(trace, costs)
    group = cost.layer_of(trace, stage)
    rows, seen = [], set()
    for name, c in costs.items():
        layer = cost.layer_of(trace, name)
        if layer == group and (c["macs"] > 0 or name == stage):
            rows.append((name, c["macs"], "this" if name == stage else "stage"))
        elif layer != group and layer not in seen:
            seen.add(layer)
            if layers[layer]["macs"] > 0:
                rows.append((layer, layers[layer]["macs"], "layer"))
    return rows


def group_label(trace, group: str, lang: str) -> str:
    """A layer of engine.cost (its `layer_of`) in words: "Decoder block 0", "Decoder: embedding", "Linear +
    Softmax"."""
    place = place_of(trace, next(name for name in trace.stage_names if cost.layer_of(trace, name) == group))
    if place.stack is None:
        return plain("output", lang)
    if place.block is None:
        return plain(f"{place.stack}_outside_blocks", lang)
    return plain(f"{place.stack}_block", lang, i=place.block)


def _row_label(trace, name: str, kind: str, lang: str) -> str:
    if kind == "layer":
        return plain("layer_total", lang, layer=group_label(trace, name, lang))
    return stage_title(trace, name, lang)


class StageMacsPanel:
    """The multiply-adds of every layer, the current stage's layer stage by stage, the current stage in its own
    colour (a stage without a matrix product gets an empty row, so it is still named)."""

    COLORS = {"layer": LAYER_COLOR, "stage": color(0), "this": color(1)}

    def __init__(self, layout: pg.GraphicsLayout, opts: PlotOptions, row: int, col: int, colspan: int = 2):
        self.bars = SideBars(layout, opts, row, col, colspan)
        self.rows: list[tuple[str, int, str]] = []

    def reserve(self, trace, opts: PlotOptions) -> None:
        """Room for the rows, labels and caption of every stage: a step or a jump then changes the bars, labels and
        caption, and no plot's size (the cost figure laid out anew took 10–15 ms of a step with every dock open)."""
        costs, lang = cost.stage_costs(trace), opts.lang
        heads = cost.per_head(trace, costs)
        stages_of: dict[str, list[str]] = {}
        for name in costs:
            stages_of.setdefault(cost.layer_of(trace, name), []).append(name)
        rows, labels, lines = 0, set(), 1
        for group, stages in stages_of.items():
            layer = group_label(trace, group, lang)
            for stage in stages:
                text = self._caption(trace, costs, heads, stage, layer, opts)
                lines = max(lines, len(caption_lines(text, opts)))
            # the rows at a stage with a matrix product; at one without, that stage's row besides
            doing = [name for name in stages if costs[name]["macs"] > 0]
            idle = [name for name in stages if costs[name]["macs"] == 0 and name != (doing or stages)[0]]
            content = self._content(trace, stage_rows(trace, costs, (doing or stages)[0]), opts)
            rows = max(rows, len(content[0]) + bool(doing and idle))
            labels.update(f"{name}: {value}" for name, value in zip(content[0], content[3]))
            labels.update(f"{_row_label(trace, name, 'this', lang)}: {_count(0)}" for name in idle)
        self.bars.reserve(rows, sorted(labels), lines)

    def update(self, trace, stage: str, opts: PlotOptions) -> None:
        costs = cost.stage_costs(trace)
        self.rows = stage_rows(trace, costs, stage)
        layer = group_label(trace, cost.layer_of(trace, stage), opts.lang)
        text = self._caption(trace, costs, cost.per_head(trace, costs), stage, layer, opts)
        self.bars.set(*self._content(trace, self.rows, opts), text, opts)

    @staticmethod
    def _content(trace, rows: list[tuple[str, int, str]], opts: PlotOptions) -> tuple[list, list, list, list]:
        """Each row's name, multiply-adds, colour and value written out."""
        values = [float(m) for _, m, _ in rows]
        return (
            [_row_label(trace, n, k, opts.lang) for n, _, k in rows],
            values,
            [StageMacsPanel.COLORS[k] for _, _, k in rows],
            [_count(m) for m in values],
        )

    @staticmethod
    def _caption(trace, costs, heads, stage: str, layer: str, opts: PlotOptions) -> str:
        """The panel's caption at `stage` (heads: cost.per_head's; layer: the stage's layer in words)."""
        this = costs[stage]
        one_head = (
            caption("per_head", opts.lang, macs=f"{heads[stage]['macs']:,}") if stage in heads and this["macs"] else ""
        )
        size = cost.format_bytes(this["bytes"])
        return caption("stage_macs", opts.lang, layer=layer, macs=f"{this['macs']:,}", per_head=one_head, size=size)

    def highlighted(self) -> str:
        """The stage whose row is in the current stage's colour."""
        return next(name for name, _, kind in self.rows if kind == "this")


class SharePanel:
    """Attention's share of the multiply-adds by the formulas, n = 8 … 8192, and this sentence's counted share."""

    def __init__(self, layout: pg.GraphicsLayout, opts: PlotOptions, row: int, col: int):
        self.plot = new_plot(layout, opts, row=row, col=col)
        _log_axes(self.plot, (8, 64, 512, 4096), (0.01, 0.1, 0.2, 0.5, 1.0), lambda y: f"{y:.0%}")
        _axis_labels(self.plot, opts, "tokens_n", "share_axis")
        self.curve = self.plot.plot(pen=pg.mkPen(color(0), width=2))
        self.point = self.plot.plot(**markers(opts), pen=None, symbol="o", symbolSize=12, symbolBrush=color(1))

    def update(self, trace, stage: str, opts: PlotOptions) -> None:
        rows = cost.share_curve(trace.config, cost.vocab_out(trace))
        self.curve.setData([r["n"] for r in rows], [max(r["share"], 1e-4) for r in rows])
        n = max(len(t) for t in trace.tokens.values())
        share = cost.counted_share(cost.stage_costs(trace), trace)
        self.point.setData([n], [max(share, 1e-4)])
        set_caption(self.plot, caption("share", opts.lang, n=n, share=f"{share:.1%}"), opts)


@cache
def measured(cfg) -> tuple[dict, ...]:
    """One attention's time at MEASURED_N, measured once per model config while the program runs."""
    return tuple(cost.measured_times(cfg, MEASURED_N))


class TimePanel:
    """One attention's wall time at a few n, measured on this machine, beside the n² the formula predicts."""

    def __init__(self, layout: pg.GraphicsLayout, opts: PlotOptions, row: int, col: int):
        self.plot = new_plot(layout, opts, row=row, col=col)
        _log_axes(self.plot, MEASURED_N, (0.001, 0.01, 0.1, 1, 10, 100), lambda y: f"{y:g}")
        _axis_labels(self.plot, opts, "tokens_n", "milliseconds")
        self.formula = self.plot.plot(pen=pg.mkPen(color(5), width=2, style=Qt.PenStyle.DashLine))
        self.measured = self.plot.plot(
            **markers(opts), pen=pg.mkPen(color(1), width=2), symbol="o", symbolBrush=color(1)
        )

    def update(self, trace, stage: str, opts: PlotOptions) -> None:
        rows = measured(trace.config)
        ns = np.array([r["n"] for r in rows], dtype=float)
        ms = np.array([max(r["seconds"], 1e-9) * 1e3 for r in rows])
        macs = np.array([r["formula_macs"] for r in rows], dtype=float)
        self.measured.setData(ns, ms)
        self.formula.setData(ns, macs * ms[-1] / macs[-1])  # ∝ n², through the largest measured point
        set_caption(self.plot, caption("measured_time", opts.lang, threads=torch.get_num_threads()), opts)


class MemoryPanel:
    """Memory of inference and of training with Adam, part by part and in all, from the actual tensors."""

    PARTS = ("weights", "gradients", "adam_moments", "activations", "largest_stage", "kv_cache")
    TRAINING, INFERENCE = color(4), color(0)
    COLORS = {
        "weights": LAYER_COLOR,
        "gradients": TRAINING,
        "adam_moments": TRAINING,
        "activations": TRAINING,
        "largest_stage": INFERENCE,
        "kv_cache": INFERENCE,
        "inference": INFERENCE,
        "training": TRAINING,
    }

    def __init__(self, layout: pg.GraphicsLayout, opts: PlotOptions, row: int, col: int):
        self.bars = SideBars(layout, opts, row, col)

    def update(self, trace, stage: str, opts: PlotOptions) -> None:
        mem = cost.memory(trace)
        keys = [*self.PARTS, "inference", "training"]
        values = [float(mem[k]) for k in keys]
        text = caption(
            "memory",
            opts.lang,
            ratio=f"{mem['adam_moments'] / mem['weights']:.1f}",
            adam=cost.format_bytes(mem["adam_moments"]),
            weights=cost.format_bytes(mem["weights"]),
        )
        self.bars.set(
            [caption(k, opts.lang) for k in keys],
            values,
            [self.COLORS[k] for k in keys],
            [cost.format_bytes(v) for v in values],
            text,
            opts,
        )


class KVPanel:
    """The KV cache's bytes after each token of the decoder's sentence: one more row of K and V per layer."""

    def __init__(self, layout: pg.GraphicsLayout, opts: PlotOptions, row: int, col: int):
        self.plot = new_plot(layout, opts, row=row, col=col)
        _axis_labels(self.plot, opts, "tokens_read", "bytes")
        self.curve = self.plot.plot(
            **markers(opts), pen=pg.mkPen(color(2), width=2), symbol="o", symbolSize=7, symbolBrush=color(2)
        )

    def update(self, trace, stage: str, opts: PlotOptions) -> None:
        kv = cost.kv_cache(trace)
        if not kv["per_token_bytes"]:
            self.curve.setData([], [])
            set_caption(self.plot, caption("no_kv_cache", opts.lang), opts)
            return
        tokens = np.arange(1, kv["tokens"] + 1, dtype=float)
        self.curve.setData(tokens, tokens * kv["per_token_bytes"])
        cfg = trace.config
        if cfg.kv_heads * cfg.d_k == cfg.d_model and cfg.kv_heads == cfg.n_heads:
            text = caption("kv_growth", opts.lang, per_token=kv["per_token_bytes"], layers=kv["layers"], d=cfg.d_model)
        else:  # grouped-query attention (or head_dim): K and V of n_kv_heads heads, d_k each
            text = caption(
                "kv_growth_heads",
                opts.lang,
                per_token=kv["per_token_bytes"],
                layers=kv["layers"],
                k=kv["kv_heads"],
                d_k=cfg.d_k,
                h=kv["n_heads"],
                saving=f"{kv['saving']:.0%}",
            )
        set_caption(self.plot, text, opts)


class CostFigure:
    """The cost view's panels in one layout; refresh() follows the trace and the current stage."""

    def __init__(self, layout: pg.GraphicsLayout, opts: PlotOptions, one_column: bool = False):
        """`one_column`: the five panels one under the other (a dock too narrow for two at a readable size)."""
        clear_layout(layout)
        self.title, top = slide_title(layout, opts, columns=2)
        # the per-stage chart across the top, then two to a row (or one)
        cells = (
            [(top + k, 0) for k in range(1, 5)]
            if one_column
            else [(top + 1, 0), (top + 1, 1), (top + 2, 0), (top + 2, 1)]
        )
        self.stages = StageMacsPanel(layout, opts, top, 0, 1 if one_column else 2)
        self.share, self.time = SharePanel(layout, opts, *cells[0]), TimePanel(layout, opts, *cells[1])
        self.memory, self.kv = MemoryPanel(layout, opts, *cells[2]), KVPanel(layout, opts, *cells[3])
        self.panels = [self.stages, self.share, self.time, self.memory, self.kv]
        self.drawn_for: tuple | None = None  # what the panels beside the per-stage one were drawn for

    def refresh(self, trace, stage: str, opts: PlotOptions) -> None:
        """Every panel for a new model, sentence or options; only the per-stage one for another stage, an edited
        weight or a what-if switch that leaves every stage's operation as it was (costs follow the operations
        and the shapes, not the numbers)."""
        # (not the head, row or temperature shown: no cost follows them, and a head chosen drew every panel anew)
        drawn_for = (operations_key(trace), trace_tokens(trace), replace(opts, head=0, row=0, temperature=1.0))
        if drawn_for != self.drawn_for and not opts.slide:  # (a slide shows one stage: no room kept for others)
            self.stages.reserve(trace, opts)
        for panel in self.panels if drawn_for != self.drawn_for else [self.stages]:
            panel.update(trace, stage, opts)
        self.drawn_for = drawn_for
        if self.title is not None:
            self.title.setText(
                figure_title(trace, stage, opts, caption("cost_title", opts.lang)), color=foreground(opts)
            )


def operations_key(trace) -> tuple:
    """What the costs follow: the model's structure and each stage's operation (not the numbers)."""
    operations = tuple(
        (name, None if trace.stage(name) is None else trace.stage(name).op) for name in trace.stage_names
    )
    return trace_structure(trace), operations


def draw_cost(layout: pg.GraphicsLayout, trace, stage: str, opts: PlotOptions) -> CostFigure:
    """Clear `layout` and draw what the model costs, at `stage` (how export draws the cost dock's figure)."""
    figure = CostFigure(layout, opts)
    figure.refresh(trace, stage, opts)
    return figure
