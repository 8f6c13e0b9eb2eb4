"""Next-token probabilities: the top-k bars of the selected position at the chosen temperature."""

from __future__ import annotations

import pyqtgraph as pg

from engine import teaching

from .bars import Bars
from .captions import caption
from .heatmap import axis_labels
from .matrix import row_of
from .style import PlotOptions, color

TOP_K = 8


class TopKPanel:
    def __init__(self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int, col: int):
        self.bars = Bars(layout, opts, row, col, [("", color(2))])

    def update(self, trace, opts: PlotOptions) -> None:
        logits = trace["logits"]  # [n, vocab]
        st = trace.stage("logits")
        r = row_of(logits.shape[0], opts)
        probs = teaching.softmax_with_temperature(logits[r], opts.temperature)
        values, ids = teaching.top_k(probs, TOP_K)
        vocab = axis_labels(trace, st.cols, logits.shape[1])
        token = axis_labels(trace, st.rows, logits.shape[0])[r]
        text = caption("top_k", opts.lang, k=len(ids), token=token, temperature=f"{opts.temperature:g}")
        self.bars.set([vocab[i] for i in ids.tolist()], [values.numpy()], opts, text, probability=True)
