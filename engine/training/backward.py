"""The loss and the backward pass: ∂loss/∂(every stage) and ∂loss/∂(every parameter), on request.

The forward trace is left as it is. backward() runs the trace's own stage functions again, in order, with
the trace's overrides and switches, adds the two loss stages after `probs` and lets torch autograd take
the gradient. Names (documented in notes/grads.md):

- `dec.labels` [m]: the token each decoder position must predict (the next one; <end> after the last);
- `loss.per_position` [m]: −log probs[i, label_i] (from the logits where probs rounds to 0); `loss` []: their mean;
- `grad.<stage>`: ∂loss/∂(that stage's tensor), same shape (loss stages included);
- `grad.<param>`: ∂loss/∂(that parameter), same shape.

backward_stages() lists the steps of the backward pass from the loss back to the embeddings, each with
the local rule that turns the gradient of its output into the gradient of its inputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from .. import ops
from ..errors import EngineError
from ..formats.reading import MAX_ABS_VALUE
from ..graph import Stage
from ..trace import Trace
from .train import next_token_labels

Tensor = torch.Tensor
LABELS = "dec.labels"
GRAD_PREFIX = "grad."
LOSS_STAGES = (
    Stage("loss.per_position", "loss.per_position", ("probs", LABELS), ops.cross_entropy, rows="dec"),
    Stage("loss", "loss", ("loss.per_position",), ops.mean_loss),  # the stages' records: engine/graph.py
)
PER_POSITION, LOSS = (st.name for st in LOSS_STAGES)
MAX_LR = 100.0


@dataclass(frozen=True)
class BackwardStage:
    name: str  # "grad.<of>"
    of: str  # the forward stage whose gradient this step computes
    op: str  # the forward stage's op
    rule: str  # the local rule (the op's record; "identity" where a switch made the forward stage its input)
    params: tuple[str, ...]  # parameters read by the forward stage: their gradients are taken here


def is_backward(name: str) -> bool:
    """Whether a name is a gradient's: `grad.<stage>` or `grad.<param>`."""
    return name.startswith(GRAD_PREFIX)


def forward_of(name: str) -> str:
    """The forward stage or parameter a gradient belongs to ("grad.dec.x0" → "dec.x0")."""
    return name.removeprefix(GRAD_PREFIX)


def _rule(st: Stage, switches: tuple[str, ...]) -> str:
    """The local rule of the stage's backward step: its record's, or "identity" where a switch made it its input."""
    record = st.record
    if st.fn is ops.identity or (record.keeps_function and record.switch in switches):
        return "identity"
    return record.backward


def _refuse_without_head(trace: Trace) -> None:
    if "probs" not in trace.values:
        raise EngineError("an encoder-only model has no output head, so no loss: use a decoder or an encoder-decoder")


def backward_stages(trace: Trace) -> list[BackwardStage]:
    """The backward pass in order: from the loss back to the embeddings (reverse trace order)."""
    _refuse_without_head(trace)
    params = trace.params
    forward = trace.stages + list(LOSS_STAGES)
    return [
        BackwardStage(
            GRAD_PREFIX + st.name,
            st.name,
            st.op,
            _rule(st, trace.config.switches),
            tuple(i for i in st.inputs if i in params),
        )
        for st in reversed(forward)
    ]


def labels(trace: Trace) -> Tensor:
    """The next-token labels of the trace's decoder tokens (<start> w1 … wm → w1 … wm <end>)."""
    _refuse_without_head(trace)
    return next_token_labels(trace.model, trace.ids["dec"])


def _run(
    trace: Trace,
    params: dict[str, Tensor],
    dtype,
    probes: dict[str, Tensor] | None,
    overrides: dict[str, Tensor] | None = None,
) -> dict[str, Tensor]:
    """Every stage and the loss, as the trace computes them (its overrides, then `overrides`) from `params`,
    in `dtype` (None: as they come). With `probes`, every stage's value gets a zero leaf added (x + 0 = x exactly),
    whose gradient is ∂loss/∂(that stage): distinct even where a switch makes a stage equal its input."""
    values = {name: trace.values[name] for name in trace.token_stages}
    values[LABELS] = labels(trace)
    pinned = trace.overrides | (overrides or {})
    for st in trace.stages + list(LOSS_STAGES):
        if st.name in pinned:
            out = pinned[st.name]
        elif st.name == PER_POSITION and "probs" not in pinned:  # p is the logits' softmax: ℓ finite however far
            out = _NegLogProb.apply(values["probs"], values["logits"], values[LABELS])
        else:
            out = st.fn(*[values[i] if i in values else params[i] for i in st.inputs])
        out = out if dtype is None else out.to(dtype)
        if probes is not None:
            probes[st.name] = torch.zeros_like(out, requires_grad=True)
            out = out + probes[st.name]
        values[st.name] = out
    return values


