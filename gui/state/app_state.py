"""The app state: one QObject owns the current lesson (model, sentences, trace, cursor), its undo stack (the
commands are in gui/state/commands.py) and the display settings (gui/state/display.py: language, decimals, head,
row, temperature …).

Views observe it through signals and change it only through its methods; no view talks to another.
"""

from __future__ import annotations

import numpy as np
import torch
from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtGui import QUndoStack
from shiboken6 import Shiboken, isValid

from engine import EngineError, Model, ModelConfig, Trace, check_value
from engine.formats.lesson import Lesson
from engine.training.backward import forward_of, is_backward
from engine.training.shown_trace import ShownTrace
from gui.state import commands, modernise
from gui.state.commands import EditCellCommand
from gui.state.display import DisplaySettings
from gui.state.lab_run import LabRun

EMPTY_TEXTS = {"en": "", "zh": ""}  # a title or description a model without a lesson has


class AppState(QObject):
    lessonChanged = Signal()  # a new model or new sentences: views rebuild
    rebuilt = Signal(bool)  # after lessonChanged, when new sentences (False) or settings (True, a new model) took
    # the names of the stages an edit recomputed, in stepping order: views refresh values (an object, not a list: PySide
    # converted a list of strings to Qt and back for each of its six receivers, 0.2 ms an edit)
    traceEdited = Signal(object)
    cursorChanged = Signal(int)
    message = Signal(str)  # a user-facing explanation (refused input, etc.) for the status bar
    problemChanged = Signal(str)  # the sentences typed cannot be run (empty, too long): views explain, "" when fine

    def __init__(
        self,
        config: ModelConfig,
        text: str,
        target: str = "",
        parent: QObject | None = None,
        model: Model | None = None,
        trace: Trace | None = None,
    ):
        """A lesson of `config` (or `model`) on the sentences; `trace`, when given, is the model's trace of them
        already (not traced again)."""
        super().__init__(parent)
        self.undo_stack = QUndoStack(self)
        self.display = DisplaySettings(self)
        self.trace: Trace = trace if trace is not None else (model or Model.create(config)).trace(text, target or None)
        self.model = self.trace.model
        self.text, self.target = text, target
        self.problem = ""
        self.original_params = dict(self.model.params)  # shared: a weight is replaced, never changed in place
        self.cursor = 0
        self.generated_tokens = 0  # appended by "Generate" since the sentence was typed (commands.AppendTokenCommand)
        self.previous: dict[str, torch.Tensor] = {}  # values before the last edit, for "show difference"
        self._view: ShownTrace | None = None
        self._trace_names: tuple = (None, set(), {})  # (the trace, its backward names, its stages' order)
        self.title = {"en": "", "zh": ""}  # the lesson's title and description, when it came from one
        self.description = {"en": "", "zh": ""}
        self.views: tuple[str, ...] = ()  # the docks the lesson opens with (engine.formats.lesson.VIEWS)
        self.show: dict = {}  # the head, row and decimals the lesson opens on (engine.formats.lesson.SHOW_KEYS)
        self.lab: str | None = None  # the experiment the lesson chooses in the training lab
        self.lab_run = LabRun(self)  # the training lab's run: it outlives the window (F5, text size, language)

    def __del__(self):
        """A state that dies with its Python object (no controller owns it) deletes its commands first, while
        every Python object is whole: the garbage collector, breaking the cycles a window and its state make, could
        free the commands' Python halves before the state's destructor deleted them through the stack (a segfault
        in QUndoStack::clear, in a test's teardown)."""
        if isValid(self.lab_run):
            self.lab_run.blockSignals(True)  # (its views are going too)
            self.lab_run.stop()  # its thread ends before the objects it reports to
        if isValid(self) and Shiboken.ownedByPython(self):
            self.undo_stack.blockSignals(True)  # no view is told: they are going too
            self.undo_stack.clear()

    # ---- reading ---------------------------------------------------------------------------
    @classmethod
    def from_lesson(cls, lesson: Lesson) -> AppState:
        """The app state of a lesson, traced once. Raises EngineError when it cannot be traced."""
        trace = lesson.trace()
        state = cls(lesson.config, lesson.text, lesson.target, trace=trace)
        state.load_lesson(lesson, trace)
        return state

    @classmethod
    def from_model(
        cls,
        model: Model,
        text: str,
        target: str = "",
        stage: str | None = None,
        title: dict[str, str] | None = None,
        description: dict[str, str] | None = None,
    ) -> AppState:
        """The app state of a model on these sentences (see load_model), traced once."""
        trace = model.trace(text, target or None)
        state = cls(model.config, text, target, trace=trace)
        state._start(trace, text, target, title or EMPTY_TEXTS, description or EMPTY_TEXTS, stage)
        return state

    @property
    def config(self) -> ModelConfig:
        return self.model.config

    @property
    def head(self) -> int:
        return self.display.head

    @property
    def row(self) -> int:
        return self.display.row

    @property
    def view(self) -> ShownTrace:
        """The trace as the window steps through it: its stages, then the loss and the backward pass (for a
        model with an output head; their gradients are computed when first read, again after each edit)."""
        if self._view is None or self._view.trace is not self.trace:
            self._view = ShownTrace(self.trace)
        return self._view

    @property
    def stage_names(self) -> list[str]:
        return self.view.stage_names

    @property
    def current_stage(self) -> str:
        return self.stage_names[self.cursor]

    def changed(self, name: str) -> np.ndarray | None:
        """Boolean mask of the cells the last edit changed in `name` (None when it did not touch it), in numpy: a
        table reads it at every edit, and each torch operation on a small tensor costs several times numpy's."""
        before = self.previous.get(name)
        if before is None or before.shape != self.trace[name].shape:
            return None
        old, now = before.numpy(), self.trace[name].numpy()
        same = old == now
        if old.dtype.kind == "f":
            same |= np.isnan(old) & np.isnan(now)
        return ~same

    def difference(self, name: str) -> torch.Tensor | None:
        before = self.previous.get(name)
        if before is None or before.shape != self.trace[name].shape:
            return None
        return self.trace[name] - before

    # ---- building ---------------------------------------------------------------------------
    def _rebuild(self, model: Model, text: str, target: str) -> str:
        """Run the model on the sentences and make it the lesson; returns the refusal ("" when it worked)."""
        try:
            trace = model.trace(text, target or None)
        except EngineError as exc:
            self.message.emit(str(exc))
            return str(exc)
        fresh_model = model is not self.model
        self.model, self.trace, self.text, self.target = model, trace, text, target
        self.cursor = min(self.cursor, len(self.stage_names) - 1)
        self.display.follow_lesson(min(self.head, model.config.n_heads - 1), 0)
        self.previous = {}
        self.undo_stack.clear()
        self.generated_tokens = 0
        self.lessonChanged.emit()
        self.rebuilt.emit(fresh_model)
        self.cursorChanged.emit(self.cursor)
        return ""

    def _extend_original_params(self) -> None:
        """New words grew W_E (and W_U, b_U): their fresh seeded rows become part of the lesson's own weights."""
        for name, now in self.trace.params.items():
            old = self.original_params.get(name)
            if old is not None and old.shape != now.shape:
                merged = now.clone()
                merged[tuple(slice(0, n) for n in old.shape)] = old
                self.original_params[name] = merged

    def set_sentences(self, text: str, target: str = "") -> bool:
        """Retokenize and recompute; an empty or too long sentence is explained and changes nothing."""
        problem = self._rebuild(self.model, text, target)
        if not problem:
            self._extend_original_params()
        self._set_problem(problem)
        return not problem

    def _set_problem(self, problem: str) -> None:
        if problem != self.problem:
            self.problem = problem
            self.problemChanged.emit(problem)

    def set_config(self, config: ModelConfig | dict) -> bool:
        """Rebuild the lesson with new settings (fresh seeded weights); invalid settings change nothing."""
        try:
            cfg = config if isinstance(config, ModelConfig) else ModelConfig.from_dict(config)
        except EngineError as exc:
            self.message.emit(str(exc))
            return False
        model = Model.create(cfg)
        target = self.target if cfg.architecture == "encoder-decoder" else ""
        if self._rebuild(model, self.text, target):
            return False
        self.original_params = dict(self.model.params)  # shared: a weight is replaced, never changed in place
        return True

    def load_lesson(self, lesson: Lesson, trace: Trace | None = None) -> None:
        """Make a lesson the current one: its model, sentences, pinned stages, stage and texts (the undo
        history starts afresh); `trace` is lesson.trace() when the caller has it. Raises EngineError, changing
        nothing, when the lesson cannot be traced."""
        trace = trace if trace is not None else lesson.trace()
        self._start(
            trace,
            lesson.text,
            lesson.target,
            lesson.title,
            lesson.description,
            lesson.stage,
            lesson.views,
            lesson.lab,
            lesson.show,
        )

    def load_model(
        self,
        model: Model,
        text: str,
        target: str = "",
        stage: str | None = None,
        title: dict[str, str] | None = None,
        description: dict[str, str] | None = None,
    ) -> None:
        """Make any model (trained, a checkpoint with its own tokenizer, fresh random weights) the lesson, on
        these sentences, at `stage` (None: the first); the undo history starts afresh. Raises EngineError,
        changing nothing, when the sentences cannot be traced."""
        self._start(
            model.trace(text, target or None), text, target, title or EMPTY_TEXTS, description or EMPTY_TEXTS, stage
        )

    def _start(
        self,
        trace: Trace,
        text: str,
        target: str,
        title: dict,
        description: dict,
        stage: str | None,
        views: tuple[str, ...] = (),
        lab: str | None = None,
        show: dict | None = None,
    ) -> None:
        self.model, self.trace, self.text, self.target = trace.model, trace, text, target
        self.title, self.description, self.views, self.lab = dict(title), dict(description), tuple(views), lab
        self.show = dict(show or {})
        self.original_params = dict(self.model.params)  # shared: a weight is replaced, never changed in place
        self.cursor = self.stage_names.index(stage) if stage in self.stage_names else 0
        row = self._last_row() if self.show.get("row") == "last" else self.show.get("row", 0)
        # the lesson's numbers may need their own decimals (View ▸ Decimals can change them)
        self.display.follow_lesson(self.show.get("head", 0), row, self.show.get("decimals"))
        self.previous = {}
        self.undo_stack.clear()
        self.generated_tokens = 0
        self._set_problem("")
        self.lessonChanged.emit()
        self.cursorChanged.emit(self.cursor)

    @property
    def not_savable(self) -> str:
        """Why the lesson cannot be written to a lesson file ("" when it can): a checkpoint's tokenizer
        cannot be stored in one yet."""
        if self.model.tokenizer is None:
            return ""
        return QCoreApplication.translate(
            "AppState",
            "This model was opened from a checkpoint folder. A lesson file cannot hold its tokenizer "
            "yet, so it cannot be saved; open the folder again with Model ▸ Open model ▸ Checkpoint folder… "
            "(figures and slides can still be exported).",
        )

    def to_lesson(self, lang: str = "en") -> Lesson:
        """The lesson as it stands now, for saving. It holds the live tensors, not copies: the engine
        replaces a tensor on every edit and never changes one in place, so this is a snapshot.
        Raises EngineError when it cannot be saved (see not_savable)."""
        if self.not_savable:
            raise EngineError(self.not_savable)
        return Lesson(
            config=self.config,
            text=self.text,
            target=self.target,
            params=dict(self.trace.params),
            vocabularies={s: list(v.tokens) for s, v in self.model.vocabs.items()},
            overrides=dict(self.trace.overrides),
            stage=self.forward_stage(),
            lang=lang,
            title=dict(self.title),
            description=dict(self.description),
            views=self.views,
            lab=self.lab,
            show=self._show_now(),
        )

    def _last_row(self) -> int:
        """The last token of the sentence the output rows belong to (the decoder's, when there is one)."""
        return len(self.trace.tokens["dec" if "dec" in self.config.stacks else "enc"]) - 1

    def _show_now(self) -> dict:
        """The lesson's `show` with the head and row as they are now; a row still on the last token stays "last"."""
        show = {**self.show, "head": self.head, "row": self.row}
        if self.show.get("row") == "last" and self.row == self._last_row():
            show["row"] = "last"
        return {k: v for k, v in show.items() if v != 0 or k in self.show}

    def forward_stage(self, name: str | None = None) -> str:
        """The current stage (or `name`, a stage of the stepped view) as the forward pass knows it (a lesson file
        records it, the docks show it): on a backward stage ∂L/∂X, the stage X; on the loss, `probs`, the last stage
        of the forward pass."""
        names = self.trace.stage_names
        name = self.current_stage if name is None else name
        forward = forward_of(name) if is_backward(name) else name
        return forward if forward in names else "probs"

    # ---- stepping ---------------------------------------------------------------------------
    def set_cursor(self, index: int) -> None:
        index = max(0, min(index, len(self.stage_names) - 1))
        if index != self.cursor:
            self.cursor = index
            self.cursorChanged.emit(index)

    def go_to(self, name: str) -> None:
        self.set_cursor(self.stage_names.index(name))

    def step(self, delta: int) -> None:
        self.set_cursor(self.cursor + delta)

    def set_head(self, head: int) -> None:
        """Show another attention head (kept within the model's heads); the display settings tell the views."""
        self.display.set(head=max(0, min(head, self.config.n_heads - 1)))

    def set_row(self, row: int) -> None:
        self.display.set(row=max(0, row))

    # ---- editing ----------------------------------------------------------------------------
    def edit_cell(self, name: str, index: tuple[int, ...], text_or_value) -> bool:
        """Validate and apply a cell edit through the undo stack; a refused value changes nothing."""
        try:
            value = check_value(text_or_value)
            if name not in self.trace:
                raise EngineError(f"no stage or parameter named {name!r}")
            if name not in self.trace.params and not torch.isfinite(self.trace[name]).all():
                # (pinning it would pin its overflowed cells too: a lesson that could not be saved or autosaved)
                raise EngineError(
                    self.tr(
                        "{0} holds values that overflowed, so it cannot be pinned: edit the weights before it"
                    ).format(name)
                )
            command = EditCellCommand(self, name, tuple(index), value)
        except (EngineError, IndexError) as exc:
            self.message.emit(str(exc))
            return False
        if command.old_value == float(self.trace[name].numpy().dtype.type(value)):
            return True  # the same number (as stored): not an edit
        self.undo_stack.push(command)
        return True

    def take_training_step(self, lr: float) -> bool:
        """One step of gradient descent on this sentence's loss, as one undoable command; the status bar says
        the loss before and after. A model without an output head or a bad learning rate changes nothing."""
        return commands.take_training_step(self, lr)

    def retranslate_history(self) -> None:
        """The undo history's texts in the language just installed (Edit ▸ Undo names the change in it)."""
        for i in range(self.undo_stack.count()):
            self.undo_stack.command(i).retranslate()

    def reset_weights(self) -> None:
        """Return to the lesson's own weights (undoable)."""
        self.undo_stack.push(commands.reset_weights_command(self))

    # ---- what-if switches and generated tokens (undoable; gui/state/commands.py) -----------------
    def set_switch(self, switch: str, on: bool) -> bool:
        """Turn a "what if" switch (e.g. "no_scale") on or off; the weights stay. Refusals change nothing."""
        return commands.set_switch(self, switch, on)

    def set_modern_step(self, step: int) -> bool:
        """Move the model to step `step` of 2017 → today (engine.modernise: 0 the 2017 block … 6 today's), the
        weights it shares kept (undoable; gui/state/modernise.py). Refusals change nothing."""
        return modernise.set_step(self, step)

    def append_token(self, token_id: int, choice=None) -> bool:
        """Append a token of the decoder's vocabulary to the decoder's sentence (a generated token; `choice`: how
        it was chosen, kept with the undoable step)."""
        return commands.append_token(self, token_id, choice)

    def show_trace(
        self,
        trace: Trace,
        text: str,
        target: str,
        stage: str,
        row: int,
        previous: dict[str, torch.Tensor] | None = None,
    ) -> None:
        """Make another trace of this lesson current without clearing the undo stack (used by undoable
        switches and generated tokens); the cursor goes to `stage`, the selected row to `row`."""
        self.model, self.trace, self.text, self.target = trace.model, trace, text, target
        names = self.stage_names
        self.cursor = names.index(stage) if stage in names else min(self.cursor, len(names) - 1)
        self.display.follow_lesson(self.head, row)
        self.previous = previous or {}
        self.lessonChanged.emit()
        self.cursorChanged.emit(self.cursor)

    def apply_change(self, change, edited: str | None) -> None:
        """Run an engine change (`change(trace)` returns the names it recomputed), remember the values before it,
        and tell the views what moved: how the undo commands (gui/state/commands.py) change the lesson."""
        before = {name: tensor for name, tensor in self.trace.values.items()}
        before.update(self.trace.params)
        try:
            recomputed = change(self.trace)
        except EngineError as exc:
            self.message.emit(str(exc))
            return
        touched = set(recomputed) | ({edited} if edited else set())
        self.previous = {n: before[n] for n in touched if n in before}
        self._view = None  # the loss and the gradients are read afresh (when a backward stage is shown)
        backward, order = self._names_of_trace()
        self.traceEdited.emit(sorted(touched | backward, key=lambda name: order.get(name, -1)))

    def _names_of_trace(self) -> tuple[set[str], dict[str, int]]:
        """The loss and every gradient (an edit anywhere changes them all), and each stage's place in the stepping
        order; kept for the trace (an edit changes neither)."""
        if self._trace_names[0] is not self.trace:
            extra = self.view.extra
            backward = set(extra) | ({f"grad.{p}" for p in self.trace.params} if extra else set())
            self._trace_names = (self.trace, backward, {name: i for i, name in enumerate(self.stage_names)})
        return self._trace_names[1:]
