"""Multi-head attention made visible: which d_model columns each head owns, the heads put back side by side,
and each head's share of the attention output."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from . import ops

if TYPE_CHECKING:
    from .config import ModelConfig


def head_columns(cfg: ModelConfig, head: int) -> tuple[int, int]:
    """The columns [start, stop) of W_Q, W_K, W_V (and rows of W_O) that belong to `head`."""
    return head * cfg.d_k, (head + 1) * cfg.d_k


def head_of_feature(cfg: ModelConfig, index: int) -> int:
    """Which head owns feature `index` of a d_model-wide q, k, v or concat row."""
    return index // cfg.d_k


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """[h, n, d_k] → [n, h·d_k]: the per-head tensor with the heads side by side (Q before the split)."""
    return ops.concat_heads(x)


def head_contributions(concat: torch.Tensor, W_O: torch.Tensor, n_heads: int) -> torch.Tensor:
    """What each head adds to the attention output: concat [n, d] and W_O [d, d_out] → [h, n, d_out].

    Head j's part is Z_j · W_O[rows of head j]; the parts plus b_O sum to concat · W_O + b_O.
    """
    n, d = concat.shape
    d_k = d // n_heads
    z = concat.reshape(n, n_heads, d_k).transpose(0, 1)  # [h, n, d_k]
    return z @ W_O.reshape(n_heads, d_k, -1)  # [h, n, d_k] · [h, d_k, d_out] → [h, n, d_out]
