"""The "2017 → today" dock: the six changes that turned the 2017 Transformer block into today's decoder block
(engine.modernise), in order, each with who introduced it and when; Back and Next (or a click on a change) move the
model one change at a time through the app state (undoable, the weights kept), and the view says what the change
did and why (gui/text/modernise.py), what the map shows now, and the KV cache's bytes per token."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QCoreApplication, QEvent, QRect, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from engine import Trace, cost
from engine.modernise import STEPS, model_at, step_of
from gui.plots.map import MapFigure
from gui.plots.view import FigureCache, FittedLayoutWidget
from gui.state.app_state import AppState
from gui.text import modernise as texts
from gui.text.live_texts import LiveTexts
from gui.views.lazy_view import LazyView


def title() -> str:
    return QCoreApplication.translate("ModerniseView", "2017 → today")


def wrapped_label(parent: QWidget) -> QLabel:
    label = QLabel(parent)
    label.setWordWrap(True)
    label.setTextFormat(Qt.PlainText)
    return label


def whole_map(layout, trace: Trace, opts) -> MapFigure:
    """The model's map, every box computed, without its captions."""
    figure = MapFigure(layout, trace, opts, ("map",), captions=False)
    figure.show_stage(None)
    return figure


class StepMaps(LazyView):
    """The map before and after the change the model is at, side by side (the boxes without captions, as a deck's
    inset draws them): the map dock gives way to the stage view in a small window and in presentation mode, and the
    change should still be seen on a map. Drawn only while in sight: the map before needs the model one step back."""

    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self.state = state
        self.labels, self.plots, self.figures = [], [], []
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        for column in range(2):
            label = QLabel(self)
            label.setAlignment(Qt.AlignCenter)
            plot = FittedLayoutWidget(self)
            plot.keeps_shrink = False
            plot.setMinimumSize(120, 440)  # the boxes' names legible (the dock scrolls)
            self.labels.append(label)
            self.plots.append(plot)
            self.figures.append(FigureCache(plot, limit=4))  # a step back and forth, in either language
            grid.addWidget(label, 0, column)
            grid.addWidget(plot, 1, column)
        state.lessonChanged.connect(self.schedule)

    def draw(self) -> None:
        step, lang = step_of(self.state.config), self.state.display.lang
        shown = step not in (None, 0)  # (the 2017 block has no change before it)
        for widget in (*self.labels, *self.plots):
            widget.setVisible(shown)
        if not shown:
            return
        trace = self.state.trace
        before = Trace(model_at(trace.model, step - 1), {s: list(t) for s, t in trace.tokens.items()}, dict(trace.ids))
        opts = replace(self.state.display.plot_options(), title=False)
        for k, (shown_trace, side) in enumerate(((before, "before"), (trace, "after"))):
            self.labels[k].setText(texts.side_name(side, lang))
            key = (shown_trace.config, tuple(shown_trace.tokens["dec"] if "dec" in shown_trace.tokens else ()), lang)
            self.figures[k].show(key, lambda layout, t=shown_trace: whole_map(layout, t, opts))


