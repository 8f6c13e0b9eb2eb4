"""No internal names on screen: stage ids ("enc.0.attn.weights", "dec.0.self_attn", "enc.x0"), parameter ids
("enc.0.attn.W_Q") and switch ids ("no_scale") stay in tooltips, the command line and file names; the window
shows human titles (design.md, "What the class sees").

For each lesson, in English and in Chinese, the window is opened with every dock shown (heads, what if with a
switch on, generation and the KV cache after Generate, cost, the training step after one is taken) and an edit
made (Edit ▸ Undo names it); then the
cursor visits one stage of each operation in each part of the model (an operation in self- and in
cross-attention is visited once each) and one step of the backward pass for each rule, and at each every text the
window shows is read: labels, buttons, tabs, combo-box items, table headers, the stage list, dock and window
titles, the status bar, the menus, and the plots' titles, text items, axis labels and tick strings.
"""

import re

import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QDockWidget,
    QGraphicsTextItem,
    QGraphicsView,
    QGroupBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QTabBar,
    QTableView,
)

from engine.config import SWITCHES
from engine.training.backward import is_backward
from gui.plots.heatmap import CellNumbers
from gui.plots.view import parked
from gui.text.operations import place_of, stage_op
from tests import gui_lessons

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures

# Each lesson with the switch turned on while it is stepped through.
LESSONS = {"the-cat-sat": "no_scale", "masked-decoder": "no_mask", "cross-attention": "no_pe"}


def internal_ids(state) -> list[str]:
    """Every id that must not be shown: dotted stage names (a one-word stage such as "logits" is also a word),
    the sublayers they sit in ("dec.0.self_attn"), parameter names and switch names; longest first."""
    trace = state.view
    names = {n for n in [*trace.stage_names, *trace.params] if "." in n}
    prefixes = {".".join(n.split(".")[:k]) for n in names for k in range(3, n.count(".") + 1)}
    return sorted(names | prefixes | set(SWITCHES), key=len, reverse=True)


def _item_texts(model, parent=None) -> list[str]:
    """The display texts of a tree or list model, every level."""
    from PySide6.QtCore import QModelIndex

    parent = parent or QModelIndex()
    texts = []
    for row in range(model.rowCount(parent)):
        index = model.index(row, 0, parent)
        texts.append(str(index.data(Qt.DisplayRole) or ""))
        texts += _item_texts(model, index)
    return texts


def _header_texts(view: QTableView) -> list[str]:
    model, texts = view.model(), []
    for orientation, count, header in (
        (Qt.Horizontal, model.columnCount(), view.horizontalHeader()),
        (Qt.Vertical, model.rowCount(), view.verticalHeader()),
    ):
        if header.isVisible():
            texts += [str(model.headerData(i, orientation, Qt.DisplayRole) or "") for i in range(min(count, 200))]
    return texts


def _widget_texts(widget) -> list[str]:
    if isinstance(widget, QLabel):
        return [widget.text()]
    if isinstance(widget, QAbstractButton):
        return [widget.text()]
    if isinstance(widget, QComboBox):
        return [widget.itemText(i) for i in range(widget.count())]
    if isinstance(widget, QTabBar):
        return [widget.tabText(i) for i in range(widget.count())]
    if isinstance(widget, QTableView):
        return _header_texts(widget)
    if isinstance(widget, QAbstractItemView) and not isinstance(widget, QHeaderView) and widget.model() is not None:
        return _item_texts(widget.model())
    if isinstance(widget, QDockWidget):
        return [widget.windowTitle()]
    if isinstance(widget, QGroupBox):
        return [widget.title()]
    if isinstance(widget, QLineEdit):
        return [widget.text(), widget.placeholderText()]
    if isinstance(widget, QGraphicsView) and widget.scene() is not None:
        return _scene_texts(widget.scene())
    return []


def _scene_texts(scene) -> list[str]:
    """Titles, legends and text items (all QGraphicsTextItems), axis labels and tick strings of a plot scene."""
    texts = []
    for item in scene.items():
        if not item.isVisible() or parked(item):
            continue
        if isinstance(item, QGraphicsTextItem):
            texts.append(item.toPlainText())
        elif isinstance(item, CellNumbers):
            texts += item.texts()
        elif isinstance(item, pg.AxisItem) and item.style["showValues"]:
            for level in item._tickLevels or ():  # set ticks (tokens, named bars); automatic ones are numbers
                texts += [str(label) for _, label in level]
    return texts


