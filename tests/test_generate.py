"""Generation: the same tokens and probabilities with and without the KV cache; choices, limits, counts."""

import pytest
import torch

from engine import EngineError, Model, ModelConfig, ops
from engine.generate import choose, distribution, generate, next_token_distribution
from engine.kv_cache import KVCache, matmul_macs, trace_keys_values
from engine.tokenizer import END
from tests.reference import randomize

PROMPTS = {"decoder": ("<start> 我 爱", None), "encoder-decoder": ("I love AI", "我")}
VARIANTS = [
    dict(norm="post", activation="relu", positional="sinusoidal"),
    dict(norm="pre", activation="gelu", positional="learned"),
    dict(norm="pre", activation="swiglu", positional="rope"),
    dict(norm="post", activation="swiglu", positional="rope"),
    dict(norm="post", positional="none", switches=("no_scale", "no_residual")),
    dict(norm="pre", positional="rope", switches=("no_pe", "no_layernorm")),
    dict(norm="pre", activation="gelu_tanh", positional="learned"),  # GPT-2's choices
    dict(norm="post", activation="gelu", type_vocab=2, embed_norm=True),  # BERT's embeddings
]
CASES = [(arch, v) for arch in PROMPTS for v in VARIANTS]


def model_for(arch, variant, float64=True, **extra):
    cfg = ModelConfig(architecture=arch, d_model=8, n_heads=2, d_ff=12, n_layers=2, max_len=16, **variant, **extra)
    model = Model.create(cfg)
    model.trace(*PROMPTS[arch])  # a free vocabulary learns the prompt's words
    if float64:
        randomize(model, 11)
    return model


@pytest.mark.parametrize("arch, variant", CASES)
@pytest.mark.parametrize("greedy", [True, False])
def test_cache_gives_the_same_tokens_and_probabilities(arch, variant, greedy):
    model = model_for(arch, variant, float64=greedy)  # float32 weights when sampling
    kw = dict(steps=6, temperature=0.8, top_k=None if greedy else 5, greedy=greedy, seed=7)
    cached, full = (
        generate(model, *PROMPTS[arch], use_cache=True, **kw),
        generate(model, *PROMPTS[arch], **kw, use_cache=False),
    )
    assert cached.generated == full.generated and cached.stopped == full.stopped and cached.tokens == full.tokens
    for a, b in zip(cached.steps, full.steps):
        torch.testing.assert_close(a.probs, b.probs, atol=1e-6, rtol=0)
        assert (a.cache_rows, a.macs_cached, a.macs_full) == (b.cache_rows, b.macs_cached, b.macs_full)
        assert a.kv.keys() == b.kv.keys() and len(a.kv) == 2
        for name, (k, v) in a.kv.items():  # the cached K, V rows are the full trace's rows
            torch.testing.assert_close(k, b.kv[name][0], atol=1e-6, rtol=1e-6)
            torch.testing.assert_close(v, b.kv[name][1], atol=1e-6, rtol=1e-6)
            assert k.shape[1] == a.cache_rows


@pytest.mark.parametrize("arch", PROMPTS)
def test_each_step_reads_one_new_row_and_the_cache_grows_by_one(arch):
    model = model_for(arch, VARIANTS[2])
    end = model.vocabs["dec"].id_of(END)
    model.params["unembed.b_U"] = model.params["unembed.b_U"].index_fill(0, torch.tensor([end]), -100.0)
    result = generate(model, *PROMPTS[arch], steps=4, greedy=False, seed=1)
    assert result.stopped == "steps" and END not in result.generated
    n0 = len(model.trace(*PROMPTS[arch]).tokens["dec"])
    assert [s.cache_rows for s in result.steps] == [n0, n0 + 1, n0 + 2, n0 + 3]
    for before, after in zip(result.steps, result.steps[1:]):
        for name, (k, v) in after.kv.items():
            assert torch.equal(k[:, :-1], before.kv[name][0]) and torch.equal(v[:, :-1], before.kv[name][1])
    trace = model.trace(*PROMPTS[arch])
    cache = KVCache(model, trace.values.get("enc.tokens"))
    cache.extend(trace["dec.tokens"])
    new = cache.extend(torch.tensor([3]))
    assert new["dec.0.self_attn.q"].shape == (2, 1, 4) and new["logits"].shape[0] == 1  # only the new row…
    assert new["dec.0.self_attn.scores"].shape == (2, 1, n0 + 1)  # …against every cached key
    assert cache.keys_values()["dec.1.self_attn"][0].shape == (2, n0 + 1, 4)


