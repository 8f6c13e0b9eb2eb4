"""The formula of a stage written with its actual shapes, e.g. `scores = Q·Kᵀ   [3×2]·[2×3] → [3×3]`,
and the letters it uses for each input (the captions of the matrices use the same letters). Each operation's
letter and formula line are its entry in gui/text/operations.py.
"""

from __future__ import annotations

from engine.training.backward import LABELS, forward_of, is_backward
from gui.text.formula_lines import GAP, Formula, cross_note, residual_sum, shape_of, sublayer_call, word_symbol
from gui.text.operations import place_of, stage_op, stage_operation

PARAMS = {"gamma": "γ", "beta": "β"}


def _param_letter(name: str) -> str:
    leaf = name.rsplit(".", 1)[1]  # a parameter is called by its own name: W_Q, b1, γ
    return PARAMS.get(leaf, leaf)


def letter(trace, name: str) -> str:
    """What a stage, a parameter or a gradient is called in the formulas: "A", "W_Q", "∂L/∂A", "x + FFN(x)" (a
    residual sum, never its stage id); a letter that is an English word in the window's language."""
    if is_backward(name):
        forward = letter(trace, forward_of(name))
        return f"∂L/∂({forward})" if " " in forward else "∂L/∂" + forward  # ∂L/∂(x + FFN(x))
    if name in trace.params:
        return _param_letter(name)
    if name == LABELS:
        return "y"
    entry = stage_operation(trace, name)
    if entry.op == "add":
        return residual_sum(trace, name)
    return word_symbol(entry.letter)


def _same_layer_norm(trace, name: str, other: str) -> bool:
    """Whether `other` is a step of the LayerNorm that stage `name` belongs to (not the stream it normalises)."""
    return stage_op(trace, other).startswith("norm.") and place_of(trace, other) == place_of(trace, name)


def symbols(trace, name: str) -> tuple[dict[str, str], str]:
    """The letters the formula uses: {input name: letter} and the output's letter."""
    stage = trace.stage(name)
    inputs = list(stage.inputs) if stage is not None else []
    out = {i: letter(trace, i) for i in inputs}
    entry = stage_operation(trace, name)
    if is_backward(name):
        return out, letter(trace, name)
    if entry.stream and inputs and not _same_layer_norm(trace, name, inputs[0]):
        cross = place_of(trace, name).part == "cross_attn"
        out[inputs[0]] = entry.cross_stream if cross and entry.cross_stream else entry.stream
    if entry.op == "add":  # x + Attention(x): the residual stream, then the sublayer's output, as the formula says
        out[inputs[-1]] = sublayer_call(trace, inputs[-1])
        if len(inputs) == 2:
            out[inputs[0]] = "x"
    return out, letter(trace, name)


def formula(trace, name: str, head: int = 0, decimals: int = 2) -> str:
    """One line: the operation, then the shapes it maps, then a short note where it helps (its numbers with
    `decimals` places, as the tables show them)."""
    entry = stage_operation(trace, name)
    stage = trace.stage(name)
    inputs = list(stage.inputs) if stage is not None else []
    letters, lhs = symbols(trace, name)
    f = Formula(
        trace,
        name,
        head,
        lhs,
        tuple(letters[i] for i in inputs),
        tuple(shape_of(trace, i) for i in inputs),
        shape_of(trace, name),
        decimals,
    )
    if is_backward(name):  # ∂L/∂(the stage) with its shape, then the local rule that passes it on to the inputs
        note = f.head_note if trace[name].dim() == 3 else ""
        return f"{lhs} {f.out}{GAP}{entry.formula(f)}{note}"
    line = entry.formula(f)
    if entry.cross_note and place_of(trace, name).part == "cross_attn":
        line += f"{GAP}[{cross_note(entry.cross_note)}]"
    return line
