"""The lessons' own numbers, computed by the engine's stages."""

import math

import torch

from engine import Model, ModelConfig


def one_layer_trace(**cfg):
    model = Model.create(ModelConfig(**cfg))
    return model, model.trace("a b c d")


def test_layernorm_of_1_5_3_minus1():
    model, trace = one_layer_trace(d_model=4, n_heads=1, d_ff=4, positional="none", ln_eps=1e-12)
    x = torch.tensor([[1.0, 5.0, 3.0, -1.0]] * 4)
    trace.set_override("enc.0.add1", x)
    assert torch.allclose(trace["enc.0.norm1.mean"][0], torch.tensor([2.0]))
    assert torch.allclose(trace["enc.0.norm1.var"][0], torch.tensor([5.0]))
    expected = torch.tensor([-0.447, 1.342, 0.447, -1.342])
    assert torch.allclose(trace["enc.0.norm1.out"][0], expected, atol=5e-4)


def test_why_scale_softmax_26_18_30_22():
    model, trace = one_layer_trace(d_model=64, n_heads=1, d_ff=4)
    scores = torch.zeros(1, 4, 4)
    scores[0, 0] = torch.tensor([26.0, 18.0, 30.0, 22.0])
    trace.set_override("enc.0.attn.scores", scores)
    scaled_max = trace["enc.0.attn.weights"][0, 0].max().item()
    unscaled_max = torch.softmax(trace["enc.0.attn.scores"][0, 0], -1).max().item()
    assert round(unscaled_max, 3) == 0.982
    assert round(scaled_max, 3) == 0.455
    assert torch.allclose(trace["enc.0.attn.scaled"][0, 0], torch.tensor([3.25, 2.25, 3.75, 2.75]))


def test_sinusoidal_pe_d4_positions_0_1_2():
    model = Model.create(ModelConfig(d_model=4, n_heads=1, positional="sinusoidal"))
    pe = model.trace("x y z")["enc.pos"]
    expected = torch.tensor(
        [
            [0.0, 1.0, 0.0, 1.0],
            [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)],
            [math.sin(2), math.cos(2), math.sin(0.02), math.cos(0.02)],
        ]
    )
    assert torch.allclose(pe, expected, atol=1e-6)
    assert [round(v, 3) for v in pe[1].tolist()] == [0.841, 0.540, 0.010, 1.000]


def test_causal_mask_gives_exactly_zero_weight_above_diagonal():
    model = Model.create(ModelConfig(architecture="decoder", d_model=8, n_heads=2, n_layers=2))
    trace = model.trace("<start> 我 爱 大 模型")
    assert trace.tokens["dec"] == ["<start>", "我", "爱", "大", "模型"]
    for i in range(2):
        masked = trace[f"dec.{i}.self_attn.masked"]
        weights = trace[f"dec.{i}.self_attn.weights"]
        above = torch.ones(5, 5, dtype=torch.bool).triu(1)
        assert torch.isneginf(masked[:, above]).all()
        assert (weights[:, above] == 0).all()
        assert torch.allclose(weights.sum(-1), torch.ones(2, 5))


def test_decoder_input_gets_a_start_token():
    model = Model.create(ModelConfig(architecture="decoder"))
    assert model.trace("我 爱")["dec.tokens"].shape == (3,)
    assert model.trace("<start> 我 爱").tokens["dec"] == ["<start>", "我", "爱"]
