"""The start page highlights the lesson that is open behind it: launched without --lesson it highlighted lesson 1
while the default lesson (lesson 2) was open; with a lesson file or a model open it highlights none."""

from __future__ import annotations

from shiboken6 import isValid

from engine.formats.lesson import shipped_lessons
from engine.sources import DEFAULT_LESSON
from gui.app import open_lesson_window, parse_args
from gui.window.loading import LoadingWindow
from gui.window.start_page import NAME_ROLE, StartPage
from tests.gui_lessons import own_folders  # noqa: F401 (a fixture)


def test_launched_without_a_lesson_the_start_page_highlights_the_default_lesson_open(qtbot, qapp, own_folders):  # noqa: F811
    loading = LoadingWindow()
    controller = open_lesson_window(qapp, parse_args([]), "en", loading, "")
    try:
        page = controller.start_page
        assert page is not None and page.isVisible()
        names = [info.name for info in shipped_lessons()]
        assert names.index(DEFAULT_LESSON) != 0  # (the page used to highlight the first lesson)
        assert page.list.currentItem().data(NAME_ROLE) == DEFAULT_LESSON == controller.shipped
        assert page.title.text() == controller.state.title["en"]
    finally:
        if controller.start_page is not None:
            controller.start_page.reject()
        controller.window.close()
        if isValid(controller.window):
            controller.window.deleteLater()


def test_with_no_shipped_lesson_open_the_start_page_highlights_none(qtbot):
    page = StartPage(shipped_lessons(), "en", True, current="")
    qtbot.addWidget(page)
    assert page.list.currentItem() is None
    assert page.title.text() == "" and not page.open_button.isEnabled()
    page.list.setCurrentRow(2)
    assert page.open_button.isEnabled() and page.title.text() == shipped_lessons()[2].title["en"]


def test_the_start_page_highlights_the_shipped_lesson_it_is_given(qtbot):
    infos = shipped_lessons()
    page = StartPage(infos, "en", True, current=infos[3].name)
    qtbot.addWidget(page)
    assert page.list.currentRow() == 3 and page.description.text() == infos[3].description["en"]
