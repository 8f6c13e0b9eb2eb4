"""The first key a teacher presses after launch steps the lesson, whatever is in front: at first launch the start
page has the focus, and →, Page Down, Space, ←, Page Up, Home and End did nothing there. A stepping key closes the
page and steps the lesson behind it; Enter still opens the highlighted lesson."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from shiboken6 import isValid

from gui.app import open_lesson_window, parse_args
from gui.window.loading import LoadingWindow
from gui.window.start_page import NAME_ROLE
from tests.gui_lessons import own_folders  # noqa: F401 (a fixture)


@pytest.fixture
def launched(qtbot, qapp, own_folders):  # noqa: F811
    """The window as `python main.py` shows it at first launch: the default lesson behind the start page."""
    controller = open_lesson_window(qapp, parse_args([]), "en", LoadingWindow(), "")
    yield controller
    if controller.start_page is not None:
        controller.start_page.reject()
    controller.window.close()
    if isValid(controller.window):
        controller.window.deleteLater()


def press_on_what_has_focus(qtbot, controller, key) -> None:
    page = controller.start_page
    page.activateWindow()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None and page.isAncestorOf(QApplication.focusWidget()))
    qtbot.keyClick(QApplication.focusWidget(), key)
    qtbot.waitUntil(lambda: controller.start_page is None)


@pytest.mark.parametrize(
    ("key", "start", "expected"),
    [
        (Qt.Key_Right, 0, 1),
        (Qt.Key_PageDown, 0, 1),
        (Qt.Key_Space, 0, 1),
        (Qt.Key_Left, 2, 1),
        (Qt.Key_PageUp, 2, 1),
        (Qt.Key_Home, 2, 0),
        (Qt.Key_End, 0, -1),
    ],
)
def test_a_stepping_key_on_the_start_page_steps_the_lesson_behind_it(qtbot, launched, key, start, expected):
    state = launched.state
    state.set_cursor(start)
    press_on_what_has_focus(qtbot, launched, key)
    assert state.cursor == expected % len(state.stage_names)
    assert launched.shipped == "two-heads"  # the same lesson, not reopened


def test_enter_on_the_start_page_opens_the_highlighted_lesson(qtbot, launched):
    page = launched.start_page
    page.list.setCurrentRow(0)
    chosen = page.list.currentItem().data(NAME_ROLE)
    press_on_what_has_focus(qtbot, launched, Qt.Key_Return)
    assert launched.shipped == chosen != "two-heads"
