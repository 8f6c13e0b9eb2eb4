"""Tiled attention, the FlashAttention way: the same output as softmax(Q·Kᵀ/√d_k)·V without the n × n matrix.

Q is split into row blocks of BLOCK_Q queries, K and V into column blocks of BLOCK_K keys. Each row block
walks its column blocks left to right, holding only a tile of scores and three running quantities per query:

    S    = Q_I · K_Jᵀ / √d_k  (masked)                          the tile's scores [h, BLOCK_Q, BLOCK_K]
    m    = max(m_old, rowmax(S))                                 the running row maximum [h, BLOCK_Q, 1]
    ℓ    = ℓ_old · e^(m_old − m) + Σ_j e^(S − m)                 the running softmax denominator [h, BLOCK_Q, 1]
    o    = o_old · e^(m_old − m) + e^(S − m) · V_J               the running, unnormalised output [h, BLOCK_Q, d_k]

and after its last tile the output rows are o / ℓ. Under a causal mask a tile whose keys are all after its
queries is skipped: its stage holds the tile's mask (1 = hidden) and nothing is computed.

Stage names (p is the attention, e.g. "dec.0.self_attn"; I, J count row and column blocks from 0):

    p.tiled.r{I}c{J}.scores   .m   .l   .o      one computed tile
    p.tiled.r{I}c{J}.skipped                    a tile wholly in the masked future [BLOCK_Q, BLOCK_K]
    p.tiled.z                                   o / ℓ of every row block [h, n_q, d_k]; equals p.z

They are added right after p.z when the config asks for them (ModelConfig.tiled = (BLOCK_Q, BLOCK_K)).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import torch

from . import cost, ops, provenance
from .errors import EngineError
from .graph import OpRecord, Stage, add_records, attention, part_of

MAX_TILES = 4096  # tiles per attention: a stepped walk-through, not a kernel
# The tiles are stepped beside p.z, which the rest of the model reads (their gradient is 0); the map draws all the
# tiles of an attention as one operation inside "each head".
_TILES = dict(backward="tiled", map_group="attn.tiled", per_head=True)
add_records(
    OpRecord("attn.tiled.scores", provenance.tile_scores, macs=cost.dot_product_macs, **_TILES),
    OpRecord("attn.tiled.m", provenance.tile_max, **_TILES),
    OpRecord("attn.tiled.l", provenance.tile_sum, **_TILES),
    OpRecord("attn.tiled.o", provenance.tile_out, macs=cost.tile_out_macs, **_TILES),
    OpRecord("attn.tiled.skipped", provenance.nothing, **_TILES | dict(per_head=False)),  # [BLOCK_Q, BLOCK_K]: a mask
    OpRecord("attn.tiled.z", provenance.tiled_z, **_TILES),
)


@dataclass(frozen=True)
class Tile:
    """Block I of the queries (rows r0 … r1 − 1) against block J of the keys (columns c0 … c1 − 1)."""

    row_block: int
    col_block: int
    rows: tuple[int, int]
    cols: tuple[int, int]
    skipped: bool = False


def plan(n_q: int, n_k: int, block_q: int, block_k: int, causal: bool) -> list[list[Tile]]:
    """The tiles of each row block, left to right; causal tiles whose keys all follow their queries are skipped."""
    rows = [(r, min(r + block_q, n_q)) for r in range(0, n_q, block_q)]
    cols = [(c, min(c + block_k, n_k)) for c in range(0, n_k, block_k)]
    if len(rows) * len(cols) > MAX_TILES:
        raise EngineError(
            f"tiled attention: {len(rows)}×{len(cols)} tiles are too many to step through; "
            f"use larger blocks (at most {MAX_TILES} tiles)"
        )
    return [[Tile(i, j, r, c, causal and c[0] > r[1] - 1) for j, c in enumerate(cols)] for i, r in enumerate(rows)]


# ---- one step each ---------------------------------------------------------------------------------


def tile_hidden(tile: Tile) -> torch.Tensor:
    """True where a query of the tile may not see a key of it (the key comes after the query)."""
    (r0, r1), (c0, c1) = tile.rows, tile.cols
    return torch.arange(c0, c1)[None, :] > torch.arange(r0, r1)[:, None]


def tile_scores(q: torch.Tensor, k: torch.Tensor, *, tile: Tile, d_k: int | None, causal: bool) -> torch.Tensor:
    """S = Q_I · K_Jᵀ / √d_k (d_k None: not scaled), future keys −∞ under a causal mask → [h, BLOCK_Q, BLOCK_K]."""
    (r0, r1), (c0, c1) = tile.rows, tile.cols
    s = ops.scores(q[:, r0:r1], k[:, c0:c1])
    if d_k is not None:
        s = ops.scale(s, d_k)
    return s.masked_fill(tile_hidden(tile), float("-inf")) if causal else s


def skipped_tile(*, tile: Tile) -> torch.Tensor:
    """A tile wholly in the future: only its mask (1 = hidden) → [BLOCK_Q, BLOCK_K]."""
    return tile_hidden(tile).to(torch.float32)


def _row_max(s: torch.Tensor) -> torch.Tensor:
    return s.amax(dim=-1, keepdim=True)


def first_max(s: torch.Tensor) -> torch.Tensor:
    """m = rowmax(S) for the first tile of a row block → [h, BLOCK_Q, 1]."""
    return _row_max(s)


def next_max(s: torch.Tensor, m_old: torch.Tensor) -> torch.Tensor:
    """m = max(m_old, rowmax(S))."""
    return torch.maximum(m_old, _row_max(s))


def first_sum(s: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    """ℓ = Σ_j e^(S − m) → [h, BLOCK_Q, 1]."""
    return torch.exp(s - m).sum(dim=-1, keepdim=True)


def next_sum(s: torch.Tensor, m_old: torch.Tensor, m: torch.Tensor, l_old: torch.Tensor) -> torch.Tensor:
    """ℓ = ℓ_old · e^(m_old − m) + Σ_j e^(S − m): the old sum rescaled to the new maximum, plus this tile's."""
    return l_old * torch.exp(m_old - m) + first_sum(s, m)


