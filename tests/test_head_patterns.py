"""Every head's numbers (engine/head_patterns.py) against a direct computation with loops over the trace's weights,
for an encoder, a decoder (masked keys) and an encoder-decoder (cross-attention), and the named patterns of
hand-built attentions."""

import math

import numpy as np
import pytest
import torch

from engine import Model, ModelConfig
from engine.head_patterns import BROAD, DOMINANT, METRICS, head_patterns, measure
from engine.sources import open_source

TOL = 1e-5


def lesson_trace(name):
    return open_source(name, None, None, None).trace()


def random_trace(text="the cat sat on the mat", target=None, **changes):
    cfg = ModelConfig(d_model=16, n_heads=4, d_ff=24, n_layers=2, seed=3, **changes)
    return Model.create(cfg).trace(text, target)


def reference(weights: np.ndarray, causal: bool, self_attention: bool, window: int | None = None) -> dict:
    """One head's numbers by loops over its weights [n_q, n_k]; a causal query i sees keys 0…i (with a sliding
    window only the last `window` of them)."""
    n_q, n_k = weights.shape

    def sees(i, j):
        return not causal or (j <= i and (window is None or i - j < window))

    entropies, even = [], []
    for i in range(n_q):
        keys = [j for j in range(n_k) if sees(i, j)]
        entropies.append(-sum(weights[i, j] * math.log(weights[i, j]) for j in keys if weights[i, j] > 0))
        even.append(math.log(len(keys)))
    out = {
        "entropy": sum(entropies) / n_q,
        "first": sum(weights[i, 0] if sees(i, 0) else 0.0 for i in range(n_q)) / n_q,
        "last": sum(weights[i, n_k - 1] if sees(i, n_k - 1) else 0.0 for i in range(n_q)) / n_q,
        "self": sum(weights[i, i] for i in range(n_q)) / n_q if self_attention else None,
        "previous": (sum(weights[i, i - 1] for i in range(1, n_q)) / (n_q - 1) if self_attention and n_q > 1 else None),
        "even": sum(even) / n_q,
    }
    return out


def check_against_loops(trace, causal_stacks=()):
    """Every head of every attention of the trace: the stage's weights, the metrics computed by loops."""
    heads = head_patterns(trace)
    per_head = [
        (st, j)
        for st in trace.stages
        if st.op == "attn.weights" and st.tile is None
        for j in range(trace[st.name].shape[0])
    ]
    assert [(h.stage, h.head) for h in heads] == [(st.name, j) for st, j in per_head]
    for h, (st, j) in zip(heads, per_head):
        assert (h.stack, h.layer) == (st.place.stack, st.place.block)
        assert h.kind == ("self" if st.place.part == "self_attn" else "cross")
        weights = trace[st.name][j].double().numpy()
        causal = h.kind == "self" and st.place.stack in causal_stacks
        ref = reference(weights, causal, h.kind == "self", trace.config.sliding_window)
        for name in METRICS:
            if ref[name] is None:
                assert h.metric(name) is None, (h, name)
            else:
                assert h.metric(name) == pytest.approx(ref[name], abs=TOL), (h, name)
        assert h.pattern == reference_pattern(ref), h
    return heads


def reference_pattern(ref: dict) -> str | None:
    """The rule of the module docstring: the largest share if ≥ DOMINANT (ties: previous, first, self, last),
    else "broad" if the mean entropy ≥ BROAD × the mean ln(visible keys), else None."""
    best = None
    for key in ("previous", "first", "self", "last"):
        if ref[key] is not None and (best is None or ref[key] > ref[best]):
            best = key
    if ref[best] >= DOMINANT:
        return best
    return "broad" if ref["even"] > 0 and ref["entropy"] >= BROAD * ref["even"] else None


def test_an_encoder_lesson_and_a_bert_like_encoder():
    heads = check_against_loops(lesson_trace("two-heads"))
    assert len(heads) == 2 and {h.kind for h in heads} == {"self"}
    heads = check_against_loops(random_trace(embed_norm=True, type_vocab=2, activation="gelu", positional="learned"))
    assert len(heads) == 2 * 4 and all(h.previous is not None for h in heads)


def test_a_decoder_excludes_the_masked_keys():
    trace = lesson_trace("masked-decoder")
    check_against_loops(trace, causal_stacks=("dec",))
    heads = check_against_loops(random_trace(architecture="decoder", norm="pre"), causal_stacks=("dec",))
    assert {h.stack for h in heads} == {"dec"}
    # by hand, the lesson's one head: row i's entropy over keys 0…i only (row 0 sees one key: entropy 0)
    w = trace["dec.0.self_attn.weights"][0].double()
    rows = [-(w[i, : i + 1] * torch.log(w[i, : i + 1])).sum() for i in range(w.shape[0])]
    assert float(rows[0]) == 0.0
    assert head_patterns(trace)[0].entropy == pytest.approx(float(sum(rows) / len(rows)), abs=TOL)


