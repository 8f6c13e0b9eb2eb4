"""Measures for the "what if" switches: how spread out the residual stream is per layer (and how different its
tokens are), how close the attention softmax comes to one-hot as d_k grows with and without the 1/√d_k scale,
how much a decoder looks ahead without its mask, and what reordering the words does without positions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from . import ops
from .errors import EngineError
from .graph import Stage, block_outputs, stack_output
from .tokenizer import START

if TYPE_CHECKING:
    from .config import ModelConfig
    from .trace import Trace


def layer_spread(trace: Trace, stack: str | None = None) -> list[float]:
    """Standard deviation (over all tokens and features) of the residual stream: block 0's input, then
    every block's output. Without LayerNorm it grows layer by layer; without the residual it can collapse."""
    stack = stack or trace.config.stacks[-1]
    return [float(trace[name].std(unbiased=False)) for name in block_outputs(trace.config, stack)]


def mean_max_weight(weights: torch.Tensor) -> float:
    """The average over heads and queries of each row's largest attention weight: 1 means one-hot."""
    return float(weights.amax(dim=-1).mean())


def attention_weights(stages: list[Stage]) -> list[Stage]:
    """The attention weights among `stages`: per head, each row a probability distribution (their records say)."""
    return [st for st in stages if st.record.per_head and st.record.distribution]


def max_weight_by_dk(config: ModelConfig, text: str, d_ks: list[int], samples: int = 4) -> dict[str, list[float]]:
    """For each d_k, one-layer models like `config` with d_model = n_heads · d_k and seeds seed … seed +
    samples − 1: the mean largest weight of the first attention, scaled by 1/√d_k ("scaled") and with
    no_scale ("unscaled"), averaged over the seeds."""
    from .model import Model  # model imports trace, which imports the graph: import when called

    curves: dict[str, list[float]] = {"scaled": [], "unscaled": []}
    others = tuple(s for s in config.switches if s != "no_scale")
    target = "" if config.architecture == "encoder-decoder" else None
    for d_k in d_ks:
        d = config.n_heads * d_k
        sums = {"scaled": 0.0, "unscaled": 0.0}
        for seed in range(config.seed, config.seed + samples):
            # d_k = d_model / n_heads here: an explicit head_dim (and a partial rotary_dim) would hold it fixed
            base = config.replace(d_model=d, n_layers=1, switches=others, seed=seed, head_dim=None, rotary_dim=None)
            model = Model.create(base)
            for key, switches in (("scaled", others), ("unscaled", others + ("no_scale",))):
                trace = model.with_config(base.replace(switches=switches)).trace(text, target)
                first = attention_weights(trace.stages)[0].name
                sums[key] += mean_max_weight(trace[first]) / samples
        for key in curves:
            curves[key].append(sums[key])
    return curves


def token_spread(trace: Trace, stack: str | None = None) -> list[float]:
    """How different the tokens are from each other, per layer: the standard deviation across tokens of each
    feature, averaged over features, at block 0's input and every block's output. Without the residual the
    tokens become alike (it collapses towards 0); without LayerNorm it grows."""
    stack = stack or trace.config.stacks[-1]
    return [float(trace[name].std(dim=0, unbiased=False).mean()) for name in block_outputs(trace.config, stack)]


DEPTH_SETTINGS = ("normal", "no_residual", "no_layernorm")


def spread_by_depth(
    config: ModelConfig, text: str, target: str | None = None, n_layers: int = 6, samples: int = 4
) -> dict[str, dict[str, list[float]]]:
    """For seeded n_layers-deep models like `config` (its other switches kept; seeds seed … seed + samples − 1;
    free vocabularies): layer_spread ("values") and token_spread ("tokens") of the last stack, averaged over
    the seeds, as built ("normal"), with no_residual and with no_layernorm."""
    from .model import Model

    others = tuple(s for s in config.switches if s not in ("no_residual", "no_layernorm"))
    target = (target or "") if config.architecture == "encoder-decoder" else None
    out: dict[str, dict[str, list[float]]] = {}
    for setting in DEPTH_SETTINGS:
        switches = others + (() if setting == "normal" else (setting,))
        sums = {
            "values": torch.zeros(n_layers + 1, dtype=torch.float64),
            "tokens": torch.zeros(n_layers + 1, dtype=torch.float64),
        }
        for seed in range(config.seed, config.seed + samples):
            cfg = config.replace(n_layers=n_layers, switches=switches, seed=seed, enc_vocab=None, dec_vocab=None)
            trace = Model.create(cfg).trace(text, target)
            sums["values"] += torch.tensor(layer_spread(trace), dtype=torch.float64) / samples
            sums["tokens"] += torch.tensor(token_spread(trace), dtype=torch.float64) / samples
        out[setting] = {key: value.tolist() for key, value in sums.items()}
    return out


def future_weight(weights: torch.Tensor) -> torch.Tensor:
    """How much attention each query gives to later positions: weights [h, n_q, n_k] → [h, n_q]
    (0 everywhere under a causal mask; without it a decoder sees the future)."""
    return (weights * ops.causal_hidden(weights.shape[-2], weights.shape[-1])).sum(dim=-1)


@dataclass(frozen=True)
class Reordering:
    stage: str  # the stack output compared, e.g. "enc.0.norm2.out"
    tokens: list[str]
    reordered_tokens: list[str]
    order: list[int]  # position i of the reordered sentence holds the token from position order[i]
    output: torch.Tensor  # [n, d] the sentence's output
    reordered_output: torch.Tensor  # [n, d] the reordered sentence's output
    max_difference: float  # max |reordered_output − output[order]|: 0 when the outputs are just reordered


def reversed_order(tokens: list[str]) -> list[int]:
    """The sentence backwards (狗 咬 人 → 人 咬 狗); a decoder's <start> stays first."""
    first = 1 if tokens and tokens[0] == START else 0
    return list(range(first)) + list(reversed(range(first, len(tokens))))


def reorder(trace: Trace, order: list[int] | None = None) -> Reordering:
    """Trace the trace's sentences again as they are and with the first stack's tokens reordered (backwards
    by default; pinned stage values left out) and compare the first stack's outputs. Without positional
    encoding an encoder's output rows are just reordered; with it (or under a decoder's causal mask) they
    change."""
    from .trace import Trace

    cfg = trace.config
    stack = cfg.stacks[0]
    tokens = list(trace.tokens[stack])
    order = reversed_order(tokens) if order is None else list(order)
    if sorted(order) != list(range(len(tokens))):
        raise EngineError(f"the order must list each of the {len(tokens)} positions once, got {order}")
    ids = trace.ids
    words = {s: list(t) for s, t in trace.tokens.items()}
    base = Trace(trace.model, {s: list(t) for s, t in words.items()}, dict(ids))  # without pinned stages
    ids[stack] = ids[stack][torch.tensor(order)]
    words[stack] = [tokens[i] for i in order]
    other = Trace(trace.model, words, ids)
    name = stack_output(cfg, stack)
    output, reordered = base[name], other[name]
    difference = float((reordered - output[torch.tensor(order)]).abs().max())
    return Reordering(name, tokens, words[stack], order, output, reordered, difference)


def trace_sentences(trace: Trace) -> tuple[str, str | None]:
    """The trace's sentences as text for max_weight_by_dk and spread_by_depth: (text, target or None)."""
    words = {s: [t for t in tokens if t != START] for s, tokens in trace.tokens.items()}
    if trace.config.architecture == "encoder-decoder":
        return " ".join(words["enc"]), " ".join(words["dec"])
    return " ".join(words[trace.config.stacks[0]]), None
