"""What the lesson controller offers at the start (`LessonStart`, a part of gui/lesson/controller.py's
LessonController): after a crash the lessons autosaved by Stepformers no longer running, one by one, and the start
page with the shipped lessons (the menus and the model picker open it too)."""

from __future__ import annotations

from pathlib import Path

from engine import EngineError
from engine.formats.lesson import shipped_lessons
from engine.formats.recovery import RecoveryFolder, orphaned_folders
from gui.lesson.prompts import Prompts
from gui.state import preferences
from gui.state.autosave import Autosaver
from gui.window.loading import replay_keys
from gui.window.main_window import MainWindow
from gui.window.start_page import StartPage


class LessonStart:
    """The start's part of the lesson controller (its other parts: gui/lesson/window.py, gui/lesson/files.py)."""

    window: MainWindow | None
    prompts: Prompts
    autosaver: Autosaver
    shipped: str | None
    start_page: StartPage | None

    def offer_recovery(self) -> bool:
        """After a crash: offer back, one by one, the lessons autosaved by every Stepformer that is no longer
        running (never those of one that runs). The first one accepted is restored and its recovery becomes
        this window's; a declined one is deleted; any left after one was restored stay for the next start.
        True when a lesson was restored."""
        restored, left = False, 0
        for folder in orphaned_folders():
            if restored:
                folder.leave()
                left += 1
            else:
                restored = self._offer(folder)
        if left:
            self.window.statusBar().showMessage(
                self.tr("{0} more autosaved lessons will be offered at the next start").format(left), 10000
            )
        return restored

    def _offer(self, folder: RecoveryFolder) -> bool:
        try:
            lesson = folder.read()
        except EngineError as exc:
            folder.leave()
            self.window.statusBar().showMessage(self.tr("The autosaved lesson could not be read: {0}").format(exc))
            return False
        if lesson is None:  # a Stepformer that ended with nothing unsaved, or before its first autosave
            self._remove_declined(folder)
            return False
        if not self.prompts.restore(self.window, lesson):
            self._remove_declined(folder)
            return False
        path = folder.lesson_path()
        self.autosaver.adopt(folder)
        self._load(lesson, Path(path) if path else None, modified=True)
        return True

    def show_start_page(self) -> StartPage:
        """The lessons with their descriptions (window-modal, so the window stays drawn behind it)."""
        page = StartPage(
            shipped_lessons(), self.lang, preferences.read("start/show", True), self.shipped or "", self.window
        )
        page.finished.connect(lambda _result: self._start_page_done(page))
        page.open()
        self.start_page = page
        return page

    def _start_page_done(self, page: StartPage) -> None:
        preferences.write("start/show", page.show_at_start.isChecked())
        self.start_page = None
        page.deleteLater()
        if page.stepping_key is not None:  # meant for the lesson behind the page
            replay_keys(self.window, [page.stepping_key])
        elif page.choice == ("file", ""):
            self.open_file()
        elif page.choice is not None:
            self.open_shipped(page.choice[1])
