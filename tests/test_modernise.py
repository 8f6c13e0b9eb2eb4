"""2017 → today (engine/modernise.py): each step's config, the weights a step keeps (only what the change touches
differs), the map after each step, and the KV cache's bytes before and after grouped-query attention."""

import pytest
import torch

from engine import EngineError, Model, ModelConfig, cost
from engine.architecture import architecture
from engine.formats.lesson import open_lesson
from engine.modernise import CHANGES, STEPS, config_at, model_at, regroup_heads, shown_stage, step_of

TEXT = "the cat sat on the mat"
MODERN = {
    "norm": "pre",
    "norm_type": "rmsnorm",
    "activation": "swiglu",
    "positional": "rope",
    "n_kv_heads": 2,
    "qk_norm": True,
}
OLD = {
    "norm": "post",
    "norm_type": "layernorm",
    "activation": "relu",
    "positional": "sinusoidal",
    "n_kv_heads": None,
    "qk_norm": False,
}
# the weights each change adds (+) or removes (−), by name; every other weight stays the same tensor
TOUCHED = {
    "pre_ln": {"+dec.final_norm.gamma", "+dec.final_norm.beta"},
    "rmsnorm": {"−dec.0.norm1.beta", "−dec.0.norm2.beta", "−dec.final_norm.beta"},
    "swiglu": {"+dec.0.ffn.W_gate", "+dec.0.ffn.b_gate"},
    "rope": set(),
    "gqa": {"dec.0.self_attn.W_K", "dec.0.self_attn.b_K", "dec.0.self_attn.W_V", "dec.0.self_attn.b_V"},
    "qk_norm": {"+dec.0.self_attn.q_norm.gamma", "+dec.0.self_attn.k_norm.gamma"},
}


def base() -> ModelConfig:
    return ModelConfig(architecture="decoder", d_model=8, n_heads=4, d_ff=8, n_layers=1, max_len=16, decimals=2)


def test_the_changes_come_in_order_with_who_introduced_them():
    assert [c.key for c in CHANGES] == ["pre_ln", "rmsnorm", "swiglu", "rope", "gqa", "qk_norm"]
    assert [c.year for c in CHANGES] == ["2019", "2019 / 2023", "2020 / 2022", "2021 / 2023", "2023", "2023–25"]
    assert "GPT-2" in CHANGES[0].models and "Qwen3" in CHANGES[5].models and "Mistral" in CHANGES[4].models


@pytest.mark.parametrize("step", range(STEPS + 1))
def test_step_k_makes_the_first_k_changes_and_undoes_the_rest(step):
    cfg = config_at(base(), step)
    for k, change in enumerate(CHANGES):
        wanted = MODERN if k < step else OLD
        assert getattr(cfg, change.field) == wanted[change.field], (step, change.key)
    assert (cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.n_layers) == (8, 4, 8, 1)  # nothing else moves
    assert step_of(cfg) == step
    assert config_at(config_at(base(), STEPS), step) == cfg  # a pure function of the config and the step


def test_a_config_off_the_path_has_no_step_and_a_bad_step_is_refused():
    assert step_of(base().replace(activation="gelu")) is None
    assert step_of(base().replace(norm_type="rmsnorm")) is None  # RMSNorm before pre-LN: out of order
    for bad in (-1, 7, 2.0, "3"):
        with pytest.raises(EngineError, match="choose 0 .2017. to 6 .today."):
            config_at(base(), bad)


def test_multi_query_when_the_heads_do_not_pair_up():
    assert config_at(base().replace(d_model=12, n_heads=3), 5).n_kv_heads == 1
    assert config_at(base().replace(d_model=8, n_heads=1), 5).kv_heads == 1


def differences(before: Model, after: Model) -> set[str]:
    added = {f"+{n}" for n in set(after.params) - set(before.params)}
    removed = {f"−{n}" for n in set(before.params) - set(after.params)}
    changed = {n for n in set(after.params) & set(before.params) if after.params[n] is not before.params[n]}
    return added | removed | changed


def test_each_change_touches_only_its_own_weights():
    model = Model.create(base())
    model.trace(TEXT)  # (the free vocabulary learns the words)
    for step, change in enumerate(CHANGES, start=1):
        after = model_at(model, step)
        assert differences(model, after) == TOUCHED[change.key], change.key
        model = after


def test_the_stages_a_change_moves_and_those_it_leaves():
    """RoPE moves no weight but every number after the positions; the embeddings stay."""
    at_3 = model_at(Model.create(base()), 3)
    before, after = at_3.trace(TEXT), model_at(at_3, 4).trace(TEXT)
    assert torch.equal(before["dec.embed"], after["dec.embed"])
    assert not torch.equal(before["dec.x0"], after["dec.x0"])  # no sinusoids added any more
    assert torch.equal(after["dec.x0"], after["dec.embed"])
    assert not torch.equal(before["probs"], after["probs"])


