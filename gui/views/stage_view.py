"""The current stage: title, formula with shapes, input and output matrices, plots, and an explanation.

It observes the app state: a new cursor or lesson rebuilds it, an edit refreshes the numbers in place
(cellsChanged on the tables, StageFigure.refresh on the plots); a change of the display settings re-slices (head),
repaints the tables (decimals, colour map) or redraws the plots (row, temperature, colour map).
"""

from __future__ import annotations

import math
from dataclasses import replace

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QSize, Qt, QTimer
from PySide6.QtWidgets import (
    QGridLayout,
    QLabel,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from engine.provenance import sources
from gui.plots import PlotOptions, draw_stage, figure_build_key
from gui.plots.view import FigureCache
from gui.state import display
from gui.state.app_state import AppState
from gui.text.formulas import formula, symbols
from gui.text.live_texts import LiveTexts
from gui.text.operations import stage_operation, stage_text, stage_title
from gui.text.places import place
from gui.views.figure_view import FigureView
from gui.views.fonts import scale_font
from gui.views.matrix_layout import (
    PLOT_MIN_WIDTH,
    MatrixLayout,
    growth_scales,
    matrices_width,
    matrices_widths,
    table_scales,
)
from gui.views.matrix_view import MatrixPanel
from gui.views.prefetch import Prefetch
from gui.views.stage_controls import StageControls
from gui.views.steady_label import wrapped_line_heights
from gui.views.tensor_slice import TensorSlice, slice_for

MAX_INPUTS = 5  # a backward step through X·W + b: X, W, b, ∂L/∂W, ∂L/∂b
FORMULA_SCALE = 1.25  # the formula against the text around it: 1.35 in presentation mode (32 px at 1920×1080)
PRESENT_FORMULA_SCALE = 1.35
EXPLANATION_LINES = 5  # the explanation's most lines before it scrolls (3 in presentation mode: tables first)
PRESENT_EXPLANATION_LINES = 3
PAGE_MARGINS = (8, 4, 8, 4)  # around the title, formula, tables, figure and explanation


def is_editable(trace, name: str) -> bool:
    """Parameters, and the input X of the first block (as an override)."""
    stage = trace.stage(name)
    return name in trace.params or (stage is not None and stage.op == "x0")


class StageView(QWidget):
    def __init__(self, state: AppState, parent=None):
        # (Over 60 lines: the widgets are built in the order they stand on screen, one flat sequence.)
        super().__init__(parent)
        self.state, self.settings = state, state.display
        self.figure = None
        self.shown_head = state.head
        self.shown_for: tuple = (None, None)  # the trace (stepped view) and stage shown
        self.presenting = False

        self.title = scale_font(QLabel(self), 1.5, bold=True)
        self.location = QLabel(self)
        self.location.setStyleSheet("color: #555")
        self.formula = scale_font(QLabel(self), FORMULA_SCALE)
        self.formula.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.formula.setWordWrap(True)

        self.controls = controls = StageControls(self, self.settings, state.set_head)
        controls.difference_action.toggled.connect(self._difference_toggled)
        self.texts = LiveTexts()  # what a language switch sets again
        self.hint = hint = QLabel(self)
        self.texts.set(
            hint.setText,
            lambda: self.tr(
                "Hover over an output cell to see where it came from · double-click a ✎ matrix to change a number"
            ),
        )
        hint.setStyleSheet("color: #666")
        hint.setWordWrap(True)  # under the explanation, full width: one line, two in a narrow window

        matrices = QWidget(self)  # the panels' parent from the start: re-parenting would hide them
        self.inputs = [MatrixPanel(state, matrices) for _ in range(MAX_INPUTS)]
        self.output = MatrixPanel(state, matrices)
        self.output.table.hovered.connect(self._hovered)
        for panel in [*self.inputs, self.output]:
            panel.table.rowClicked.connect(lambda row, p=panel: self._row_clicked(p, row))
        self.grid = QGridLayout(matrices)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setHorizontalSpacing(14)
        self.grid.setVerticalSpacing(10)
        self.layout_of_matrices = MatrixLayout(matrices, self.grid, self.inputs, self.output)
        self.plot = FigureView(state, self)  # right-click: Export figure…, Copy figure
        self.figures = FigureCache(self.plot)  # by stage, structure, language: stepping back swaps a figure in
        self.blank = pg.GraphicsLayout()  # shown until the stage's figure is drawn
        self.plot_timer = QTimer(self)
        self.plot_timer.setSingleShot(True)
        self.plot_timer.setInterval(0)
        self.plot_timer.timeout.connect(self.draw_plots)
        self.prefetch = Prefetch(self, state, self._prepare_plots)  # the next stage's figure, drawn while idle
        self.plot.setMinimumWidth(PLOT_MIN_WIDTH)
        matrices_box = QScrollArea(self)  # a narrow window scrolls the matrices rather than squeezing them
        matrices_box.setWidget(matrices)
        matrices_box.setWidgetResizable(True)
        matrices_box.setFrameShape(QScrollArea.NoFrame)
        self.matrices, self.matrices_box = matrices, matrices_box
        self.splitter = QSplitter(Qt.Horizontal, self)
        self.splitter.addWidget(matrices_box)
        self.splitter.addWidget(self.plot)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)

        self.explanation = QLabel(self)
        self.explanation.setWordWrap(True)
        self.explanation.setTextFormat(Qt.PlainText)
        self.explanation.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        scale_font(self.explanation, 1.1)
        explanation_box = QScrollArea(self)  # as tall as its lines, five at most (then it scrolls)
        explanation_box.setWidget(self.explanation)
        explanation_box.setWidgetResizable(True)
        explanation_box.setFrameShape(QScrollArea.NoFrame)
        self.explanation_box = explanation_box
        explanation_box.viewport().installEventFilter(self)
        self.splitter.installEventFilter(self)  # a taller explanation, the head row shown: the matrices' room changes

        page = QWidget(self)
        layout = self.stage_layout = QVBoxLayout(page)
        layout.setContentsMargins(*PAGE_MARGINS)
        for widget in (self.title, self.location, self.formula):
            layout.addWidget(widget)
        layout.addLayout(controls.row)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(explanation_box)
        layout.addWidget(hint)

        self.problem = scale_font(QLabel(self), 1.4)
        self.problem.setWordWrap(True)
        self.problem.setAlignment(Qt.AlignCenter)
        self.pages = QStackedWidget(self)
        self.pages.addWidget(page)
        self.pages.addWidget(self.problem)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.pages)

        state.cursorChanged.connect(self.rebuild)
        state.lessonChanged.connect(self.rebuild)
        state.traceEdited.connect(self.refresh)
        self.settings.changed.connect(self._settings_changed)
        state.problemChanged.connect(self._show_problem)
        self.rebuild()

    def eventFilter(self, watched, event) -> bool:
        if watched is self.explanation_box.viewport() and event.type() == QEvent.Type.Resize:
            # a new width wraps the explanation into more or fewer lines: its height follows once the scroll area has
            # laid out its viewport (a new height set from inside that layout left the viewport its old height, the
            # last line cut off without a scroll bar)
            QTimer.singleShot(0, self, self._fit_explanation)
        elif watched is self.splitter and event.type() == QEvent.Type.Resize:
            self._fit_split()
        return False

    def _fit_explanation(self) -> None:
        """The explanation's box as tall as its lines, `most` lines at most (then it scrolls). The lines are wrapped at
        the box's whole width, which they have unless they scroll (and then the height is `most` lines whatever the
        width), not at the viewport's: narrowed by the scroll bar of a longer text before, that gave a text that fits
        a line too many until the bar had gone and the box was fitted again."""
        box = self.explanation_box
        width = box.width() - 2 * box.frameWidth()
        height = self.explanation.heightForWidth(width)
        most = PRESENT_EXPLANATION_LINES if self.presenting else EXPLANATION_LINES
        lines = wrapped_line_heights(self.explanation.text(), self.explanation.font(), width)
        if len(lines) > most:  # it scrolls: whole lines, none glimpsed below them (4 px of a fourth line read as a cut)
            box.setFixedHeight(math.floor(sum(lines[:most])))
        else:
            box.setFixedHeight(max(height, math.ceil(lines[0])) + 4)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._fit_split()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_split()  # a dock opened beside the view, a window made smaller: the matrices keep what they need

    def set_presenting(self, on: bool) -> None:
        """Presentation mode: the breadcrumb above the view names the stage (its title and place here give way),
        the formula larger, the tables first and whole beside a figure that adds to them (no heatmap repeating a
        table: PlotOptions.tables_shown), no hints or buttons for the desk."""
        self.presenting = on
        for widget in (self.title, self.location, self.hint, self.controls.difference_button):
            widget.setVisible(not on)
        font = self.font()
        font.setPointSizeF(font.pointSizeF() * (PRESENT_FORMULA_SCALE if on else FORMULA_SCALE))
        self.formula.setFont(font)
        self.figures.discard()  # the figures drawn so far were drawn for the other mode
        self.shown_for = (None, None)
        self.rebuild()

    def retranslate(self) -> None:
        """Another language (its translators installed): the fixed texts set again, and the stage shown anew, since
        its title, explanation, tables' captions and figures hold words (figures are cached by language too)."""
        self.texts.retranslate()
        self.controls.retranslate()
        self.shown_for = (None, None)
        self.rebuild()

    def _fit_split(self) -> None:
        """Matrices get the width they need, the plots the rest (see matrix_layout.matrices_width); matrices that
        do not fit their share that way reflow, or take a smaller font (matrix_layout.MatrixLayout.fit), and what
        still does not fit scrolls; in presentation mode tables without a figure take a larger font where they fit
        (matrix_layout.growth_scales). (A dock beside the view, a companion of a composed slide, narrows the view
        itself: gui/docks/placement.py.)"""
        figure_shown = not self.plot.isHidden()
        total = self.splitter.width()
        if total <= 0:
            self.layout_of_matrices.fit([])  # no room to fit yet: the stage's own arrangement
            return
        edges = self.tables_width() - self.matrices.sizeHint().width()
        widths = matrices_widths(total, self.presenting, figure_shown)
        rooms = [QSize(width - edges, self.splitter.height()) for width in widths]
        table = self.output.table
        larger = growth_scales(table, self.presenting, figure_shown)
        self.layout_of_matrices.fit(rooms, table_scales(table, self.presenting), larger)
        left = matrices_width(total, self.tables_width(), self.presenting, figure_shown)
        self.splitter.setSizes([left, total - left])

    def tables_width(self) -> int:
        """The width the matrices would like, with room for their vertical scroll bar (they scroll in less)."""
        return self.matrices.sizeHint().width() + self.style().pixelMetric(QStyle.PM_ScrollBarExtent) + 8

    def plot_options(self) -> PlotOptions:
        """The display settings' options; in presentation mode the figure leaves out what the tables show."""
        return replace(self.settings.plot_options(), tables_shown=self.presenting)

    def panels(self) -> list[MatrixPanel]:
        return [p for p in [*self.inputs, self.output] if p.model.slice is not None]

    # ---- building -----------------------------------------------------------------------------
    def rebuild(self, *_) -> None:
        """Show the current stage from scratch (new cursor, new lesson). Everything is computed before anything
        shown changes: a failure leaves the view as it was, never half of one stage and half of another."""
        state, trace = self.state, self.state.view
        name = state.current_stage
        if self.shown_for[0] is trace and self.shown_for[1] == name:
            return  # a new lesson or trace signals lessonChanged, then cursorChanged: one rebuild for both
        entry = stage_operation(trace, name)
        lang = self.settings.lang
        title, explanation = stage_title(trace, name, lang), stage_text(trace, name, lang)
        shown_formula = self._formula()
        location = place(trace, name)  # human names: the stage's id in the tooltip
        matrices = self._matrices()
        self.figure = None
        self.shown_head = state.head
        self.title.setText(title)
        self.formula.setText(shown_formula)
        self.location.setText(location)
        self.location.setToolTip(name)
        self.title.setToolTip(name)
        self.explanation.setText(explanation)
        self._fit_explanation()
        self.controls.show_heads(trace.config.n_heads, state.head)
        self.controls.show_temperature_choice(entry.panels == "top_k")  # the temperature of the top-k plot
        self._show_matrices(matrices)
        self.plot.viewport().setUpdatesEnabled(False)  # not painted until the figure comes, in a moment
        if not self.figures.is_shown(self.figure_key(name)):  # (the same figure, refreshed: kept in place)
            self.plot.show_layout(self.blank)
        self.plot_timer.start()  # draw when the event loop is idle: holding → skips the plots in between
        self._show_problem(state.problem)
        # laid out now: left to the LayoutRequest Qt posts, a busy machine painted the stage first (the splitter in
        # the last stage's place, the explanation's new height not yet given to it) and then all of it again
        self.stage_layout.activate()
        self.shown_for = (trace, name)

    def draw_plots(self) -> None:
        """The plots for the current stage (gui.plots), drawn into the plot area."""
        state = self.state
        view, stage = state.view, state.current_stage  # the stepped view: backward stages too
        try:
            self.figure = self.figures.show(
                self.figure_key(stage),
                self._drawing(stage),
                lambda figure: figure.refresh(view, self.plot_options()),
            )
        finally:
            self.plot.viewport().setUpdatesEnabled(True)
        self.prefetch.restart()
        if self.presenting and self.plot.isHidden() == bool(self.figure.panels):
            self.plot.setVisible(bool(self.figure.panels))  # no figure beyond the tables: they take the width
            self._fit_split()

    def figure_key(self, stage: str) -> tuple:
        """What the figure of `stage` (a name in the stepped view) is built from: its structure and the language
        of its words (a figure drawn in the other language stays cached, for a switch back)."""
        return figure_build_key(self.state.view, stage), self.settings.lang

    def _drawing(self, stage: str):
        """What draws the figure of `stage` (a name in the stepped view) into a layout."""
        view, options = self.state.view, self.plot_options()
        return lambda layout: draw_stage(layout, view, stage, options)

    def _prepare_plots(self, stage: str) -> None:
        """Draw the figure of `stage` into the cache, not shown (Prefetch: the stages next to the cursor)."""
        self.figures.prepare(self.figure_key(stage), self._drawing(stage))

    def _matrices(self) -> list[tuple]:
        """For each panel (inputs, then the output): the show_tensor arguments for the current stage and head,
        the table's content computed (nothing shown changes here)."""
        trace, name, head = self.state.view, self.state.current_stage, self.state.head
        stage = trace.stage(name)
        in_symbols, out_symbol = symbols(trace, name)
        shown = list(stage.inputs) if stage is not None else []
        plans = []
        for i, panel in enumerate(self.inputs):
            if i < len(shown):
                part = slice_for(trace, shown[i], name, head)
                plans.append(
                    (
                        panel,
                        part,
                        in_symbols.get(shown[i], shown[i]),
                        is_editable(trace, shown[i]),
                        self._note(part),
                        False,
                    )
                )
            else:
                plans.append((panel, None, "", False, "", False))
        part = slice_for(trace, name, name, head)
        plans.append((self.output, part, out_symbol, is_editable(trace, name), self._note(part), True))
        return [(*plan, plan[0].model.content(plan[1])) for plan in plans]

    def _show_matrices(self, matrices: list[tuple]) -> None:
        """Swap in the panels' new content (from _matrices) and lay them out."""
        for panel, *arguments in matrices:
            panel.show_tensor(*arguments)
        stage = self.state.view.stage(self.state.current_stage)
        self.layout_of_matrices.show(
            stage_operation(self.state.view, self.state.current_stage).inputs,
            len(stage.inputs) if stage is not None else 0,
        )
        per_head = any(p.model.slice.head is not None or p.model.slice.col_stop is not None for p in self.panels())
        choice = per_head and self.state.view.config.n_heads > 1  # one head: nothing to choose (the formula names it)
        self.controls.show_head_choice(choice)
        for panel in self.panels():
            panel.model.set_show_difference(self.controls.difference_action.isChecked())
        self._fit_split()
        for panel in self.panels():
            # the tables' rows and columns laid out now: Qt does it on a timer after a model reset, which fires after
            # the first paint and paints every table again (at each step and each generated token)
            panel.table.doItemsLayout()

    def _note(self, part: TensorSlice) -> str:
        if part.head is not None:
            return ", " + self.tr("head {0}").format(part.head)
        if part.col_stop is not None:
            return ", " + self.tr("head {0}: columns {1}–{2}").format(
                self.state.head, part.col_start, part.col_stop - 1
            )
        return ""

    # ---- reacting -------------------------------------------------------------------------------
    def refresh(self, names: list[str]) -> None:
        """After an edit: new numbers in every visible table and in the plots, nothing rebuilt."""
        self._measure_again_if(any([panel.model.refresh(names) for panel in self.panels()]))
        stage = self.state.view.stage(self.state.current_stage)
        used = {self.state.current_stage, *(stage.inputs if stage is not None else ())}
        if self.figure is not None and used & set(names):
            self._refresh_plots()

    def _refresh_plots(self) -> None:
        if self.figure is not None:
            self.figure.refresh(self.state.view, self.plot_options())
            self.plot.settle()  # laid out before its paint (a colour bar's new values may widen it): painted once

    def _formula(self) -> str:
        """The current stage's formula line, for the head shown, its numbers with the tables' decimals."""
        return formula(self.state.view, self.state.current_stage, self.state.head, self.settings.decimals)

    def _settings_changed(self, names: frozenset[str]) -> None:
        """Another head: the per-head matrices and the formula re-sliced; other decimals or colours: the tables
        repainted and re-fitted; the plots redrawn with the new options. (The language: retranslate; the text size
        comes with a new window.)"""
        if "temperature" in names:
            self.controls.show_temperature()
        if "decimals" in names:  # (a tiled attention's formula quotes numbers)
            self.formula.setText(self._formula())
        if "head" in names and self.shown_head != self.state.head:
            shown_formula = self._formula()
            matrices = self._matrices()
            self.shown_head = self.state.head
            self.controls.head_box.setCurrentIndex(self.state.head)
            self.formula.setText(shown_formula)
            self._show_matrices(matrices)
        elif names & display.LOOK:
            self._show_matrices(self._matrices())
        if names & ({"head", "row", "temperature"} | display.LOOK):
            self._refresh_plots()

    def _row_clicked(self, panel: MatrixPanel, row: int) -> None:
        """A click on a token row selects that token for the plots (e.g. its attention bars)."""
        stage = self.state.view.stage(panel.model.slice.name)
        if stage is not None and stage.rows is not None:
            self.state.set_row(row)

    def _hovered(self, index: tuple | None) -> None:
        """Highlight the input cells the hovered output cell was computed from."""
        found = sources(self.state.trace, self.state.current_stage, index) if index is not None else {}
        for panel in self.inputs:
            if panel.model.slice is not None:
                panel.model.set_highlight(found.get(panel.model.slice.name))
        self.output.model.set_highlight(index)

    def _difference_toggled(self, on: bool) -> None:
        self._measure_again_if(any([panel.model.set_show_difference(on) for panel in self.panels()]))

    def _measure_again_if(self, new_shapes: bool) -> None:
        """Numbers of a new shape in a table: its columns measured and laid out again (a "−254.41" in a column
        measured for "−0.00" was drawn "254.41")."""
        if new_shapes:
            self.layout_of_matrices.remeasure()
            self._fit_split()

    def _show_problem(self, problem: str) -> None:
        """An empty or unusable sentence explains itself instead of showing stale numbers."""
        if problem:
            self.problem.setText(
                self.tr("This sentence cannot be stepped through:")
                + f"\n\n{problem}\n\n"
                + self.tr("Type a sentence in the box above and press Enter.")
            )
        self.pages.setCurrentIndex(1 if problem else 0)
