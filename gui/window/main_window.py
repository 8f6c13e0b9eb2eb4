"""The main window: sentence boxes on top, stage list left, stage view centre, stepping bar below; menus.

Other parts add menus with `add_menu` (e.g. a Lessons menu before Help).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from gui.docks.teaching_docks import TeachingViews
from gui.docks.training_lab import add_training_lab
from gui.docks.training_step import TrainingStepActions, add_training_step_view
from gui.state.app_state import AppState
from gui.views.stage_view import StageView
from gui.window.settings_dialog import SettingsDialog
from gui.window.stage_list import StageList
from gui.window.stepper import StepperBar


class MainWindow(QMainWindow):
    def __init__(self, state: AppState, lang: str = "en", parent=None):
        super().__init__(parent)
        self.state, self.lang = state, lang

        self.source = QLineEdit(self)
        self.source.setPlaceholderText(self.tr("Type a sentence, e.g. I love AI, and press Enter"))
        self.target = QLineEdit(self)
        self.target.setPlaceholderText(self.tr("Target sentence for the decoder, e.g. 我 爱 AI"))
        self.target_label = QLabel(self.tr("Target:"), self)
        for box in (self.source, self.target):
            box.returnPressed.connect(self.apply_sentences)
            box.setClearButtonEnabled(True)
            # The window opens ready to step (→ steps, not moves a text cursor): a click or F6 types a sentence.
            box.setFocusPolicy(Qt.ClickFocus)
        top = QHBoxLayout()
        top.addWidget(QLabel(self.tr("Sentence:"), self))
        top.addWidget(self.source, 3)
        top.addWidget(self.target_label)
        top.addWidget(self.target, 2)
        hint = QLabel(self.tr("Enter recomputes"), self)
        hint.setStyleSheet("color: #666")
        top.addWidget(hint)

        self.stage_list = StageList(state, lang, self)
        self.stage_view = StageView(state, lang, self)
        self.stepper = StepperBar(state, self)
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
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.stepper)
        self.setCentralWidget(central)

        self.menus: dict[str, QMenu] = {}
        self._build_menus()
        self.teaching = TeachingViews(self)  # head grid, generation, KV cache, what-if switches
        self.lab_dock = add_training_lab(self)
        self.training_step_dock = add_training_step_view(self)
        state.message.connect(self.show_message)
        state.lessonChanged.connect(self.show_lesson)
        self.show_lesson()

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

    # ---- menus ----------------------------------------------------------------------------------
    def add_menu(self, key: str, title: str, before: str | None = "help") -> QMenu:
        """A new top-level menu (e.g. "lessons"), placed before an existing one."""
        menu = QMenu(title, self)
        anchor = self.menus.get(before) if before else None
        if anchor is not None:
            self.menuBar().insertMenu(anchor.menuAction(), menu)
        else:
            self.menuBar().addMenu(menu)
        self.menus[key] = menu
        return menu

    def _action(self, menu: QMenu, text: str, slot, shortcut=None) -> QAction:
        action = menu.addAction(text)
        action.triggered.connect(slot)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        return action

    def _build_menus(self) -> None:
        state = self.state
        file = self.add_menu("file", self.tr("&File"), None)
        self._action(file, self.tr("Export figure…"), self.export_figure, "Ctrl+E")
        self._action(file, self.tr("Export matrix…"), self.export_matrix)
        self._action(file, self.tr("Export lesson as slides…"), self.export_deck, "Ctrl+Shift+E")
        file.addSeparator()
        quit_action = self._action(file, self.tr("&Quit"), self.close)
        quit_action.setShortcuts(QKeySequence.Quit)

        edit = self.add_menu("edit", self.tr("&Edit"), None)
        undo = state.undo_stack.createUndoAction(self, self.tr("Undo"))
        undo.setShortcuts([QKeySequence("Ctrl+Z")])
        redo = state.undo_stack.createRedoAction(self, self.tr("Redo"))
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        edit.addAction(undo)
        edit.addAction(redo)
        edit.addSeparator()
        self.reset_action = self._action(edit, self.tr("Reset weights"), state.reset_weights)
        self._action(edit, self.tr("Edit the sentence"), self.edit_sentence, "F6")
        self.undo_action, self.redo_action = undo, redo

        view = self.add_menu("view", self.tr("&View"), None)
        for action in self.stepper.actions_in_order:
            view.addAction(action)
        view.addSeparator()
        view.addAction(self.stage_view.difference_action)

        model = self.add_menu("model", self.tr("&Model"), None)
        self._action(model, self.tr("Settings…"), self.open_settings, "Ctrl+,")
        model.addSeparator()
        self.training_step = TrainingStepActions(state, model)

        help_menu = self.add_menu("help", self.tr("&Help"), None)
        self._action(help_menu, self.tr("Keyboard shortcuts"), self.show_shortcuts, "F1")
        self._action(help_menu, self.tr("About Stepformer"), self.show_about)

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
        from gui.export.dialogs import export_figure_dialog

        export_figure_dialog(self, self.state)

    def export_matrix(self) -> None:
        """The current stage's output matrix as LaTeX or CSV (a table's right-click exports that table)."""
        from gui.export.dialogs import export_matrix_dialog

        export_matrix_dialog(self, self.state, self.state.current_stage)

    def export_deck(self) -> None:
        from gui.export.dialogs import export_deck_dialog

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
        QMessageBox.about(self, self.tr("About Stepformer"), self.tr(
            "Stepformer steps through a Transformer one operation at a time. Every number is real "
            "and every weight can be edited; everything after it is recomputed."))

    def closeEvent(self, event) -> None:
        self.stepper.stop()
        self.lab_dock.widget().stop()
        super().closeEvent(event)
