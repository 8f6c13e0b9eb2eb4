"""Autosave: after every change the lesson is written to the recovery file (engine.recovery), so that after
a crash or a `kill -9` the next start can offer it back.

A classroom-sized model is written at once, inside the signal that announced the change, before the window
repaints: by the time a new number shows, it is on disk (a write takes milliseconds). A large model (a real
checkpoint: tens of MB, a second to write) is written by a worker thread so the window never stalls; the
newest state follows as soon as the previous write is done, so at most the last write's worth of changes
(about a second) can be lost to a `kill -9`.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from PySide6.QtCore import QObject, Signal

from engine import EngineError
from engine.lesson import Lesson
from engine.recovery import clear_recovery, write_recovery

SYNC_LIMIT_BYTES = 8 * 2**20  # larger models are written in the background


def lesson_bytes(lesson: Lesson) -> int:
    return sum(t.numel() * t.element_size() for t in [*lesson.params.values(), *lesson.overrides.values()])


class Autosaver(QObject):
    failed = Signal(str)  # the recovery file could not be written (a full disk, no permission)
    _written = Signal()  # from the worker thread; delivered in the window's thread

    def __init__(self, snapshot: Callable[[], Lesson], parent: QObject | None = None):
        super().__init__(parent)
        self.snapshot = snapshot
        self.paused = False  # while a lesson is being opened (it is already saved somewhere)
        self.pending = False  # a change arrived while the worker was writing
        self.future: Future | None = None
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="autosave")
        self._written.connect(self._after_write)

    def changed(self) -> None:
        """Call after every change of the lesson."""
        if self.paused:
            return
        lesson = self.snapshot()
        if self.future is None and lesson_bytes(lesson) <= SYNC_LIMIT_BYTES:
            self._write(lesson)
        else:
            self.pending = True
            self._start()

    def flush(self) -> None:
        """Wait until everything changed so far is on disk."""
        if self.future is not None:
            self.future.result()
            self.future = None
        if self.pending:
            self.pending = False
            self._write(self.snapshot())

    def clear(self) -> None:
        """Forget the autosave (after a save, or when closing without unsaved edits)."""
        self.pending = False
        if self.future is not None:
            self.future.result()
            self.future = None
        clear_recovery()

    def close(self) -> None:
        self.pool.shutdown(wait=True)

    def _start(self) -> None:
        if self.future is None and self.pending:
            self.pending = False
            self.future = self.pool.submit(self._write_in_background, self.snapshot())

    def _write_in_background(self, lesson: Lesson) -> None:
        try:
            self._write(lesson)
        finally:
            self._written.emit()

    def _write(self, lesson: Lesson) -> None:
        try:
            write_recovery(lesson)
        except EngineError as exc:
            self.failed.emit(str(exc))

    def _after_write(self) -> None:
        if self.future is not None and self.future.done():
            self.future = None
            self._start()
