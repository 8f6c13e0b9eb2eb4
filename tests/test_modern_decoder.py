"""Today's decoder block (Llama, Qwen2, Qwen3, Mistral): RMSNorm, bias-free or q/k/v-only biases, tied embeddings,
RoPE in Hugging Face's rotate-half layout with rope_theta and partial rotary, grouped-query attention, QK-norm,
head_dim and the sliding window: every stage against a forward pass written here in Hugging Face's own terms
(weights as nn.Linear holds them, [out, in]; transformers' apply_rotary_pos_emb and repeat_kv), every gradient
against central differences, provenance against autograd, the KV cache, the cost and the config's messages."""

from __future__ import annotations

import math
import random

import pytest
import torch
import torch.nn.functional as F
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb, repeat_kv

from engine import EngineError, Model, ModelConfig, cost
from engine.kv_cache import KVCache, trace_keys_values
from engine.provenance import sources
from engine.training.backward import backward, backward_stages, loss_values
from tests.reference import randomize
from tests.test_backward import assert_matches, cells, central

LLAMA = dict(
    architecture="decoder",
    d_model=8,
    n_heads=2,
    d_ff=12,
    n_layers=2,
    norm="pre",
    norm_type="rmsnorm",
    activation="swiglu",
    positional="rope",
    rope_pairs="half",
    rope_theta=500000.0,
    biases="none",
    tied_embeddings=True,
    max_len=16,
    ln_eps=1e-6,
)
QWEN2 = LLAMA | dict(n_heads=4, n_kv_heads=2, biases="qkv", tied_embeddings=False, rope_theta=1e6)
QWEN3 = LLAMA | dict(n_heads=4, n_kv_heads=1, head_dim=6, qk_norm=True, tied_embeddings=False)
MISTRAL = LLAMA | dict(n_heads=4, n_kv_heads=2, sliding_window=3, tied_embeddings=False)
PARTIAL = LLAMA | dict(d_model=12, rotary_dim=4, rope_pairs="interleaved", biases="attn", n_layers=1)
FAMILIES = {"llama": LLAMA, "qwen2": QWEN2, "qwen3": QWEN3, "mistral": MISTRAL, "partial": PARTIAL}
TEXT = "the cat sat on the mat and the dog"


