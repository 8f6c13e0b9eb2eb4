"""Formulas carry the real shapes; every operation has a title and a paragraph in English and Chinese."""

import json

import pytest

from engine import Model, ModelConfig
from gui.text.formulas import formula, letter, symbols
from gui.text.operations import stage_op
from gui.text.stage_texts import TEXTS_FILE, op_text, op_title

CONFIGS = [
    ModelConfig(decimals=1),
    ModelConfig(architecture="encoder-decoder", norm="pre", positional="learned", activation="gelu"),
    ModelConfig(
        architecture="decoder",
        d_model=8,
        positional="rope",
        activation="swiglu",
        type_vocab=2,
        embed_norm=True,
        switches=("no_scale", "no_residual", "no_layernorm"),
    ),
]


def trace_of(cfg):
    return Model.create(cfg).trace("I love AI", "我 爱 AI" if cfg.architecture == "encoder-decoder" else None)


def test_formulas_show_the_actual_shapes():
    trace = trace_of(CONFIGS[0])
    assert formula(trace, "enc.0.attn.scores") == "scores = Q·Kᵀ   [3×2]·[2×3] → [3×3]   (head 0 of 2)"
    assert formula(trace, "enc.0.attn.q", head=1).startswith("Q = X·W_Q + b_Q   [3×4]·[4×2] + [2] → [3×2]")
    assert "columns 2–3 of W_Q" in formula(trace, "enc.0.attn.q", head=1)
    assert formula(trace, "enc.0.ffn.up") == "H = X·W1 + b1   [3×4]·[4×8] + [8] → [3×8]"
    assert formula(trace, "enc.0.attn.scaled").startswith("scaled = scores / √d_k = scores / √2 = scores / 1.41")
    assert formula(trace, "enc.0.norm1.out") == "y = γ ⊙ x_norm + β   [3×4] ⊙ [4] + [4] → [3×4]"
    assert formula(trace, "enc.0.attn.concat") == "Concat = [Z₀ | Z₁]   2 × [3×2] → [3×4]"
    assert symbols(trace, "enc.0.attn.q")[0] == {"enc.x0": "X", "enc.0.attn.W_Q": "W_Q", "enc.0.attn.b_Q": "b_Q"}


def test_variants_and_switches_are_written_as_they_run():
    trace = trace_of(CONFIGS[2])
    assert formula(trace, "dec.0.self_attn.scaled").endswith("(switched off: ÷ √d_k)")
    assert formula(trace, "dec.0.add1").startswith("Attention(x)   [4×8] → [4×8]")  # the sum, never its id
    assert formula(trace, "dec.0.norm2.out").startswith("y = x ")
    assert formula(trace, "dec.0.ffn.act").startswith("H_act = SiLU(G) ⊙ H")
    assert formula(trace, "dec.0.self_attn.scores").startswith("scores = Q_rot·K_rotᵀ")
    assert "−∞ above the diagonal" in formula(trace, "dec.0.self_attn.masked")
    two = trace_of(CONFIGS[1])
    assert formula(two, "dec.0.cross_attn.k").startswith("K = X_enc·W_K")
    assert formula(two, "dec.0.add2").startswith("x + CrossAttention(LN(x))   ")
    # the sublayer's table is captioned as the formula calls it (it read "Sublayer(x)" under "x + Attention(x)")
    assert symbols(two, "dec.0.add2")[0]["dec.0.cross_attn.out"] == "CrossAttention(LN(x))"
    assert symbols(trace, "dec.0.add1")[0] == {"dec.0.self_attn.out": "Attention(x)"}
    assert letter(two, "dec.0.add2") == "x + CrossAttention(LN(x))"
    assert letter(two, "grad.dec.0.add2") == "∂L/∂(x + CrossAttention(LN(x)))"  # a sum's gradient, whole


@pytest.mark.parametrize("cfg", CONFIGS, ids=["encoder", "encoder-decoder", "decoder-variants"])
def test_every_stage_has_a_formula_and_bilingual_text(cfg):
    trace = trace_of(cfg)
    for name in trace.stage_names:
        assert formula(trace, name)
        op = stage_op(trace, name)
        for lang in ("en", "zh"):
            assert op_title(op, lang) and len(op_text(op, lang)) > 40
        assert any("\u4e00" <= ch <= "\u9fff" for ch in op_text(op, "zh"))


def test_the_text_file_has_both_languages_for_every_entry():
    data = json.loads(TEXTS_FILE.read_text(encoding="utf-8"))
    for op, entry in data.items():
        if op.startswith("_"):
            continue
        assert set(entry["title"]) == {"en", "zh"} and set(entry["text"]) == {"en", "zh"}, op
        assert set(entry.get("caption", {"en": "", "zh": ""})) == {"en", "zh"}, op  # a plot caption, where given


def test_a_tiled_attentions_formula_quotes_its_numbers_as_the_table_shows_them():
    """flash-attention's running maximum read "m = [1.35, 0.085]" over a table that shows 0.08: the numbers a
    formula quotes have the tables' decimals."""
    from engine.formats.lesson import open_lesson

    trace = open_lesson("flash-attention").trace()
    name = next(n for n in trace.stage_names if "tiled" in n and n.endswith(".m"))
    values = trace[name][0].flatten().tolist()
    for decimals in (2, 3):
        quoted = formula(trace, name, 0, decimals).split("m = [")[1].split("]")[0]
        assert quoted == ", ".join(f"{v:.{decimals}f}".replace("-", "−") for v in values), quoted
