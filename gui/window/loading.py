"""The first second: a light window that appears before PyTorch has loaded, says honestly what is loading, and
keeps the keys a teacher presses meanwhile.

Importing torch, pyqtgraph and the engine takes seconds; PySide6 alone a tenth of one. So the window that
opens first needs nothing but PySide6 (this module imports nothing else of Stepformer's that would pull them
in). A worker thread imports torch and the engine; when it is done the caller builds the lesson and the real
window in the Qt thread, and `replay_keys` triggers the stepping keys pressed while loading (→ three times
while loading: three stages on, once the lesson is there).
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
from collections.abc import Sequence

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QProgressBar, QVBoxLayout, QWidget

from gui.state import preferences

# What the worker imports, in order, with what the window says meanwhile.
HEAVY_MODULES = (
    ("torch", QT_TRANSLATE_NOOP("LoadingWindow", "Loading PyTorch…")),
    ("engine.formats.lesson", QT_TRANSLATE_NOOP("LoadingWindow", "Loading the Transformer engine…")),
)
OPENING = QT_TRANSLATE_NOOP("LoadingWindow", "Opening the lesson…")
REPORT_ENV = "STEPFORMER_STARTUP_REPORT"  # when set, say on stdout when the window shows (tests/bench_startup.py)


def report(event: str) -> None:
    """One line on stdout for tests/bench_startup.py: the event, and whether torch was loaded by then."""
    if os.environ.get(REPORT_ENV):
        print(f"stepformer-startup {event} torch={'yes' if 'torch' in sys.modules else 'no'}", flush=True)


class ModuleLoader(QObject):
    """Imports modules in a worker thread; `progress` and `done` arrive in the Qt thread (queued)."""

    progress = Signal(str)  # the English text of the step now running (LoadingWindow translates it)
    done = Signal(str)  # "" when every module loaded, else the error

    def __init__(self, modules: Sequence[tuple[str, str]] = HEAVY_MODULES, parent: QObject | None = None):
        super().__init__(parent)
        self.modules = list(modules)
        self.thread = threading.Thread(target=self._run, name="stepformer-import", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        try:
            for name, text in self.modules:
                self.progress.emit(text)
                importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 (a broken install: say so in the window, never hang it)
            self.done.emit(f"{type(exc).__name__}: {exc}")
        else:
            self.done.emit("")


class LoadingWindow(QMainWindow):
    """Where the lesson's window will be, with a title, what is loading and a busy bar; collects key presses."""

    painted = Signal()  # once, when the window has been painted: start loading then (a dlopen holds the GIL)

    def __init__(self, full_screen: bool = False):
        super().__init__()
        self.setWindowTitle("Stepformer")
        self.keys: list[QKeySequence] = []
        self.shown_once = False
        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.addStretch(2)
        title = QLabel("Stepformer", body)
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 3)
        font.setBold(True)
        title.setFont(font)
        self.step = QLabel(self.tr("Starting…"), body)
        step_font = self.step.font()
        step_font.setPointSizeF(step_font.pointSizeF() * 1.5)
        self.step.setFont(step_font)
        # the full width, its text centred in it: "Opening the lesson…" is painted at once (repaint), before the layout
        # could centre a label sized for the step before it (it stood off to the left)
        self.step.setAlignment(Qt.AlignCenter)
        self.bar = QProgressBar(body)
        self.bar.setRange(0, 0)  # busy: no honest percentage exists for an import
        self.bar.setFixedWidth(420)
        layout.addWidget(title, 0, Qt.AlignHCenter)
        layout.addWidget(self.step)
        layout.addWidget(self.bar, 0, Qt.AlignHCenter)
        layout.addStretch(3)
        self.setCentralWidget(body)
        geometry = preferences.settings().value("window/geometry")
        if geometry is None or not self.restoreGeometry(geometry):
            self.setGeometry(QApplication.primaryScreen().availableGeometry())
            self.setWindowState(Qt.WindowMaximized)
        if full_screen:
            self.setWindowState(self.windowState() | Qt.WindowFullScreen)
        QApplication.instance().installEventFilter(self)

    def show_step(self, text: str) -> None:
        self.step.setText(self.tr(text))

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if not self.shown_once:
            self.shown_once = True
            report("window-shown")
            self.painted.emit()

    def eventFilter(self, watched, event) -> bool:
        """Keep every key pressed while loading (shortcuts are not there yet); nothing else is taken."""
        if event.type() == QEvent.KeyPress and not event.isAutoRepeat():
            self.keys.append(QKeySequence(event.keyCombination()))
            return True
        return False

    def stop_collecting(self) -> list[QKeySequence]:
        """The keys pressed while loading, in order; from now on keys go where they are pressed (a dialog
        that opens before the lesson's window, such as the offer to restore an autosave, gets its own)."""
        QApplication.instance().removeEventFilter(self)
        return self.keys


def replay_keys(window: QWidget, keys: Sequence[QKeySequence]) -> int:
    """Trigger, in order, the window's actions whose shortcut was pressed while loading (→, Page Down, End, …).
    Returns how many keys had no action (typing before a text box existed) and were dropped."""
    actions = window.findChildren(QAction)
    dropped = 0
    for key in keys:
        action = next((a for a in actions if key in a.shortcuts()), None)
        if action is None:
            dropped += 1
        elif action.isEnabled():  # Next at the last stage does nothing, as it would have
            action.trigger()
    return dropped


def dropped_keys_message(count: int) -> str:
    return QCoreApplication.translate(
        "LoadingWindow", "%n key(s) pressed while loading had no use and were left out.", "", count
    )
