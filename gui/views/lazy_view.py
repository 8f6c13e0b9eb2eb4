"""A dock's view that redraws only while it is visible, and only once the event loop is idle."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget


class LazyView(QWidget):
    """Subclasses implement draw() and connect the signals that make it stale to schedule(): holding an arrow
    key skips the stages in between, and a hidden dock costs nothing until it is shown."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(0)
        self.timer.timeout.connect(self.draw)

    def draw(self, *_) -> None:
        raise NotImplementedError

    def redraw_on(self, settings, names: set[str]) -> None:
        """Redraw when one of these display settings (gui/state/display.py) changes."""
        self._display_names = frozenset(names)
        settings.changed.connect(self._display_changed)

    def _display_changed(self, changed: frozenset[str]) -> None:
        if changed & self._display_names:
            self.schedule()

    def schedule(self, *_) -> None:
        if self.isVisible():
            self.timer.start()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.schedule()
