"""Each "what if" switch changes exactly what it should, and shows the effect the lessons promise."""

import pytest
import torch

from engine import EngineError, Model, ModelConfig, stack_output
from engine.config import SWITCHES
from engine.graph import block_outputs
from engine.whatif import layer_spread, max_weight_by_dk, mean_max_weight
from tests.reference import randomize

TEXT = {
    "encoder": ("猫 吃了 鱼 因为 它 饿了", None),
    "decoder": ("<start> 我 爱 大 模型", None),
    "encoder-decoder": ("I love AI", "我 爱 大 模型"),
}


def switched_stages(trace, switch: str) -> list[str]:
    """The stages a switch acts on directly, each checked against what the switch promises."""
    names = []
    for st in trace.stages:
        x = trace[st.inputs[0]] if st.inputs else None
        if switch == "no_pe" and st.op in ("pos", "attn.q_rot", "attn.k_rot"):
            assert torch.equal(trace[st.name], torch.zeros_like(trace[st.name]) if st.op == "pos" else x)
        elif switch == "no_scale" and st.op == "attn.scaled":
            assert torch.equal(trace[st.name], x)  # scaled = scores
        elif switch == "no_mask" and st.op == "attn.masked" and ".self_attn." in st.name:
            assert torch.equal(trace[st.name], x)  # masked = scaled: nothing hidden
        elif switch == "no_residual" and st.op == "add":
            assert st.inputs[0].endswith((".out", ".down")) and torch.equal(trace[st.name], x)  # the sublayer alone
        elif switch == "no_layernorm" and st.op == "norm.out":
            normed = trace.stage(st.name.replace(".out", ".mean")).inputs[0]
            assert st.inputs == (normed,) and torch.equal(trace[st.name], trace[normed])  # out = its input
        else:
            continue
        names.append(st.name)
    return names


CASES = [
    (arch, norm, pos, switch)
    for arch in TEXT
    for norm in ("post", "pre")
    for pos in ("learned", "rope")
    for switch in SWITCHES
]


@pytest.mark.parametrize("arch, norm, positional, switch", CASES)
def test_each_switch_changes_exactly_its_stages(arch, norm, positional, switch):
    cfg = ModelConfig(architecture=arch, norm=norm, positional=positional, d_model=8, n_heads=2, d_ff=8, n_layers=2)
    if switch == "no_mask" and arch == "encoder":  # an encoder hides nothing: the switch is refused, not ignored
        with pytest.raises(EngineError, match="no_mask turns off the decoder's causal mask"):
            cfg.replace(switches=(switch,))
        return
    model = Model.create(cfg)
    before = model.trace(*TEXT[arch])
    randomize(model, 3)
    before.recompute_all()
    after = model.with_config(cfg.replace(switches=(switch,))).trace(*TEXT[arch])
    assert after.stage_names == before.stage_names  # stages keep their names
    direct = switched_stages(after, switch)
    affected = set(direct).union(*[after.downstream(n) for n in direct])
    for name in before.stage_names:
        if name not in affected:
            assert torch.equal(after[name], before[name]), f"{switch} changed {name}"
    assert direct and any(not torch.equal(after[n], before[n]) for n in direct)
    out = stack_output(cfg, cfg.stacks[-1])
    assert not torch.allclose(after[out], before[out], atol=1e-3)


@pytest.mark.parametrize("arch", ["encoder", "encoder-decoder"])
@pytest.mark.parametrize("norm, positional", [("post", "sinusoidal"), ("pre", "learned"), ("post", "rope")])
def test_without_positions_reordering_words_only_reorders_the_outputs(arch, norm, positional):
    cfg = ModelConfig(
        architecture=arch,
        norm=norm,
        positional=positional,
        d_model=8,
        n_heads=2,
        d_ff=16,
        n_layers=3,
        activation="gelu",
    )
    model = Model.create(cfg)
    target = "dog" if arch == "encoder-decoder" else None
    out = stack_output(cfg, "enc")
    with_pe = [model.trace(s, target)[out] for s in ("狗 咬 人", "人 咬 狗")]
    assert not torch.allclose(with_pe[1], with_pe[0][[2, 1, 0]], atol=1e-3)  # positions tell them apart
    blind = model.with_config(cfg.replace(switches=("no_pe",)))
    a, b = blind.trace("狗 咬 人", target), blind.trace("人 咬 狗", target)
    torch.testing.assert_close(b[out], a[out][[2, 1, 0]], atol=1e-6, rtol=0)
    w = "enc.0.attn.weights"
    torch.testing.assert_close(b[w], a[w][:, [2, 1, 0]][:, :, [2, 1, 0]], atol=1e-6, rtol=0)


def test_without_scaling_the_softmax_saturates_as_d_k_grows():
    cfg = ModelConfig(n_heads=2, d_model=4)
    d_ks = [1, 4, 16, 64, 256]
    curves = max_weight_by_dk(cfg, "猫 吃了 鱼 因为 它 饿了", d_ks)
    scaled, unscaled = curves["scaled"], curves["unscaled"]
    assert scaled[0] == unscaled[0]  # √1 = 1: the same at d_k = 1
    assert all(a < b for a, b in zip(unscaled, unscaled[1:]))  # towards one-hot…
    assert unscaled[-1] > 0.9
    assert max(scaled) < 0.65 and all(s < u for s, u in zip(scaled[1:], unscaled[1:]))  # …which scaling prevents


