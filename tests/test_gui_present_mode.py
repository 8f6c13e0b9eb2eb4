"""Presentation mode for the back row: type of 24 px and more at 1920×1080 in every widget (the formula 32 px), the
chrome folded into a breadcrumb of human names, every table whole or scrollable at every stage, the clicker's keys,
and the desk's layout given back exactly; at 1280×720 with Ctrl+= twice no table is cut either; the What-if dock
on the switch just turned on; docks that share the slide with the stage view at 1280×720 and in presentation mode, one
at a time, beside it, covering none of it (the sweep over every lesson and dock: tests/test_gui_slide_layout.py)."""

import math
from html import escape

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QFontInfo, QFontMetrics
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QGraphicsTextItem,
    QHeaderView,
    QLabel,
    QLineEdit,
    QToolBar,
    QWidget,
)

from gui.docks.placement import DOCK_MIN_WIDTH, STAGE_MIN_WIDTH
from gui.plots.axis import Axis
from gui.plots.heatmap import CellNumbers
from gui.plots.view import figure_axes, parked
from gui.state import display
from gui.text.stage_texts import op_title
from gui.views.stage_list import NAME_ROLE
from gui.views.steady_label import wrapped_line_heights
from tests import gui_lessons
from tests.figure_checks import view_problems
from tests.test_gui_layout import stages

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures

LESSONS = ["the-cat-sat", "masked-decoder", "cross-attention"]
TEXT_PX, FORMULA_PX = 24, 32
LABEL_CHARS = 16  # token labels up to this long are shown whole in the tables' headers
USABLE = (300, 150)  # the matrices area shows at least this much of them (or all), scrolling to the rest


def present(qtbot, controller, size: tuple[int, int]):
    """Presentation mode with the type for a screen of `size`, shown in a window of that size (the offscreen
    screen is smaller than a projector's)."""
    settings = controller.state.display
    settings.set(presenting=True, room_scale=display.room_scale_for(*size))
    window = controller.window
    qtbot.waitUntil(window.isVisible)
    window.setWindowState(Qt.WindowNoState)  # (no longer full screen: the type stays as it is)
    window.resize(*size)
    qtbot.waitUntil(lambda: window.size().toTuple() == size)
    assert settings.presenting and window.presenting
    return window


def presenting(qtbot, controller):
    """Presentation mode turned on from the menu (full screen): the new window."""
    old = controller.window
    old.presentation.present.trigger()
    qtbot.waitUntil(lambda: controller.window is not old and controller.window.isVisible())
    return controller.window


def larger_twice(qtbot, controller):
    for _ in range(2):
        old = controller.window
        old.presentation.larger.trigger()
        qtbot.waitUntil(lambda o=old: controller.window is not o and controller.window.isVisible())
    assert controller.state.display.font_scale == 1.3
    return controller.window


def go(qtbot, window, name: str) -> None:
    """Step to a stage and wait until its figure is drawn and the matrices are laid out."""
    view = window.stage_view
    window.state.go_to(name)
    qtbot.waitUntil(lambda: view.figure is not None and view.figure.stage == name)
    qtbot.waitUntil(lambda: not view.plot.fit_timer.isActive())
    QApplication.processEvents()


def shown(widget: QWidget, window) -> bool:
    return widget.isVisible() and widget.window() is window and widget.width() > 0 and widget.height() > 0


def text_widgets(window) -> list[QWidget]:
    """Every visible widget that shows text: labels, buttons, boxes, tables and their headers."""
    kinds = (QLabel, QAbstractButton, QComboBox, QLineEdit, QAbstractItemView, QHeaderView)
    found = [w for w in window.findChildren(QWidget) if isinstance(w, kinds) and shown(w, window)]
    return [w for w in found if not isinstance(w, QLabel) or w.text().strip()]


def pixels(widget: QWidget) -> int:
    return QFontInfo(widget.font()).pixelSize()


def visible_texts(window) -> list[str]:
    """What the class reads: the widgets' text (not their tooltips) and the stage figure's titles and labels."""
    texts = []
    for w in text_widgets(window):
        if isinstance(w, (QLabel, QAbstractButton, QLineEdit)):
            texts.append(w.text())
        elif isinstance(w, QComboBox):
            texts.append(w.currentText())
    scene = window.stage_view.plot.scene()
    for item in scene.items():
        if isinstance(item, QGraphicsTextItem) and item.isVisible() and not parked(item):
            texts.append(item.toPlainText())
        elif isinstance(item, CellNumbers) and not parked(item):
            texts += item.texts()
    return texts