class _NegLogProb(torch.autograd.Function):
    """loss.per_position, ℓᵢ = −log p[i, yᵢ], where p is the softmax of the logits z: as the chain shows it
    (ℓ from p, ∂ℓᵢ/∂p[i, yᵢ] = −1/p[i, yᵢ], then the softmax's Jacobian), bit for bit, except in a row whose
    p[i, yᵢ] rounds to 0 or a subnormal (logits ~90 apart in float32), where −log p and −1/p would be
    infinite: there ℓᵢ = −log_softmax(zᵢ)[yᵢ] and ∂ℓᵢ/∂zᵢ = pᵢ − onehot(yᵢ) go to the logits directly
    (as cross-entropy on the logits does), and ∂ℓᵢ/∂pᵢ is 0."""

    @staticmethod
    def forward(ctx, probs: Tensor, logits: Tensor, labels: Tensor) -> Tensor:  # [m, vocab] ×2, [m] → [m]
        rows = labels[:, None]
        p = probs.gather(-1, rows)[:, 0]
        lost = p < torch.finfo(p.dtype).tiny
        log_p = torch.where(lost, torch.log_softmax(logits, -1).gather(-1, rows)[:, 0], torch.log(p))
        ctx.save_for_backward(p, logits, labels, lost)
        return -log_p

    @staticmethod
    def backward(ctx, g: Tensor):  # g [m]: ∂L/∂ℓ
        p, logits, labels, lost = ctx.saved_tensors
        rows = labels[:, None]
        d_probs = torch.zeros_like(logits).scatter_(-1, rows, torch.where(lost, 0.0, -g / p)[:, None])
        onehot = torch.zeros_like(logits).scatter_(-1, rows, 1.0)
        d_logits = torch.where(lost[:, None], g[:, None] * (torch.softmax(logits, -1) - onehot), 0.0)
        return d_probs, d_logits, None


def _leaf_params(trace: Trace, dtype) -> dict[str, Tensor]:
    """The trace's parameters as fresh autograd leaves (in `dtype` if given)."""
    return {k: (v if dtype is None else v.to(dtype)).detach().requires_grad_(True) for k, v in trace.params.items()}


def loss_values(
    trace: Trace, params: dict[str, Tensor] | None = None, dtype=None, overrides: dict[str, Tensor] | None = None
) -> dict[str, Tensor]:
    """`dec.labels`, `loss.per_position` and `loss` of the trace, or of what it would be with other
    parameters or more stages pinned (`overrides`, as Trace.set_override does); the trace is not changed."""
    params = {k: v if dtype is None else v.to(dtype) for k, v in (params or trace.params).items()}
    with torch.no_grad():
        values = _run(trace, params, dtype, None, overrides)
    return {name: values[name] for name in (LABELS, PER_POSITION, LOSS)}


def backward(trace: Trace, dtype=None) -> dict[str, Tensor]:
    """The loss and every gradient, in order: `dec.labels`, `loss.per_position`, `loss`, then `grad.<stage>`
    from the loss back to the embeddings, then `grad.<param>` in the model's parameter order.

    dtype=torch.float64 computes in double precision (for checks); None keeps the parameters' dtype.
    The trace is not changed.
    """
    params = _leaf_params(trace, dtype)
    probes: dict[str, Tensor] = {}
    values = _run(trace, params, dtype, probes)
    leaves = list(probes.values()) + list(params.values())
    grads = torch.autograd.grad(values[LOSS], leaves, allow_unused=True)
    by_leaf = dict(zip(list(probes) + list(params), grads))
    out = {name: values[name].detach() for name in (LABELS, PER_POSITION, LOSS)}
    for step in backward_stages(trace):
        out[step.name] = _dense(by_leaf[step.of], probes[step.of])
    for name, p in params.items():
        out[f"grad.{name}"] = _dense(by_leaf[name], p)
    return out


