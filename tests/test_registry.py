"""Every operation of every architecture has one complete entry in gui/text/operations.py (title and
explanation in English and Chinese, formula, colour-map kind, plots), its colour kind fits its numbers, and the
teaching texts write the formulas with the letters the formula line uses and name no lesson's words."""

import re

import pytest
import torch
from PySide6.QtWidgets import QApplication

from engine import Model, ModelConfig
from engine.graph import RECORDS
from engine.training.backward import GRAD_PREFIX
from engine.training.shown_trace import ShownTrace
from gui.plots.figure import PANELS
from gui.text.formulas import formula, symbols
from gui.text.i18n import set_language
from gui.text.operations import (
    COLOUR_KINDS,
    IDS,
    NON_NEGATIVE,
    OPERATIONS,
    PROBABILITY,
    SIGNED,
    matrix_caption,
    operation,
    place_of,
    stage_op,
    text_key,
)
from gui.text.stage_texts import LANGUAGES, has_text, op_caption, op_text, op_title

ARCHITECTURES = {
    "encoder": dict(architecture="encoder", n_layers=2),
    "decoder": dict(architecture="decoder"),
    "encoder-decoder": dict(architecture="encoder-decoder", n_layers=2),
    "pre-LN, learned positions": dict(
        architecture="encoder-decoder", norm="pre", positional="learned", activation="gelu"
    ),
    "BERT-like": dict(architecture="encoder", embed_norm=True, type_vocab=2, activation="gelu_tanh"),
    "SwiGLU + RoPE": dict(architecture="decoder", activation="swiglu", positional="rope", d_model=8),
    "tiled attention": dict(architecture="encoder-decoder", tiled=(2, 2)),
    "what-if switches": dict(
        architecture="decoder",
        positional="rope",
        embed_norm=True,
        switches=("no_pe", "no_scale", "no_mask", "no_residual", "no_layernorm"),
    ),
    "no positions": dict(architecture="decoder", positional="none", n_heads=1),
    "today's decoder (Qwen3-like)": dict(
        architecture="decoder",
        norm="pre",
        norm_type="rmsnorm",
        activation="swiglu",
        positional="rope",
        rope_pairs="half",
        n_heads=4,
        n_kv_heads=2,
        head_dim=4,
        qk_norm=True,
        biases="qkv",
        tied_embeddings=True,
        sliding_window=3,
        d_model=8,
    ),
}


def shown(kind: str) -> ShownTrace:
    """The trace as the window steps it: forward stages, then the loss and the backward pass."""
    cfg = ModelConfig.from_dict(ARCHITECTURES[kind])
    target = "我 爱 AI" if cfg.architecture == "encoder-decoder" else None
    return ShownTrace(Model.create(cfg).trace("I love AI very much", target))


TRACES = {kind: shown(kind) for kind in ARCHITECTURES}


def has_chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


@pytest.mark.parametrize("kind", ARCHITECTURES)
def test_every_stage_has_a_complete_entry(kind):
    trace = TRACES[kind]
    for name in trace.stage_names:
        entry = operation(stage_op(trace, name))
        assert entry.colour in COLOUR_KINDS and entry.panels in PANELS, name
        for head in (0, trace.config.n_heads - 1):
            assert formula(trace, name, head), name
        key = text_key(trace, name)
        for lang, shortest in zip(LANGUAGES, (40, 20)):  # a paragraph (Chinese takes fewer characters)
            assert op_title(key, lang) and len(op_text(key, lang)) > shortest, (name, lang)
        assert has_chinese(op_title(key, "zh")) and has_chinese(op_text(key, "zh")), name
        if not name.startswith(GRAD_PREFIX):  # a forward stage: its letter and its matrix's caption
            assert entry.letter and matrix_caption(entry.op, "en") and has_chinese(matrix_caption(entry.op, "zh"))
        if entry.cross_text:
            assert has_text(entry.cross_text), entry.cross_text


def test_every_entry_is_used_and_every_backward_rule_has_one():
    seen = {stage_op(trace, name) for trace in TRACES.values() for name in trace.stage_names}
    assert seen == set(OPERATIONS), "entries no architecture uses, or ops without an entry"
    assert {GRAD_PREFIX + r.backward for r in RECORDS.values() if r.backward} <= set(OPERATIONS)
    assert set(RECORDS) == set(OPERATIONS) - {op for op in OPERATIONS if op.startswith(GRAD_PREFIX)}


def test_cross_attention_is_told_by_the_place_not_the_name():
    trace = TRACES["encoder-decoder"]
    cross = [n for n in trace.stage_names if n in trace.trace.values and place_of(trace, n).part == "cross_attn"]
    assert cross and all(".cross_attn." in n for n in cross)
    assert text_key(trace, "dec.0.cross_attn.weights") == "cross_attn.weights"
    assert text_key(trace, "dec.0.self_attn.weights") == "attn.weights"
    assert formula(trace, "dec.0.cross_attn.v").startswith("V = X_enc·W_V")
    assert "encoder" not in formula(trace, "dec.0.self_attn.v")  # no note on where k and v come from


