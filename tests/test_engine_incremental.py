"""An edit recomputes only what is downstream, and the result equals a full recompute exactly."""

import random

import pytest
import torch

from engine import EngineError, Model, ModelConfig
from tests.reference import randomize

CONFIGS = [
    ModelConfig(architecture="encoder", d_model=8, n_heads=2, d_ff=12, n_layers=2),
    ModelConfig(
        architecture="decoder",
        d_model=8,
        n_heads=2,
        d_ff=12,
        n_layers=2,
        norm="pre",
        activation="gelu",
        positional="learned",
        max_len=16,
    ),
    ModelConfig(architecture="encoder-decoder", d_model=8, n_heads=4, d_ff=12, n_layers=2, positional="none"),
]


def fresh(cfg):
    model = Model.create(cfg)
    trace = model.trace("the cat sat on the mat", "猫 坐 在 垫子 上" if cfg.architecture == "encoder-decoder" else None)
    randomize(model, 3, dtype=torch.float32)
    trace.recompute_all()
    return model, trace


def assert_same_as_full_recompute(trace):
    incremental = {n: t.clone() for n, t in trace.values.items()}
    trace.recompute_all()
    for name, tensor in incremental.items():
        assert torch.equal(tensor, trace.values[name]), name


def one_op_of_each_kind(trace):
    seen = {}
    for st in trace.stages:
        seen.setdefault(st.op, st.name)
    return list(seen.values())


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: c.architecture)
def test_every_parameter_edit_equals_full_recompute_and_spares_upstream(cfg):
    model, trace = fresh(cfg)
    rng = random.Random(0)
    order = {n: i for i, n in enumerate(trace.stage_names)}
    for name in list(trace.params):
        tensor = trace.params[name]
        index = tuple(rng.randrange(n) for n in tensor.shape)
        before = {n: t for n, t in trace.values.items()}
        count = trace.compute_count
        recomputed = trace.set_cell(name, index, float(tensor[index]) + 0.75)
        assert trace.compute_count - count == len(recomputed)
        assert recomputed == trace.downstream(name)
        first = min((order[n] for n in recomputed), default=len(order))
        for n in trace.stage_names[:first]:
            assert trace.values[n] is before[n], f"{n} upstream of {name} was recomputed"
        assert_same_as_full_recompute(trace)


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: c.architecture)
def test_every_stage_kind_can_be_overridden(cfg):
    model, trace = fresh(cfg)
    for name in one_op_of_each_kind(trace):
        tensor = trace.values[name]
        index = tuple(0 for _ in tensor.shape)
        count = trace.compute_count
        recomputed = trace.set_cell(name, index, 0.5)
        assert trace.values[name][index] == 0.5
        assert recomputed == [name] + trace.downstream(name)
        assert trace.compute_count - count == len(recomputed)
        assert_same_as_full_recompute(trace)
        assert trace.values[name][index] == 0.5  # the override survives a full recompute


def test_clearing_an_override_restores_the_computed_value():
    model, trace = fresh(CONFIGS[0])
    original = {n: t.clone() for n, t in trace.values.items()}
    trace.set_cell("enc.x0", (1, 2), 9.0)
    assert not torch.equal(trace["enc.0.attn.q"], original["enc.0.attn.q"])
    trace.set_override("enc.x0", None)
    for name, tensor in original.items():
        assert torch.equal(trace.values[name], tensor), name


def test_an_edit_of_the_last_layer_touches_no_earlier_stage():
    model, trace = fresh(CONFIGS[0])
    recomputed = trace.set_cell("enc.1.ffn.W2", (0, 0), 1.0)
    assert recomputed == [
        "enc.1.ffn.down",
        "enc.1.add2",
        "enc.1.norm2.mean",
        "enc.1.norm2.var",
        "enc.1.norm2.hat",
        "enc.1.norm2.out",
    ]


@pytest.mark.parametrize("bad", ["abc", "nan", float("nan"), float("inf"), "-inf", 2e6, "", None, True])
def test_bad_values_are_refused_and_change_nothing(bad):
    model, trace = fresh(CONFIGS[0])
    params = dict(trace.params)
    values = dict(trace.values)
    with pytest.raises(EngineError):
        trace.set_cell("enc.0.attn.W_Q", (0, 0), bad)
    with pytest.raises(EngineError):
        trace.set_cell("enc.x0", (0, 0), bad)
    assert all(trace.params[n] is t for n, t in params.items())
    assert all(trace.values[n] is t for n, t in values.items())


def test_bad_cells_and_names_are_refused():
    model, trace = fresh(CONFIGS[0])
    for name, index in [("enc.0.attn.W_Q", (8, 0)), ("enc.0.attn.W_Q", (0,)), ("nope", (0, 0)), ("enc.tokens", (0,))]:
        with pytest.raises(EngineError):
            trace.set_cell(name, index, 1.0)
