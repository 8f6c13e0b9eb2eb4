"""The stepping bar: First / Previous / Next / Last / Play at a chosen pace, and a "stage 7 / 23" counter.

The actions carry the keyboard shortcuts (Right, PageDown, Space forward; Left, PageUp back; Home, End);
the main window puts them in its menu so they work whichever widget has the focus, except while typing.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QLabel, QStyle, QToolButton, QWidget

from gui.state.app_state import AppState
from gui.state.preferences import settings
from gui.text.live_texts import LiveTexts


class StepperBar(QWidget):
    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self.state = state
        self.texts = LiveTexts()  # what a language switch sets again
        self._make_actions(state)
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._advance)
        self.pace = self._make_pace()
        self.counter = QLabel(self)
        font = self.counter.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.counter.setFont(font)

        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        for a in self.actions_in_order:
            button = QToolButton(self)
            button.setDefaultAction(a)
            button.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
            button.setFocusPolicy(Qt.NoFocus)  # Space stays "next stage", never "press this button"
            layout.addWidget(button)
        layout.addWidget(self.pace)
        layout.addStretch(1)
        layout.addWidget(self.counter)
        state.cursorChanged.connect(self._update)
        state.lessonChanged.connect(self._lesson_changed)
        self._update(state.cursor)

    def _action(self, text: Callable[[], str], icon, keys: list, slot) -> QAction:
        action = QAction(self.style().standardIcon(icon), "", self)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.triggered.connect(slot)
        self.texts.set(action.setText, text)
        self.texts.set(action.setToolTip, lambda: with_keys(text(), action))
        return action

    def _make_actions(self, state: AppState) -> None:
        action = self._action
        self.first_action = action(
            lambda: self.tr("First"), QStyle.SP_MediaSkipBackward, [Qt.Key_Home], lambda: state.set_cursor(0)
        )
        self.prev_action = action(
            lambda: self.tr("Previous"),
            QStyle.SP_MediaSeekBackward,
            [Qt.Key_Left, Qt.Key_PageUp],
            lambda: state.step(-1),
        )
        self.next_action = action(
            lambda: self.tr("Next"),
            QStyle.SP_MediaSeekForward,
            [Qt.Key_Right, Qt.Key_PageDown, Qt.Key_Space],
            lambda: state.step(1),
        )
        self.last_action = action(
            lambda: self.tr("Last"),
            QStyle.SP_MediaSkipForward,
            [Qt.Key_End],
            lambda: state.set_cursor(len(state.stage_names) - 1),
        )
        self.play_action = action(lambda: self.tr("Play"), QStyle.SP_MediaPlay, [], self._play_toggled)
        self.play_action.setCheckable(True)
        self.actions_in_order = [
            self.first_action,
            self.prev_action,
            self.next_action,
            self.last_action,
            self.play_action,
        ]

    def _make_pace(self) -> QDoubleSpinBox:
        """Play's seconds on each stage, remembered between sessions."""
        pace = QDoubleSpinBox(self)
        pace.setRange(0.2, 30.0)
        pace.setSingleStep(0.5)
        pace.setDecimals(1)
        self.texts.set(pace.setSuffix, lambda: self.tr(" s per stage"))
        pace.setValue(float(settings().value("stepper/pace", 2.0)))
        self.texts.set(pace.setToolTip, lambda: self.tr("Pace of Play: seconds on each stage"))
        pace.valueChanged.connect(self._pace_changed)
        return pace

    def retranslate(self) -> None:
        self.texts.retranslate()
        self.play_action.setText(self._play_text())  # Play, or Pause while it plays
        self._update(self.state.cursor)

    def _play_text(self) -> str:
        return self.tr("Pause") if self.play_action.isChecked() else self.tr("Play")

    def _lesson_changed(self) -> None:
        self._update(self.state.cursor)

    def _update(self, cursor: int) -> None:
        total = len(self.state.stage_names)
        self.counter.setText(self.tr("stage {0} / {1}").format(cursor + 1, total))
        self.first_action.setEnabled(cursor > 0)
        self.prev_action.setEnabled(cursor > 0)
        self.next_action.setEnabled(cursor < total - 1)
        self.last_action.setEnabled(cursor < total - 1)

    def _play_toggled(self) -> None:
        if self.play_action.isChecked():
            if self.state.cursor >= len(self.state.stage_names) - 1:
                self.state.set_cursor(0)  # Play at the end starts over
            self.timer.start(int(self.pace.value() * 1000))
            self.play_action.setText(self._play_text())
            self.play_action.setIcon(self.style().standardIcon(QStyle.SP_MediaPause))
        else:
            self.stop()

    def stop(self) -> None:
        self.timer.stop()
        self.play_action.setChecked(False)
        self.play_action.setText(self._play_text())
        self.play_action.setIcon(self.style().standardIcon(QStyle.SP_MediaPlay))

    def _advance(self) -> None:
        self.state.step(1)
        if self.state.cursor >= len(self.state.stage_names) - 1:
            self.stop()

    def _pace_changed(self, seconds: float) -> None:
        settings().setValue("stepper/pace", seconds)
        if self.timer.isActive():
            self.timer.setInterval(int(seconds * 1000))


def with_keys(text: str, action: QAction) -> str:
    """ "Next (Right, PgDown, Space)": the keys named in the language shown (Qt's own translations)."""
    keys = ", ".join(k.toString(QKeySequence.NativeText) for k in action.shortcuts())
    return f"{text} ({keys})" if keys else text
