"""Every undoable change of the lesson, as the undo stack's commands: a cell edit, the weights reset, a training
step, a "what if" switch (Model.with_config) and a generated token appended to the decoder's sentence.

A switch or a generated token builds a new trace and swaps it in; the command keeps both traces (SavedTrace), so
undo brings back the very trace that was there before (and redo the one after). Edits made in between are on the
undo stack above the change, so they are undone first and both traces see the weights they were made with.

The commands change the lesson only through the app state's apply_change and show_trace (which tell the views).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QUndoCommand

from engine import EngineError, Trace
from engine.config import SWITCHES
from engine.tokenizer import START
from engine.training.backward import TrainingStep, apply_step, training_step, undo_step
from gui.text.formulas import letter
from gui.text.numbers import loss_texts
from gui.text.places import place
from gui.text.switches import switch_name

if TYPE_CHECKING:
    from gui.state.app_state import AppState


def tr(text: str) -> str:
    return QCoreApplication.translate("Commands", text)


Describe = Callable[[], str]  # a command's text, in the language of the moment


class LessonCommand(QUndoCommand):
    """An undo command whose text is written again in the new language after a language switch: Edit ▸ Undo and
    the undo history name the change in the language the window speaks."""

    def __init__(self, describe: Describe):
        super().__init__(describe())
        self.describe = describe

    def retranslate(self) -> None:
        self.setText(self.describe())


class EditCellCommand(LessonCommand):
    """Set one cell of a parameter or stage; undo restores it exactly."""

    def __init__(self, state: AppState, name: str, index: tuple[int, ...], value: float):
        trace = state.trace
        old_value = float(trace[name].numpy()[index])
        cell = ",".join(map(str, index))  # named as the formula names it, where it sits; the id in the journal
        number = state.display.format_value
        super().__init__(
            lambda: tr("{0}[{1}] ({2}): {3} → {4}").format(
                letter(trace, name), cell, place(trace, name), number(old_value), number(value)
            )
        )
        self.state, self.name, self.index, self.value = state, name, index, value
        self.old_value = old_value
        self.is_param = name in trace.params
        self.old_override = trace.overrides.get(name)

    def redo(self):
        self.state.apply_change(lambda t: t.set_cell(self.name, self.index, self.value), self.name)

    def undo(self):
        if self.is_param:
            self.state.apply_change(lambda t: t.set_cell(self.name, self.index, self.old_value), self.name)
        else:
            self.state.apply_change(lambda t: t.set_override(self.name, self.old_override), self.name)


class ReplaceParamsCommand(LessonCommand):
    """Swap the whole parameter set (used by "Reset weights"); undo swaps it back."""

    def __init__(self, state: AppState, params: dict[str, torch.Tensor], text: Describe):
        super().__init__(text)
        self.state = state
        self.new = {k: v.clone() for k, v in params.items()}
        self.old = {k: v.clone() for k, v in state.trace.params.items()}
        self.old_overrides = dict(state.trace.overrides)

    def _swap(self, params, overrides):
        trace = self.state.trace
        trace.params.clear()
        trace.params.update({k: v.clone() for k, v in params.items()})
        trace.overrides.clear()
        trace.overrides.update(overrides)
        self.state.apply_change(lambda t: (t.recompute_all(), [st.name for st in t.stages] + list(params))[1], None)

    def redo(self):
        self._swap(self.new, {})

    def undo(self):
        self._swap(self.old, self.old_overrides)


class TrainingStepCommand(LessonCommand):
    """W ← W − lr·∂L/∂W for every parameter at once (engine.training.backward.training_step); undo puts every
    parameter back bit for bit."""

    def __init__(self, state: AppState, step: TrainingStep, text: Describe):
        super().__init__(text)
        self.state, self.step = state, step

    def _set(self, change) -> None:
        self.state.apply_change(
            lambda t: (change(t, self.step), [st.name for st in t.stages] + list(t.params))[1], None
        )

    def redo(self):
        self._set(apply_step)

    def undo(self):
        self._set(undo_step)


def reset_weights_command(state: AppState) -> ReplaceParamsCommand:
    """Back to the lesson's own weights (AppState.original_params)."""
    return ReplaceParamsCommand(
        state, state.original_params, lambda: QCoreApplication.translate("AppState", "Reset weights")
    )


def take_training_step(state: AppState, lr: float) -> bool:
    """Push a TrainingStepCommand (one step of gradient descent on the sentence's loss) and say the loss before
    and after it. A model without an output head, a bad learning rate or a step that would leave a weight or the
    loss not finite, or a weight beyond a cell edit's limit (training_step refuses it), is explained and changes
    nothing."""
    try:
        step = training_step(state.trace, lr)
    except EngineError as exc:
        state.message.emit(str(exc))
        return False

    def text() -> str:
        return QCoreApplication.translate("AppState", "Training step (learning rate {0:g})").format(step.lr)

    state.undo_stack.push(TrainingStepCommand(state, step, text))
    state.message.emit(
        QCoreApplication.translate("AppState", "Training step: loss {0} → {1}").format(
            *loss_texts(step.loss_before, step.loss_after)
        )
    )
    return True


@dataclass(frozen=True)
class SavedTrace:
    """A trace with what the window shows of it: what a swap of traces brings back."""

    trace: Trace
    text: str
    target: str
    stage: str
    row: int