def hf_rope(cfg: ModelConfig, x: torch.Tensor) -> torch.Tensor:
    """RoPE as Hugging Face applies it to x [h, n, d_k]: cos/sin of inv_freq repeated, x·cos + rotate_half(x)·sin
    (transformers' apply_rotary_pos_emb) on the first rotary_dim dimensions; the interleaved layout by
    de-interleaving, turning and interleaving back."""
    h, n, d_k = x.shape
    r = cfg.rotary_dim or d_k
    turned, kept = x[..., :r], x[..., r:]
    if cfg.rope_pairs == "interleaved":
        turned = torch.cat([turned[..., 0::2], turned[..., 1::2]], dim=-1)
    inv_freq = 1.0 / (cfg.rope_theta ** (torch.arange(0, r, 2, dtype=torch.float64) / r))
    freqs = torch.outer(torch.arange(n, dtype=torch.float64), inv_freq)
    emb = torch.cat([freqs, freqs], dim=-1)[None]  # [1, n, r]
    out, _ = apply_rotary_pos_emb(turned[None], turned[None], emb.cos(), emb.sin())
    out = out[0]
    if cfg.rope_pairs == "interleaved":
        out = torch.stack([out[..., : r // 2], out[..., r // 2 :]], dim=-1).flatten(-2)
    return torch.cat([out, kept], dim=-1)


def rms(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """LlamaRMSNorm: weight · x · rsqrt(mean(x²) + eps)."""
    return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def hf_forward(cfg: ModelConfig, P: dict, ids: torch.Tensor) -> dict[str, torch.Tensor]:
    """A Llama/Qwen/Mistral decoder written as transformers writes it, from the token ids alone."""
    out, n, h, hk, d_k = {}, ids.shape[0], cfg.n_heads, cfg.kv_heads, cfg.d_k

    def lin(x, W, b):  # nn.Linear with weight [out, in]
        return F.linear(x, P[W].T, P.get(b))

    x = P["dec.embed.W_E"][ids]
    for i in range(cfg.n_layers):
        p = f"dec.{i}"
        a = f"{p}.self_attn"
        y = rms(x, P[f"{p}.norm1.gamma"], cfg.ln_eps)
        out[f"{p}.norm1.out"] = y
        q = lin(y, f"{a}.W_Q", f"{a}.b_Q").view(n, h, d_k).transpose(0, 1)
        k = lin(y, f"{a}.W_K", f"{a}.b_K").view(n, hk, d_k).transpose(0, 1)
        v = lin(y, f"{a}.W_V", f"{a}.b_V").view(n, hk, d_k).transpose(0, 1)
        out[f"{a}.k"], out[f"{a}.v"] = k, v
        if cfg.qk_norm:
            q, k = rms(q, P[f"{a}.q_norm.gamma"], cfg.ln_eps), rms(k, P[f"{a}.k_norm.gamma"], cfg.ln_eps)
        q, k = hf_rope(cfg, q), hf_rope(cfg, k)
        out[f"{a}.q_rot"], out[f"{a}.k_rot"] = q, k
        k, v = repeat_kv(k[None], h // hk)[0], repeat_kv(v[None], h // hk)[0]
        allowed = torch.ones(n, n, dtype=torch.bool).tril()
        if cfg.sliding_window:  # Mistral: key j visible to query i when i − window < j ≤ i
            allowed &= torch.ones(n, n, dtype=torch.bool).triu(1 - cfg.sliding_window)
        s = (q @ k.transpose(-1, -2)) / math.sqrt(d_k)
        weights = torch.softmax(s.masked_fill(~allowed, float("-inf")), dim=-1)
        out[f"{a}.weights"] = weights
        z = (weights @ v).transpose(0, 1).reshape(n, h * d_k)
        x = x + lin(z, f"{a}.W_O", f"{a}.b_O")
        y = rms(x, P[f"{p}.norm2.gamma"], cfg.ln_eps)
        f = f"{p}.ffn"
        down = lin(F.silu(lin(y, f"{f}.W_gate", f"{f}.b_gate")) * lin(y, f"{f}.W1", f"{f}.b1"), f"{f}.W2", f"{f}.b2")
        out[f"{f}.down"] = down  # HF's down(silu(gate(x)) * up(x))
        x = x + down
        out[f"{p}.add2"] = x
    x = rms(x, P["dec.final_norm.gamma"], cfg.ln_eps)
    head = P["dec.embed.W_E"] if cfg.tied_embeddings else P["unembed.W_U"].T
    out["logits"] = F.linear(x, head, P.get("unembed.b_U"))
    return out


def traced(family: str, seed: int = 0, dtype=torch.float64, **changes):
    cfg = ModelConfig(**FAMILIES[family] | changes)
    model = Model.create(cfg)
    trace = model.trace(TEXT)
    randomize(model, seed, dtype)
    trace.recompute_all()
    return trace


@pytest.mark.parametrize("family", FAMILIES)
def test_every_stage_equals_a_hugging_face_style_forward(family):
    for dtype, tol in ((torch.float64, 1e-10), (torch.float32, 1e-5)):
        trace = traced(family, dtype=dtype)
        ref = hf_forward(trace.config, {k: v.double() for k, v in trace.params.items()}, trace.ids["dec"])
        for name, want in ref.items():
            got = trace[name].double()
            assert got.shape == want.shape, name
            assert torch.allclose(got, want, rtol=tol, atol=tol), f"{family} {name} {dtype}"


def test_the_model_has_only_the_parameters_its_config_names():
    names = set(traced("llama").params)
    assert not any(".b_" in n or n.endswith(".b1") or n.endswith(".beta") for n in names)
    assert "unembed.W_U" not in names and "unembed.b_U" not in names
    qwen2 = set(traced("qwen2").params)
    assert {"dec.0.self_attn.b_Q", "dec.0.self_attn.b_K", "dec.0.self_attn.b_V"} <= qwen2
    assert "dec.0.self_attn.b_O" not in qwen2 and "dec.0.ffn.b1" not in qwen2
    qwen3 = traced("qwen3")
    assert qwen3.params["dec.0.self_attn.W_Q"].shape == (8, 24) and qwen3.params["dec.0.self_attn.W_O"].shape == (24, 8)
    assert qwen3.params["dec.0.self_attn.W_K"].shape == (8, 6) and qwen3["dec.0.self_attn.k"].shape[0] == 1
    assert qwen3.params["dec.0.self_attn.q_norm.gamma"].shape == (6,)
    assert "dec.0.self_attn.b_O" in traced("partial").params and "dec.0.ffn.b1" not in traced("partial").params


def test_a_tied_embedding_edit_changes_the_logits_at_once():
    trace = traced("llama")
    word = int(trace.ids["dec"][1])
    before = trace["logits"].clone()
    changed = trace.set_cell("dec.embed.W_E", (word, 0), 3.0)
    assert "logits" in changed
    assert not torch.equal(before[:, word], trace["logits"][:, word])


@pytest.mark.parametrize("family", ["llama", "qwen3", "mistral"])
def test_gradients_match_central_differences(family):
    rng = random.Random(1)
    trace = traced(family, seed=3)
    grads = backward(trace, dtype=torch.float64)
    for step in backward_stages(trace):
        if step.of.startswith("loss"):
            continue
        t = trace.values[step.of].double()

        def at(v, stage=step.of):
            return float(loss_values(trace, overrides={stage: v})["loss"])

        for cell in cells(t, grads[step.name], rng)[:2]:
            assert_matches(step.name, cell, central(at, t, cell), float(grads[step.name][cell]))
    for name, p in trace.params.items():

        def at(v, name=name):
            return float(loss_values(trace, params=trace.params | {name: v})["loss"])

        for cell in cells(p, grads[f"grad.{name}"], rng)[:2]:
            assert_matches(f"grad.{name}", cell, central(at, p, cell), float(grads[f"grad.{name}"][cell]))


def _autograd_sources(trace, st, index) -> dict[str, set[tuple[int, ...]]]:
    """The input cells with a non-zero derivative of output cell `index` (autograd's answer to provenance)."""
    inputs = [
        trace[i].double().clone().requires_grad_(True) if trace[i].is_floating_point() else trace[i] for i in st.inputs
    ]
    out = st.fn(*inputs)
    if not out.requires_grad:  # made from no number (positions under RoPE: zeros)
        return {}
    (out[index] * 1.0).backward()
    return {
        n: {tuple(c) for c in (x.grad != 0).nonzero().tolist()}
        for n, x in zip(st.inputs, inputs)
        if x.is_floating_point()
    }


def _selected(trace, name: str, selector) -> set[tuple[int, ...]]:
    t = torch.zeros(trace[name].shape, dtype=torch.bool)
    t[selector] = True
    return {tuple(c) for c in t.nonzero().tolist()}


@pytest.mark.parametrize("family", FAMILIES)
def test_provenance_names_the_cells_autograd_finds(family):
    trace = traced(family, seed=5)
    rng = random.Random(2)
    for st in trace.stages:
        if st.record.sources is None or st.op in ("attn.masked",):
            continue
        for _ in range(2):
            index = tuple(rng.randrange(n) for n in trace[st.name].shape)
            if not torch.isfinite(trace[st.name][index]):
                continue
            said = {n: _selected(trace, n, sel) for n, sel in sources(trace, st.name, index).items()}
            found = _autograd_sources(trace, st, index)
            for n, cells_found in found.items():
                assert cells_found <= said.get(n, set()), f"{st.name}{index}: {n} misses {cells_found - said.get(n)}"


def test_rope_half_pairs_and_partial_rotary_in_provenance():
    trace = traced("qwen3")
    sel = sources(trace, "dec.0.self_attn.q_rot", (1, 2, 4))["dec.0.self_attn.q_norm"]
    assert _selected(trace, "dec.0.self_attn.q_norm", sel) == {(1, 2, 1), (1, 2, 4)}  # pair (1, 1 + 6/2)
    partial = traced("partial")
    sel = sources(partial, "dec.0.self_attn.k_rot", (0, 3, 5))["dec.0.self_attn.k"]
    assert _selected(partial, "dec.0.self_attn.k", sel) == {(0, 3, 5)}  # past rotary_dim 4: not turned
    assert torch.equal(partial["dec.0.self_attn.k_rot"][..., 4:], partial["dec.0.self_attn.k"][..., 4:])


def test_grouped_query_attention_shows_which_query_heads_share_each_kv_head():
    trace = traced("qwen2")  # 4 query heads, 2 K/V heads
    k, shared = trace["dec.0.self_attn.k_rot"], trace["dec.0.self_attn.k_shared"]
    assert k.shape[0] == 2 and shared.shape[0] == 4
    for h in range(4):
        assert torch.equal(shared[h], k[h // 2])
        assert sources(trace, "dec.0.self_attn.v_shared", (h, 1, 0)) == {"dec.0.self_attn.v": (h // 2, 1, 0)}


def test_the_kv_cache_keeps_only_the_kv_heads_and_matches_the_trace():
    trace = traced("mistral", dtype=torch.float32)
    cache = KVCache(trace.model)
    ids = trace.ids["dec"]
    for i in range(ids.shape[0]):
        rows = cache.extend(ids[i : i + 1])
        assert torch.allclose(rows["logits"][0], trace["logits"][i], atol=1e-5)
    for p, (k, v) in cache.keys_values().items():
        full_k, full_v = trace_keys_values(trace)[p]
        assert k.shape[0] == 2 and torch.allclose(k, full_k, atol=1e-5) and torch.allclose(v, full_v, atol=1e-5)


def test_the_cost_counts_the_kv_cache_of_the_kv_heads_and_its_saving():
    trace = traced("qwen2", dtype=torch.float32)
    kv = cost.kv_cache(trace)
    cfg = trace.config
    assert kv["per_token_bytes"] == 2 * cfg.n_layers * 2 * cfg.d_k * 4
    assert kv["with_n_heads_per_token_bytes"] == 2 * kv["per_token_bytes"] and kv["saving"] == 0.5
    cached = KVCache(trace.model)
    cached.extend(trace.ids["dec"])
    held = sum(k.numel() * 4 + v.numel() * 4 for k, v in cached.keys_values().values())
    assert held == kv["bytes_for_sentence"]
    counts = cost.stage_costs(trace)
    assert counts["dec.0.self_attn.k"]["macs"] == len(trace.tokens["dec"]) * 8 * 2 * cfg.d_k
    assert cost.per_head(trace, counts)["dec.0.self_attn.k"]["bytes"] == len(trace.tokens["dec"]) * cfg.d_k * 4


def test_the_formula_macs_match_the_counted_ones():
    for family in FAMILIES:
        trace = traced(family, dtype=torch.float32)
        n = len(trace.tokens["dec"])
        counted = cost.totals(cost.stage_costs(trace))["macs"]
        assert cost.formula_macs(trace.config, n, cost.vocab_out(trace))["total"] == counted, family


def test_sliding_window_hides_keys_too_far_back():
    trace = traced("mistral")
    masked = trace["dec.0.self_attn.masked"][0]
    n = masked.shape[0]
    for i in range(n):
        for j in range(n):
            assert math.isinf(masked[i, j]) == (j > i or j <= i - 3), (i, j)


def test_a_2017_config_keeps_its_file_and_stages():
    cfg = ModelConfig()
    assert set(cfg.to_dict()) == set(ModelConfig().to_dict())
    assert not {"norm_type", "n_kv_heads", "biases", "tied_embeddings"} & set(cfg.to_dict())
    modern = ModelConfig(**QWEN3)
    assert ModelConfig.from_dict(modern.to_dict()) == modern
    assert modern.to_dict()["n_kv_heads"] == 1 and "rope_pairs" in modern.to_dict()


def test_the_layernorm_switch_turns_rmsnorm_off_too():
    cfg = ModelConfig(**LLAMA | dict(switches=("no_layernorm",)))
    trace = Model.create(cfg).trace(TEXT)
    assert torch.equal(trace["dec.0.norm1.out"], trace["dec.x0"])
    rules = {s.of: s.rule for s in backward_stages(trace)}
    assert rules["dec.0.norm1.out"] == "identity" and rules["dec.0.norm1.hat"] == "rmsnorm"


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        (dict(norm_type="batchnorm"), "norm_type"),
        (dict(n_heads=4, n_kv_heads=3), "does not divide n_heads"),
        (dict(n_kv_heads=8), "n_kv_heads"),
        (dict(rope_pairs="spiral"), "rope_pairs"),
        (dict(rotary_dim=3), "must be even"),
        (dict(rotary_dim=6), "rotary_dim"),
        (dict(rope_theta=0), "rope_theta"),
        (dict(biases="some"), "biases"),
        (dict(qk_norm="yes"), "qk_norm"),
        (dict(tied_embeddings=1), "tied_embeddings"),
        (dict(sliding_window=0), "sliding_window"),
        (dict(head_dim=0), "head_dim"),
        (dict(architecture="encoder", tied_embeddings=True), "tied_embeddings"),
        (dict(sliding_window=3, tiled=(2, 2)), "sliding_window"),
    ],
)
def test_bad_fields_are_refused_in_one_line(changes, words):
    with pytest.raises(EngineError) as err:
        ModelConfig(**LLAMA | changes)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_generation_with_the_cache_equals_generation_without_and_counts_its_products():
    from torch.utils.flop_counter import FlopCounterMode

    from engine.generate import generate
    from engine.kv_cache import matmul_macs

    trace = traced("qwen3", dtype=torch.float32)
    cached = generate(trace.model, TEXT, steps=3)
    full = generate(trace.model, TEXT, steps=3, use_cache=False)
    assert [s.token for s in cached.steps] == [s.token for s in full.steps]
    with FlopCounterMode(display=False) as counter:
        again = trace.model.trace(TEXT)
    n, vocab = len(again.tokens["dec"]), len(trace.model.vocabs["dec"])
    assert counter.get_total_flops() // 2 == matmul_macs(trace.config, 0, 0, n, vocab, encoder=True)


def test_the_map_notes_today_s_parts():
    from engine.architecture import architecture

    trace = traced("qwen3")
    arch = architecture(trace.config, trace.stages)
    attention = next(b for b in arch.boxes if b.place.part == "self_attn")
    assert {"causal", "rope", "gqa", "qk_norm"} <= set(attention.notes)
    assert "rmsnorm" in next(b for b in arch.boxes if b.place.part == "final_norm").notes
    assert "swiglu" in next(b for b in arch.boxes if b.place.part == "ffn").notes
    assert (
        "sliding_window" in next(b for b in architecture(*_arch("mistral")).boxes if b.place.part == "self_attn").notes
    )
    llama = next(b for b in architecture(*_arch("llama")).boxes if b.place.part == "self_attn")
    assert not {"gqa", "qk_norm", "sliding_window"} & set(llama.notes)


def _arch(family: str):
    trace = traced(family)
    return trace.config, trace.stages


def test_what_if_switches_work_on_today_s_stages():
    cfg = ModelConfig(**MISTRAL | dict(switches=("no_pe", "no_mask")))
    trace = Model.create(cfg).trace(TEXT)
    assert torch.equal(trace["dec.0.self_attn.q_rot"], trace["dec.0.self_attn.q"])
    assert torch.isfinite(trace["dec.0.self_attn.masked"]).all()  # neither the causal mask nor the window


def test_a_lesson_file_keeps_a_modern_model(tmp_path):
    from engine.formats.lesson import Lesson, open_lesson, save_lesson

    trace = traced("qwen2", dtype=torch.float32)
    path = tmp_path / "qwen2.stepformer"
    save_lesson(Lesson.from_model(trace.model, TEXT), path)
    opened = open_lesson(path)
    assert opened.config == trace.config
    again = opened.trace()
    assert torch.equal(again["logits"], trace["logits"])


@pytest.mark.parametrize("family", FAMILIES)
def test_the_memory_budget_bounds_the_trace_and_counts_its_products(family):
    from engine import budget

    trace = traced(family, dtype=torch.float32)
    cfg, n = trace.config, len(trace.tokens["dec"])
    vocab = {"dec": len(trace.model.vocabs["dec"])}
    kept = sum(trace[name].numel() for name in trace.stage_names)
    assert kept <= budget.trace_floats(cfg, {"dec": n}, vocab) <= 1.1 * kept
    assert budget.trace_macs(cfg, {"dec": n}, vocab) == cost.totals(cost.stage_costs(trace))["macs"]


def test_tiled_attention_steps_grouped_query_attention():
    trace = traced("qwen3", tiled=(2, 3))
    for a in ("dec.0.self_attn", "dec.1.self_attn"):
        assert torch.allclose(trace[f"{a}.tiled.z"], trace[f"{a}.z"], atol=1e-12)


def test_the_scale_switch_s_d_k_sweep_varies_d_k_under_an_explicit_head_dim(monkeypatch):
    from engine import whatif

    built = []
    create = Model.create
    monkeypatch.setattr(Model, "create", classmethod(lambda cls, cfg: built.append(cfg.d_k) or create(cfg)))
    cfg = ModelConfig(**QWEN3 | dict(rotary_dim=4))
    whatif.max_weight_by_dk(cfg, "the cat sat", [2, 64], samples=1)
    assert built == [2, 64]


def test_another_architecture_drops_what_it_has_no_use_for():
    cfg = ModelConfig(**MISTRAL | dict(tied_embeddings=True)).with_architecture("encoder")
    assert not cfg.tied_embeddings and cfg.sliding_window is None and cfg.n_kv_heads == 2


def test_rms_norm_steps_for_the_plots_match_the_trace():
    from engine import teaching

    trace = traced("llama")
    x, gamma = trace["dec.0.add1"], trace.params["dec.0.norm2.gamma"]
    steps = teaching.rms_norm_steps(x, gamma, trace.config.ln_eps)
    for key in ("ms", "hat", "out"):
        assert torch.allclose(steps[key], trace[f"dec.0.norm2.{key}"], rtol=1e-12, atol=1e-12)
    assert torch.allclose(steps["out"], rms(x, gamma, trace.config.ln_eps), rtol=1e-12, atol=1e-12)