def first_out(s: torch.Tensor, m: torch.Tensor, v: torch.Tensor, *, tile: Tile) -> torch.Tensor:
    """o = e^(S − m) · V_J → [h, BLOCK_Q, d_k] (not yet divided by ℓ)."""
    c0, c1 = tile.cols
    return torch.exp(s - m) @ v[:, c0:c1]


def next_out(
    s: torch.Tensor, m_old: torch.Tensor, m: torch.Tensor, o_old: torch.Tensor, v: torch.Tensor, *, tile: Tile
) -> torch.Tensor:
    """o = o_old · e^(m_old − m) + e^(S − m) · V_J."""
    return o_old * torch.exp(m_old - m) + first_out(s, m, v, tile=tile)


def normalise(*running: torch.Tensor) -> torch.Tensor:
    """z = o / ℓ for each row block, stacked: running = (o_0, ℓ_0, o_1, ℓ_1, …) → [h, n_q, d_k]."""
    return torch.cat([o / l for o, l in zip(running[0::2], running[1::2])], dim=-2)


# ---- the stages --------------------------------------------------------------------------------------


def tile_prefix(attention: str, tile: Tile) -> str:
    return f"{attention}.tiled.r{tile.row_block}c{tile.col_block}"


def tile_stages(
    attention: str,
    scores_inputs: tuple[str, str],
    v: str,
    n_q: int,
    n_k: int,
    blocks: tuple[int, int],
    d_k: int | None,
    causal: bool,
) -> list[tuple[str, str, tuple, object, Tile]]:
    """(name, op, inputs, fn, tile) of every tile stage of one attention, in the order they run, then p.tiled.z."""
    out, running = [], []
    for row in plan(n_q, n_k, *blocks, causal):
        m_old = l_old = o_old = None
        for tile in row:
            p = tile_prefix(attention, tile)
            if tile.skipped:
                out.append((f"{p}.skipped", "attn.tiled.skipped", (), partial(skipped_tile, tile=tile), tile))
                continue
            s, m, l_, o = f"{p}.scores", f"{p}.m", f"{p}.l", f"{p}.o"
            out.append(
                (s, "attn.tiled.scores", scores_inputs, partial(tile_scores, tile=tile, d_k=d_k, causal=causal), tile)
            )
            if m_old is None:
                out += [
                    (m, "attn.tiled.m", (s,), first_max, tile),
                    (l_, "attn.tiled.l", (s, m), first_sum, tile),
                    (o, "attn.tiled.o", (s, m, v), partial(first_out, tile=tile), tile),
                ]
            else:
                out += [
                    (m, "attn.tiled.m", (s, m_old), next_max, tile),
                    (l_, "attn.tiled.l", (s, m_old, m, l_old), next_sum, tile),
                    (o, "attn.tiled.o", (s, m_old, m, o_old, v), partial(next_out, tile=tile), tile),
                ]
            m_old, l_old, o_old = m, l_, o
        running += [o_old, l_old]
    out.append((f"{attention}.tiled.z", "attn.tiled.z", tuple(running), normalise, None))
    return out