def counting(monkeypatch):
    """Count the multiply-adds of every matrix product the engine does (patched before stages are built)."""
    count = [0]

    def linear(x, W, b):
        count[0] += x.shape[0] * W.shape[0] * W.shape[1]
        return x @ W + b

    def scores(q, k):
        count[0] += q.shape[0] * q.shape[1] * k.shape[1] * q.shape[2]
        return q @ k.transpose(-1, -2)

    def weighted_sum(w, v):
        count[0] += w.shape[0] * w.shape[1] * w.shape[2] * v.shape[2]
        return w @ v

    for name, fn in (("linear", linear), ("scores", scores), ("weighted_sum", weighted_sum)):
        monkeypatch.setattr(ops, name, fn)
    return count


@pytest.mark.parametrize("arch, variant", CASES)
def test_multiply_add_counts_are_the_products_actually_done(arch, variant, monkeypatch):
    model = model_for(arch, variant, float64=False)
    count = counting(monkeypatch)
    trace = model.trace(*PROMPTS[arch])
    n_src, n = len(trace.tokens.get("enc", [])), len(trace.tokens["dec"])
    vocab = len(model.vocabs["dec"])
    assert count[0] == matmul_macs(model.config, n_src, 0, n, vocab, encoder=True)
    for use_cache, key in ((True, "macs_cached"), (False, "macs_full")):
        count[0] = 0
        result = generate(model, *PROMPTS[arch], steps=3, use_cache=use_cache)
        assert count[0] == sum(getattr(s, key) for s in result.steps)
    steps = result.steps
    assert steps[0].macs_cached == steps[0].macs_full  # the first step reads the whole prompt either way
    assert all(s.macs_cached < s.macs_full for s in steps[1:])


def test_multiply_add_formula_by_hand():
    cfg = ModelConfig(architecture="decoder", d_model=8, n_heads=2, d_ff=12, n_layers=1)
    d, f, V = 8, 12, 10
    # one new row at position 4 (5 keys): Q, K, V, O projections, q·kᵀ and weights·v, FFN, output head
    assert matmul_macs(cfg, 0, 4, 1, V, encoder=False) == 4 * d * d + 2 * 5 * d + 2 * d * f + d * V
    two = cfg.replace(architecture="encoder-decoder")
    m = 3
    cross = 2 * d * d + 2 * m * d  # Q and O of the new row, against the encoder's m keys
    encoder = 4 * m * d * d + 2 * m * m * d + 2 * m * d * f + 2 * m * d * d  # … plus the cross K, V, once
    assert matmul_macs(two, m, 4, 1, V, encoder=False) == 4 * d * d + 2 * 5 * d + cross + 2 * d * f + d * V
    assert matmul_macs(two, m, 4, 1, V, encoder=True) - matmul_macs(two, m, 4, 1, V, encoder=False) == encoder


def test_next_token_distribution_temperature_and_top_k():
    model = model_for("decoder", VARIANTS[0])
    trace = model.trace(*PROMPTS["decoder"])
    probs = next_token_distribution(trace)
    torch.testing.assert_close(probs, trace["probs"][-1])
    logits = trace["logits"][-1]
    cold, hot = next_token_distribution(trace, 0.5), next_token_distribution(trace, 2.0)
    torch.testing.assert_close(cold, torch.exp(logits / 0.5) / torch.exp(logits / 0.5).sum())
    assert cold.max() > probs.max() > hot.max()
    top = next_token_distribution(trace, 1.0, top_k=3)
    kept = torch.argsort(logits, descending=True)[:3]
    assert set(torch.nonzero(top).flatten().tolist()) == set(kept.tolist())
    torch.testing.assert_close(top[kept], torch.softmax(logits[kept], dim=0))
    torch.testing.assert_close(next_token_distribution(trace, 1.0, top_k=1000), probs)


