"""How `python main.py` shows the window (gui/app.py calls `launch`): the stored display settings, a lesson
controller with its window, then the offer to restore an autosave, else the start page."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from engine.formats.lesson import shipped_lessons
from gui.lesson.controller import LessonController
from gui.state import display, preferences
from gui.state.app_state import AppState


def launch(
    state: AppState, lang: str, lesson: str | None = None, present: bool = False, start_page: bool = True
) -> LessonController:
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
