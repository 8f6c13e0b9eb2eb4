"""The head grid: every head of the current attention side by side (a dockable view that follows the cursor).

At a per-head stage it shows that stage for each head; at Q, K, V also the matrix before the split with each
head's columns in its colour; at concat and W_O how the heads are put back together; elsewhere the latest
attention weights. Clicking a head's tile selects that head in the stage view.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QStackedWidget, QVBoxLayout

from gui.plots import figure_build_key
from gui.plots.captions import plain
from gui.plots.heads import draw_heads, heads_stage
from gui.plots.view import FigureCache, FittedLayoutWidget
from gui.state import display
from gui.state.app_state import AppState
from gui.views.lazy_view import LazyView, on_screen
from gui.views.prefetch import Prefetch


class HeadGridView(LazyView):
    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self.state, self.settings = state, state.display
        self.figure = None
        self.shown: str | None = None
        self.plot = FittedLayoutWidget(self)
        self.plot.scene().sigMouseClicked.connect(self._clicked)
        self.empty = QLabel(self)
        self.empty.setAlignment(Qt.AlignCenter)
        self.empty.setWordWrap(True)
        self.pages = QStackedWidget(self)
        self.pages.addWidget(self.plot)
        self.pages.addWidget(self.empty)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.pages)
        self.figures = FigureCache(self.plot)  # by stage shown, structure and language
        self.blank = pg.GraphicsLayout()
        self.prefetch = Prefetch(self, state, self._prepare)  # the next stage's heads, drawn while idle
        state.cursorChanged.connect(self.schedule)
        state.lessonChanged.connect(self.schedule)
        state.traceEdited.connect(self._edited)
        self.settings.changed.connect(self._settings_changed)

    def retranslate(self) -> None:
        """Another language: the heads drawn in it when next shown (their titles hold words; the cache keeps each
        language's figures)."""
        self.schedule()

    def draw(self) -> None:
        trace = self.state.trace
        self.shown = heads_stage(trace, self.state.forward_stage())  # a backward stage: its forward one
        if self.shown is None:
            self.figure = None
            self.plot.show_layout(self.blank)
            self.empty.setText(plain("no_attention", self.settings.lang))
            self.pages.setCurrentWidget(self.empty)
            return
        self.pages.setCurrentWidget(self.plot)
        self.figure = self.figures.show(
            self.figure_key(self.shown),
            self._drawing(self.shown),
            lambda figure: figure.refresh(trace, self.settings.plot_options()),
        )
        self.prefetch.restart()

    def figure_key(self, shown: str) -> tuple:
        """What the heads of the attention stage `shown` are built from: its structure and the language."""
        return figure_build_key(self.state.trace, shown), self.settings.lang

    def _drawing(self, shown: str):
        """What draws the heads of the attention stage `shown` into a layout."""
        trace, options = self.state.trace, self.settings.plot_options()
        return lambda layout: draw_heads(layout, trace, shown, options)

    def _prepare(self, stage: str) -> None:
        """Draw the heads that `stage` (a stage of the stepped view) shows into the cache, not shown (Prefetch)."""
        shown = heads_stage(self.state.trace, self.state.forward_stage(stage))
        if shown is not None:
            self.figures.prepare(self.figure_key(shown), self._drawing(shown))

    def _settings_changed(self, names: frozenset[str]) -> None:
        if names & ({"row"} | display.LOOK):  # new options, the same figure
            self._edited()

    def _edited(self, *_) -> None:
        if self.figure is None:
            return
        if on_screen(self):
            self.figure.refresh(self.state.trace, self.settings.plot_options())
        else:
            self.pending = True

    def tiles(self) -> list[pg.PlotItem]:
        """The per-head plots shown (one per head), in head order."""
        return [] if self.figure is None else self.figure.panels[0].head_plots()

    def _clicked(self, event) -> None:
        for head, plot in enumerate(self.tiles()):
            if plot.sceneBoundingRect().contains(event.scenePos()):
                self.state.set_head(head)
                return
