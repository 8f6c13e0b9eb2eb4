"""One small function per Transformer operation. Rows are tokens (row-vector convention)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

Tensor = torch.Tensor


def embed(W_E: Tensor, ids: Tensor) -> Tensor:
    """Look up token rows: W_E [vocab, d], ids [n] → [n, d]."""
    return W_E[ids]


def sinusoidal_positions(n: int, d: int) -> Tensor:
    """PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(…) → [n, d]."""
    pos = torch.arange(n, dtype=torch.float64)[:, None]  # [n, 1]
    freq = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # [d/2]
    pe = torch.zeros(n, d, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(pos * freq)
    pe[:, 1::2] = torch.cos(pos * freq)
    return pe.to(torch.float32)


def add(a: Tensor, b: Tensor) -> Tensor:
    return a + b


def linear(x: Tensor, W: Tensor, b: Tensor) -> Tensor:
    """x [n, d_in] · W [d_in, d_out] + b [d_out] → [n, d_out]."""
    return x @ W + b


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    """[n, d] → [h, n, d_k]: head j takes columns j·d_k … (j+1)·d_k − 1."""
    n, d = x.shape
    return x.reshape(n, n_heads, d // n_heads).transpose(0, 1).contiguous()


def scores(q: Tensor, k: Tensor) -> Tensor:
    """q [h, n_q, d_k] · kᵀ [h, d_k, n_k] → [h, n_q, n_k]."""
    return q @ k.transpose(-1, -2)


def scale(s: Tensor, d_k: int) -> Tensor:
    """Divide by √d_k so the softmax does not saturate."""
    return s / math.sqrt(d_k)


def causal_hidden(n_q: int, n_k: int) -> Tensor:
    """True where a query may not see a key (keys after the query's own position)."""
    return torch.ones(n_q, n_k, dtype=torch.bool).triu(1)


def mask(s: Tensor, causal: bool) -> Tensor:
    """Set hidden positions to −inf; without a causal mask nothing is hidden."""
    if not causal:
        return s
    return s.masked_fill(causal_hidden(s.shape[-2], s.shape[-1]), float("-inf"))


def softmax(s: Tensor) -> Tensor:
    """Softmax over the last axis: each row sums to 1."""
    return torch.softmax(s, dim=-1)


def weighted_sum(weights: Tensor, v: Tensor) -> Tensor:
    """weights [h, n_q, n_k] · v [h, n_k, d_k] → [h, n_q, d_k]."""
    return weights @ v


def concat_heads(z: Tensor) -> Tensor:
    """[h, n, d_k] → [n, h·d_k]: heads side by side."""
    h, n, d_k = z.shape
    return z.transpose(0, 1).reshape(n, h * d_k)


def mean(x: Tensor) -> Tensor:
    """Per-token mean over features: [n, d] → [n, 1]."""
    return x.mean(dim=-1, keepdim=True)


def variance(x: Tensor, mu: Tensor) -> Tensor:
    """Population variance per token: [n, d] → [n, 1]."""
    return ((x - mu) ** 2).mean(dim=-1, keepdim=True)


def normalise(x: Tensor, mu: Tensor, var: Tensor, eps: float) -> Tensor:
    """(x − mean) / √(var + eps) → [n, d]."""
    return (x - mu) / torch.sqrt(var + eps)


def affine(hat: Tensor, gamma: Tensor, beta: Tensor) -> Tensor:
    """gamma ⊙ hat + beta → [n, d]."""
    return hat * gamma + beta


def activation(x: Tensor, name: str) -> Tensor:
    if name == "relu":
        return torch.relu(x)
    return F.gelu(x)
