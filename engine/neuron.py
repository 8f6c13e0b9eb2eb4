"""The neuron view of one attention score: for head h, query row i and key column j, the query and key vectors
the scores stage reads (after RoPE where the model rotates them), their elementwise product q ⊙ k, whose sum is
the score before scaling, and the dimensions ranked by how far they push that score up or down (BertViz's neuron
view, for every attention of every model Stepformer opens)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from .errors import EngineError
from .graph import Attention

if TYPE_CHECKING:
    from .trace import Trace


@dataclass(frozen=True)
class Neuron:
    """One cell [head, query, key] of an attention's scores, taken apart dimension by dimension."""

    attention: Attention  # the attention's stages by role (its scores stage reads q_stage and k_stage)
    q_stage: str  # the stage the scores read as queries ([h, n_q, d_k]; the rotated q under RoPE)
    k_stage: str  # … and as keys ([h or kv_heads, n_k, d_k])
    head: int
    query: int  # the query row i
    key: int  # the key column j
    q: torch.Tensor  # [d_k] the query vector of head `head`, row i
    k: torch.Tensor  # [d_k] the key vector that head reads, row j (a shared K head under grouped-query attention)
    products: torch.Tensor  # [d_k] q ⊙ k
    score: float  # Σ q ⊙ k: the score before scaling (equals the scores stage's cell)
    divisor: float  # what the scaled stage divides by: √d_k, or 1 with the "no scaling" switch on
    unscaled: bool  # the "no scaling" switch is on: the scaled stage equals the scores
    scaled: float  # the scaled stage's cell
    hidden: bool  # the mask hides this key from this query (its weight is 0)
    weight: float  # the attention weight: the softmax of the query's row, at this key

    @property
    def up(self) -> list[int]:
        """The dimensions whose product is positive, the one that pushes the score up most first."""
        return [d for d in self.ranked if self.products[d] > 0]

    @property
    def down(self) -> list[int]:
        """The dimensions whose product is negative, the one that pushes the score down most first."""
        return [d for d in reversed(self.ranked) if self.products[d] < 0]

    @property
    def ranked(self) -> list[int]:
        """Every dimension, from the largest product (pushes up most) to the smallest (pushes down most); ties
        in dimension order."""
        return sorted(range(self.products.shape[0]), key=lambda d: (-float(self.products[d]), d))


def attention_at(trace: Trace, name: str) -> Attention | None:
    """The attention a neuron view shows at stage `name`: the one it sits in, else the latest one before it, else
    the model's first; None for a model without attention."""
    names = trace.stage_names
    at = names.index(name) if name in names else len(names) - 1
    for nearest in (*reversed(names[: at + 1]), *names[at + 1 :]):  # back from `name`, then on from it
        found = trace.attention_of(nearest)
        if found is not None:
            return found
    return None


def neuron(trace: Trace, attention: Attention, head: int, query: int, key: int) -> Neuron:
    """Score cell [head, query, key] of `attention` taken apart; a head, row or column outside the attention's
    scores raises EngineError."""
    scores = trace[attention.scores.name]  # [h, n_q, n_k]
    n_heads, n_q, n_k = scores.shape
    for what, value, size in (("head", head, n_heads), ("query row", query, n_q), ("key column", key, n_k)):
        if not 0 <= value < size:
            raise EngineError(f"{what} {value} is outside {attention.scores.name} [{n_heads}×{n_q}×{n_k}]")
    q_stage, k_stage = attention.scores.inputs
    queries, keys = trace[q_stage], trace[k_stage]  # [h, n_q, d_k], [h or kv_heads, n_k, d_k]
    k_head = head * keys.shape[0] // n_heads  # query heads share K heads in equal consecutive groups
    q, k = queries[head, query], keys[k_head, key]  # [d_k], [d_k]
    products = q * k  # [d_k]
    cfg = trace.config
    masked = trace[attention.masked.name][head, query, key]
    return Neuron(
        attention=attention,
        q_stage=q_stage,
        k_stage=k_stage,
        head=head,
        query=query,
        key=key,
        q=q,
        k=k,
        products=products,
        score=float(products.sum()),
        divisor=1.0 if "no_scale" in cfg.switches else math.sqrt(cfg.d_k),
        unscaled="no_scale" in cfg.switches,
        scaled=float(trace[attention.scaled.name][head, query, key]),
        hidden=bool(torch.isneginf(masked)),
        weight=float(trace[attention.weights.name][head, query, key]),
    )


def strongest_key(trace: Trace, attention: Attention, head: int, query: int) -> int:
    """The key column query row `query` of head `head` gives the largest weight to (the first, where several tie)."""
    return int(torch.argmax(trace[attention.weights.name][head, query]))


def hidden_keys(trace: Trace, attention: Attention, head: int, query: int) -> list[bool]:
    """For each key column, whether the mask hides it from query row `query` of head `head` (its weight is 0)."""
    return torch.isneginf(trace[attention.masked.name][head, query]).tolist()
