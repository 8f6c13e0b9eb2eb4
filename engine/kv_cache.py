"""A KV cache: run a decoder on new positions only, reusing the K and V rows of the earlier ones.

The cache walks the same stage graph as a trace. Stages that do not depend on the decoder's tokens (the
encoder, the cross-attention K and V of its output) are computed once. Every other stage is computed for
the new rows only; the key-side stages that attention reads (k, or k_rot with RoPE, and v of each
self-attention) keep all rows so far and grow by the new ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .errors import EngineError
from .graph import build_stages, part_of, tokens_of

if TYPE_CHECKING:
    from .config import ModelConfig
    from .graph import Place
    from .model import Model


def _kept(stages, name: str) -> str:
    """The stage a cache keeps for key-side stage `name`: itself, or with grouped-query attention the K/V heads
    before they are shared out to the query heads (only n_kv_heads of them are kept)."""
    st = next((s for s in stages if s.name == name), None)
    return st.inputs[0] if st is not None and st.record.shares_heads else name


def _key_side(stages) -> set[str]:
    """Stages read as keys or values: the second input of every stage whose record says a cache keeps it."""
    return {_kept(stages, st.inputs[1]) for st in stages if st.record.cache}


class KVCache:
    def __init__(self, model: Model, src_ids: torch.Tensor | None = None):
        cfg = model.config
        if "dec" not in cfg.stacks:
            raise EngineError("a KV cache needs a decoder; this is an encoder-only model")
        if "no_mask" in cfg.switches:
            raise EngineError(
                "the KV cache needs the causal mask: with no_mask earlier positions see later ones, so their "
                "cached K and V would go stale; generate without the cache"
            )
        self.model = model
        self.stages = build_stages(cfg)
        dynamic = {tokens_of("dec")}
        for st in self.stages:
            if any(i in dynamic for i in st.inputs):
                dynamic.add(st.name)
        self.dynamic = dynamic
        self.cached = {name: None for name in _key_side(self.stages) if name in dynamic}
        self.length = 0  # positions read so far = K, V rows per self-attention
        self.fixed: dict[str, torch.Tensor] = {} if src_ids is None else {tokens_of("enc"): src_ids}
        for st in self.stages:  # the encoder and the cross-attention K, V: once
            if st.name not in dynamic:
                self.fixed[st.name] = st.fn(*[self._value(i, {}) for i in st.inputs])

    def _value(self, name: str, new: dict[str, torch.Tensor]) -> torch.Tensor:
        if self.cached.get(name) is not None:
            return self.cached[name]
        for source in (new, self.fixed, self.model.params):
            if name in source:
                return source[name]
        raise EngineError(f"KV cache: no value for {name!r}")

    def extend(self, ids: torch.Tensor) -> dict[str, torch.Tensor]:
        """Read the next tokens (ids [r]) at positions length … length + r − 1; the new rows of every stage."""
        start = self.length
        if start + ids.shape[0] > self.model.config.max_len:
            raise EngineError(f"the sentence would pass max_len = {self.model.config.max_len} tokens")
        new = {tokens_of("dec"): ids}
        for st in self.stages:
            if st.name not in self.dynamic:
                continue
            kw = {"start": start} if st.record.positional else {}
            new[st.name] = st.fn(*[self._value(i, new) for i in st.inputs], **kw)
            if st.name in self.cached:
                old = self.cached[st.name]
                self.cached[st.name] = new[st.name] if old is None else torch.cat([old, new[st.name]], dim=-2)
        self.length += ids.shape[0]
        return new

    def keys_values(self) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
        """Per self-attention (e.g. "dec.0.self_attn"): the cached K (rotated with RoPE) and V
        [n_kv_heads, rows, d_k]."""
        return {
            p: (self.cached[k], self.cached[v]) for p, (k, v) in cached_stages(self.stages).items() if k in self.cached
        }


def cached_stages(stages) -> dict[str, tuple[str, str]]:
    """Per decoder self-attention: the stages its scores read as keys and its output reads as values (K, V)."""
    keys_values: dict[Place, dict[str, str]] = {}
    for st in stages:
        if st.record.cache and st.place.stack == "dec" and st.place.part == "self_attn":
            keys_values.setdefault(st.place, {"attention": part_of(st.name)})[st.record.cache] = _kept(
                stages, st.inputs[1]
            )
    return {kv["attention"]: (kv["keys"], kv["values"]) for kv in keys_values.values()}


def trace_keys_values(trace) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """What a KV cache would hold after reading a trace's decoder tokens, per self-attention: K and V."""
    return {p: (trace[k], trace[v]) for p, (k, v) in cached_stages(trace.stages).items()}


def _attention_macs(cfg: ModelConfig, n_q: int, n_kv_new: int, n_k: int) -> int:
    """Q and output projections of n_q rows, K and V projections of n_kv_new rows, q·kᵀ and weights·v
    (q and the heads' output n_heads·d_k wide, K and V n_kv_heads·d_k)."""
    d, q_width, kv_width = cfg.d_model, cfg.n_heads * cfg.d_k, cfg.kv_heads * cfg.d_k
    return 2 * n_q * d * q_width + 2 * n_kv_new * d * kv_width + 2 * n_q * n_k * q_width


def matmul_macs(cfg: ModelConfig, n_src: int, start: int, rows: int, vocab: int, encoder: bool) -> int:
    """Multiply-adds of the matrix products when the decoder computes `rows` new positions after `start`.

    Counts x·W of every projection and FFN matrix, q·kᵀ and weights·v of every head (masked cells too) and
    the output head; `encoder` adds the encoder over n_src tokens and the cross-attention K and V of its
    output. start = 0, rows = n, encoder = True is a full trace; a KV cache step is one row.
    """
    d, f, L = cfg.d_model, cfg.d_ff, cfg.n_layers
    ffn = (3 if cfg.activation == "swiglu" else 2) * d * f
    cross = "enc" in cfg.stacks
    per_layer = _attention_macs(cfg, rows, rows, start + rows) + rows * ffn
    if cross:
        per_layer += _attention_macs(cfg, rows, 0, n_src)
    total = L * per_layer + rows * d * vocab
    if cross and encoder:
        kv_width = cfg.kv_heads * cfg.d_k
        total += L * (_attention_macs(cfg, n_src, n_src, n_src) + n_src * ffn + 2 * n_src * d * kv_width)
    return total
