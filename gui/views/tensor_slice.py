"""Which 2-D part of a tensor a matrix table shows (a TensorSlice): one head of a per-head tensor [h, n, d_k], a
head's columns of W_Q, or a bias [d] shown as one row; the slice a stage shows of each tensor it uses (slice_for),
and the slice's row and column labels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from PySide6.QtCore import QCoreApplication

from engine.training.backward import LABELS, forward_of
from gui.plots.matrix import head_in
from gui.plots.predicts import row_labels
from gui.text.formulas import letter
from gui.text.operations import HEAD_PRODUCT, operation, stage_operation, token_stack

ALL = slice(None)


@dataclass(frozen=True)
class TensorSlice:
    """Which 2-D part of a tensor a table shows."""

    name: str
    dim: int  # the tensor's number of dimensions (1, 2 or 3)
    head: int | None = None  # for [h, n, d_k] tensors: the head shown
    col_start: int = 0  # a head's columns of W_Q / b_Q …: [col_start, col_stop)
    col_stop: int | None = None

    def full_index(self, r: int, c: int) -> tuple[int, ...]:
        c += self.col_start
        return {1: (c,), 2: (r, c), 3: (self.head, r, c)}[self.dim]

    def slice2d(self, t: torch.Tensor) -> torch.Tensor:
        if self.dim == 3:
            t = t[self.head]
        elif self.dim == 1:
            t = t[None, :]
        return t[:, self.col_start : self.col_stop]

    def locate(self, selector: tuple) -> tuple[int | slice, int | slice] | None:
        """A provenance selector over the full tensor → (rows, columns) of this slice; None if not shown."""
        sel = tuple(selector)
        if self.dim == 3:
            if isinstance(sel[0], int) and sel[0] != self.head:
                return None
            sel = sel[1:]
        elif self.dim == 1:
            sel = (ALL,) + sel
        rows, cols = sel
        if isinstance(cols, int):
            stop = self.col_stop if self.col_stop is not None else math.inf
            if not self.col_start <= cols < stop:
                return None
            cols -= self.col_start
        elif self.col_start and cols != ALL:
            shift = self.col_start
            cols = slice(
                None if cols.start is None else cols.start - shift,
                None if cols.stop is None else cols.stop - shift,
                cols.step,
            )
        return rows, cols


def slice_for(trace, name: str, stage_name: str, head: int) -> TensorSlice:
    """How a tensor used by a stage is shown: one head of a per-head tensor, a head's columns of W_Q …"""
    dim = trace[name].dim()
    if dim == 3:
        return TensorSlice(name, 3, head=head_in(trace, trace[name].shape[0], head))
    if stage_operation(trace, stage_name).inputs == HEAD_PRODUCT and name in trace.params:
        d_k = trace.config.d_k
        head = head_in(trace, trace[stage_name].shape[0], head)  # W_K, W_V of grouped-query attention
        return TensorSlice(name, dim, col_start=head * d_k, col_stop=(head + 1) * d_k)
    return TensorSlice(name, dim)


def hits(sel: int | slice, i: int) -> bool:
    """Whether a row or column selector (an index or a slice) takes index `i`."""
    if isinstance(sel, int):
        return sel == i
    start, step = sel.start or 0, sel.step or 1  # a step: RoPE's rotate-half pair (i, i + r/2)
    return i >= start and (sel.stop is None or i < sel.stop) and (i - start) % step == 0


def axis_labels(trace, part: TensorSlice) -> tuple[list[str], list[str]]:
    """Row and column labels: tokens where rows or columns are tokens, else feature numbers."""
    name, tokens = part.name, trace.tokens
    n_rows, n_cols = part.slice2d(trace[name]).shape
    features = [str(part.col_start + c) for c in range(n_cols)]
    stage = trace.stage(name)
    if token_stack(trace, name) is not None:
        return [QCoreApplication.translate("TensorSlice", "id")], list(tokens[token_stack(trace, name)])
    if name == LABELS:  # the id each row should predict, its row named "我 → 爱" (that id's word)
        words = trace.model.vocabs["dec"].tokens
        ids = trace[name][:, 0].tolist()
        return [f"{token} → {words[int(i)]}" for token, i in zip(tokens["dec"], ids)], ["y"]
    if stage is not None and stage.tile is not None:  # a tile: its block of query rows (and its keys, for S)
        words = tokens[stage.place.stack]
        (r0, r1), (c0, c1) = stage.tile.rows, stage.tile.cols
        entry = operation(stage.op)
        keys = stage.op.endswith(".scores") and n_cols == c1 - c0
        cols = list(words[c0:c1]) if keys else [entry.letter] if entry.columns == "letter" else features
        return list(words[r0:r1]), cols
    if stage is not None:
        rows = list(tokens[stage.rows]) if stage.rows in tokens else [str(r) for r in range(n_rows)]
        rows = row_labels(trace, name, rows)  # cross-attention: "<start> → 我"
        if stage.cols == "vocab":
            cols = list(trace.model.vocabs["dec"].tokens)
        elif stage.cols in tokens:
            cols = list(tokens[stage.cols])
        else:  # one column named by the stage's letter (μ, σ², ℓ, L), or feature numbers
            entry = operation(stage.op)
            cols = [entry.letter] if entry.columns == "letter" else features
        return rows, cols
    name = forward_of(name)  # a parameter's gradient is labelled as the parameter
    leaf = name.rsplit(".", 1)[1]
    vocab_cols = list(trace.model.vocabs["dec"].tokens) if leaf in ("W_U", "b_U") else features
    if part.dim == 1:
        return [letter(trace, name)], vocab_cols  # b_Q, b1, γ, β as the formula calls it
    if leaf == "W_E":  # an embedding table's rows are the words of the stack whose embed stage reads it
        stack = next(st.place.stack for st in trace.stages if name in st.inputs)
        return list(trace.model.vocabs[stack].tokens), features
    return [str(r) for r in range(n_rows)], vocab_cols
