"""A stage's (or parameter's) matrix as a heatmap panel; per-head stages show the selected head."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from engine.training.backward import forward_of, is_backward
from gui.text.operations import IDS, colour_kind, matrix_caption, place_of, stage_op, stage_operation

from .captions import caption
from .heatmap import Heatmap, axis_labels
from .predicts import row_labels
from .scale import scale_for, shared_scale, shared_scale_names
from .style import PLAIN_COLOR, PlotOptions

PLAIN = pg.ColorMap([0.0, 1.0], [PLAIN_COLOR, PLAIN_COLOR])  # ids are names, not amounts: no colour


def stage_caption(trace, name: str, opts: PlotOptions) -> str:
    """The stage's plain name in the figure's language, with the head for per-head stages."""
    if is_backward(name):
        return "∂L/∂ " + stage_caption(trace, forward_of(name), opts)
    text = matrix_caption(stage_op(trace, name), opts.lang) or name
    if is_per_head(trace, name):
        text += " · " + caption("head", opts.lang, head=head_in(trace, trace[name].shape[0], head_of(trace, opts)))
    return text


def is_per_head(trace, name: str) -> bool:
    """A forward stage with one matrix per head (a gradient of one is shown whole)."""
    return stage_operation(trace, name).per_head


def head_of(trace, opts: PlotOptions) -> int:
    return max(0, min(opts.head, trace.config.n_heads - 1))


def head_in(trace, heads: int, head: int) -> int:
    """Which of a tensor's `heads` heads query head `head` reads: itself, or with grouped-query attention (K and V
    of n_kv_heads heads) the K/V head it shares."""
    return head if heads == trace.config.n_heads else trace.config.kv_head_of(head)


def row_of(n: int, opts: PlotOptions) -> int:
    return max(0, min(opts.row, n - 1))


def stage_matrix(trace, name: str, opts: PlotOptions) -> tuple[np.ndarray, list[str], list[str]]:
    """(matrix [r, c], row labels, column labels) of a stage as the figure shows it."""
    st = trace.stage(name)
    value = trace[name]
    if st is None:  # token ids [n]: one column
        stack = place_of(trace, name).stack
        return value.numpy()[:, None].astype(np.float64), list(trace.tokens[stack]), [caption("id", opts.lang)]
    if value.dim() == 3:
        value = value[head_in(trace, value.shape[0], head_of(trace, opts))]
    m = value.detach().numpy().astype(np.float64)
    rows = row_labels(trace, name, axis_labels(trace, st.rows, m.shape[0]))
    entry = stage_operation(trace, name)
    if entry.columns == "letter":  # one column, named as in the formula (μ, σ², ℓ, L)
        return m, rows, [entry.letter]
    return m, rows, axis_labels(trace, st.cols, m.shape[1])


class MatrixPanel:
    """Heatmap of one stage; `select_row` outlines the selected query/token row. `scale_at`: the stage whose shared
    colour scale it is drawn on where that scale includes it (gui/plots/scale.py, shared_scale: the parts and sum of
    A + B = C, scores and scaled…); only the last tensor of that scale draws the colour bar."""

    def __init__(
        self,
        layout: pg.GraphicsLayout,
        trace,
        name: str,
        opts: PlotOptions,
        row: int,
        col: int,
        select_row: bool = False,
        colspan: int = 1,
        label: str | None = None,
        scale_at: str | None = None,
    ):
        self.name, self.select_row, self.label = name, select_row, label  # label: a caption key to use instead
        group = shared_scale_names(trace, scale_at) if scale_at else ()
        self.scale_at = scale_at if name in group else None
        ids = colour_kind(stage_op(trace, name)) == IDS  # token ids: a labelled table, not a heatmap
        colorbar = not ids and (self.scale_at is None or name == group[-1])
        self.heatmap = Heatmap(
            layout, opts, None, row, col, cmap=PLAIN if ids else None, colspan=colspan, colorbar=colorbar
        )

    def update(self, trace, opts: PlotOptions) -> None:
        m, rows, cols = stage_matrix(trace, self.name, opts)
        selected = row_of(m.shape[0], opts) if self.select_row else None
        op = stage_op(trace, self.name)
        text = stage_caption(trace, self.name, opts)
        if self.label:  # its part in a sum: "+ sublayer output: Attention output"
            text = caption("part_of_sum", opts.lang, part=caption(self.label, opts.lang), what=text)
        if colour_kind(op) == IDS:
            ids = [str(int(v)) for v in m.ravel()]
            self.heatmap.set(m, rows, cols, opts, text, selected, (0.0, 1.0), cell_text=ids)
            return
        shared = self.scale_at and shared_scale(trace, self.scale_at, head_of(trace, opts))
        self.heatmap.set(m, rows, cols, opts, text, selected, scale=shared or scale_for(op, m))
