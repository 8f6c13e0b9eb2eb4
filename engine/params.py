"""Parameter names, shapes and seeded initialisation (row-vector layout: x·W)."""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:  # annotations only: engine/config.py checks sizes with engine/budget.py, which reads this
    from .config import ModelConfig
    from .tokenizer import Vocab

Params = dict[str, torch.Tensor]


def block_sublayers(cfg: ModelConfig, stack: str) -> list[str]:
    """The attention sublayers of one block, in order: attn, or self_attn (+ cross_attn)."""
    if stack == "enc":
        return ["attn"]
    return ["self_attn", "cross_attn"] if cfg.architecture == "encoder-decoder" else ["self_attn"]


def param_shapes(cfg: ModelConfig, vocab_sizes: dict[str, int]) -> dict[str, tuple[int, ...]]:
    """Every parameter name with its shape, in a stable order."""
    d, f = cfg.d_model, cfg.d_ff
    width = {"Q": cfg.n_heads * cfg.d_k, "K": cfg.kv_heads * cfg.d_k, "V": cfg.kv_heads * cfg.d_k}  # projections
    norm_leaves = ("gamma", "beta") if cfg.norm_type == "layernorm" else ("gamma",)  # RMSNorm has no β
    shapes: dict[str, tuple[int, ...]] = {}
    for s in cfg.stacks:
        shapes[f"{s}.embed.W_E"] = (vocab_sizes[s], d)
        if cfg.positional == "learned":
            shapes[f"{s}.pos.W_pos"] = (cfg.max_len, d)
        if cfg.type_vocab:
            shapes[f"{s}.type.W_T"] = (cfg.type_vocab, d)
        if cfg.embed_norm:
            shapes |= {f"{s}.embed_norm.{leaf}": (d,) for leaf in norm_leaves}
        for i in range(cfg.n_layers):
            attns = block_sublayers(cfg, s)
            for a in attns:
                for m in "QKV":
                    shapes[f"{s}.{i}.{a}.W_{m}"] = (d, width[m])
                    if cfg.has_bias(m.lower()):
                        shapes[f"{s}.{i}.{a}.b_{m}"] = (width[m],)
                if cfg.qk_norm:
                    shapes[f"{s}.{i}.{a}.q_norm.gamma"] = (cfg.d_k,)
                    shapes[f"{s}.{i}.{a}.k_norm.gamma"] = (cfg.d_k,)
                shapes[f"{s}.{i}.{a}.W_O"] = (width["Q"], d)
                if cfg.has_bias("o"):
                    shapes[f"{s}.{i}.{a}.b_O"] = (d,)
            for k in range(1, len(attns) + 2):
                shapes |= {f"{s}.{i}.norm{k}.{leaf}": (d,) for leaf in norm_leaves}
            ffn = {"W1": (d, f), "b1": (f,)}
            if cfg.activation == "swiglu":
                ffn |= {"W_gate": (d, f), "b_gate": (f,)}
            ffn |= {"W2": (f, d), "b2": (d,)}
            for leaf, shape in ffn.items():
                if leaf.startswith("W") or cfg.has_bias("ffn"):
                    shapes[f"{s}.{i}.ffn.{leaf}"] = shape
        if cfg.norm == "pre":
            shapes |= {f"{s}.final_norm.{leaf}": (d,) for leaf in norm_leaves}
    if cfg.has_output_head:
        if not cfg.tied_embeddings:  # tied: the output head reads dec.embed.W_E
            shapes["unembed.W_U"] = (d, vocab_sizes["dec"])
        if cfg.has_bias("head"):
            shapes["unembed.b_U"] = (vocab_sizes["dec"],)
    return shapes


def _generator(seed: int, key: str) -> torch.Generator:
    """A generator that depends only on the seed and a name, so values do not depend on order."""
    return torch.Generator().manual_seed((seed * 1_000_003 + zlib.crc32(key.encode())) % 2**63)


def _round(t: torch.Tensor, decimals: int | None) -> torch.Tensor:
    return t if decimals is None else torch.round(t, decimals=decimals)


def _random(cfg: ModelConfig, key: str, shape: tuple[int, ...], std: float) -> torch.Tensor:
    t = torch.randn(shape, generator=_generator(cfg.seed, key), dtype=torch.float32) * std
    return _round(t, cfg.decimals)


def word_embedding(cfg: ModelConfig, stack: str, word: str) -> torch.Tensor:
    """The seeded embedding row of one word: the same word always gets the same row."""
    return _random(cfg, f"{stack}.embed:{word}", (cfg.d_model,), 1.0)


def word_unembedding(cfg: ModelConfig, word: str) -> torch.Tensor:
    """The seeded output column of one target word."""
    return _random(cfg, f"unembed:{word}", (cfg.d_model,), cfg.d_model**-0.5)


def init_params(cfg: ModelConfig, vocabs: dict[str, Vocab]) -> Params:
    """Seeded weights: normal(0, 1/√d_in) matrices, zero biases, gamma 1, beta 0."""
    params: Params = {}
    for name, shape in param_shapes(cfg, {s: len(v) for s, v in vocabs.items()}).items():
        leaf = name.rsplit(".", 1)[1]
        if leaf == "W_E":
            stack = name.split(".")[0]
            params[name] = torch.stack([word_embedding(cfg, stack, w) for w in vocabs[stack].tokens])
        elif leaf == "W_U":
            params[name] = torch.stack([word_unembedding(cfg, w) for w in vocabs["dec"].tokens], dim=1)
        elif leaf in ("W_pos", "W_T"):
            params[name] = _random(cfg, name, shape, 1.0)
        elif leaf.startswith("W"):
            params[name] = _random(cfg, name, shape, shape[0] ** -0.5)
        elif leaf == "gamma":
            params[name] = torch.ones(shape)
        else:
            params[name] = torch.zeros(shape)
    return params


def grow_vocab(cfg: ModelConfig, params: Params, stack: str, vocab: Vocab, words: list[str]) -> None:
    """Add new words to a free vocabulary: new seeded embedding rows (and output columns)."""
    if not words:
        return
    for w in words:
        vocab.add(w)
    key = f"{stack}.embed.W_E"
    rows = torch.stack([word_embedding(cfg, stack, w) for w in words])
    params[key] = torch.cat([params[key], rows])
    if stack == "dec" and "unembed.W_U" in params:
        cols = torch.stack([word_unembedding(cfg, w) for w in words], dim=1)
        params["unembed.W_U"] = torch.cat([params["unembed.W_U"], cols], dim=1)
    if stack == "dec" and "unembed.b_U" in params:
        params["unembed.b_U"] = torch.cat([params["unembed.b_U"], torch.zeros(len(words))])
