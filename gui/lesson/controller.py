"""Lessons in the window: `LessonController` sits above the window, connects to the requests its menus and model
picker emit, and nothing below it holds it. It is made of parts, each in a file of its own:

- gui/lesson/window.py: the window, built and shown where it was last time, and built anew for the language, the
  text size and presentation mode; its title; the display choices kept for the next start and given to the app
  (font, palette); on close the question about unsaved edits, then a clean exit;
- gui/lesson/files.py: open a shipped lesson, a `.stepformer` file or a model the model picker built; Save, Save As
  and the recent files;
- gui/lesson/start.py: the offer to restore what a Stepformer that crashed autosaved, and the start page;
- this file: every change, with its journal records, autosaved (gui/state/autosave.py), and the title bar's
  unsaved marker.

The questions it asks the teacher go through `Prompts` (gui/lesson/prompts.py), which the tests replace;
gui/launch.py shows the window as `python main.py` does.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject
from shiboken6 import isValid

from engine import EngineError
from gui.lesson.files import LessonFiles
from gui.lesson.prompts import Prompts
from gui.lesson.start import LessonStart
from gui.lesson.window import LessonWindow
from gui.state.app_state import AppState
from gui.state.autosave import Autosaver
from gui.state.change_records import Records, rebuild_record, stage_record, undo_moves
from gui.window.main_window import MainWindow, WindowLayout
from gui.window.start_page import StartPage


class LessonController(LessonWindow, LessonFiles, LessonStart, QObject):
    def __init__(
        self,
        state: AppState,
        lang: str,
        path: str | Path | None = None,
        shipped: str | None = None,
        prompts: Prompts | None = None,
    ):
        super().__init__()
        # The controller owns the state: the state (whose undo stack signals as it is destroyed) then dies in the
        # controller's destructor, after the controller stopped listening, never before. The two form reference
        # cycles that the garbage collector frees in any order, and a controller it has begun to clear has lost
        # the slots PySide keeps in its __dict__ ("Slot 'LessonController::' not found").
        state.setParent(self)
        self.state = state
        state.display.set(lang=lang)  # before any view listens: the window is built in it
        self.path = Path(path) if path else None
        self.shipped = shipped  # the name of the shipped lesson shown, if it is one
        self.prompts = prompts or Prompts(self)
        self.dirty = False  # changed sentences or settings (edits are tracked by the undo stack)
        self.loading = False
        self.window: MainWindow | None = None
        self.normal_layout: WindowLayout | None = None  # the window's layout before presentation mode …
        self.desk_font_scale = 1.0  # … and its text size
        self.start_page: StartPage | None = None
        self.autosaver = Autosaver(lambda: state.to_lesson(self.lang), self)
        self.autosaver.failed.connect(self._autosave_failed)
        self.autosaver.recording_again.connect(self._autosave_recording_again)
        self.undo_index = 0  # where the undo stack stood at the last change
        state.undo_stack.indexChanged.connect(self._undo_index_changed)
        state.lessonChanged.connect(self._lesson_changed)
        state.rebuilt.connect(self._rebuilt)
        state.cursorChanged.connect(self._cursor_changed)
        state.display.changed.connect(self._display_changed)
        self._remember_path()

    @property
    def lang(self) -> str:
        """The window's language, the lesson's too (the display settings hold it)."""
        return self.state.display.lang

    # ---- changes and the autosave ------------------------------------------------------------------
    def _lesson_changed(self) -> None:
        """A new trace: new sentences or settings (state.rebuilt follows, with its record), or a switch or a
        generated token (the undo stack's index follows)."""
        if not self.loading:
            self.dirty = True

    def _rebuilt(self, fresh_model: bool) -> None:
        self._changed([rebuild_record(self.state, fresh_model)])

    def _cursor_changed(self, _cursor: int) -> None:
        self._changed([stage_record(self.state)])

    def _undo_index_changed(self, index: int) -> None:
        """An edit, undo or redo is complete. (An emptied stack means a new lesson or sentence: lessonChanged
        comes with it, and the autosave must not be dropped before it.)"""
        stack = self.state.undo_stack
        if not isValid(stack) or not stack.count():  # (it signals as it is destroyed)
            self.undo_index = 0
            return
        records = undo_moves(stack, min(self.undo_index, stack.count()), index)
        self.undo_index = index
        self._changed(records)

    def _changed(self, records: Records = None) -> None:
        """Every change, with its journal records (None: no record describes it): the title-bar marker, and
        the autosave (or none when nothing is unsaved)."""
        if self.loading:
            return
        if self.window is not None and self.window.isWindowModified() != self.modified:
            self.window.setWindowModified(self.modified)  # (2 ms each time: Qt redraws the title)
        if self.modified and not self.state.not_savable:
            self.autosaver.changed(records)
        else:
            self.autosaver.clear()

    def _remember_path(self) -> None:
        """The file the autosave belongs to, so a restored lesson saves back to it."""
        self.autosaver.lesson_path = str(self.path.resolve()) if self.path else ""

    def _remove_declined(self, folder) -> None:
        """Delete an autosave the teacher declined (or one with nothing in it); if that fails, say so: the same
        lesson is offered again at the next start."""
        try:
            folder.close()
        except EngineError as exc:
            if self.window is not None:
                self.window.statusBar().showMessage(
                    self.tr("The declined autosave could not be removed and will be offered again: {0}").format(exc)
                )

    def _autosave_failed(self, message: str) -> None:
        """Shown until recording works again (or another message takes the status bar)."""
        if self.window is not None:
            self.window.statusBar().showMessage(self.tr("Edits are not being recorded: {0}").format(message))

    def _autosave_recording_again(self) -> None:
        if self.window is not None:
            self.window.statusBar().showMessage(self.tr("Recording edits again"), 10000)