def test_a_modern_decoder_with_a_sliding_window():
    """RMSNorm, SwiGLU, RoPE, grouped-query attention and a window of 3: a query sees itself and 2 keys before."""
    trace = random_trace(
        text="the cat sat on the mat today",
        architecture="decoder",
        norm="pre",
        norm_type="rmsnorm",
        activation="swiglu",
        positional="rope",
        n_kv_heads=2,
        sliding_window=3,
        biases="none",
    )
    heads = check_against_loops(trace, causal_stacks=("dec",))
    assert len(heads) == 2 * 4
    (numbers,) = measure(*uniform_causal(8), same_tokens=True)
    window = torch.ones(8, 8, dtype=torch.bool).tril() & ~torch.ones(8, 8, dtype=torch.bool).tril(-3)
    (in_window,) = measure((window / window.sum(-1, keepdim=True)).unsqueeze(0), window.unsqueeze(0), True)
    assert in_window["pattern"] == "broad" and in_window["first"] < numbers["first"]


def test_cross_attention_has_no_self_or_previous():
    for trace in (lesson_trace("cross-attention"), random_trace(architecture="encoder-decoder", target="猫 坐 在")):
        heads = check_against_loops(trace, causal_stacks=("dec",))
        cross = [h for h in heads if h.kind == "cross"]
        assert cross and all(h.self is None and h.previous is None and h.stack == "dec" for h in cross)
        assert {h.kind for h in heads} == {"self", "cross"}


def test_a_one_token_sentence_has_no_previous_token():
    heads = head_patterns(random_trace(text="cat"))
    assert all(h.previous is None and h.self == pytest.approx(1.0) and h.entropy == 0.0 for h in heads)
    assert {h.pattern for h in heads} == {"first"}  # one key, itself, first and last: a tie goes to PATTERNS' order


def uniform_causal(n):
    """Each query spreads evenly over the keys it may see (0…i): [1, n, n] and its visible keys."""
    visible = torch.ones(n, n, dtype=torch.bool).tril()
    return (visible / visible.sum(-1, keepdim=True)).unsqueeze(0), visible.unsqueeze(0)


def one_hot_rows(columns, n):
    weights = torch.zeros(1, n, n)
    weights[0, torch.arange(n), torch.tensor(columns)] = 1.0
    return weights


@pytest.mark.parametrize(
    "columns, pattern",
    [
        ([0, 0, 1, 2, 3], "previous"),  # each query on the token before (the first on itself)
        ([0, 0, 0, 0, 0], "first"),
        ([0, 1, 2, 3, 4], "self"),
        ([4, 4, 4, 4, 4], "last"),
    ],
)
def test_a_hand_built_attention_gets_its_pattern(columns, pattern):
    n = len(columns)
    (numbers,) = measure(one_hot_rows(columns, n), torch.ones(1, n, n, dtype=torch.bool), same_tokens=True)
    assert numbers["pattern"] == pattern and numbers["entropy"] == 0.0


def test_broad_is_measured_against_the_visible_keys():
    weights, visible = uniform_causal(8)
    (numbers,) = measure(weights, visible, same_tokens=True)
    even = sum(math.log(i + 1) for i in range(8)) / 8
    assert numbers["entropy"] == pytest.approx(even, abs=1e-6)
    assert numbers["first"] < DOMINANT and numbers["pattern"] == "broad"
    assert numbers["entropy"] < BROAD * math.log(8)  # over all keys, masked ones too, it would not count as broad
    # an encoder head spread evenly over 5 keys is broad; one over 2 of 5 keys is not, and names nothing
    (even_head,) = measure(torch.full((1, 5, 5), 0.2), torch.ones(1, 5, 5, dtype=torch.bool), same_tokens=True)
    assert even_head["pattern"] == "broad" and even_head["entropy"] == pytest.approx(math.log(5), abs=1e-6)
    pairs = torch.zeros(1, 5, 5)
    pairs[0, :, 1] = pairs[0, :, 2] = 0.5
    (pair_head,) = measure(pairs, torch.ones(1, 5, 5, dtype=torch.bool), same_tokens=True)
    assert pair_head["pattern"] is None


def test_the_threshold_is_the_named_constant():
    """A share just under DOMINANT names nothing; at DOMINANT it names the pattern."""
    for share, pattern in ((DOMINANT - 0.01, None), (DOMINANT, "first")):
        weights = torch.zeros(1, 4, 4)
        weights[0, :, 0] = share
        weights[0, :, 1] = weights[0, :, 2] = (1 - share) / 2
        (numbers,) = measure(weights, torch.ones(1, 4, 4, dtype=torch.bool), same_tokens=False)
        assert numbers["self"] is None and numbers["pattern"] == pattern


def test_an_unknown_metric_is_refused():
    with pytest.raises(ValueError, match="metrics are: entropy, self"):
        head_patterns(lesson_trace("two-heads"))[0].metric("loudness")
