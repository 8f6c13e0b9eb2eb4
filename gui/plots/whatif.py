"""What each "what if" switch does, drawn from the engine's measures (engine/whatif.py):

- no_pe: the sentence and the sentence backwards side by side (狗 咬 人 / 人 咬 狗): without positions the
  outputs are the same rows, just reordered;
- no_scale: the largest softmax weight per row as d_k grows, with and without ÷√d_k;
- no_mask: a decoder's attention pattern with the future outlined, and how much weight goes there;
- no_residual, no_layernorm: the values' spread and how different the tokens are, layer by layer.

    figure = draw_whatif(layout, trace, "no_scale", PlotOptions(lang="zh"))   # a StageFigure
"""

from __future__ import annotations

import html
from functools import lru_cache

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QPen
from PySide6.QtWidgets import QGraphicsRectItem

from engine import ModelConfig, ops
from engine.config import SWITCHES
from engine.whatif import (
    DEPTH_SETTINGS,
    attention_weights,
    future_weight,
    layer_spread,
    max_weight_by_dk,
    mean_max_weight,
    reorder,
    spread_by_depth,
    token_spread,
    trace_sentences,
)

from .bars import Bars, add_legend
from .captions import caption, plain, sentences
from .figure import StageFigure
from .heatmap import Heatmap, axis_labels
from .matrix import head_of
from .scale import scale_of
from .style import PlotOptions, color, font, foreground, new_plot, set_caption
from .view import clear_layout

D_KS = [2, 4, 8, 16, 32, 64, 128, 256]
DEPTH = 6  # layers of the seeded models that show the spread growing or collapsing
SEEDS = 4  # seeded models averaged per point of the depth curves
SATURATION_SEEDS = 8  # … of the d_k curves (one-layer models: cheap)


def _small(cfg: ModelConfig) -> bool:
    return cfg.d_model <= 64


@lru_cache(maxsize=16)
def _saturation(cfg: ModelConfig, text: str) -> dict[str, list[float]]:
    d_ks = D_KS if _small(cfg) else D_KS[:5]
    return max_weight_by_dk(
        cfg.replace(enc_vocab=None, dec_vocab=None), text, d_ks, SATURATION_SEEDS if _small(cfg) else 1
    )


@lru_cache(maxsize=16)
def _depth(cfg: ModelConfig, text: str, target: str | None) -> dict[str, dict[str, list[float]]]:
    return spread_by_depth(cfg, text, target, DEPTH, SEEDS if _small(cfg) else 1)


class ReorderPanel:
    """Outputs of the sentence and of the sentence backwards, side by side on one colour scale."""

    def __init__(self, layout: pg.GraphicsLayout, trace, opts: PlotOptions, row: int):
        self.maps = [Heatmap(layout, opts, True, row, col, colorbar=False) for col in (0, 1)]  # one scale
        self.reordering = None
        self.note = ""

    def update(self, trace, opts: PlotOptions) -> None:
        r = self.reordering = reorder(trace)
        scale = scale_of(r.output.numpy(), r.reordered_output.numpy())  # one scale for both sides
        cols = [str(c) for c in range(r.output.shape[1])]
        for heatmap, tokens, out in zip(self.maps, (r.tokens, r.reordered_tokens), (r.output, r.reordered_output)):
            title = html.escape(" ".join(tokens), quote=False)  # plot titles are HTML; <start> is a token
            heatmap.set(out.numpy().astype(np.float64), tokens, cols, opts, title, scale=scale)
        stack = caption("encoder" if trace.stage(r.stage).place.stack == "enc" else "decoder", opts.lang)
        key = "reorder_same" if r.max_difference < 1e-4 else _why_reordering_changes(trace.config)
        self.note = sentences(
            opts.lang,
            plain("reorder", opts.lang, a=" ".join(r.tokens), b=" ".join(r.reordered_tokens), stack=stack),
            plain(key, opts.lang, diff="0" if r.max_difference < 5e-5 else f"{r.max_difference:.2g}"),
        )


def _why_reordering_changes(cfg: ModelConfig) -> str:
    """The caption that says why reordering the words changed the outputs: the positions, else (none) a decoder's
    causal mask."""
    if cfg.positional != "none" and "no_pe" not in cfg.switches:
        return "reorder_positions"
    return "reorder_mask"


