"""Where a stage sits in the model, in words: "Encoder · Block 0 · Self-attention" (the stage list's groups, the
stage view's location line, the titles of exported figures and slides). Stage ids stay out of them."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from engine.training.backward import forward_of, is_backward
from gui.text.formulas import letter
from gui.text.operations import place_of


def tr(text: str) -> str:
    return QCoreApplication.translate("StageList", text)  # the stage list's context, where they were first


def _sublayer(place, pre_ln: bool, rms: bool) -> str:
    if place.part == "self_attn":
        return tr("Masked self-attention") if place.stack == "dec" else tr("Self-attention")
    if place.part == "cross_attn":
        return tr("Cross-attention")
    if place.part == "ffn":
        return tr("Feed-forward")
    k = place.sublayer
    if pre_ln and place.part == "norm":
        return (tr("RMSNorm {0}") if rms else tr("LayerNorm {0}")).format(k)
    if pre_ln:
        return tr("Residual add {0}").format(k)
    return (tr("Add & RMSNorm {0}") if rms else tr("Add & Norm {0}")).format(k)


def group_path(trace, name: str) -> list[str]:
    """The groups a stage sits in, outermost first, e.g. ["Encoder", "Block 0", "Self-attention"]; a step of
    the backward pass sits under "Backward pass", in the groups of the stage whose gradient it computes."""
    if is_backward(name):
        return [tr("Backward pass"), *group_path(trace, forward_of(name))]
    place = place_of(trace, name)
    if place.part == "output":
        return [tr("Output")]
    stack = tr("Encoder") if place.stack == "enc" else tr("Decoder")
    if place.part == "embedding":
        return [stack, tr("Embedding + position")]
    rms = trace.config.norm_type == "rmsnorm"
    if place.part == "embed_norm":
        return [stack, tr("Embedding RMSNorm") if rms else tr("Embedding LayerNorm")]
    if place.part == "final_norm":
        return [stack, tr("Final RMSNorm") if rms else tr("Final LayerNorm")]
    return [stack, tr("Block {0}").format(place.block), _sublayer(place, trace.config.norm == "pre", rms)]


def place(trace, name: str) -> str:
    """The groups joined: "Encoder · Block 0 · Self-attention"; for a parameter, those of the stage that reads it
    (an embedding table: its stack's embeddings; W_U: the output)."""
    if name in trace.params:
        name = next(st.name for st in trace.stages if name in st.inputs)
    return " · ".join(group_path(trace, name))


def weight_title(trace, name: str) -> str:
    """A weight (or its gradient) as the window names it: "W_Q (Encoder · Block 0 · Self-attention)"."""
    return f"{letter(trace, name)} ({place(trace, forward_of(name))})"
