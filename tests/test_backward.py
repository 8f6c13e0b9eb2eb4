"""The loss and the backward pass: every grad.* against central finite differences and independent
torch references; one gradient-descent step applied and undone; `trace --grads`."""

import math
import random

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from engine import EngineError, Model, ModelConfig
from engine.config import SWITCHES
from engine.formats.lesson import open_lesson
from engine.formats.reading import MAX_ABS_VALUE
from engine.graph import block_outputs
from engine.training.backward import (
    MAX_LR,
    apply_step,
    backward,
    backward_stages,
    loss_values,
    training_step,
    undo_step,
)
from tests.functional_reference import Reference
from tests.reference import causal, decoder_layer, encoder_layer, random_text, randomize, sinusoidal
from tests.test_cli import run, write_config

H = 1e-4  # central-difference step in float64: truncation error ~H⁴, rounding ~1e-16/H


def random_loss_config(rng: random.Random, switches=True) -> ModelConfig:
    h = rng.choice([1, 2])
    return ModelConfig(
        architecture=rng.choice(["decoder", "encoder-decoder"]),
        d_model=h * rng.choice([2, 4]),
        n_heads=h,
        d_ff=rng.choice([4, 6]),
        n_layers=rng.choice([1, 2]),
        norm=rng.choice(["post", "pre"]),
        activation=rng.choice(["relu", "gelu", "gelu_tanh", "swiglu"]),
        positional=rng.choice(["sinusoidal", "learned", "rope", "none"]),
        max_len=16,
        switches=tuple(s for s in SWITCHES if switches and rng.random() < 0.3),
        seed=rng.randrange(1000),
    )


def traced(cfg: ModelConfig, rng: random.Random):
    model = Model.create(cfg)
    target = random_text(rng, 1, 4) if cfg.architecture == "encoder-decoder" else None
    trace = model.trace(random_text(rng, 1, 4), target)
    randomize(model, rng.randrange(10**6))  # float64 parameters
    trace.recompute_all()
    return trace


def cells(t: torch.Tensor, grad: torch.Tensor, rng: random.Random) -> list[tuple[int, ...]]:
    """The cell of the largest gradient and two random finite cells."""
    finite = torch.isfinite(t).nonzero().tolist()
    largest = tuple(int(i) for i in np.unravel_index(grad.abs().argmax().item(), grad.shape))
    return [largest] + [tuple(c) for c in rng.sample(finite, min(2, len(finite)))]


def bumped(t: torch.Tensor, cell: tuple[int, ...], by: float) -> torch.Tensor:
    new = t.clone()
    new[cell] += by
    return new


def central(f, t: torch.Tensor, cell, floor: float = 1e-2) -> float:
    """Fourth-order central difference (Richardson) with a step relative to the cell's size: the error is
    O(step⁴) even where LayerNorm's 1/√var or the loss's −log p curves hard (floor 0 for a probability,
    which can be far smaller than any fixed step)."""
    step = H * min(1.0, max(abs(float(t[cell])), floor))

    def diff(h):
        return f(bumped(t, cell, h)) - f(bumped(t, cell, -h))

    return (8 * diff(step) - diff(2 * step)) / (12 * step)


def assert_matches(name, cell, fd, g):
    assert abs(fd - g) <= 1e-6 * max(abs(fd), abs(g)) + 1e-9, f"{name}{list(cell)}: fd {fd!r} vs grad {g!r}"


@pytest.mark.parametrize("seed", range(10))
def test_every_gradient_matches_central_differences(seed):
    rng = random.Random(seed)
    trace = traced(random_loss_config(rng), rng)
    if seed % 3 == 0:  # an edited stage: nothing flows upstream through it, exactly as the trace computes it
        name = rng.choice([st.name for st in trace.stages if st.op in ("add", "attn.z", "ffn.act")])
        trace.set_override(name, trace.values[name] + 0.5)
    grads = backward(trace, dtype=torch.float64)
    labels = grads["dec.labels"]
    from_trace = -torch.log(trace.values["probs"][torch.arange(len(labels)), labels]).mean()  # edits included
    assert float(grads["loss"]) == pytest.approx(float(from_trace), rel=1e-12)
    for step in backward_stages(trace):
        t = (loss_values(trace)[step.of] if step.of.startswith("loss") else trace.values[step.of]).double()

        def at(v, stage=step.of):
            return float(loss_values(trace, overrides={stage: v})["loss"])

        for cell in cells(t, grads[step.name], rng):
            fd = central(at, t, cell, floor=0 if step.of == "probs" else 1e-2)
            assert_matches(step.name, cell, fd, float(grads[step.name][cell]))
    for name, p in trace.params.items():

        def at(v, name=name):
            return float(loss_values(trace, params=trace.params | {name: v})["loss"])

        for cell in cells(p, grads[f"grad.{name}"], rng):
            assert_matches(f"grad.{name}", cell, central(at, p, cell), float(grads[f"grad.{name}"][cell]))


