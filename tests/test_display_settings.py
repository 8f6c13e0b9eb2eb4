"""Every display setting reaches every open view and dock, and both figure exports: the colour map, the text size,
the decimals, the palette, the head, the row, the temperature and the language (gui/state/display.py).

Each setting is changed the way a teacher changes it (the View menu, the head box, a click on a row, the
temperature slider, the Generate panel, the Language menu) and read back from what the views draw: their
pyqtgraph scenes' texts, text sizes, colour maps and outlined rows, and the tables' numbers and colours.
"""

import re

import pyqtgraph as pg
import pytest
from pyqtgraph import ImageItem
from PySide6.QtGui import QFont, QImage, QPalette
from PySide6.QtWidgets import QFileDialog, QGraphicsRectItem, QGraphicsTextItem, QInputDialog

from engine.generate import next_token_distribution
from gui.export import export_figure
from gui.plots.heatmap import SMALLER_NUMBERS, CellNumbers
from gui.plots.scale import color_table
from gui.plots.style import PlotOptions, colormap, font
from gui.plots.view import parked
from gui.state import display
from tests import gui_lessons

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures

LESSON = "cost-of-context"  # a decoder with two heads: every dock has something to draw
STAGE = "dec.0.self_attn.weights"
SIZES = ("title", "caption", "tick", "text")


def open_every_dock(qtbot, window) -> None:
    """Every dock shown and in sight: the What-if dock, opened tabbed behind the heads (where it draws nothing),
    floats beside them. (Shown once the window's docks are placed: a composed slide, at this size, keeps one.)"""
    views = window.teaching
    qtbot.waitUntil(lambda: not views.placement.timer.isActive())
    window.map_dock.show()
    for dock in views.docks():
        dock.show()
    views.whatif_dock.setFloating(True)
    views.whatif.show_switch("no_mask")  # the tab that shows one head's attention


def figures(window) -> dict:
    docks = window.teaching
    return {
        "stage view": window.stage_view.plot,
        "heads": docks.heads.plot,
        "what if": docks.whatif.plots["no_mask"],
        "KV cache": docks.kv_cache.plot,
        "generate": docks.generation.plot,
        "cost": docks.cost.plot,
        "map": window.map_dock.widget().plot,
    }


def shown(view, kind) -> list:
    return [item for item in view.scene().items() if isinstance(item, kind) and item.isVisible() and not parked(item)]


def texts(view, legends: bool = True) -> str:
    """The figure's texts; without `legends`, less the legends' entries (a legend names every head)."""
    return "\n".join(item.toPlainText() for item in shown(view, QGraphicsTextItem) if legends or not in_legend(item))


def in_legend(item) -> bool:
    while item is not None and not isinstance(item, pg.LegendItem):
        item = item.parentItem()
    return item is not None


def text_sizes(view) -> set[int]:
    """The point sizes the figure's captions, labels and cell numbers are written in."""
    return {
        int(size)
        for item in shown(view, QGraphicsTextItem)
        for size in re.findall(r"font-size:\s*(\d+)pt", item.toHtml())
    } | {item.font.pointSize() for item in shown(view, CellNumbers)}


def colour_maps(view) -> set[str]:
    return {item.getColorMap().name for item in shown(view, ImageItem) if item.getColorMap() is not None}


def outlined_rows(view) -> set[int]:
    """The rows a heatmap outlines as the selected one (a frame one cell high across the whole matrix)."""
    return {
        round(item.rect().y())
        for item in shown(view, QGraphicsRectItem)
        if item.pen().width() == 3 and item.rect().height() == 1 and item.rect().width() > 1
    }


def sizes_at(scale: float) -> set[int]:
    sizes = {font(PlotOptions(font_scale=scale), size) for size in SIZES}
    smaller = QFont(font(PlotOptions(font_scale=scale), "text"))  # cells' numbers that do not fit at the text size
    smaller.setPointSizeF(smaller.pointSizeF() * SMALLER_NUMBERS)
    return {f.pointSize() for f in (*sizes, smaller)}


def maps_of(name: str) -> set[str]:
    return {colormap(PlotOptions(colormap=name), signed).name for signed in (True, False)}