def largest_tile(trace, name: str) -> tuple[int, int]:
    """The shape of the largest tile stage of the attention stage name belongs to, per head: the most it holds
    instead of n × n."""
    place = trace.stage(name).place
    shapes = [tuple(trace[st.name].shape[-2:]) for st in trace.stages if st.tile is not None and st.place == place]
    return max(shapes, key=lambda s: s[0] * s[1])


def difference(trace, name: str) -> float:
    """Largest |tiled − standard| between a p.tiled.z stage and the normal path's p.z."""
    return float((trace[name] - trace[trace.attention_of(name).z.name]).abs().max())


def rescale_factor(trace, name: str) -> torch.Tensor | None:
    """e^(m_old − m) [h, BLOCK_Q, 1] of a tile's ℓ or o step: how much the earlier tiles' sums shrink when the
    running maximum grows (1 where it did not); None for the first tile of a row block."""
    inputs = trace.stage(name).inputs
    if len(inputs) < 4:
        return None
    return torch.exp(trace[inputs[1]] - trace[inputs[2]])


def reference_stats(masked: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Row max and softmax denominator Σ e^(x − max) of the full masked score matrix: what m and ℓ must end as."""
    m = masked.amax(dim=-1, keepdim=True)
    return m, torch.exp(masked - m).sum(dim=-1, keepdim=True)


def add_tile_stages(stages: list[Stage], blocks: tuple[int, int], lengths: dict[str, int]) -> list[Stage]:
    """The stage list with every attention's tile stages right after its z stage (lengths: tokens per stack).

    The tiles read the same q and k (rotated ones under RoPE), v, scale and mask as the attention they
    explain, so the what-if switches no_scale and no_mask act on them too.
    """
    out: list[Stage] = []
    for st in stages:
        out.append(st)
        if st.record.cache != "values":  # the tiles follow the attention's weighted sum (z, the stage that reads V)
            continue
        p = part_of(st.name)
        found = attention(stages, **vars(st.place))
        scores, scaled, masked, weights = found.scores, found.scaled, found.masked, found.weights
        if (scaled.inputs, masked.inputs, weights.inputs, st.inputs[0]) != (
            (scores.name,),
            (scaled.name,),
            (masked.name,),
            weights.name,
        ):  # an operation registered in between (engine.graph.register) that the tiles would leave out
            raise EngineError(
                f"tiled attention computes the scale, mask and softmax of {p} itself, so it cannot show an operation "
                "added between them; trace this model without tiles"
            )
        q, k = scores.inputs
        d_k = None if scaled.fn is ops.identity else scaled.fn.keywords["d_k"]
        causal = bool(masked.fn.keywords["causal"])
        n_q, n_k = lengths[scores.rows], lengths[scores.cols]
        for name, op, inputs, fn, tile in tile_stages(p, (q, k), st.inputs[1], n_q, n_k, blocks, d_k, causal):
            rows = scores.rows if tile is None else None
            out.append(Stage(name, op, inputs, fn, rows=rows, tile=tile, place=st.place))
    return out
