"""The busy cursor around long work: restored however the work ends, a refusal or an unexpected error alike."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication


@contextmanager
def busy_cursor() -> Iterator[None]:
    QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    try:
        yield
    finally:
        QApplication.restoreOverrideCursor()


@contextmanager
def busy_until_drawn() -> Iterator[None]:
    """The busy cursor from now until the timers the work started (the views drawing, each from its own) have run:
    a timer started after theirs restores it, however the work ends. (QTimer.singleShot(0) would not wait for
    them: Qt 6 posts it as an event, and posted events come before timers.)"""
    QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    try:
        yield
    finally:
        timer = QTimer(QApplication.instance())
        timer.setSingleShot(True)
        timer.timeout.connect(QApplication.restoreOverrideCursor)
        timer.timeout.connect(timer.deleteLater)
        timer.start(0)