def cut_tables(window) -> list[str]:
    """The stage view's tables that are cut: a table small enough to show whole (within its own scroll limit) that
    scrolls inside itself, one whose row or column labels are clipped, one the matrices area cannot scroll into
    view, or an area squeezed to a sliver."""
    view = window.stage_view
    box = view.matrices_box
    viewport = box.viewport()
    room = QRect(viewport.mapTo(window, viewport.rect().topLeft()), viewport.size())
    content = view.matrices.size()
    if (
        not window.rect().contains(room)
        or room.width() < min(content.width(), USABLE[0])
        or room.height() < min(content.height(), USABLE[1])
    ):
        return [f"matrices area {room} for {content.toTuple()} in a {window.size().toTuple()} window"]
    cut = []
    for panel in view.panels():
        table, name = panel.table, panel.model.slice.name
        content, limit = table.content_size(), table.minimumSizeHint()
        whole = content.width() <= limit.width() and content.height() <= limit.height()
        scrolls = table.horizontalScrollBar().maximum() > 0 or table.verticalScrollBar().maximum() > 0
        if whole and scrolls:
            cut.append(f"{name} scrolls inside itself ({content.toTuple()} in {table.size().toTuple()})")
        if table.verticalScrollBar().isVisible() and table.horizontalScrollBar().maximum() > 0:
            if table.width() >= content.width():  # its columns fit: only its own scroll bar covers the last one
                cut.append(
                    f"{name}'s scroll bar covers its last column ({content.toTuple()} in {table.size().toTuple()})"
                )
        clipped = [
            label
            for label in panel.model.row_labels
            if len(label) <= LABEL_CHARS
            and QFontMetrics(table.verticalHeader().font()).horizontalAdvance(label) + 6
            > table.verticalHeader().width()
        ]
        clipped += [
            label
            for label in panel.model.col_labels
            if len(label) <= LABEL_CHARS
            and QFontMetrics(table.horizontalHeader().font()).horizontalAdvance(label) + 6
            > table.horizontalHeader().defaultSectionSize()
        ]
        if clipped:
            cut.append(f"{name}: labels clipped: {clipped}")
        corner = table.mapTo(view.matrices, table.rect().bottomRight())
        if (
            corner.x() > viewport.width() + box.horizontalScrollBar().maximum()
            or corner.y() > viewport.height() + box.verticalScrollBar().maximum()
        ):
            cut.append(f"{name} lies beyond what the matrices area scrolls to")
    return cut


def below_the_fold(window) -> list[str]:
    """The tables that are not wholly in sight without scrolling the matrices area, at a stage whose tables are each
    narrower than the area (a wider one, such as W1 with d_ff = 16 columns, scrolls whatever the arrangement)."""
    view = window.stage_view
    viewport = view.matrices_box.viewport()
    if any(panel.table.content_size().width() > viewport.width() for panel in view.panels()):
        return []
    return [
        f"{panel.model.slice.name} ends at {corner.toTuple()} in a {viewport.size().toTuple()} area"
        for panel in view.panels()
        for corner in [panel.table.mapTo(viewport, panel.table.rect().bottomRight())]
        if not viewport.rect().contains(corner)
    ]


@pytest.mark.parametrize("lesson", LESSONS)
def test_at_1920x1080_every_stage_is_readable_from_the_back_row(qtbot, start_window, lesson):
    controller = start_window(lesson)
    window = present(qtbot, controller, (1920, 1080))
    state = window.state
    assert not window.menuBar().isVisible() and not window.stage_list.isVisible()
    assert not any(bar.isVisible() for bar in window.findChildren(QToolBar))
    assert not window.sentence_row.isVisible() and not window.stepper.isVisible()
    assert window.breadcrumb.isVisible()
    ids = [i for i in {*state.stage_names, *state.trace.params} if "." in i]  # ("logits" is a word too)
    for name in state.stage_names:
        go(qtbot, window, name)
        small = [
            (type(w).__name__, getattr(w, "text", lambda: "")(), pixels(w))
            for w in text_widgets(window)
            if pixels(w) < TEXT_PX
        ]
        assert not small, (name, small)
        assert pixels(window.stage_view.formula) >= FORMULA_PX, name
        assert window.stage_view.plot_options().font_scale == state.display.type_scale > 2
        crumbs = window.breadcrumb.crumbs()
        assert crumbs[-1] in window.breadcrumb.path.text() and len(crumbs) >= 2, name
        shown_ids = [(i, t) for t in visible_texts(window) for i in ids if i in t]
        assert not shown_ids, (name, shown_ids)
        assert not cut_tables(window), (name, cut_tables(window))
        assert not below_the_fold(window), (name, below_the_fold(window))


