"""A dock's view that redraws only while it is in sight, and only once the event loop is idle."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QTimer
from PySide6.QtWidgets import QWidget


def on_screen(widget: QWidget) -> bool:
    """Shown and inside its window. A dock tabbed behind another stays visible to Qt, moved out of the window
    (above and left of it); Qt emits the dock's visibilityChanged(True) when it moves it back, its tab chosen."""
    if not widget.isVisible():
        return False
    window = widget.window()
    return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size()).intersects(window.rect())


class LazyView(QWidget):
    """Subclasses implement draw() and connect the signals that make it stale to schedule(): holding an arrow
    key skips the stages in between, and a hidden dock, or one tabbed behind another, costs nothing until it is
    shown (its dock calls in_sight() when its tab is chosen)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(0)
        self.timer.timeout.connect(self._due)
        self.pending = False  # something changed while out of sight: drawn when next in sight

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

    def _due(self) -> None:
        self.pending = not on_screen(self)
        if not self.pending:
            self.draw()

    def in_sight(self) -> None:
        """Its dock came into sight, its tab chosen: drawn if it missed a change."""
        if self.pending:
            self.schedule()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.schedule()
