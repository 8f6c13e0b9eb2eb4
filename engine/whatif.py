"""Measures for the "what if" switches: how spread out the residual stream is per layer, and how close the
attention softmax comes to one-hot as d_k grows with and without the 1/√d_k scale."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .graph import block_outputs

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
            base = config.replace(d_model=d, n_layers=1, switches=others, seed=seed)
            model = Model.create(base)
            for key, switches in (("scaled", others), ("unscaled", others + ("no_scale",))):
                trace = model.with_config(base.replace(switches=switches)).trace(text, target)
                first = next(st.name for st in trace.stages if st.op == "attn.weights")
                sums[key] += mean_max_weight(trace[first]) / samples
        for key in curves:
            curves[key].append(sums[key])
    return curves
