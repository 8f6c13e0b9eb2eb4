"""Every stage of the engine agrees with an independent torch reference to 1e-5."""

import random

import pytest
import torch
import torch.nn.functional as F

from engine import Model, ModelConfig, stack_output
from tests.reference import (
    causal,
    decoder_layer,
    encoder_layer,
    mha,
    random_config,
    random_text,
    randomize,
    sinusoidal,
    stack_forward,
)

TOL = dict(atol=1e-5, rtol=1e-5)


def close(actual, expected):
    torch.testing.assert_close(actual, expected.to(actual.dtype), **TOL)


def traced(cfg: ModelConfig, rng: random.Random):
    model = Model.create(cfg)
    target = random_text(rng, 0, 6) if cfg.architecture == "encoder-decoder" else None
    trace = model.trace(random_text(rng), target)
    randomize(model, rng.randrange(10**6))
    trace.recompute_all()
    return model, trace


def check_all_stages(cfg: ModelConfig, trace) -> set[str]:
    """Check every stage against a reference; return the names checked."""
    P, V, checked = trace.params, trace.values, set()

    def ok(name, expected):
        close(V[name], expected)
        checked.add(name)

    h, dk = cfg.n_heads, cfg.d_k
    for s in cfg.stacks:
        ids = V[f"{s}.tokens"]
        n = ids.shape[0]
        ok(f"{s}.embed", F.embedding(ids, P[f"{s}.embed.W_E"]))
        if cfg.positional == "sinusoidal":
            pos = sinusoidal(n, cfg.d_model)
        elif cfg.positional == "learned":
            pos = P[f"{s}.pos.W_pos"][:n]
        else:
            pos = torch.zeros(n, cfg.d_model, dtype=torch.float64)
        ok(f"{s}.pos", pos)
        ok(f"{s}.x0", V[f"{s}.embed"] + pos)

    for st in trace.stages:
        name, op = st.name, st.op
        if op == "attn.out":
            p = name.rsplit(".", 1)[0]
            xq, xkv = V[trace.stage(f"{p}.q").inputs[0]], V[trace.stage(f"{p}.k").inputs[0]]
            is_causal = p.startswith("dec") and p.endswith("self_attn")
            mask = causal(xq.shape[0]) if is_causal else None
            out, w = mha(cfg, P, p)(
                xq[None], xkv[None], xkv[None], attn_mask=mask, need_weights=True, average_attn_weights=False
            )
            ok(f"{p}.out", out[0])
            ok(f"{p}.weights", w[0])
            heads = {
                m: F.linear(x, P[f"{p}.W_{m.upper()}"].T, P[f"{p}.b_{m.upper()}"])
                .view(x.shape[0], h, dk)
                .transpose(0, 1)
                for m, x in (("q", xq), ("k", xkv), ("v", xkv))
            }
            for m in "qkv":
                ok(f"{p}.{m}", heads[m])
            raw = torch.einsum("hqd,hkd->hqk", heads["q"], heads["k"])
            ok(f"{p}.scores", raw)
            ok(f"{p}.scaled", raw / dk**0.5)
            masked = raw / dk**0.5
            if is_causal:
                masked = masked.masked_fill(causal(xq.shape[0]), float("-inf"))
            ok(f"{p}.masked", masked)
            z = torch.einsum("hqk,hkd->hqd", w[0], heads["v"])
            ok(f"{p}.z", z)
            ok(f"{p}.concat", z.transpose(0, 1).reshape(xq.shape[0], cfg.d_model))
        elif op == "norm.out":
            p = name.rsplit(".", 1)[0]
            x = V[trace.stage(f"{p}.mean").inputs[0]]
            ok(f"{p}.mean", x.mean(-1, keepdim=True))
            ok(f"{p}.var", x.var(-1, unbiased=False, keepdim=True))
            ok(f"{p}.hat", F.layer_norm(x, (cfg.d_model,), eps=cfg.ln_eps))
            ok(name, F.layer_norm(x, (cfg.d_model,), P[f"{p}.gamma"], P[f"{p}.beta"], cfg.ln_eps))
        elif op == "ffn.down":
            p = name.rsplit(".", 1)[0]
            x = V[trace.stage(f"{p}.up").inputs[0]]
            up = F.linear(x, P[f"{p}.W1"].T, P[f"{p}.b1"])
            act = F.relu(up) if cfg.activation == "relu" else F.gelu(up)
            ok(f"{p}.up", up)
            ok(f"{p}.act", act)
            ok(name, F.linear(act, P[f"{p}.W2"].T, P[f"{p}.b2"]))
        elif op == "add":
            x, sub = st.inputs
            ok(name, V[x] + V[sub])

    # Whole blocks against nn.TransformerEncoderLayer / DecoderLayer, each fed the engine's block input.
    memory = V[stack_output(cfg, "enc")] if "enc" in cfg.stacks else None
    for s in cfg.stacks:
        n_sub = 3 if s == "dec" and memory is not None else 2
        x = V[f"{s}.x0"]
        for i in range(cfg.n_layers):
            b = f"{s}.{i}"
            last = f"{b}.add{n_sub}" if cfg.norm == "pre" else f"{b}.norm{n_sub}.out"
            n = x.shape[0]
            if s == "enc":
                ref = encoder_layer(cfg, P, b, "attn")(x[None])
            elif memory is None:
                ref = encoder_layer(cfg, P, b, "self_attn")(x[None], src_mask=causal(n))
            else:
                ref = decoder_layer(cfg, P, b)(x[None], memory[None], tgt_mask=causal(n))
            close(V[last], ref[0])
            x = V[last]

    # End to end from token ids, independent of every engine intermediate.
    outputs = {}
    for s in cfg.stacks:
        mem = outputs["enc"]["final"] if s == "dec" and "enc" in outputs else None
        outputs[s] = stack_forward(cfg, P, s, V[f"{s}.tokens"], mem)
        close(V[stack_output(cfg, s)], outputs[s]["final"])
    if cfg.norm == "pre":
        for s in cfg.stacks:
            p = f"{s}.final_norm"
            x = V[trace.stage(f"{p}.mean").inputs[0]]
            ok(f"{p}.mean", x.mean(-1, keepdim=True))
            ok(f"{p}.var", x.var(-1, unbiased=False, keepdim=True))
            ok(f"{p}.hat", F.layer_norm(x, (cfg.d_model,), eps=cfg.ln_eps))
            ok(f"{p}.out", outputs[s]["final"])
    if cfg.has_output_head:
        logits = F.linear(outputs["dec"]["final"], P["unembed.W_U"].T, P["unembed.b_U"])
        ok("logits", logits)
        ok("probs", F.softmax(logits, dim=-1))
    return checked


