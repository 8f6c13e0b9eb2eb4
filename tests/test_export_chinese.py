"""`export --lang zh` and `deck --lang zh`: every phrase drawn on a figure or a slide is Chinese.

The rule: a Latin word (two letters or more) on a Chinese figure or slide is a token of the sentence (or an
example token in quotes, “love”), a symbol (one letter, or with a digit or _ in it: W_Q, d_model, add1), or one
of FORMULA_NAMES, the names the formulas give stages and functions and that the Chinese lessons keep as they
are (softmax, LayerNorm, post-LN, scores = Q·Kᵀ); and no two Latin words stand side by side with only spaces
between them (that is prose).
"""

import html
import re

import pytest
from pptx import Presentation

import main
from engine.sources import open_source
from gui.export.deck import slides
from gui.plots import PlotOptions
from gui.text.i18n import set_language

FORMULA_NAMES = {
    "softmax",
    "Softmax",
    "LayerNorm",
    "ReLU",
    "GELU",
    "SiLU",
    "SwiGLU",
    "sigmoid",
    "tanh",
    "RoPE",
    "FFN",
    "KV",
    "PE",
    "LN",
    "post-LN",
    "pre-LN",
    "Transformer",
    "logit",
    "Logit",
    "logits",
    "Logits",
    "ids",
    "id",
    "token",
    "tokens",
    "vocab",
    "sin",
    "cos",
    "log",
    "exp",
    "max",
    "mean",
    "var",
    "hat",
    "scores",
    "scaled",
    "masked",
    "weights",
    "concat",
    "Concat",
    "Attention",
    "CrossAttention",
    "Sublayer",
    "embed",
    "pos",
    "up",
    "act",
    "down",
    "out",
    "labels",
    "probs",
    *("Llama", "Qwen", "Mistral", "GPT", "BERT"),  # the models' own names
}
SPECIAL_TOKENS = ("<start>", "<end>", "<unk>", "<pad>")
WORD = re.compile(r"[A-Za-z0-9_'’\-]+")
PROSE = re.compile(r"[A-Za-z]{2,}[.,;:!?]? +[A-Za-z]{2,}")


def english_left(text: str, tokens: set[str]) -> list[str]:
    """The English words and phrases in `text` that break the rule above."""
    for token in sorted(tokens | set(SPECIAL_TOKENS), key=len, reverse=True):
        text = re.sub(rf"(?<![A-Za-z]){re.escape(token)}(?![A-Za-z])", " ", text)
    text = re.sub(r"“[^”\s]*”", " ", text)
    words = [w for w in WORD.findall(text) if re.fullmatch(r"[A-Za-z][A-Za-z'’\-]*[A-Za-z]", w)]
    return [w for w in words if w not in FORMULA_NAMES] + PROSE.findall(text)


def test_the_rule_catches_english_and_lets_symbols_and_tokens_through():
    tokens = {"I", "love", "AI"}
    assert english_left("注意力分数 Q·Kᵀ · 头 0 — 编码器 · d_model 4 · post-LN · ReLU", tokens) == []
    assert english_left("masked = 缩放后的分数 · x_norm · W1 · I love AI · 主要关注 “cat”", tokens) == []
    assert english_left("masked = scaled, with −∞ above the diagonal", tokens) == [
        "with",
        "above",
        "the",
        "diagonal",
        "scaled, with",
        "above the",
    ]
    assert english_left("encoder · d_model 4", tokens) == ["encoder"]


def svg_text(path) -> str:
    return "\n".join(html.unescape(t) for t in re.findall(r"<text[^>]*>(.*?)</text>", path.read_text("utf-8"), re.S))


def tokens_of(**source) -> set[str]:
    return {t for tokens in open_source(**source).trace().tokens.values() for t in tokens}


@pytest.mark.parametrize(
    "stage",
    [
        "dec.0.self_attn.scores",
        "dec.0.self_attn.masked",
        "dec.0.self_attn.weights",
        "dec.0.norm1.out",
        "dec.0.ffn.act",
        "probs",
    ],
)
def test_exported_figures_are_chinese(qapp, tmp_path, stage):
    out = tmp_path / "f.svg"
    assert (
        main.main(
            [
                "export",
                "--lesson",
                "masked-decoder",
                "--lang",
                "zh",
                "--format",
                "svg",
                "--stage",
                stage,
                "--out",
                str(out),
            ]
        )
        == 0
    )
    text = svg_text(out)
    assert "解码器" in text and stage not in text  # the human place of the stage, never its id
    assert english_left(text, tokens_of(lesson="masked-decoder")) == []


def test_a_chinese_deck_is_chinese(qapp, tmp_path):
    out = tmp_path / "d.pptx"
    assert main.main(["deck", "--lesson", "masked-decoder", "--lang", "zh", "--format", "pptx", "--out", str(out)]) == 0
    tokens = tokens_of(lesson="masked-decoder")
    deck = Presentation(str(out))
    for slide in list(deck.slides)[2:]:  # (the map and the overview are pictures, drawn in Chinese: tested apart)
        shown = [shape.text_frame.text for shape in slide.shapes if shape.has_text_frame]
        shown += [
            cell.text for shape in slide.shapes if shape.has_table for row in shape.table.rows for cell in row.cells
        ]
        shown.append(slide.notes_slide.notes_text_frame.text)
        title, place = slide.shapes.title.text_frame.text, slide.shapes[1].text_frame.text  # the place under it
        assert "dec." not in title + place and ("解码器" in place or "输出" in place), (title, place)
        assert english_left("\n".join(shown), tokens) == [], title
    assert "对角线" in "\n".join(s.shapes[2].text_frame.text for s in list(deck.slides)[2:])  # the mask's formula


def test_every_slide_of_an_encoder_decoder_lesson_is_chinese(qapp):
    set_language(qapp, "zh")
    trace = open_source(lesson="cross-attention").trace()
    tokens = {t for tokens in trace.tokens.values() for t in tokens}
    for slide in slides(trace, PlotOptions(lang="zh", slide=True)):
        text = "\n".join([slide.title, slide.subtitle, slide.formula, slide.notes] + [m.symbol for m in slide.matrices])
        assert slide.stage not in slide.title + slide.subtitle
        assert english_left(text, tokens) == [], slide.stage
