"""What a trace costs: multiply-adds and bytes of every stage, attention's share as n grows, the memory of
inference and of training, and the KV cache per token.

- macs: the multiply-adds of a stage's matrix products, counted from the actual shapes: the Q/K/V and W_O
  projections, Q·Kᵀ, weights·V, the FFN's up (and gate) and down projections, the output head, and the
  products of tiled attention. Every other stage (softmax, LayerNorm, sums) does no matrix product: 0.
- bytes: the size of the stage's tensor (numel × bytes per element).

All counts are of this engine's float32 tensors; a test checks them against torch's own operation counter
(torch.utils.flop_counter) and against the sizes of real gradients and Adam states.
"""

from __future__ import annotations

import statistics
import time
from typing import TYPE_CHECKING

import torch

from . import ops
from .params import block_sublayers

if TYPE_CHECKING:
    from .config import ModelConfig
    from .graph import Stage
    from .trace import Trace

CURVE_N = tuple(2**k for k in range(3, 14))  # 8 … 8192
MEASURED_N = (64, 256, 1024, 2048)


def format_bytes(n: float) -> str:
    """512 B, 5.2 KiB, 41.4 MiB, 1.3 GiB."""
    for unit in ("B", "KiB", "MiB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def linear_macs(trace: Trace, st: Stage) -> int:
    """x·W of a projection: [n, d_in] · [d_in, d_out]."""
    x, W = trace[st.inputs[0]], trace[st.inputs[1]]
    return x.shape[0] * W.shape[0] * W.shape[1]


def dot_product_macs(trace: Trace, st: Stage) -> int:
    """q·kᵀ over d_k for every cell [h, a, b] of the output."""
    h, a, b = trace[st.name].shape
    return h * a * b * trace[st.inputs[0]].shape[-1]


def weighted_sum_macs(trace: Trace, st: Stage) -> int:
    """weights·v: [h, a, b] · [h, b, d_k]."""
    weights, v = trace[st.inputs[0]], trace[st.inputs[1]]
    return weights.shape[0] * weights.shape[1] * weights.shape[2] * v.shape[-1]


def tile_out_macs(trace: Trace, st: Stage) -> int:
    """e^(S − m) · V_J of one tile: [h, a, tile columns] · [h, tile columns, d_k]."""
    h, a, d_k = trace[st.name].shape
    return h * a * (st.tile.cols[1] - st.tile.cols[0]) * d_k


def stage_macs(trace: Trace, name: str) -> int:
    """Multiply-adds of one stage's matrix products, from the shapes of its inputs and output (its record's
    `macs`, engine/graph.py; 0 for token ids and for operations without a matrix product)."""
    st = trace.stage(name)
    if st is None or st.record.macs is None:
        return 0
    return st.record.macs(trace, st)


def stage_costs(trace: Trace) -> dict[str, dict[str, int]]:
    """{stage: {"macs": int, "bytes": int}} for every stage (token ids included), in trace order."""
    return {name: {"macs": stage_macs(trace, name), "bytes": nbytes(trace[name])} for name in trace.stage_names}


def per_head(trace: Trace, costs: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """The per-head stages ([h, …] tensors; K and V of grouped-query attention [n_kv_heads, …]) with macs and
    bytes divided by the number of heads they hold."""
    return {
        name: {k: v // trace[name].shape[0] for k, v in c.items()}
        for name, c in costs.items()
        if trace.stage(name) is not None and trace.stage(name).record.per_head
    }


def layer_of(trace: Trace, name: str) -> str:
    """The group a stage's costs add up in, from its place: "enc.0" for a stage of encoder block 0, "enc" for the
    encoder's token ids, embeddings and final norm, "output" for the output head."""
    stage = trace.stage(name)
    stack, block = (stage.place.stack, stage.place.block) if stage else (trace.token_stages[name], None)
    if stack is None:
        return "output"
    return stack if block is None else f"{stack}.{block}"


def per_layer(trace: Trace, costs: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for name, c in costs.items():
        group = out.setdefault(layer_of(trace, name), {"macs": 0, "bytes": 0})
        group["macs"] += c["macs"]
        group["bytes"] += c["bytes"]
    return out


def totals(costs: dict[str, dict[str, int]]) -> dict[str, int]:
    return {"macs": sum(c["macs"] for c in costs.values()), "bytes": sum(c["bytes"] for c in costs.values())}


# ---- attention's share as n grows -----------------------------------------------------------------------


def formula_macs(cfg: ModelConfig, n: int, vocab_out: int = 0) -> dict[str, int]:
    """Multiply-adds of the whole model when every sentence has n tokens, by the formulas:
    per attention 4·n·d² (Q, K, V, W_O) + 2·n²·d (Q·Kᵀ and weights·V, h heads of d_k = d/h) — with grouped-query
    attention or head_dim, Q and W_O are d × h·d_k and K, V d × h_kv·d_k, and the n² terms 2·n²·h·d_k;
    per FFN 2·n·d·d_ff (3·n·d·d_ff with SwiGLU's gate); the output head n·d·vocab."""
    d, ff = cfg.d_model, cfg.d_ff * (3 if cfg.activation == "swiglu" else 2)
    q_width, kv_width = cfg.n_heads * cfg.d_k, cfg.kv_heads * cfg.d_k
    attentions = sum(len(block_sublayers(cfg, s)) for s in cfg.stacks) * cfg.n_layers
    ffns = len(cfg.stacks) * cfg.n_layers
    quadratic = attentions * 2 * n * n * q_width
    head = n * d * vocab_out if cfg.has_output_head else 0
    projections = attentions * 2 * n * d * (q_width + kv_width)
    total = projections + quadratic + ffns * n * d * ff + head
    return {"attention": quadratic, "total": total}


def counted_share(costs: dict[str, dict[str, int]], trace: Trace) -> float:
    """Attention's share (Q·Kᵀ and weights·V) of every multiply-add, counted on a trace."""
    quadratic = sum(
        c["macs"] for name, c in costs.items() if trace.stage(name) is not None and trace.stage(name).record.quadratic
    )
    return quadratic / max(1, totals(costs)["macs"])


def share_curve(cfg: ModelConfig, vocab_out: int, ns=CURVE_N) -> list[dict]:
    """[{"n": n, "attention_macs": int, "total_macs": int, "share": float}] by the formulas, n = 8 … 8192."""
    rows = []
    for n in ns:
        f = formula_macs(cfg, n, vocab_out)
        rows.append(
            {"n": n, "attention_macs": f["attention"], "total_macs": f["total"], "share": f["attention"] / f["total"]}
        )
    return rows


def vocab_out(trace: Trace) -> int:
    """The output head's width (its vocabulary); 0 without a decoder."""
    return int(trace["logits"].shape[1]) if "logits" in trace else 0


# ---- memory -----------------------------------------------------------------------------------------------


def kv_cache(trace: Trace) -> dict:
    """Bytes the KV cache keeps per generated token: K and V rows of every decoder self-attention, n_kv_heads of
    d_k each (grouped-query attention keeps fewer heads than the queries have: `with_n_heads` is what one K/V
    head per query head would keep, and `saving` the share it saves).

    (Cross-attention's K and V are the encoder's output, computed once: they do not grow per token.)
    """
    cfg = trace.config
    if "dec" not in cfg.stacks:
        return {"per_token_bytes": 0, "layers": 0, "note": "no decoder: nothing is generated, so no KV cache"}
    float_bytes = torch.finfo(torch.float32).bits // 8
    per_token = 2 * cfg.n_layers * cfg.kv_heads * cfg.d_k * float_bytes
    every_head = 2 * cfg.n_layers * cfg.n_heads * cfg.d_k * float_bytes
    n = len(trace.tokens["dec"])
    return {
        "per_token_bytes": per_token,
        "layers": cfg.n_layers,
        "kv_heads": cfg.kv_heads,
        "n_heads": cfg.n_heads,
        "tokens": n,
        "bytes_for_sentence": per_token * n,
        "with_n_heads_per_token_bytes": every_head,
        "saving": 1 - per_token / every_head,
        "formula": "2 (K and V) × n_layers × n_kv_heads × d_k × 4 bytes",
    }


def memory(trace: Trace) -> dict[str, int]:
    """Bytes of inference and of training with Adam, from the actual tensors.

    inference = weights + the largest stage tensor (the peak one step holds) + the KV cache for the sentence;
    training  = weights + gradients (one per weight) + Adam's two moments (m and v, one each per weight)
                + the activations kept for the backward pass (every stage tensor of the trace).
    """
    weights = sum(nbytes(p) for p in trace.params.values())
    activations = sum(nbytes(trace[name]) for name in trace.stage_names)
    largest = max(nbytes(trace[name]) for name in trace.stage_names)
    kv = kv_cache(trace).get("bytes_for_sentence", 0)
    return {
        "weights": weights,
        "gradients": weights,
        "adam_moments": 2 * weights,
        "activations": activations,
        "largest_stage": largest,
        "kv_cache": kv,
        "inference": weights + largest + kv,
        "training": weights + weights + 2 * weights + activations,
        "optimizer_over_weights": 2.0,
    }


# ---- measured time ---------------------------------------------------------------------------------------


def attention_seconds(cfg: ModelConfig, n: int, repeats: int = 5) -> float:
    """Median wall time of this engine's attention (scores, scale, mask, softmax, weights·V) for n tokens,
    one self-attention with the config's heads, on random q, k, v. Measured on this machine."""
    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(cfg.n_heads, n, cfg.d_k, generator=gen) for _ in range(3))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        ops.weighted_sum(ops.softmax(ops.mask(ops.scale(ops.scores(q, k), cfg.d_k), causal=True)), v)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measured_times(cfg: ModelConfig, ns=MEASURED_N) -> list[dict]:
    """Seconds of one attention at each n, beside its formula count 2·n²·h·d_k of multiply-adds (2·n²·d)."""
    width = cfg.n_heads * cfg.d_k
    return [{"n": n, "seconds": attention_seconds(cfg, n), "formula_macs": 2 * n * n * width} for n in ns]


def report(trace: Trace, measure: bool = False) -> dict:
    """Everything the cost view and `main.py cost --json` show."""
    costs = stage_costs(trace)
    cfg = trace.config
    out = {
        "stages": costs,
        "per_head": per_head(trace, costs),
        "per_layer": per_layer(trace, costs),
        "totals": totals(costs),
        "memory": memory(trace),
        "kv_cache": kv_cache(trace),
        "attention_share": {"counted": counted_share(costs, trace), "curve": share_curve(cfg, vocab_out(trace))},
    }
    if measure:
        out["measured"] = {
            "label": f"measured on this machine (CPU, {torch.get_num_threads()} torch threads)",
            "attention": measured_times(cfg),
        }
    return out
