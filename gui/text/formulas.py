"""The formula of a stage written with its actual shapes, e.g. `scores = Q·Kᵀ   [3×2]·[2×3] → [3×3]`,
and the letters it uses for each input (the captions of the matrices use the same letters).

Per-head stages are written for one head (the head the window shows).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from engine import tiled
from gui.state.shown_trace import GRAD_PREFIX, LABELS, forward_of, is_backward
from gui.text.stage_texts import stage_op

GAP = "   "
PROJECTIONS = ("attn.q", "attn.k", "attn.v")

# Letters for what a stage produces (its output, or its role as another stage's input).
PRODUCED = {
    "tokens": "ids", "embed": "E", "pos": "PE", "type": "T", "x0": "X", "attn.q": "Q", "attn.k": "K",
    "attn.v": "V", "attn.q_rot": "Q_rot", "attn.k_rot": "K_rot", "attn.scores": "scores", "attn.scaled": "scaled",
    "attn.masked": "masked", "attn.weights": "A", "attn.z": "Z", "attn.concat": "Concat", "attn.out": "O",
    "add": "x", "norm.mean": "μ", "norm.var": "σ²", "norm.hat": "x_norm", "norm.out": "y",
    "ffn.up": "H", "ffn.gate": "G", "ffn.act": "A", "ffn.down": "F", "logits": "logits", "probs": "p",
    "attn.tiled.scores": "S", "attn.tiled.m": "m", "attn.tiled.l": "ℓ", "attn.tiled.o": "o",
    "attn.tiled.skipped": "mask", "attn.tiled.z": "Z", "loss.per_position": "ℓ", "loss": "L",
}
PARAMS = {"gamma": "γ", "beta": "β"}


def tr(text: str) -> str:
    return QCoreApplication.translate("Formula", text)


def dims(*sizes: int) -> str:
    return "[" + "×".join(str(int(s)) for s in sizes) + "]"


def shape_of(trace, name: str) -> str:
    """"[3×4]"; a per-head tensor [h, n, d_k] is written for one head as [n×d_k]."""
    shape = tuple(trace[name].shape)
    return dims(*(shape[1:] if len(shape) == 3 else shape))


def letter(trace, name: str) -> str:
    """What a stage, a parameter or a gradient is called in the formulas: "A", "W_Q", "∂L/∂A"."""
    if is_backward(name):
        return "∂L/∂" + letter(trace, forward_of(name))
    if name in trace.params:
        leaf = name.rsplit(".", 1)[1]
        return PARAMS.get(leaf, leaf)
    if name == LABELS:
        return "y"
    op = stage_op(trace, name)
    return name.rsplit(".", 1)[1] if op == "add" else PRODUCED.get(op, "x")


def symbols(trace, name: str) -> tuple[dict[str, str], str]:
    """The letters the formula uses: {input name: letter} and the output's letter."""
    if is_backward(name):
        return {i: letter(trace, i) for i in trace.stage(name).inputs}, letter(trace, name)
    if name in ("loss.per_position", "loss"):
        return {i: letter(trace, i) for i in trace.stage(name).inputs}, letter(trace, name)
    op = stage_op(trace, name)
    stage = trace.stage(name)
    inputs = list(stage.inputs) if stage is not None else []
    out: dict[str, str] = {}
    for inp in inputs:
        if inp in trace.params:
            leaf = inp.rsplit(".", 1)[1]
            out[inp] = PARAMS.get(leaf, leaf)
        else:
            out[inp] = PRODUCED.get(stage_op(trace, inp), "x")
    if inputs and op in (*PROJECTIONS, "ffn.up", "ffn.gate", "logits"):
        out[inputs[0]] = "X"
        if ".cross_attn." in name:  # q reads the decoder, k and v the encoder's output
            out[inputs[0]] = "X_enc" if op in ("attn.k", "attn.v") else "X_dec"
    if op == "add":
        out[inputs[-1]] = "Sublayer(x)"
        if len(inputs) == 2:
            out[inputs[0]] = "x"
    if op.startswith("norm.") and inputs[0].rsplit(".", 1)[0] != name.rsplit(".", 1)[0]:
        out[inputs[0]] = "x"  # the stream being normalised (not a step of this same LayerNorm)
    return out, name.rsplit(".", 1)[1] if op == "add" else PRODUCED[op]


