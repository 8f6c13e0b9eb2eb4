"""SwiGLU, RoPE and the "what if" switches: every architecture × variant matches an independent reference."""

import json
import random

import pytest
import torch
import torch.nn.functional as F

from engine import EngineError, Model, ModelConfig
from engine.config import SWITCHES
from engine.formats.weights import load_weights, save_weights
from engine.ops import rope, rope_angles
from tests.functional_reference import reference_values, rope_complex, rope_rotate_half
from tests.reference import random_text, randomize

TOL = dict(atol=1e-5, rtol=1e-5)
ARCHS = ("encoder", "decoder", "encoder-decoder")
VARIANTS = [
    dict(activation="swiglu"),
    dict(positional="rope"),
    dict(positional="rope", activation="swiglu", switches=("no_pe",)),
    dict(positional="learned", switches=("no_pe",)),
    dict(switches=("no_scale",)),
    dict(switches=("no_mask",)),
    dict(switches=("no_residual",)),
    dict(switches=("no_layernorm",)),
    dict(positional="rope", switches=SWITCHES),
]


def usable(architecture: str, switches: tuple[str, ...]) -> tuple[str, ...]:
    """The switches a model of this architecture accepts: no_mask needs a decoder (an encoder refuses it)."""
    return tuple(s for s in switches if s != "no_mask" or architecture != "encoder")


def variant_configs():
    configs = [
        ModelConfig(
            architecture=a,
            norm=n,
            d_model=8,
            n_heads=2,
            d_ff=12,
            n_layers=2,
            **{**v, "switches": usable(a, v.get("switches", ()))},
        )
        for a in ARCHS
        for n in ("post", "pre")
        for v in VARIANTS
    ]
    rng = random.Random(5)
    for _ in range(24):  # random mixtures of every option
        h, architecture = rng.choice([1, 2, 4]), rng.choice(ARCHS)
        configs.append(
            ModelConfig(
                architecture=architecture,
                d_model=h * rng.choice([2, 4, 6]),
                n_heads=h,
                d_ff=rng.choice([3, 8, 16]),
                n_layers=rng.choice([1, 2, 3]),
                norm=rng.choice(["post", "pre"]),
                activation=rng.choice(["relu", "gelu", "gelu_tanh", "swiglu"]),
                type_vocab=rng.choice([0, 0, 2]),
                embed_norm=rng.random() < 0.3,
                positional=rng.choice(["sinusoidal", "learned", "none", "rope"]),
                max_len=32,
                ln_eps=rng.choice([1e-5, 1e-3]),
                seed=rng.randrange(1000),
                switches=usable(architecture, tuple(s for s in SWITCHES if rng.random() < 0.3)),
            )
        )
    return configs


CONFIGS = variant_configs()


def traced(cfg, seed):
    rng = random.Random(seed)
    model = Model.create(cfg)
    target = random_text(rng, 0, 6) if cfg.architecture == "encoder-decoder" else None
    trace = model.trace(random_text(rng, 2, 9), target)
    randomize(model, seed)
    trace.recompute_all()
    return trace


@pytest.mark.parametrize("index", range(len(CONFIGS)))
def test_every_stage_matches_functional_reference(index):
    cfg = CONFIGS[index]
    trace = traced(cfg, 100 + index)
    expected = reference_values(trace)
    computed = {st.name for st in trace.stages}
    assert computed == set(expected), f"stages differ: {sorted(computed ^ set(expected))}"
    for name in computed:
        torch.testing.assert_close(trace[name], expected[name].to(trace[name].dtype), **TOL, msg=name)
    for st in trace.stages:  # attention output once more, through torch's own fused attention
        if st.op == "attn.z":
            p = st.name.rsplit(".", 1)[0]
            q, k = (trace[trace.stage(f"{p}.scores").inputs[i]] for i in (0, 1))
            scale = 1.0 if "no_scale" in cfg.switches else None
            mask = trace[f"{p}.masked"][0] > float("-inf")  # the same for every head
            z = F.scaled_dot_product_attention(q, k, trace[f"{p}.v"], attn_mask=mask, scale=scale)
            torch.testing.assert_close(trace[st.name], z, **TOL)


def test_variants_cover_every_option_with_every_architecture():
    seen = {(c.architecture, c.activation) for c in CONFIGS} | {(c.architecture, c.positional) for c in CONFIGS}
    seen |= {(c.architecture, s) for c in CONFIGS for s in c.switches}
    for arch in ARCHS:
        for option in ("swiglu", "rope", *usable(arch, SWITCHES)):
            assert (arch, option) in seen
    assert any(c.type_vocab for c in CONFIGS) and any(c.embed_norm for c in CONFIGS)
    assert any(c.activation == "gelu_tanh" for c in CONFIGS)


