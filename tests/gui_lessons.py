"""Helpers for the lesson, language and presentation tests: a window run by a LessonController whose
questions are answered by the test, with its own settings and autosave folders."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
import torch
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from shiboken6 import isValid

from engine.formats.lesson import Lesson, open_lesson
from gui.idle_collection import collect_between_events
from gui.lesson.controller import LessonController
from gui.state import display, preferences
from gui.state.app_state import AppState
from gui.text import i18n


class FakePrompts:
    """Answers the controller's questions as the test says, and records them."""

    def __init__(self):
        self.restore_answer = True
        self.unsaved_answer = "discard"
        self.path = ""
        self.asked: list[str] = []
        self.errors: list[str] = []

    def restore(self, parent, lesson: Lesson) -> bool:
        self.asked.append("restore")
        return self.restore_answer

    def unsaved(self, parent, name: str) -> str:
        self.asked.append("unsaved")
        return self.unsaved_answer

    def open_path(self, parent, folder: str) -> str:
        return self.path

    def save_path(self, parent, suggested: str) -> str:
        return self.path

    def error(self, parent, title: str, text: str) -> None:
        self.errors.append(text)


@pytest.fixture
def own_folders(qapp, tmp_path, monkeypatch):
    """Settings and autosave in this test's own folder; English and default display afterwards."""
    monkeypatch.setenv("STEPFORMER_SETTINGS_DIR", str(tmp_path / "settings"))
    monkeypatch.setenv("STEPFORMER_DATA_DIR", str(tmp_path / "data"))
    yield tmp_path
    preferences.written()  # (no write of this test still running in the next)
    app = QApplication.instance()
    i18n.set_language(app, "en")
    display.apply(app, display.DisplaySettings())  # the app's own font and palette again


def state_for(lesson: str | Lesson) -> AppState:
    return AppState.from_lesson(open_lesson(lesson) if isinstance(lesson, str) else lesson)


def start_controller(
    lesson: str = "two-heads", lang: str = "en", prompts: FakePrompts | None = None, state: AppState | None = None
) -> LessonController:
    """The window as `python main.py` shows it (minus the start page), 1400×900, not yet exposed."""
    pg.setConfigOptions(background="w", foreground="k")
    torch.set_num_threads(1)
    app = QApplication.instance()
    collect_between_events()
    i18n.set_language(app, lang)
    state = state or state_for(lesson)
    state.display.load()
    display.apply(app, state.display)
    controller = LessonController(state, lang, shipped=lesson, prompts=prompts or FakePrompts())
    window = controller.show_window()
    window.setWindowState(Qt.WindowNoState)
    window.resize(1400, 900)
    return controller


@pytest.fixture
def start_window(qtbot, own_folders):
    """start(lesson, lang, prompts, state): the window as `python main.py` shows it (minus the start page);
    every window started is closed afterwards, discarding unsaved edits."""
    controllers: list[LessonController] = []

    def start(
        lesson: str = "two-heads", lang: str = "en", prompts: FakePrompts | None = None, state: AppState | None = None
    ) -> LessonController:
        controller = start_controller(lesson, lang, prompts, state)
        window = controller.window
        qtbot.waitExposed(window)
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow)  # keyboard shortcuts go to the active window
        controllers.append(controller)
        return controller

    yield start
    for controller in controllers:
        if isValid(controller.window) and controller.window.isVisible():
            controller.prompts.unsaved_answer = "discard"
            controller.window.close()
        if isValid(controller.window):
            controller.window.deleteLater()


def assert_same_lesson(a: Lesson, b: Lesson) -> None:
    """Every parameter, vocabulary, pinned stage, sentence, switch and the stage equal, bit for bit."""
    assert (a.config, a.text, a.target, a.stage) == (b.config, b.text, b.target, b.stage)
    assert a.vocabularies == b.vocabularies
    for mine, theirs in ((a.params, b.params), (a.overrides, b.overrides)):
        assert mine.keys() == theirs.keys()
        for name in mine:
            assert torch.equal(mine[name], theirs[name]), name