class SaturationPanel:
    """Mean largest attention weight against d_k (log scale), with and without ÷√d_k, and this model."""

    def __init__(self, layout: pg.GraphicsLayout, trace, opts: PlotOptions, row: int):
        self.plot = new_plot(layout, opts, row, 0)
        self.plot.setLogMode(x=True, y=False)
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        legend = add_legend(self.plot, opts)
        width = 4 if opts.slide else 2
        self.curves = {
            key: self.plot.plot(
                pen=pg.mkPen(color(k), width=width),
                symbol="o",
                symbolBrush=color(k),
                symbolPen=None,
                name=caption(name, opts.lang),
            )
            for k, (key, name) in enumerate((("scaled", "with_scale"), ("unscaled", "without_scale")))
        }
        self.here = pg.ScatterPlotItem(size=16 if opts.slide else 12, brush=color(4), pen=pg.mkPen(foreground(opts)))
        self.plot.addItem(self.here)
        legend.addItem(self.here, caption("this_model", opts.lang))
        self.plot.setLabel("bottom", caption("d_k", opts.lang))
        self.plot.setLabel("left", caption("mean_max", opts.lang))
        self.note = ""

    def update(self, trace, opts: PlotOptions) -> None:
        cfg = trace.config
        text, _ = trace_sentences(trace)
        curves = _saturation(cfg, text)
        d_ks = D_KS[: len(curves["scaled"])]
        for key, curve in self.curves.items():
            curve.setData(d_ks, curves[key])
        self.plot.getAxis("bottom").setTicks([[(float(np.log10(d)), str(d)) for d in d_ks]])
        first = attention_weights(trace.stages)[0]
        value = mean_max_weight(trace[first.name])
        self.here.setData([np.log10(cfg.d_k)], [value])
        self.plot.setYRange(0, 1.05, padding=0)
        set_caption(self.plot, caption("saturation", opts.lang), opts)
        self.note = plain(
            "saturation_note",
            opts.lang,
            samples=SATURATION_SEEDS if _small(cfg) else 1,
            d_k=cfg.d_k,
            value=f"{value:.2f}",
            block=first.place.block,
        )


def _first_causal(trace) -> str | None:
    names = [
        st.name for st in attention_weights(trace.stages) if st.place.stack == "dec" and st.place.part == "self_attn"
    ]
    return names[0] if names else None


class FuturePanel:
    """A decoder self-attention's weights with the future cells outlined, and each row's weight on them."""

    def __init__(self, layout: pg.GraphicsLayout, trace, opts: PlotOptions, row: int):
        self.heatmap = Heatmap(layout, opts, False, row, 0)
        self.frames: list[QGraphicsRectItem] = []
        self.bars = Bars(layout, opts, row + 1, 0, [("", color(4))])
        layout.layout.setRowStretchFactor(row, 3)
        layout.layout.setRowStretchFactor(row + 1, 2)
        self.width = 4 if opts.slide else 3
        self.note = ""

    def update(self, trace, opts: PlotOptions) -> None:
        name = _first_causal(trace)
        weights = trace[name]  # [h, n, n]
        h = head_of(trace, opts)
        st = trace.stage(name)
        n = weights.shape[1]
        queries, keys = axis_labels(trace, st.rows, n), axis_labels(trace, st.cols, weights.shape[2])
        title = caption("future", opts.lang, head=caption("head", opts.lang, head=h))
        self.note = plain("future_note", opts.lang, block=st.place.block)
        self.heatmap.set(weights[h].numpy(), queries, keys, opts, title, levels=(0.0, 1.0))
        future = ops.causal_hidden(n, weights.shape[2])
        cells = [(i, j) for i in range(n) for j in range(weights.shape[2]) if future[i, j]]
        while len(self.frames) < len(cells):
            item = QGraphicsRectItem()
            pen = QPen(color(4), self.width)
            pen.setCosmetic(True)
            item.setPen(pen)
            item.setBrush(QBrush(Qt.BrushStyle.NoBrush))
            item.setZValue(10)
            self.heatmap.plot.addItem(item)
            self.frames.append(item)
        for k, item in enumerate(self.frames):
            item.setVisible(k < len(cells))
            if k < len(cells):
                i, j = cells[k]
                item.setRect(QRectF(j + 0.06, i + 0.06, 0.88, 0.88))
        share = future_weight(weights)[h].numpy()
        self.bars.set(queries, [share], opts, caption("future_share", opts.lang), probability=True)


