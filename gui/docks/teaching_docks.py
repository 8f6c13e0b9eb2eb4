"""The window's docks and the toolbar: every dock the registry declares (gui/docks/registry.py: the map, the head
grid, the Generate panel, the KV cache, the switches' effects, the cost of the model, the training lab, the training
step), each a view of the app state, and the toolbar's buttons for those that want one.

The main window makes one `TeachingViews(window)`, which adds the docks (`by_key`, the window's `docks`); its menus
(gui/window/menus.py) place the actions (each dock's toggle, generation_actions, the switches). Where a dock opens
(beside the stage view, tabbed, under it, or as a composed slide's one companion): gui/docks/placement.py.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow

from gui.docks.placement import DockPlacement
from gui.docks.registry import BESIDE, Dock, add_docks
from gui.docks.whatif import SwitchActions
from gui.text.live_texts import LiveTexts


class TeachingViews(QObject):
    def __init__(self, window: QMainWindow):
        super().__init__(window)
        self.window = window
        self.texts = LiveTexts()  # what a language switch sets again
        self.placement = DockPlacement(window, self.docks)
        self.by_key: dict[str, Dock] = add_docks(window, self.placement)
        self.switches = SwitchActions(window.state, self)
        # The names the other parts and the tests reach the teaching docks by (window.docks holds every dock, by key):
        teaching = [self.by_key[key] for key in ("heads", "whatif", "generation", "kv_cache", "cost")]
        self.heads, self.whatif, self.generation, self.kv_cache, self.cost = (dock.view for dock in teaching)
        self.heads_dock, self.whatif_dock, self.generation_dock, self.kv_dock, self.cost_dock = (
            dock.widget for dock in teaching
        )
        self.heads_action, self.whatif_action, self.generation_panel_action, self.kv_action, self.cost_action = (
            dock.toggle for dock in teaching
        )
        self.generation.generate_action.triggered.connect(self._show_generation)
        self.switches.toggledOn.connect(self.show_effect)
        self._toolbar()

    def docks(self) -> list[QDockWidget]:
        """The docks placed beside the stage view when they open (registry.BESIDE)."""
        return [dock.widget for dock in self.by_key.values() if dock.spec.placed == BESIDE]

    def open_views(self, names: tuple[str, ...], experiment: str | None = None) -> None:
        """Show the docks a lesson opens with (the others stay as they are), the training lab with the
        lesson's experiment chosen (not run: the teacher presses Run)."""
        for name in names:
            dock = self.by_key[name]
            dock.widget.show()
            dock.widget.raise_()
            if dock.spec.placed == BESIDE:
                self.placement.place(dock.widget)
        if experiment is not None:
            self.by_key["lab"].view.choose(experiment)

    def generation_actions(self) -> list:
        """Generate next token, Step through the new token: for the Model menu."""
        return [self.generation.generate_action, self.generation.step_action]

    def _toolbar(self) -> None:
        """A button for each dock that wants one (its toggle, or its view's action), in the registry's order, then
        the what-if switches."""
        bar = self.window.addToolBar("")
        self.texts.set(bar.setWindowTitle, lambda: self.tr("Heads, generation, what if"))
        bar.setObjectName("toolbar_teaching")
        bar.setToolButtonStyle(Qt.ToolButtonTextOnly)
        for dock in self.by_key.values():
            spec = dock.spec
            if spec.toolbar:
                bar.addAction(dock.toggle if spec.button is None else spec.button(dock.view))
            if spec.button_text is not None:  # (the menu names the whole title, which a new title sets again: after it)
                self.texts.set(dock.toggle.setIconText, spec.button_text)
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
        """Another language: the toolbar, the switches, and each dock's view (a hidden one draws in the new language
        when it is shown). (The docks' titles are the window's texts.)"""
        self.texts.retranslate()
        self.switches.retranslate()
        for dock in self.by_key.values():
            dock.view.retranslate()

    def carry_over(self, old: TeachingViews) -> None:
        """What the docks of a window being replaced showed (a new language, text size, presentation mode), and
        which of them its composed slide kept."""
        self.whatif.show_switch(old.whatif.switch())
        self.placement.carry_over(old.placement)