def _head_note(trace, head: int) -> str:
    return f"{GAP}(" + tr("head {0} of {1}").format(head, trace.config.n_heads) + ")"


def _switched_off(text: str) -> str:
    return f"{GAP}(" + tr("switched off: {0}").format(text) + ")"


def _linear(trace, name: str, letters: dict[str, str], lhs: str) -> str:
    x, W, b = trace.stage(name).inputs
    return (f"{lhs} = {letters[x]}·{letters[W]} + {letters[b]}{GAP}{shape_of(trace, x)}·{shape_of(trace, W)}"
            f" + {shape_of(trace, b)} → {shape_of(trace, name)}")


def _projection(trace, name: str, letters: dict[str, str], lhs: str, head: int) -> str:
    """q/k/v for one head: X·W[:, head's columns] + b[head's columns]."""
    x, W, b = trace.stage(name).inputs
    d_k = trace.config.d_k
    cols = tr("columns {0}–{1} of {2}").format(head * d_k, (head + 1) * d_k - 1, letters[W])
    return (f"{lhs} = {letters[x]}·{letters[W]} + {letters[b]}{GAP}{shape_of(trace, x)}·"
            f"{dims(trace[W].shape[0], d_k)} + {dims(d_k)} → {shape_of(trace, name)}{GAP}("
            + tr("head {0} of {1}").format(head, trace.config.n_heads) + f": {cols})")


def _sublayer_word(input_name: str) -> str:
    if input_name.endswith("ffn.down"):
        return "FFN"
    return "CrossAttention" if ".cross_attn." in input_name else "Attention"


def formula(trace, name: str, head: int = 0) -> str:
    """One line: the operation, then the shapes it maps, then a short note where it helps."""
    return _operation(trace, name, head) + _cross_note(trace, name)


def _cross_note(trace, name: str) -> str:
    """Cross-attention says where its q, k and v come from and what its rows and columns are."""
    if ".cross_attn." not in name or is_backward(name):
        return ""
    op = stage_op(trace, name)
    if op == "attn.q":
        note = tr("q from the decoder: one row per target token")
    elif op in ("attn.k", "attn.v"):
        note = tr("k, v from the encoder's output: one row per source token")
    elif op in ("attn.scores", "attn.scaled", "attn.masked", "attn.weights"):
        note = tr("rows: target tokens (q from the decoder) · columns: source tokens (k from the encoder)")
    else:
        note = tr("one row per target token; v came from the encoder")
    return f"{GAP}[{note}]"


