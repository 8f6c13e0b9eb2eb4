"""Where a number comes from: the input cells one output cell of a stage was computed from.

`sources(trace, name, index)` answers with a selector per input (stage or parameter name), a tuple of
ints and `ALL` slices over that input's full shape, e.g. for a score

    sources(trace, "enc.0.attn.scores", (h, i, j)) == {"enc.0.attn.q": (h, i, ALL), "enc.0.attn.k": (h, j, ALL)}

It is one step back through the graph: the direct inputs of the stage, never further. Each operation's record
(engine/graph.py, RECORDS) names its rule among the functions here.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .graph import Stage
    from .trace import Trace

ALL = slice(None)
Selector = tuple  # of int | slice, one entry per dimension of the input
Sources = dict[str, Selector]


def embed_row(st: Stage, trace: Trace, i: int, c: int) -> Sources:
    W_E, tokens = st.inputs
    return {W_E: (int(trace[tokens][i]), c), tokens: (i,)}


def positions(st: Stage, trace: Trace, i: int, c: int) -> Sources:
    """Sinusoidal (or no) positions depend on the position only; learned ones are rows of W_pos."""
    learned = [name for name in st.inputs if name.endswith(".W_pos")]
    return {learned[0]: (i, c)} if learned else {}


def token_type(st: Stage, trace: Trace, i: int, c: int) -> Sources:
    """One sentence: every token is of type 0, so each row is row 0 of W_T."""
    W_T, _tokens = st.inputs
    return {W_T: (0, c)}


def elementwise(st: Stage, trace: Trace, *index: int) -> Sources:
    """Sums, activations, scaling, and any step a "what if" switch turned into the identity."""
    return {name: index for name in st.inputs}


def rotated_pair(st: Stage, trace: Trace, h: int, i: int, c: int) -> Sources:
    """RoPE turns each pair of a row: an output cell comes from both cells of its pair, (2k, 2k+1) interleaved
    or (k, k + r/2) in the rotate-half layout; a dimension past rotary_dim (r) is not turned."""
    (x,) = st.inputs
    cfg = trace.config
    r = cfg.rotated
    if "no_pe" in cfg.switches or c >= r:
        return {x: (h, i, c)}
    if cfg.rope_pairs == "half":
        first = c % (r // 2)
        return {x: (h, i, slice(first, r, r // 2))}  # dimensions first and first + r/2
    first = c - c % 2
    return {x: (h, i, slice(first, first + 2))}


def projection(st: Stage, trace: Trace, h: int, i: int, c: int) -> Sources:
    """q/k/v[h, i, c] = x[i, :] · W[:, col] + b[col], with col = h·d_k + c (no b in a layer without bias)."""
    x, W, *b = st.inputs
    col = h * trace.config.d_k + c
    return {x: (i, ALL), W: (ALL, col)} | {bias: (col,) for bias in b}


def head_rms_norm(st: Stage, trace: Trace, h: int, i: int, c: int) -> Sources:
    """QK-norm: out[h, i, c] = γ[c] · x[h, i, c] / √(mean(x[h, i, :]²) + eps): the head's whole row and γ[c]."""
    x, gamma = st.inputs
    return {x: (h, i, ALL), gamma: (c,)}


def shared_head(st: Stage, trace: Trace, h: int, i: int, c: int) -> Sources:
    """Grouped-query attention: query head h reads K/V head h // (n_heads / n_kv_heads), cell for cell."""
    (x,) = st.inputs
    return {x: (trace.config.kv_head_of(h), i, c)}


def dot_product(st: Stage, trace: Trace, h: int, i: int, j: int) -> Sources:
    """scores[h, i, j] = q[h, i, :] · k[h, j, :]."""
    q, k = st.inputs
    return {q: (h, i, ALL), k: (h, j, ALL)}


def masked(st: Stage, trace: Trace, h: int, i: int, j: int) -> Sources:
    """A hidden cell is −∞ whatever the score was; a visible one is the scaled score itself."""
    (scaled,) = st.inputs
    out, before = float(trace[st.name][h, i, j]), float(trace[scaled][h, i, j])
    if math.isinf(out) and out < 0 and not (math.isinf(before) and before < 0):
        return {}
    return {scaled: (h, i, j)}


def whole_row(st: Stage, trace: Trace, *index: int) -> Sources:
    """softmax over the last axis: a cell depends on its whole row."""
    (x,) = st.inputs
    return {x: index[:-1] + (ALL,)}


def weighted_sum(st: Stage, trace: Trace, h: int, i: int, c: int) -> Sources:
    """z[h, i, c] = weights[h, i, :] · v[h, :, c]."""
    weights, v = st.inputs
    return {weights: (h, i, ALL), v: (h, ALL, c)}


