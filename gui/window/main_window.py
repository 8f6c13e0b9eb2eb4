"""The main window: sentence boxes on top, stage list left, stage view centre, stepping bar below, the docks
around them; the menus (gui/window/menus.py) and presentation mode, where a breadcrumb takes the place of all but
the stage view (set_presenting). It shows one app state; the lesson controller (above it) connects to the requests
its menus emit.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import QByteArray, QCoreApplication, QRect, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSplitter,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from gui.docks.teaching_docks import TeachingViews
from gui.docks.training_step import TrainingStepActions
from gui.state.app_state import AppState
from gui.text.live_texts import LiveTexts
from gui.views.stage_list import StageList
from gui.views.stage_view import StageView
from gui.window.menus import MenuBar
from gui.window.model_picker import ModelPicker
from gui.window.presentation import Breadcrumb, PresentationMenu
from gui.window.settings_dialog import SettingsDialog
from gui.window.steady_bars import keep_height_in_every_language
from gui.window.stepper import StepperBar


@dataclass(frozen=True)
class WindowLayout:
    """Where everything was: the window's place and state, docks and toolbars, the stage list's width."""

    place: QRect  # where the window is when neither maximized nor full screen
    docks: QByteArray
    state: Qt.WindowState
    splitter: QByteArray
    type_scale: float  # the type size the docks were placed for


class MainWindow(QMainWindow):
    # What the parts around the window follow, as signals rather than event filters on the window: a filter written in
    # Python is called for every event the window gets, the one that paints every frame too (70 µs of a frame for
    # the four there were).
    resized = Signal()
    shown = Signal()
    closing = Signal(object)  # the QCloseEvent, before the window closes: a receiver that ignores it keeps it open

    def __init__(self, state: AppState, parent=None):
        # (Over 60 lines: the widgets are built in the order they stand on screen, one flat sequence.)
        super().__init__(parent)
        self.state = state
        self.presenting = False

        self.texts = texts = LiveTexts()  # what a language switch sets again (retranslate)
        self.source = QLineEdit(self)
        texts.set(self.source.setPlaceholderText, lambda: self.tr("Type a sentence, e.g. I love AI, and press Enter"))
        self.target = QLineEdit(self)
        texts.set(self.target.setPlaceholderText, lambda: self.tr("Target sentence for the decoder, e.g. 我 爱 AI"))
        self.target_label = QLabel(self)
        texts.set(self.target_label.setText, lambda: self.tr("Target:"))
        for box in (self.source, self.target):
            box.returnPressed.connect(self.apply_sentences)
            box.setClearButtonEnabled(True)
            # The window opens ready to step (→ steps, not moves a text cursor): a click or F6 types a sentence.
            box.setFocusPolicy(Qt.ClickFocus)
        self.sentence_row = QWidget(self)
        top = QHBoxLayout(self.sentence_row)
        top.setContentsMargins(0, 0, 0, 0)
        sentence_label = QLabel(self)
        texts.set(sentence_label.setText, lambda: self.tr("Sentence:"))
        top.addWidget(sentence_label)
        top.addWidget(self.source, 3)
        top.addWidget(self.target_label)
        top.addWidget(self.target, 2)
        hint = QLabel(self)
        texts.set(hint.setText, lambda: self.tr("Enter recomputes"))
        hint.setStyleSheet("color: #666")
        top.addWidget(hint)

        self.stage_list = StageList(state, self)
        self.stage_view = StageView(state, self)
        self.stepper = StepperBar(state, self)
        self.addActions(self.stepper.actions_in_order)  # the stepping keys work with the menus hidden too
        self.breadcrumb = Breadcrumb(state, self)
        self.breadcrumb.hide()
        splitter = QSplitter(Qt.Horizontal, self)
        splitter.addWidget(self.stage_list)
        splitter.addWidget(self.stage_view)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([230, 1200])
        splitter.setChildrenCollapsible(False)
        self.splitter = splitter
        self._list_sized = False

        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.addWidget(self.sentence_row)
        layout.addWidget(self.breadcrumb)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.stepper)
        self.setCentralWidget(central)

        self.training_step = TrainingStepActions(state, self)  # Model ▸ Take one training step (its dock shows it)
        self.teaching = TeachingViews(self)  # every dock of gui/docks/registry.py, the toolbar, the what-if switches
        self.docks = self.teaching.by_key  # by key: the map, heads, whatif, generation, kv_cache, cost, lab, …
        self.map_dock = self.docks["map"].widget  # the Transformer diagram with "you are here", beside the stage list
        self.lab_dock, self.training_step_dock = self.docks["lab"].widget, self.docks["training_step"].widget
        self.model_picker = ModelPicker(self)
        self.presentation = PresentationMenu(self)  # presentation mode, the text size, colours, decimals
        bar = self.menu_bar = MenuBar(self)
        self.menus, self.recent_menu = bar.menus, bar.recent_menu
        self.undo_action, self.redo_action, self.reset_action = bar.undo, bar.redo, bar.reset
        state.message.connect(self.show_message)
        state.lessonChanged.connect(self.show_lesson)
        self.statusBar().messageChanged.connect(self._status_shown)
        keep_height_in_every_language([self.menuBar(), *self.findChildren(QToolBar)])  # a switch moves nothing
        self.show_lesson()

    # ---- language -----------------------------------------------------------------------------------
    def retranslate(self) -> None:
        """The language switched (its translators installed): every text of the window set again in place, by
        each part for its own; the views that show the stage draw it anew (its words are in its figures)."""
        for part in (self, self.presentation, self.training_step):  # (only fixed texts)
            part.texts.retranslate()
        for view in (
            self.menu_bar,
            self.stepper,
            self.breadcrumb,
            self.model_picker,
            self.stage_list,
            self.stage_view,
            self.teaching,  # (every dock's view)
        ):
            view.retranslate()
        for plot in self.findChildren(pg.GraphicsView):  # pyqtgraph's own right-click entry, made with the plot
            plot.scene().contextMenu[0].setText(QCoreApplication.translate("GraphicsScene", "Export..."))
        self.show_lesson()

    # ---- presentation mode --------------------------------------------------------------------------
    def set_presenting(self, on: bool) -> None:
        """Presentation mode's layout: the menus, toolbars, sentence row, stage tree, the map, stepping bar and
        status bar give way to a breadcrumb, and the stage view shows its tables first. (Its type comes from the
        display settings the window was built with: type_scale.) Every shortcut of the menus keeps working (Ctrl+M
        brings the map back). Leaving is a new window in the desk's layout: nothing here is undone."""
        self.presenting = on
        for widget in (
            self.menuBar(),
            self.sentence_row,
            self.stage_list,
            self.stepper,
            self.statusBar(),
            *self.findChildren(QToolBar),
        ):
            widget.setVisible(not on)
        if on:
            self.map_dock.hide()
        self.breadcrumb.setVisible(on)
        self.stage_view.set_presenting(on)
        if on:
            submenus = self.findChildren(QMenu)
            self.addActions([a for menu in self.menus.values() for a in menu_actions(menu, submenus)])

    def _status_shown(self, text: str) -> None:
        """In presentation mode the status bar appears only while it says something (a refused edit, …)."""
        if self.presenting:
            self.statusBar().setVisible(bool(text))

    def layout_state(self) -> WindowLayout:
        place = self.normalGeometry() if self.normalGeometry().isValid() else self.geometry()
        return WindowLayout(
            place, self.saveState(), self.windowState(), self.splitter.saveState(), self.state.display.type_scale
        )

    def restore_layout(self, layout: WindowLayout) -> None:
        self.setGeometry(layout.place)
        self.restoreState(layout.docks)
        self.setWindowState(layout.state)
        self.splitter.restoreState(layout.splitter)
        self.teaching.placement.restored(layout.place.width(), layout.type_scale)
        self._list_sized = True

    def edit_sentence(self) -> None:
        self.source.setFocus(Qt.ShortcutFocusReason)
        self.source.selectAll()

    def show_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 10000)

    def showEvent(self, event) -> None:
        """The stage list is as wide as its stage titles, up to a fifth of the width: the rest for the stage."""
        super().showEvent(event)
        if not self._list_sized:
            self._list_sized = True
            width = self.splitter.width()
            side = max(180, min(self.stage_list.natural_width(), width // 5))
            self.splitter.setSizes([side, width - side])
        self.shown.emit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.resized.emit()

    # ---- lesson -----------------------------------------------------------------------------------
    def show_lesson(self) -> None:
        state = self.state
        two = state.config.architecture == "encoder-decoder"
        self.source.setText(state.text)
        self.target.setText(state.target)
        self.target.setVisible(two)
        self.target_label.setVisible(two)
        self.setWindowTitle(self.tr("Stepformer — {0}").format(state.text))

    def apply_sentences(self) -> None:
        two = self.state.config.architecture == "encoder-decoder"
        self.state.set_sentences(self.source.text(), self.target.text() if two else "")

    # ---- dialogs ----------------------------------------------------------------------------------
    def open_settings(self) -> None:
        SettingsDialog(self.state, self).exec()

    def export_figure(self) -> None:
        from gui.views.export_dialogs import export_figure_dialog

        export_figure_dialog(self, self.state)

    def export_matrix(self) -> None:
        """The current stage's output matrix as LaTeX or CSV (a table's right-click exports that table)."""
        from gui.views.export_dialogs import export_matrix_dialog

        export_matrix_dialog(self, self.state, self.state.current_stage)

    def export_deck(self) -> None:
        from gui.views.export_dialogs import export_deck_dialog

        export_deck_dialog(self, self.state)

    def show_shortcuts(self) -> None:
        rows = [
            (self.tr("Next stage"), "→, Page Down, Space"),
            (self.tr("Previous stage"), "←, Page Up"),
            (self.tr("First / last stage"), "Home / End"),
            (self.tr("Edit a cell"), self.tr("double-click it, or select it and type")),
            (self.tr("Undo / redo"), "Ctrl+Z / Ctrl+Shift+Z, Ctrl+Y"),
        ]
        text = "".join(f"<tr><td>{a}</td><td>&nbsp;&nbsp;<b>{b}</b></td></tr>" for a, b in rows)
        QMessageBox.information(self, self.tr("Keyboard shortcuts"), f"<table>{text}</table>")

    def show_about(self) -> None:
        QMessageBox.about(
            self,
            self.tr("About Stepformer"),
            self.tr(
                "Stepformer steps through a Transformer one operation at a time. Every number is real "
                "and every weight can be edited; everything after it is recomputed."
            ),
        )

    def closeEvent(self, event) -> None:
        self.closing.emit(event)
        if not event.isAccepted():
            return
        self.stepper.stop()
        self.lab_dock.widget().stop()
        super().closeEvent(event)


def menu_actions(menu: QMenu, submenus: list[QMenu]) -> list[QAction]:
    """The actions of a menu and of its submenus (found among `submenus`, the window's menus: a wrapper that
    PySide 6.10 returns from QAction.menu() here deleted the menu it named when it was freed, and File ▸ Open Recent
    was gone after F5)."""
    found = []
    for action in menu.actions():
        inner = [sub for sub in submenus if sub.menuAction() == action]
        found.extend(menu_actions(inner[0], submenus) if inner else [action])
    return found