def _backward_rules() -> dict[str, str]:
    """The local rule of each backward step (engine.backward.RULES); g = ∂L/∂(the stage's output)."""
    return {
        "mean": "L = (1/m)·Σᵢ ℓᵢ  ⇒  ∂L/∂ℓᵢ = 1/m",
        "cross_entropy": "ℓᵢ = −log p[i, yᵢ]  ⇒  ∂ℓᵢ/∂p[i, yᵢ] = −1/p[i, yᵢ]   (" + tr("0 for the other tokens") + ")",
        "softmax_jacobian": "∂L/∂x = p ⊙ (g − Σⱼ pⱼ·gⱼ)   (J = diag(p) − p·pᵀ)",
        "linear": "Y = X·W + b  ⇒  ∂L/∂X = G·Wᵀ,  ∂L/∂W = Xᵀ·G,  ∂L/∂b = Σᵢ Gᵢ",
        "residual": "∂(x + f(x))/∂x = I + ∂f/∂x  ⇒  ∂L/∂x = g + (∂f/∂x)ᵀ·g",
        "layernorm": "x_norm = (x − μ)/√(σ² + ε)  ⇒  ∂L/∂x = g/√(σ² + ε),  ∂L/∂σ² = −½·Σ g⊙(x − μ)·(σ² + ε)^(−3/2)",
        "layernorm_mean": "μ = (1/d)·Σ x  ⇒  ∂L/∂x += (1/d)·∂L/∂μ",
        "layernorm_var": "σ² = (1/d)·Σ (x − μ)²  ⇒  ∂L/∂x += (2/d)·(x − μ)·∂L/∂σ²",
        "affine": "y = γ ⊙ x_norm + β  ⇒  ∂L/∂x_norm = γ ⊙ g,  ∂L/∂γ = Σᵢ gᵢ ⊙ x_normᵢ,  ∂L/∂β = Σᵢ gᵢ",
        "scale": "scaled = scores/√d_k  ⇒  ∂L/∂scores = g/√d_k",
        "mask": "∂L/∂scaled = g   (" + tr("0 where the mask hides a key (−∞)") + ")",
        "activation": "A = f(H)  ⇒  ∂L/∂H = g ⊙ f′(H)",
        "rotation": "Q_rot = R·Q  ⇒  ∂L/∂Q = Rᵀ·g",
        "reshape": "Concat = [Z₀ | Z₁ | …]  ⇒  ∂L/∂Z_h = g[:, h·d_k : (h+1)·d_k]",
        "sum": "X = E + PE  ⇒  ∂L/∂E = ∂L/∂PE = g",
        "positional": "PE = W_pos[0 : n]  ⇒  ∂L/∂W_pos[p] = g[p]   (" + tr("sinusoidal: nothing to learn") + ")",
        "embedding_rows": "E = W_E[ids]  ⇒  ∂L/∂W_E[t] = Σ_{i: idsᵢ = t} gᵢ",
        "identity": "y = x  ⇒  ∂L/∂x = g   (" + tr("switched off") + ")",
        "tiled": "∂L/∂S = ∂L/∂o = 0   (" + tr("the model reads Z = A·V; the tiles are stepped beside it") + ")",
        "matmul.attn.scores": "scores = Q·Kᵀ  ⇒  ∂L/∂Q = G·K,  ∂L/∂K = Gᵀ·Q",
        "matmul.attn.z": "Z = A·V  ⇒  ∂L/∂A = G·Vᵀ,  ∂L/∂V = Aᵀ·G",
    }


def _backward(trace, name: str, head: int) -> str:
    """∂L/∂(the stage) with its shape, then the local rule that passes it on to the stage's inputs."""
    rule = stage_op(trace, name).removeprefix(GRAD_PREFIX)
    of = forward_of(name)
    text = _backward_rules()[f"matmul.{stage_op(trace, of)}" if rule == "matmul" else rule]
    note = _head_note(trace, head) if trace[name].dim() == 3 else ""
    return f"{letter(trace, name)} {shape_of(trace, name)}{GAP}{text}{note}"


