"""The main window's menu bar, all of it built here, in reading order: File, Edit, View, Model, What if, Lessons,
Language, Help.

An action that belongs to a part of the window is that part's (the stepper's keys, a dock's toggle, the model
picker's choices, a switch); this module only places it. The actions whose work is the lesson controller's
(lessons, open, save, the language) are made here and emit requests, which the controller connects: nothing
here holds the controller.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

from engine.formats.lesson import shipped_lessons
from gui.state import preferences
from gui.text import i18n
from gui.text.live_texts import LiveTexts


class MenuBar(QObject):
    startPageRequested = Signal()
    openRequested = Signal(str)  # a lesson file's path; "" to ask for one
    saveRequested = Signal()
    saveAsRequested = Signal()
    shippedRequested = Signal(str)  # a shipped lesson's name
    languageRequested = Signal(str)  # "en" or "zh"

    def __init__(self, window: QMainWindow):
        super().__init__(window)
        self.window = window
        self.menus: dict[str, QMenu] = {}
        self.texts = LiveTexts()  # what a language switch sets again
        self._file()
        self._edit()
        self._view()
        self._model()
        self._whatif()
        self._lessons()
        self._language()
        self._help()

    def _menu(self, key: str, title: Callable[[], str]) -> QMenu:
        menu = self.window.menuBar().addMenu("")
        self.texts.set(menu.setTitle, title)
        self.menus[key] = menu
        return menu

    def _action(self, menu: QMenu, text: Callable[[], str], slot, keys=()) -> QAction:
        action = menu.addAction("")
        self.texts.set(action.setText, text)
        action.triggered.connect(slot)
        action.setShortcuts([QKeySequence(k) for k in keys])
        return action

    def _file(self) -> None:
        w = self.window
        menu = self._menu("file", lambda: self.tr("&File"))
        self._action(menu, lambda: self.tr("Lessons…"), self.startPageRequested.emit, ["Ctrl+L"])
        self._action(
            menu,
            lambda: self.tr("&Open…"),
            lambda: self.openRequested.emit(""),
            QKeySequence.keyBindings(QKeySequence.Open),
        )
        self.recent_menu = menu.addMenu("")
        self.texts.set(self.recent_menu.setTitle, lambda: self.tr("Open &Recent"))
        self.recent_menu.aboutToShow.connect(self.fill_recent_menu)
        self._action(
            menu, lambda: self.tr("&Save"), self.saveRequested.emit, QKeySequence.keyBindings(QKeySequence.Save)
        )
        self._action(menu, lambda: self.tr("Save &As…"), self.saveAsRequested.emit, ["Ctrl+Shift+S"])
        menu.addSeparator()
        self._action(menu, lambda: self.tr("Export figure…"), w.export_figure, ["Ctrl+E"])
        menu.addAction(w.map_actions["export"])
        self._action(menu, lambda: self.tr("Export matrix…"), w.export_matrix)
        self._action(menu, lambda: self.tr("Export lesson as slides…"), w.export_deck, ["Ctrl+Shift+E"])
        menu.addSeparator()
        self._action(menu, lambda: self.tr("&Quit"), w.close, QKeySequence.keyBindings(QKeySequence.Quit))
        self.fill_recent_menu()

    def retranslate(self) -> None:
        self.texts.retranslate()
        self.fill_recent_menu()

    def fill_recent_menu(self) -> None:
        menu = self.recent_menu
        menu.clear()
        recent = preferences.recent_files()
        for i, path in enumerate(recent, 1):
            action = menu.addAction(f"&{i}  {Path(path).name}")
            action.setStatusTip(path)
            action.setToolTip(path)
            action.triggered.connect(lambda _=False, p=path: self.openRequested.emit(p))
        if not recent:
            menu.addAction(self.tr("No recent lessons")).setEnabled(False)
        menu.addSeparator()
        clear = menu.addAction(self.tr("Clear the list"))
        clear.setEnabled(bool(recent))
        clear.triggered.connect(lambda: preferences.write("files/recent", []))

    def _edit(self) -> None:
        w = self.window
        menu = self._menu("edit", lambda: self.tr("&Edit"))
        stack = w.state.undo_stack
        undo, redo = (
            self._stack_action(stack.undo, ["Ctrl+Z"]),
            self._stack_action(stack.redo, ["Ctrl+Shift+Z", "Ctrl+Y"]),
        )
        stack.canUndoChanged.connect(undo.setEnabled)
        stack.canRedoChanged.connect(redo.setEnabled)
        undo.setEnabled(stack.canUndo())
        redo.setEnabled(stack.canRedo())
        self.texts.set(undo.setText, lambda: self._named(self.tr("Undo"), stack.undoText()))
        self.texts.set(redo.setText, lambda: self._named(self.tr("Redo"), stack.redoText()))
        stack.undoTextChanged.connect(self._undo_renamed)  # (slots of this object: gone with the window)
        stack.redoTextChanged.connect(self._redo_renamed)
        menu.addActions([undo, redo])
        menu.addSeparator()
        self.reset = self._action(menu, lambda: self.tr("Reset weights"), w.state.reset_weights)
        self._action(menu, lambda: self.tr("Edit the sentence"), w.edit_sentence, ["F6"])
        self.undo, self.redo = undo, redo

    def _stack_action(self, slot, keys: list[str]) -> QAction:
        """Undo or Redo, named by the command it would undo or redo ("Undo Edit W_Q[0, 2]") in the language shown
        (QUndoStack's own actions keep the words they were made with)."""
        action = QAction(self.window)
        action.triggered.connect(slot)
        action.setShortcuts([QKeySequence(k) for k in keys])
        return action

    @staticmethod
    def _named(verb: str, command: str) -> str:
        return f"{verb} {command}".strip()

    def _undo_renamed(self, command: str) -> None:  # (the stack's own text: it signals as it is destroyed too)
        self.undo.setText(self._named(self.tr("Undo"), command))

    def _redo_renamed(self, command: str) -> None:
        self.redo.setText(self._named(self.tr("Redo"), command))

    def _view(self) -> None:
        w = self.window
        menu = self._menu("view", lambda: self.tr("&View"))
        menu.addActions(w.stepper.actions_in_order)
        menu.addSeparator()
        menu.addAction(w.stage_view.controls.difference_action)
        menu.addSeparator()
        menu.addActions([dock.toggle for dock in w.docks.values()])  # (gui/docks/registry.py's order)
        menu.addSeparator()
        menu.addAction(w.map_actions["reduce_motion"])
        menu.addSeparator()
        menu.addActions(w.presentation.size_actions)
        menu.addSeparator()
        menu.addActions(w.presentation.colour_actions)
        menu.addMenu(w.presentation.decimals_menu)

    def _model(self) -> None:
        w = self.window
        menu = self._menu("model", lambda: self.tr("&Model"))
        menu.addAction(w.model_picker.choose_action)
        menu.addMenu(w.model_picker.submenu)
        menu.addSeparator()
        self._action(menu, lambda: self.tr("Settings…"), w.open_settings, ["Ctrl+,"])
        menu.addSeparator()
        menu.addActions(w.training_step.actions)
        menu.addSeparator()
        menu.addActions(w.teaching.generation_actions())

    def _whatif(self) -> None:
        teaching = self.window.teaching
        menu = self._menu("whatif", lambda: self.tr("What &if"))
        menu.addActions(list(teaching.switches.actions.values()))
        menu.addSeparator()
        menu.addAction(self.window.docks["whatif"].toggle)

    def _lessons(self) -> None:
        display = self.window.state.display
        menu = self._menu("lessons", lambda: self.tr("&Lessons"))
        self._action(menu, lambda: self.tr("All lessons…"), self.startPageRequested.emit)
        menu.addSeparator()
        for number, info in enumerate(shipped_lessons(), 1):
            action = menu.addAction("")
            self.texts.set(action.setText, lambda n=number, i=info: f"&{n}  {i.title[display.lang]}")
            self.texts.set(action.setStatusTip, lambda i=info: i.description[display.lang])
            action.triggered.connect(lambda _=False, name=info.name: self.shippedRequested.emit(name))

    def _language(self) -> None:
        menu = self._menu("language", lambda: self.tr("&Language"))
        group = QActionGroup(menu)
        for lang, name in i18n.LANGUAGES.items():
            action = menu.addAction(name)
            action.setCheckable(True)
            action.setChecked(lang == self.window.state.display.lang)
            action.setData(lang)
            group.addAction(action)
        group.triggered.connect(lambda action: self.languageRequested.emit(action.data()))

    def _help(self) -> None:
        w = self.window
        menu = self._menu("help", lambda: self.tr("&Help"))
        self._action(menu, lambda: self.tr("Keyboard shortcuts"), w.show_shortcuts, ["F1"])
        self._action(menu, lambda: self.tr("About Stepformer"), w.show_about)
