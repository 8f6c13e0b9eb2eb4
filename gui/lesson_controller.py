"""Lessons in the window: open a shipped lesson or a `.stepformer` file, Save / Save As / recent files, the
title-bar marker and the question on close when there are unsaved edits, the autosave after every change and
the offer to restore it on the next start, the start page, the models the model picker asks to show, and the
language and display choices: kept for the next start, given to the app (font, palette), and for the language and
the text size a new window (the app state, with its undo history, stays).

It sits above the window: it connects to the requests the window's menus and model picker emit, and nothing below
it holds it. The questions it asks the teacher go through `Prompts`, which the tests replace.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox
from shiboken6 import isValid

from engine import EngineError
from engine.formats.lesson import Lesson, open_lesson, save_lesson, shipped_lessons
from engine.formats.recovery import RecoveryFolder, orphaned_folders
from gui.state import display, preferences
from gui.state.app_state import AppState
from gui.state.autosave import Autosaver
from gui.state.change_records import Records, language_record, rebuild_record, stage_record, undo_moves
from gui.text import i18n
from gui.window.main_window import MainWindow, WindowLayout
from gui.window.model_picker import OpenRequest
from gui.window.start_page import StartPage

SUFFIX = ".stepformer"


class Prompts(QObject):
    """The questions asked with message boxes and file dialogs."""

    def restore(self, parent, lesson: Lesson) -> bool:
        text = self.tr("Stepformer was not closed normally. Restore the lesson it autosaved "
                       "(sentence “{0}”, with every edit)?").format(lesson.text)
        answer = QMessageBox.question(parent, self.tr("Restore autosaved lesson"), text,
                                      QMessageBox.Yes | QMessageBox.No, QMessageBox.Yes)
        return answer == QMessageBox.Yes

    def unsaved(self, parent, name: str) -> str:
        """"save", "discard" or "cancel"."""
        box = QMessageBox(QMessageBox.Warning, self.tr("Unsaved changes"),
                          self.tr("“{0}” has changes that are not saved. Save them?").format(name),
                          QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, parent)
        box.setDefaultButton(QMessageBox.Save)
        answer = box.exec()
        return {QMessageBox.Save: "save", QMessageBox.Discard: "discard"}.get(answer, "cancel")

    def open_path(self, parent, folder: str) -> str:
        path, _ = QFileDialog.getOpenFileName(parent, self.tr("Open lesson"), folder,
                                              self.tr("Stepformer lessons (*.stepformer)"))
        return path

    def save_path(self, parent, suggested: str) -> str:
        path, _ = QFileDialog.getSaveFileName(parent, self.tr("Save lesson as"), suggested,
                                              self.tr("Stepformer lessons (*.stepformer)"))
        return path

    def error(self, parent, title: str, text: str) -> None:
        QMessageBox.warning(parent, title, text)


class LessonController(QObject):
    def __init__(self, state: AppState, lang: str, path: str | Path | None = None, shipped: str | None = None,
                 prompts: Prompts | None = None):
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

    # ---- the window -------------------------------------------------------------------------------
    def show_window(self, present: bool = False) -> MainWindow:
        """Build and show the window, where it was last time (else filling the screen); `present`: in
        presentation mode (full screen, type for the screen)."""
        settings, app = self.state.display, QApplication.instance()
        if present:
            size = QApplication.primaryScreen().geometry().size()
            settings.presenting, settings.room_scale = True, display.room_scale_for(size.width(), size.height())
            display.apply(app, settings)  # (no window to rebuild yet: set without `changed`)
        self.window = self._make_window()
        geometry = preferences.settings().value("window/geometry")
        if geometry is None or not self.window.restoreGeometry(geometry):
            self.window.setGeometry(QApplication.primaryScreen().availableGeometry())
            self.window.setWindowState(Qt.WindowMaximized)
        layout = preferences.settings().value("window/state")
        if layout is not None:
            self.window.restoreState(layout)
        if present:
            self.normal_layout, self.desk_font_scale = self.window.layout_state(), settings.font_scale
            self.window.set_presenting(True)
            self.window.setWindowState(self.window.windowState() | Qt.WindowFullScreen)
        self.window.teaching.open_views(self.state.views, self.state.lab)  # after the stored layout: the lesson asks
        self.window.show()
        return self.window

    def rebuild_window(self, note: str = "", layout: WindowLayout | None = None) -> MainWindow:
        """A new window in the current language and display settings, in the old one's place and state (or in
        `layout`). It takes a moment (every open view draws its figures anew): `note` shows in the old window's
        status bar while the new one is built, and the busy cursor until the new window's views have drawn."""
        old = self.window
        old.stepper.stop()
        if note:
            old.statusBar().showMessage(note)
            old.statusBar().repaint()  # now: the event loop will not run before the work is done
        QApplication.setOverrideCursor(Qt.WaitCursor)
        try:
            self.window = self._make_window()
        except BaseException:
            QApplication.restoreOverrideCursor()
            raise
        self.window.restore_layout(layout or old.layout_state())
        self.window.teaching.carry_over(old.teaching)
        if self.state.display.presenting:
            self.window.set_presenting(True)
        self.window.show()
        # the views draw from timers started as they were built and shown: this one comes after them
        QTimer.singleShot(0, QApplication.restoreOverrideCursor)
        old.removeEventFilter(self)
        old.hide()
        old.deleteLater()
        return self.window

    def _make_window(self) -> MainWindow:
        window = MainWindow(self.state)
        bar, picker = window.menu_bar, window.model_picker
        bar.startPageRequested.connect(self.show_start_page)
        bar.openRequested.connect(lambda path: self.open_file(path or None))
        bar.saveRequested.connect(self.save)
        bar.saveAsRequested.connect(self.save_as)
        bar.shippedRequested.connect(self.open_shipped)
        bar.languageRequested.connect(self.set_language)
        picker.startPageRequested.connect(self.show_start_page)
        picker.openRequested.connect(self._open_model)
        picker.refused.connect(lambda title, text: self.prompts.error(self.window, title, text))
        window.installEventFilter(self)
        # after the window's own title update, so the file name and marker win
        if self.window is not None:
            self.state.lessonChanged.disconnect(self._update_title)
        self.state.lessonChanged.connect(self._update_title)
        self.window = window
        self._update_title()
        return window

    # ---- language and display ---------------------------------------------------------------------
    def set_language(self, lang: str) -> None:
        """Switch the window's language now and for the next start; the lesson and its edits stay."""
        preferences.write("ui/language", lang)
        self.state.display.set(lang=lang)

    def _display_changed(self, names: frozenset[str]) -> None:
        """A display setting changed (the views follow it themselves): kept for the next start; the font and the
        palette given to the app; a new window for the language, the text size and presentation mode — entered
        full screen, left for the layout the window had before it, exactly."""
        settings, app = self.state.display, QApplication.instance()
        if "lang" in names:
            preferences.write("ui/language", settings.lang)
            i18n.set_language(app, settings.lang)
            self.state.retranslate_history()
        layout = self._enter_or_leave() if "presenting" in names and self.window is not None else None
        if names & set(display.STORED) or layout is not None:
            settings.save()
        if names & {"font_scale", "palette", "presenting", "room_scale"}:
            display.apply(app, settings)
        if names & display.REBUILD and self.window is not None:
            self.rebuild_window(self.tr("Showing the window in {0}…").format(i18n.LANGUAGES[settings.lang])
                                if "lang" in names else self.tr("Drawing the window anew…"), layout)
        if "lang" in names:
            self._changed([language_record(settings.lang)])  # the lesson's language is part of it

    def _enter_or_leave(self) -> WindowLayout:
        """The layout of the window presentation mode is entered in (full screen) or left for: the desk's as it
        was, with its text size (Ctrl+= in the room was for the room)."""
        settings = self.state.display
        if not settings.presenting:
            settings.font_scale = self.desk_font_scale  # (the window is built anew for it: no `changed` needed)
            return self.normal_layout
        self.desk_font_scale = settings.font_scale
        self.normal_layout = layout = self.window.layout_state()
        return replace(layout, state=layout.state | Qt.WindowFullScreen)  # shown full screen at once

    # ---- opening and saving -----------------------------------------------------------------------
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
            self.show_model(lambda: self.state.load_model(
                opened.model, opened.text, opened.target, opened.stage, opened.title, opened.description))
        except EngineError as exc:
            self.window.model_picker.refuse(request.what, exc)
            return
        self.window.statusBar().showMessage(opened.description[self.lang], 20000)
        request.done = True

    def show_model(self, load: Callable[[], None], path: Path | None = None, shipped: str | None = None,
                   modified: bool = False) -> None:
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

    # ---- start -------------------------------------------------------------------------------------
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
                self.tr("{0} more autosaved lessons will be offered at the next start").format(left), 10000)
        return restored

    def _offer(self, folder: RecoveryFolder) -> bool:
        try:
            lesson = folder.read()
        except EngineError as exc:
            folder.leave()
            self.window.statusBar().showMessage(self.tr("The autosaved lesson could not be read: {0}").format(exc))
            return False
        if lesson is None:  # a Stepformer that ended with nothing unsaved, or before its first autosave
            self._report_autosave(folder.close)
            return False
        if not self.prompts.restore(self.window, lesson):
            self._report_autosave(folder.close)
            return False
        path = folder.lesson_path()
        self.autosaver.adopt(folder)
        self._load(lesson, Path(path) if path else None, modified=True)
        return True

    def show_start_page(self) -> StartPage:
        """The lessons with their descriptions (window-modal, so the window stays drawn behind it)."""
        page = StartPage(shipped_lessons(), self.lang, preferences.read("start/show", True), self.shipped or "",
                         self.window)
        page.finished.connect(lambda _result: self._start_page_done(page))
        page.open()
        self.start_page = page
        return page

    def _start_page_done(self, page: StartPage) -> None:
        preferences.write("start/show", page.show_at_start.isChecked())
        self.start_page = None
        page.deleteLater()
        if page.choice == ("file", ""):
            self.open_file()
        elif page.choice is not None:
            self.open_shipped(page.choice[1])

    # ---- changes -----------------------------------------------------------------------------------
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

    def _update_title(self) -> None:
        if self.window is not None:
            self.window.setWindowTitle(f"{self.name}[*] — Stepformer")
            self.window.setWindowModified(self.modified)

    def _remember_path(self) -> None:
        """The file the autosave belongs to, so a restored lesson saves back to it."""
        self.autosaver.lesson_path = str(self.path.resolve()) if self.path else ""

    def _report_autosave(self, action: Callable[[], object]) -> None:
        try:
            action()
        except EngineError as exc:
            self._autosave_failed(str(exc))

    def _autosave_failed(self, message: str) -> None:
        if self.window is not None:
            self.window.statusBar().showMessage(self.tr("Autosave failed: {0}").format(message), 10000)

    # ---- closing -----------------------------------------------------------------------------------
    def eventFilter(self, obj, event) -> bool:
        if obj is self.window and event.type() == QEvent.Close:
            if not self.maybe_save():
                event.ignore()
                return True
            self._shut_down()
        return False

    def _shut_down(self) -> None:
        """A clean exit: remember the window's place, remove this instance's recovery folder."""
        s = preferences.settings()
        settings = self.state.display
        if settings.presenting:  # next time at the desk, as before F5 (F5 again for the room)
            settings.presenting, settings.room_scale, settings.font_scale = False, 1.0, self.desk_font_scale
            settings.save()
            self.window.restore_layout(self.normal_layout)
        self.window.setWindowState(self.window.windowState() & ~Qt.WindowFullScreen)
        s.setValue("window/geometry", self.window.saveGeometry())
        s.setValue("window/state", self.window.saveState())
        self.autosaver.close()


def launch(state: AppState, lang: str, lesson: str | None = None, present: bool = False,
           start_page: bool = True) -> LessonController:
    """Show the window on `state` (opened from the shipped lesson or file named `lesson`): the stored
    display settings, then the offer to restore an autosave, else the start page (when wanted)."""
    state.display.load()
    if "decimals" in state.show:  # the lesson's, if it names any
        state.display.follow_lesson(state.head, state.row, state.show["decimals"])
    display.apply(QApplication.instance(), state.display)
    shipped_names = [info.name for info in shipped_lessons()]
    shipped = lesson if lesson in shipped_names else None
    controller = LessonController(state, lang, path=lesson if lesson and not shipped else None, shipped=shipped)
    controller.show_window(present)
    if not controller.offer_recovery() and start_page and preferences.read("start/show", True):
        controller.show_start_page()
    return controller