def test_names_shapes_and_order():
    trace = traced(random_loss_config(random.Random(3), switches=False), random.Random(3))
    grads = backward(trace)
    stages = [n for n in trace.stage_names if not n.endswith(".tokens")]
    assert list(grads)[:3] == ["dec.labels", "loss.per_position", "loss"]
    assert [k[5:] for k in grads if k.startswith("grad.") and k[5:] not in trace.params] == [
        "loss",
        "loss.per_position",
    ] + stages[::-1]
    assert [k[5:] for k in grads if k[5:] in trace.params] == list(trace.params)
    for name in stages:
        assert grads[f"grad.{name}"].shape == trace.values[name].shape
    assert grads["dec.labels"].tolist() == trace.values["dec.tokens"].tolist()[1:] + [2]  # … <end>
    rules = {s.of: s.rule for s in backward_stages(trace)}
    assert rules["probs"] == rules["dec.0.self_attn.weights"] == "softmax_jacobian"
    assert rules["dec.0.add1"] == "residual" and rules["logits"] == "linear"


def test_switches_give_identity_rules():
    cfg = ModelConfig(
        architecture="decoder",
        d_model=4,
        n_heads=1,
        d_ff=4,
        n_layers=1,
        max_len=8,
        switches=("no_scale", "no_residual", "no_layernorm"),
    )
    rules = {s.of: s.rule for s in backward_stages(Model.create(cfg).trace("a b"))}
    assert rules["dec.0.self_attn.scaled"] == rules["dec.0.add1"] == rules["dec.0.norm1.out"] == "identity"


def test_tiled_attention_stepped_beside_the_model_has_its_rule_and_no_gradient():
    cfg = ModelConfig(architecture="decoder", d_model=4, n_heads=1, d_ff=4, n_layers=1, max_len=8, tiled=(2, 2))
    trace = Model.create(cfg).trace("a b c")
    rules = {s.of: s.rule for s in backward_stages(trace)}
    tiled = [name for name in rules if ".tiled." in name]
    assert tiled and {rules[name] for name in tiled} == {"tiled"}
    grads = backward(trace)
    assert all(not grads[f"grad.{name}"].any() for name in tiled)
    assert grads["grad.dec.0.self_attn.z"].any()  # the model reads the untiled path


def functional_param_grads(trace) -> dict[str, torch.Tensor]:
    """Parameter gradients of the same loss through tests/functional_reference.py, by torch autograd."""
    P = {k: v.detach().clone().requires_grad_(True) for k, v in trace.params.items()}
    ids = {s: trace.values[f"{s}.tokens"] for s in trace.config.stacks}
    probs = Reference(trace.config, P).run(ids)["probs"]
    loss = F.nll_loss(torch.log(probs), loss_values(trace)["dec.labels"])
    grads = torch.autograd.grad(loss, list(P.values()), allow_unused=True)
    return {k: torch.zeros_like(v) if g is None else g for (k, v), g in zip(P.items(), grads)}


@pytest.mark.parametrize("seed", range(8))
def test_parameter_gradients_match_a_functional_reference(seed):
    rng = random.Random(100 + seed)
    trace = traced(random_loss_config(rng), rng)
    grads, expected = backward(trace, dtype=torch.float64), functional_param_grads(trace)
    for name, g in expected.items():
        torch.testing.assert_close(grads[f"grad.{name}"], g, rtol=1e-9, atol=1e-12, msg=name)


