"""The start page and the model picker are sized in lines and characters of their type: in presentation mode's
larger type (the window's font scaled for the room) they were fixed at 1000×600 and 660×580 pixels, which left
the start page's lesson description a column of 60 px ("“I / wit / hea") with lessons 13–16 out of sight, and the
picker half its choices and a sideways scroll bar."""

import pytest
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication

from engine.formats.lesson import shipped_lessons
from gui.views import fonts
from gui.window.model_picker import ModelDialog
from gui.window.start_page import StartPage
from tests import gui_lessons

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures


@pytest.fixture
def room_type(qapp, monkeypatch):
    """The application's type as presentation mode makes it for a 1920×1080 room (about 1.8×), on such a screen."""
    monkeypatch.setattr(fonts, "screen_room", lambda widget: QRect(0, 0, 1920, 1040))
    font = QApplication.font()
    larger = QApplication.font()
    larger.setPointSizeF(font.pointSizeF() * 1.8)
    QApplication.setFont(larger)
    yield
    QApplication.setFont(font)


def shown(qtbot, dialog):
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def test_the_start_page_shows_every_lesson_and_its_description_in_room_type(qtbot, room_type):
    page = shown(qtbot, StartPage(shipped_lessons(), "en", True))
    assert page.width() <= 1920 and page.height() <= 1040
    assert not page.list.verticalScrollBar().isVisible()  # all sixteen lessons in sight
    assert page.description.width() >= page.width() // 3  # a column to read, not a word a line


def test_the_model_picker_shows_every_choice_without_a_sideways_scroll_in_room_type(qtbot, start_window, room_type):
    controller = start_window("two-heads")
    dialog = shown(qtbot, ModelDialog(controller.window.model_picker.entries(), "encoder", controller.window))
    assert not dialog.list.horizontalScrollBar().isVisible()
    assert not dialog.list.verticalScrollBar().isVisible()
