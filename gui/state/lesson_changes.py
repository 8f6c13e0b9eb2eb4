"""Undoable changes that keep the lesson's weights: a "what if" switch (Model.with_config) and a generated
token appended to the decoder's sentence.

Each change builds a new trace and swaps it in; the command keeps both traces, so undo brings back the very
trace that was there before (and redo the one after). Edits made in between are on the undo stack above the
change, so they are undone first and both traces see the weights they were made with.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QUndoCommand

from engine import EngineError, Trace
from engine.config import SWITCHES
from engine.tokenizer import START

if TYPE_CHECKING:
    from gui.state.app_state import AppState


def tr(text: str) -> str:
    return QCoreApplication.translate("LessonChanges", text)


@dataclass(frozen=True)
class View:
    """A trace with what the window shows of it."""

    trace: Trace
    text: str
    target: str
    stage: str
    row: int


def current_view(state: AppState) -> View:
    return View(state.trace, state.text, state.target, state.current_stage, state.row)


class SwapTraceCommand(QUndoCommand):
    def __init__(self, state: AppState, text: str, after: View, message: str = ""):
        super().__init__(text)
        self.state, self.before, self.after, self.note = state, current_view(state), after, message

    def _show(self, view: View, other: View) -> None:
        same = {n: t for n, t in other.trace.values.items()
                if n in view.trace.values and view.trace.values[n].shape == t.shape}
        self.state.show_trace(view.trace, view.text, view.target, view.stage, view.row, previous=same)

    def redo(self) -> None:
        self._show(self.after, self.before)
        self.state.message.emit(self.text() + (f" — {self.note}" if self.note else ""))

    def undo(self) -> None:
        self._show(self.before, self.after)
        self.state.message.emit(tr("Undone: {0}").format(self.text()))


class SwitchCommand(SwapTraceCommand):
    """A what-if switch turned on or off."""


class AppendTokenCommand(SwapTraceCommand):
    """A generated token appended to the decoder's sentence; `choice` tells how it was chosen, when known."""

    choice = None


def _retrace(trace: Trace, model, tokens: dict[str, list[str]], ids: dict[str, torch.Tensor]) -> Trace:
    return Trace(model, {s: list(t) for s, t in tokens.items()}, dict(ids))


def _ids(trace: Trace) -> dict[str, torch.Tensor]:
    return {s: trace[f"{s}.tokens"] for s in trace.config.stacks}


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
        trace = _retrace(state.trace, model, state.trace.tokens, _ids(state.trace))
        for name, value in state.trace.overrides.items():
            trace.set_override(name, value)
    except EngineError as exc:
        state.message.emit(str(exc))
        return False
    text = (tr("What if: {0} on") if on else tr("What if: {0} off")).format(switch)
    state.undo_stack.push(SwitchCommand(state, text, View(trace, state.text, state.target, state.current_stage,
                                                          state.row)))
    return True


def sentence_text(model, tokens: list[str], ids: torch.Tensor) -> str:
    """The decoder's sentence as text that tokenizes back to `tokens` (words joined by spaces, without the
    <start> the tokenizer adds; a checkpoint's tokenizer decodes its ids)."""
    if model.tokenizer is not None:
        return model.tokenizer.tokenizer.decode(ids.tolist())
    return " ".join(tokens[1:] if tokens and tokens[0] == START else tokens)


def generated_so_far(state: AppState) -> int:
    """Tokens generated since the sentence was typed: appends on the undo stack below its index. Step t
    draws with seed + t, as engine.generate does."""
    stack = state.undo_stack
    return sum(isinstance(stack.command(i), AppendTokenCommand) for i in range(stack.index()))


def append_token(state: AppState, token_id: int) -> bool:
    """Push an AppendTokenCommand; the window then stands on the output probabilities of the new position."""
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
        state.message.emit(tr("The sentence already has max_len = {0} tokens; there is no room for one more")
                           .format(cfg.max_len))
        return False
    token = vocab.tokens[token_id]
    tokens = {s: list(t) for s, t in trace.tokens.items()}
    tokens["dec"].append(token)
    ids = _ids(trace)
    ids["dec"] = torch.cat([ids["dec"], torch.tensor([token_id], dtype=ids["dec"].dtype)])
    new = _retrace(trace, state.model, tokens, ids)
    sentence = sentence_text(state.model, tokens["dec"], ids["dec"])
    text, target = (state.text, sentence) if "enc" in cfg.stacks else (sentence, "")
    note = tr("pinned stage values were dropped (the sentence is longer now)") if trace.overrides else ""
    label = tr("Generate “{0}”").format(token)
    stage = "probs" if "probs" in new.stage_names else state.current_stage
    state.undo_stack.push(AppendTokenCommand(state, label, View(new, text, target, stage, n), note))
    return True