CONFIGS = [random_config(random.Random(i)) for i in range(56)]
# Make sure the corners are covered whatever the random draw: each architecture with each option.
CONFIGS += [
    ModelConfig(architecture=a, norm=n, activation=act, positional=pos, d_model=8, n_heads=2, d_ff=12, n_layers=2)
    for a in ("encoder", "decoder", "encoder-decoder")
    for n, act, pos in (("post", "relu", "sinusoidal"), ("pre", "gelu", "learned"), ("post", "gelu", "none"))
]


@pytest.mark.parametrize("index", range(len(CONFIGS)))
def test_every_stage_matches_reference(index):
    cfg = CONFIGS[index]
    model, trace = traced(cfg, random.Random(1000 + index))
    checked = check_all_stages(cfg, trace)
    computed = {st.name for st in trace.stages}
    assert computed == checked, f"stages without a reference check: {sorted(computed - checked)}"


def test_random_configs_cover_every_option():
    seen = (
        {(c.architecture, c.norm) for c in CONFIGS} | {c.activation for c in CONFIGS} | {c.positional for c in CONFIGS}
    )
    for arch in ("encoder", "decoder", "encoder-decoder"):
        assert (arch, "pre") in seen and (arch, "post") in seen
    assert {"relu", "gelu", "sinusoidal", "learned", "none"} <= seen
    assert len(CONFIGS) >= 50


@pytest.mark.parametrize("arch", ["encoder", "decoder", "encoder-decoder"])
def test_twelve_layers_match_reference(arch):
    cfg = ModelConfig(architecture=arch, d_model=8, n_heads=2, d_ff=16, n_layers=12, norm="pre", activation="gelu")
    model, trace = traced(cfg, random.Random(7))
    check_all_stages(cfg, trace)
    assert f"{cfg.stacks[-1]}.11.ffn.down" in trace.values