@pytest.fixture
def lesson(start_window, qtbot):
    controller = start_window(LESSON)
    open_every_dock(qtbot, controller.window)
    controller.state.go_to(STAGE)
    qtbot.waitUntil(lambda: all(texts(view) for view in figures(controller.window).values()))
    return controller


def window_after_change(qtbot, controller):
    """The window now (the text size comes with a new one, whose composed slide keeps one dock), every dock open
    again."""
    window = controller.window
    open_every_dock(qtbot, window)
    return window


def test_colour_blind_safe_colours_reach_every_table_and_figure_without_a_new_window(qtbot, lesson):
    window = lesson.window
    for name in ("stage view", "heads", "what if", "KV cache"):
        maps = colour_maps(figures(window)[name])
        assert maps and maps <= maps_of("default"), (name, maps)
    window.presentation.cb_safe.trigger()
    assert lesson.window is window

    def follows():
        for name in ("stage view", "heads", "what if", "KV cache"):  # the figures that draw a colour map
            maps = colour_maps(figures(window)[name])
            assert maps and maps <= maps_of("cb-safe"), (name, maps)
        table = window.stage_view.output.model
        assert table.color(0, 0) in color_table("cb-safe", True) + color_table("cb-safe", False)

    qtbot.waitUntil(follows)


def test_larger_text_reaches_every_figure(qtbot, lesson):
    for name, view in figures(lesson.window).items():
        assert text_sizes(view) and text_sizes(view) <= sizes_at(1.0), name
    for _ in range(3):  # 1.0 → 1.15 → 1.3 → 1.5
        lesson.window.presentation.larger.trigger()
    window = window_after_change(qtbot, lesson)

    def follows():
        for name, view in figures(window).items():
            assert text_sizes(view) and text_sizes(view) <= sizes_at(1.5), (name, text_sizes(view))

    qtbot.waitUntil(follows)


DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])")  # a number with decimals, alone or in a caption


def decimals_of(view) -> set[int]:
    """How many decimals the figure's cell numbers and captions print ("0.452": 3)."""
    written = [text for item in shown(view, CellNumbers) for text in item.texts()] + texts(view).split("\n")
    return {len(number.split(".")[1]) for text in written for number in DECIMAL.findall(text)}


def test_decimals_reach_the_tables_and_figures_in_place_and_are_the_matrix_export_default(
    qtbot, lesson, monkeypatch, tmp_path
):
    window = lesson.window
    window.resize(1920, 1080)  # room for the cells' numbers
    start = lesson.state.display.decimals
    counts = {"cost", "map"}  # multiply-adds and bytes ("1.5 KB"), no matrix numbers
    with_numbers = [name for name, view in figures(window).items() if decimals_of(view) and name not in counts]
    assert {"stage view", "generate"} <= set(with_numbers), with_numbers
    before = {name: decimals_of(figures(window)[name]) for name in with_numbers}
    assert before == dict.fromkeys(with_numbers, {start}), before
    three = next(a for a in window.presentation.decimals.actions() if a.data() == 3)
    assert start != 3
    three.trigger()
    assert lesson.window is window
    table = window.stage_view.output.model
    assert len(table.text(0, 0).split(".")[1]) == 3
    qtbot.waitUntil(
        lambda: {name: decimals_of(figures(window)[name]) for name in with_numbers} == dict.fromkeys(with_numbers, {3})
    )
    asked = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "m.csv"), ""))
    monkeypatch.setattr(QInputDialog, "getInt", lambda _p, _t, _l, value, *a: asked.append(value) or (0, False))
    window.export_matrix()  # the decimals are asked for (with the window's as the default), then cancelled
    assert asked == [3] and not (tmp_path / "m.csv").exists()


def test_projector_palette_reaches_every_view_and_dock_of_the_window_that_is_open(qtbot, lesson):
    window = lesson.window
    docks = window.teaching
    views = {
        "stage list": window.stage_list,
        "stage view": window.stage_view,
        **{f"table {panel.model.slice.name}": panel.table for panel in window.stage_view.panels()},
        **{dock.objectName(): dock.widget() for dock in (*docks.docks(), window.map_dock)},
    }
    projector = display.projector_palette()

    def colours(widget) -> tuple[str, ...]:
        palette = widget.palette()
        return tuple(palette.color(role).name() for role in (QPalette.Window, QPalette.Base, QPalette.Highlight))

    wanted = tuple(projector.color(role).name() for role in (QPalette.Window, QPalette.Base, QPalette.Highlight))
    assert all(colours(view) != wanted for view in views.values())  # the system's palette until now
    window.presentation.projector.trigger()
    assert lesson.window is window and window.presentation.projector.isChecked()
    qtbot.waitUntil(lambda: {name: colours(view) for name, view in views.items() if colours(view) != wanted} == {})