def _dense(grad: Tensor | None, like: Tensor) -> Tensor:
    """A gradient, or zeros where the loss does not depend on the tensor at all."""
    return torch.zeros_like(like).detach() if grad is None else grad.detach()


# ---- one step of gradient descent ----------------------------------------------------------------


@dataclass(frozen=True)
class ParamUpdate:
    before: Tensor
    grad: Tensor  # ∂loss/∂W at `before`
    after: Tensor  # before − lr · grad


@dataclass(frozen=True)
class TrainingStep:
    lr: float
    loss_before: float
    loss_after: float  # the same sentence's loss with every parameter at `after`
    params: dict[str, ParamUpdate]  # in the model's parameter order


def check_lr(lr) -> float:
    if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not math.isfinite(lr) or not 0 < lr <= MAX_LR:
        raise EngineError(f"the learning rate must be a number above 0 and at most {MAX_LR:g}, got {lr!r}")
    return float(lr)


def training_step(trace: Trace, lr: float) -> TrainingStep:
    """W ← W − lr·∂loss/∂W for every parameter, computed without changing the trace (apply_step does).

    A step that would leave a weight NaN, infinite or beyond ±MAX_ABS_VALUE (the limit of a cell edit), or whose
    loss before or after is not finite, is refused with an EngineError that says why and what to try: no step
    makes a model that could not be shown, saved or stepped again."""
    lr = check_lr(lr)
    grads = backward(trace)
    before = float(grads[LOSS])
    if not math.isfinite(before):
        raise EngineError(
            f"the loss on this sentence is {_not_finite(before)}, so its gradients are not numbers; no step was "
            "taken: bring the weights nearer 0 (undo the last edits, or reset the weights)"
        )
    updates = {
        name: ParamUpdate(w.clone(), grads[f"grad.{name}"], w - lr * grads[f"grad.{name}"])
        for name, w in trace.params.items()
    }
    for name, update in updates.items():
        _check_update(name, update, lr)
    after = float(loss_values(trace, {name: u.after for name, u in updates.items()})[LOSS])
    if not math.isfinite(after):
        raise EngineError(
            f"with learning rate {lr:g} the loss after this step would be {_not_finite(after)}; no step was taken: "
            "try a smaller learning rate"
        )
    return TrainingStep(lr, before, after, updates)


def _not_finite(loss: float) -> str:
    """A loss that is not a number, and why: "inf (a right token gets probability 0)"."""
    return f"{loss} ({'a right token gets probability 0' if loss == math.inf else 'a stage overflowed'})"


def _check_update(name: str, update: ParamUpdate, lr: float) -> None:
    """Refuse a gradient that is not finite, or an `after` with a cell that is NaN, infinite or beyond the limit."""
    if not torch.isfinite(update.grad).all():
        raise EngineError(
            f"the gradient of {name} holds NaN or infinity; no step was taken: bring the weights nearer 0 (undo the "
            "last edits, or reset the weights)"
        )
    fits = torch.isfinite(update.after) & (update.after.abs() <= MAX_ABS_VALUE)  # [same shape as the weight]
    if fits.all():
        return
    cell = [int(i) for i in (~fits).nonzero()[0]]
    value = float(update.after[tuple(cell)])
    reached = "NaN" if math.isnan(value) else f"{value:g}"
    raise EngineError(
        f"with learning rate {lr:g} this step would set {name}{cell} to {reached} (weights stay within "
        f"±{MAX_ABS_VALUE:g}); no step was taken: try a smaller learning rate"
    )


def apply_step(trace: Trace, step: TrainingStep) -> None:
    """Put every parameter at its `after` value and recompute the trace."""
    _set_params(trace, {name: u.after for name, u in step.params.items()})


def undo_step(trace: Trace, step: TrainingStep) -> None:
    """Put every parameter back at its `before` value, bit for bit, and recompute the trace."""
    _set_params(trace, {name: u.before for name, u in step.params.items()})


def _set_params(trace: Trace, tensors: dict[str, Tensor]) -> None:
    if set(tensors) != set(trace.params):
        raise EngineError("this training step belongs to another model")
    for name, t in tensors.items():
        trace.set_param(name, t)
