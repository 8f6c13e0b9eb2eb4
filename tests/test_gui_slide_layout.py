"""A slide is composed, never covered: over every shipped lesson × each dock (the registry's, so docks added later
join the sweep) × 1280×720 and 1920×1080 × English and Chinese × the desk and presentation mode, no text of the
stage view or of the dock (labels, buttons, combo boxes, the tables' cells and headers) is cut, elided or under
another widget, the figure lies under no dock (a dock is beside the stage view, or a page of its own that takes the
whole slide), and every table of the stage is whole (tests/test_gui_present_mode.py's cut_tables). One window per
lesson and mode's type size; the language and the dock are switched in place."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QApplication,
    QComboBox,
    QHeaderView,
    QLabel,
    QStyle,
    QStyleOptionComboBox,
    QWidget,
)

from engine.formats.lesson import shipped_lessons
from gui.docks.registry import specs
from tests import gui_lessons
from tests.test_gui_present_mode import cut_tables, present, shown

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures

LESSONS = [info.name for info in shipped_lessons()]
SIZES = [(1280, 720), (1920, 1080)]
LANGS = ["en", "zh"]
TEXT_KINDS = (QLabel, QAbstractButton, QComboBox, QAbstractItemView)


def global_rect(widget: QWidget) -> QRect:
    return QRect(widget.mapToGlobal(QPoint(0, 0)), widget.size())


def dock_rect(dock) -> QRect:
    return dock.frameGeometry() if dock.isFloating() else global_rect(dock)


def scrolls(area: QWidget, horizontal: bool) -> bool:
    """Whether `area` is the viewport of a scroll area that scrolls that way (what it clips is reachable)."""
    outer = area.parentWidget()
    if not isinstance(outer, QAbstractScrollArea) or outer.viewport() is not area:
        return False
    bar = outer.horizontalScrollBar() if horizontal else outer.verticalScrollBar()
    return bar.maximum() > 0


def text_rect(widget: QWidget) -> QRect:
    """Where `widget` shows text (global coordinates): a table's header only as long as its sections (the widget
    may reach beyond them, empty, to the viewport's width it had before)."""
    rect = global_rect(widget)
    if isinstance(widget, QHeaderView):
        if widget.orientation() == Qt.Horizontal:
            rect.setWidth(min(rect.width(), widget.length() - widget.offset()))
        else:
            rect.setHeight(min(rect.height(), widget.length() - widget.offset()))
    return rect


def clipped(widget: QWidget) -> tuple[list[str], QRect]:
    """Where `widget` is cut by a widget it lies in, other than a scroll area that scrolls to the rest, and the part
    of it on screen (global coordinates; empty: scrolled out of sight)."""
    rect, found = text_rect(widget), []
    parent = widget.parentWidget()
    while parent is not None and not rect.isEmpty():
        seen = rect.intersected(global_rect(parent))
        if seen.width() < rect.width() and not scrolls(parent, True):
            found.append(f"cut {rect.width() - seen.width()} px wide by {type(parent).__name__}")
        if seen.height() < rect.height() and not scrolls(parent, False):
            found.append(f"cut {rect.height() - seen.height()} px high by {type(parent).__name__}")
        rect = seen  # (what a scroll area hides is not cut again by the widgets around it)
        if parent.isWindow():
            break
        parent = parent.parentWidget()
    return found, rect


def elided(widget: QWidget) -> list[str]:
    """Text that does not fit its widget: a label wider or taller than it, a button narrower than its text, a combo
    box whose field is narrower than the item shown."""
    if isinstance(widget, QLabel):
        inner = widget.contentsRect()
        if widget.wordWrap():
            need = widget.heightForWidth(widget.width())
            return [f"wraps to {need} px in {widget.height()}"] if need > widget.height() + 1 else []
        hint = widget.minimumSizeHint()
        if hint.width() > widget.width() + 1 or hint.height() > widget.height() + 1:
            return [f"needs {hint.toTuple()} in {widget.size().toTuple()} ({inner.size().toTuple()} inside)"]
        return []
    if isinstance(widget, QAbstractButton):
        need = widget.fontMetrics().horizontalAdvance(widget.text().replace("&", ""))
        return [f"text {need} px in a {widget.width()} px button"] if need > widget.width() else []
    if isinstance(widget, QComboBox):
        option = QStyleOptionComboBox()
        widget.initStyleOption(option)
        field = widget.style().subControlRect(QStyle.CC_ComboBox, option, QStyle.SC_ComboBoxEditField, widget)
        need = widget.fontMetrics().horizontalAdvance(widget.currentText())
        return [f"item {need} px in a {field.width()} px field"] if need > field.width() else []
    return []


def text_widgets(root: QWidget, window) -> list[QWidget]:
    found = [w for w in root.findChildren(QWidget) if isinstance(w, TEXT_KINDS) and shown(w, w.window())]
    return [w for w in found if not isinstance(w, QLabel) or w.text().strip()]


def label(widget: QWidget) -> str:
    text = widget.text() if isinstance(widget, (QLabel, QAbstractButton)) else ""
    return f"{type(widget).__name__} {widget.objectName()!r} {text[:40]!r}"


