"""The "Cost of this model" dock: what the current model costs on the current sentence (gui/plots/cost.py), with the
current stage's layer stage by stage. It follows the cursor, new sentences and edits; hidden, it draws nothing.
Right-click exports or copies its figure in the slide style."""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QVBoxLayout

from gui.plots.cost import CostFigure, draw_cost, operations_key
from gui.plots.view import FigureCache
from gui.state.app_state import AppState
from gui.views.figure_view import FigureView
from gui.views.lazy_view import LazyView

LEAST_HEIGHT = 240  # px: at the desk the figure is fitted into the dock, down to this height


class CostView(LazyView):
    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self.state, self.settings = state, state.display
        self.plot = FigureView(state, self, draw=draw_cost, prefix="cost.")
        self.plot.setMinimumHeight(LEAST_HEIGHT)
        # in presentation mode (a window of its own) its panels stand one under the other at the back row's size,
        # and the dock scrolls; at the desk the figure is fitted into the dock
        self.one_column = self.settings.presenting
        self.scroll: QScrollArea | None = None
        if self.one_column:
            self.scroll = QScrollArea(self)
            self.scroll.setWidget(self.plot)
            self.scroll.setWidgetResizable(True)
            self.scroll.setFrameShape(QFrame.NoFrame)
            self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.figure: CostFigure | None = None
        # a figure per language and model operations (a what-if switch may change them): a switch back swaps in the
        # figure drawn for it, whose panels beside the per-stage one follow only those and the sentence
        self.figures = FigureCache(self.plot, limit=4)
        self.draws = 0  # how often it drew (a hidden dock must not)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.scroll or self.plot)
        for signal in (state.cursorChanged, state.lessonChanged, state.traceEdited):
            signal.connect(self.schedule)  # (of the display settings, it reads only the language and the text size)

    def retranslate(self) -> None:
        """Another language: the figure in that language when next shown (it holds words)."""
        self.schedule()

    def draw(self, *_) -> None:
        opts = self.settings.plot_options()
        key = opts.lang, operations_key(self.state.trace)
        self.figure = self.figures.show(key, lambda layout: CostFigure(layout, opts, self.one_column))
        # on the loss and the backward pass: the forward pass's last stage (the cost view covers the forward pass)
        self.figure.refresh(self.state.trace, self.state.forward_stage(), opts)  # the first times attention, once
        self.plot.settle()
        if self.one_column:  # as tall as its panels need at their size: the dock scrolls rather than shrink them
            least = self.plot.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize).height()
            self.plot.setMinimumHeight(max(LEAST_HEIGHT, math.ceil(least)))
        self.draws += 1

    def highlighted(self) -> str | None:
        """The stage shown in its own colour in the per-stage chart."""
        return None if self.figure is None else self.figure.stages.highlighted()
