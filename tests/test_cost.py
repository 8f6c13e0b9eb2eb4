"""The cost model (engine/cost.py) against torch's own operation counter and real tensors' sizes."""

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from engine import cost
from engine.config import ModelConfig
from engine.kv_cache import KVCache
from engine.model import Model

CONFIGS = [
    dict(architecture="encoder"),
    dict(architecture="decoder", activation="swiglu", norm="pre"),
    dict(architecture="encoder-decoder", positional="rope"),
    dict(architecture="decoder", tiled=[2, 3]),
]


def _trace(n: int = 5, **variant):
    cfg = ModelConfig(d_model=8, n_heads=2, d_ff=12, n_layers=2, **variant)
    words = " ".join(f"w{i}" for i in range(n))
    target = " ".join(f"t{i}" for i in range(n - 1)) if cfg.architecture == "encoder-decoder" else None
    text = " ".join(f"w{i}" for i in range(n - 1)) if cfg.architecture == "decoder" else words
    return Model.create(cfg).trace(text, target)  # n tokens in every stack (<start> included)


def _instrumented_macs(trace, name: str) -> int:
    """Multiply-adds torch counts while the stage's own function runs (a FLOP is half a multiply-add)."""
    st = trace.stage(name)
    with FlopCounterMode(display=False) as counter:
        st.fn(*[trace[i] for i in st.inputs])
    return counter.get_total_flops() // 2


@pytest.mark.parametrize("variant", CONFIGS, ids=lambda v: "-".join(str(x) for x in v.values()))
def test_counted_macs_equal_torch_flop_counter_per_stage(variant):
    trace = _trace(**variant)
    costs = cost.stage_costs(trace)
    for st in trace.stages:
        assert costs[st.name]["macs"] == _instrumented_macs(trace, st.name), st.name
        assert costs[st.name]["bytes"] == trace[st.name].numel() * 4
    with FlopCounterMode(display=False) as counter:
        trace.recompute_all()
    assert cost.totals(costs)["macs"] == counter.get_total_flops() // 2


@pytest.mark.parametrize("variant", CONFIGS[:3], ids=lambda v: v["architecture"])
def test_attention_share_formula_equals_counted_operations_for_small_n(variant):
    for n in (2, 5, 9):
        trace = _trace(n, **variant)
        costs = cost.stage_costs(trace)
        formula = cost.formula_macs(trace.config, n, cost.vocab_out(trace))
        assert formula["total"] == cost.totals(costs)["macs"]
        assert formula["attention"] / formula["total"] == pytest.approx(cost.counted_share(costs, trace))
    curve = cost.share_curve(trace.config, 10)
    assert [r["n"] for r in curve][0] == 8 and curve[-1]["n"] == 8192
    shares = [r["share"] for r in curve]
    assert shares == sorted(shares) and shares[-1] > 0.9  # attention takes over as n grows


def test_per_head_and_per_layer_add_up():
    trace = _trace(architecture="encoder-decoder")
    costs = cost.stage_costs(trace)
    heads = cost.per_head(trace, costs)
    assert heads["enc.0.attn.scores"]["macs"] * 2 == costs["enc.0.attn.scores"]["macs"]
    assert "enc.0.attn.concat" not in heads
    layers = cost.per_layer(trace, costs)
    assert {"enc", "enc.0", "enc.1", "dec", "dec.0", "dec.1", "output"} == set(layers)
    assert sum(g["macs"] for g in layers.values()) == cost.totals(costs)["macs"]


def _adam_state_bytes(trace) -> tuple[int, int]:
    """Gradient and Adam-moment bytes of one real training step over the trace's weights."""
    params = {k: v.clone().requires_grad_(True) for k, v in trace.params.items()}
    values = {f"{s}.tokens": trace[f"{s}.tokens"] for s in trace.config.stacks}
    for st in trace.stages:
        values[st.name] = st.fn(*[values[i] if i in values else params[i] for i in st.inputs])
    last = trace.stage_names[-1]
    values[last].float().sum().backward()
    optimizer = torch.optim.Adam(list(params.values()))
    optimizer.step()
    grads = sum(p.grad.numel() * p.grad.element_size() for p in params.values())
    moments = sum(cost.nbytes(s[key]) for s in optimizer.state.values() for key in ("exp_avg", "exp_avg_sq"))
    return grads, moments


def test_memory_figures_match_real_tensors():
    trace = _trace(architecture="decoder")
    mem = cost.memory(trace)
    assert mem["weights"] == sum(p.numel() * p.element_size() for p in trace.params.values())
    grads, moments = _adam_state_bytes(trace)
    assert mem["gradients"] == grads
    assert mem["adam_moments"] == moments == 2 * mem["weights"]  # "optimizer states ≈ 2× the parameters"
    assert mem["activations"] == sum(trace[n].numel() * trace[n].element_size() for n in trace.stage_names)
    assert mem["training"] == 4 * mem["weights"] + mem["activations"] > mem["inference"]


def test_kv_cache_per_token_matches_the_engines_cache():
    trace = _trace(architecture="decoder")
    cache = KVCache(trace.model)
    cache.extend(trace["dec.tokens"])
    cached = sum(cost.nbytes(t) for t in cache.cached.values())
    kv = cost.kv_cache(trace)
    assert kv["bytes_for_sentence"] == cached
    assert kv["per_token_bytes"] * cache.length == cached
    assert cost.kv_cache(_trace(architecture="encoder"))["per_token_bytes"] == 0


def test_report_has_every_part_and_measures_when_asked():
    trace = _trace(architecture="decoder")
    out = cost.report(trace, measure=False)
    assert {"stages", "per_head", "per_layer", "totals", "memory", "kv_cache", "attention_share"} <= set(out)
    assert "measured" not in out
    measured = cost.measured_times(trace.config, ns=(16, 32))
    assert [m["n"] for m in measured] == [16, 32] and all(m["seconds"] > 0 for m in measured)