def test_the_head_reaches_every_view_that_shows_one(qtbot, lesson):
    window = lesson.window
    window.stage_view.controls.head_box.activated.emit(1)

    def follows():
        for name in ("stage view", "what if", "KV cache"):
            shown_texts = texts(figures(window)[name], legends=False)
            assert "head 1" in shown_texts and "head 0" not in shown_texts, name

    qtbot.waitUntil(follows)


def test_the_selected_row_reaches_every_view_that_outlines_one(qtbot, lesson):
    window, first = lesson.window, lesson.state.row
    for name in ("stage view", "heads"):
        assert outlined_rows(figures(window)[name]) == {first}, name
    lesson.state.set_row(2 if first != 2 else 1)
    row = lesson.state.row
    qtbot.waitUntil(lambda: all(outlined_rows(figures(window)[name]) == {row} for name in ("stage view", "heads")))


def test_the_temperature_is_one_number_for_the_output_bars_and_the_next_token(qtbot, lesson):
    window, state = lesson.window, lesson.state
    state.go_to("probs")
    generation = window.teaching.generation
    window.stage_view.controls.temp_slider.setValue(20)  # T = 2
    assert generation.temperature.value() == 2.0
    qtbot.waitUntil(lambda: "T = 2)" in texts(figures(window)["stage view"]))
    k = generation.top_k.value() or None
    assert generation.next_choice().probs.tolist() == next_token_distribution(state.trace, 2.0, k).tolist()
    generation.temperature.setValue(0.5)
    assert "0.5" in window.stage_view.controls.temp_label.text() and window.stage_view.controls.temp_slider.value() == 5
    qtbot.waitUntil(lambda: "T = 0.5)" in texts(figures(window)["stage view"]))


def test_the_language_reaches_every_view_and_dock(qtbot, lesson):
    next(a for a in lesson.window.menus["language"].actions() if a.data() == "zh").trigger()
    window = window_after_change(qtbot, lesson)
    chinese = re.compile(r"[\u4e00-\u9fff]")

    def follows():
        for name, view in figures(window).items():
            assert chinese.search(texts(view)), name

    qtbot.waitUntil(follows)


@pytest.mark.parametrize("stage", [STAGE, "probs"])
def test_file_export_and_right_click_export_draw_the_same_figure(qtbot, lesson, monkeypatch, tmp_path, stage):
    window, state = lesson.window, lesson.state
    state.go_to(stage)
    window.presentation.cb_safe.trigger()
    window = window_after_change(qtbot, lesson)
    window.stage_view.controls.head_box.activated.emit(1)
    state.set_row(2)
    window.stage_view.controls.temp_slider.setValue(20)
    path = {"now": ""}
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (path["now"], ""))
    monkeypatch.setattr(QInputDialog, "getInt", lambda *a, **k: (800, True))
    path["now"] = str(tmp_path / "menu.png")
    window.export_figure()  # File ▸ Export figure…
    path["now"] = str(tmp_path / "right-click.png")
    menu = {a.text(): a for a in window.stage_view.plot.context_menu().actions()}
    menu["Export figure…"].trigger()
    menu_figure, right_click = QImage(str(tmp_path / "menu.png")), QImage(str(tmp_path / "right-click.png"))
    assert not menu_figure.isNull() and menu_figure == right_click
    # … and both are the figure of the settings the teacher chose, not of the defaults
    decimals = lesson.state.display.decimals  # the lesson's own
    chosen = PlotOptions(head=1, row=2, temperature=2.0, colormap="cb-safe", decimals=decimals)
    for name, opts in (("chosen.png", chosen), ("default.png", PlotOptions(decimals=decimals))):
        export_figure(state.view, stage, opts, tmp_path / name, width=800)
    assert menu_figure == QImage(str(tmp_path / "chosen.png"))
    assert menu_figure != QImage(str(tmp_path / "default.png"))
