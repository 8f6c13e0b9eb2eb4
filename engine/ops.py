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
    return sinusoidal_at(torch.arange(n), d)


def sinusoidal_at(positions: Tensor, d: int) -> Tensor:
    """The same PE at any positions [p], real-valued ones too (the plots draw it as curves) → [p, d] (d even)."""
    pos = positions.to(torch.float64)[:, None]  # [p, 1]
    freq = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # [d/2]
    pe = torch.zeros(pos.shape[0], d, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(pos * freq)
    pe[:, 1::2] = torch.cos(pos * freq)
    return pe.to(torch.float32)


def rope_angles(n: int, d_k: int, start: int = 0) -> Tensor:
    """RoPE's rotation angle of pair i at position pos: θ[pos, i] = pos / 10000^(2i/d_k) → [n, d_k/2].

    Rows are positions start … start + n − 1 (a KV cache rotates only its new rows).
    """
    pos = torch.arange(start, start + n, dtype=torch.float64)[:, None]  # [n, 1]
    freq = 10000.0 ** (-torch.arange(0, d_k, 2, dtype=torch.float64) / d_k)  # [d_k/2]
    return pos * freq


def rope(x: Tensor, start: int = 0) -> Tensor:
    """Rotate each pair of dimensions (2i, 2i+1) of row pos by θ[pos, i]: [h, n, d_k] → [h, n, d_k].

    (x_2i, x_2i+1) → (x_2i·cos θ − x_2i+1·sin θ, x_2i·sin θ + x_2i+1·cos θ), as in RoFormer (interleaved pairs).
    """
    angles = rope_angles(x.shape[-2], x.shape[-1], start)  # [n, d_k/2]
    cos, sin = torch.cos(angles).to(x.dtype), torch.sin(angles).to(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]  # [h, n, d_k/2] each
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)


def add(a: Tensor, b: Tensor) -> Tensor:
    return a + b


def identity(x: Tensor) -> Tensor:
    """A step a "what if" switch turned off: its output is its input."""
    return x


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


def causal_hidden(n_q: int, n_k: int, start: int = 0) -> Tensor:
    """True where a query may not see a key (keys after the query's own position).

    Query row i sits at position start + i (a KV cache asks for its new rows only).
    """
    return torch.ones(n_q, n_k, dtype=torch.bool).triu(1 + start)


def mask(s: Tensor, causal: bool, start: int = 0) -> Tensor:
    """Set hidden positions to −inf; without a causal mask nothing is hidden."""
    if not causal:
        return s
    return s.masked_fill(causal_hidden(s.shape[-2], s.shape[-1], start), float("-inf"))


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


def swiglu(gate: Tensor, up: Tensor) -> Tensor:
    """SwiGLU: silu(gate) ⊙ up, with silu(g) = g·sigmoid(g); [n, d_ff] → [n, d_ff]."""
    return F.silu(gate) * up


def activation(x: Tensor, name: str) -> Tensor:
    if name == "relu":
        return torch.relu(x)
    if name == "gelu_tanh":  # GPT-2: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
        return F.gelu(x, approximate="tanh")
    return F.gelu(x)


def cross_entropy(probs: Tensor, labels: Tensor) -> Tensor:
    """−log of the probability each position gives to its label: probs [m, vocab], labels [m] → [m]."""
    return -torch.log(probs.gather(-1, labels[:, None])[:, 0])


def mean_loss(per_position: Tensor) -> Tensor:
    """The loss: the mean over positions, [m] → [] (a scalar)."""
    return per_position.mean()