# Each language at both screen sizes, in an order that builds each of the four windows anew in its language and
# size (a size in presentation mode is a new window; the language switches in place between the two English ones
# and the first Chinese one, which is then built).
LANGUAGES_AND_SIZES = [("en", (1920, 1080)), ("en", (1280, 720)), ("zh", (1920, 1080)), ("zh", (1280, 720))]


@pytest.mark.parametrize("lesson", LESSONS)
def test_presentation_figures_overlap_nothing_and_name_every_token(qtbot, start_window, lesson):
    """At every forward stage, in presentation mode at both screen sizes and in both languages: no table is cut, no
    text of the figure overlaps another or a cell's number, no tick mark touches a number, nothing lies outside the
    view, and every token axis names every token (the desk's figures: tests/test_gui_layout.py). One lesson's
    controller serves the four windows (a new controller for each cost a lesson opened and a desk window drawn)."""
    controller = start_window(lesson)
    failures = []
    for lang, size in LANGUAGES_AND_SIZES:
        before = controller.window
        controller.set_language(lang)  # (in place, in the window of the size before)
        window = present(qtbot, controller, size)
        assert window is not before and controller.state.display.lang == lang  # built anew, in this language
        failures += [f"{lang} {size[0]}×{size[1]}: {problem}" for problem in figure_problems(qtbot, window)]
    assert not failures, "\n".join(failures[:40])


def figure_problems(qtbot, window) -> list[str]:
    """What is wrong at each forward stage: tables cut, and the figure's problems (view_problems)."""
    state, failures, checked = window.state, [], 0
    for cursor in stages(state, backward=False):
        name = state.stage_names[cursor]
        go(qtbot, window, name)
        failures += [f"{name}: {problem}" for problem in cut_tables(window)]
        view = window.stage_view
        if view.plot.isHidden():  # no figure beyond the tables: they take the width
            continue
        checked += 1
        view.plot.grab()
        failures += [f"{name}: {problem}" for problem in view_problems(view.plot, view.figure, state.view)]
    assert checked >= 6  # (the stages whose figure adds to the tables)
    return failures


@pytest.mark.parametrize("lesson", LESSONS)
def test_at_1280x720_with_ctrl_plus_twice_no_table_is_cut(qtbot, start_window, lesson):
    controller = start_window(lesson)
    present(qtbot, controller, (1280, 720))
    window = larger_twice(qtbot, controller)
    assert window.presentation.present.isChecked() and window.breadcrumb.isVisible()
    for name in window.state.stage_names:
        go(qtbot, window, name)
        assert not cut_tables(window), (name, cut_tables(window))


def test_at_the_desk_ctrl_plus_twice_at_1280x720_cuts_no_table(qtbot, start_window):
    controller = start_window("the-cat-sat")
    controller.window.resize(1280, 720)
    window = larger_twice(qtbot, controller)
    assert window.size().toTuple() == (1280, 720) and not controller.state.display.presenting
    for name in window.state.stage_names:
        go(qtbot, window, name)
        assert not cut_tables(window), (name, cut_tables(window))


def test_the_breadcrumb_names_the_stage_in_chinese(qtbot, start_window):
    controller = start_window("two-heads", "zh")
    window = present(qtbot, controller, (1920, 1080))
    go(qtbot, window, "enc.0.attn.weights")
    text = window.breadcrumb.path.text()
    assert "编码器" in text and "自注意力" in text and "enc.0" not in text
    assert window.breadcrumb.path.toolTip() == "enc.0.attn.weights"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_tree_the_breadcrumb_and_the_stage_view_give_a_stage_one_title(qtbot, start_window, lang):
    """In cross-attention too: "Cross-attention weights: which source words", not the self-attention title."""
    controller = start_window("cross-attention", lang)
    desk = controller.window
    go(qtbot, desk, "dec.0.cross_attn.weights")
    title = desk.stage_view.title.text()
    assert title == op_title("cross_attn.weights", lang) != op_title("attn.weights", lang)
    leaves = {leaf.data(NAME_ROLE): leaf.text() for leaf in desk.stage_list.leaves}
    assert leaves["dec.0.cross_attn.weights"] == title
    window = present(qtbot, controller, (1920, 1080))
    assert window.breadcrumb.crumbs()[-1] == title and escape(title) in window.breadcrumb.path.text()


def test_the_figure_leaves_out_heatmaps_that_repeat_the_tables(qtbot, start_window):
    from gui.plots.matrix import MatrixPanel

    window = present(qtbot, start_window("two-heads"), (1920, 1080))
    go(qtbot, window, "enc.0.attn.weights")
    panels = window.stage_view.figure.panels
    assert panels and not any(isinstance(p, MatrixPanel) for p in panels)
    assert window.stage_view.plot.isVisible()
    go(qtbot, window, "enc.0.attn.scores")  # a heatmap of the output only: the tables take the whole width
    assert not window.stage_view.plot.isVisible()
    assert window.stage_view.matrices_box.width() > window.width() * 0.9


