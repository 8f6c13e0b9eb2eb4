"""One description per operation: everything the window, the plots and the exports need to show a stage.

The engine's record says what an operation computes and everything else the engine knows of it (engine/graph.py,
RECORDS); its entry here says how it is shown: the letter of its output, its formula line, the colour-map kind of
its numbers, which tensors share its colour scale, the plots that teach it, how its inputs are laid out, and its
text in assets/stage_texts.json (title, plot caption, explanation). Adding an operation = one engine record + one
entry here + its texts (tests/test_registry.py checks every entry; tests/test_new_operation.py adds one).

Nothing here parses stage names: where a stage sits comes from `stage.place` (stack, block, sublayer, part).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.graph import Place
from engine.training.backward import GRAD_PREFIX
from engine.training.shown_trace import extra_stages
from gui.text import formula_lines as lines
from gui.text.formula_lines import GAP, Formula, dims, tr
from gui.text.stage_texts import op_caption, op_text, op_title

# Colour-map kinds: diverging, centred on 0 / sequential from 0 / sequential on 0 … 1 / whole-number ids.
SIGNED, NON_NEGATIVE, PROBABILITY, IDS = "signed", "non-negative", "probability", "ids"
COLOUR_KINDS = (SIGNED, NON_NEGATIVE, PROBABILITY, IDS)
# How the stage view lays out the inputs: above the output; X·W + b as a multiplication scheme (W above the
# output, X to its left, b below); the same for one head's columns of W and b; forward values beside gradients.
STACKED, PRODUCT, HEAD_PRODUCT, BACKWARD = "stacked", "product", "head_product", "backward"
# Which tensors share the stage's colour scale (panels and tables of one equation, one colour for one number): its
# inputs and itself (A + B = C); its input x and itself (μ; scores and scaled = scores/√d_k; scaled and masked; the
# loss L and the ℓᵢ it averages); its first two inputs, x and its mean μ (LayerNorm's x − μ); a tile of scores, the
# maxima m before and after, and the attention's full masked scores the tile is drawn in (the reference: tiled
# attention's S, m, ℓ and o steps).
PARTS_AND_SUM, X_AND_OUTPUT, X_AND_MEAN = "parts_and_sum", "x_and_output", "x_and_mean"
TILE_AND_REFERENCE = "tile_and_reference"


@dataclass(frozen=True)
class Operation:
    op: str  # the `op` of engine.graph.Stage ("attn.weights"); "tokens" for the token inputs
    letter: str  # what its output is called in formulas and matrix captions ("A"; add: "x + Attention(x)")
    colour: str  # COLOUR_KINDS: the numbers it holds
    panels: str  # the plots that teach it: a key of gui/plots/figure.py's PANELS
    formula: Callable[[Formula], str]  # its formula line (gui/text/formula_lines.py)
    text: str = ""  # its entry in assets/stage_texts.json (title, caption, explanation); "" = the op itself
    cross_text: str | None = None  # the entry with the cross-attention wording, where there is one
    cross_note: str | None = None  # in cross-attention, where its q, k, v come from (formula_lines.cross_note)
    stream: str | None = None  # the letter of its first input when that is the stream it reads ("X" in X·W + b)
    cross_stream: str | None = None  # … in cross-attention ("X_dec" for q, "X_enc" for k and v)
    inputs: str = STACKED  # how the stage view lays the inputs out
    per_head: bool = False  # one matrix per head [h, n, m]: shown one head at a time
    heads: str | None = None  # what the head grid shows at it: "split", "tiles", "concat", "parts"; None: nothing
    columns: str = "features"  # what its columns are when not tokens: "features", "head" (one head's d_k
    # features), "heads" (every head's features side by side), "letter" (one column, named by the letter)
    shares_scale: str | None = None  # PARTS_AND_SUM, X_AND_OUTPUT, X_AND_MEAN, TILE_AND_REFERENCE: the tensors on
    # its colour scale (gui/plots/scale.py, shared_scale_names)
    named_by: str | None = None  # the config field whose value names it on the map ("activation": ReLU, GELU…)

    @property
    def text_key(self) -> str:
        return self.text or self.op


def _rule(text: str) -> Callable[[Formula], str]:
    """The local rule of a backward step (an engine record's `backward`, engine/graph.py); g = ∂L/∂(its output)."""
    return lambda f: text


def _matmul_rule(f: Formula) -> str:
    forward = f.trace.stage(f.stage.inputs[0]).op  # the stage whose gradient this is
    return {
        "attn.scores": "scores = Q·Kᵀ  ⇒  ∂L/∂Q = G·K,  ∂L/∂K = Gᵀ·Q",
        "attn.z": "Z = A·V  ⇒  ∂L/∂A = G·Vᵀ,  ∂L/∂V = Aᵀ·G",
    }[forward]


_ATTENTION = dict(cross_note="grid", per_head=True, heads="tiles")
_TILE = dict(cross_note="rows", per_head=True, shares_scale=TILE_AND_REFERENCE)
_FORWARD = (
    # the embeddings
    Operation("tokens", "ids", IDS, "matrix", lines.token_ids),
    Operation("embed", "E", SIGNED, "matrix", lambda f: lines.rows_of(f, "ids")),
    Operation("pos", "PE", SIGNED, "positions", lines.positions),
    Operation("type", "T", SIGNED, "matrix", lambda f: lines.rows_of(f, "0")),
    Operation(
        "x0",
        "X",
        SIGNED,
        "sum",
        lambda f: f"{f.lhs} = {' + '.join(f.letters)}{GAP}{' + '.join(f.shapes)} → {f.out}",
        shares_scale=PARTS_AND_SUM,
    ),
    # attention
    Operation(
        "attn.q",
        "Q",
        SIGNED,
        "matrix",
        lines.projection,
        cross_text="cross_attn.q",
        cross_note="queries",
        stream="X",
        cross_stream="X_dec",
        inputs=HEAD_PRODUCT,
        per_head=True,
        heads="split",
        columns="head",
    ),
    Operation(
        "attn.k",
        "K",
        SIGNED,
        "matrix",
        lines.projection,
        cross_text="cross_attn.k",
        cross_note="keys",
        stream="X",
        cross_stream="X_enc",
        inputs=HEAD_PRODUCT,
        per_head=True,
        heads="split",
        columns="head",
    ),
    Operation(
        "attn.v",
        "V",
        SIGNED,
        "matrix",
        lines.projection,
        cross_text="cross_attn.v",
        cross_note="keys",
        stream="X",
        cross_stream="X_enc",
        inputs=HEAD_PRODUCT,
        per_head=True,
        heads="split",
        columns="head",
    ),
    Operation("attn.q_norm", "Q_norm", SIGNED, "matrix", lines.head_norm, per_head=True, heads="split", columns="head"),
    Operation("attn.k_norm", "K_norm", SIGNED, "matrix", lines.head_norm, per_head=True, heads="split", columns="head"),
    Operation("attn.q_rot", "Q_rot", SIGNED, "rope", lines.rotation, per_head=True, heads="split", columns="head"),
    Operation("attn.k_rot", "K_rot", SIGNED, "rope", lines.rotation, per_head=True, heads="split", columns="head"),
    Operation("attn.k_shared", "K_shared", SIGNED, "matrix", lines.shared_heads, per_head=True, columns="head"),
    Operation("attn.v_shared", "V_shared", SIGNED, "matrix", lines.shared_heads, per_head=True, columns="head"),
    Operation("attn.scores", "scores", SIGNED, "matrix", lines.scores, cross_text="cross_attn.scores", **_ATTENTION),
    Operation(
        "attn.scaled",
        "scaled",
        SIGNED,
        "scale",
        lines.scaled,
        cross_text="cross_attn.scaled",
        shares_scale=X_AND_OUTPUT,
        **_ATTENTION,
    ),
    Operation(
        "attn.masked",
        "masked",
        SIGNED,
        "mask",
        lines.masked,
        cross_text="cross_attn.masked",
        shares_scale=X_AND_OUTPUT,
        **_ATTENTION,
    ),
    Operation(
        "attn.weights",
        "A",
        PROBABILITY,
        "weights",
        lambda f: (
            f"{f.lhs} = softmax(masked){GAP}{f.out} → "
            f"{f.out}{GAP}("
            + tr("each row sums to 1")
            + "; "
            + tr("head {0} of {1}").format(f.head, f.cfg.n_heads)
            + ")"
        ),
        cross_text="cross_attn.weights",
        **_ATTENTION,
    ),
    Operation(
        "attn.z",
        "Z",
        SIGNED,
        "weighted_sum",
        lambda f: f"{f.lhs} = {f.letters[0]}·{f.letters[1]}{GAP}{f.shapes[0]}·{f.shapes[1]} → {f.out}{f.head_note}",
        cross_text="cross_attn.z",
        cross_note="rows",
        per_head=True,
        heads="tiles",
        columns="head",
    ),
    Operation(
        "attn.concat", "Concat", SIGNED, "matrix", lines.concat, cross_note="rows", heads="concat", columns="heads"
    ),
    Operation(
        "attn.out",
        "O",
        SIGNED,
        "matrix",
        lines.linear,
        cross_text="cross_attn.out",
        cross_note="rows",
        inputs=PRODUCT,
        heads="parts",
    ),
    # Add & Norm
    Operation("add", "x + F(x)", SIGNED, "sum", lines.residual, shares_scale=PARTS_AND_SUM),  # F named: residual_sum
    Operation(
        "norm.mean",
        "μ",
        SIGNED,
        "norm",
        lambda f: f"{f.lhs} = (1/d)·Σ x{GAP}{f.shapes[0]} → {f.out}{GAP}(" + tr("one mean per row") + ")",
        stream="x",
        columns="letter",
        shares_scale=X_AND_OUTPUT,
    ),
    Operation(
        "norm.var",
        "σ²",
        NON_NEGATIVE,
        "norm",
        lambda f: f"{f.lhs} = (1/d)·Σ (x − μ)²{GAP}{f.shapes[0]} → {f.out}",
        stream="x",
        columns="letter",
        shares_scale=X_AND_MEAN,
    ),
    Operation(
        "norm.hat",
        "x_norm",
        SIGNED,
        "norm",
        lambda f: f"{f.lhs} = (x − μ) / √(σ² + ε),  ε = {f.cfg.ln_eps:g}{GAP}{f.shapes[0]} → {f.out}",
        stream="x",
        shares_scale=X_AND_MEAN,
    ),
    Operation("norm.out", "y", SIGNED, "norm", lines.affine, stream="x"),
    Operation(
        "norm.ms",
        "ms",
        NON_NEGATIVE,
        "norm",
        lambda f: f"{f.lhs} = (1/d)·Σ x²{GAP}{f.shapes[0]} → {f.out}{GAP}(" + tr("one mean square per row") + ")",
        stream="x",
        columns="letter",
    ),
    Operation(
        "norm.rms_hat",
        "x_norm",
        SIGNED,
        "norm",
        lambda f: f"{f.lhs} = x / √(ms + ε),  ε = {f.cfg.ln_eps:g}{GAP}{f.shapes[0]} → {f.out}",
        stream="x",
    ),
    Operation("norm.rms_out", "y", SIGNED, "norm", lines.affine, stream="x"),
    # the feed-forward network
    Operation("ffn.up", "H", SIGNED, "activation", lines.linear, stream="X", inputs=PRODUCT),
    Operation("ffn.gate", "G", SIGNED, "gate", lines.linear, stream="X", inputs=PRODUCT),
    Operation("ffn.act", "H_act", SIGNED, "gate", lines.activation, named_by="activation"),
    Operation("ffn.down", "F", SIGNED, "matrix", lines.linear, inputs=PRODUCT),
    # the output head and the loss
    Operation("logits", "logits", SIGNED, "top_k", lines.linear, stream="X", inputs=PRODUCT),
    Operation(
        "probs",
        "p",
        PROBABILITY,
        "top_k",
        lambda f: f"{f.lhs} = softmax(logits){GAP}{f.out} → {f.out}{GAP}(" + tr("each row sums to 1") + ")",
    ),
    Operation(
        "loss.per_position",
        "ℓ",
        NON_NEGATIVE,
        "matrix",
        lambda f: (
            f"ℓᵢ = −log p[i, yᵢ]{GAP}"
            f"{dims(*f.trace['probs'].shape)} → {dims(f.trace['probs'].shape[0])}{GAP}("
            + tr("yᵢ: the next token")
            + ")"
        ),
        columns="letter",
    ),
    Operation(
        "loss",
        "L",
        NON_NEGATIVE,
        "matrix",
        lambda f: f"{f.lhs} = (1/m)·Σᵢ ℓᵢ{GAP}{dims(f.trace['probs'].shape[0])} → " + tr("one number"),
        columns="letter",
        shares_scale=X_AND_OUTPUT,  # the mean among the numbers it averages, not the top of a scale of its own
    ),
    # tiled attention (engine/tiled.py)
    Operation("attn.tiled.scores", "S", SIGNED, "tiles", lines.tile_scores, **_TILE),
    Operation("attn.tiled.m", "m", SIGNED, "tiles", lines.tile_max, columns="letter", **_TILE),
    Operation("attn.tiled.l", "ℓ", NON_NEGATIVE, "tiles", lines.tile_sum, columns="letter", **_TILE),
    Operation("attn.tiled.o", "o", SIGNED, "tiles", lines.tile_out, **_TILE),
    Operation("attn.tiled.skipped", "mask", NON_NEGATIVE, "tiles", lines.tile_skipped, cross_note="rows"),
    Operation("attn.tiled.z", "Z", SIGNED, "tiles", lines.tile_output, cross_note="rows", per_head=True),
)


def _backward(rule: str, formula: Callable[[Formula], str]) -> Operation:
    """A step of the backward pass (engine/training/shown_trace.py): its letter is ∂L/∂ + the forward stage's."""
    return Operation(GRAD_PREFIX + rule, "", SIGNED, "matrix", formula, inputs=BACKWARD)


_BACKWARD = (
    _backward("mean", _rule("L = (1/m)·Σᵢ ℓᵢ  ⇒  ∂L/∂ℓᵢ = 1/m")),
    _backward(
        "cross_entropy",
        lambda f: "ℓᵢ = −log p[i, yᵢ]  ⇒  ∂ℓᵢ/∂p[i, yᵢ] = −1/p[i, yᵢ]   (" + tr("0 for the other tokens") + ")",
    ),
    _backward("softmax_jacobian", _rule("∂L/∂x = p ⊙ (g − Σⱼ pⱼ·gⱼ)   (J = diag(p) − p·pᵀ)")),
    _backward("linear", _rule("Y = X·W + b  ⇒  ∂L/∂X = G·Wᵀ,  ∂L/∂W = Xᵀ·G,  ∂L/∂b = Σᵢ Gᵢ")),
    _backward("residual", _rule("∂(x + f(x))/∂x = I + ∂f/∂x  ⇒  ∂L/∂x = g + (∂f/∂x)ᵀ·g")),
    _backward(
        "layernorm",
        lambda f: (
            lines.word_symbol("x_norm")
            + " = (x − μ)/√(σ² + ε)  ⇒  ∂L/∂x = g/√(σ² + ε),  ∂L/∂σ² = −½·Σ g⊙(x − μ)·(σ² + ε)^(−3/2)"
        ),
    ),
    _backward("layernorm_mean", _rule("μ = (1/d)·Σ x  ⇒  ∂L/∂x += (1/d)·∂L/∂μ")),
    _backward("layernorm_var", _rule("σ² = (1/d)·Σ (x − μ)²  ⇒  ∂L/∂x += (2/d)·(x − μ)·∂L/∂σ²")),
    _backward(
        "affine",
        lambda f: "y = γ ⊙ {0} + β  ⇒  ∂L/∂{0} = γ ⊙ g,  ∂L/∂γ = Σᵢ gᵢ ⊙ {0}ᵢ,  ∂L/∂β = Σᵢ gᵢ".format(
            lines.word_symbol("x_norm")
        ),
    ),
    _backward("rms_mean_square", _rule("ms = (1/d)·Σ x²  ⇒  ∂L/∂x += (2/d)·x·∂L/∂ms")),
    _backward(
        "rmsnorm",
        lambda f: (
            lines.word_symbol("x_norm") + " = x/√(ms + ε)  ⇒  ∂L/∂x = g/√(ms + ε),  ∂L/∂ms = −½·Σ g⊙x·(ms + ε)^(−3/2)"
        ),
    ),
    _backward(
        "gain",
        lambda f: "y = γ ⊙ {0}  ⇒  ∂L/∂{0} = γ ⊙ g,  ∂L/∂γ = Σᵢ gᵢ ⊙ {0}ᵢ".format(lines.word_symbol("x_norm")),
    ),
    _backward(
        "head_rmsnorm",
        _rule("y = γ ⊙ x/√(mean(x²) + ε)  ⇒  ∂L/∂x = (γ⊙g − x̂·mean(γ⊙g⊙x̂)) / √(mean(x²) + ε),  ∂L/∂γ = Σ g⊙x̂"),
    ),
    _backward("share_heads", _rule("K_shared[h] = K[h // g]  ⇒  ∂L/∂K[j] = Σ over its g query heads ∂L/∂K_shared[h]")),
    _backward("scale", _rule("scaled = scores/√d_k  ⇒  ∂L/∂scores = g/√d_k")),
    _backward("mask", lambda f: "∂L/∂scaled = g   (" + tr("0 where the mask hides a key (−∞)") + ")"),
    _backward("matmul", _matmul_rule),
    _backward("activation", lambda f: lines.word_symbol("H_act") + " = f(H)  ⇒  ∂L/∂H = g ⊙ f′(H)"),
    _backward("rotation", _rule("Q_rot = R·Q  ⇒  ∂L/∂Q = Rᵀ·g")),
    _backward(
        "reshape", lambda f: lines.word_symbol("Concat") + " = [Z₀ | Z₁ | …]  ⇒  ∂L/∂Z_h = g[:, h·d_k : (h+1)·d_k]"
    ),
    _backward("sum", _rule("X = E + PE  ⇒  ∂L/∂E = ∂L/∂PE = g")),
    _backward(
        "positional",
        lambda f: "PE = W_pos[0 : n]  ⇒  ∂L/∂W_pos[p] = g[p]   (" + tr("sinusoidal: nothing to learn") + ")",
    ),
    _backward(
        "embedding_rows",
        lambda f: "E = W_E[{0}]  ⇒  ∂L/∂W_E[t] = Σ_{{i: {0}ᵢ = t}} gᵢ".format(lines.word_symbol("ids")),
    ),
    _backward("identity", lambda f: "y = x  ⇒  ∂L/∂x = g   (" + tr("switched off") + ")"),
    _backward(
        "tiled",
        lambda f: "∂L/∂S = ∂L/∂o = 0   (" + tr("the model reads Z = A·V; the tiles are stepped beside it") + ")",
    ),
)
OPERATIONS: dict[str, Operation] = {entry.op: entry for entry in _FORWARD + _BACKWARD}


# ---- reading the registry -------------------------------------------------------------------------------------


def operation(op: str) -> Operation:
    if op not in OPERATIONS:
        raise KeyError(f"no entry for operation {op!r} in gui/text/operations.py")
    return OPERATIONS[op]


def stage_op(trace, name: str) -> str:
    """The operation of a stage ("attn.scores", …; "loss", "grad.linear", … for the loss and the backward pass,
    engine/training/shown_trace.py); token inputs are "tokens"."""
    stage = trace.stage(name) or extra_stages(trace).get(name)
    return stage.op if stage is not None else "tokens"


def stage_operation(trace, name: str) -> Operation:
    return operation(stage_op(trace, name))


def colour_kind(op: str) -> str:
    """How an operation's numbers are coloured: SIGNED (a diverging map centred on 0), NON_NEGATIVE (a
    sequential map from 0), PROBABILITY (sequential on 0 … 1) or IDS (whole numbers, never a heat map)."""
    return operation(op).colour


def token_stack(trace, name: str) -> str | None:
    """The stack whose token ids `name` is ("enc.tokens" → "enc"); None for everything else."""
    return trace.token_stages.get(name)


def place_of(trace, name: str) -> Place:
    """Where a stage, a gradient or a stack's token input sits (the output head's place for the loss)."""
    stage = trace.stage(name) or extra_stages(trace).get(name)
    if stage is not None:
        return stage.place
    stack = token_stack(trace, name)
    if stack is None:
        raise KeyError(f"no stage named {name!r}")
    return Place(stack, part="embedding")


def beside(trace, name: str, op: str) -> str:
    """The stage of operation `op` in the same place as stage `name`: the same LayerNorm, FFN or attention."""
    place = place_of(trace, name)
    return next(st.name for st in trace.stages if st.op == op and st.place == place)


def activation_of(trace, name: str) -> str:
    """The activation stage (act = f(up), or silu(gate) ⊙ up) of the FFN that stage `name` belongs to."""
    return beside(trace, name, "ffn.act")


def text_key(trace, name: str) -> str:
    """The stage_texts.json entry a stage shows: its operation's, or the cross-attention wording where there is
    one (rows are target tokens, columns source tokens; q from the decoder, k, v from the encoder)."""
    entry = stage_operation(trace, name)
    if entry.cross_text and place_of(trace, name).part == "cross_attn":
        return entry.cross_text
    return entry.text_key


def stage_title(trace, name: str, lang: str = "en") -> str:
    return op_title(text_key(trace, name), lang)


def stage_text(trace, name: str, lang: str = "en") -> str:
    return op_text(text_key(trace, name), lang)


def matrix_caption(op: str, lang: str = "en") -> str | None:
    """The caption of an operation's matrix in plots ("Attention weights (softmax)"); None where it has none."""
    return op_caption(operation(op).text_key, lang)
