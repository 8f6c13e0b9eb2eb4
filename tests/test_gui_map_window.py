"""The map in the window: on by default beside the stage view (and in full screen), readable and whole at 1280×720
in both languages without cutting the stage view; a click on a box steps the whole window there; View ▸ The map
and File ▸ Export the map…"""

import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QFileDialog, QInputDialog

from engine.graph import Place
from gui.plots.map_diagram import TITLE_PX
from tests import gui_lessons
from tests.test_gui_fit import every_row_shows, fits_inside

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures
READABLE_PX = 9.5  # a box's name on screen, in pixels: at least this
# Beside the map (180 px for one stack, about 330 for two) at 1280×720 the widest figures need more room than is
# left and are shrunk further: the-cat-sat's sinusoidal positions (7 tokens, matrix and curves) to 1 / 1.36,
# masked-decoder's opening ÷√d_k to 1 / 1.43 (1 / 1.18 without the map); test_gui_fit checks 1.25 with the map
# closed.
SHRUNK_BESIDE_MAP = 1.5


def map_of(qtbot, window):
    """The map dock's view, drawn, at the width it settles on (the stage view re-fits after it)."""
    view = window.map_dock.widget()
    qtbot.waitUntil(lambda: view.figure is not None and view.figure.stage == window.state.current_stage)
    qtbot.waitUntil(lambda: not window.map_dock.width_keeper.timer.isActive())
    qtbot.waitUntil(lambda: not window.stage_view.plot.fit_timer.isActive())
    # and the map, drawn again for its new width (its titles wrap to it), fits it
    qtbot.waitUntil(lambda: not view.timer.isActive() and not view.plot.fit_timer.isActive())
    return view


@pytest.mark.parametrize("lesson", ["two-heads", "masked-decoder", "cross-attention"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_map_is_on_beside_the_stage_view_and_readable_at_1280x720(qtbot, start_window, lesson, lang):
    window = start_window(lesson, lang).window
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.size().toTuple() == (1280, 720))
    assert window.map_dock.isVisible() and window.map_actions["toggle"].isChecked()
    view = map_of(qtbot, window)
    qtbot.waitUntil(lambda: not window.stage_view.plot.fit_timer.isActive())
    for widget in (view.plot, window.stage_view.plot, window.stepper):
        assert fits_inside(widget, window), type(widget).__name__
    assert window.stage_view.plot.scale <= SHRUNK_BESIDE_MAP
    pixel = view.figure.views["map"].viewPixelSize()[0]  # drawing units per screen pixel
    assert TITLE_PX / pixel >= READABLE_PX
    assert view.figure.views["map"].sceneBoundingRect().width() <= view.plot.width() + 1


@pytest.mark.parametrize("lesson", ["the-cat-sat", "cross-attention"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_stage_figure_fits_beside_the_map_at_1280x720(qtbot, start_window, lesson, lang):
    window = start_window(lesson, lang).window
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.size().toTuple() == (1280, 720))
    map_of(qtbot, window)
    state, view, plot = window.state, window.stage_view, window.stage_view.plot
    for name in state.stage_names:
        state.go_to(name)
        qtbot.waitUntil(lambda n=name: view.figure is not None and view.figure.stage == n)
        qtbot.waitUntil(lambda: not plot.fit_timer.isActive())
        assert fits_inside(plot, window) and fits_inside(window.map_dock.widget().plot, window), name
        shown = plot.mapFromScene(plot.ci.geometry()).boundingRect()
        assert QRectF(plot.viewport().rect()).adjusted(-1, -1, 1, 1).contains(QRectF(shown)), name
        assert plot.scale <= SHRUNK_BESIDE_MAP, (name, plot.scale)
        for panel in view.panels():
            assert every_row_shows(panel.table), (name, panel.model.slice.name)


def test_a_click_on_the_map_steps_the_window_there(qtbot, start_window):
    window = start_window("two-heads").window
    view = map_of(qtbot, window)
    ffn = dict(view.figure.items())[Place("enc", 0, 2, "ffn")]
    pos = view.plot.mapFromScene(view.figure.scene_center(ffn))
    qtbot.mouseClick(view.plot.viewport(), Qt.LeftButton, pos=pos)
    assert window.state.current_stage == "enc.0.ffn.up"
    qtbot.waitUntil(lambda: window.stage_view.figure is not None and window.stage_view.figure.stage == "enc.0.ffn.up")
    assert window.stage_list.tree.currentIndex().data() == window.stage_list.leaves[window.state.cursor].text()


def test_the_map_gives_way_in_presentation_mode_and_ctrl_m_brings_it_back(qtbot, start_window):
    controller = start_window("masked-decoder")
    controller.window.presentation.set_presenting(True)  # F5: full screen (a new window, sized for the room)
    qtbot.waitUntil(lambda: controller.window.isFullScreen())
    window = controller.window
    assert not window.map_dock.isVisible()  # the breadcrumb says where we are
    toggle = window.map_actions["toggle"]
    assert toggle in window.menus["view"].actions() and toggle.shortcut().toString() == "Ctrl+M"
    toggle.trigger()
    assert window.map_dock.isVisible()
    view = map_of(qtbot, window)
    assert fits_inside(view.plot, window)
    toggle.trigger()
    assert not window.map_dock.isVisible()
    file_actions = window.menus["file"].actions()
    export_figure = next(a for a in file_actions if a.shortcut().toString() == "Ctrl+E")
    assert file_actions[file_actions.index(export_figure) + 1] is window.map_actions["export"]


def test_file_export_the_map_writes_the_map_at_the_current_stage(qtbot, start_window, tmp_path, monkeypatch):
    window = start_window("masked-decoder").window
    window.state.go_to("dec.0.self_attn.weights")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "m.png"), ""))
    monkeypatch.setattr(QInputDialog, "getInt", lambda *a, **k: (1200, True))
    with qtbot.waitSignal(window.state.message) as message:
        window.map_actions["export"].trigger()
    assert QImage(str(tmp_path / "m.png")).width() == 1200
    assert "Softmax: attention weights" in message.args[0]  # the stage it shows, by its title (no id)
