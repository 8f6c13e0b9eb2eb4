"""Presentation mode and settings: F5 / Esc presentation mode in full screen, Ctrl+= / Ctrl+− text and numbers for
the back row, projector palette, colour-blind-safe colours, decimals, a presenter clicker's PageUp / PageDown, and
every choice (with play speed and window layout) kept for the next start; the menu acts on the display settings and
holds no controller. (tests/test_gui_present_mode.py checks what presentation mode shows.)"""

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from gui.lesson.controller import LessonController
from gui.plots.scale import color_table
from gui.state import display, preferences
from tests import gui_lessons
from tests.gui_window import panel_for

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures


def focus_table(qtbot, window, name: str):
    table = panel_for(window, name).table
    table.setFocus()
    qtbot.waitUntil(table.hasFocus)
    return table


def key_into_new_window(qtbot, controller, key):
    """Press `key` in the window's W_Q table; the window is rebuilt (presentation mode on or off): the new one."""
    old = controller.window
    qtbot.keyClick(focus_table(qtbot, old, "enc.0.attn.W_Q"), key)
    qtbot.waitUntil(lambda: controller.window is not old and controller.window.isVisible())
    return active(qtbot, controller.window)


def active(qtbot, window):
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    return window


def presenting(qtbot, controller):
    """Presentation mode turned on from the menu: the new window, full screen."""
    old = controller.window
    old.presentation.present.trigger()
    qtbot.waitUntil(lambda: controller.window is not old and controller.window.isVisible())
    return active(qtbot, controller.window)


def test_f5_and_escape_switch_presentation_mode_in_full_screen(qtbot, start_window):
    controller = start_window("two-heads")
    window = key_into_new_window(qtbot, controller, Qt.Key_F5)
    assert window.isFullScreen() and window.presentation.present.isChecked() and controller.state.display.presenting
    window = key_into_new_window(qtbot, controller, Qt.Key_Escape)
    assert not window.isFullScreen() and not window.presentation.present.isChecked()
    key_into_new_window(qtbot, controller, Qt.Key_F5)
    window = key_into_new_window(qtbot, controller, Qt.Key_F5)
    assert not window.isFullScreen() and not controller.state.display.presenting


def test_the_menu_acts_on_the_display_settings_and_holds_no_controller(qtbot, start_window):
    controller = start_window("two-heads")
    menu, settings = controller.window.presentation, controller.state.display
    assert not any(isinstance(v, LessonController) for v in vars(menu).values())
    settings.changed.disconnect(controller._display_changed)  # only the test listens: nothing is rebuilt
    changes = []
    settings.changed.connect(changes.append)
    menu.present.trigger()
    assert settings.presenting and settings.room_scale >= 1
    menu.larger.trigger()
    menu.leave.trigger()
    assert [c - {"room_scale"} for c in changes] == [{"presenting"}, {"font_scale"}, {"presenting"}]
    assert not settings.presenting and settings.room_scale == 1.0


def test_escape_while_typing_a_number_cancels_only_the_edit(qtbot, start_window):
    controller = start_window("two-heads")
    window, state = presenting(qtbot, controller), controller.state
    table = focus_table(qtbot, window, "enc.0.attn.W_Q")
    table.edit(table.model().index(0, 0))
    editor = table.focusWidget()
    editor.setText("9")
    qtbot.keyClick(editor, Qt.Key_Escape)
    assert window.isFullScreen() and float(state.trace["enc.0.attn.W_Q"][0, 0]) != 9.0


def test_a_presenter_clicker_steps_with_page_up_and_down(qtbot, start_window):
    controller = start_window("two-heads")
    window, state = presenting(qtbot, controller), controller.state
    start = state.cursor
    for widget in (focus_table(qtbot, window, "enc.0.attn.W_Q"), window.stage_view, window.breadcrumb):
        widget.setFocus()
        qtbot.keyClick(widget, Qt.Key_PageDown)
        assert state.cursor == start + 1
        qtbot.keyClick(widget, Qt.Key_PageUp)
        assert state.cursor == start


def test_ctrl_plus_and_minus_scale_text_and_numbers(qtbot, start_window):
    controller = start_window("two-heads")
    state = controller.state
    state.go_to("enc.0.attn.q")

    def sizes():
        window = controller.window
        table = panel_for(window, "enc.0.attn.W_Q").table
        return (
            table.font().pointSizeF(),
            window.stage_view.title.font().pointSizeF(),
            window.state.display.plot_options().font_scale,
            table.horizontalHeader().defaultSectionSize(),
        )

    before = sizes()
    table = focus_table(qtbot, controller.window, "enc.0.attn.W_Q")
    qtbot.keyClick(table, Qt.Key_Equal, Qt.ControlModifier)
    qtbot.keyClick(focus_table(qtbot, controller.window, "enc.0.attn.W_Q"), Qt.Key_Equal, Qt.ControlModifier)
    larger = sizes()
    assert state.display.font_scale == 1.3 and preferences.read("display/font_scale", 1.0) == 1.3
    assert all(big > small for big, small in zip(larger, before)), (larger, before)
    assert state.current_stage == "enc.0.attn.q"  # the lesson stays where it was
    qtbot.keyClick(focus_table(qtbot, controller.window, "enc.0.attn.W_Q"), Qt.Key_Minus, Qt.ControlModifier)
    assert state.display.font_scale == 1.15
    qtbot.keyClick(focus_table(qtbot, controller.window, "enc.0.attn.W_Q"), Qt.Key_0, Qt.ControlModifier)
    assert sizes() == before


def test_palette_colours_and_decimals_are_chosen_and_kept(qtbot, start_window):
    controller = start_window("two-heads")
    controller.state.go_to("enc.0.attn.q")
    menu = controller.window.presentation
    menu.projector.trigger()
    palette = QApplication.instance().palette()
    assert palette.color(QPalette.Base).name() == "#ffffff" and palette.color(QPalette.Text).name() == "#000000"
    controller.window.presentation.cb_safe.trigger()
    model = panel_for(controller.window, "enc.0.attn.W_Q").model
    colors = color_table("cb-safe", model.scale.signed)  # the plots' own map, of the kind the numbers need
    assert model.color(0, 0) in colors and controller.state.display.plot_options().colormap == "cb-safe"
    three = next(a for a in controller.window.presentation.decimals.actions() if a.data() == 3)
    three.trigger()
    model = panel_for(controller.window, "enc.0.attn.W_Q").model
    assert len(model.text(0, 0).split(".")[1]) == 3
    window = controller.window
    assert window.presentation.projector.isChecked() and window.presentation.cb_safe.isChecked()

    again = display.DisplaySettings()  # as on the next start
    again.load()
    assert (again.font_scale, again.decimals, again.colormap, again.palette) == (1.0, 3, "cb-safe", "projector")


def test_window_layout_and_play_speed_are_kept(qtbot, start_window):
    controller = start_window("two-heads")
    controller.window.stepper.pace.setValue(4.5)
    controller.window.setGeometry(20, 30, 900, 560)
    presenting(qtbot, controller).close()
    assert not controller.window.isFullScreen()  # left before its place is stored: F5 again next time
    assert not controller.state.display.presenting
    again = LessonController(gui_lessons.state_for("two-heads"), "en", prompts=gui_lessons.FakePrompts())
    window = again.show_window()
    assert window.height() == 560 and window.stepper.pace.value() == 4.5  # (the offscreen screen is narrow)
    assert not window.menuBar().isHidden() and not window.stage_list.isHidden()  # the desk's layout was stored
    window.close()
