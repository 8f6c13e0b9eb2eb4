"""Presentation mode, in the View menu: full screen (F5; Esc leaves it), text and numbers larger or smaller
for the back row (Ctrl+= / Ctrl+−, Ctrl+0 for normal), a projector-friendly light palette, colour-blind-safe
colours and the decimals the matrices show. A presenter clicker's PageUp / PageDown step through the stages
(the stepper's shortcuts), so a lesson runs from the keyboard alone.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence

from gui.state.display import DECIMALS


class PresentationMenu(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window, self.settings = window, window.state.display
        settings = self.settings
        view = window.menus["view"]
        view.addSeparator()

        def action(text: str, keys, slot, checkable: bool = False) -> QAction:
            a = QAction(text, window)
            sequences = {QKeySequence(k).toString(): QKeySequence(k) for k in keys}  # once each: ZoomOut is Ctrl+-
            a.setShortcuts(list(sequences.values()))
            a.setCheckable(checkable)
            (a.toggled if checkable else a.triggered).connect(slot)
            view.addAction(a)
            return a

        self.full_screen = action(self.tr("Full screen"), ["F5"], self.set_full_screen, checkable=True)
        self.leave = QAction(self.tr("Leave full screen"), window)
        self.leave.setShortcut(QKeySequence(Qt.Key_Escape))
        self.leave.triggered.connect(lambda: self.set_full_screen(False))
        window.addAction(self.leave)  # works in full screen without a menu entry
        self.larger = action(self.tr("Larger text and numbers"), ["Ctrl+=", "Ctrl++", QKeySequence.ZoomIn],
                             lambda: settings.set(font_scale=settings.next_font_scale(1)))
        self.smaller = action(self.tr("Smaller text and numbers"), ["Ctrl+-", QKeySequence.ZoomOut],
                              lambda: settings.set(font_scale=settings.next_font_scale(-1)))
        self.normal = action(self.tr("Normal size"), ["Ctrl+0"], lambda: settings.set(font_scale=1.0))
        view.addSeparator()
        self.projector = action(self.tr("Projector palette (light, high contrast)"), [],
                                lambda on: settings.set(palette="projector" if on else "system"),
                                checkable=True)
        self.cb_safe = action(self.tr("Colour-blind-safe colours"), [],
                              lambda on: settings.set(colormap="cb-safe" if on else "default"),
                              checkable=True)
        decimals = view.addMenu(self.tr("Decimals in matrices"))
        self.decimals = QActionGroup(self)
        for n in DECIMALS:
            a = decimals.addAction(str(n))
            a.setCheckable(True)
            a.setData(n)
            self.decimals.addAction(a)
        self.decimals.triggered.connect(lambda a: settings.set(decimals=a.data()))
        settings.changed.connect(self.sync)  # a window that stays (no rebuild) ticks the new choices
        self.sync()
        window.installEventFilter(self)

    def sync(self, *_) -> None:
        """Tick what is in force now (without acting on it)."""
        full = bool(self.window.windowState() & Qt.WindowFullScreen)
        for a, on in ((self.full_screen, full), (self.projector, self.settings.palette == "projector"),
                      (self.cb_safe, self.settings.colormap == "cb-safe")):
            a.blockSignals(True)
            a.setChecked(on)
            a.blockSignals(False)
        self.leave.setEnabled(full)
        for a in self.decimals.actions():
            a.setChecked(a.data() == self.settings.decimals)

    def set_full_screen(self, on: bool) -> None:
        state = self.window.windowState()
        self.window.setWindowState(state | Qt.WindowFullScreen if on else state & ~Qt.WindowFullScreen)
        self.sync()

    def eventFilter(self, obj, event) -> bool:
        if obj is self.window and event.type() == QEvent.WindowStateChange:
            self.sync()
        return False
