"""The measures behind the head grid, the KV-cache view and the what-if plots, each against a plain torch
reference: heads' columns and shares of W_O, reordering without positions, attention on the future, spread
per layer, multiply-adds per position."""

import pytest
import torch

from engine import EngineError, Model, ModelConfig, stack_output
from engine.generate import generate, macs_by_position
from engine.graph import block_outputs
from engine.heads import head_columns, head_contributions, head_of_feature, merge_heads
from engine.whatif import (
    future_weight,
    reorder,
    reversed_order,
    spread_by_depth,
    token_spread,
    trace_sentences,
)
from tests.reference import randomize

ATOL = 1e-5


def traced(arch="encoder", text="狗 咬 人 很 疼", target="人 咬", **kw):
    cfg = ModelConfig(architecture=arch, d_model=8, n_heads=4, d_ff=12, n_layers=2, **kw)
    model = Model.create(cfg)
    model.trace(text, target if arch == "encoder-decoder" else None)  # a free vocabulary learns the words
    randomize(model, 3)
    return model.trace(text, target if arch == "encoder-decoder" else None)


def test_each_head_owns_its_columns_and_its_share_of_the_output():
    trace = traced()
    cfg, p = trace.config, "enc.0.attn"
    x, W_Q, b_Q = trace["enc.x0"], trace[f"{p}.W_Q"], trace[f"{p}.b_Q"]
    torch.testing.assert_close(merge_heads(trace[f"{p}.q"]), x @ W_Q + b_Q, atol=ATOL, rtol=0)
    for h in range(cfg.n_heads):
        start, stop = head_columns(cfg, h)
        assert {head_of_feature(cfg, c) for c in range(start, stop)} == {h}
        torch.testing.assert_close(trace[f"{p}.q"][h], x @ W_Q[:, start:stop] + b_Q[start:stop], atol=ATOL, rtol=0)
    concat, W_O = trace[f"{p}.concat"], trace[f"{p}.W_O"]
    parts = head_contributions(concat, W_O, cfg.n_heads)
    for h in range(cfg.n_heads):
        start, stop = head_columns(cfg, h)
        torch.testing.assert_close(parts[h], trace[f"{p}.z"][h] @ W_O[start:stop], atol=ATOL, rtol=0)
    torch.testing.assert_close(parts.sum(0) + trace[f"{p}.b_O"], trace[f"{p}.out"], atol=ATOL, rtol=0)


@pytest.mark.parametrize("positional", ["sinusoidal", "learned", "rope"])
def test_without_positions_reordering_only_reorders_the_encoder_output(positional):
    trace = traced(positional=positional, switches=("no_pe",))
    r = reorder(trace)
    assert r.tokens == ["狗", "咬", "人", "很", "疼"] and r.reordered_tokens == ["疼", "很", "人", "咬", "狗"]
    assert r.max_difference < 1e-5
    backwards = trace.model.trace("疼 很 人 咬 狗")  # the reordered sentence typed in: the same rows, reordered
    name = stack_output(trace.config, "enc")
    torch.testing.assert_close(backwards[name], trace[name][torch.tensor(r.order)], atol=1e-6, rtol=0)
    with_positions = traced(positional=positional)
    assert reorder(with_positions).max_difference > 1e-3


def test_a_decoder_keeps_start_first_and_its_mask_still_sees_order():
    trace = traced("decoder", text="我 爱 大 模型", positional="none")
    assert reversed_order(trace.tokens["dec"]) == [0, 4, 3, 2, 1]
    r = reorder(trace)
    assert r.reordered_tokens == ["<start>", "模型", "大", "爱", "我"] and r.max_difference > 1e-3
    unmasked = traced("decoder", text="我 爱 大 模型", positional="none", switches=("no_mask",))
    assert reorder(unmasked).max_difference < 1e-5  # no positions and no mask: a bag of words again
    with pytest.raises(EngineError, match="each of the 5 positions once"):
        reorder(trace, [0, 0, 1, 2, 3])


def test_attention_on_the_future_is_zero_under_the_mask_and_summed_without_it():
    masked = traced("decoder", text="我 爱 大 模型")
    assert not future_weight(masked["dec.0.self_attn.weights"]).any()
    open_ = traced("decoder", text="我 爱 大 模型", switches=("no_mask",))
    w = open_["dec.0.self_attn.weights"]
    expected = torch.tensor(
        [[sum(float(w[h, i, j]) for j in range(i + 1, 5)) for i in range(5)] for h in range(4)], dtype=w.dtype
    )
    torch.testing.assert_close(future_weight(w), expected, atol=ATOL, rtol=0)
    assert expected[:, 0].min() > 0.1


def test_token_spread_and_the_depth_curves():
    trace = traced()
    expected = [
        float(torch.tensor(trace[n].tolist()).std(dim=0, unbiased=False).mean())
        for n in block_outputs(trace.config, "enc")
    ]
    assert token_spread(trace) == pytest.approx(expected, abs=ATOL)
    cfg = ModelConfig(d_model=8, n_heads=2, d_ff=16)
    curves = spread_by_depth(cfg, "狗 咬 人 很 疼", n_layers=6, samples=2)
    normal = [Model.create(cfg.replace(n_layers=6, seed=s)).trace("狗 咬 人 很 疼") for s in (0, 1)]
    assert curves["normal"]["tokens"] == pytest.approx(
        [sum(v) / 2 for v in zip(*(token_spread(t) for t in normal))], abs=ATOL
    )
    assert curves["no_residual"]["tokens"][-1] < 0.01 * curves["no_residual"]["tokens"][0]  # tokens become alike
    assert curves["no_layernorm"]["values"][-1] > 2 * curves["normal"]["values"][-1]  # values grow


@pytest.mark.parametrize("arch", ["decoder", "encoder-decoder"])
def test_multiply_adds_per_position_match_the_generation_steps(arch):
    trace = traced(arch, text="我 爱", target="我")
    model = trace.model
    text, target = trace_sentences(trace)
    assert model.trace(text, target).tokens == trace.tokens
    result = generate(model, text, target, steps=3, use_cache=True)
    n0 = len(trace.tokens["dec"])
    n_src = len(trace.tokens.get("enc", []))
    counts = macs_by_position(trace.config, n_src, n0 + 2, len(model.vocabs["dec"]))
    for t, step in enumerate(result.steps[1:], start=1):  # after the prompt: one new row per step
        assert (step.macs_cached, step.macs_full) == counts[n0 + t - 1]
    assert all(cached < full for cached, full in counts[1:])