def _operation(trace, name: str, head: int) -> str:
    op = stage_op(trace, name)
    if op.startswith(GRAD_PREFIX):
        return _backward(trace, name, head)
    if op == "loss.per_position":
        m, vocab = trace["probs"].shape
        return f"ℓᵢ = −log p[i, yᵢ]{GAP}{dims(m, vocab)} → {dims(m)}{GAP}(" + tr("yᵢ: the next token") + ")"
    if op == "loss":
        return f"L = (1/m)·Σᵢ ℓᵢ{GAP}{dims(trace['probs'].shape[0])} → " + tr("one number")
    cfg = trace.config
    stage = trace.stage(name)
    inputs = list(stage.inputs) if stage is not None else []
    letters, lhs = symbols(trace, name)
    out = shape_of(trace, name)
    ins = [shape_of(trace, i) for i in inputs]
    if op == "tokens":
        return f"ids = vocab[tokens]{GAP}" + tr("{0} tokens").format(trace[name].shape[0]) + f" → {out}"
    if op in ("embed", "type"):
        table = inputs[0]
        row = "ids" if op == "embed" else "0"
        return f"{lhs} = {letters[table]}[{row}]{GAP}" + tr("rows of {0} {1}").format(
            letters[table], shape_of(trace, table)) + f" → {out}"
    if op == "pos":
        if cfg.positional == "rope" or "no_pe" in cfg.switches:
            why = tr("positions are switched off") if "no_pe" in cfg.switches else tr("RoPE turns Q and K instead")
            return f"PE = 0{GAP}→ {out}{GAP}({why})"
        if cfg.positional == "sinusoidal":
            return f"PE[p, 2i] = sin(p / 10000^(2i/d)),  PE[p, 2i+1] = cos(p / 10000^(2i/d)){GAP}→ {out}"
        if cfg.positional == "learned":
            return f"PE = W_pos[0 : n]{GAP}{shape_of(trace, inputs[1])} → {out}"
        return f"PE = 0{GAP}→ {out}{GAP}(" + tr("no positional encoding") + ")"
    if op == "x0":
        return f"X = {' + '.join(letters[i] for i in inputs)}{GAP}{' + '.join(ins)} → {out}"
    if op in PROJECTIONS:
        return _projection(trace, name, letters, lhs, head)
    if op in ("attn.q_rot", "attn.k_rot"):
        src = letters[inputs[0]]
        if "no_pe" in cfg.switches:
            return f"{lhs} = {src}{GAP}{ins[0]} → {out}" + _switched_off("RoPE")
        return (f"{lhs} = RoPE({src}): " + tr("pair (2i, 2i+1) of row p turned by p / 10000^(2i/d_k)")
                + f"{GAP}{ins[0]} → {out}{_head_note(trace, head)}")
    if op == "attn.scores":
        q, k = inputs
        n_k, d_k = trace[k].shape[1:]
        return f"scores = {letters[q]}·{letters[k]}ᵀ{GAP}{ins[0]}·{dims(d_k, n_k)} → {out}{_head_note(trace, head)}"
    if op == "attn.scaled":
        if "no_scale" in cfg.switches:
            return f"scaled = scores{GAP}{out} → {out}" + _switched_off("÷ √d_k")
        return (f"scaled = scores / √d_k = scores / √{cfg.d_k} = scores / {cfg.d_k ** 0.5:.3g}{GAP}{out} → {out}"
                + _head_note(trace, head))
    if op == "attn.masked":
        causal = ".self_attn." in name and name.startswith("dec.")
        if causal and "no_mask" in cfg.switches:
            return f"masked = scaled{GAP}{out} → {out}" + _switched_off(tr("the causal mask"))
        rule = tr("scaled, with −∞ above the diagonal (future tokens)") if causal else tr(
            "scaled (nothing is hidden here)")
        return f"masked = {rule}{GAP}{out} → {out}{_head_note(trace, head)}"
    if op == "attn.weights":
        return (f"A = softmax(masked){GAP}{out} → {out}{GAP}(" + tr("each row sums to 1") + "; "
                + tr("head {0} of {1}").format(head, cfg.n_heads) + ")")
    if op == "attn.z":
        return f"Z = A·V{GAP}{ins[0]}·{ins[1]} → {out}{_head_note(trace, head)}"
    if op == "attn.concat":
        h = cfg.n_heads
        parts = " | ".join(f"Z{_sub(i)}" for i in range(h)) if h <= 4 else f"Z₀ | … | Z{_sub(h - 1)}"
        return f"Concat = [{parts}]{GAP}{h} × {ins[0]} → {out}"
    if op in ("attn.out", "ffn.up", "ffn.gate", "ffn.down", "logits"):
        return _linear(trace, name, letters, lhs)
    if op == "add":
        k = name.rsplit(".", 1)[1]
        word = _sublayer_word(inputs[-1])
        if len(inputs) == 1:
            return f"{k} = {word}(x){GAP}{ins[0]} → {out}" + _switched_off(tr("the residual connection"))
        arg = "LN(x)" if cfg.norm == "pre" else "x"
        return f"{k} = x + {word}({arg}){GAP}{ins[0]} + {ins[1]} → {out}"
    if op == "norm.mean":
        return f"μ = (1/d)·Σ x{GAP}{ins[0]} → {out}{GAP}(" + tr("one mean per row") + ")"
    if op == "norm.var":
        return f"σ² = (1/d)·Σ (x − μ)²{GAP}{ins[0]} → {out}"
    if op == "norm.hat":
        return f"x_norm = (x − μ) / √(σ² + ε),  ε = {cfg.ln_eps:g}{GAP}{ins[0]} → {out}"
    if op == "norm.out":
        if len(inputs) == 1:
            return f"y = x{GAP}{ins[0]} → {out}" + _switched_off("LayerNorm")
        return f"y = γ ⊙ x_norm + β{GAP}{ins[0]} ⊙ {ins[1]} + {ins[2]} → {out}"
    if op == "ffn.act":
        rule = {
            "relu": "ReLU(H) = max(0, H)",
            "gelu": "GELU(H) = H·Φ(H)",
            "gelu_tanh": "GELU(H) ≈ 0.5·H·(1 + tanh(√(2/π)·(H + 0.044715·H³)))",
            "swiglu": "SiLU(G) ⊙ H = G·sigmoid(G) ⊙ H",
        }[cfg.activation]
        return f"A = {rule}{GAP}{out} → {out}"
    if op == "probs":
        return f"p = softmax(logits){GAP}{out} → {out}{GAP}(" + tr("each row sums to 1") + ")"
    if op.startswith("attn.tiled."):
        return _tiled(trace, name, op, head)
    raise KeyError(f"no formula for operation {op!r}")


