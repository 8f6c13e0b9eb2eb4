"""Provenance agrees with autograd: an output cell depends on exactly the input cells it names."""

import itertools
import random

import pytest
import torch

from engine import Model, ModelConfig
from engine.provenance import ALL, sources

CONFIGS = [
    ModelConfig(architecture="encoder", d_model=4, n_heads=2, d_ff=6, activation="gelu"),
    ModelConfig(
        architecture="decoder", d_model=6, n_heads=3, d_ff=4, norm="pre", positional="learned", activation="gelu"
    ),
    ModelConfig(architecture="encoder-decoder", d_model=4, n_heads=2, d_ff=4, activation="gelu"),
    ModelConfig(
        architecture="decoder",
        d_model=8,
        n_heads=2,
        d_ff=6,
        positional="rope",
        activation="swiglu",
        type_vocab=2,
        embed_norm=True,
    ),
    ModelConfig(
        architecture="encoder",
        d_model=4,
        n_heads=2,
        d_ff=4,
        positional="rope",
        activation="gelu_tanh",
        switches=("no_pe", "no_scale", "no_residual", "no_layernorm"),
    ),
]


def make_trace(cfg):
    model = Model.create(cfg)
    target = "ich liebe KI" if cfg.architecture == "encoder-decoder" else None
    trace = model.trace("I love AI so much", target)
    gen = torch.Generator().manual_seed(1)
    for name, p in list(model.params.items()):  # generic values: no accidental zeros in biases, gamma, beta
        trace.params[name] = p + 0.3 * torch.randn(p.shape, generator=gen)
    trace.recompute_all()
    return trace


def dependency_masks(trace, name, index, gen):
    """Autograd at a generic point (random inputs): which input cells move the output cell."""
    st = trace.stage(name)
    env = []
    for inp in st.inputs:
        t = trace[inp]
        generic = torch.rand(t.shape, generator=gen) + 0.5  # positive: a valid variance too
        env.append(generic.requires_grad_(True) if t.is_floating_point() else t)
    if not any(isinstance(t, torch.Tensor) and t.requires_grad for t in env):
        return {}  # e.g. sinusoidal positions: a function of the position alone
    st.fn(*env)[index].backward()
    return {inp: t.grad != 0 for inp, t in zip(st.inputs, env) if t.is_floating_point()}


def selection_mask(shape, selector):
    mask = torch.zeros(shape, dtype=torch.bool)
    mask[selector] = True
    return mask


def sample_indices(shape, rng, k=6):
    cells = list(itertools.product(*[range(n) for n in shape]))
    return rng.sample(cells, min(k, len(cells)))


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: f"{c.architecture}-{c.positional}-{c.activation}")
def test_sources_match_autograd(cfg):
    trace, rng, gen = make_trace(cfg), random.Random(0), torch.Generator().manual_seed(2)
    for name in trace.stage_names:
        st = trace.stage(name)
        if st is None:
            continue
        for index in sample_indices(tuple(trace[name].shape), rng):
            found = sources(trace, name, index)
            assert set(found) <= set(st.inputs), name
            for inp, needed in dependency_masks(trace, name, index, gen).items():
                selected = selection_mask(needed.shape, found[inp]) if inp in found else torch.zeros_like(needed)
                if st.op in ("attn.q_rot", "attn.k_rot") and index[1] == 0:
                    # position 0 turns by angle 0: the pair's partner enters with coefficient sin 0 = 0
                    assert not (needed & ~selected).any(), f"{name}{index}: {inp} uses cells provenance misses"
                    continue
                assert torch.equal(needed, selected), f"{name}{index}: provenance of {inp} differs from autograd"


def test_examples_from_the_lesson():
    trace = make_trace(CONFIGS[0])
    assert sources(trace, "enc.0.attn.scores", (1, 2, 0)) == {"enc.0.attn.q": (1, 2, ALL), "enc.0.attn.k": (1, 0, ALL)}
    assert sources(trace, "enc.0.attn.z", (0, 1, 1)) == {"enc.0.attn.weights": (0, 1, ALL), "enc.0.attn.v": (0, ALL, 1)}
    assert sources(trace, "enc.0.attn.q", (1, 0, 1)) == {
        "enc.x0": (0, ALL),
        "enc.0.attn.W_Q": (ALL, 3),
        "enc.0.attn.b_Q": (3,),
    }
    assert sources(trace, "enc.0.norm1.out", (2, 3)) == {
        "enc.0.norm1.hat": (2, 3),
        "enc.0.norm1.gamma": (3,),
        "enc.0.norm1.beta": (3,),
    }
    ids = trace["enc.tokens"]
    assert sources(trace, "enc.embed", (1, 2))["enc.embed.W_E"] == (int(ids[1]), 2)


def test_hidden_cells_come_from_the_mask_alone():
    trace = make_trace(CONFIGS[1])
    assert sources(trace, "dec.0.self_attn.masked", (0, 0, 2)) == {}
    assert sources(trace, "dec.0.self_attn.masked", (0, 2, 0)) == {"dec.0.self_attn.scaled": (0, 2, 0)}


def test_out_of_range_and_token_stages_have_no_sources():
    trace = make_trace(CONFIGS[0])
    assert sources(trace, "enc.tokens", (0,)) == {}
    assert sources(trace, "enc.0.attn.scores", (5, 0, 0)) == {}
    assert sources(trace, "enc.0.attn.scores", (0, 0)) == {}


def test_rope_pairs_and_switched_off_steps():
    trace = make_trace(CONFIGS[3])
    assert sources(trace, "dec.0.self_attn.q_rot", (1, 2, 3)) == {"dec.0.self_attn.q": (1, 2, slice(2, 4))}
    assert sources(trace, "dec.type", (1, 5)) == {"dec.type.W_T": (0, 5)}
    off = make_trace(CONFIGS[4])
    assert sources(off, "enc.0.norm1.out", (1, 2)) == {"enc.0.add1": (1, 2)}  # LayerNorm off: out = x
    assert sources(off, "enc.0.add1", (0, 3)) == {"enc.0.attn.out": (0, 3)}  # residual off
    assert sources(off, "enc.0.attn.q_rot", (0, 1, 1)) == {"enc.0.attn.q": (0, 1, 1)}  # RoPE off