def nn_layer_reference(trace):
    """The loss through torch.nn.Transformer*Layer blocks with copied weights: parameter gradients (mapped
    back to engine names) and the gradient at each block's output (decoder stack)."""
    cfg, P0 = trace.config, trace.params
    P = {k: v.detach().clone().requires_grad_(True) for k, v in P0.items()}
    layers, residual = {}, []

    def embed(s):
        ids = trace.values[f"{s}.tokens"]
        x = F.embedding(ids, P[f"{s}.embed.W_E"])
        if cfg.positional == "sinusoidal":
            x = x + sinusoidal(len(ids), cfg.d_model).float().double()
        elif cfg.positional == "learned":
            x = x + P[f"{s}.pos.W_pos"][: len(ids)]
        return x[None]

    def final(s, x):
        if cfg.norm == "pre":
            x = F.layer_norm(x, (cfg.d_model,), P[f"{s}.final_norm.gamma"], P[f"{s}.final_norm.beta"], cfg.ln_eps)
        return x

    memory = None
    if "enc" in cfg.stacks:
        x = embed("enc")
        for i in range(cfg.n_layers):
            layers[f"enc.{i}"] = encoder_layer(cfg, P0, f"enc.{i}", "attn")
            x = layers[f"enc.{i}"](x)
        memory = final("enc", x)
    x = embed("dec")
    n = x.shape[1]
    for i in range(cfg.n_layers):
        x.retain_grad()
        residual.append(x)
        b = f"dec.{i}"
        if memory is None:
            layers[b] = encoder_layer(cfg, P0, b, "self_attn")
            x = layers[b](x, src_mask=causal(n))
        else:
            layers[b] = decoder_layer(cfg, P0, b)
            x = layers[b](x, memory, tgt_mask=causal(n))
    x.retain_grad()
    residual.append(x)
    logits = F.linear(final("dec", x)[0], P["unembed.W_U"].T, P["unembed.b_U"])
    F.cross_entropy(logits, loss_values(trace)["dec.labels"]).backward()
    grads = {k: v.grad for k, v in P.items() if v.grad is not None}
    for b, layer in layers.items():
        attns = {"attn": layer.self_attn} if b.startswith("enc") else {"self_attn": layer.self_attn}
        if hasattr(layer, "multihead_attn"):
            attns["cross_attn"] = layer.multihead_attn
        for a, m in attns.items():
            for j, x in enumerate("QKV"):
                grads[f"{b}.{a}.W_{x}"] = m.in_proj_weight.grad.chunk(3)[j].T
                grads[f"{b}.{a}.b_{x}"] = m.in_proj_bias.grad.chunk(3)[j]
            grads[f"{b}.{a}.W_O"], grads[f"{b}.{a}.b_O"] = m.out_proj.weight.grad.T, m.out_proj.bias.grad
        for k in (1, 2):
            lin = getattr(layer, f"linear{k}")
            grads[f"{b}.ffn.W{k}"], grads[f"{b}.ffn.b{k}"] = lin.weight.grad.T, lin.bias.grad
        for k in range(1, 4 if hasattr(layer, "norm3") else 3):
            norm = getattr(layer, f"norm{k}")
            grads[f"{b}.norm{k}.gamma"], grads[f"{b}.norm{k}.beta"] = norm.weight.grad, norm.bias.grad
    return grads, [x.grad[0] for x in residual]


@pytest.mark.parametrize("seed", range(6))
def test_gradients_match_torch_nn_transformer_layers(seed):
    rng = random.Random(200 + seed)
    cfg = random_loss_config(rng, switches=False)
    cfg = cfg.replace(activation=rng.choice(["relu", "gelu"]), positional=rng.choice(["sinusoidal", "learned"]))
    trace = traced(cfg, rng)
    grads = backward(trace, dtype=torch.float64)
    expected, residual = nn_layer_reference(trace)
    assert set(expected) == set(trace.params)
    for name, g in expected.items():
        torch.testing.assert_close(grads[f"grad.{name}"], g, rtol=1e-8, atol=1e-10, msg=name)
    for name, g in zip(block_outputs(cfg, "dec"), residual):
        torch.testing.assert_close(grads[f"grad.{name}"], g, rtol=1e-8, atol=1e-10, msg=name)


def test_backward_leaves_the_trace_alone_and_refuses_an_encoder():
    trace = traced(random_loss_config(random.Random(5)), random.Random(5))
    before = {k: v.clone() for k, v in trace.values.items()}
    backward(trace)
    assert all(torch.equal(before[k], trace.values[k]) for k in before)
    enc = Model.create(ModelConfig(architecture="encoder", d_model=4, n_heads=1, d_ff=4, n_layers=1))
    with pytest.raises(EngineError, match="no output head"):
        backward(enc.trace("a b"))