def shortened_on_purpose(window) -> set[QWidget]:
    """Text shortened by design where a whole copy stands beside it: the training lab's experiment box in a narrow
    dock (the claim under it names the experiment whole)."""
    return {window.lab_dock.widget().choice}


def cut_mid_column(view) -> list[str]:
    """The stage's tables narrower than the matrices area that it cuts at its right edge (an arrangement wider than the
    area: a number half shown, the rest a scroll away); a table wider than the area scrolls whatever the arrangement."""
    viewport = view.matrices_box.viewport()
    area = QRect(viewport.mapToGlobal(QPoint(0, 0)), viewport.size())
    return [
        f"{panel.model.slice.name} cut at the matrices area's edge ({table.width()} px, {seen.width()} shown)"
        for panel in view.panels()
        for table in [panel.table]
        for seen in [global_rect(table).intersected(area)]
        if not seen.isEmpty() and seen.width() < table.width() <= area.width()
    ]


def slide_problems(window, dock) -> list[str]:
    """What the class cannot read with `dock` open: text cut, elided or under the other part, outside the window,
    the figure under the dock, a table of the stage not whole. (A dock that takes the whole slide, a page of its own
    in place of the stage, hides none of it in part: the overview in presentation mode, gui/docks/overview.py.)"""
    view, problems, shortened = window.stage_view, [], shortened_on_purpose(window)
    frame = global_rect(window)
    stage_part = [*text_widgets(view, window)]
    if window.breadcrumb.isVisible():
        stage_part += text_widgets(window.breadcrumb, window)
    dock_part = text_widgets(dock.widget(), window) if dock.isVisible() else []
    dock_frame = dock_rect(dock) if dock.isVisible() else QRect()
    on_screen = {}
    for widget in stage_part + dock_part:
        cuts, seen = clipped(widget)
        if seen.isEmpty():
            continue  # scrolled out of sight (its scroll area reaches it)
        on_screen[widget] = seen
        problems += [f"{label(widget)}: {p}" for p in cuts + ([] if widget in shortened else elided(widget))]
        if widget.window() is window and not frame.contains(seen):
            problems.append(f"{label(widget)} leaves the window")
    page = dock.isVisible() and dock_frame.contains(global_rect(view))  # the slide given to the dock whole
    if dock.isVisible() and not page:
        figure = {view.plot: clipped(view.plot)[1]} if view.plot.isVisible() else {}
        for widget, seen in [*((w, on_screen[w]) for w in stage_part if w in on_screen), *figure.items()]:
            if dock_frame.intersects(seen):
                problems.append(f"{label(widget)} lies under the {dock.objectName()} dock {dock_frame}")
    problems += [f"table: {p}" for p in cut_tables(window) + cut_mid_column(view)]
    return problems


def settle(qtbot, window) -> None:
    """The docks placed, the stage fitted and its figure drawn."""
    view, placement = window.stage_view, window.teaching.placement
    for _ in range(2):
        QApplication.processEvents()
    qtbot.waitUntil(lambda: view.figure is not None and not view.plot_timer.isActive())
    qtbot.waitUntil(lambda: not placement.timer.isActive() and not view.plot.fit_timer.isActive())
    qtbot.wait(20)  # (the explanation's height follows its new width from a zero timer)
    QApplication.processEvents()


def sweep(qtbot, window, sizes, failures: list[tuple[str, str]], mode: str) -> None:
    """Each language × size × dock of `window`, opened alone (the lesson's own docks closed first)."""
    for lang in LANGS:
        window.state.display.set(lang=lang)
        for size in sizes:
            if window.size().toTuple() != size:
                window.resize(*size)
                qtbot.waitUntil(lambda s=size: window.size().toTuple() == s)
            for spec in specs():
                dock = window.docks[spec.key].widget
                for other in window.docks.values():
                    if other.widget is not dock and other.widget.isVisible():
                        other.widget.close()
                if not dock.isVisible():
                    dock.toggleViewAction().trigger()
                settle(qtbot, window)
                where = f"{mode} {size[0]}×{size[1]} {lang} {spec.key}"
                failures += [(where, problem) for problem in slide_problems(window, dock)]
                dock.close()


@pytest.mark.slow
@pytest.mark.parametrize("lesson", LESSONS)
def test_no_dock_covers_cuts_or_hides_the_stage(qtbot, start_window, lesson):
    controller = start_window(lesson)
    window = controller.window
    window.setWindowState(Qt.WindowNoState)
    failures: list[tuple[str, str]] = []
    sweep(qtbot, window, SIZES, failures, "desk")
    for size in SIZES:
        controller.state.display.set(lang="en")
        window = present(qtbot, controller, size)
        sweep(qtbot, window, [size], failures, "presenting")
    cases = list(dict.fromkeys(where for where, _ in failures))
    details = [f"{where}: {problem}" for where, problem in failures[:30]]
    assert not failures, "\n".join([f"{len(cases)} cases: {', '.join(cases)}", *details])