def concat(st: Stage, trace: Trace, i: int, c: int) -> Sources:
    """concat[i, c] = z[c // d_k, i, c % d_k]: heads side by side."""
    (z,) = st.inputs
    d_k = trace.config.d_k
    return {z: (c // d_k, i, c % d_k)}


def linear(st: Stage, trace: Trace, i: int, c: int) -> Sources:
    """out[i, c] = x[i, :] · W[:, c] + b[c] (no b in a layer without bias)."""
    x, W, *b = st.inputs
    return {x: (i, ALL), W: (ALL, c)} | {bias: (c,) for bias in b}


def output_head(st: Stage, trace: Trace, i: int, c: int) -> Sources:
    """logits[i, c] = x[i, :] · W_U[:, c] + b[c]; tied to the embeddings, x[i, :] · W_E[c, :] + b[c]."""
    if not trace.config.tied_embeddings:
        return linear(st, trace, i, c)
    x, W_E, *b = st.inputs
    return {x: (i, ALL), W_E: (c, ALL)} | {bias: (c,) for bias in b}


def row_of_x(st: Stage, trace: Trace, i: int, _c: int) -> Sources:
    (x,) = st.inputs
    return {x: (i, ALL)}


def variance(st: Stage, trace: Trace, i: int, _c: int) -> Sources:
    x, mu = st.inputs
    return {x: (i, ALL), mu: (i, 0)}


def normalised(st: Stage, trace: Trace, i: int, c: int) -> Sources:
    """hat[i, c] = (x[i, c] − mean[i]) / √(var[i] + eps)."""
    x, mu, var = st.inputs
    return {x: (i, c), mu: (i, 0), var: (i, 0)}


def rms_normalised(st: Stage, trace: Trace, i: int, c: int) -> Sources:
    """RMSNorm's hat[i, c] = x[i, c] / √(ms[i] + eps)."""
    x, ms = st.inputs
    return {x: (i, c), ms: (i, 0)}


def affine(st: Stage, trace: Trace, i: int, c: int) -> Sources:
    """out[i, c] = gamma[c] · hat[i, c] + beta[c] (RMSNorm: no beta; with the norm switched off: out = x)."""
    if len(st.inputs) == 1:
        return elementwise(st, trace, i, c)
    hat, gamma, *beta = st.inputs
    return {hat: (i, c), gamma: (c,)} | {b: (c,) for b in beta}


# ---- tiled attention (engine/tiled.py) --------------------------------------------------------------------


def tile_scores(st: Stage, trace: Trace, h: int, i: int, j: int) -> Sources:
    """S[h, i, j] = q[h, r0 + i, :] · k[h, c0 + j, :] (scaled); a hidden cell is −∞ whatever they are."""
    q, k = st.inputs
    if float(trace[st.name][h, i, j]) == float("-inf"):
        return {}
    return {q: (h, st.tile.rows[0] + i, ALL), k: (h, st.tile.cols[0] + j, ALL)}


def tile_max(st: Stage, trace: Trace, h: int, i: int, c: int) -> Sources:
    """m of query row i: its row of the tile's scores, and after the first tile the row's m_old."""
    s, *m_old = st.inputs  # (S,) or (S, m_old)
    return {s: (h, i, ALL)} | {m: (h, i, 0) for m in m_old}


def tile_sum(st: Stage, trace: Trace, h: int, i: int, c: int) -> Sources:
    """ℓ of query row i: its row of the tile's scores and the row's m (after the first tile also m_old and ℓ_old)."""
    s, *running = st.inputs  # (S, m) or (S, m_old, m, ℓ_old)
    return {s: (h, i, ALL)} | {name: (h, i, 0) for name in running}


def tile_out(st: Stage, trace: Trace, h: int, i: int, c: int) -> Sources:
    """o[h, i, c]: row i of the tile's scores, the row's m (after the first tile also m_old and o_old[h, i, c]),
    and column c of the tile's value rows."""
    s, *running, v = st.inputs  # (S, m, V) or (S, m_old, m, o_old, V)
    out = {s: (h, i, ALL)} | {m: (h, i, 0) for m in running[:2]}
    if len(running) == 3:
        out[running[2]] = (h, i, c)
    out[v] = (h, slice(*st.tile.cols), c)
    return out


def tiled_z(st: Stage, trace: Trace, h: int, i: int, c: int) -> Sources:
    """z[h, i, c] = o[h, i − r0, c] / ℓ[h, i − r0] of the row block holding query i."""
    for o, l_ in zip(st.inputs[0::2], st.inputs[1::2]):
        r0, r1 = trace.stage(o).tile.rows
        if r0 <= i < r1:
            return {o: (h, i - r0, c), l_: (h, i - r0, 0)}
    return {}


def nothing(st: Stage, trace: Trace, *index: int) -> Sources:
    """A skipped tile of tiled attention: no inputs, only the tile's mask."""
    return {}


def sources(trace: Trace, name: str, index: tuple[int, ...]) -> Sources:
    """The input cells that output cell `index` of stage `name` was computed from ({} for token inputs)."""
    st = trace.stage(name)
    if st is None:
        return {}
    index = tuple(int(i) for i in index)
    shape = tuple(trace[name].shape)
    if len(index) != len(shape) or any(not 0 <= i < n for i, n in zip(index, shape)):
        return {}
    if name in trace.overrides:
        return {}  # a pinned stage was typed in by hand, not computed
    return st.record.sources(st, trace, *index)