@pytest.mark.parametrize("kind", ARCHITECTURES)
def test_the_colour_kind_fits_the_numbers(kind):
    trace = TRACES[kind]
    for name in trace.stage_names:
        kind_of = operation(stage_op(trace, name)).colour
        value = trace[name]
        if kind_of == IDS:
            assert not value.is_floating_point(), name
            continue
        finite = value[torch.isfinite(value)]
        if kind_of in (NON_NEGATIVE, PROBABILITY):
            assert float(finite.min()) >= 0, f"{name}: {kind_of} but holds {float(finite.min())}"
        if kind_of == PROBABILITY:
            assert float(finite.max()) <= 1 + 1e-6, name


def test_signed_kinds_hold_negative_numbers_somewhere():
    """A forward operation coloured as signed has a negative value in at least one of the architectures (else
    it is non-negative data and wants a sequential map)."""
    negative = {op: False for op, entry in OPERATIONS.items() if entry.colour == SIGNED and GRAD_PREFIX not in op}
    for trace in TRACES.values():
        for name in trace.trace.stage_names:
            op = stage_op(trace, name)
            if op in negative and not negative[op]:
                value = trace[name]
                negative[op] = bool((value[torch.isfinite(value)] < 0).any()) or bool((value == -torch.inf).any())
    assert all(negative.values()), [op for op, found in negative.items() if not found]


# ---- the texts and the formulas use the same letters (an "F = H·W2" in a text where the formula says A·W2) ----

SYMBOL = r"[A-Za-zα-ωΑ-Ωℓ][A-Za-z0-9_²]*"
EQUATION = re.compile(rf"(?<![\w/∂])({SYMBOL}) = ([^.;:,。；，：]*)")
LEFT_FACTOR = re.compile(rf"({SYMBOL})ᵀ?\s?[·⊙]")  # the symbol before a product sign
RIGHT_FACTOR = re.compile(rf"[·⊙]\s?({SYMBOL})(?![\w(])")  # … after it (not a function: sigmoid(g))


def _letter(symbol: str) -> str:
    """Q_I (block I of Q's rows, in the tiled texts) is written with Q's letter."""
    return re.sub(r"_[IJ]$", "", symbol)


def _formula_symbols(lang: str = "en") -> dict[str, set[str]]:
    """Per text entry: every symbol the formula lines shown with it use, and their letters, as the window writes
    them in `lang` (x_norm is x′ in Chinese)."""
    set_language(QApplication.instance() or QApplication([]), lang)
    found: dict[str, set[str]] = {}
    for trace in TRACES.values():
        for name in trace.stage_names:
            letters, out = symbols(trace, name)
            words = set(re.findall(SYMBOL, formula(trace, name))) | set(letters.values()) | {out}
            found.setdefault(text_key(trace, name), set()).update(words)
    set_language(QApplication.instance(), "en")
    return found


def _equations(text: str) -> list[tuple[str, list[str]]]:
    """Each "LHS = …" with the factors of the products on its right side (up to the end of the clause)."""
    return [
        (lhs, [_letter(f) for f in LEFT_FACTOR.findall(rhs) + RIGHT_FACTOR.findall(rhs)])
        for lhs, rhs in EQUATION.findall(text)
    ]


def test_texts_write_the_formulas_with_the_formulas_letters():
    letters = {entry.letter for entry in OPERATIONS.values() if entry.letter}  # the names of the matrices
    problems = []
    for lang in LANGUAGES:
        for key, used in _formula_symbols(lang).items():
            for text in (op_text(key, lang), op_title(key, lang), op_caption(key, lang) or ""):
                for lhs, factors in _equations(text):
                    if lhs not in used and lhs not in letters:
                        continue  # not a formula of this model ("z_i = Σ_j a_ij · v_j", "weight = e^score …")
                    problems += [f"{key} ({lang}): {lhs} = … {s} …" for s in [lhs, *factors] if s not in used]
    assert not problems, "symbols a text uses but its formula does not:\n" + "\n".join(sorted(set(problems)))


def test_the_check_finds_a_stale_letter():
    """The check above would catch the FFN's old text: F = H·W2 + b2 while the formula reads the activation."""
    assert _equations("F = H·W2 + b2 brings each token back") == [("F", ["H", "W2"])]
    assert _equations("A = SiLU(G) ⊙ H, with SiLU(g) = g·sigmoid(g)") == [("A", ["H"])]
    ffn_down = _formula_symbols()["ffn.down"]
    assert "H_act" in ffn_down and "H" not in ffn_down


def test_the_stage_texts_speak_of_any_sentence_not_of_one_lessons():
    """A stage's text is shown for every model and sentence: naming a lesson's words ("the row that predicts 爱
    looks mostly at love") contradicts every other screen. The words any sentence has are allowed."""
    import json

    from engine.assets import ASSETS_DIR

    common = {",", "。", "I", "The", "the", "on", "它"}  # punctuation, "I" and "the" in English, 它 "it"
    words = set()
    for path in (ASSETS_DIR / "lessons").glob("*.json"):
        lesson = json.loads(path.read_text(encoding="utf-8"))
        words |= set(lesson.get("text", "").split()) | set(lesson.get("target", "").split())
    assert {"love", "爱", "cat"} <= words
    texts = json.loads((ASSETS_DIR / "stage_texts.json").read_text(encoding="utf-8"))
    named = {
        (key, word)
        for key, entry in texts.items()
        if key != "_about"
        for field in ("title", "caption", "text")
        for text in entry.get(field, {}).values()
        for word in words - common
        if re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text)
    }
    assert named == set()
