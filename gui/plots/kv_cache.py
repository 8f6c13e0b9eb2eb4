"""Generation plots: the distribution a token was chosen from, and the KV cache (the cached K and V rows of one
self-attention, the newest row outlined as the only one computed for the newest token) with the multiply-adds
per token with and without the cache."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
import torch
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QPen
from PySide6.QtWidgets import QGraphicsRectItem

from engine import teaching
from engine.generate import macs_by_position
from engine.kv_cache import trace_keys_values

from .bars import Bars
from .captions import caption
from .heatmap import Heatmap, format_cell
from .matrix import head_in, head_of
from .style import PlotOptions, color

TOP_CANDIDATES = 10


@dataclass(frozen=True)
class Choice:
    """How a generated token was chosen: the distribution (temperature and top-k applied) and the draw."""

    token: str
    token_id: int
    probs: torch.Tensor  # [vocab]
    greedy: bool
    seed: int  # the seed of this draw (seed + step), unused when greedy
    after: str  # the token it follows: the distribution is the output row of that position


class ChoicePanel:
    """The most likely next tokens as bars, the chosen one in its own colour."""

    def __init__(self, layout: pg.GraphicsLayout, opts: PlotOptions, row: int = 0, col: int = 0):
        self.bars = Bars(layout, opts, row, col, [("", color(0))])
        self.plot = self.bars.plot

    def set(self, tokens: list[str], choice: Choice, opts: PlotOptions, title: str) -> None:
        values, ids = teaching.top_k(choice.probs, TOP_CANDIDATES)
        ids = ids.tolist()
        if choice.token_id not in ids:  # a sampled token outside the top: show it last
            ids[-1] = choice.token_id
            values[-1] = choice.probs[choice.token_id]
        self.bars.set(
            [tokens[i] for i in ids],
            [values.numpy()],
            opts,
            title,
            probability=True,
            highlight=ids.index(choice.token_id),
            highlight_color=color(4),
        )


def choice_title(choice: Choice, lang: str, decimals: int = 2) -> str:
    how = caption("greedy", lang) if choice.greedy else caption("sampled", lang, seed=choice.seed)
    p = format_cell(float(choice.probs[choice.token_id]), decimals)
    return caption("chosen", lang, after=choice.after, token=choice.token, p=p, how=how)


def self_attentions(trace) -> list[str]:
    """The decoder's self-attentions whose K and V a cache keeps, e.g. ["dec.0.self_attn", …]."""
    return list(trace_keys_values(trace))


class CachePanel:
    """One self-attention's cached K and V rows for one head; the newest row outlined."""

    def __init__(self, layout: pg.GraphicsLayout, opts: PlotOptions, row: int):
        self.maps = [Heatmap(layout, opts, None, row, col) for col in (0, 1)]
        self.new_rows = []
        for heatmap in self.maps:
            item = QGraphicsRectItem()
            pen = QPen(color(4), 4)
            pen.setCosmetic(True)
            item.setPen(pen)
            item.setBrush(QBrush(Qt.BrushStyle.NoBrush))
            item.setZValue(10)
            heatmap.plot.addItem(item)
            self.new_rows.append(item)
        self.rows = 0

    def update(self, trace, attention: str, opts: PlotOptions) -> None:
        k, v = trace_keys_values(trace)[attention]  # [h_kv, rows, d_k]: n_kv_heads with grouped-query attention
        h = head_in(trace, k.shape[0], head_of(trace, opts))  # the K/V head the shown query head reads
        tokens = list(trace.tokens["dec"])
        self.rows = k.shape[1]
        head = caption("head", opts.lang, head=h)
        for heatmap, frame, key, value in zip(self.maps, self.new_rows, ("cache_k", "cache_v"), (k, v)):
            m = value[h].numpy().astype(np.float64)
            cols = [str(c) for c in range(m.shape[1])]
            heatmap.set(m, tokens, cols, opts, caption(key, opts.lang, head=head))
            frame.setRect(QRectF(0, self.rows - 1, m.shape[1], 1))


class MacsPanel:
    """Multiply-adds of the matrix products for each decoder token: with the cache (the new row only) and
    recomputing the whole sentence so far."""

    def __init__(self, layout: pg.GraphicsLayout, opts: PlotOptions, row: int):
        series = [(caption("with_cache", opts.lang), color(2)), (caption("without_cache", opts.lang), color(5))]
        self.bars = Bars(layout, opts, row, 0, series, colspan=2)
        self.counts: list[tuple[int, int]] = []

    def update(self, trace, opts: PlotOptions) -> None:
        cfg = trace.config
        n_src = len(trace.tokens.get("enc", []))
        n = len(trace.tokens["dec"])
        self.counts = macs_by_position(cfg, n_src, n, len(trace.model.vocabs["dec"]))
        cached, full = (np.array(c, dtype=float) for c in zip(*self.counts))
        self.bars.set(list(trace.tokens["dec"]), [cached, full], opts, caption("macs", opts.lang), show_values=False)
