"""A seeded random walk through the real window, as a restless user would drive it: steps, jumps, heads,
good and bad cell values, sentences (empty, 300 tokens, emoji, control characters, too long targets),
what-if switches, generation and its undo, language, display settings (the text size and presentation mode build
the window anew), every dock, the training lab (run, pause, stop, step through its model: its run goes on through
every rebuild), training steps at every learning rate, other lessons and models, undo, redo, Reset weights,
pauses (the window idle, drawing the figures beside the cursor ahead), and the docks' own controls: the overview's
thumbnails (clicked, pointed at), metric and sorting, the neuron view's key chips, the logit lens's cells, and
2017 → today's Next, Back and steps (some undone at once, which must return exactly to where it was).

Every action goes through what a user touches (the menus' actions, the sentence boxes and Enter, the stage
list, the head box, a table's cell editor, the lab's buttons, the mouse on a thumbnail, chip or cell); the walk
fails on the first exception raised anywhere (Qt slots included) and on a weight that is not finite after any
action, and `undo_all` checks that undoing everything returns every parameter, stage override and sentence to the
start exactly. Used by tests/test_gui_random_walk.py (a few dozen actions per lesson),
tests/test_gui_features_meet.py (the short walk through every feature) and tests/random_walk.py (thousands, each
walk in a process of its own).
"""

from __future__ import annotations

import random
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from engine.formats.lesson import shipped_lessons
from gui.lesson.controller import LessonController
from gui.views import prefetch
from gui.views.stage_list import NAME_ROLE

CELL_VALUES = [
    "0.5",
    "-1.25",
    "3",
    "0",
    "−0.75",
    "1e3",
    "2.5e-3",
    "abc",
    "",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "1e300",
    "-2e6",
    "1,5",
    "0x10",
    " 7 ",
    "1e-320",
]
LEARNING_RATES = [0.0001, 0.01, 0.1, 1.0, 10.0, 100.0]  # 100: the box's largest
MODELS = ["classroom", "classroom", "toy", "lm"]  # the model picker's choices a walk opens (with either architecture)
ODD_SENTENCES = ["", "   ", "🙂 🚀 AI", "I\tlove\x00AI\x1b", "我 爱 😀", "\u200b", "a\nb", "é ü ß"]


class WalkFailure(AssertionError):
    pass


@dataclass
class Start:
    """What undoing everything must bring back: the weights, pinned stages and sentences."""

    params: dict[str, torch.Tensor]
    overrides: dict[str, torch.Tensor]
    text: str
    target: str

    @classmethod
    def of(cls, state) -> Start:
        return cls(dict(state.trace.params), dict(state.trace.overrides), state.text, state.target)

    def differences(self, state) -> list[str]:
        now = Start.of(state)
        out = [
            f"{what} {a!r} != {b!r}"
            for what, a, b in (("text", self.text, now.text), ("target", self.target, now.target))
            if a != b
        ]
        for kind, mine, theirs in (("param", self.params, now.params), ("override", self.overrides, now.overrides)):
            if mine.keys() != theirs.keys():
                out.append(f"{kind} names differ: {sorted(mine.keys() ^ theirs.keys())}")
            out += [f"{kind} {n} differs" for n in mine.keys() & theirs.keys() if not torch.equal(mine[n], theirs[n])]
        return out


