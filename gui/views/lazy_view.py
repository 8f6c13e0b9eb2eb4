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

    def schedule(self, *_) -> None:
        if self.isVisible():
            self.timer.start()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.schedule()
