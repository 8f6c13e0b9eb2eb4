"""2017 → today as an undoable change: the model moved to another step of engine.modernise (its config and the
weights the step carries over), traced on the same sentences and swapped in as a what-if switch's trace is, so that
the stages whose numbers the change moved are marked as an edit's are (AppState.changed) and undo brings back the
very trace before it. The lesson's own weights (Reset weights) follow the step too, so a reset never meets
weights of another shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from engine import EngineError, Model, Trace
from engine.modernise import CHANGES, carried_params, model_at, shown_stage, step_of
from gui.state.commands import LessonCommand, SavedTrace, current_trace
from gui.text.modernise import change_name

if TYPE_CHECKING:
    from gui.state.app_state import AppState


def tr(text: str) -> str:
    return QCoreApplication.translate("Commands", text)


class ModerniseCommand(LessonCommand):
    """The model moved from one step of 2017 → today to another, shown as a what-if switch's trace is (the values
    of the stages both traces have are the "before" of an edit, so the cells the change moved are marked); the
    lesson's own weights move with it. Its weights are not the trace's before it, so no journal record describes it
    (gui/state/change_records.py): the autosave writes a snapshot of the lesson instead."""

    def __init__(self, state: AppState, text, after: SavedTrace, originals: tuple[dict, dict]):
        super().__init__(text)
        self.state, self.before, self.after = state, current_trace(state), after
        self.originals = originals  # (the lesson's own weights before, after)

    def _show(self, shown: SavedTrace, other: SavedTrace, originals: dict) -> None:
        self.state.original_params = originals
        same = {
            n: t for n, t in other.trace.values.items() if n in shown.trace.values and shown.trace[n].shape == t.shape
        }
        self.state.show_trace(shown.trace, shown.text, shown.target, shown.stage, shown.row, previous=same)

    def redo(self) -> None:
        self._show(self.after, self.before, self.originals[1])
        self.state.message.emit(self.text())

    def undo(self) -> None:
        self._show(self.before, self.after, self.originals[0])
        self.state.message.emit(tr("Undone: {0}").format(self.text()))


def step_text(step: int, lang: str) -> str:
    """The undo history's name of a step: "2017 → today: 3 of 6, ReLU → SwiGLU"."""
    if step == 0:
        return tr("2017 → today: back to the 2017 block")
    return tr("2017 → today: {0} of {1}, {2}").format(step, len(CHANGES), change_name(CHANGES[step - 1].key, lang))


def set_step(state: AppState, step: int) -> bool:
    """Push a ModerniseCommand that moves the model to `step` (0: the 2017 block … 6: today's), keeping the
    sentences and the pinned stages that still exist with their shape, and go to the stage that shows the change.
    A refusal is explained and changes nothing."""
    now = step_of(state.config)
    if now == step:
        return True
    try:
        model = model_at(state.model, step)
        trace = Trace(model, {s: list(t) for s, t in state.trace.tokens.items()}, dict(state.trace.ids))
        for name, value in state.trace.overrides.items():
            if name in trace.values and trace.values[name].shape == value.shape:
                trace.set_override(name, value)
        before = Model(state.config, state.original_params, state.model.vocabs)
        originals = (state.original_params, carried_params(before, model.config))
    except EngineError as exc:
        state.message.emit(str(exc))
        return False
    # the window goes to the stage that shows the change made or undone (its cells a change moved are marked)
    stage = (now is not None and shown_stage(trace.stages, now, step)) or state.current_stage
    after = SavedTrace(trace, state.text, state.target, stage, state.row)
    state.undo_stack.push(ModerniseCommand(state, lambda: step_text(step, state.display.lang), after, originals))
    return True