@dataclass
class Walker:
    controller: LessonController
    rng: random.Random
    words: list[str]  # words the lesson knows, for good sentences
    history: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    trace_actions: bool = False  # print each action before its events run (a crash then shows what did it)

    def __post_init__(self):
        self.start = Start.of(self.state)
        self.actions: list[tuple[int, Callable[[], str]]] = [
            (12, self.step),
            (6, self.jump),
            (6, self.head),
            (10, self.edit_cell),
            (2, self.edit_bad_cell),
            (4, self.sentence),
            (2, self.odd_sentence),
            (3, self.switch),
            (3, self.generate),
            (1, self.language),
            (2, self.display),
            (3, self.dock),
            (6, self.undo),
            (3, self.redo),
            (1, self.reset_weights),
            (1, self.difference),
            (1, self.undo_and_redo_everything),
            (2, self.pause),
            (2, self.lab),
            (2, self.training_step),
            (1, self.presentation),
            (1, self.other_lesson),
            (2, self.overview),
            (2, self.neuron),
            (2, self.lens),
            (3, self.modernise),
        ]
        self.slowest = (0.0, "")  # the slowest action: seconds, what it did
        self.rebuilds_while_training = 0  # windows built anew or translated while the training lab ran

    # ---- the window as it is now (a language or display change builds a new one) -------------------
    @property
    def window(self):
        return self.controller.window

    @property
    def state(self):
        return self.controller.state

    # ---- running --------------------------------------------------------------------------------------
    def run(self, n: int, progress: Callable[[int], None] | None = None) -> None:
        hook, sys.excepthook = sys.excepthook, self._record
        try:
            for i in range(n):
                self.act()
                if progress is not None:
                    progress(i + 1)
            self.undo_all()
        finally:
            sys.excepthook = hook

    def act(self) -> None:
        weights, actions = zip(*self.actions)
        action = self.rng.choices(actions, weights)[0]
        state = self.state
        where = f"{len(self.history)}: (at {state.current_stage}, head {state.head}, {self.controller.lang}) "
        self.history.append(where + action.__name__ + " …")
        started, window, lang = time.perf_counter(), self.window, self.controller.lang
        self.history[-1] = where + action()
        if (self.window, self.controller.lang) != (window, lang) and self.state.lab_run.running:
            self.rebuilds_while_training += 1
        if self.trace_actions:
            print(self.history[-1], flush=True)
        settle()
        self.slowest = max(self.slowest, (time.perf_counter() - started, self.history[-1]))
        if self.errors:
            raise WalkFailure(self.report("an exception was raised"))
        bad = [name for name, value in self.state.model.params.items() if not torch.isfinite(value).all()]
        if bad:
            raise WalkFailure(self.report(f"weights are not finite: {bad[:5]}"))

    def _record(self, kind, value, tb) -> None:
        self.errors.append("".join(traceback.format_exception(kind, value, tb)))

    def report(self, what: str) -> str:
        recent = "\n".join(self.history[-25:])
        return f"{what} after {len(self.history)} actions; the last ones:\n{recent}\n\n" + "\n".join(self.errors)

    def undo_all(self) -> None:
        """Undo everything (Edit ▸ Undo until it is greyed out): the start, exactly."""
        while self.window.undo_action.isEnabled():
            self.window.undo_action.trigger()
            settle()
        if self.errors:
            raise WalkFailure(self.report("an exception was raised while undoing everything"))
        differences = self.start.differences(self.state)
        if differences:
            raise WalkFailure(
                self.report("undoing everything did not return to the start: " + "; ".join(differences[:10]))
            )

    def undo_and_redo_everything(self) -> str:
        """Undo all (the start, exactly), then redo as much (where the walk was, exactly)."""
        now, index = Start.of(self.state), self.state.undo_stack.index()
        self.undo_all()
        while self.state.undo_stack.index() < index:  # what was undone before stays undone
            self.window.redo_action.trigger()
            settle()
        differences = now.differences(self.state)
        if differences:
            raise WalkFailure(
                self.report("redoing everything did not return to where the walk was: " + "; ".join(differences[:10]))
            )
        return "undo everything, redo everything"

    def _new_start_if_history_cleared(self) -> None:
        """New sentences start a new history (the undo stack is cleared): the start moves with it."""
        if self.state.undo_stack.count() == 0:
            self.start = Start.of(self.state)

    # ---- actions: each returns what it did -----------------------------------------------------------
    def step(self) -> str:
        stepper = self.window.stepper
        action = self.rng.choice(
            [stepper.next_action] * 4 + [stepper.prev_action] * 3 + [stepper.first_action, stepper.last_action]
        )
        action.trigger()
        return f"step: {action.text()}"

    def jump(self) -> str:
        stage_list = self.window.stage_list
        leaf = self.rng.choice(stage_list.leaves)
        name = leaf.data(NAME_ROLE)
        stage_list.tree.clicked.emit(leaf.index())
        return f"jump to {name}"

    def head(self) -> str:
        box = self.window.stage_view.controls.head_box
        head = self.rng.randrange(max(box.count(), 1))
        box.setCurrentIndex(head)
        box.activated.emit(head)
        return f"head {head}"

    def _editable_panels(self):
        return [
            p
            for p in self.window.stage_view.panels()
            if p.model.editable and p.isVisible() and p.model.rowCount() and p.model.columnCount()
        ]

    def _type_into_cell(self, value: str) -> str:
        panels = self._editable_panels()
        if not panels:
            return "edit: nothing editable here"
        model = self.rng.choice(panels).model
        r, c = self.rng.randrange(model.rowCount()), self.rng.randrange(model.columnCount())
        model.setData(model.index(r, c), value)
        return f"edit {model.slice.name} {model.slice.full_index(r, c)} = {value!r}"

    def edit_cell(self) -> str:
        return self._type_into_cell(f"{self.rng.uniform(-3, 3):.3f}")

    def edit_bad_cell(self) -> str:
        return self._type_into_cell(self.rng.choice(CELL_VALUES))

    def _enter_sentences(self, text: str, target: str | None = None) -> str:
        """Type into the sentence boxes and press Enter; a refused sentence must change nothing."""
        window, state = self.window, self.state
        before, vocab_sizes = Start.of(state), {s: len(v) for s, v in state.model.vocabs.items()}
        window.source.setText(text)
        if target is not None and window.target.isVisible():
            window.target.setText(target)
        window.source.returnPressed.emit()
        refused = bool(state.problem)
        if refused:
            differences = before.differences(state)
            if differences or vocab_sizes != {s: len(v) for s, v in state.model.vocabs.items()}:
                raise WalkFailure(self.report(f"a refused sentence changed the model: {differences[:5]}"))
        self._new_start_if_history_cleared()
        return f"sentence {text[:40]!r} / {(target or '')[:40]!r}: {'refused' if refused else 'ok'}"

    def _good_words(self, n: int) -> str:
        return " ".join(self.rng.choice(self.words) for _ in range(n))

    def sentence(self) -> str:
        target = self._good_words(self.rng.randint(1, 4)) if self.rng.random() < 0.5 else None
        return self._enter_sentences(self._good_words(self.rng.randint(1, 6)), target)

    def odd_sentence(self) -> str:
        kind = self.rng.randrange(4)
        if kind == 0:
            return self._enter_sentences(self._good_words(300))
        if kind == 1:
            return self._enter_sentences(
                self._good_words(3) + " brandnew" + str(self.rng.randrange(99)), self._good_words(300)
            )  # a too long target, with a new source word
        return self._enter_sentences(self.rng.choice(ODD_SENTENCES), self.rng.choice(ODD_SENTENCES + [None]))

    def switch(self) -> str:
        actions = [a for a in self.window.teaching.switches.actions.values() if a.isEnabled()]
        action = self.rng.choice(actions)
        action.trigger()
        return f"what if: {action.text()} → {action.isChecked()}"

    def generate(self) -> str:
        action = self.window.teaching.generation.generate_action
        if self.rng.random() < 0.3:
            action = self.window.teaching.generation.step_action
        if not action.isEnabled():
            return f"{action.text()}: disabled"
        action.trigger()
        return action.text()

    def language(self) -> str:
        menu = self.window.menus["language"]
        action = self.rng.choice([a for a in menu.actions() if a.data()])
        action.trigger()
        return f"language {action.data()}"

    def display(self) -> str:
        menu = self.window.presentation
        choices = [menu.larger, menu.smaller, menu.normal, menu.projector, menu.cb_safe, *menu.decimals.actions()]
        action = self.rng.choice(choices)
        action.trigger()
        return f"display: {action.text()}"

    def dock(self) -> str:
        """Show or hide one of the window's docks (every dock of gui/docks/registry.py)."""
        action = self.rng.choice([dock.toggle for dock in self.window.docks.values()])
        action.trigger()
        return f"dock {action.text()} → {action.isChecked()}"

    def presentation(self) -> str:
        """F5 (in or out of presentation mode) or Esc: a window built anew."""
        menu = self.window.presentation
        action = self.rng.choice([menu.present, menu.present, menu.leave])
        action.trigger()
        return f"presentation: {'Esc' if action is menu.leave else 'F5'}"

    def lab(self) -> str:
        """The training lab's buttons (its dock shown first): Run the chosen experiment or another, Pause/Resume,
        Stop, Step through this model."""
        dock = self.window.lab_dock
        if not dock.isVisible():
            dock.toggleViewAction().trigger()
        lab = dock.widget()
        choice = self.rng.randrange(5)
        if choice == 0 and lab.choice.isEnabled():
            lab.choice.setCurrentIndex(self.rng.randrange(lab.choice.count()))
            return f"lab: choose {lab.choice.currentData()}"
        button = [lab.run_button, lab.pause_button, lab.stop_button, lab.step_through_button][min(choice, 4) - 1]
        if not button.isEnabled():
            return f"lab: {button.text()} disabled"
        text = button.text()
        button.click()
        if button is lab.step_through_button:
            self._new_lesson()
        return f"lab: {text} ({lab.choice.currentData()})"

    def training_step(self) -> str:
        """Model ▸ Take one training step, at a learning rate from the smallest to the box's largest."""
        actions = self.window.training_step
        actions.lr.setValue(self.rng.choice(LEARNING_RATES))
        if not actions.step_action.isEnabled():
            return "training step: disabled"
        actions.step_action.trigger()
        return f"training step at lr {actions.lr.value():g}"

    def other_lesson(self) -> str:
        """Another shipped lesson (Lessons menu), or a model from the model picker."""
        if self.rng.random() < 0.5:
            name = self.rng.choice(shipped_lessons()).name
            self.controller.open_shipped(name)
            what = f"lesson {name}"
        else:
            key = self.rng.choice(MODELS)
            architecture = self.rng.choice(["encoder", "decoder", "encoder-decoder"])
            self.window.model_picker.choose(key, architecture)
            what = f"model {key} ({architecture})"
        self._new_lesson()
        return what

    def _new_lesson(self) -> None:
        """Another lesson or model: its own words, and a new start for undoing everything."""
        self.words = lesson_words(self.state)
        self._new_start_if_history_cleared()

    def _shown_dock_view(self, key: str):
        """The view of dock `key`, the dock shown first (View menu) and drawn; None where it is not in sight (in
        presentation mode a companion may give way to another)."""
        dock = self.window.docks[key]
        if not dock.widget.isVisible():
            dock.toggle.trigger()
            settle()
        return dock.view if dock.view.isVisible() else None

    def overview(self) -> str:
        """Every head at a glance: a click on a thumbnail (the mouse, where it is drawn), the pointer over one, the
        metric that colours the badges, sorting each row by it, or closing the dock."""
        view = self._shown_dock_view("overview")
        if view is None or view.figure is None or not view.figure.grid.rows:
            return "overview: not drawn"
        grid, choice = view.figure.grid, self.rng.randrange(5)
        if choice == 0:
            view.metric_box.setCurrentIndex(self.rng.randrange(view.metric_box.count()))
            return f"overview: colour by {view.chosen_metric()}"
        if choice == 1:
            view.sort_box.setChecked(not view.sort_box.isChecked())
            return f"overview: sort → {view.sort_box.isChecked()}"
        if choice == 2:
            self.window.docks["overview"].toggle.trigger()
            return "overview: closed"
        row, head = self.rng.randrange(len(grid.rows)), self.rng.randrange(grid.n_heads)
        grid.lay_out()
        rects = grid.cells.get((row, grid.column_of(row, head)))
        if rects is None:
            return f"overview: head {row}, {head} not laid out"
        if choice == 3:
            grid.set_pointed((row, head))
            return f"overview: point at row {row} head {head}"
        point = view.grid_view.mapFromScene(grid.mapToScene(rects[0].center()))
        QTest.mouseClick(view.grid_view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
        return f"overview: click row {row} head {head}"

    def neuron(self) -> str:
        """The neuron view: a click on a key's chip, or sorting the dimensions."""
        view = self._shown_dock_view("neuron")
        if view is None or view.cell is None:
            return "neuron: nothing shown"
        if self.rng.random() < 0.25:
            view.sort.setChecked(not view.sort.isChecked())
            return f"neuron: sort → {view.sort.isChecked()}"
        chips = view.keys
        rects = chips.chip_rects(chips.width())
        if not rects:
            return "neuron: no keys"
        key = self.rng.randrange(len(rects))
        QTest.mouseClick(chips, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rects[key].center())
        return f"neuron: key {key}"

    def lens(self) -> str:
        """The logit lens: a click on a cell (the mouse, where it is drawn)."""
        view = self._shown_dock_view("lens")
        if view is None or view.lens is None or not view.table.rowCount() or not view.table.columnCount():
            return "lens: nothing shown"
        table = view.table
        r, c = self.rng.randrange(table.rowCount()), self.rng.randrange(table.columnCount())
        table.scrollToItem(table.item(r, c))
        point = table.visualItemRect(table.item(r, c)).center()
        QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
        return f"lens: cell {r}, {c}"

    def modernise(self) -> str:
        """2017 → today: Next, Back or a click on a step; sometimes undone at once, which must return to exactly
        where it was (weights, pinned stages, sentences and the model's settings)."""
        view = self._shown_dock_view("modernise")
        if view is None:
            return "2017 → today: not in sight"
        before, config, index = Start.of(self.state), self.state.config, self.state.undo_stack.index()
        choice = self.rng.randrange(3)
        if choice < 2:
            button = view.next if choice == 0 else view.back
            if not button.isEnabled():
                return f"2017 → today: {button.text()} disabled"
            button.click()
            what = f"2017 → today: {button.text()}"
        else:
            step = self.rng.randrange(view.steps.count())
            view.steps.itemClicked.emit(view.steps.item(step))
            what = f"2017 → today: step {step}"
        what += f" (step {view.step()})"
        if self.state.undo_stack.index() > index and self.rng.random() < 0.4:
            self.window.undo_action.trigger()
            settle()
            differences = before.differences(self.state)
            if self.state.config != config:
                differences.append("the model's settings differ")
            if differences:
                raise WalkFailure(self.report(f"undoing a 2017 → today step: {'; '.join(differences[:10])}"))
            what += ", undone"
        return what

    def undo(self) -> str:
        action = self.window.undo_action
        text = action.text()
        action.trigger()
        return f"undo ({text})"

    def redo(self) -> str:
        action = self.window.redo_action
        text = action.text()
        action.trigger()
        return f"redo ({text})"

    def reset_weights(self) -> str:
        self.window.reset_action.trigger()
        return "reset weights"

    def pause(self) -> str:
        """The teacher pauses: the event loop waits for input, as the app's does, long enough for the views to
        start drawing the figures beside the cursor ahead (gui/views/prefetch.py)."""
        loop = QEventLoop()
        QTimer.singleShot(prefetch.IDLE_MS + 200, loop.quit)
        loop.exec()
        return "pause"

    def difference(self) -> str:
        action = self.window.stage_view.controls.difference_action
        action.trigger()
        return f"show change → {action.isChecked()}"


def settle() -> None:
    """Let the event loop run what the action queued: deferred deletes, timers at 0 ms, paints."""
    app = QApplication.instance()
    app.processEvents()
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)
    app.processEvents()


def lesson_words(state) -> list[str]:
    """Words of the lesson's own sentences (a model with a fixed vocabulary knows them)."""
    words = (state.text + " " + state.target).split()
    return words or ["I", "love", "AI"]
