"""The "what if" switches: one checkable action each (undoable through the app state, weights kept), and a view
that shows each switch's effect (gui/plots/whatif.py), one switch at a time, chosen from a list."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox, QLabel, QStackedWidget, QVBoxLayout

from engine import EngineError
from engine.config import SWITCHES
from gui.plots import StageFigure
from gui.plots.captions import plain, sentences
from gui.plots.view import FigureCache, FittedLayoutWidget
from gui.plots.whatif import draw_whatif, whatif_build_key
from gui.state import display
from gui.state.app_state import AppState
from gui.text.switches import switch_name
from gui.views.lazy_view import LazyView


class SwitchActions(QObject):
    """A checkable action per switch, kept in step with the model's config (undo and redo included)."""

    toggledOn = Signal(str)  # a switch the user just turned on

    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self.state = state
        self.actions: dict[str, QAction] = {}
        for key in SWITCHES:
            action = QAction(self)
            action.setCheckable(True)
            action.toggled.connect(lambda on, k=key: self._toggled(k, on))
            self.actions[key] = action
        self.retranslate()
        state.lessonChanged.connect(self.sync)
        self.sync()

    def retranslate(self) -> None:
        """The switches named in the language shown."""
        for key, action in self.actions.items():
            name = switch_name(key, self.state.display.lang)
            action.setText(name)
            action.setToolTip(self.tr("What if: {0} (one click; Ctrl+Z undoes it)").format(name) + f"\n{key}")

    def _toggled(self, key: str, on: bool) -> None:
        if (key in self.state.config.switches) == on:
            return
        if self.state.set_switch(key, on) and on:
            self.toggledOn.emit(key)
        self.sync()  # a refusal unticks it again

    def sync(self) -> None:
        cfg = self.state.config
        for key, action in self.actions.items():
            action.blockSignals(True)
            action.setChecked(key in cfg.switches)
            action.blockSignals(False)
        self.actions["no_mask"].setEnabled("dec" in cfg.stacks)


class WhatIfView(LazyView):
    """One switch at a time (a list of the five by name, as the toolbar names them: five tabs did not fit a dock
    beside the stage view): what it does, said in a line and drawn for this model and sentence."""

    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self.state, self.settings = state, state.display
        self.figure: StageFigure | None = None
        self.choice = QComboBox(self)
        self.choice.setFocusPolicy(Qt.NoFocus)  # the arrow keys keep stepping through the stages
        self.pages = QStackedWidget(self)
        self.plots: dict[str, FittedLayoutWidget] = {}
        self.figures: dict[str, FigureCache] = {}  # each switch's figures, by what they were built for and the language
        for key in SWITCHES:
            self.plots[key] = FittedLayoutWidget(self)
            self.figures[key] = FigureCache(self.plots[key], limit=2)
            self.pages.addWidget(self.plots[key])
            self.choice.addItem("", key)
        self._name_switches()
        self.explanation = QLabel(self)
        self.explanation.setWordWrap(True)
        self.explanation.setTextFormat(Qt.PlainText)
        font = self.explanation.font()
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.explanation.setFont(font)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        self.note = QLabel(self)  # what the figure shows, in words (long lines would widen the figure)
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.PlainText)
        layout.addWidget(self.choice)
        layout.addWidget(self.explanation)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.note)
        self.choice.currentIndexChanged.connect(self.pages.setCurrentIndex)
        self.choice.currentIndexChanged.connect(self.schedule)
        for signal in (state.lessonChanged, state.traceEdited):
            signal.connect(self.schedule)
        self.redraw_on(self.settings, {"head", "row"} | display.LOOK)

    def _name_switches(self) -> None:
        for i, key in enumerate(SWITCHES):
            self.choice.setItemText(i, switch_name(key, self.settings.lang))
            self.choice.setItemData(i, key, Qt.ToolTipRole)

    def retranslate(self) -> None:
        """Another language: the switches' names, and each switch's figure in that language when next drawn (they
        hold words)."""
        self._name_switches()
        self.schedule()

    def switch(self) -> str:
        return SWITCHES[self.choice.currentIndex()]

    def show_switch(self, key: str) -> None:
        self.choice.setCurrentIndex(SWITCHES.index(key))
        self.schedule()

    def draw(self) -> None:
        """The current tab's figure (the others are drawn when chosen)."""
        key, trace = self.switch(), self.state.trace
        on = key in trace.config.switches
        lang = self.settings.lang
        self.explanation.setText(
            sentences(lang, plain(f"explain_{key}", lang), plain("switch_on" if on else "switch_off", lang))
        )
        self.explanation.setStyleSheet("" if on else "color: #555")
        opts = self.settings.plot_options()
        try:  # a figure that fits this trace (and speaks the language): new numbers only
            self.figure = self.figures[key].show(
                (whatif_build_key(trace, key), lang),
                lambda layout: draw_whatif(layout, trace, key, opts),
                lambda figure: figure.refresh(trace, opts),
            )
        except EngineError as exc:
            self.figure = None
            self.explanation.setText(str(exc))
            return
        self.note.setText(self.figure.panels[0].note)