def current_trace(state: AppState) -> SavedTrace:
    return SavedTrace(state.trace, state.text, state.target, state.current_stage, state.row)


class SwapTraceCommand(LessonCommand):
    def __init__(self, state: AppState, text: Describe, after: SavedTrace, message: str = ""):
        super().__init__(text)
        self.state, self.before, self.after, self.note = state, current_trace(state), after, message

    def _show(self, shown: SavedTrace, other: SavedTrace) -> None:
        same = {
            n: t
            for n, t in other.trace.values.items()
            if n in shown.trace.values and shown.trace.values[n].shape == t.shape
        }
        self.state.show_trace(shown.trace, shown.text, shown.target, shown.stage, shown.row, previous=same)

    def redo(self) -> None:
        self._show(self.after, self.before)
        self.state.message.emit(self.text() + (f" — {self.note}" if self.note else ""))

    def undo(self) -> None:
        self._show(self.before, self.after)
        self.state.message.emit(tr("Undone: {0}").format(self.text()))


class SwitchCommand(SwapTraceCommand):
    """A what-if switch turned on or off."""


class AppendTokenCommand(SwapTraceCommand):
    """A generated token appended to the decoder's sentence; `choice` tells how it was chosen, when known. The
    app state counts the tokens generated since the sentence was typed (before the views hear of the new trace):
    draw t uses seed + t, as engine.generate does."""

    choice = None

    def redo(self) -> None:
        self.state.generated_tokens += 1
        super().redo()

    def undo(self) -> None:
        self.state.generated_tokens -= 1
        super().undo()


def _retrace(trace: Trace, model, tokens: dict[str, list[str]], ids: dict[str, torch.Tensor]) -> Trace:
    return Trace(model, {s: list(t) for s, t in tokens.items()}, dict(ids))


def set_switch(state: AppState, switch: str, on: bool) -> bool:
    """Push a SwitchCommand: the same weights, tokens and pinned stages under the config with `switch` on/off."""
    cfg = state.config
    if switch not in SWITCHES:
        state.message.emit(tr("There is no switch named {0}; the switches are {1}").format(switch, ", ".join(SWITCHES)))
        return False
    if (switch in cfg.switches) == on:
        return True
    wanted = set(cfg.switches) | {switch} if on else set(cfg.switches) - {switch}
    try:
        model = state.model.with_config(cfg.replace(switches=tuple(wanted)))
        trace = _retrace(state.trace, model, state.trace.tokens, state.trace.ids)
        for name, value in state.trace.overrides.items():
            trace.set_override(name, value)
    except EngineError as exc:
        state.message.emit(str(exc))
        return False

    def text() -> str:  # the switch as the What if menu names it
        return (tr("What if: {0} — on") if on else tr("What if: {0} — off")).format(
            switch_name(switch, state.display.lang)
        )

    after = SavedTrace(trace, state.text, state.target, state.current_stage, state.row)
    state.undo_stack.push(SwitchCommand(state, text, after))
    return True


def sentence_text(model, tokens: list[str], ids: torch.Tensor) -> str:
    """The decoder's sentence as text that tokenizes back to `tokens` (words joined by spaces, without the
    <start> the tokenizer adds; a checkpoint's tokenizer decodes its ids)."""
    if model.tokenizer is not None:
        return model.tokenizer.tokenizer.decode(ids.tolist())
    return " ".join(tokens[1:] if tokens and tokens[0] == START else tokens)


def append_token(state: AppState, token_id: int, choice=None) -> bool:
    """Push an AppendTokenCommand carrying `choice` (how the token was chosen: shown again after an undo and a
    redo); the window then stands on the output probabilities of the new position."""
    trace, cfg = state.trace, state.config
    if "dec" not in cfg.stacks:
        state.message.emit(tr("Generation needs a decoder: choose a decoder or encoder-decoder model"))
        return False
    vocab = state.model.vocabs["dec"]
    if not 0 <= token_id < len(vocab):
        state.message.emit(tr("Token id {0} is not in the decoder's vocabulary").format(token_id))
        return False
    n = len(trace.tokens["dec"])
    if n >= cfg.max_len:
        state.message.emit(
            tr("The sentence already has max_len = {0} tokens; there is no room for one more").format(cfg.max_len)
        )
        return False
    token = vocab.tokens[token_id]
    tokens = {s: list(t) for s, t in trace.tokens.items()}
    tokens["dec"].append(token)
    ids = trace.ids
    ids["dec"] = torch.cat([ids["dec"], torch.tensor([token_id], dtype=ids["dec"].dtype)])
    new = _retrace(trace, state.model, tokens, ids)
    sentence = sentence_text(state.model, tokens["dec"], ids["dec"])
    text, target = (state.text, sentence) if "enc" in cfg.stacks else (sentence, "")
    note = tr("pinned stage values were dropped (the sentence is longer now)") if trace.overrides else ""

    def label() -> str:
        return tr("Generate “{0}”").format(token)

    stage = "probs" if "probs" in new.stage_names else state.current_stage
    command = AppendTokenCommand(state, label, SavedTrace(new, text, target, stage, n), note)
    command.choice = choice
    state.undo_stack.push(command)
    return True