def test_mean_max_weight():
    w = torch.tensor([[[1.0, 0.0], [0.5, 0.5]], [[0.25, 0.75], [0.0, 1.0]]])
    assert mean_max_weight(w) == pytest.approx((1 + 0.5 + 0.75 + 1) / 4)


@pytest.mark.parametrize("arch", ["decoder", "encoder-decoder"])
def test_without_the_mask_the_decoder_sees_the_future(arch):
    cfg = ModelConfig(architecture=arch, d_model=8, n_heads=2)
    model = Model.create(cfg)
    masked = model.trace(*TEXT[arch])
    seeing = model.with_config(cfg.replace(switches=("no_mask",))).trace(*TEXT[arch])
    w, w0 = seeing["dec.0.self_attn.weights"], masked["dec.0.self_attn.weights"]
    above = torch.ones(w.shape[-2:], dtype=torch.bool).triu(1)
    assert bool((w[:, above] > 0).all()) and bool((w0[:, above] == 0).all())
    assert torch.isneginf(masked["dec.0.self_attn.masked"][:, above]).all()
    torch.testing.assert_close(w[:, -1], w0[:, -1])  # the last word has no future: its row is unchanged


def test_layer_spread_is_the_std_of_the_residual_stream():
    for norm in ("post", "pre"):
        cfg = ModelConfig(architecture="encoder-decoder", norm=norm, d_model=8, n_heads=2, n_layers=3)
        trace = Model.create(cfg).trace("I love AI", "我 爱")
        for stack in ("enc", "dec"):
            last = (
                "add3"
                if stack == "dec" and norm == "pre"
                else "norm3.out"
                if stack == "dec"
                else ("add2" if norm == "pre" else "norm2.out")
            )
            names = [f"{stack}.x0"] + [f"{stack}.{i}.{last}" for i in range(3)]
            assert block_outputs(cfg, stack) == names
            expected = [float(torch.std(trace[n], unbiased=False)) for n in names]
            assert layer_spread(trace, stack) == pytest.approx(expected)
        assert layer_spread(trace) == layer_spread(trace, "dec")
    bert = ModelConfig(embed_norm=True, n_layers=2)
    assert block_outputs(bert, "enc") == ["enc.embed_norm.out", "enc.0.norm2.out", "enc.1.norm2.out"]


def spreads(norm, switches):
    cfg = ModelConfig(d_model=16, n_heads=2, d_ff=64, n_layers=12, norm=norm, switches=switches)
    return layer_spread(Model.create(cfg).trace("猫 吃了 鱼 因为 它 饿了"))


def test_layer_spread_grows_without_layernorm_and_collapses_without_both():
    normal = spreads("post", ())
    assert all(abs(s - 1) < 0.02 for s in normal[1:])  # LayerNorm holds every layer at spread 1
    for norm in ("post", "pre"):
        growing = spreads(norm, ("no_layernorm",))
        assert all(a < b for a, b in zip(growing, growing[1:])) and growing[-1] > 50 * growing[0]
        collapsing = spreads(norm, ("no_residual", "no_layernorm"))
        assert collapsing[-1] < 0.02 * collapsing[0]


def test_with_config_keeps_weights_and_vocab_and_toggles_back():
    cfg = ModelConfig(architecture="decoder", d_model=8, n_heads=2, positional="sinusoidal")
    model = Model.create(cfg)
    original = model.trace("<start> 我 爱 大 模型")
    switched = model.with_config(cfg.replace(switches=("no_scale", "no_pe"), positional="rope"))
    assert switched.vocabs["dec"].tokens == model.vocabs["dec"].tokens
    assert all(switched.params[n] is t for n, t in model.params.items())
    trace = switched.trace("<start> 我 爱 大 模型")
    assert trace.config.switches == ("no_pe", "no_scale")
    assert trace.meta()["config"]["switches"] == ["no_pe", "no_scale"]
    trace.set_cell("dec.0.self_attn.W_Q", (0, 0), 5.0)
    assert model.params["dec.0.self_attn.W_Q"][0, 0] != 5.0  # the other model's weights are untouched
    back = model.with_config(cfg).trace("<start> 我 爱 大 模型")
    for name in original.stage_names:
        assert torch.equal(back[name], original[name])


@pytest.mark.parametrize(
    "change",
    [
        dict(activation="swiglu"),
        dict(d_model=4),
        dict(positional="learned"),
        dict(architecture="encoder-decoder"),
        dict(dec_vocab=("a", "b")),
    ],
)
def test_with_config_refuses_changes_that_need_other_weights(change):
    cfg = ModelConfig(architecture="decoder", d_model=8, n_heads=2)
    model = Model.create(cfg)
    with pytest.raises(EngineError, match="other weights"):
        model.with_config(cfg.replace(**change))
