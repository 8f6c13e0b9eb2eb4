"""The trace as the window steps through it: the forward stages, then, for a model with an output head, the
loss and the backward pass (backward.py) as stages of their own. (Pure torch, as all of the engine: the gradients
are computed here; the views, the registry of how a stage is shown and the plots read it.)

The engine's trace keeps its stages (the command line's `trace`, `stages` and `export` are unchanged). Here
each loss and backward step becomes a Stage the views already know how to show: `loss.per_position` and
`loss` read the probabilities and the labels; `grad.<stage>` (op "grad.<rule>", the local rule of its forward
stage's record, engine/graph.py) shows ∂L/∂(that stage), with the forward value, the parameters read there and
their gradients as its inputs. The gradients are computed on demand, the first time one is read.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

import torch

from ..errors import EngineError
from ..graph import Stage
from .backward import (
    GRAD_PREFIX,
    LABELS,
    LOSS_STAGES,
    PER_POSITION,
    backward,
    backward_stages,
    labels,
)

_EXTRA: WeakKeyDictionary = WeakKeyDictionary()


def _grad_stage(trace, step) -> Stage:
    forward = trace.stage(step.of) or next(st for st in LOSS_STAGES if st.name == step.of)
    inputs = (step.of, *step.params, *(GRAD_PREFIX + p for p in step.params))
    # fn None: a backward stage is read from backward.py's gradients, never computed on its own
    return Stage(
        step.name, GRAD_PREFIX + step.rule, inputs, None, rows=forward.rows, cols=forward.cols, place=forward.place
    )


def extra_stages(trace) -> dict[str, Stage]:
    """The loss and backward stages of a trace in stepping order ({} for a model without an output head)."""
    if isinstance(trace, ShownTrace):
        return trace.extra
    if trace not in _EXTRA:
        try:
            labels(trace)  # the tokens each position must predict: the loss needs them
            steps = backward_stages(trace)
        except EngineError:  # no loss to take (no output head, or a checkpoint without <end>): forward only
            steps = None
        _EXTRA[trace] = (
            {}
            if steps is None
            else ({st.name: st for st in LOSS_STAGES} | {s.name: _grad_stage(trace, s) for s in steps})
        )
    return _EXTRA[trace]


class ShownTrace:
    """The engine trace with the loss and backward stages added; everything else is the trace's own."""

    def __init__(self, trace):
        self.trace = trace
        self.extra = extra_stages(trace)
        self.stage_names = trace.stage_names + list(self.extra)
        self._gradients: dict[str, torch.Tensor] | None = None

    def __getattr__(self, attr):
        return getattr(self.trace, attr)

    def stage(self, name: str) -> Stage | None:
        return self.trace.stage(name) or self.extra.get(name)

    def gradients(self) -> dict[str, torch.Tensor]:
        """engine.training.backward of the trace (the loss, its labels and every gradient), computed once."""
        if self._gradients is None:
            self._gradients = backward(self.trace)
        return self._gradients

    def __contains__(self, name: str) -> bool:
        return name in self.trace or (bool(self.extra) and name in self.gradients())

    def __getitem__(self, name: str) -> torch.Tensor:
        if name in self.trace:
            return self.trace[name]
        value = self.gradients()[name]
        if name in (PER_POSITION, GRAD_PREFIX + PER_POSITION, LABELS):
            return value[:, None]  # one row per decoder token
        return value.reshape(1, 1) if value.dim() == 0 else value
