"""The lesson controller's window (`LessonWindow`, a part of gui/lesson/controller.py's LessonController):
built and shown where it was last time, its menus' and model picker's requests connected, its title (the lesson's
name and the unsaved marker); the language and display choices kept for the next start and given to the app (font,
palette), the window switched to another language in place (MainWindow.retranslate), a new window for the text
size and presentation mode (the app state, with its undo history, stays); and on close the question about unsaved
edits, then a clean exit."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gui.state import display, preferences
from gui.state.app_state import AppState
from gui.state.change_records import language_record
from gui.text import i18n
from gui.views.busy_cursor import busy_until_drawn
from gui.window.main_window import MainWindow, WindowLayout


class LessonWindow:
    """The window's part of the lesson controller (its other parts: gui/lesson/files.py, gui/lesson/start.py)."""

    state: AppState
    window: MainWindow | None
    normal_layout: WindowLayout | None
    desk_font_scale: float

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
        with busy_until_drawn():  # (the views draw from timers started as they are built and shown)
            self.window = self._make_window()
            self.window.restore_layout(layout or old.layout_state())
            self.window.teaching.carry_over(old.teaching)
            if self.state.display.presenting:
                self.window.set_presenting(True)
            self.window.show()
        old.closing.disconnect(self._closing)
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
        window.closing.connect(self._closing)
        # after the window's own title update, so the file name and marker win
        if self.window is not None:
            self.state.lessonChanged.disconnect(self._update_title)
        self.state.lessonChanged.connect(self._update_title)
        self.window = window
        self._update_title()
        return window

    def _update_title(self) -> None:
        if self.window is not None:
            self.window.setWindowTitle(f"{self.name}[*] — Stepformer")
            self.window.setWindowModified(self.modified)

    # ---- language and display ---------------------------------------------------------------------
    def set_language(self, lang: str) -> None:
        """Switch the window's language now and for the next start (kept by _display_changed, or here when it is
        the language shown already); the lesson and its edits stay."""
        if lang == self.state.display.lang:
            preferences.write("ui/language", lang)
        self.state.display.set(lang=lang)

    def _retranslate(self, app: QApplication, lang: str) -> None:
        """The window in `lang`, in place: its words, its docks and their figures. The first switch to a language
        draws every figure shown in it (0.3–0.6 s with every dock open): the busy cursor shows until the views, whose
        draws come from timers started now, have drawn."""
        with busy_until_drawn():
            i18n.set_language(app, lang)
            self.state.retranslate_history()
            if self.window is not None:
                self.window.retranslate()
                self._update_title()

    def _display_changed(self, names: frozenset[str]) -> None:
        """A display setting changed (the views follow it themselves): kept for the next start; the font and the
        palette given to the app; the window in the new language (in place: no new window), a new window for the
        text size and presentation mode — entered full screen, left for the layout the window had before it,
        exactly."""
        settings, app = self.state.display, QApplication.instance()
        if "lang" in names:
            preferences.write("ui/language", settings.lang)
            self._retranslate(app, settings.lang)
        layout = self._enter_or_leave() if "presenting" in names and self.window is not None else None
        if names & set(display.STORED) or layout is not None:
            settings.save()
        if names & {"font_scale", "palette", "presenting", "room_scale"}:
            display.apply(app, settings)
        if names & display.REBUILD and self.window is not None:
            self.rebuild_window(self.tr("Drawing the window anew…"), layout)
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

    # ---- closing -----------------------------------------------------------------------------------
    def _closing(self, event) -> None:
        """The window is asked to close: the unsaved edits are saved, or discarded, or the close is cancelled."""
        if not self.maybe_save():
            event.ignore()
            return
        self._shut_down()

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
