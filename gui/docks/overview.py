"""The overview dock (View ▸ Every head at a glance, Ctrl+Shift+H): every attention of the model, every layer × head,
as a grid of thumbnails for the current sentence (gui/plots/overview.py), the thumbnail under the pointer (else the
selected one: the current stage's head, outlined) enlarged beside it with its tokens named. A click opens that head's
attention weights in the stepper. The badges are coloured, and each row's heads sorted, by a head metric of the
engine (engine/head_patterns.py), chosen in a combo box whose tooltip states its definition and thresholds.

It follows edits (only the thumbnails of the attentions an edit recomputed are drawn again), what-if switches, the
sentence and generated tokens. In presentation mode the dock takes the whole slide, a page of its own (OverviewPage);
a click there opens the head's stage and gives the slide back to it.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QObject, QPoint, QRect, Qt, QTimer, Signal
from PySide6.QtWidgets import QBoxLayout, QCheckBox, QComboBox, QDockWidget, QHBoxLayout, QLabel, QVBoxLayout

from engine.head_patterns import METRICS
from gui.plots.figure import trace_structure
from gui.plots.heatmap import Heatmap, axis_labels
from gui.plots.overview import OverviewFigure, draw_overview, row_header_of
from gui.plots.predicts import row_labels
from gui.plots.scale import scale_of
from gui.plots.view import FigureCache, FittedLayoutWidget, clear_layout
from gui.state import display
from gui.state.app_state import AppState
from gui.text.head_patterns import column_header, metric_help, metric_name, metric_value, pattern_name, word
from gui.views.figure_view import FigureView
from gui.views.lazy_view import LazyView, on_screen

BESIDE_SHARE = 0.3  # of the view's width (or height) the enlarged head takes, right of the grid or under it


class OverviewView(LazyView):
    opened = Signal()  # a thumbnail was clicked: its head's stage is the current one now

    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self.state, self.settings = state, state.display
        self.figure: OverviewFigure | None = None
        self.draws = 0  # how often the grid was drawn or refreshed as a whole (a hidden dock must not)
        self.metric_label = QLabel(self)
        self.metric_box = QComboBox(self)
        for metric in METRICS:
            self.metric_box.addItem("", metric)
        self.sort_box = QCheckBox(self)
        self.metric_box.currentIndexChanged.connect(self._metric_changed)
        self.sort_box.toggled.connect(self._metric_changed)
        controls = QHBoxLayout()
        controls.addWidget(self.metric_label)
        controls.addWidget(self.metric_box)
        controls.addWidget(self.sort_box)
        controls.addStretch(1)
        self.grid_view = FigureView(state, self, draw=self._draw_for_export, prefix="overview.")
        self.grid_view.setMinimumSize(160, 120)
        self.figures = FigureCache(self.grid_view, limit=2)  # by language, colour map and the model's attentions
        self.detail_view = FittedLayoutWidget(self)
        self.detail_view.setMinimumSize(160, 120)
        self.detail: Heatmap | None = None
        self.detail_for: tuple = ()  # what the enlarged head was drawn from
        self.detail_timer = QTimer(self)  # the pointer crossing many thumbnails draws the last one only
        self.detail_timer.setSingleShot(True)
        self.detail_timer.setInterval(0)
        self.detail_timer.timeout.connect(self._show_detail)
        self.body = QBoxLayout(QBoxLayout.Direction.TopToBottom)
        self.body.addWidget(self.grid_view, round(100 * (1 - BESIDE_SHARE)))
        self.body.addWidget(self.detail_view, round(100 * BESIDE_SHARE))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 0)
        layout.addLayout(controls)
        layout.addLayout(self.body, 1)
        state.lessonChanged.connect(self.schedule)
        state.cursorChanged.connect(self._select)
        state.traceEdited.connect(self._edited)
        self.settings.changed.connect(self._settings_changed)
        self.retranslate()

    # ---- texts ---------------------------------------------------------------------------------------------------
    def retranslate(self) -> None:
        """Another language: the controls' words, and the grid drawn in it (its headers and captions are words)."""
        lang = self.settings.lang
        self.metric_label.setText(self.tr("Colour by:"))
        self.sort_box.setText(self.tr("Sort each row by it"))
        for k, metric in enumerate(METRICS):
            self.metric_box.setItemText(k, metric_name(metric, lang))
            self.metric_box.setItemData(k, metric_help(metric, lang), Qt.ItemDataRole.ToolTipRole)
        self.metric_box.setToolTip(metric_help(self.chosen_metric(), lang))
        self.detail_for = ()
        self.schedule()

    def chosen_metric(self) -> str:
        return self.metric_box.currentData() or METRICS[0]

    def set_metric(self, metric: str, sort: bool | None = None) -> None:
        """Colour the badges by `metric` (and sort each row by it, or not)."""
        self.metric_box.setCurrentIndex(METRICS.index(metric))
        if sort is not None:
            self.sort_box.setChecked(sort)

    def _metric_changed(self, *_) -> None:
        self.metric_box.setToolTip(metric_help(self.chosen_metric(), self.settings.lang))
        if self.figure is not None:
            self.figure.set_metric(self.chosen_metric(), self.sort_box.isChecked())

    def _draw_for_export(self, layout, trace, stage, opts):
        """The grid as the teacher sees it (metric and order) in the slide style (right-click ▸ Export figure)."""
        return draw_overview(layout, trace, stage, opts, self.chosen_metric(), self.sort_box.isChecked())

    # ---- drawing -------------------------------------------------------------------------------------------------
    def draw(self) -> None:
        trace, opts = self.state.trace, self.settings.plot_options()
        key = opts.lang, opts.colormap, opts.font_scale, trace_structure(trace)
        self.figure = self.figures.show(
            key,
            lambda layout: OverviewFigure(layout, opts, self.chosen_metric(), self.sort_box.isChecked()),
        )
        if self.figure.trace is None:
            self.figure.grid.hovered.connect(self._pointed)
            self.figure.grid.clicked.connect(self._clicked)
        self.figure.set_metric(self.chosen_metric(), self.sort_box.isChecked())
        self.figure.refresh(trace, opts)
        self.grid_view.settle()
        self.draws += 1
        self._arrange()
        self._select()
        self._show_detail()  # (now: the grid and the head it enlarges are painted together)

    def _edited(self, names) -> None:
        if self.figure is None:
            return
        if on_screen(self):
            self.figure.refresh(self.state.trace, self.settings.plot_options(), set(names))
            self.detail_for = ()
            self._show_detail()
        else:
            self.pending = True

    def _settings_changed(self, names: frozenset[str]) -> None:
        if names & (display.LOOK | {"lang"}):
            self.detail_for = ()
            self.schedule()
        elif "head" in names:
            self._select()

    # ---- the selected head and the enlarged one ----------------------------------------------------------------
    def selected(self) -> tuple[int, int] | None:
        """(row, head) of the current stage's head: the attention the stage sits in, else the last one before it
        (None before the first)."""
        if not self._current():
            return None
        trace, stage = self.state.trace, self.state.forward_stage()
        names = trace.stage_names
        at = trace.attention_of(stage)
        here = names.index(at.weights.name if at is not None else stage)
        rows = [(names.index(a.stages.weights.name), r) for r, a in enumerate(self.figure.grid.rows)]
        before = [r for index, r in rows if index <= here]
        return (before[-1], self.state.head) if before else None

    def _current(self) -> bool:
        """Whether the grid is drawn from the trace shown now (another model's rows until it is drawn again)."""
        return self.figure is not None and self.figure.trace is self.state.trace

    def _select(self, *_) -> None:
        if self.figure is not None:
            self.figure.grid.set_selected(self.selected())
            self.detail_timer.start()

    def _pointed(self, cell) -> None:
        self.figure.grid.setToolTip(self._tooltip(cell) if cell is not None else "")
        self.detail_timer.start()

    def shown_head(self) -> tuple[int, int] | None:
        """The head enlarged: the one under the pointer, else the selected one (before the first attention, the
        first attention's head)."""
        if self.figure is None or not self.figure.grid.rows:
            return None
        return self.figure.grid.pointed or self.selected() or (0, self.state.head)

    def _show_detail(self) -> None:
        if not (self._current() and self.isVisible()):
            return
        cell = self.shown_head()
        opts = self.settings.plot_options()
        key = (cell, id(self.state.trace), opts.lang, opts.colormap, opts.decimals)
        if key == self.detail_for and self.detail is not None:
            return
        self.detail_for = key
        if self.detail is None:
            clear_layout(self.detail_view.ci)
            self.detail = Heatmap(self.detail_view.ci, opts, False, row=0, col=0)
        if cell is None:
            self.detail.plot.setVisible(False)
            return
        self.detail.plot.setVisible(True)
        row, head = cell
        trace, at = self.state.trace, self.figure.grid.rows[row]
        name = at.stages.weights.name
        st, matrix = trace.stage(name), self.figure.thumbnail(row, head).values
        rows = row_labels(trace, name, axis_labels(trace, st.rows, matrix.shape[0]))
        cols = axis_labels(trace, st.cols, matrix.shape[1])
        self.detail.set(matrix, rows, cols, opts, self._detail_caption(row, head), scale=scale_of(probability=True))
        self.detail_view.settle()

    def _detail_caption(self, row: int, head: int) -> str:
        lang, grid = self.settings.lang, self.figure.grid
        stacks = len({a.stack for a in grid.rows})
        pattern = self.figure.thumbnail(row, head).pattern
        where = word("detail", lang, row=row_header_of(grid.rows[row], stacks, lang), head=column_header(head, lang))
        return f"{where} · {pattern_name(pattern.pattern, lang)}"

    def _tooltip(self, cell: tuple[int, int]) -> str:
        """The head's place, pattern and every metric's value, then the chosen metric's definition."""
        row, head = cell
        lang = self.settings.lang
        pattern = self.figure.thumbnail(row, head).pattern
        values = "\n".join(f"{metric_name(m, lang)}: {metric_value(pattern.metric(m), lang)}" for m in METRICS)
        definition = metric_help(self.chosen_metric(), lang)
        return f"{self._detail_caption(row, head)}\n{values}\n\n{definition}\n{pattern.stage}"

    def _clicked(self, cell: tuple[int, int]) -> None:
        """Open the head's attention weights in the stepper, that head chosen."""
        row, head = cell
        self.state.go_to(self.figure.grid.rows[row].stages.weights.name)
        self.state.set_head(head)
        self.opened.emit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._arrange()

    def _arrange(self) -> None:
        """The enlarged head right of the grid or under it: where the thumbnails come out larger (by a tenth); else
        where the grid has the room its type needs, else where the enlarged head is larger."""
        if self.figure is None or not self.figure.grid.rows:
            return
        figure, share = self.figure, BESIDE_SHARE
        grid, m = figure.grid, figure.grid._measures()
        rows, cols = len(grid.rows), grid.n_heads
        fixed_w = m.row_w + figure.weights_bar.width() + figure.metric_bar.width()  # besides the columns
        fixed_h, caption = 2 * m.line_h, m.caption_h
        width, height = self.width(), self.height()
        need = self.grid_view.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize)
        places = []  # (thumbnail side, grid fits, enlarged side) beside, then under
        for grid_w, grid_h, detail in (
            (width * (1 - share), height, min(width * share, height)),
            (width, height * (1 - share), min(width, height * share)),
        ):
            side = min((grid_w - fixed_w) / cols, (grid_h - fixed_h) / rows - caption)
            places.append((side, need.width() <= grid_w and need.height() <= grid_h, detail))
        (beside_side, *beside_rest), (under_side, *under_rest) = places
        if max(beside_side, under_side) > 1.1 * min(beside_side, under_side):
            beside = beside_side > under_side
        else:
            beside = beside_rest >= under_rest
        direction = QBoxLayout.Direction.LeftToRight if beside else QBoxLayout.Direction.TopToBottom
        if self.body.direction() != direction:
            self.body.setDirection(direction)

    # ---- for tests and benchmarks --------------------------------------------------------------------------------
    def thumbnail_values(self) -> dict[tuple[str, int], np.ndarray]:
        """Each thumbnail's weights, by (weights stage, head)."""
        grid = self.figure.grid
        return {(grid.rows[r].stages.weights.name, h): t.values for (r, h), t in grid.thumbs.items()}


