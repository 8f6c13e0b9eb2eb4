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


def rope_angles(n: int, d_k: int, start: int = 0, theta: float = 10000.0) -> Tensor:
    """RoPE's rotation angle of pair i at position pos: θ[pos, i] = pos / theta^(2i/d_k) → [n, d_k/2].

    d_k: the dimensions turned (the whole head, or rotary_dim). Rows are positions start … start + n − 1 (a KV
    cache rotates only its new rows).
    """
    pos = torch.arange(start, start + n, dtype=torch.float64)[:, None]  # [n, 1]
    freq = float(theta) ** (-torch.arange(0, d_k, 2, dtype=torch.float64) / d_k)  # [d_k/2]
    return pos * freq


def rope_pair_dims(r: int, pairs: str) -> list[tuple[int, int]]:
    """The two dimensions of each of RoPE's r/2 pairs: (2i, 2i+1) interleaved (RoFormer), (i, i + r/2) for
    Hugging Face's rotate_half layout."""
    return [(2 * i, 2 * i + 1) if pairs == "interleaved" else (i, i + r // 2) for i in range(r // 2)]


def rope(
    x: Tensor, start: int = 0, theta: float = 10000.0, pairs: str = "interleaved", rotary_dim: int | None = None
) -> Tensor:
    """Turn each pair of dimensions of row pos by θ[pos, i]: [h, n, d_k] → [h, n, d_k].

    Pair i is (a, b) = rope_pair_dims(r, pairs)[i]; (x_a, x_b) → (x_a·cos θ − x_b·sin θ, x_a·sin θ + x_b·cos θ).
    "interleaved": a = 2i, b = 2i+1 (RoFormer); "half": a = i, b = i + r/2, which is Hugging Face's
    x·cos + rotate_half(x)·sin. Only the first r = rotary_dim dimensions turn (all d_k when None); the rest pass.
    """
    r = x.shape[-1] if rotary_dim is None else rotary_dim
    angles = rope_angles(x.shape[-2], r, start, theta)  # [n, r/2]
    cos, sin = torch.cos(angles).to(x.dtype), torch.sin(angles).to(x.dtype)
    turned, kept = x[..., :r], x[..., r:]
    if pairs == "interleaved":
        a, b = turned[..., 0::2], turned[..., 1::2]  # [h, n, r/2] each
        out = torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1).flatten(-2)
    else:
        a, b = turned[..., : r // 2], turned[..., r // 2 :]
        out = torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1)
    return torch.cat((out, kept), dim=-1)


def add(a: Tensor, b: Tensor) -> Tensor:
    return a + b


def identity(x: Tensor) -> Tensor:
    """A step a "what if" switch turned off: its output is its input."""
    return x


def linear(x: Tensor, W: Tensor, b: Tensor | None = None) -> Tensor:
    """x [n, d_in] · W [d_in, d_out] + b [d_out] → [n, d_out] (a layer without a bias: x · W)."""
    return x @ W if b is None else x @ W + b


def tied_linear(x: Tensor, W_E: Tensor, b: Tensor | None = None) -> Tensor:
    """The output head tied to the embeddings: x [n, d] · W_Eᵀ [d, vocab] (+ b [vocab]) → [n, vocab]."""
    return linear(x, W_E.T, b)


def repeat_heads(x: Tensor, n_heads: int) -> Tensor:
    """Grouped-query attention: K/V heads shared out to the query heads, [h_kv, n, d_k] → [h, n, d_k];
    query head j reads K/V head j // (h / h_kv) (consecutive groups, as Hugging Face's repeat_kv)."""
    return x.repeat_interleave(n_heads // x.shape[0], dim=0)


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


def causal_hidden(n_q: int, n_k: int, start: int = 0, window: int | None = None) -> Tensor:
    """True where a query may not see a key: keys after the query's own position, and with a sliding window
    keys window or more positions before it (it sees itself and the window − 1 keys before).

    Query row i sits at position start + i (a KV cache asks for its new rows only).
    """
    hidden = torch.ones(n_q, n_k, dtype=torch.bool).triu(1 + start)
    if window is not None:
        hidden |= torch.ones(n_q, n_k, dtype=torch.bool).tril(start - window)
    return hidden


def mask(s: Tensor, causal: bool, start: int = 0, window: int | None = None) -> Tensor:
    """Set hidden positions to −inf; without a causal mask nothing is hidden."""
    if not causal:
        return s
    return s.masked_fill(causal_hidden(s.shape[-2], s.shape[-1], start, window), float("-inf"))


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


def mean_square(x: Tensor) -> Tensor:
    """RMSNorm's statistic: the mean of the squares per row, [n, d] → [n, 1]."""
    return (x * x).mean(dim=-1, keepdim=True)


def rms_normalise(x: Tensor, ms: Tensor, eps: float) -> Tensor:
    """x / √(mean(x²) + eps) → [n, d] (no mean is subtracted)."""
    return x * torch.rsqrt(ms + eps)


def gain(hat: Tensor, gamma: Tensor) -> Tensor:
    """RMSNorm's scale: gamma ⊙ hat → [n, d] (no shift)."""
    return hat * gamma


def rms_norm(x: Tensor, gamma: Tensor, eps: float) -> Tensor:
    """RMSNorm in one step over the last axis (QK-norm of each head's q or k): γ ⊙ x / √(mean(x²) + eps)."""
    return gain(rms_normalise(x, mean_square(x), eps), gamma)


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
