"""The registry of docks (gui/docks/registry.py): every dock declared once, and a dock defined entirely in this file
joining the window — its View menu entry and shortcut, its toolbar button, a lesson's "views", a window built anew
(F5) and a place beside the stage view — with no other file touched."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from PySide6.QtCore import QCoreApplication, QPoint, QRect
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from engine import EngineError
from engine.formats import lesson
from engine.formats.lesson import open_lesson, save_lesson
from gui.docks import registry
from gui.docks.placement import DOCK_MIN_WIDTH
from gui.docks.registry import BESIDE, DockSpec, register, unregister
from gui.text import i18n
from gui.text.operations import stage_title
from tests import gui_lessons

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures


class StageTitleView(QLabel):
    """A view as trivial as a dock's can be: the current stage's title, following the state's cursor."""

    def __init__(self, state):
        super().__init__()
        self.state = state
        state.cursorChanged.connect(self.show_stage)
        self.show_stage()

    def show_stage(self, *_) -> None:
        self.setText(stage_title(self.state.view, self.state.current_stage, self.state.display.lang))

    def retranslate(self) -> None:
        self.show_stage()


STAGE_TITLE = DockSpec(
    "stage_title",
    lambda: QCoreApplication.translate("StageTitleView", "This stage"),
    StageTitleView,
    shortcut="Ctrl+Shift+T",
    toolbar=True,
    lesson_openable=True,
)


@pytest.fixture
def stage_title_dock():
    register(STAGE_TITLE)
    yield STAGE_TITLE
    unregister(STAGE_TITLE.key)


def test_the_lesson_format_opens_the_registrys_lesson_openable_docks_and_layouts_keep_their_names():
    views = ("heads", "overview", "whatif", "generation", "kv_cache", "cost", "lab", "neuron", "lens", "modernise")
    assert lesson.VIEWS == registry.lesson_views() == views
    names = [spec.object_name for spec in registry.specs()]
    assert names == [  # what stored window layouts know them by
        "dock_map",
        "dock_heads",
        "dock_overview",
        "dock_whatif",
        "dock_generation",
        "dock_kv_cache",
        "dock_cost",
        "dock_training_lab",
        "dock_training_step",
        "dock_neuron",
        "dock_lens",
        "dock_modernise",
    ]


def test_every_dock_has_a_chinese_title(qapp):
    english = {spec.key: spec.title() for spec in registry.specs()}
    i18n.set_language(qapp, "zh")
    try:
        chinese = {spec.key: spec.title() for spec in registry.specs()}
    finally:
        i18n.set_language(qapp, "en")
    for key, title in chinese.items():
        assert title != english[key] and re.search(r"[\u4e00-\u9fff]", title), (key, title)


def test_a_lesson_may_name_a_registered_dock_only_while_it_is_registered(tmp_path):
    path = tmp_path / "stage-title.stepformer"
    register(STAGE_TITLE)
    try:
        save_lesson(replace(open_lesson("two-heads"), views=("stage_title",)), path)
        assert open_lesson(path).views == ("stage_title",)
        with pytest.raises(ValueError, match="registered already"):
            register(STAGE_TITLE)
    finally:
        unregister(STAGE_TITLE.key)
    with pytest.raises(EngineError, match="unknown view 'stage_title' in views"):
        open_lesson(path)


def global_rect(widget: QWidget) -> QRect:
    return QRect(widget.mapToGlobal(QPoint(0, 0)), widget.size())


def test_a_dock_defined_in_a_test_joins_the_menu_the_toolbar_a_lesson_and_a_new_window(
    qtbot, start_window, stage_title_dock, tmp_path
):
    controller = start_window("two-heads")
    window = controller.window
    dock = window.docks["stage_title"]
    assert dock.widget.objectName() == "dock_stage_title" and not dock.widget.isVisible()
    assert dock.toggle in window.menus["view"].actions() and dock.toggle.shortcut().toString() == "Ctrl+Shift+T"
    assert window.teaching.toolbar.actions()[:6] == [  # after the teaching docks' buttons, in the registry's order
        window.docks["heads"].toggle,
        window.docks["overview"].toggle,
        window.teaching.generation.generate_action,
        window.docks["kv_cache"].toggle,
        window.docks["cost"].toggle,
        dock.toggle,
    ]
    assert dock.spec.placed == BESIDE and dock.widget.widget() is not dock.view  # (in a scroll area)
    window.state.step(3)
    assert dock.view.text() == stage_title(window.state.view, window.state.current_stage, "en")

    window.resize(1920, 1200)  # wide enough for a dock beside the map, the stage list and the stage view
    qtbot.waitUntil(lambda: window.size().toTuple() == (1920, 1200))
    path = tmp_path / "stage-title.stepformer"
    save_lesson(replace(open_lesson("two-heads"), views=("stage_title",)), path)
    assert controller.open_file(path)
    qtbot.waitUntil(lambda: dock.widget.isVisible() and not window.teaching.placement.timer.isActive())
    assert not dock.widget.isFloating() and dock.widget.width() >= DOCK_MIN_WIDTH  # given its share of the width …
    assert not global_rect(dock.widget).intersects(global_rect(window.stage_view))  # … beside it, covering none of it

    window.presentation.present.trigger()  # F5: a window built anew, in presentation mode
    qtbot.waitUntil(lambda: controller.window is not window and controller.window.isVisible())
    presenting = controller.window
    qtbot.waitUntil(lambda: presenting.docks["stage_title"].widget.isVisible())
    presenting.presentation.leave.trigger()  # Esc: the desk's window again
    qtbot.waitUntil(lambda: controller.window is not presenting and controller.window.isVisible())
    desk = controller.window.docks["stage_title"]
    qtbot.waitUntil(desk.widget.isVisible)
    assert desk.view.text() == dock.view.text()
    desk.toggle.trigger()  # hidden, it stays hidden in the next window
    controller.window.presentation.present.trigger()
    qtbot.waitUntil(lambda: controller.window.presenting)
    QApplication.processEvents()
    assert not controller.window.docks["stage_title"].widget.isVisible()