class ModerniseView(QWidget):
    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self.state = state
        self.texts = LiveTexts()  # what a language switch sets again
        self.steps = QListWidget(self)
        self.steps.setFocusPolicy(Qt.NoFocus)  # the arrow keys keep stepping through the stages
        self.steps.setWordWrap(True)
        self.steps.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)  # as tall as its seven steps (fit_steps)
        self.steps.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)
        self.steps.installEventFilter(self)  # its width changed: its wrapped steps' height too
        for _ in range(STEPS + 1):
            self.steps.addItem(QListWidgetItem())
        self.steps.itemClicked.connect(lambda item: state.set_modern_step(self.steps.row(item)))
        self.back, self.next = QPushButton(self), QPushButton(self)
        for button, delta in ((self.back, -1), (self.next, 1)):
            button.setFocusPolicy(Qt.NoFocus)
            button.clicked.connect(lambda _checked=False, d=delta: self._move(d))
        self.texts.set(self.back.setText, lambda: self.tr("◀ Back"))
        self.texts.set(self.next.setText, lambda: self.tr("Next change ▶"))
        self.texts.set(
            self.back.setToolTip, lambda: self.tr("Undo the last change of the block (Ctrl+Z undoes it too)")
        )
        self.texts.set(self.next.setToolTip, lambda: self.tr("Make the next change; the weights stay"))
        self.heading = wrapped_label(self)
        font = self.heading.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.heading.setFont(font)
        self.why = wrapped_label(self)
        self.on_map = wrapped_label(self)
        self.kv = wrapped_label(self)
        buttons = QHBoxLayout()
        buttons.addWidget(self.back)
        buttons.addWidget(self.next)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.steps)
        layout.addLayout(buttons)
        layout.addWidget(self.heading)
        layout.addWidget(self.why)
        layout.addWidget(self.on_map)
        layout.addWidget(self.kv)
        self.maps = StepMaps(state, self)
        layout.addWidget(self.maps, 1)
        # (bound methods: a window rebuilt for a language or presentation mode deletes this view, and its slots go too)
        state.lessonChanged.connect(self.refresh)
        state.display.changed.connect(self._display_changed)
        self.refresh()

    def eventFilter(self, watched, event) -> bool:
        if watched is self.steps and event.type() == QEvent.Type.Resize:
            self.fit_steps()
        return False

    def fit_steps(self) -> None:
        """The list as tall as its steps at this width (they wrap), so that every step shows without scrolling."""
        width = max(self.steps.width() - 2 * self.steps.frameWidth() - 8, 60)
        rows = 0
        for k in range(self.steps.count()):
            item = self.steps.item(k)
            box = QFontMetrics(item.font()).boundingRect(QRect(0, 0, width, 10_000), Qt.TextWordWrap, item.text())
            rows += box.height() + 4
        self.steps.setFixedHeight(rows + 2 * self.steps.frameWidth() + 4)

    def _display_changed(self, names: frozenset[str]) -> None:
        if "lang" in names:
            self.refresh()

    def step(self) -> int | None:
        """The step the model is at (None: its settings are not one of the steps)."""
        return step_of(self.state.config)

    def _move(self, delta: int) -> None:
        step = self.step()
        self.state.set_modern_step(max(0, min(STEPS, (0 if step is None else step) + delta)))

    def retranslate(self) -> None:
        self.texts.retranslate()
        self.refresh()
        self.maps.schedule()

    def refresh(self) -> None:
        lang, step = self.state.display.lang, self.step()
        for k in range(STEPS + 1):
            item = self.steps.item(k)
            item.setText(("✓ " if step is not None and 0 < k <= step else "") + texts.step_name(k, lang))
            font = item.font()
            font.setBold(k == step)
            item.setFont(font)
        self.steps.setCurrentRow(-1 if step is None else step)
        self.back.setEnabled(step != 0)
        self.next.setEnabled(step != STEPS)
        if step is None:
            self.heading.setText(self.tr("This model mixes old and new parts"))
            self.why.setText(
                self.tr("Choose a step in the list to rebuild it as that step: the weights it shares stay.")
            )
            self.on_map.setText("")
        else:
            self.heading.setText(texts.step_name(step, lang))
            self.why.setText(texts.why(step, lang))
            self.on_map.setText(texts.on_map(step, lang))
        self.kv.setText(self.kv_text())
        self.fit_steps()

    def kv_text(self) -> str:
        """The KV cache's bytes per generated token, and what a K and V for every query head would keep."""
        kv = cost.kv_cache(self.state.trace)
        if not kv["per_token_bytes"]:
            return ""
        cfg = self.state.config
        line = self.tr(
            "KV cache: {0} bytes per generated token (2 (K and V) × n_layers {1} × {2} K/V heads × d_k {3} × 4 B), "
            "{4} bytes for the {5} tokens of this sentence"
        ).format(kv["per_token_bytes"], cfg.n_layers, cfg.kv_heads, cfg.d_k, kv["bytes_for_sentence"], kv["tokens"])
        full = kv.get("with_n_heads_per_token_bytes", kv["per_token_bytes"])
        if full != kv["per_token_bytes"]:
            line += "\n" + self.tr("Multi-head → grouped-query: {0} → {1} bytes per token").format(
                full, kv["per_token_bytes"]
            )
        return line