def test_rope_matches_complex_rotation_and_rotate_half():
    x = torch.randn(3, 7, 8, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    for start in (0, 5):
        positions = torch.arange(start, start + 7)
        torch.testing.assert_close(rope(x, start), rope_complex(x, positions), atol=1e-12, rtol=0)
        torch.testing.assert_close(rope(x, start), rope_rotate_half(x, positions), atol=1e-12, rtol=0)
    # float32 input keeps its dtype and agrees to 1e-5
    torch.testing.assert_close(rope(x.float(), 3), rope_complex(x, torch.arange(3, 10)).float(), **TOL)


def test_rope_angles_formula_and_relative_positions():
    angles = rope_angles(6, 4, start=2)
    assert angles.shape == (6, 2)
    for row, pos in enumerate(range(2, 8)):
        for i in range(2):
            assert angles[row, i].item() == pytest.approx(pos / 10000 ** (2 * i / 4), rel=1e-12)
    # RoPE's point: q·k after rotation depends on the positions only through their difference
    g = torch.Generator().manual_seed(1)
    q, k = (torch.randn(1, 1, 8, generator=g, dtype=torch.float64) for _ in range(2))
    near = (rope(q, 3) * rope(k, 1)).sum()
    far = (rope(q, 40) * rope(k, 38)).sum()
    assert near.item() == pytest.approx(far.item(), abs=1e-12)
    assert near.item() != pytest.approx((q * k).sum().item(), abs=1e-3)


def test_rope_is_not_applied_to_cross_attention():
    cfg = ModelConfig(architecture="encoder-decoder", positional="rope", d_model=4, n_heads=2)
    trace = Model.create(cfg).trace("I love AI", "我 爱")
    assert "dec.0.self_attn.q_rot" in trace.values and "enc.0.attn.k_rot" in trace.values
    assert not any(".cross_attn." in n and n.endswith("_rot") for n in trace.stage_names)
    assert trace.stage("dec.0.self_attn.scores").inputs == ("dec.0.self_attn.q_rot", "dec.0.self_attn.k_rot")
    assert torch.equal(trace["enc.pos"], torch.zeros(3, 4))


def test_swiglu_parameters_and_stage_order():
    cfg = ModelConfig(activation="swiglu", d_model=4, n_heads=2, d_ff=6)
    model = Model.create(cfg)
    assert model.params["enc.0.ffn.W_gate"].shape == (4, 6) and model.params["enc.0.ffn.b_gate"].shape == (6,)
    trace = model.trace("I love AI")
    ffn = [n for n in trace.stage_names if ".ffn." in n]
    assert ffn == ["enc.0.ffn.up", "enc.0.ffn.gate", "enc.0.ffn.act", "enc.0.ffn.down"]
    up, gate = trace["enc.0.ffn.up"], trace["enc.0.ffn.gate"]
    torch.testing.assert_close(trace["enc.0.ffn.act"], gate * torch.sigmoid(gate) * up)  # the gate is silu-ed


def test_swiglu_weights_round_trip(tmp_path):
    cfg = ModelConfig(architecture="decoder", activation="swiglu", positional="rope", d_model=4, n_heads=2)
    model = Model.create(cfg)
    model.trace("我 爱 大 模型")
    save_weights(model, tmp_path / "w.safetensors")
    loaded = load_weights(cfg, tmp_path / "w.safetensors")
    assert set(loaded.params) == set(model.params)
    assert torch.equal(loaded.params["dec.0.ffn.W_gate"], model.params["dec.0.ffn.W_gate"])


def test_switches_round_trip_through_json_in_one_order():
    cfg = ModelConfig(architecture="decoder", switches=["no_mask", "no_pe"])
    assert cfg.switches == ("no_pe", "no_mask")
    data = json.loads(cfg.to_json())
    assert data["switches"] == ["no_pe", "no_mask"]
    assert ModelConfig.from_dict(data) == cfg
    assert cfg.replace(switches=()).switches == ()
    trace = Model.create(cfg).trace("a b")
    assert trace.config.switches == ("no_pe", "no_mask") and trace.meta()["config"]["switches"] == ["no_pe", "no_mask"]


@pytest.mark.parametrize(
    "bad, words",
    [
        (dict(positional="rope", d_model=6, n_heads=2), ["RoPE", "d_k", "3", "even"]),
        (dict(switches=("no_pe", "no_softmax")), ["no_softmax", "no_scale"]),
        (dict(switches=("no_pe", "no_pe")), ["twice"]),
        (dict(switches="no_pe"), ["list"]),
        (dict(activation="swish"), ["swiglu"]),
    ],
)
def test_bad_variant_configs_are_refused_clearly(bad, words):
    with pytest.raises(EngineError) as err:
        ModelConfig(**bad)
    for w in words:
        assert w in str(err.value)


EDITED = [
    ModelConfig(architecture="encoder", activation="swiglu", positional="rope", d_model=8, n_heads=2),
    ModelConfig(architecture="decoder", positional="learned", switches=("no_pe", "no_layernorm"), norm="pre"),
    ModelConfig(architecture="encoder-decoder", positional="rope", activation="swiglu", switches=SWITCHES),
]


@pytest.mark.parametrize("cfg", EDITED, ids=lambda c: c.architecture)
def test_edits_in_variants_equal_a_full_recompute(cfg):
    trace = traced(cfg, 7)
    rng = random.Random(0)
    for name in rng.sample(sorted(trace.params), 12) + [n for n in trace.params if "gate" in n or "W_pos" in n]:
        index = tuple(rng.randrange(n) for n in trace.params[name].shape)
        recomputed = trace.set_cell(name, index, float(trace.params[name][index]) + 0.5)
        incremental = dict(trace.values)
        trace.recompute_all()
        assert all(torch.equal(incremental[n], trace.values[n]) for n in incremental), name
        switched_off = (
            "no_layernorm" in cfg.switches
            and name.endswith(("gamma", "beta"))
            or ("no_pe" in cfg.switches and name.endswith("W_pos"))
        )
        assert (recomputed == []) == switched_off, name  # a switched-off part's weights feed nothing
