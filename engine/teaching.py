"""Small pieces of Transformer math that the teaching plots show but the model itself does not keep.

Every function is pure torch and works on one row or one matrix taken from a trace.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from . import ops

Tensor = torch.Tensor


def softmax_with_temperature(logits: Tensor, temperature: float) -> Tensor:
    """softmax(logits / T) over the last axis; T < 1 sharpens, T > 1 flattens."""
    if not temperature > 0:
        raise ValueError("temperature must be positive")
    return torch.softmax(logits / temperature, dim=-1)


def top_k(probs: Tensor, k: int) -> tuple[Tensor, Tensor]:
    """The k largest probabilities of a row [vocab] and their token ids, largest first."""
    k = max(1, min(k, probs.shape[-1]))
    values, ids = torch.topk(probs, k)
    return values, ids


def softmax_slope(p: Tensor) -> Tensor:
    """∂p_i/∂s_i = p_i (1 − p_i): the gradient a softmax output passes back to its own score."""
    return p * (1 - p)


def row_softmax(row: Tensor, scale: float = 1.0, hidden: Tensor | None = None) -> Tensor:
    """softmax(row · scale) over a score row [n_k]; hidden keys (bool [n_k]) get −inf first."""
    s = row * scale
    if hidden is not None:
        s = s.masked_fill(hidden, float("-inf"))
    return torch.softmax(s, dim=-1)


def hidden_pattern(masked: Tensor) -> Tensor:
    """Which cells a mask hid: True where the masked scores are −inf."""
    return torch.isneginf(masked)


def activation_values(name: str, x: Tensor) -> Tensor:
    """The FFN's nonlinearity at x; for SwiGLU that is the gate's SiLU, g·sigmoid(g), which scales `up`."""
    return F.silu(x) if name == "swiglu" else ops.activation(x, name)


def activation_curve(name: str, lo: float, hi: float, n: int = 201) -> tuple[Tensor, Tensor]:
    """x [n] evenly from lo to hi and the activation at x [n], to draw the curve."""
    x = torch.linspace(lo, hi, n)
    return x, activation_values(name, x)


def switched_off(pre_activation: Tensor) -> int:
    """How many units a ReLU/GELU/SiLU turns (nearly) off: pre-activations at or below 0."""
    return int((pre_activation <= 0).sum())


def wavelengths(d: int) -> Tensor:
    """The period in positions of each PE column: 2π · 10000^(2i/d)."""
    i2 = torch.arange(d) // 2 * 2
    return 2 * math.pi * 10000.0 ** (i2.to(torch.float64) / d)


def layer_norm_steps(x: Tensor, gamma: Tensor, beta: Tensor, eps: float) -> dict[str, Tensor]:
    """LayerNorm of rows x [n, d] one step at a time: mean, var [n, 1]; centred, hat, out [n, d]."""
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    centred = x - mean
    hat = centred / torch.sqrt(var + eps)
    return {"x": x, "mean": mean, "var": var, "centred": centred, "hat": hat, "out": hat * gamma + beta}


def rms_norm_steps(x: Tensor, gamma: Tensor, eps: float) -> dict[str, Tensor]:
    """RMSNorm of rows x [n, d] one step at a time: ms [n, 1]; hat, out [n, d] (no mean is subtracted)."""
    ms = (x * x).mean(dim=-1, keepdim=True)
    hat = x / torch.sqrt(ms + eps)
    return {"x": x, "ms": ms, "hat": hat, "out": hat * gamma}


def weighted_rows(weights: Tensor, v: Tensor) -> Tensor:
    """Each value row scaled by its attention weight: weights [n_k] and v [n_k, d_k] → [n_k, d_k].

    The rows sum to the output row z = weights · v.
    """
    return weights[:, None] * v


def layer_norm_spread(var: Tensor, eps: float) -> Tensor:
    """√(var + eps): what LayerNorm divides each centred row by."""
    return torch.sqrt(var + eps)