class OverviewPage(QObject):
    """In presentation mode the overview dock takes the whole slide (floating over the window, which it fills), a
    page of its own rather than a companion squeezed beside the stage; a click on a head opens its stage and gives
    the slide back to the stage. At the desk it opens beside the stage view like the other docks."""

    def __init__(self, window, dock: QDockWidget, view: OverviewView):
        super().__init__(dock)
        self.window, self.dock = window, dock
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(0)
        self.timer.timeout.connect(self.fill)
        dock.toggleViewAction().triggered.connect(self._toggled)
        dock.visibilityChanged.connect(lambda visible: visible and self.timer.start())
        window.resized.connect(self.timer.start)
        window.shown.connect(self.timer.start)
        view.opened.connect(self._opened)

    def presenting(self) -> bool:
        return bool(getattr(self.window, "presenting", False))

    def _toggled(self, on: bool) -> None:
        if on and not self.presenting():
            self.window.teaching.placement.place(self.dock)

    def page(self) -> QRect:
        """The slide: the window's central part (the stage and the breadcrumb), in global coordinates."""
        central = self.window.centralWidget()
        return QRect(central.mapToGlobal(QPoint(0, 0)), central.size())

    def fill(self) -> None:
        if not (self.presenting() and self.dock.isVisible()):
            return
        self.dock.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)  # the keys stay with the window
        if not self.dock.isFloating():
            self.dock.setFloating(True)
        if self.dock.geometry() != self.page():
            self.dock.setGeometry(self.page())
        self.dock.raise_()

    def _opened(self) -> None:
        if self.presenting() and self.dock.isVisible():
            self.dock.hide()
            self.window.activateWindow()


def set_up(window, dock) -> None:
    """The registry's setup of the overview dock (gui/docks/registry.py)."""
    OverviewPage(window, dock.widget, dock.view)