def test_clicker_keys_step_and_escape_leaves(qtbot, start_window):
    controller = start_window("two-heads")
    window = present(qtbot, controller, (1920, 1080))
    state = window.state
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    focus = window.stage_view
    state.set_cursor(3)
    for key, cursor in (
        (Qt.Key_PageDown, 4),
        (Qt.Key_Right, 5),
        (Qt.Key_Space, 6),
        (Qt.Key_PageUp, 5),
        (Qt.Key_Left, 4),
        (Qt.Key_End, len(state.stage_names) - 1),
        (Qt.Key_Home, 0),
    ):
        qtbot.keyClick(focus, key)
        assert state.cursor == cursor, key
    qtbot.keyClick(focus, Qt.Key_H, Qt.ControlModifier)  # the menus' shortcuts work with the menus hidden
    assert window.teaching.heads_dock.isVisible()
    qtbot.keyClick(focus, Qt.Key_Escape)
    qtbot.waitUntil(lambda: controller.window is not window)
    assert not state.display.presenting and controller.window.menuBar().isVisible()
    assert state.cursor == 0


def settled(qtbot, window):
    """`window` laid out for its size: its docks placed (placement waits REFIT_DELAY_MS after a resize or show) and
    the layout they ask for done."""
    qtbot.waitUntil(lambda: not window.teaching.placement.timer.isActive())
    QApplication.processEvents()


def test_leaving_presentation_mode_gives_back_the_desk_exactly(qtbot, start_window):
    controller = start_window("masked-decoder")
    window = controller.window
    window.resize(1500, 950)
    qtbot.waitUntil(lambda: window.size().toTuple() == (1500, 950))
    window.teaching.heads_action.trigger()
    go(qtbot, window, "dec.0.self_attn.masked")
    settled(qtbot, window)
    window.splitter.setSizes([300, window.splitter.width() - 300])  # the stage view narrower than a dock would leave it
    settled(qtbot, window)
    font = QApplication.font()

    def desk(w):
        docks = [d for d in w.findChildren(pg.QtWidgets.QDockWidget) if d.isVisible()]
        return (
            w.geometry(),
            w.windowState(),
            w.splitter.sizes(),
            w.menuBar().isVisible(),
            [bar.isVisible() for bar in w.findChildren(QToolBar)],
            w.stage_list.isVisible(),
            sorted((d.objectName(), d.isFloating()) for d in docks),
            sorted(d.geometry().translated(-w.geometry().topLeft()) for d in docks if d.isFloating()),
            w.stage_view.title.isVisible(),
            w.stepper.isVisible(),
        )

    before = desk(window)
    assert not window.teaching.heads_dock.isFloating() and window.stage_view.width() < STAGE_MIN_WIDTH
    shown = presenting(qtbot, controller)
    assert shown.isFullScreen() and shown.presenting and not shown.stage_list.isVisible()
    shown.presentation.larger.trigger()  # for the room only
    shown = controller.window
    qtbot.waitUntil(shown.isVisible)
    assert shown.isFullScreen() and shown.presenting
    shown.presentation.leave.trigger()
    after = controller.window
    qtbot.waitUntil(lambda: after.isVisible() and after.size().toTuple() == (1500, 950))
    settled(qtbot, after)
    assert desk(after) == before, (desk(after), before)
    settings, fresh = controller.state.display, display.DisplaySettings()
    assert QApplication.font() == font and not settings.presenting and settings.type_scale == fresh.type_scale
    assert controller.state.current_stage == "dec.0.self_attn.masked"


def test_a_dock_at_1280x720_stays_beside_the_stage_view_through_presentation_mode(qtbot, start_window):
    """At 1280×720 there is no room for a dock beside a stage view of STAGE_MIN_WIDTH: the dock floated over the stage
    view's right part (and again after presentation mode). The slide is composed now: the dock stands beside the
    stage view, covering none of it, at the desk, in presentation mode and back at the desk."""
    controller = start_window("masked-decoder")
    window = controller.window
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.size().toTuple() == (1280, 720))
    window.teaching.heads_action.trigger()

    def beside_stage(w):
        dock, view = w.teaching.heads_dock, w.stage_view
        return dock.isVisible() and not dock.isFloating() and not global_rect(dock).intersects(global_rect(view))

    settled(qtbot, window)
    assert beside_stage(window)
    shown = presenting(qtbot, controller)
    settled(qtbot, shown)
    assert beside_stage(shown)
    shown.presentation.leave.trigger()
    qtbot.waitUntil(lambda: controller.window is not shown and controller.window.isVisible())
    settled(qtbot, controller.window)
    assert beside_stage(controller.window)