def test_a_training_step_lowers_the_loss_and_is_undone_exactly():
    rng = random.Random(7)
    trace = traced(random_loss_config(rng).replace(switches=()), rng)
    params = dict(trace.params)
    values = {k: v.clone() for k, v in trace.values.items()}
    step = training_step(trace, lr=0.01)
    assert all(trace.params[k] is params[k] for k in params)  # pure: nothing changed yet
    assert step.loss_after < step.loss_before == pytest.approx(float(loss_values(trace)["loss"]))
    for u in step.params.values():
        torch.testing.assert_close(u.after, u.before - 0.01 * u.grad, rtol=0, atol=0)
    apply_step(trace, step)
    assert float(loss_values(trace)["loss"]) == pytest.approx(step.loss_after, rel=1e-12)
    assert torch.equal(trace.params["unembed.W_U"], step.params["unembed.W_U"].after)
    undo_step(trace, step)
    assert all(torch.equal(trace.params[k], params[k]) for k in params)
    assert all(torch.equal(trace.values[k], values[k]) for k in values)
    with pytest.raises(EngineError, match="learning rate"):
        training_step(trace, lr=float("nan"))


def assert_fit(trace) -> None:
    """Every weight finite and within a cell edit's limit, and the loss finite."""
    for name, w in trace.params.items():
        assert torch.isfinite(w).all() and w.abs().max() <= MAX_ABS_VALUE, name
    assert math.isfinite(float(loss_values(trace)["loss"]))


@pytest.mark.parametrize("lr", [MAX_LR, 10.0])
def test_training_steps_never_make_a_weight_non_finite(lr):
    """At MAX_LR one step sent masked-decoder's loss to inf and the next left 227 weights NaN (issue 44): two
    steps in a row are each refused, saying what to try, or leave every weight finite."""
    trace = open_lesson("masked-decoder").trace()
    for _ in range(2):
        try:
            apply_step(trace, training_step(trace, lr))
        except EngineError as exc:
            assert "try a smaller learning rate" in str(exc)
        assert_fit(trace)


@pytest.mark.parametrize("name", ["unembed.W_U", "dec.0.norm2.gamma"])
def test_training_steps_after_a_huge_cell_edit_keep_the_weights_finite(name):
    """lr 0.1 after a ±1e6 cell edit left every weight NaN (issue 44)."""
    trace = open_lesson("masked-decoder").trace()
    trace.set_cell(name, (0,) * trace.params[name].dim(), -MAX_ABS_VALUE)
    for _ in range(2):
        try:
            apply_step(trace, training_step(trace, 0.1))
        except EngineError as exc:
            assert "no step was taken" in str(exc)
        for w in trace.params.values():
            assert torch.isfinite(w).all() and w.abs().max() <= MAX_ABS_VALUE


