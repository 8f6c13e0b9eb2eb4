"""The lesson controller's files (`LessonFiles`, a part of gui/lesson/controller.py's LessonController): open a
shipped lesson, a `.stepformer` file or a model the model picker built, Save / Save As and the recent files, and
the question about unsaved edits before a lesson is replaced."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from engine import EngineError
from engine.formats.lesson import Lesson, open_lesson, save_lesson
from gui.lesson.prompts import Prompts
from gui.state import preferences
from gui.state.app_state import AppState
from gui.state.autosave import Autosaver
from gui.window.main_window import MainWindow
from gui.window.model_picker import OpenRequest

SUFFIX = ".stepformer"


class LessonFiles:
    """The files' part of the lesson controller (its other parts: gui/lesson/window.py, gui/lesson/start.py)."""

    state: AppState
    window: MainWindow | None
    prompts: Prompts
    autosaver: Autosaver
    path: Path | None
    shipped: str | None
    dirty: bool
    loading: bool
    undo_index: int

    @property
    def modified(self) -> bool:
        return self.dirty or not self.state.undo_stack.isClean()

    @property
    def name(self) -> str:
        """What the title bar calls the lesson."""
        if self.path is not None:
            return self.path.name
        return self.state.title.get(self.lang) or self.tr("Untitled lesson")

    def open_shipped(self, name: str) -> bool:
        if not self.maybe_save():
            return False
        try:
            lesson = open_lesson(name)
        except EngineError as exc:
            self.prompts.error(self.window, self.tr("Cannot open the lesson"), str(exc))
            return False
        self._load(lesson, path=None, shipped=name)
        return True

    def open_file(self, path: str | Path | None = None) -> bool:
        """Open a `.stepformer` file (asked for when not given). A file that cannot be opened is explained
        and changes nothing."""
        if not self.maybe_save():
            return False
        if path is None:
            path = self.prompts.open_path(self.window, preferences.read("files/folder", str(Path.home())))
            if not path:
                return False
        path = Path(path)
        try:
            lesson = open_lesson(path)
        except EngineError as exc:
            text = self.tr("{0} was not opened; nothing was changed.").format(path.name)
            self.prompts.error(self.window, self.tr("Cannot open the lesson"), f"{text}\n\n{exc}")
            if not path.is_file():
                preferences.remove_recent_file(path)
            return False
        self._load(lesson, path=path)
        preferences.add_recent_file(path)
        preferences.write("files/folder", str(path.resolve().parent))
        return True

    def _load(self, lesson: Lesson, path: Path | None, shipped: str | None = None, modified: bool = False) -> None:
        """Show the lesson (the UI keeps its language)."""
        self.show_model(lambda: self.state.load_lesson(lesson), path, shipped, modified)

    def _open_model(self, request: OpenRequest) -> None:
        """A model the model picker built: shown as a new lesson with no file yet, once unsaved edits are asked
        about; sentences it cannot trace are explained and change nothing."""
        if not self.maybe_save():
            return
        opened = request.opened
        try:
            self.show_model(
                lambda: self.state.load_model(
                    opened.model, opened.text, opened.target, opened.stage, opened.title, opened.description
                )
            )
        except EngineError as exc:
            self.window.model_picker.refuse(request.what, exc)
            return
        self.window.statusBar().showMessage(opened.description[self.lang], 20000)
        request.done = True

    def show_model(
        self, load: Callable[[], None], path: Path | None = None, shipped: str | None = None, modified: bool = False
    ) -> None:
        """Run `load`, which puts a lesson or a model into the app state, and make it the lesson shown: the model
        picker's models (_open_model) are shown this way, as lessons with no file yet. An EngineError
        from `load` changes nothing."""
        self.loading = True
        try:
            load()
        finally:
            self.loading = False
        self.path, self.shipped, self.dirty = path, shipped, modified
        self.undo_index = self.state.undo_stack.index()
        if self.window is not None:
            self.window.teaching.open_views(self.state.views, self.state.lab)
        self._remember_path()
        self._update_title()
        if modified:
            self.autosaver.changed()
        else:
            self.autosaver.clear()

    def save(self) -> bool:
        if self.path is None:
            return self.save_as()
        return self._save_to(self.path)

    def save_as(self) -> bool:
        if self.state.not_savable:  # before asking for a file name
            self.prompts.error(self.window, self.tr("Cannot save the lesson"), self.state.not_savable)
            return False
        folder = Path(preferences.read("files/folder", str(Path.home())))
        suggested = self.path or folder / f"{self.shipped or self.tr('lesson')}{SUFFIX}"
        path = self.prompts.save_path(self.window, str(suggested))
        if not path:
            return False
        path = Path(path)
        if path.suffix != SUFFIX:
            path = path.with_name(path.name + SUFFIX)
        return self._save_to(path)

    def _save_to(self, path: Path) -> bool:
        try:
            save_lesson(self.state.to_lesson(self.lang), path)
        except EngineError as exc:
            self.prompts.error(self.window, self.tr("Cannot save the lesson"), str(exc))
            return False
        self.path, self.shipped, self.dirty = path, None, False
        self.state.undo_stack.setClean()
        self.autosaver.clear()
        preferences.add_recent_file(path)
        preferences.write("files/folder", str(path.resolve().parent))
        self._remember_path()
        self._update_title()
        self.window.statusBar().showMessage(self.tr("Saved {0}").format(path), 5000)
        return True

    def maybe_save(self) -> bool:
        """Before the lesson is replaced or the window closes: True when it may go ahead."""
        if not self.modified:
            return True
        answer = self.prompts.unsaved(self.window, self.name)
        if answer == "save":
            return self.save()
        return answer == "discard"