class SpreadPanel:
    """Spread of the values and of the tokens per layer: seeded deep models (as built, no residual, no
    LayerNorm) as lines, this lesson's own layers as large dots."""

    def __init__(self, layout: pg.GraphicsLayout, trace, opts: PlotOptions, row: int):
        # one above the other: the dock beside the stage view is narrow and tall
        self.plots = {key: new_plot(layout, opts, row + k, 0) for k, key in enumerate(("values", "tokens"))}
        self.curves: dict[tuple[str, str], pg.PlotDataItem] = {}
        self.here: dict[str, pg.PlotDataItem] = {}
        self.legend = add_legend(self.plots["values"], opts)
        for key, plot in self.plots.items():
            plot.showGrid(x=True, y=True, alpha=0.25)
            for k, setting in enumerate(DEPTH_SETTINGS):
                self.curves[key, setting] = plot.plot(symbol="o", symbolSize=6, symbolBrush=color(k), symbolPen=None)
            self.here[key] = plot.plot(
                pen=None,
                symbol="s",
                symbolSize=14 if opts.slide else 11,
                symbolBrush=color(4),
                symbolPen=pg.mkPen(foreground(opts)),
            )
            plot.setLabel("bottom", caption("layer", opts.lang))
        for setting in DEPTH_SETTINGS:
            self.legend.addItem(self.curves["values", setting], caption(setting, opts.lang))
        self.legend.addItem(self.here["values"], caption("this_trace", opts.lang, n=trace.config.n_layers))
        self.note = ""

    def update(self, trace, opts: PlotOptions) -> None:
        cfg = trace.config
        text, target = trace_sentences(trace)
        depth = _depth(cfg, text, target)
        own = {"values": layer_spread(trace), "tokens": token_spread(trace)}
        for key, plot in self.plots.items():
            for k, setting in enumerate(DEPTH_SETTINGS):
                ys = depth[setting][key]
                width = (3 if setting in cfg.switches else 1.5) * (2 if opts.slide else 1)
                style = Qt.PenStyle.SolidLine if setting == "normal" else Qt.PenStyle.DashLine
                self.curves[key, setting].setData(list(range(len(ys))), ys)
                self.curves[key, setting].setPen(pg.mkPen(color(k), width=width, style=style))
            self.here[key].setData(list(range(len(own[key]))), own[key])
            set_caption(plot, caption("spread_values" if key == "values" else "spread_tokens", opts.lang), opts)
            plot.enableAutoRange()
        self.note = plain("spread_note", opts.lang, n=DEPTH, samples=SEEDS if _small(cfg) else 1, layers=cfg.n_layers)


class MessagePanel:
    """A line of text where a switch has nothing to show for this model."""

    def __init__(self, layout: pg.GraphicsLayout, text: str, opts: PlotOptions, row: int):
        self.label = pg.LabelItem(justify="center")
        self.label.item.setFont(font(opts, "caption"))
        layout.addItem(self.label, row=row, col=0)
        self.text = text
        self.note = ""

    def update(self, trace, opts: PlotOptions) -> None:
        self.label.setText(self.text, color=foreground(opts).name())


def whatif_build_key(trace, switch: str) -> tuple:
    """What draw_whatif's figure for `switch` is built from (beyond the numbers its refresh reads): a figure
    drawn for another trace with the same key is refreshed for this one, not built again."""
    return switch, _first_causal(trace) is None, trace.config.n_layers


def draw_whatif(layout: pg.GraphicsLayout, trace, switch: str, opts: PlotOptions) -> StageFigure:
    """Clear `layout` and draw what `switch` (one of SWITCHES) does for this trace's model and sentence."""
    if switch not in SWITCHES:
        raise KeyError(f"no what-if switch named {switch!r}")
    clear_layout(layout)
    if switch == "no_pe":
        panels = [ReorderPanel(layout, trace, opts, 0)]
    elif switch == "no_scale":
        panels = [SaturationPanel(layout, trace, opts, 0)]
    elif switch == "no_mask":
        if _first_causal(trace) is None:
            panels = [MessagePanel(layout, caption("no_decoder", opts.lang), opts, 0)]
        else:
            panels = [FuturePanel(layout, trace, opts, 0)]
    else:
        panels = [SpreadPanel(layout, trace, opts, 0)]
    figure = StageFigure(switch, panels, None)
    figure.refresh(trace, opts)
    return figure
