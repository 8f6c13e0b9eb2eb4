"""From the 2017 block to today's: the six changes in the order they came, each one setting of the model config, and
the model with the weights of the step before (only what the change touches is new).

    CHANGES[2].key                      # "swiglu"
    config_at(cfg, 3)                   # cfg with the first three changes made and the other three undone
    step_of(cfg)                        # 3 for that config; None for a mix out of order (Llama's, with post-LN)
    model_at(model, 3)                  # that config with model's weights: those it shares are kept as they are

A change keeps every weight the two configs both have with the same shape; the weights it adds (pre-LN's final
norm, SwiGLU's gate, QK-norm's scales) are the config's seeded ones; grouped-query attention's K and V projections
are the averages of each group's heads, as Ainslie et al. (2023) made a GQA model from a multi-head one (and back
to multi-head, each group's K and V again for each of its heads).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .config import ModelConfig
from .errors import EngineError
from .graph import Stage, find
from .model import Model
from .params import Params, init_params


@dataclass(frozen=True)
class Change:
    key: str  # its id: "pre_ln", "rmsnorm", "swiglu", "rope", "gqa", "qk_norm"
    field: str  # the config field it sets
    old: object  # the 2017 block's value
    year: str  # when it came
    models: str  # who introduced it and who made it common
    shows: str  # the kind of stage (op) whose numbers show the change best, in the first block


def grouped_kv_heads(cfg: ModelConfig) -> int:
    """The K/V heads grouped-query attention leaves: half the heads (two query heads share each), or one (multi-query)
    when the heads do not pair up."""
    return cfg.n_heads // 2 if cfg.n_heads % 2 == 0 else 1


CHANGES: tuple[Change, ...] = (
    Change("pre_ln", "norm", "post", "2019", "GPT-2", "norm.out"),
    Change("rmsnorm", "norm_type", "layernorm", "2019 / 2023", "Zhang & Sennrich; Llama", "norm.rms_out"),
    Change("swiglu", "activation", "relu", "2020 / 2022", "Shazeer; PaLM, Llama", "ffn.act"),
    Change("rope", "positional", "sinusoidal", "2021 / 2023", "RoFormer; Llama", "attn.scores"),
    Change("gqa", "n_kv_heads", None, "2023", "Llama 2 70B, Mistral, Qwen2", "attn.scores"),
    Change("qk_norm", "qk_norm", False, "2023–25", "Qwen3", "attn.scores"),
)
STEPS = len(CHANGES)


def new_value(change: Change, cfg: ModelConfig) -> object:
    """Today's value of the change's field for this model."""
    return {
        "pre_ln": "pre",
        "rmsnorm": "rmsnorm",
        "swiglu": "swiglu",
        "rope": "rope",
        "gqa": grouped_kv_heads(cfg),
        "qk_norm": True,
    }[change.key]


def config_at(cfg: ModelConfig, step: int) -> ModelConfig:
    """`cfg` with CHANGES[:step] made and CHANGES[step:] undone (the 2017 value); step 0 is the 2017 block, STEPS
    today's. Raises EngineError for a step outside 0 … STEPS."""
    if not (isinstance(step, int) and 0 <= step <= STEPS):
        raise EngineError(f"step {step!r} is not one of the changes: choose 0 (2017) to {STEPS} (today)")
    return cfg.replace(**{c.field: new_value(c, cfg) if k < step else c.old for k, c in enumerate(CHANGES)})


def step_of(cfg: ModelConfig) -> int | None:
    """How many of the changes this config has made, in order; None when it mixes them out of order or has a
    setting outside the path (GELU, learned positions, another number of K/V heads)."""
    return next((k for k in range(STEPS + 1) if config_at(cfg, k) == cfg), None)


def shown_stage(stages: list[Stage], before: int, after: int) -> str | None:
    """The stage to look at after moving from step `before` to step `after` (among the new model's `stages`): the
    first of the kind that shows the change made (forward) or undone (back); None when the model has none."""
    change = CHANGES[max(before, after) - 1] if before != after else None
    found = None if change is None else find(stages, change.shows)
    return None if found is None else found.name


def regroup_heads(weight: torch.Tensor, d_k: int, heads: int) -> torch.Tensor:
    """A K or V projection's columns [..., h·d_k] for `heads` heads: fewer heads average each group of
    consecutive heads (h / heads of them), more heads repeat each head for its group. → [..., heads·d_k]."""
    *lead, width = weight.shape
    per_head = weight.reshape(*lead, width // d_k, d_k)  # [..., h, d_k]
    have = per_head.shape[-2]
    if heads < have:
        grouped = per_head.reshape(*lead, heads, have // heads, d_k).mean(dim=-2)
    else:
        grouped = per_head.repeat_interleave(heads // have, dim=-2)
    return grouped.reshape(*lead, heads * d_k)


def carried_params(model: Model, cfg: ModelConfig) -> Params:
    """The weights of `model` under `cfg`: every one they share with the same shape kept (the same tensor), K and
    V projections regrouped when the K/V heads change, the others the config's seeded ones."""
    vocabs = {s: v.copy() for s, v in model.vocabs.items()}
    params = init_params(cfg, vocabs)
    heads_before, heads_after = model.config.kv_heads, cfg.kv_heads
    for name, fresh in params.items():
        old = model.params.get(name)
        if old is None:
            continue
        if old.shape == fresh.shape:
            params[name] = old
        elif heads_before != heads_after and old.shape[-1] == heads_before * model.config.d_k:
            params[name] = regroup_heads(old, model.config.d_k, heads_after)  # W_K, W_V [d, h·d_k], b_K, b_V
    return params


def model_at(model: Model, step: int) -> Model:
    """The model at step `step` (config_at) with `model`'s weights carried over (carried_params)."""
    cfg = config_at(model.config, step)
    return Model(cfg, carried_params(model, cfg), {s: v.copy() for s, v in model.vocabs.items()}, model.tokenizer)