def _menu_texts(menu: QMenu, submenus: list[QMenu]) -> list[str]:
    """The title and the actions' texts of a menu and of its submenus, found among `submenus` (the window's menus:
    a wrapper that QAction.menu() returns, once freed, leaves the window's own wrapper of that menu deleted, PySide
    6.10: the window's next language switch raised "Internal C++ object (QMenu) already deleted")."""
    texts = [menu.title()]
    for action in menu.actions():
        texts.append(action.text())
        texts += [text for sub in submenus if sub.menuAction() == action for text in _menu_texts(sub, submenus)]
    return texts


def visible_texts(window) -> list[tuple[str, str]]:
    """(where, text) for every text the window shows now, tooltips left out."""
    stack = window.state.undo_stack  # Edit ▸ Undo / Redo and the status bar ("Undone: …") name each command
    found = [("window title", window.windowTitle()), ("status bar", window.statusBar().currentMessage())]
    found += [("undo history", stack.command(i).text()) for i in range(stack.count())]
    menus = window.findChildren(QMenu)
    for menu in [m for m in menus if m.menuAction() in window.menuBar().actions()]:
        found += [("menu", text) for text in _menu_texts(menu, menus)]
    for widget in window.findChildren(object):
        if hasattr(widget, "isVisible") and not isinstance(widget, QMenu) and widget.isVisible():
            found += [(type(widget).__name__, text) for text in _widget_texts(widget)]
    return found


def leaks(window, ids: list[str]) -> list[str]:
    pattern = re.compile("|".join(map(re.escape, ids)))
    return sorted({f"{where}: {text!r}" for where, text in visible_texts(window) if pattern.search(text)})


def sampled_stages(state) -> list[str]:
    """One forward stage of each operation in each part of the model (stack and part: the encoder's and the
    decoder's self-attention, cross-attention, …), and one step of the backward pass for each local rule."""
    trace, seen, sample = state.view, set(), []
    for name in trace.stage_names:
        place = place_of(trace, name)
        op = stage_op(trace, name)
        key = (op,) if is_backward(name) else (op, place.stack, place.part)
        if key not in seen:
            seen.add(key)
            sample.append(name)
    return sample


def settle(qtbot, window) -> None:
    """Let the stage view's plots and the docks' lazy redraws (zero-delay timers) run."""
    views = window.teaching
    lazy = [views.heads, views.whatif, views.kv_cache, views.cost, window.stage_view]
    for _ in range(3):
        QApplication.processEvents()
    qtbot.waitUntil(
        lambda: not any(v.timer.isActive() for v in lazy[:-1]) and not window.stage_view.plot_timer.isActive()
    )


def open_every_dock(qtbot, controller, switch: str) -> None:
    window, state = controller.window, controller.state
    views = window.teaching
    window.resize(2560, 1440)  # room for every dock beside the stage view (a narrower slide keeps one)
    qtbot.waitUntil(lambda: not views.placement.timer.isActive())
    for dock in views.docks():
        dock.show()
    window.splitDockWidget(views.heads_dock, views.whatif_dock, Qt.Vertical)  # both shown, not tabbed
    views.switches.actions[switch].trigger()
    assert switch in state.config.switches
    if "dec" in state.config.stacks:
        views.generation.generate_action.trigger()
    name = next(n for n in state.trace.params if ".W_Q" in n or ".W_E" in n)
    assert state.edit_cell(name, (0, 0), 0.5)  # Edit ▸ Undo now names a parameter
    if "probs" in state.trace.values:  # the training step's dock: a weight of each stage to choose
        window.training_step.step_action.trigger()
        assert window.training_step_dock.isVisible()
    settle(qtbot, window)
    assert ("dec" in state.config.stacks) == (views.kv_cache.attention.count() > 0)


@pytest.mark.parametrize("lesson", list(LESSONS))
def test_no_stage_parameter_or_switch_id_is_shown_outside_tooltips(qtbot, start_window, lesson):
    """In English, then in Chinese: one window with every dock open, switched in place (as the teacher switches;
    tests/test_gui_i18n.py checks that a switched window shows what one built in the language shows)."""
    controller = start_window(lesson, "en")
    window, state = controller.window, controller.state
    open_every_dock(qtbot, controller, LESSONS[lesson])
    ids = internal_ids(state)
    found = {}
    for lang in ("en", "zh"):
        controller.set_language(lang)
        assert controller.window is window
        for name in sampled_stages(state):
            state.go_to(name)
            settle(qtbot, window)
            for leak in leaks(window, ids):
                found.setdefault(leak, f"{lang}, {name}")
    menu_texts = [text for where, text in visible_texts(window) if where == "menu"]
    assert len(menu_texts) > 2 * len(window.menuBar().actions())  # the menus and their items were read
    assert not found, "internal ids on screen:\n" + "\n".join(f"at {stage}: {leak}" for leak, stage in found.items())