def exactly(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal value for value, a NaN equal to a NaN."""
    return a.shape == b.shape and torch.allclose(a.double(), b.double(), rtol=0, atol=0, equal_nan=True)


def unchanged(trace):
    """A check that the trace's parameters and stages are still what they are now."""
    before = {k: v.clone() for k, v in (trace.params | trace.values).items()}

    def same() -> bool:
        now = trace.params | trace.values
        return now.keys() == before.keys() and all(exactly(now[k], v) for k, v in before.items())

    return same


def test_a_step_after_which_a_right_token_gets_probability_0_keeps_a_finite_loss():
    """At MAX_LR masked-decoder's weights stay small (≤ 44) but a right token's probability rounds to 0: −log p of
    the float32 probabilities was inf; the loss of that row is read from the logits (log-softmax), finite."""
    trace = open_lesson("masked-decoder").trace()
    step = training_step(trace, MAX_LR)
    assert math.isfinite(step.loss_after)
    apply_step(trace, step)
    assert (trace.values["probs"].gather(-1, loss_values(trace)["dec.labels"][:, None]) == 0).any()
    assert_fit(trace)


def zeroed(cfg: ModelConfig, big: tuple[str, ...] = (), value: float = MAX_ABS_VALUE):
    """A trace of "a b" whose weights are 0, except those whose names end with one of `big`: ±value (seeded)."""
    trace = Model.create(cfg).trace("a b")
    signs = torch.Generator().manual_seed(0)
    for name, w in trace.params.items():
        trace.set_param(name, torch.randn(w.shape, generator=signs).sign() * value if name.endswith(big) else 0 * w)
    return trace


def test_a_step_that_would_take_a_weight_beyond_the_cell_limit_is_refused():
    """No LayerNorm, one large embedding column and W_U = 0: the loss is log 5, ∂L/∂W_U about 1e5."""
    cfg = ModelConfig(
        architecture="decoder", d_model=4, n_heads=1, d_ff=4, n_layers=1, positional="none", switches=("no_layernorm",)
    )
    trace = zeroed(cfg)
    embed = torch.zeros_like(trace.params["dec.embed.W_E"])
    embed[:, 0] = 1e5
    trace.set_param("dec.embed.W_E", embed)
    same = unchanged(trace)
    beyond = r"would set unembed.W_U\[\d+, \d+\] to -?[\d.]+e\+06 \(weights stay within ±1e\+06\)"
    with pytest.raises(EngineError, match=f"learning rate 100 this step {beyond}; no step was taken: try a smaller"):
        training_step(trace, MAX_LR)
    assert same()
    apply_step(trace, training_step(trace, 1e-3))  # a small rate is taken
    assert_fit(trace)


NO_LAYERNORM = ModelConfig(
    architecture="decoder",
    d_model=4,
    n_heads=1,
    d_ff=4,
    n_layers=2,
    positional="none",
    activation="gelu",
    switches=("no_layernorm",),
)
HUGE = ("W_V", "W_O", "W1", "W2", "W_U")  # ±1e6 in these: each product multiplies by about 4e6


def test_a_step_from_a_loss_that_is_not_finite_is_refused():
    """Embeddings of ±1e6 too: the forward pass overflows float32 and the loss is NaN."""
    trace = zeroed(NO_LAYERNORM, (*HUGE, "W_E"))
    assert math.isnan(float(loss_values(trace)["loss"]))
    same = unchanged(trace)
    with pytest.raises(
        EngineError,
        match=r"the loss on this sentence is nan \(a stage overflowed\), so its gradients are not numbers; no step "
        r"was taken: bring the weights nearer 0 \(undo the last edits, or reset the weights\)",
    ):
        training_step(trace, 0.1)
    assert same()


def test_a_step_whose_gradient_overflows_is_refused():
    """Embeddings of 0: the forward pass is finite (every stage 0, the loss log 5) but the gradient overflows on its
    way back to the embeddings."""
    trace = zeroed(NO_LAYERNORM, HUGE)
    assert math.isfinite(float(loss_values(trace)["loss"]))
    same = unchanged(trace)
    with pytest.raises(EngineError, match="the gradient of dec.embed.W_E holds NaN or infinity; no step was taken"):
        training_step(trace, 1e-3)
    assert same()


@pytest.mark.parametrize("arch", ["decoder", "encoder-decoder"])
def test_cli_trace_grads_writes_the_loss_and_every_gradient(tmp_path, arch):
    config = write_config(tmp_path, architecture=arch, d_model=8, n_heads=2, n_layers=2)
    target = ["--target", "我 爱 AI"] if arch == "encoder-decoder" else []
    out = tmp_path / "g.npz"
    result = run("trace", "--grads", "--config", config, "--text", "I love AI", *target, "--out", str(out))
    assert result.returncode == 0, result.stderr
    data = np.load(out, allow_pickle=False)
    trace = Model.create(ModelConfig.from_json_file(config)).trace("I love AI", target[1] if target else None)
    stages = [n for n in trace.stage_names if not n.endswith(".tokens")]
    expected = {f"grad.{n}" for n in stages + list(trace.params) + ["loss", "loss.per_position"]}
    assert set(data.files) == set(trace.stage_names) | expected | {"meta", "loss", "loss.per_position", "dec.labels"}
    assert data["loss"] == pytest.approx(data["loss.per_position"].mean())
    assert data["grad.unembed.W_U"].shape == tuple(trace.params["unembed.W_U"].shape)


def test_cli_trace_grads_refuses_an_encoder_in_one_line(tmp_path):
    config = write_config(tmp_path, architecture="encoder", d_model=8, n_heads=2, n_layers=1)
    result = run("trace", "--grads", "--config", config, "--text", "a b", "--out", str(tmp_path / "g.npz"))
    assert result.returncode == 1 and result.stderr.count("\n") == 1 and "no output head" in result.stderr
    assert not (tmp_path / "g.npz").exists()
