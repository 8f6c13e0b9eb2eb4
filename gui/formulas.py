"""The formula of a stage written with its actual shapes, e.g. `scores = Q·Kᵀ   [3×2]·[2×3] → [3×3]`.

Per-head stages are written for one head (the head the window shows).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from .stage_texts import stage_op

GAP = "   "


def tr(text: str) -> str:
    return QCoreApplication.translate("Formula", text)


def dims(*sizes: int) -> str:
    return "[" + "×".join(str(int(s)) for s in sizes) + "]"


def shape_of(trace, name: str, per_head: bool = True) -> str:
    """"[3×4]"; a per-head tensor [h, n, d_k] is written for one head as [n×d_k]."""
    shape = tuple(trace[name].shape)
    return dims(*(shape[1:] if per_head and len(shape) == 3 else shape))


def _head_note(trace, head: int) -> str:
    return tr("head {0} of {1}").format(head, trace.config.n_heads)


def _projection(trace, name: str, head: int) -> str:
    """q/k/v: X·W[:, head columns] + b[head columns]."""
    stage = trace.stage(name)
    x, W, _ = stage.inputs
    letter = stage.op[-1].upper()
    d_k = trace.config.d_k
    source = "X_enc" if ".cross_attn." in name and letter in "KV" else "X"  # cross-attention reads the encoder
    cols = tr("columns {0}–{1} of W_{2}").format(head * d_k, (head + 1) * d_k - 1, letter)
    return (f"{letter} = {source}·W_{letter} + b_{letter}{GAP}{shape_of(trace, x)}·{dims(trace[W].shape[0], d_k)}"
            f" + {dims(d_k)} → {shape_of(trace, name)}{GAP}({_head_note(trace, head)}: {cols})")


def _linear(trace, name: str, lhs: str, x_sym: str, w_sym: str, b_sym: str) -> str:
    x, W, b = trace.stage(name).inputs
    return (f"{lhs} = {x_sym}·{w_sym} + {b_sym}{GAP}{shape_of(trace, x)}·{shape_of(trace, W)} + {shape_of(trace, b)}"
            f" → {shape_of(trace, name)}")


def _sublayer_word(input_name: str) -> str:
    if input_name.endswith("ffn.down"):
        return tr("FFN")
    if ".cross_attn." in input_name:
        return tr("CrossAttention")
    return tr("Attention")


def formula(trace, name: str, head: int = 0) -> str:
    """One line: the operation, then the shapes it maps, then a short note where it helps."""
    op = stage_op(trace, name)
    out = shape_of(trace, name)
    stage = trace.stage(name)
    inputs = stage.inputs if stage is not None else ()
    cfg = trace.config
    if op == "tokens":
        n = trace[name].shape[0]
        return f"ids = vocab[tokens]{GAP}" + tr("{0} tokens").format(n) + f" → {out}"
    if op == "embed":
        W_E = inputs[0]
        return f"E = W_E[ids]{GAP}" + tr("rows of W_E {0}").format(shape_of(trace, W_E)) + f" → {out}"
    if op == "pos":
        if cfg.positional == "sinusoidal":
            return f"PE[p, 2i] = sin(p / 10000^(2i/d)),  PE[p, 2i+1] = cos(p / 10000^(2i/d)){GAP}→ {out}"
        if cfg.positional == "learned":
            return f"P = W_pos[0 : n]{GAP}{shape_of(trace, inputs[1])} → {out}"
        return f"P = 0{GAP}→ {out}" + GAP + tr("(no positional encoding)")
    if op == "x0":
        return f"X = E + PE{GAP}{out} + {out} → {out}"
    if op in ("attn.q", "attn.k", "attn.v"):
        return _projection(trace, name, head)
    note = f"{GAP}({_head_note(trace, head)})"
    if op == "attn.scores":
        q, k = inputs
        n_k, d_k = trace[k].shape[1:]
        return f"scores = Q·Kᵀ{GAP}{shape_of(trace, q)}·{dims(d_k, n_k)} → {out}{note}"
    if op == "attn.scaled":
        return f"scaled = scores / √d_k = scores / √{cfg.d_k} = scores / {cfg.d_k ** 0.5:.3g}{GAP}{out} → {out}{note}"
    if op == "attn.masked":
        if ".self_attn." in name and name.startswith("dec."):
            rule = tr("scaled, with −∞ above the diagonal (future tokens)")
        else:
            rule = tr("scaled (nothing is hidden here)")
        return f"masked = {rule}{GAP}{out} → {out}{note}"
    if op == "attn.weights":
        rows = tr("each row sums to 1")
        return f"A = softmax(masked){GAP}{out} → {out}{GAP}({rows}; {_head_note(trace, head)})"
    if op == "attn.z":
        weights, v = inputs
        return f"Z = A·V{GAP}{shape_of(trace, weights)}·{shape_of(trace, v)} → {out}{note}"
    if op == "attn.concat":
        h = cfg.n_heads
        parts = " | ".join(f"Z{_sub(i)}" for i in range(h)) if h <= 4 else f"Z₀ | … | Z{_sub(h - 1)}"
        return f"Concat = [{parts}]{GAP}{h} × {shape_of(trace, inputs[0])} → {out}"
    if op == "attn.out":
        return _linear(trace, name, "O", "Concat", "W_O", "b_O")
    if op == "add":
        x, sub = inputs
        arg = "LN(x)" if cfg.norm == "pre" else "x"
        lhs = name.rsplit(".", 1)[1]
        return f"{lhs} = x + {_sublayer_word(sub)}({arg}){GAP}{shape_of(trace, x)} + {shape_of(trace, sub)} → {out}"
    if op == "norm.mean":
        return f"μ = (1/d)·Σ x{GAP}{shape_of(trace, inputs[0])} → {out}{GAP}(" + tr("one mean per row") + ")"
    if op == "norm.var":
        return f"σ² = (1/d)·Σ (x − μ)²{GAP}{shape_of(trace, inputs[0])} → {out}"
    if op == "norm.hat":
        return f"x̂ = (x − μ) / √(σ² + ε),  ε = {cfg.ln_eps:g}{GAP}{shape_of(trace, inputs[0])} → {out}"
    if op == "norm.out":
        hat, gamma, beta = inputs
        return f"y = γ ⊙ x̂ + β{GAP}{shape_of(trace, hat)} ⊙ {shape_of(trace, gamma)} + {shape_of(trace, beta)} → {out}"
    if op == "ffn.up":
        return _linear(trace, name, "H", "X", "W1", "b1")
    if op == "ffn.act":
        rule = "ReLU(H) = max(0, H)" if cfg.activation == "relu" else "GELU(H) = H·Φ(H)"
        return f"A = {rule}{GAP}{out} → {out}"
    if op == "ffn.down":
        return _linear(trace, name, "F", "A", "W2", "b2")
    if op == "logits":
        return _linear(trace, name, "logits", "X", "W_U", "b_U")
    if op == "probs":
        return f"p = softmax(logits){GAP}{out} → {out}{GAP}(" + tr("each row sums to 1") + ")"
    raise KeyError(f"no formula for operation {op!r}")


def _sub(i: int) -> str:
    return str(i).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


_INPUT_SYMBOLS = {
    "embed": ("W_E", "ids"),
    "pos": ("ids", "W_pos"),
    "x0": ("E", "PE"),
    "attn.scores": ("Q", "K"),
    "attn.scaled": ("scores",),
    "attn.masked": ("scaled",),
    "attn.weights": ("masked",),
    "attn.z": ("A", "V"),
    "attn.concat": ("Z",),
    "attn.out": ("Concat", "W_O", "b_O"),
    "add": ("x", "Sublayer(x)"),
    "norm.mean": ("x",),
    "norm.var": ("x", "μ"),
    "norm.hat": ("x", "μ", "σ²"),
    "norm.out": ("x̂", "γ", "β"),
    "ffn.up": ("X", "W1", "b1"),
    "ffn.act": ("H",),
    "ffn.down": ("A", "W2", "b2"),
    "logits": ("X", "W_U", "b_U"),
    "probs": ("logits",),
}

_OUTPUT_SYMBOLS = {
    "tokens": "ids", "embed": "E", "pos": "PE", "x0": "X", "attn.q": "Q", "attn.k": "K", "attn.v": "V",
    "attn.scores": "scores", "attn.scaled": "scaled", "attn.masked": "masked", "attn.weights": "A",
    "attn.z": "Z", "attn.concat": "Concat", "attn.out": "O", "add": "x + Sublayer(x)", "norm.mean": "μ",
    "norm.var": "σ²", "norm.hat": "x̂", "norm.out": "y", "ffn.up": "H", "ffn.act": "A", "ffn.down": "F",
    "logits": "logits", "probs": "p",
}


def symbols(trace, name: str) -> tuple[dict[str, str], str]:
    """The letters the formula uses: {input name: symbol} and the output's symbol."""
    op = stage_op(trace, name)
    stage = trace.stage(name)
    inputs = stage.inputs if stage is not None else ()
    if op in ("attn.q", "attn.k", "attn.v"):
        letter = op[-1].upper()
        source = "X_enc" if ".cross_attn." in name and letter in "KV" else "X"
        names = (source, f"W_{letter}", f"b_{letter}")
    else:
        names = _INPUT_SYMBOLS.get(op, ())
    return dict(zip(inputs, names)), _OUTPUT_SYMBOLS[op]
