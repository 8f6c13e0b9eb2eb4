"""Next-token probabilities: the top-k bars of the selected position at the chosen temperature."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor

from engine import teaching

from .bars import Bars
from .captions import caption
from .heatmap import axis_labels
from .matrix import row_of
from .style import PlotOptions, color

REST_COLOR = QColor(160, 160, 160)  # the bar of the words not named

TOP_K = 8
LARGE_VOCABULARY = 16  # words: more than this and the whole row is no heatmap (48 names 4 px high), only the bars


def large_vocabulary(trace) -> bool:
    """Whether the output vocabulary is too large to name every word: then only the top-k bars are drawn."""
    return trace["logits"].shape[-1] > LARGE_VOCABULARY


class TopKPanel:
    """The top-k next tokens as named bars, and where the vocabulary has more words, one grey bar for the rest (their
    summed probability): at most k words are named, whatever the vocabulary's size."""

    def __init__(
        self, layout: pg.GraphicsLayout, trace, name: str, opts: PlotOptions, row: int, col: int, colspan: int = 1
    ):
        self.bars = Bars(layout, opts, row, col, [("", color(2))], colspan=colspan)

    def update(self, trace, opts: PlotOptions) -> None:
        logits = trace["logits"]  # [n, vocab]
        st = trace.stage("logits")
        r = row_of(logits.shape[0], opts)
        probs = teaching.softmax_with_temperature(logits[r], opts.temperature)
        values, ids = teaching.top_k(probs, TOP_K)
        vocab = axis_labels(trace, st.cols, logits.shape[1])
        token = axis_labels(trace, st.rows, logits.shape[0])[r]
        text = caption("top_k", opts.lang, k=len(ids), token=token, temperature=f"{opts.temperature:g}")
        names, heights = [vocab[i] for i in ids.tolist()], values.numpy()
        rest = len(vocab) - len(names)
        if rest > 0:  # the other words, summed
            names.append(caption("other_words", opts.lang, n=rest))
            heights = np.append(heights, max(0.0, 1.0 - float(heights.sum())))
        others = len(names) - 1 if rest > 0 else None
        self.bars.set(names, [heights], opts, text, probability=True, highlight=others, highlight_color=REST_COLOR)
