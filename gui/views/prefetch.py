"""Figures drawn ahead of the teacher: once the window has been left alone for a moment, a view draws the figures of
the stages next to the one shown into its figure cache, so that the next step (→ or ←) swaps in a figure already
built. Building a stage's figure costs tens of milliseconds of pyqtgraph items (a PlotItem alone takes about 10 ms);
showing a built one, a refresh of its numbers."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QAbstractEventDispatcher, QObject, QTimer
from PySide6.QtWidgets import QWidget

from .lazy_view import on_screen

IDLE_MS = 300  # the window left alone this long first: a held arrow key or quick clicks are not slowed down


class Prefetch(QObject):
    """Calls `prepare(stage)` for the stages after and before the cursor once `view` has shown a stage and the
    window has then been left alone for IDLE_MS: each figure only when the event loop has nothing else to do (about
    to wait for input), so that it never delays what an action still draws, and a key pressed meanwhile waits for
    one figure at most. A hidden view prepares nothing."""

    def __init__(self, view: QWidget, state, prepare: Callable[[str], None]):
        super().__init__(view)
        self.view, self.state, self.prepare = view, state, prepare
        self.todo: list[str] = []
        self.waiting = False  # for the event loop to be idle
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self._wait_for_idle)
        self.idle = QTimer(self)  # the next figure, started when the event loop is about to wait
        self.idle.setSingleShot(True)
        self.idle.setInterval(0)
        self.idle.timeout.connect(self._next)
        QAbstractEventDispatcher.instance().aboutToBlock.connect(self._about_to_block)

    def restart(self) -> None:
        """The view has shown a stage: its neighbours' figures are drawn once the window is idle again."""
        self.todo, self.waiting = [], False
        self.idle.stop()
        self.timer.start(IDLE_MS)

    def _wait_for_idle(self) -> None:
        names, cursor = self.state.stage_names, self.state.cursor
        self.todo = [names[i] for i in (cursor + 1, cursor - 1) if 0 <= i < len(names)]
        self.waiting = bool(self.todo)

    def _about_to_block(self) -> None:
        if self.waiting:
            self.waiting = False
            self.idle.start()

    def _next(self) -> None:
        if not self.todo or not on_screen(self.view):
            self.todo = []
            return
        self.prepare(self.todo.pop(0))
        self.waiting = bool(self.todo)