def test_a_dock_beside_the_stage_view_and_the_map_leaves_the_stage_view_its_least_width(qtbot, start_window):
    """The placement counted 24 px for the window's margins, the splitter's handle and the docks' separators; with the
    map on the other side they are 28 (Fusion), and the stage view kept 716 px of its STAGE_MIN_WIDTH."""
    controller = start_window("masked-decoder")
    window = controller.window
    window.resize(1920, 1080)
    qtbot.waitUntil(lambda: window.size().toTuple() == (1920, 1080))
    assert window.map_dock.isVisible()
    window.teaching.heads_action.trigger()
    settled(qtbot, window)
    assert window.stage_view.width() == STAGE_MIN_WIDTH, window.stage_view.width()


def test_the_whatif_dock_shows_the_switch_just_turned_on_and_keeps_it(qtbot, start_window):
    controller = start_window("two-heads")
    views = controller.window.teaching
    views.switches.actions["no_scale"].trigger()
    assert views.whatif_dock.isVisible() and views.whatif.switch() == "no_scale"
    old = controller.window
    old.presentation.larger.trigger()  # a new window (a larger text size): the dock as it was
    qtbot.waitUntil(lambda: controller.window is not old and controller.window.isVisible())
    views = controller.window.teaching
    qtbot.waitUntil(views.whatif_dock.isVisible)
    assert views.whatif.switch() == "no_scale"
    window = present(qtbot, controller, (1280, 720))
    assert window.teaching.whatif.switch() == "no_scale"


@pytest.mark.parametrize("docks", [["heads"], ["generation"], ["kv_cache"], ["whatif"], ["heads", "generation"]])
def test_docks_at_1280x720_leave_the_stage_view_a_usable_size(qtbot, start_window, docks):
    """The stage view and one dock share 1280×720 (a composed slide): the dock at least DOCK_MIN_WIDTH beside the stage
    view, whose tables fit the rest whole or scroll."""
    controller = start_window("masked-decoder")
    window = controller.window
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.size().toTuple() == (1280, 720))
    by_name = {key: dock.widget for key, dock in window.docks.items()}
    for name in docks:
        by_name[name].toggleViewAction().trigger()
    for name in ("dec.0.self_attn.weights", "dec.0.self_attn.q", "probs"):
        go(qtbot, window, name)
        qtbot.waitUntil(lambda: by_name[docks[-1]].isVisible())  # (the companion: it replaced the one before)
        QApplication.processEvents()
        for dock in [by_name[d] for d in docks if by_name[d].isVisible()]:
            assert not dock.isFloating() and dock.width() >= DOCK_MIN_WIDTH, (dock.objectName(), dock.width())
            assert not global_rect(dock).intersects(global_rect(window.stage_view))
        assert not cut_tables(window), (name, cut_tables(window))


def test_a_composed_slide_keeps_one_companion(qtbot, start_window):
    """At 1280×720 the docks floated over the stage view's right part, where the one opened last covered the others
    (and the stage). The slide is composed now (presentation mode at 1280×720): the dock opened last stands beside the
    stage view and closes the one there before it, like tabs; its button brings a closed one back in the other's
    place; one the teacher dragged away from the stage view stays open."""
    controller = start_window("masked-decoder")
    window = present(qtbot, controller, (1280, 720))
    settled(qtbot, window)
    views = window.teaching
    heads, generation, cost = views.heads_dock, views.generation_dock, views.cost_dock
    views.cost_action.trigger()
    qtbot.waitUntil(lambda: cost.isVisible() and views.cost.draws > 0)
    assert not cost.isFloating()
    views.heads_action.trigger()
    qtbot.waitUntil(lambda: heads.isVisible() and not cost.isVisible())
    assert not heads.isFloating() and not views.cost_action.isChecked()
    draws = views.cost.draws
    go(qtbot, window, "dec.0.self_attn.q")
    assert views.cost.draws == draws  # closed, it costs nothing
    views.generation_panel_action.trigger()
    qtbot.waitUntil(lambda: generation.isVisible() and not heads.isVisible())
    views.heads_action.trigger()  # its button shows it again, in the other's place
    qtbot.waitUntil(lambda: heads.isVisible() and not generation.isVisible())
    assert not global_rect(heads).intersects(global_rect(window.stage_view))
    heads.setFloating(True)  # dragged away by the teacher, off the stage view: it stays
    heads.move(window.geometry().topRight() + QPoint(20, 0))
    views.cost_action.trigger()
    qtbot.waitUntil(cost.isVisible)
    QApplication.processEvents()
    assert heads.isVisible() and heads.isFloating() and not cost.isFloating() and not generation.isVisible()


