"""Generate the next token, one at a time: temperature, top-k, greedy or sampled with a seed.

"Generate next token" moves the cursor to the output probabilities, chooses a token from the last position's
distribution (the engine's next_token_distribution and choose; draw t of a sentence uses seed + t, as
engine.generate does) and appends it through the app state (undoable). The window then stands on the new
position's probabilities; "Step through the new token" goes back to the decoder's input so the class can
follow the new position through every stage.

The temperature is the display settings' one: this panel's box and the stage view's slider over the output bars
are the same number.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QButtonGroup,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QRadioButton,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine import EngineError
from engine.generate import MAX_TEMPERATURE, MIN_TEMPERATURE, choose, next_token_distribution
from engine.graph import tokens_of
from engine.tokenizer import END
from gui.plots.kv_cache import Choice, ChoicePanel, choice_title
from gui.plots.view import FigureCache, FittedLayoutWidget
from gui.state import display
from gui.state.app_state import AppState
from gui.state.commands import AppendTokenCommand
from gui.text.live_texts import LiveTexts
from gui.views.lazy_view import on_screen
from gui.views.steady_label import SteadyLabel


def producing_command(state: AppState) -> AppendTokenCommand | None:
    """The append that made the current trace (None when its last token was typed, not generated)."""
    stack = state.undo_stack
    command = stack.command(stack.index() - 1) if stack.index() > 0 else None
    if isinstance(command, AppendTokenCommand) and command.after.trace is state.trace:
        return command
    return None


class GenerationPanel(QWidget):
    def __init__(self, state: AppState, parent=None):
        # (Over 60 lines: the widgets are built in the order they stand on screen, one flat sequence.)
        super().__init__(parent)
        self.state, self.settings = state, state.display
        self.texts = texts = LiveTexts()  # what a language switch sets again

        self.generate_action = QAction(self)
        texts.set(self.generate_action.setText, lambda: self.tr("Generate next token"))
        self.generate_action.setShortcut(QKeySequence("Ctrl+G"))
        texts.set(
            self.generate_action.setToolTip,
            lambda: self.tr("Choose the next token from the output probabilities and append it (Ctrl+G)"),
        )
        self.generate_action.triggered.connect(self.generate)
        self.step_action = QAction(self)
        texts.set(self.step_action.setText, lambda: self.tr("Step through the new token"))
        texts.set(
            self.step_action.setToolTip, lambda: self.tr("Go back to the decoder's input with the new token selected")
        )
        self.step_action.triggered.connect(self.step_new_token)

        self.greedy = QRadioButton(self)
        texts.set(self.greedy.setText, lambda: self.tr("Greedy (most likely)"))
        self.sampled = QRadioButton(self)
        texts.set(self.sampled.setText, lambda: self.tr("Sampled"))
        self.greedy.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.greedy)
        group.addButton(self.sampled)
        self.temperature = QDoubleSpinBox(self)
        self.temperature.setRange(MIN_TEMPERATURE, MAX_TEMPERATURE)
        self.temperature.setDecimals(2)
        self.temperature.setSingleStep(0.1)
        self.temperature.setValue(self.settings.temperature)
        self.top_k = QSpinBox(self)
        self.top_k.setRange(0, 100000)
        texts.set(self.top_k.setSpecialValueText, lambda: self.tr("all"))
        self.seed = QSpinBox(self)
        self.seed.setRange(0, 2**31 - 1)
        self.seed_note = QLabel(self)
        self.seed_note.setStyleSheet("color: #555")
        self.temperature.valueChanged.connect(lambda value: self.settings.set(temperature=value))
        for box in (self.top_k, self.seed):
            box.valueChanged.connect(self.show_choice)
        self.sampled.toggled.connect(self._mode_changed)

        how = QHBoxLayout()
        how.addWidget(self.greedy)
        how.addWidget(self.sampled)
        how.addStretch(1)
        form = QFormLayout()
        form.addRow(how)
        form.addRow(self._label(lambda: self.tr("Temperature T:")), self.temperature)
        form.addRow(self._label(lambda: self.tr("Top-k (0 = all):")), self.top_k)
        seed_row = QHBoxLayout()
        seed_row.addWidget(self.seed)
        seed_row.addWidget(self.seed_note, 1)
        form.addRow(self._label(lambda: self.tr("Seed:")), seed_row)
        buttons = QHBoxLayout()
        for action in (self.generate_action, self.step_action):
            button = QToolButton(self)
            button.setDefaultAction(action)
            button.setToolButtonStyle(Qt.ToolButtonTextOnly)
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.status = SteadyLabel(self)  # it names the token chosen: as tall for "我" as for "<unk>"
        self.status.setTextFormat(Qt.PlainText)  # tokens such as <end> are not tags
        self.plot = FittedLayoutWidget(self)
        self.plot.setMinimumHeight(180)
        self.choice_panel: ChoicePanel | None = None  # built the first time a choice is drawn (shown)
        self.figures = FigureCache(self.plot, limit=2)  # one panel per language: a switch back swaps it in
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        layout.addWidget(self.plot, 1)

        self.stale = True  # what is shown is not the current choice (see show_choice)
        self.appending = False  # generate() is appending its token
        state.lessonChanged.connect(self.show_choice)
        state.traceEdited.connect(self.show_choice)
        self.settings.changed.connect(self._settings_changed)
        self._mode_changed()

    def _label(self, text) -> QLabel:
        label = QLabel(self)
        self.texts.set(label.setText, text)
        return label

    def retranslate(self) -> None:
        """Another language: the fixed texts, and the choice said and drawn in it (its figure holds words)."""
        self.texts.retranslate()
        self.show_choice()

    # ---- settings ---------------------------------------------------------------------------------
    def draw_settings(self) -> tuple[float, int | None, bool, int]:
        """(temperature, top_k or None for all, greedy, the seed of the next draw)."""
        k = self.top_k.value() or None
        return self.settings.temperature, k, self.greedy.isChecked(), self.seed.value() + self.state.generated_tokens

    def _settings_changed(self, names: frozenset[str]) -> None:
        if "temperature" in names:
            self.temperature.blockSignals(True)
            self.temperature.setValue(self.settings.temperature)
            self.temperature.blockSignals(False)
        if names & ({"temperature"} | display.LOOK):
            self.show_choice()

    def _mode_changed(self, *_) -> None:
        self.seed.setEnabled(self.sampled.isChecked())
        self.show_choice()

    def can_generate(self) -> str:
        """Why generation is not possible now ("" when it is)."""
        trace = self.state.trace
        if "probs" not in trace.values:
            return self.tr("Generation needs a decoder: choose a decoder or encoder-decoder model in Settings")
        tokens = trace.tokens["dec"]
        if tokens[-1] == END:
            return self.tr("The sentence has ended with <end>: undo, or type a new sentence")
        if len(tokens) >= trace.config.max_len:
            return self.tr("The sentence is full (max_len = {0} tokens)").format(trace.config.max_len)
        return ""

    # ---- generating -------------------------------------------------------------------------------
    def next_choice(self) -> Choice:
        """What "Generate next token" would choose now."""
        temperature, k, greedy, seed = self.draw_settings()
        probs = next_token_distribution(self.state.trace, temperature, k)
        token_id = choose(probs, greedy, seed)
        after = self.state.trace.tokens["dec"][-1]
        return Choice(self.state.model.vocabs["dec"].tokens[token_id], token_id, probs, greedy, seed, after)

    def generate(self) -> bool:
        """Step to the output probabilities, choose the next token and append it (undoable)."""
        state = self.state
        problem = self.can_generate()
        if problem:
            state.message.emit(problem)
            return False
        try:
            choice = self.next_choice()
        except EngineError as exc:
            state.message.emit(str(exc))
            return False
        state.go_to("probs")
        state.set_row(len(state.trace.tokens["dec"]) - 1)
        self.appending = True  # (the new trace's signals come before the command is on the undo stack)
        try:
            appended = state.append_token(choice.token_id, choice)
        finally:
            self.appending = False
        if appended:
            self.show_choice()
        return appended

    def step_new_token(self) -> None:
        """Go to the decoder's token ids with the newest position selected, to step it through the model."""
        state = self.state
        if tokens_of("dec") in state.stage_names:
            state.go_to(tokens_of("dec"))
            state.set_row(len(state.trace.tokens["dec"]) - 1)

    # ---- showing ----------------------------------------------------------------------------------
    def show_choice(self, *_) -> None:
        """The distribution the newest token was chosen from; before any generation, what would be chosen."""
        self.generate_action.setEnabled("probs" in self.state.trace.values)
        self.step_action.setEnabled(tokens_of("dec") in self.state.stage_names)
        if not on_screen(self):  # a hidden panel (or one tabbed behind another) computes and draws nothing until shown
            self.stale = True
            return
        self.seed_note.setText(
            self.tr("this draw uses seed {0}").format(self.draw_settings()[3]) if self.sampled.isChecked() else ""
        )
        if self.appending:  # generate() shows its choice once the token is appended, not what would come next
            return
        self.stale = False
        command = producing_command(self.state)
        made = command.choice if command is not None else None
        problem = self.can_generate()
        if made is not None:  # what comes next: more tokens, or why not (it ended with <end>, it is full)
            if problem:
                self.status.setText(self.tr("Generated “{0}”.").format(made.token) + f"\n{problem}")
            else:
                self.status.setText(
                    self.tr("Generated “{0}”. Generate again, or step through the new token.").format(made.token)
                )
            self._draw(made)
            return
        if problem:
            self.status.setText(problem)
            self.plot.hide()
            return
        try:
            preview = self.next_choice()
        except EngineError as exc:
            self.status.setText(str(exc))
            self.plot.hide()
            return
        self.status.setText(self.tr("“Generate next token” would choose “{0}”.").format(preview.token))
        self._draw(preview)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.in_sight()

    def in_sight(self) -> None:
        """Shown, or its dock's tab chosen: the choice drawn if it changed meanwhile."""
        if self.stale:
            self.show_choice()

    def _draw(self, choice: Choice) -> None:
        self.plot.show()
        opts = self.settings.plot_options()
        self.choice_panel = self.figures.show(opts.lang, lambda layout: ChoicePanel(layout, opts))
        self.choice_panel.set(
            self.state.model.vocabs["dec"].tokens, choice, opts, choice_title(choice, opts.lang, opts.decimals)
        )
        self.plot.settle()  # laid out now and painted once, finished
