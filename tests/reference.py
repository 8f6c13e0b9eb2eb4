"""Independent torch references for the engine's stages: torch.nn layers with copied weights."""

from __future__ import annotations

import math
import random

import torch
import torch.nn.functional as F
from torch import nn

from engine import Model, ModelConfig


def randomize(model: Model, seed: int, dtype=torch.float64) -> None:
    """Give every parameter non-trivial values so a wiring mistake cannot hide behind zeros and ones.

    The references run in float64 so that 1e-5 measures the engine, not float32 rounding (a LayerNorm
    over d_model = 2 amplifies it); the engine computes in whatever dtype its parameters have.
    """
    g = torch.Generator().manual_seed(seed)
    for name, t in model.params.items():
        noise = torch.randn(t.shape, generator=g, dtype=dtype)
        if name.endswith("gamma"):
            model.params[name] = 1 + 0.2 * noise
        elif name.rsplit(".", 1)[1].startswith("b") or name.endswith("beta"):
            model.params[name] = 0.2 * noise
        else:
            model.params[name] = noise * (t.shape[0] ** -0.5 if t.dim() == 2 and "W_E" not in name else 1.0)


def _copy_mha(m: nn.MultiheadAttention, P: dict, p: str) -> nn.MultiheadAttention:
    with torch.no_grad():
        m.in_proj_weight.copy_(torch.cat([P[f"{p}.W_Q"].T, P[f"{p}.W_K"].T, P[f"{p}.W_V"].T]))
        m.in_proj_bias.copy_(torch.cat([P[f"{p}.b_Q"], P[f"{p}.b_K"], P[f"{p}.b_V"]]))
        m.out_proj.weight.copy_(P[f"{p}.W_O"].T)
        m.out_proj.bias.copy_(P[f"{p}.b_O"])
    return m


def mha(cfg: ModelConfig, P: dict, p: str) -> nn.MultiheadAttention:
    m = nn.MultiheadAttention(cfg.d_model, cfg.n_heads, dropout=0.0, batch_first=True, dtype=P[f"{p}.W_Q"].dtype)
    return _copy_mha(m, P, p)


def _copy_common(layer, cfg: ModelConfig, P: dict, b: str, n_norms: int):
    with torch.no_grad():
        layer.linear1.weight.copy_(P[f"{b}.ffn.W1"].T)
        layer.linear1.bias.copy_(P[f"{b}.ffn.b1"])
        layer.linear2.weight.copy_(P[f"{b}.ffn.W2"].T)
        layer.linear2.bias.copy_(P[f"{b}.ffn.b2"])
        for k in range(1, n_norms + 1):
            getattr(layer, f"norm{k}").weight.copy_(P[f"{b}.norm{k}.gamma"])
            getattr(layer, f"norm{k}").bias.copy_(P[f"{b}.norm{k}.beta"])
    return layer


def encoder_layer(cfg: ModelConfig, P: dict, b: str, attn: str) -> nn.TransformerEncoderLayer:
    layer = nn.TransformerEncoderLayer(
        cfg.d_model,
        cfg.n_heads,
        cfg.d_ff,
        dropout=0.0,
        activation=cfg.activation,
        layer_norm_eps=cfg.ln_eps,
        batch_first=True,
        norm_first=cfg.norm == "pre",
        dtype=P[f"{b}.ffn.W1"].dtype,
    )
    _copy_mha(layer.self_attn, P, f"{b}.{attn}")
    return _copy_common(layer, cfg, P, b, 2)


def decoder_layer(cfg: ModelConfig, P: dict, b: str) -> nn.TransformerDecoderLayer:
    layer = nn.TransformerDecoderLayer(
        cfg.d_model,
        cfg.n_heads,
        cfg.d_ff,
        dropout=0.0,
        activation=cfg.activation,
        layer_norm_eps=cfg.ln_eps,
        batch_first=True,
        norm_first=cfg.norm == "pre",
        dtype=P[f"{b}.ffn.W1"].dtype,
    )
    _copy_mha(layer.self_attn, P, f"{b}.self_attn")
    _copy_mha(layer.multihead_attn, P, f"{b}.cross_attn")
    return _copy_common(layer, cfg, P, b, 3)


def sinusoidal(n: int, d: int) -> torch.Tensor:
    """The formula of Vaswani et al., written out element by element."""
    pe = torch.zeros(n, d, dtype=torch.float64)
    for pos in range(n):
        for i in range(0, d, 2):
            angle = pos / (10000 ** (i / d))
            pe[pos, i] = math.sin(angle)
            pe[pos, i + 1] = math.cos(angle)
    return pe


def causal(n: int) -> torch.Tensor:
    return torch.ones(n, n, dtype=torch.bool).triu(1)


def stack_forward(cfg: ModelConfig, P: dict, s: str, ids: torch.Tensor, memory=None) -> dict[str, torch.Tensor]:
    """A stack run end to end with torch.nn layers; returns x0, each block's output and the final output."""
    n = ids.shape[0]
    x = F.embedding(ids, P[f"{s}.embed.W_E"])
    if cfg.positional == "sinusoidal":
        x = x + sinusoidal(n, cfg.d_model)
    elif cfg.positional == "learned":
        x = x + P[f"{s}.pos.W_pos"][:n]
    out = {"x0": x}
    x = x[None]
    for i in range(cfg.n_layers):
        b = f"{s}.{i}"
        if s == "enc":
            x = encoder_layer(cfg, P, b, "attn")(x)
        elif memory is None:
            x = encoder_layer(cfg, P, b, "self_attn")(x, src_mask=causal(n))
        else:
            x = decoder_layer(cfg, P, b)(x, memory[None], tgt_mask=causal(n))
        out[f"block{i}"] = x[0]
    if cfg.norm == "pre":
        x = F.layer_norm(x, (cfg.d_model,), P[f"{s}.final_norm.gamma"], P[f"{s}.final_norm.beta"], cfg.ln_eps)
    out["final"] = x[0]
    return out


def random_config(rng: random.Random) -> ModelConfig:
    arch = rng.choice(["encoder", "decoder", "encoder-decoder"])
    h = rng.choice([1, 2, 4])
    d = h * rng.choice([2, 4, 6])
    return ModelConfig(
        architecture=arch,
        d_model=d,
        n_heads=h,
        d_ff=rng.choice([4, 8, 16, 3 * d]),
        n_layers=rng.choice([1, 1, 2, 3]),
        norm=rng.choice(["post", "pre"]),
        activation=rng.choice(["relu", "gelu"]),
        positional=rng.choice(["sinusoidal", "learned", "none"]),
        max_len=32,
        ln_eps=rng.choice([1e-5, 1e-6, 1e-3]),
        seed=rng.randrange(1000),
    )


WORDS = "I love AI the cat sat on mat 我 爱 大 模型 猫 吃了 鱼 因为 它 饿了 , .".split()


def random_text(rng: random.Random, low=1, high=9) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))