@pytest.mark.parametrize(("size", "below"), [((1280, 720), False), ((1600, 1000), True)])
def test_the_training_step_dock_opens_under_the_stage_view_only_in_a_tall_window(qtbot, start_window, size, below):
    """At 1280×720 a dock under the stage view left it a strip: there it opens beside it instead."""
    controller = start_window("masked-decoder")
    window = controller.window
    window.resize(*size)
    qtbot.waitUntil(lambda: window.size().toTuple() == size)
    dock = window.training_step_dock
    window.training_step.step_action.trigger()
    qtbot.waitUntil(dock.isVisible)
    qtbot.wait(300)  # placed once shown (a timer of the dock placement)
    QApplication.processEvents()
    area = window.dockWidgetArea(dock)
    assert (area == Qt.BottomDockWidgetArea) == below, area
    assert not dock.isFloating() and (window.stage_view.height() >= 300 or below)
    assert not global_rect(dock).intersects(global_rect(window.stage_view))
    if below:
        assert dock.height() <= 0.45 * window.height()
    else:
        assert not cut_tables(window), cut_tables(window)
    assert window.isActiveWindow()  # → still steps


def test_a_dock_given_back_floating_over_the_stage_view_is_placed_beside_it(qtbot, start_window):
    """A window opened again gets its docks back where they were (the stored layout): one floating over the stage view
    there (as the placement left them before) is docked beside the stage view again, the slide's companion."""
    first = start_window("masked-decoder")
    window = first.window
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.size().toTuple() == (1280, 720))
    heads = window.teaching.heads_dock
    window.teaching.heads_action.trigger()
    qtbot.waitUntil(heads.isVisible)
    settled(qtbot, window)
    heads.setFloating(True)
    view = window.stage_view
    heads.setGeometry(QRect(view.mapToGlobal(QPoint(view.width() - 400, 0)), QSize(400, view.height())))
    first.prompts.unsaved_answer = "discard"
    window.close()  # its layout stored
    again = start_window("masked-decoder").window
    views = again.teaching
    qtbot.waitUntil(lambda: views.heads_dock.isVisible() and not views.heads_dock.isFloating())
    settled(qtbot, again)
    assert not global_rect(views.heads_dock).intersects(global_rect(again.stage_view))
    views.cost_action.trigger()
    qtbot.waitUntil(views.cost_dock.isVisible)
    settled(qtbot, again)
    assert not views.cost_dock.isFloating()
    assert not global_rect(views.cost_dock).intersects(global_rect(again.stage_view))


def global_rect(widget: QWidget) -> QRect:
    """Where `widget` is on screen (a floating dock: its frame too)."""
    if isinstance(widget, pg.QtWidgets.QDockWidget) and widget.isFloating():
        return widget.frameGeometry()
    return QRect(widget.mapToGlobal(QPoint(0, 0)), widget.size())


def covered_tables(window) -> list[str]:
    """The stage view's tables, where the matrices area shows them, that a dock covers (global coordinates: a
    floating dock is a window of its own)."""
    viewport = window.stage_view.matrices_box.viewport()
    shown = QRect(viewport.mapToGlobal(QPoint(0, 0)), viewport.size())
    docks = [d for d in window.findChildren(pg.QtWidgets.QDockWidget) if d.isVisible()]
    return [
        f"{dock.objectName()} {global_rect(dock)} covers {panel.model.slice.name} {table}"
        for panel in window.stage_view.panels()
        for table in [QRect(panel.table.mapToGlobal(QPoint(0, 0)), panel.table.size()).intersected(shown)]
        for dock in docks
        if global_rect(dock).intersects(table)
    ]


