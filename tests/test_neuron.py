"""The neuron view (engine/neuron.py): q ⊙ k of one head, query row and key column, whose sum is the score before
scaling, checked against the scores stage and against q and k computed here from the weights (RoPE by complex
rotation), for an encoder, a RoPE decoder and a cross-attention."""

import math

import pytest
import torch

from engine import EngineError, Model, ModelConfig
from engine.graph import attention, find
from engine.neuron import attention_at, hidden_keys, neuron, strongest_key

TOL = dict(rtol=1e-5, atol=1e-5)


def projected(trace, part_op: str, place: dict, head: int) -> torch.Tensor:
    """x · W[:, head's columns] + b[head's columns] → [n, d_k], from the projection stage's input and weights."""
    stage = find(trace.stages, part_op, **place)
    x, W, b = (trace[name] for name in stage.inputs)
    d_k = trace.config.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    return x.double() @ W[:, cols].double() + b[cols].double()


def rotated(x: torch.Tensor) -> torch.Tensor:
    """RoPE as a complex rotation: pair (2i, 2i+1) of row p times exp(i·p·10000^(−2i/d_k)) → [n, d_k]."""
    n, d_k = x.shape
    theta = torch.arange(n, dtype=torch.float64)[:, None] * 10000.0 ** (-torch.arange(0, d_k, 2) / d_k)
    pairs = torch.view_as_complex(x.reshape(n, d_k // 2, 2).contiguous())
    return torch.view_as_real(pairs * torch.polar(torch.ones_like(theta), theta)).reshape(n, d_k)


CASES = [
    (dict(architecture="encoder", d_model=8, n_heads=2, d_ff=12, n_layers=2), dict(stack="enc", block=1), False),
    (
        dict(architecture="decoder", d_model=8, n_heads=2, d_ff=12, n_layers=2, positional="rope", norm="pre"),
        dict(stack="dec", block=1, part="self_attn"),
        True,
    ),
    (
        dict(architecture="encoder-decoder", d_model=8, n_heads=2, d_ff=12, n_layers=1),
        dict(stack="dec", block=0, part="cross_attn"),
        False,
    ),
]


@pytest.mark.parametrize("changes, place, rope", CASES, ids=["encoder", "rope-decoder", "cross-attention"])
def test_the_products_sum_to_the_scores_cell_and_equal_q_and_k_computed_from_the_weights(changes, place, rope):
    target = "le chat est assis" if changes["architecture"] == "encoder-decoder" else None
    trace = Model.create(ModelConfig(**changes)).trace("the cat sat on the mat", target)
    att = attention(trace.stages, **place)
    scores = trace[att.scores.name]
    n_q, n_k = scores.shape[1:]
    cfg = trace.config
    for head in range(cfg.n_heads):
        q_all = projected(trace, "attn.q", place, head)  # [n_q, d_k]
        k_all = projected(trace, "attn.k", place, head)  # [n_k, d_k]
        if rope:
            q_all, k_all = rotated(q_all), rotated(k_all)
        for i, j in ((0, 0), (n_q - 1, 0), (n_q - 1, n_k - 1), (1, n_k - 2)):
            cell = neuron(trace, att, head, i, j)
            assert cell.score == pytest.approx(float(scores[head, i, j]), rel=1e-5, abs=1e-5)
            torch.testing.assert_close(cell.q.double(), q_all[i], **TOL)
            torch.testing.assert_close(cell.k.double(), k_all[j], **TOL)
            torch.testing.assert_close(cell.products.double(), q_all[i] * k_all[j], **TOL)
            assert cell.score == pytest.approx(float((q_all[i] * k_all[j]).sum()), rel=1e-5, abs=1e-5)
            assert cell.scaled == pytest.approx(cell.score / math.sqrt(cfg.d_k), rel=1e-5, abs=1e-6)
            assert not cell.unscaled and cell.divisor == math.sqrt(cfg.d_k)
            row = scores[head, i].double() / math.sqrt(cfg.d_k)
            if trace.config.architecture == "decoder" and j > i:
                assert cell.hidden and cell.weight == 0.0
            else:
                hidden = (
                    torch.arange(n_k) > i if trace.config.architecture == "decoder" else torch.zeros(n_k, dtype=bool)
                )
                expected = torch.softmax(row.masked_fill(hidden, -math.inf), dim=0)[j]
                assert not cell.hidden and cell.weight == pytest.approx(float(expected), rel=1e-5, abs=1e-6)
    if rope:  # the scores read the rotated q and k, not the projections
        assert (cell.q_stage, cell.k_stage) == (att.scores.inputs[0], att.scores.inputs[1])
        assert find(trace.stages, "attn.q_rot", **place).name == cell.q_stage


def test_the_ranking_puts_the_largest_push_up_first_and_the_largest_push_down_first():
    trace = Model.create(ModelConfig(d_model=16, n_heads=2, d_ff=8)).trace("a b c d")
    att = attention(trace.stages)
    cell = neuron(trace, att, 1, 2, 3)
    p = cell.products.tolist()
    assert [p[d] for d in cell.ranked] == sorted(p, reverse=True)
    assert cell.up == [d for d in cell.ranked if p[d] > 0]
    assert [p[d] for d in cell.down] == sorted(x for x in p if x < 0)
    assert len(cell.up) + len(cell.down) + sum(x == 0 for x in p) == len(p) == trace.config.d_k


def test_the_no_scaling_switch_divides_by_one_and_a_cell_outside_is_refused():
    trace = Model.create(ModelConfig(switches=("no_scale",))).trace("a b c")
    att = attention(trace.stages)
    cell = neuron(trace, att, 0, 1, 2)
    assert cell.unscaled and cell.divisor == 1.0 and cell.scaled == pytest.approx(cell.score, rel=1e-6)
    for bad in ((2, 0, 0), (0, 3, 0), (0, 0, -1)):
        with pytest.raises(EngineError, match="outside"):
            neuron(trace, att, *bad)


def test_the_attention_shown_is_the_current_one_else_the_latest_before_else_the_first():
    trace = Model.create(ModelConfig(architecture="encoder-decoder", n_layers=2)).trace("a b", "x y")
    names = trace.stage_names
    assert attention_at(trace, "enc.tokens").scores.name == "enc.0.attn.scores"
    assert attention_at(trace, "enc.0.attn.v").scores.name == "enc.0.attn.scores"
    assert attention_at(trace, "enc.1.ffn.up").scores.name == "enc.1.attn.scores"
    assert attention_at(trace, "dec.0.cross_attn.z").scores.name == "dec.0.cross_attn.scores"
    assert attention_at(trace, names[-1]).scores.name == "dec.1.cross_attn.scores"


def test_the_strongest_key_is_the_largest_weight_of_the_row():
    trace = Model.create(ModelConfig(architecture="decoder", d_model=8, n_heads=2)).trace("a b c d e")
    att = attention(trace.stages)
    weights = trace[att.weights.name]
    for head in range(2):
        for query in range(weights.shape[1]):
            j = strongest_key(trace, att, head, query)
            assert j <= query and weights[head, query, j] == weights[head, query].max()
            assert hidden_keys(trace, att, head, query) == [key > query for key in range(weights.shape[2])]


def test_a_grouped_query_head_reads_the_key_of_its_kv_head_after_qk_norm_and_rope():
    cfg = ModelConfig(
        architecture="decoder",
        d_model=16,
        n_heads=4,
        n_kv_heads=2,
        qk_norm=True,
        positional="rope",
        norm="pre",
        norm_type="rmsnorm",
        activation="swiglu",
        d_ff=16,
        n_layers=2,
    )
    trace = Model.create(cfg).trace("a b c d e")
    place = dict(stack="dec", block=1)
    att = attention(trace.stages, **place)
    scores, keys = trace[att.scores.name], trace[find(trace.stages, "attn.k_rot", **place).name]  # keys [2, n, d_k]
    queries = trace[find(trace.stages, "attn.q_rot", **place).name]  # [4, n, d_k]
    n = scores.shape[1]
    for head in range(4):
        for i, j in ((n - 1, 0), (n - 1, n - 1), (2, 1)):
            cell = neuron(trace, att, head, i, j)
            assert cell.score == pytest.approx(float(scores[head, i, j]), rel=1e-5, abs=1e-5)
            assert torch.equal(cell.k, keys[head // 2, j]) and torch.equal(cell.q, queries[head, i])
            torch.testing.assert_close(cell.products.sum(), (queries[head, i] * keys[head // 2, j]).sum(), **TOL)