@pytest.mark.parametrize(
    "bad, match",
    [
        (dict(temperature=0), "temperature"),
        (dict(temperature=float("nan")), "temperature"),
        (dict(top_k=0), "top_k"),
        (dict(top_k=2.5), "top_k"),
    ],
)
def test_bad_sampling_settings_are_refused(bad, match):
    with pytest.raises(EngineError, match=match):
        distribution(torch.zeros(5), **bad)


def test_choose_greedy_and_seeded_sampling():
    probs = torch.tensor([0.2, 0.5, 0.0, 0.3])
    assert choose(probs, greedy=True) == 1
    draws = [choose(probs, greedy=False, seed=s) for s in range(3000)]
    assert draws == [choose(probs, greedy=False, seed=s) for s in range(3000)]  # the seed decides
    assert 2 not in draws
    for token, p in ((0, 0.2), (1, 0.5), (3, 0.3)):
        assert abs(draws.count(token) / 3000 - p) < 0.03
    with pytest.raises(EngineError, match="seed"):
        choose(probs, greedy=False, seed=-1)


def test_generation_stops_at_end_and_at_max_len():
    model = model_for("decoder", VARIANTS[0], float64=False)
    end = model.vocabs["dec"].id_of(END)
    model.params["unembed.b_U"] = model.params["unembed.b_U"].index_fill(0, torch.tensor([end]), 100.0)
    result = generate(model, *PROMPTS["decoder"], steps=5)
    assert result.generated == [END] and result.stopped == "end"
    model.params["unembed.b_U"] = model.params["unembed.b_U"].index_fill(0, torch.tensor([end]), -100.0)
    result = generate(model, "<start> 我 爱 我 爱 我 爱 我 爱 我 爱 我", steps=10, greedy=False, seed=2)
    assert result.stopped == "max_len" and len(result.steps) == 4 and len(result.tokens["dec"]) == 16
    with pytest.raises(EngineError, match="max_len"):
        generate(model, " ".join(["我"] * 15), steps=1)


def test_generation_refusals():
    with pytest.raises(EngineError, match="decoder"):
        generate(Model.create(ModelConfig()), "I love AI")
    blind = model_for("decoder", dict(switches=("no_mask",)), float64=False)
    with pytest.raises(EngineError, match="causal mask"):
        generate(blind, *PROMPTS["decoder"], steps=2)
    assert len(generate(blind, *PROMPTS["decoder"], steps=2, use_cache=False).steps) == 2
    words = list(blind.vocabs["dec"].tokens)
    for bad, match in (
        (dict(steps=0), "steps"),
        (dict(temperature=-1), "temperature"),
        (dict(top_k=0), "top_k"),
        (dict(seed=-2), "seed"),
    ):
        with pytest.raises(EngineError, match=match):
            generate(blind, "<start> 新 的 词", use_cache=False, **bad)
        assert blind.vocabs["dec"].tokens == words  # refused before the vocabulary learns the new words


def test_fixed_vocabulary_candidates_are_the_vocabulary():
    cfg = ModelConfig(
        architecture="encoder-decoder",
        d_model=8,
        n_heads=2,
        enc_vocab=("I", "love", "AI"),
        dec_vocab=("我", "爱", "人工智能"),
    )
    model = Model.create(cfg)
    result = generate(model, "I love AI", "", steps=4, greedy=False, seed=3)
    assert all(s.probs.shape == (6,) for s in result.steps)  # <unk> <start> <end> + three words
    assert set(result.generated) <= set(model.vocabs["dec"].tokens)
    assert result.tokens["enc"] == ["I", "love", "AI"] and result.tokens["dec"][0] == "<start>"
    traced = model.trace("I love AI", " ".join(result.tokens["dec"][1:]))  # the result traces again
    assert traced.tokens["dec"] == result.tokens["dec"]
    assert set(trace_keys_values(traced)) == {"dec.0.self_attn"}
