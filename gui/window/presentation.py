"""Presentation mode and the display choices (their actions; the View menu places them, gui/window/menus.py).

F5 turns presentation mode on (Esc leaves it, F5 again too): full screen, the menus, toolbar, sentence row, stage
tree and stepping bar folded into a slim breadcrumb ("Encoder › Block 0 › Self-attention › Softmax"), and type
sized for the back row of the room (gui.state.display.room_scale_for: 25 px text at 1920×1080, in proportion on
other screens), which follows a full-screen window to another screen. Ctrl+= / Ctrl+− make text and numbers
larger or smaller, in either mode (Ctrl+0: normal); a projector-friendly light palette, colour-blind-safe colours
and the decimals the matrices show. A presenter clicker's PageUp / PageDown step through the stages (the stepper's
shortcuts), so a lesson runs from the keyboard alone.

Everything here acts on the display settings; the lesson controller, which listens to them, builds the window
anew for presentation mode and the text size (and gives back the desk's layout on leaving).
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QSizePolicy, QWidget

from gui.state.app_state import AppState
from gui.state.display import DECIMALS, room_scale_for
from gui.text.live_texts import LiveTexts
from gui.text.places import group_path
from gui.views.stage_list import tree_title

TITLE_SCALE = 1.5  # the breadcrumb's last crumb, the stage's title, against the text around it
FOLLOW_DELAY_MS = 300  # a window moved to another screen settles before its type is sized for it


class PresentationMenu(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window, self.settings = window, window.state.display
        settings = self.settings
        self.texts = LiveTexts()  # what a language switch sets again
        action = self._action
        self.present = action(lambda: self.tr("Presentation mode"), ["F5"], self.set_presenting, checkable=True)
        self.leave = QAction(window)
        self.texts.set(self.leave.setText, lambda: self.tr("Leave presentation mode"))
        self.leave.setShortcut(QKeySequence(Qt.Key_Escape))
        self.leave.triggered.connect(lambda: self.set_presenting(False))
        window.addAction(self.leave)  # works without a menu entry (and with the menus hidden)
        self.larger = action(
            lambda: self.tr("Larger text and numbers"),
            ["Ctrl+=", "Ctrl++", QKeySequence.ZoomIn],
            lambda: settings.set(font_scale=settings.next_font_scale(1)),
        )
        self.smaller = action(
            lambda: self.tr("Smaller text and numbers"),
            ["Ctrl+-", QKeySequence.ZoomOut],
            lambda: settings.set(font_scale=settings.next_font_scale(-1)),
        )
        self.normal = action(lambda: self.tr("Normal size"), ["Ctrl+0"], lambda: settings.set(font_scale=1.0))
        self.projector = action(
            lambda: self.tr("Projector palette (light, high contrast)"),
            [],
            lambda on: settings.set(palette="projector" if on else "system"),
            checkable=True,
        )
        self.cb_safe = action(
            lambda: self.tr("Colour-blind-safe colours"),
            [],
            lambda on: settings.set(colormap="cb-safe" if on else "default"),
            checkable=True,
        )
        self.decimals_menu = QMenu(window)
        self.texts.set(self.decimals_menu.setTitle, lambda: self.tr("Decimals in matrices"))
        self.decimals = QActionGroup(self)
        for n in DECIMALS:
            a = self.decimals_menu.addAction(str(n))
            a.setCheckable(True)
            a.setData(n)
            self.decimals.addAction(a)
        self.decimals.triggered.connect(lambda a: settings.set(decimals=a.data()))
        # what the View menu shows of these (gui/window/menus.py places them)
        self.size_actions = [self.present, self.larger, self.smaller, self.normal]
        self.colour_actions = [self.projector, self.cb_safe]
        self.follow = QTimer(self)  # presentation mode's type follows a full-screen window to another screen
        self.follow.setSingleShot(True)
        self.follow.setInterval(FOLLOW_DELAY_MS)
        self.follow.timeout.connect(self._follow_screen)
        settings.changed.connect(self.sync)  # a window that stays (no rebuild) ticks the new choices
        window.state.lessonChanged.connect(self.sync)  # … and the decimals a lesson opens with (follow_lesson)
        self.sync()
        window.resized.connect(self._window_resized)

    def _action(self, text: Callable[[], str], keys, slot, checkable: bool = False) -> QAction:
        action = QAction(self.window)
        self.texts.set(action.setText, text)
        sequences = {QKeySequence(k).toString(): QKeySequence(k) for k in keys}  # once each: ZoomOut is Ctrl+-
        action.setShortcuts(list(sequences.values()))
        action.setCheckable(checkable)
        (action.toggled if checkable else action.triggered).connect(slot)
        return action

    def sync(self, *_) -> None:
        """Tick what is in force now (without acting on it)."""
        for a, on in (
            (self.present, self.settings.presenting),
            (self.projector, self.settings.palette == "projector"),
            (self.cb_safe, self.settings.colormap == "cb-safe"),
        ):
            a.blockSignals(True)
            a.setChecked(on)
            a.blockSignals(False)
        self.leave.setEnabled(self.settings.presenting)
        for a in self.decimals.actions():
            a.setChecked(a.data() == self.settings.decimals)

    def set_presenting(self, on: bool) -> None:
        """Presentation mode on (type sized for this window's screen) or off."""
        size = self.window.screen().geometry().size()
        self.settings.set(presenting=on, room_scale=room_scale_for(size.width(), size.height()) if on else 1.0)
        self.sync()

    def _follow_screen(self) -> None:
        """A full-screen window on a screen of another size (moved to the projector): type for that screen."""
        window, settings = self.window, self.settings
        if not (settings.presenting and window.isVisible() and window.isFullScreen()):
            return
        size = window.screen().geometry().size()
        settings.set(room_scale=room_scale_for(size.width(), size.height()))

    def _window_resized(self) -> None:
        if self.settings.presenting:
            self.follow.start()


class Breadcrumb(QWidget):
    """Presentation mode's one line in place of the stage tree: where the stage sits, in human names
    ("Encoder › Block 0 › Self-attention › Softmax: attention weights", the stage's title last, large), and
    "11 / 27" at the right. The stage's id is in the tooltip only."""

    SEPARATOR = " › "

    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self.state = state
        self.path = QLabel(self)
        self.path.setTextFormat(Qt.RichText)
        self.path.setWordWrap(True)
        self.path.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)  # wraps, never widens the window
        self.counter = QLabel(self)
        self.counter.setStyleSheet("color: #555")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 8, 0)
        layout.addWidget(self.path, 1)
        layout.addWidget(self.counter, 0, Qt.AlignRight | Qt.AlignVCenter)
        state.cursorChanged.connect(self.update_path)
        state.lessonChanged.connect(self.update_path)
        self.update_path()

    def crumbs(self) -> list[str]:
        """The groups the current stage sits in, outermost first, then its title (as the stage tree names them)."""
        trace, name = self.state.view, self.state.current_stage
        return [*group_path(trace, name), tree_title(trace, name, self.state.display.lang)]

    def retranslate(self) -> None:
        self.update_path()

    def update_path(self, *_) -> None:
        *groups, title = self.crumbs()
        size = self.font().pointSizeF() * TITLE_SCALE
        path = "".join(f"{escape(g)}{self.SEPARATOR}" for g in groups)
        self.path.setText(
            f"<span style='color:#555'>{path}</span><b style='font-size:{size:.1f}pt'>{escape(title)}</b>"
        )
        self.path.setToolTip(self.state.current_stage)
        self.counter.setText(f"{self.state.cursor + 1} / {len(self.state.stage_names)}")