@pytest.mark.parametrize(
    ("presenting", "size", "lang"),
    [(True, (1920, 1080), "zh"), (True, (1920, 1080), "en"), (True, (1280, 720), "zh"), (False, (1280, 720), "zh")],
)
def test_the_generation_docks_never_cover_the_stage_tables(qtbot, start_window, presenting, size, lang):
    """The Generate panel and the KV cache floated right of the tables they were opened beside; generating steps to
    the output probabilities, whose tables (a column for each word of the vocabulary) are wider: the docks floated
    over their last columns (大, 模型 at 1920×1080 in presentation mode). Beside the stage view now (in a composed
    slide only the one opened last), they cover nothing of it."""
    controller = start_window("masked-decoder", lang)
    if presenting:
        window = present(qtbot, controller, size)
    else:
        window = controller.window
        window.resize(*size)
        qtbot.waitUntil(lambda: window.size().toTuple() == size)
    settled(qtbot, window)
    views = window.teaching
    for action, dock in ((views.generation_panel_action, views.generation_dock), (views.kv_action, views.kv_dock)):
        action.trigger()
        qtbot.waitUntil(dock.widget().isVisible)
        settled(qtbot, window)
        assert not covered_tables(window), covered_tables(window)
    for _ in range(2):
        views.generation.generate()
        go(qtbot, window, "probs")
        settled(qtbot, window)
        shown = [d for d in (views.generation_dock, views.kv_dock) if d.isVisible()]
        assert shown and not any(d.isFloating() for d in shown)
        assert not covered_tables(window), covered_tables(window)
        view = window.stage_view  # its formula and explanation wrap left of the dock, not run under it ("(每行之")
        for widget in [w for w in (view.formula, view.explanation_box, view.hint) if w.isVisible()]:
            assert not any(global_rect(d).intersects(global_rect(widget)) for d in shown), widget


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
def test_the_heads_dock_covers_no_table_at_any_stage_in_presentation_mode(qtbot, start_window, size):
    """In presentation mode a stage without a figure gives its tables the whole width; the Heads dock floating over
    them covered their last columns (a number cut to "−1." read as another number, at 12 of masked-decoder's 61
    stages; the output X of X = E + PE hidden whole). Beside the stage view now, it covers no table, scroll bar,
    formula or explanation at any stage, and the stage view takes the room back once it is closed."""
    controller = start_window("masked-decoder", "en")
    window = present(qtbot, controller, size)
    settled(qtbot, window)
    views, state, view = window.teaching, window.state, window.stage_view
    views.heads_action.trigger()
    qtbot.waitUntil(lambda: views.heads_dock.isVisible() and not views.heads_dock.isFloating())
    for name in state.stage_names:
        state.go_to(name)
        settled(qtbot, window)
        assert not covered_tables(window), (name, covered_tables(window))
        for widget in (view.matrices_box.verticalScrollBar(), view.formula, view.explanation_box):
            if widget.isVisible():
                assert not global_rect(views.heads_dock).intersects(global_rect(widget)), (name, widget)
    width = view.width()
    views.heads_dock.close()
    qtbot.waitUntil(lambda: view.width() > width)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_explanation_wraps_left_of_a_dock_opened_beside_a_stage_without_a_figure(qtbot, start_window, lang):
    """The What if dock opened over Q·Kᵀ of why-scale in presentation mode at 1920×1080: the explanation ran under it
    ("…方向一致时大，方向" cut at its edge). Beside the stage view, the explanation wraps in the stage view's width."""
    controller = start_window("why-scale", lang)
    window = present(qtbot, controller, (1920, 1080))
    go(qtbot, window, "enc.0.attn.scores")
    settled(qtbot, window)
    views, view = window.teaching, window.stage_view
    views.whatif_action.trigger()
    qtbot.waitUntil(lambda: views.whatif_dock.isVisible() and not views.whatif_dock.isFloating())
    settled(qtbot, window)
    for widget in [w for w in (view.formula, view.explanation_box, view.hint) if w.isVisible()]:
        seen, dock = global_rect(widget), global_rect(views.whatif_dock)
        assert not dock.intersects(seen), (widget, seen, dock)


def output_seen(view) -> QRect:
    """The part of the stage's output table the matrices area shows (in its viewport's coordinates)."""
    viewport, table = view.matrices_box.viewport(), view.output.table
    placed = QRect(table.mapTo(viewport, QPoint(0, 0)), table.size())
    return placed.intersected(viewport.rect()), placed


@pytest.mark.parametrize(
    "lesson, stage, whole",
    [("cost-of-context", None, True), ("the-cat-sat", "enc.0.ffn.up", False), ("why-scale", "enc.0.attn.q", False)],
)
def test_when_no_arrangement_fits_the_stage_output_is_on_screen(qtbot, start_window, lesson, stage, whole):
    """Tables too large for the room in any arrangement scroll; the arrangement chosen then hides least of the
    stage's output. In presentation mode at 1920×1080 the output was off screen: cost-of-context opens on Q·Kᵀ with
    its Cost dock, and scores [7×7] stood under Q and K below the fold; the-cat-sat's H [6×32] and why-scale's Q
    [4×64] under their weights. Now the output is whole (7 columns), or, 32 and 64 columns wide, shown from its
    first column with every row."""
    controller = start_window(lesson, "zh")
    window = present(qtbot, controller, (1920, 1080))
    if stage is not None:
        go(qtbot, window, stage)
    settled(qtbot, window)
    QApplication.processEvents()
    view = window.stage_view
    seen, placed = output_seen(view)
    if whole:
        assert seen == placed, (seen, placed)
    else:
        assert (seen.top(), seen.height(), seen.left()) == (placed.top(), placed.height(), placed.left()), (
            seen,
            placed,
        )