def _sub(i: int) -> str:
    return str(i).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


# ---- tiled attention (engine/tiled.py): one tile's step, with its blocks and the shown head's numbers --------

def _numbers(values) -> str:
    """"[0.74, 1]": a short column of the shown head (one number per query row of the tile)."""
    return "[" + ", ".join(f"{float(v):.3g}".replace("-", "−") for v in values.flatten()[:6]) + \
        (", …]" if values.numel() > 6 else "]")


def _tile_note(trace, name: str, head: int | None) -> str:
    tile = trace.stage(name).tile
    where = tr("queries {0}–{1}, keys {2}–{3}").format(tile.rows[0], tile.rows[1] - 1, tile.cols[0], tile.cols[1] - 1)
    if head is None:
        return f"{GAP}({where})"
    return f"{GAP}({where}; " + tr("head {0} of {1}").format(head, trace.config.n_heads) + ")"


def _rescale(trace, name: str, head: int) -> str:
    """e^(m_old − m) of the shown head: how much the earlier tiles' work shrinks (1: the maximum did not grow)."""
    factor = tiled.rescale_factor(trace, name)
    return "" if factor is None else f"{GAP}e^(m_old − m) = {_numbers(factor[head])}"


def _tiled(trace, name: str, op: str, head: int) -> str:
    st = trace.stage(name)
    out = shape_of(trace, name)
    if op == "attn.tiled.z":
        diff = tiled.difference(trace, name)
        return ("Z = o / ℓ" + GAP + tr("for each block of query rows") + f" → {out}{GAP}max |Z − A·V| = {diff:.1e}"
                + _head_note(trace, head))
    tile = st.tile
    (r0, r1), (c0, c1) = tile.rows, tile.cols
    if op == "attn.tiled.skipped":
        return (tr("skipped: every key is after every query, so nothing is computed") + f"{GAP}{out}"
                + _tile_note(trace, name, None))
    if op == "attn.tiled.scores":
        q, k = st.inputs
        letters, _ = symbols(trace, name)
        scale = "" if "no_scale" in trace.config.switches else f" / √{trace.config.d_k}"
        d_k = trace.config.d_k
        return (f"S = {letters[q]}[{r0}:{r1}]·{letters[k]}[{c0}:{c1}]ᵀ{scale}{GAP}{dims(r1 - r0, d_k)}·"
                f"{dims(d_k, c1 - c0)} → {out}" + _tile_note(trace, name, head))
    values = f"{GAP}{PRODUCED[op]} = {_numbers(trace[name][head])}" if op != "attn.tiled.o" else ""
    first = tile.col_block == 0  # the first tile of a row block starts m, ℓ and o; later ones update them
    rule = {
        "attn.tiled.m": "m = rowmax(S)" if first else "m = max(m_old, rowmax(S))",
        "attn.tiled.l": "ℓ = Σ e^(S − m)" if first else "ℓ = ℓ_old·e^(m_old − m) + Σ e^(S − m)",
        "attn.tiled.o": f"o = e^(S − m)·V[{c0}:{c1}]" if first else f"o = o_old·e^(m_old − m) + e^(S − m)·V[{c0}:{c1}]",
    }[op]
    return f"{rule}{GAP}→ {out}{values}{_rescale(trace, name, head)}" + _tile_note(trace, name, head)
