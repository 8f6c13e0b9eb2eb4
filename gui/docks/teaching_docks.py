"""The docks and toolbar for heads, generation, "what if" and cost: the head grid, the Generate panel, the KV
cache, the switches' effects and the cost of the model, each a dockable view of the app state.

The main window makes one `TeachingViews(window)`; the docks and the toolbar are added to it here, and its menus
(gui/window/menus.py) place the actions (view_actions, generation_actions, the switches). Where a dock opens
(beside the stage view, tabbed, or floating over it): gui/docks/placement.py.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QWidget

from gui.docks.cost import CostView
from gui.docks.generation import GenerationPanel
from gui.docks.heads import HeadGridView
from gui.docks.kv_cache import KVCacheView
from gui.docks.placement import DockPlacement
from gui.docks.whatif import SwitchActions, WhatIfView
from gui.text.live_texts import LiveTexts
from gui.views.scrolling import scrolling


class TeachingViews(QObject):
    def __init__(self, window: QMainWindow):
        super().__init__(window)
        self.window = window
        state = window.state
        self.heads = HeadGridView(state)
        self.generation = GenerationPanel(state)
        self.kv_cache = KVCacheView(state)
        self.whatif = WhatIfView(state)
        self.cost = CostView(state)
        self.switches = SwitchActions(state, self)
        self.texts = LiveTexts()  # what a language switch sets again
        self.placement = DockPlacement(window, self.docks)

        self.heads_dock = self._dock("heads", lambda: self.tr("Heads side by side"), self.heads)
        self.whatif_dock = self._dock("whatif", lambda: self.tr("What if"), self.whatif)
        self.generation_dock = self._dock("generation", lambda: self.tr("Generate"), self.generation)
        self.kv_dock = self._dock("kv_cache", lambda: self.tr("KV cache"), self.kv_cache)
        self.cost_dock = self._dock("cost", lambda: self.tr("Cost of this model"), self.cost)
        window.tabifyDockWidget(self.heads_dock, self.whatif_dock)
        window.splitDockWidget(self.generation_dock, self.kv_dock, Qt.Vertical)
        for dock in self.docks():
            dock.hide()
            dock.toggleViewAction().triggered.connect(lambda on, d=dock: on and self.placement.place(d))

        self.heads_action = self.heads_dock.toggleViewAction()
        self.heads_action.setShortcut(QKeySequence("Ctrl+H"))
        self.kv_action = self.kv_dock.toggleViewAction()
        self.whatif_action = self.whatif_dock.toggleViewAction()
        self.generation_panel_action = self.generation_dock.toggleViewAction()
        self.cost_action = self.cost_dock.toggleViewAction()
        # the toolbar's button (the menu names the whole title, which a new title sets again: after it)
        self.texts.set(self.cost_action.setIconText, lambda: self.tr("Cost"))
        self.generation.generate_action.triggered.connect(self._show_generation)
        self.switches.toggledOn.connect(self.show_effect)
        self._toolbar()

    def _dock(self, key: str, title: Callable[[], str], view: QWidget) -> QDockWidget:
        dock = QDockWidget(self.window)
        self.texts.set(dock.setWindowTitle, title)
        dock.setObjectName(f"dock_{key}")
        dock.setWidget(scrolling(view))
        dock.visibilityChanged.connect(lambda visible: visible and view.in_sight())  # (also when its tab is chosen)
        dock.setAllowedAreas(Qt.LeftDockWidgetArea | Qt.RightDockWidgetArea | Qt.BottomDockWidgetArea)
        self.window.addDockWidget(Qt.RightDockWidgetArea, dock)
        return dock

    def docks(self) -> list[QDockWidget]:
        return [self.heads_dock, self.whatif_dock, self.generation_dock, self.kv_dock, self.cost_dock]

    def by_name(self) -> dict[str, QDockWidget]:
        """The docks by the names a lesson's "views" give (engine.formats.lesson.VIEWS)."""
        docks = {dock.objectName().removeprefix("dock_"): dock for dock in self.docks()}
        return {**docks, "lab": self.window.lab_dock}

    def open_views(self, names: tuple[str, ...], experiment: str | None = None) -> None:
        """Show the docks a lesson opens with (the others stay as they are), the training lab with the
        lesson's experiment chosen (not run: the teacher presses Run)."""
        docks = self.by_name()
        for name in names:
            docks[name].show()
            docks[name].raise_()
            if docks[name] in self.docks():
                self.placement.place(docks[name])
        if experiment is not None:
            self.window.lab_dock.widget().choose(experiment)

    def view_actions(self) -> list:
        """The docks' show/hide toggles, for the View menu."""
        return [self.heads_action, self.generation_panel_action, self.kv_action, self.whatif_action, self.cost_action]

    def generation_actions(self) -> list:
        """Generate next token, Step through the new token: for the Model menu."""
        return [self.generation.generate_action, self.generation.step_action]

    def _toolbar(self) -> None:
        bar = self.window.addToolBar("")
        self.texts.set(bar.setWindowTitle, lambda: self.tr("Heads, generation, what if"))
        bar.setObjectName("toolbar_teaching")
        bar.setToolButtonStyle(Qt.ToolButtonTextOnly)
        bar.addAction(self.heads_action)
        bar.addAction(self.generation.generate_action)
        bar.addAction(self.kv_action)
        bar.addAction(self.cost_action)
        bar.addSeparator()
        label = QLabel(bar)
        self.texts.set(label.setText, lambda: self.tr("What if: "))
        bar.addWidget(label)
        for action in self.switches.actions.values():
            bar.addAction(action)
        self.toolbar = bar

    def _show_generation(self) -> None:
        for dock in (self.kv_dock, self.generation_dock):  # the panel that says what was chosen on top
            if not dock.isVisible():
                dock.show()
                self.placement.place(dock)
        self.generation_dock.raise_()

    def show_effect(self, switch: str) -> None:
        """Show the What-if view on a switch (a switch just turned on shows its effect at once)."""
        if not self.whatif_dock.isVisible():
            self.whatif_dock.show()
            self.placement.place(self.whatif_dock)
        self.whatif_dock.raise_()
        self.whatif.show_switch(switch)

    def retranslate(self) -> None:
        """Another language: the docks' titles, the toolbar, the switches, and each view (a hidden one draws in the
        new language when it is shown)."""
        self.texts.retranslate()
        self.switches.retranslate()
        for view in (self.heads, self.generation, self.kv_cache, self.whatif, self.cost):
            view.retranslate()

    def carry_over(self, old: TeachingViews) -> None:
        """What the docks of a window being replaced showed (a new language, text size, presentation mode), and
        which of them floated over its stage view."""
        self.whatif.show_switch(old.whatif.switch())
        self.placement.carry_over(old.placement)