def test_a_dock_left_too_narrow_to_read_is_placed_again(qtbot, start_window):
    """The Cost dock came back beside the stage view 82 px wide in presentation mode (a stored layout given back at
    the larger type, the window no narrower than the docks were placed for): the placement kept it so. A dock beside
    the stage view narrower than DOCK_MIN_WIDTH is placed again at each refit."""
    controller = start_window("cost-of-context", "zh")
    window = present(qtbot, controller, (1920, 1080))
    settled(qtbot, window)
    views, placement = window.teaching, window.teaching.placement
    dock = views.cost_dock
    dock.setFloating(False)
    window.addDockWidget(Qt.RightDockWidgetArea, dock)
    window.resizeDocks([dock], [60], Qt.Horizontal)
    QApplication.processEvents()
    scale = window.state.display.type_scale
    assert not dock.isFloating() and dock.width() < DOCK_MIN_WIDTH * scale
    placement.restored(window.width(), scale)  # placed for this width at this type, as a stored layout says
    placement.refit()
    QApplication.processEvents()
    assert dock.isVisible() and not dock.isFloating() and dock.width() >= DOCK_MIN_WIDTH * scale, dock.geometry()


def test_the_cost_dock_in_presentation_mode_scrolls_rather_than_shrink_its_type(qtbot, start_window):
    """Its five panels, two to a row in a 700 px dock, were drawn at 1/1.4 of their size (labels about 18 px): in
    presentation mode they stand one under the other at the back row's size, and the dock scrolls."""
    controller = start_window("cost-of-context", "zh")
    window = present(qtbot, controller, (1920, 1080))
    settled(qtbot, window)
    cost = window.teaching.cost
    qtbot.waitUntil(lambda: cost.figure is not None and cost.isVisible())
    qtbot.waitUntil(lambda: not cost.plot.fit_timer.isActive())
    QApplication.processEvents()
    assert cost.plot.scale == 1.0
    assert cost.plot.height() > cost.scroll.viewport().height()  # (taller than the dock: it scrolls)
    assert {cells[0][1] for cells in cost.plot.ci.items.values()} == {0}  # one column


def test_an_explanation_that_scrolls_shows_whole_lines_only(qtbot, start_window):
    """Presentation mode shows three lines of the explanation, then it scrolls: the box was three lines and 4 px tall,
    the tops of a fourth line's characters glimpsed under them (the-cat-sat's attention weights with the Heads dock
    open, zh 1920×1080, when the dock took a third of the width; the positional encoding's now, five lines beside the
    narrower dock), which read as text cut off."""
    controller = start_window("the-cat-sat", "zh")
    window = present(qtbot, controller, (1920, 1080))
    go(qtbot, window, "enc.pos")
    window.teaching.heads_action.trigger()
    settled(qtbot, window)
    qtbot.wait(50)
    view = window.stage_view
    box, label = view.explanation_box, view.explanation
    lines = wrapped_line_heights(label.text(), label.font(), box.width() - 2 * box.frameWidth())
    assert len(lines) > 3 and box.verticalScrollBar().isVisible()
    assert box.viewport().height() == math.floor(sum(lines[:3]))


def test_a_step_leaves_no_label_turned_on_its_side_that_has_room_to_stand(qtbot, start_window):
    """flash-attention in presentation mode, a step onto a tile's scores: the n × n map's words stood on their side
    above columns 190 px wide (a plan forced while the figure, drawn ahead, was laid out panel by panel, kept); opened
    on that stage they stood upright."""
    controller = start_window("flash-attention", "zh")
    window = present(qtbot, controller, (1920, 1080))
    go(qtbot, window, "dec.0.self_attn.z")
    qtbot.wait(1500)  # the window left alone: the next stage's figure is drawn ahead
    go(qtbot, window, "dec.0.self_attn.tiled.r0c0.scores")
    view = window.stage_view
    view.plot.grab()
    turned = [
        (axis.categories, axis._slot())
        for axis in figure_axes(view.plot.ci)
        if isinstance(axis, Axis) and axis.categories and axis.plan.rotated and axis._slot() >= axis._plans()[0][1]
    ]
    assert turned == []
