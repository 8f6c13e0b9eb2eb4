"""The formula lines that take more than one line of code to write: the ones that read the model's settings or
a switch, and the steps of tiled attention. Each operation's entry in gui/text/operations.py names its line:
a lambda there for the simple ones, a function here for these.

A line is written from a `Formula`: the stage, the letters of its output and inputs, and their shapes.
Per-head stages are written for one head (the head the window shows).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication

from engine import tiled
from gui.text.numbers import format_number

GAP = "   "
FACTOR_DIGITS = 2  # significant digits of a rescale factor e^(m_old − m): the shrink is the point, however small
ACTIVATIONS = {
    "relu": "ReLU(H) = max(0, H)",
    "gelu": "GELU(H) = H·Φ(H)",
    "gelu_tanh": "GELU(H) ≈ 0.5·H·(1 + tanh(√(2/π)·(H + 0.044715·H³)))",
    "swiglu": "SiLU(G) ⊙ H = G·sigmoid(G) ⊙ H",
}
SUBLAYER_WORDS = {"self_attn": "Attention", "cross_attn": "CrossAttention", "ffn": "FFN"}  # by Place.part


def tr(text: str) -> str:
    return QCoreApplication.translate("Formula", text)


def word_symbol(word: str) -> str:
    """A letter of the formulas that is an English word, in the window's language ("ids": 编号 in Chinese, where
    "x_norm" is x′ and "H_act" H′); any other letter (Q, W_Q, scores, μ) as it is."""
    words = {
        "ids": tr("ids"),
        "vocab": tr("vocab"),
        "tokens": tr("tokens"),
        "Concat": tr("Concat"),
        "x_norm": tr("x_norm"),
        "H_act": tr("H_act"),
        "mask": tr("mask"),
    }
    return words.get(word, word)


def dims(*sizes: int) -> str:
    return "[" + "×".join(str(int(s)) for s in sizes) + "]"


def shape_of(trace, name: str) -> str:
    """ "[3×4]"; a per-head tensor [h, n, d_k] is written for one head as [n×d_k]."""
    shape = tuple(trace[name].shape)
    return dims(*(shape[1:] if len(shape) == 3 else shape))


def subscript(i: int) -> str:
    return str(i).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


@dataclass(frozen=True)
class Formula:
    """What a formula line is written from."""

    trace: object
    name: str
    head: int
    lhs: str  # the output's letter
    letters: tuple[str, ...]  # the inputs' letters, in the stage's order
    shapes: tuple[str, ...]  # the inputs' shapes
    out: str  # the output's shape
    decimals: int = 2  # places of the numbers it quotes, as the tables show them

    @property
    def cfg(self):
        return self.trace.config

    @property
    def stage(self):
        return self.trace.stage(self.name)

    @property
    def head_note(self) -> str:
        return f"{GAP}(" + tr("head {0} of {1}").format(self.head, self.cfg.n_heads) + ")"


def switched_off(text: str) -> str:
    return f"{GAP}(" + tr("switched off: {0}").format(text) + ")"


def cross_note(kind: str) -> str:
    """What cross-attention says about where its q, k and v come from (the kind is the registry's)."""
    return {
        "queries": tr("q from the decoder: one row per target token"),
        "keys": tr("k, v from the encoder's output: one row per source token"),
        "grid": tr("rows: target tokens (q from the decoder) · columns: source tokens (k from the encoder)"),
        "rows": tr("one row per target token; v came from the encoder"),
    }[kind]


# ---- the embeddings -----------------------------------------------------------------------------------------


def token_ids(f: Formula) -> str:
    """ids = vocab[tokens], with the number of tokens."""
    lookup = f"{word_symbol('vocab')}[{word_symbol('tokens')}]"
    count = tr("{0} tokens").format(f.trace[f.name].shape[0])
    return f"{f.lhs} = {lookup}{GAP}{count} → {f.out}"


def rows_of(f: Formula, row: str) -> str:
    """A table lookup: E = W_E[ids], T = W_T[0]."""
    return (
        f"{f.lhs} = {f.letters[0]}[{word_symbol(row)}]{GAP}"
        + tr("rows of {0} {1}").format(f.letters[0], f.shapes[0])
        + f" → {f.out}"
    )


def positions(f: Formula) -> str:
    cfg = f.cfg
    if cfg.positional == "rope" or "no_pe" in cfg.switches:
        why = tr("positions are switched off") if "no_pe" in cfg.switches else tr("RoPE turns Q and K instead")
        return f"PE = 0{GAP}→ {f.out}{GAP}({why})"
    if cfg.positional == "sinusoidal":
        return f"PE[p, 2i] = sin(p / 10000^(2i/d)),  PE[p, 2i+1] = cos(p / 10000^(2i/d)){GAP}→ {f.out}"
    if cfg.positional == "learned":
        return f"PE = W_pos[0 : n]{GAP}{f.shapes[1]} → {f.out}"
    return f"PE = 0{GAP}→ {f.out}{GAP}(" + tr("no positional encoding") + ")"


# ---- attention ----------------------------------------------------------------------------------------------


def linear(f: Formula) -> str:
    """Y = X·W + b with the shapes (a layer without a bias: X·W; the output head tied to the embeddings:
    X·W_Eᵀ)."""
    x, w, *b = f.letters
    sx, sw, *sb = f.shapes
    if f.cfg.tied_embeddings and f.stage.place.part == "output":
        w, sw = f"{w}ᵀ", f"{sw}ᵀ"  # the tied output head reads W_E [vocab × d] transposed
    plus, plus_shape = (f" + {b[0]}", f" + {sb[0]}") if b else ("", "")
    return f"{f.lhs} = {x}·{w}{plus}{GAP}{sx}·{sw}{plus_shape} → {f.out}"


def projection(f: Formula) -> str:
    """q/k/v for one head: X·W[:, head's columns] + b[head's columns]; K and V of grouped-query attention have
    n_kv_heads heads, and query head h reads K/V head kv_head_of(h)."""
    x, w, *b = f.letters
    W = f.stage.inputs[1]
    d_k = f.cfg.d_k
    heads = f.trace[f.name].shape[0]
    head = f.head if heads == f.cfg.n_heads else f.cfg.kv_head_of(f.head)
    cols = tr("columns {0}–{1} of {2}").format(head * d_k, (head + 1) * d_k - 1, w)
    plus, plus_shape = (f" + {b[0]}", f" + {dims(d_k)}") if b else ("", "")
    return (
        f"{f.lhs} = {x}·{w}{plus}{GAP}{f.shapes[0]}·{dims(f.trace[W].shape[0], d_k)}{plus_shape} → {f.out}"
        f"{GAP}(" + tr("head {0} of {1}").format(head, heads) + f": {cols})"
    )


def head_norm(f: Formula) -> str:
    """QK-norm: RMSNorm over each head's row of q or k."""
    x, gamma = f.letters
    return (
        f"{f.lhs} = {gamma} ⊙ {x} / √(mean({x}²) + ε){GAP}{f.shapes[0]} → {f.out}"
        f"{GAP}(" + tr("head {0} of {1}").format(f.head, f.trace[f.name].shape[0]) + ")"
    )


def shared_heads(f: Formula) -> str:
    """Grouped-query attention: query head h reads K/V head h // (n_heads / n_kv_heads)."""
    cfg = f.cfg
    group = cfg.n_heads // cfg.kv_heads
    kv = cfg.kv_head_of(f.head)
    first, last = kv * group, (kv + 1) * group - 1
    return (
        f"{f.lhs}{subscript(f.head)} = {f.letters[0]}{subscript(kv)}{GAP}{f.shapes[0]} → {f.out}{GAP}("
        + tr("query heads {0}–{1} share K/V head {2}").format(first, last, kv)
        + ")"
    )


def rotation(f: Formula) -> str:
    cfg = f.cfg
    if "no_pe" in cfg.switches:
        return f"{f.lhs} = {f.letters[0]}{GAP}{f.shapes[0]} → {f.out}" + switched_off("RoPE")
    if cfg.rope_pairs == "interleaved" and cfg.rope_theta == 10000 and cfg.rotary_dim is None:
        rule = tr("pair (2i, 2i+1) of row p turned by p / 10000^(2i/d_k)")
    else:
        pair = "(2i, 2i+1)" if cfg.rope_pairs == "interleaved" else "(i, i + r/2)"
        rule = tr("pair {0} of row p turned by p / {1}^(2i/r), r = {2}").format(
            pair, f"{cfg.rope_theta:g}", cfg.rotated
        )
    return f"{f.lhs} = RoPE({f.letters[0]}): {rule}{GAP}{f.shapes[0]} → {f.out}{f.head_note}"


def scores(f: Formula) -> str:
    n_k, d_k = f.trace[f.stage.inputs[1]].shape[1:]
    q, k = f.letters
    return f"{f.lhs} = {q}·{k}ᵀ{GAP}{f.shapes[0]}·{dims(d_k, n_k)} → {f.out}{f.head_note}"


def scaled(f: Formula) -> str:
    d_k = f.cfg.d_k
    if "no_scale" in f.cfg.switches:
        return f"scaled = scores{GAP}{f.out} → {f.out}" + switched_off("÷ √d_k")
    return f"scaled = scores / √d_k = scores / √{d_k} = scores / {d_k**0.5:.3g}{GAP}{f.out} → {f.out}" + f.head_note


def masked(f: Formula) -> str:
    place = f.stage.place
    causal = place.part == "self_attn" and place.stack == "dec"
    if causal and "no_mask" in f.cfg.switches:
        return f"masked = scaled{GAP}{f.out} → {f.out}" + switched_off(tr("the causal mask"))
    rule = tr("scaled, with −∞ above the diagonal (future tokens)") if causal else tr("scaled (nothing is hidden here)")
    if causal and f.cfg.sliding_window is not None:
        rule += "; " + tr("−∞ also {0} or more keys back (sliding window)").format(f.cfg.sliding_window)
    return f"masked = {rule}{GAP}{f.out} → {f.out}{f.head_note}"


def concat(f: Formula) -> str:
    h = f.cfg.n_heads
    parts = " | ".join(f"Z{subscript(i)}" for i in range(h)) if h <= 4 else f"Z₀ | … | Z{subscript(h - 1)}"
    return f"{f.lhs} = [{parts}]{GAP}{h} × {f.shapes[0]} → {f.out}"


# ---- Add & Norm, FFN ----------------------------------------------------------------------------------------


def sublayer_call(trace, name: str) -> str:
    """What the sublayer whose output is stage `name` computes, named by its part of the diagram: "Attention(x)",
    "FFN(LN(x))" (pre-norm)."""
    word = SUBLAYER_WORDS[trace.stage(name).place.part]
    return f"{word}(LN(x))" if trace.config.norm == "pre" else f"{word}(x)"


def residual_sum(trace, name: str) -> str:
    """What the residual sum at stage `name` is called, as the lessons write it: "x + Attention(x)" (its sublayer
    named by its part of the diagram); the sublayer's output alone where the residual is switched off."""
    inputs = trace.stage(name).inputs
    call = sublayer_call(trace, inputs[-1])
    return call if len(inputs) == 1 else f"x + {call}"


def residual(f: Formula) -> str:
    """x + Attention(x) with its shapes: the sum is its own name (never a stage id like add1)."""
    if len(f.shapes) == 1:
        return f"{f.lhs}{GAP}{f.shapes[0]} → {f.out}" + switched_off(tr("the residual connection"))
    return f"{f.lhs}{GAP}{f.shapes[0]} + {f.shapes[1]} → {f.out}"


def affine(f: Formula) -> str:
    norm = "RMSNorm" if f.cfg.norm_type == "rmsnorm" else "LayerNorm"
    if len(f.shapes) == 1:
        return f"{f.lhs} = x{GAP}{f.shapes[0]} → {f.out}" + switched_off(norm)
    if len(f.shapes) == 2:  # RMSNorm: a gain, no shift
        return f"{f.lhs} = γ ⊙ {f.letters[0]}{GAP}{f.shapes[0]} ⊙ {f.shapes[1]} → {f.out}"
    return f"{f.lhs} = γ ⊙ {f.letters[0]} + β{GAP}{f.shapes[0]} ⊙ {f.shapes[1]} + {f.shapes[2]} → {f.out}"


def activation(f: Formula) -> str:
    return f"{f.lhs} = {ACTIVATIONS[f.cfg.activation]}{GAP}{f.out} → {f.out}"


# ---- tiled attention (engine/tiled.py): one tile's step, with its blocks and the shown head's numbers --------


def _numbers(values, decimals: int, digits: int = 0) -> str:
    """ "[0.74, 1.00]": a short column of the shown head (one number per query row of the tile), as its table
    writes them; with `digits`, a number below 1 keeps that many significant digits (e^(0.288 − 5.159) is 0.0077,
    not 0.01)."""
    shown = [format_number(float(v), _places(float(v), decimals, digits)) for v in values.flatten()[:6]]
    return "[" + ", ".join(shown) + (", …]" if values.numel() > 6 else "]")


def _places(value: float, decimals: int, digits: int) -> int:
    """`decimals`, or more where a small value would lose its first `digits` significant digits to them."""
    if not digits or value == 0 or abs(value) >= 1:
        return decimals
    return max(decimals, digits - 1 - math.floor(math.log10(abs(value))))


def _tile_note(f: Formula, with_head: bool = True) -> str:
    tile = f.stage.tile
    where = tr("queries {0}–{1}, keys {2}–{3}").format(tile.rows[0], tile.rows[1] - 1, tile.cols[0], tile.cols[1] - 1)
    if not with_head:
        return f"{GAP}({where})"
    return f"{GAP}({where}; " + tr("head {0} of {1}").format(f.head, f.cfg.n_heads) + ")"


def tile_scores(f: Formula) -> str:
    (r0, r1), (c0, c1) = f.stage.tile.rows, f.stage.tile.cols
    q, k = f.letters
    d_k = f.cfg.d_k
    scale = "" if "no_scale" in f.cfg.switches else f" / √{d_k}"
    return (
        f"{f.lhs} = {q}[{r0}:{r1}]·{k}[{c0}:{c1}]ᵀ{scale}{GAP}{dims(r1 - r0, d_k)}·{dims(d_k, c1 - c0)} → {f.out}"
        + _tile_note(f)
    )


def tile_skipped(f: Formula) -> str:
    return (
        tr("skipped: every key is after every query, so nothing is computed")
        + f"{GAP}{f.out}"
        + _tile_note(f, with_head=False)
    )


def _tile_step(f: Formula, rule: str, values: bool = True) -> str:
    """One running step after one more tile: its rule, its values, and e^(m_old − m) where it rescales."""
    values_line = f"{GAP}{f.lhs} = {_numbers(f.trace[f.name][f.head], f.decimals)}" if values else ""
    factor = tiled.rescale_factor(f.trace, f.name)  # e^(m_old − m): how much the earlier tiles' work shrinks
    rescale = "" if factor is None else f"{GAP}e^(m_old − m) = {_numbers(factor[f.head], f.decimals, FACTOR_DIGITS)}"
    return f"{rule}{GAP}→ {f.out}{values_line}{rescale}" + _tile_note(f)


def _first_tile(f: Formula) -> bool:
    """Whether the stage is the first tile of its row block: it starts m, ℓ and o; later ones update them."""
    return f.stage.tile.col_block == 0


def tile_max(f: Formula) -> str:
    return _tile_step(f, "m = rowmax(S)" if _first_tile(f) else "m = max(m_old, rowmax(S))")


def tile_sum(f: Formula) -> str:
    return _tile_step(f, "ℓ = Σ e^(S − m)" if _first_tile(f) else "ℓ = ℓ_old·e^(m_old − m) + Σ e^(S − m)")


def tile_out(f: Formula) -> str:
    c0, c1 = f.stage.tile.cols
    first = f"o = e^(S − m)·V[{c0}:{c1}]"
    return _tile_step(f, first if _first_tile(f) else f"o = o_old·e^(m_old − m) + e^(S − m)·V[{c0}:{c1}]", False)


def tile_output(f: Formula) -> str:
    diff = tiled.difference(f.trace, f.name)
    return (
        f"{f.lhs} = o / ℓ"
        + GAP
        + tr("for each block of query rows")
        + f" → {f.out}{GAP}max |Z − A·V| = {diff:.1e}"
        + f.head_note
    )
