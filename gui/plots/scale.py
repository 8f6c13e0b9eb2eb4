"""Colour scales, shared by the plots and the tables so that one number has one colour on the screen: a
sequential map for values that are never negative (probabilities, variance, ReLU outputs), a diverging map
centred on 0 for signed ones, and one scale for every panel of one equation (E + PE = X).

    scale = scale_for(op, matrix)                 # by the operation's colour kind, and for signed ones the data
    scale = scale_of(matrix)                      # by the data: any value below 0 → diverging, ±max|x|
    scale = scale_of(e, pe, x)                    # one scale for the three panels of X = E + PE
    scale = shared_scale(trace, stage, head)      # the scale of the tensors one stage's equation shows together
    colors = color_table("default", scale.signed) # 256 QColors of the same pyqtgraph ColorMap the plots use
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor

from gui.text.operations import (
    IDS,
    NON_NEGATIVE,
    PARTS_AND_SUM,
    PROBABILITY,
    TILE_AND_REFERENCE,
    X_AND_MEAN,
    X_AND_OUTPUT,
    colour_kind,
    operation,
)

from .style import colormap_named

COLOR_STEPS = 256  # colours of a table's lookup


@dataclass(frozen=True)
class Scale:
    signed: bool  # diverging map centred on 0, else sequential from lo
    lo: float
    hi: float


def scale_of(*arrays, signed: bool | None = None, probability: bool = False) -> Scale:
    """One scale for all `arrays`: 0 … 1 for probabilities; else ±max|x| when signed (None: when any value is
    below 0, or all are 0 — a zero bias is drawn neutral, not as the darkest end of a sequential map),
    0 … max otherwise."""
    if probability:
        return Scale(False, 0.0, 1.0)
    parts = [np.ravel(np.asarray(a, dtype=np.float64)) for a in arrays]
    values = parts[0] if len(parts) == 1 else np.concatenate(parts + [np.zeros(0)])
    finite = np.isfinite(values)
    if not finite.all():
        values = values[finite]
    top = float(np.abs(values).max()) if values.size else 0.0
    if signed is None:
        signed = bool(values.size and values.min() < 0) or top == 0
    top = top or 1.0
    return Scale(True, -top, top) if signed else Scale(False, 0.0, top)


def scale_for(op: str, *arrays) -> Scale:
    """The scale of an operation's numbers by its colour-map kind (gui/text/operations.py): 0 … 1 for
    probabilities, sequential for the non-negative ones, and for signed ones diverging unless none of the
    numbers shown is below 0 (all-positive scores on a diverging map look like half a scale)."""
    kind = colour_kind(op)
    if kind == PROBABILITY:
        return scale_of(probability=True)
    return scale_of(*arrays, signed=False if kind in (NON_NEGATIVE, IDS) else None)


SCORE_TILES = ("attn.tiled.scores", "attn.tiled.m")  # tile steps whose numbers are scores (a tile, its row maxima)


def shared_scale_names(trace, stage: str) -> tuple[str, ...]:
    """The tensors shown on one colour scale at `stage`, the one whose colour bar is drawn last: the parts and the
    sum of A + B = C; x and its mean μ in LayerNorm's steps (μ = 1.4 was as yellow as x's 3.6, each on its own
    scale); scores and scaled (32 and 4 were both yellow: the shrink by √d_k invisible), scaled and masked; in
    tiled attention the full masked scores, the tile's scores and its maxima m before and after (m = 1.17 yellow in
    one table, 1.47 dark blue in the next); else none. The operation's entry says which (gui/text/operations.py,
    shares_scale)."""
    st = trace.stage(stage)
    if st is None:
        return ()
    shares = operation(st.op).shares_scale
    if shares == PARTS_AND_SUM and len(st.inputs) >= 2:
        return (*st.inputs, stage)
    if shares == X_AND_OUTPUT:
        return (st.inputs[0], stage)
    if shares == X_AND_MEAN:
        return st.inputs[:2]
    if shares == TILE_AND_REFERENCE:
        scores = [name for name in (*st.inputs, stage) if _op(trace, name) in SCORE_TILES]
        return (trace.attention_of(stage).masked.name, *scores)
    return ()


def _op(trace, name: str) -> str | None:
    st = trace.stage(name)
    return st.op if st is not None else None


def shared_scale(trace, stage: str, head: int | None) -> Scale | None:
    """The one colour scale of the tensors shared_scale_names names at `stage` (None where it names none), for the
    plots and the tables alike: over the shown head of per-head tensors [h, n, m], by the colour kind of the last
    of them (x and μ are signed where σ² is not)."""
    names = shared_scale_names(trace, stage)
    if not names:
        return None
    values = [trace[name] for name in names]
    values = [v[head] if head is not None and v.dim() == 3 else v for v in values]
    return scale_for(_op(trace, names[-1]), *(v.detach().numpy() for v in values))


@cache
def color_table(name: str, signed: bool) -> tuple[QColor, ...]:
    """The map `name` ("default", "cb-safe") as COLOR_STEPS colours, for painting table cells quickly."""
    rgb = colormap_named(name, signed).getLookupTable(nPts=COLOR_STEPS, mode=pg.ColorMap.BYTE)
    return tuple(QColor(int(r), int(g), int(b)) for r, g, b in rgb[:, :3])


@cache
def dark_table(name: str, signed: bool) -> tuple[bool, ...]:
    """For each colour of color_table: whether a number on it is written in white."""
    return tuple(bool(d) for d in is_dark([[c.red(), c.green(), c.blue()] for c in color_table(name, signed)]))


def is_dark(colors: np.ndarray) -> np.ndarray:
    """[n, 3] bytes → whether white text reads better than black on each colour."""
    return np.asarray(colors, dtype=np.float64)[:, :3] @ np.array([0.299, 0.587, 0.114]) <= 140