def test_grouped_query_attention_averages_each_groups_k_and_v_and_back_repeats_them():
    model = Model.create(config_at(base(), 4))
    w_k = model.params["dec.0.self_attn.W_K"]  # [8, 4 heads · d_k 2]
    grouped = model_at(model, 5).params["dec.0.self_attn.W_K"]  # [8, 2 K/V heads · 2]
    assert grouped.shape == (8, 4)
    assert torch.allclose(grouped[:, 0:2], (w_k[:, 0:2] + w_k[:, 2:4]) / 2)  # query heads 0 and 1 share K/V head 0
    assert torch.allclose(grouped[:, 2:4], (w_k[:, 4:6] + w_k[:, 6:8]) / 2)
    back = regroup_heads(grouped, 2, 4)
    assert torch.equal(back[:, 0:2], back[:, 2:4]) and torch.equal(back[:, 0:2], grouped[:, 0:2])


def test_the_kv_cache_halves_with_grouped_query_attention():
    """2 (K and V) × 1 layer × 4 heads × d_k 2 × 4 bytes = 64 bytes a token; 2 K/V heads: 32."""
    model = Model.create(base())
    before, after = model_at(model, 4).trace(TEXT), model_at(model, 5).trace(TEXT)
    assert cost.kv_cache(before)["per_token_bytes"] == 2 * 1 * 4 * 2 * 4 == 64
    assert cost.kv_cache(after)["per_token_bytes"] == 32
    assert cost.kv_cache(after)["bytes_for_sentence"] == 32 * 7  # <start> and six words


def boxes(model: Model) -> dict[str, tuple]:
    """The map's boxes of the model: their kind (part) in order, with their notes and their operations."""
    trace = model.trace(TEXT)
    arch = architecture(trace.config, trace.stages)
    return {
        f"{b.place.part}{b.place.block}{b.place.sublayer}": (b.notes, [o.op for o in b.operations]) for b in arch.boxes
    }


def test_the_map_after_each_change():
    model = Model.create(base())
    at = [boxes(model_at(model, step)) for step in range(STEPS + 1)]
    parts = [[k for k in a] for a in at]
    # pre-LN: the norms move before their sublayers, and a final norm comes before the output head
    assert parts[0].index("norm01") > parts[0].index("self_attn01")
    assert parts[1].index("norm01") < parts[1].index("self_attn01")
    assert "final_normNoneNone" in parts[1] and "final_normNoneNone" not in parts[0]
    # RMSNorm: a mean square, no mean and variance
    assert "norm.mean" in at[1]["norm01"][1] and "norm.ms" in at[2]["norm01"][1]
    assert "norm.mean" not in at[2]["norm01"][1]
    # SwiGLU: the box says it and has a gate
    assert at[2]["ffn02"][0] == ("relu",) and at[3]["ffn02"][0] == ("swiglu",)
    assert "ffn.gate" in at[3]["ffn02"][1]
    # RoPE: the embedding's note and the attention's
    assert at[3]["embeddingNoneNone"][0] == ("sinusoidal",) and at[4]["embeddingNoneNone"][0] == ("rope",)
    assert "rope" in at[4]["self_attn01"][0]
    # grouped-query: each query head's K and V shared from its K/V head, in the box; QK-norm: two more norms
    assert "attn.k_shared" not in at[4]["self_attn01"][1] and "attn.k_shared" in at[5]["self_attn01"][1]
    assert "attn.q_norm" not in at[5]["self_attn01"][1]
    assert {"attn.q_norm", "attn.k_norm"} <= set(at[6]["self_attn01"][1])


def test_the_lesson_is_the_2017_block_and_today_is_six_steps_away():
    lesson = open_lesson("2017-to-today")
    assert step_of(lesson.config) == 0 and lesson.views == ("modernise",)
    model = lesson.build_model()
    today = model_at(model, STEPS)
    assert step_of(today.config) == STEPS
    assert cost.kv_cache(today.trace(lesson.text))["per_token_bytes"] == 32


def test_the_stage_that_shows_each_change_made_or_undone():
    model = Model.create(base())
    wanted = ["dec.0.norm1.out", "dec.0.norm1.out", "dec.0.ffn.act"] + ["dec.0.self_attn.scores"] * 3
    for step in range(1, STEPS + 1):
        forward = model_at(model, step).trace(TEXT).stages
        back = model_at(model, step - 1).trace(TEXT).stages
        assert shown_stage(forward, step - 1, step) == wanted[step - 1]
        # back from RMSNorm the LayerNorm model has no RMSNorm output: the window stays where it is
        assert shown_stage(back, step, step - 1) == (None if step == 2 else wanted[step - 1])
    assert shown_stage(forward, 6, 6) is None
