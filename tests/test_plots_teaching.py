"""engine.teaching against independent references (plain math / torch.nn.functional)."""

import math

import pytest
import torch
import torch.nn.functional as F

from engine import Model, ModelConfig, teaching
from engine.ops import sinusoidal_at, sinusoidal_positions


def test_softmax_with_temperature_matches_definition():
    logits = torch.tensor([2.0, -1.0, 0.5, 3.0])
    for t in (0.25, 1.0, 4.0):
        expected = [math.exp(x / t) for x in logits.tolist()]
        total = sum(expected)
        got = teaching.softmax_with_temperature(logits, t)
        assert torch.allclose(got, torch.tensor([e / total for e in expected]), atol=1e-6)
    with pytest.raises(ValueError):
        teaching.softmax_with_temperature(logits, 0.0)


def test_lower_temperature_sharpens():
    logits = torch.tensor([1.0, 0.0, -1.0])
    cold, hot = (teaching.softmax_with_temperature(logits, t)[0] for t in (0.5, 2.0))
    assert cold > hot


def test_top_k_sorted_and_clamped():
    p = torch.tensor([0.1, 0.5, 0.15, 0.25])
    values, ids = teaching.top_k(p, 3)
    assert ids.tolist() == [1, 3, 2] and torch.allclose(values, torch.tensor([0.5, 0.25, 0.15]))
    assert teaching.top_k(p, 10)[1].numel() == 4


def test_softmax_slope_is_autograd_diagonal():
    s = torch.tensor([0.3, -1.2, 2.0], requires_grad=True)
    p = torch.softmax(s, -1)
    jac = torch.autograd.functional.jacobian(lambda x: torch.softmax(x, -1), s.detach())
    assert torch.allclose(teaching.softmax_slope(p.detach()), jac.diagonal(), atol=1e-6)


def test_row_softmax_scale_and_hidden():
    row = torch.tensor([1.0, 2.0, 3.0])
    assert torch.allclose(teaching.row_softmax(row, 0.5), F.softmax(row * 0.5, -1), atol=1e-7)
    hidden = torch.tensor([False, False, True])
    got = teaching.row_softmax(row, hidden=hidden)
    assert got[2] == 0 and torch.allclose(got[:2], F.softmax(row[:2], -1), atol=1e-7)


def test_hidden_pattern_of_decoder_mask_is_causal():
    model = Model.create(ModelConfig(architecture="decoder", decimals=1))
    trace = model.trace("a b c d")
    hidden = teaching.hidden_pattern(trace["dec.0.self_attn.masked"][0])
    assert torch.equal(hidden, torch.ones(5, 5, dtype=torch.bool).triu(1))


@pytest.mark.parametrize("name", ["relu", "gelu"])
def test_activation_curve(name):
    x, y = teaching.activation_curve(name, -3, 3, 61)
    ref = F.relu(x) if name == "relu" else F.gelu(x)
    assert x[0] == -3 and x[-1] == 3 and torch.allclose(y, ref)


def test_switched_off_counts_non_positive():
    assert teaching.switched_off(torch.tensor([[-1.0, 0.0, 0.5], [2.0, -0.1, 3.0]])) == 3


def test_sinusoidal_curves_follow_the_formula_between_and_at_integer_positions():
    d = 6
    reference = torch.tensor(
        [
            [math.sin(p / 10000 ** (i / d)) if i % 2 == 0 else math.cos(p / 10000 ** ((i - 1) / d)) for i in range(d)]
            for p in range(7)
        ]
    )
    assert torch.allclose(sinusoidal_positions(7, d), reference, atol=1e-6)
    at = sinusoidal_at(torch.tensor([0.5]), d)[0]
    assert abs(float(at[0]) - math.sin(0.5)) < 1e-6 and abs(float(at[3]) - math.cos(0.5 / 10000 ** (2 / d))) < 1e-6


def test_wavelengths_are_periods():
    d = 8
    for dim, period in enumerate(teaching.wavelengths(d).tolist()):
        pe = sinusoidal_at(torch.tensor([0.0, period]), d)
        assert torch.allclose(pe[0, dim], pe[1, dim], atol=1e-4)


def test_layer_norm_steps_match_torch_layer_norm_and_trace():
    model = Model.create(ModelConfig(d_model=4, n_heads=2, decimals=1))
    trace = model.trace("I love AI")
    x, g, b = trace["enc.0.add1"], trace["enc.0.norm1.gamma"], trace["enc.0.norm1.beta"]
    steps = teaching.layer_norm_steps(x, g, b, 1e-5)
    assert torch.allclose(steps["out"], F.layer_norm(x, (4,), g, b, 1e-5), atol=1e-5)
    assert torch.allclose(steps["centred"], x - x.mean(-1, keepdim=True), atol=1e-6)
    for key in ("mean", "var", "hat", "out"):
        assert torch.allclose(steps[key], trace[f"enc.0.norm1.{key}"], atol=1e-5)
    spread = teaching.layer_norm_spread(steps["var"], 1e-5)
    assert torch.allclose(spread, torch.sqrt(x.var(-1, unbiased=False, keepdim=True) + 1e-5), atol=1e-6)


def test_weighted_rows_sum_to_z():
    model = Model.create(ModelConfig(d_model=4, n_heads=2, decimals=1))
    trace = model.trace("I love AI")
    w, v, z = trace["enc.0.attn.weights"], trace["enc.0.attn.v"], trace["enc.0.attn.z"]
    for h in range(2):
        for r in range(3):
            parts = teaching.weighted_rows(w[h, r], v[h])
            assert torch.allclose(parts[1], w[h, r, 1] * v[h, 1])
            assert torch.allclose(parts.sum(0), z[h, r], atol=1e-6)


def test_swiglu_activation_values_are_silu():
    x = torch.linspace(-4, 4, 17)
    assert torch.allclose(teaching.activation_values("swiglu", x), x * torch.sigmoid(x), atol=1e-6)
    assert torch.allclose(teaching.activation_values("gelu_tanh", x), F.gelu(x, approximate="tanh"), atol=1e-6)
