"""The overview dock (View ▸ Every head at a glance, Ctrl+Shift+H): every attention of the model, every layer × head,
as a grid of thumbnails for the current sentence (gui/plots/overview.py), the thumbnail under the pointer (else the
selected one: the current stage's head, outlined) enlarged beside it or under it, square-celled, with every token
named at the plots' tick size (the back row's type in presentation mode) where the room allows. A click opens that
head's attention weights in the stepper. The badges are coloured, and each row's heads sorted, by a head metric of the
engine (engine/head_patterns.py), chosen in a combo box whose tooltip states its definition and thresholds.

It follows edits (only the thumbnails of the attentions an edit recomputed are drawn again), what-if switches, the
sentence and generated tokens. In presentation mode the dock takes the whole slide, a page of its own (OverviewPage);
a click there opens the head's stage and gives the slide back to it.
"""

from __future__ import annotations

import unicodedata

import numpy as np
from PySide6.QtCore import QObject, QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QBoxLayout, QCheckBox, QComboBox, QDockWidget, QHBoxLayout, QLabel, QVBoxLayout

from engine.head_patterns import METRICS
from gui.plots.figure import trace_structure
from gui.plots.heatmap import Heatmap, axis_labels
from gui.plots.overview import LEAST_THUMB, SHRINK, OverviewFigure, draw_overview, row_header_of
from gui.plots.predicts import row_labels
from gui.plots.scale import scale_of
from gui.plots.style import WINDOW_CAPTION_COLUMNS, font, set_caption
from gui.plots.view import FigureCache, FittedLayoutWidget, clear_layout
from gui.state import display
from gui.state.app_state import AppState
from gui.text.head_patterns import column_header, metric_help, metric_name, metric_value, pattern_name, word
from gui.views.figure_view import FigureView
from gui.views.lazy_view import LazyView, on_screen

BESIDE_SHARE = 0.4  # of the view's width (or height) the enlarged head takes at least, right of the grid or under it
READABLE_THUMB = 28  # px: the enlarged head takes no room that would make the grid's thumbnails smaller than this …
CROWDED_SHARE = 0.5  # … unless its labels cannot have their size even so (64 tokens): then up to this share of the
# view, the grid shrunk whole where it must (its labels are named nowhere else; at 1920×1080 in presentation mode 64
# tokens at 24 px would need cells of 31 px, 2000 px a side)
DETAIL_MARGIN = 24  # px round the enlarged head's cells and labels (ticks, gaps, the layout's margins)


def phrased(phrases: list[str], columns: int) -> list[str]:
    """Phrases joined with " · " into as few lines of about `columns` as they fit (a Chinese character counts two),
    broken between phrases only: "第 0 层 · 自注意力 · 头 0" over "关注第一个词元", never "自注" over "意力"."""

    def width(text: str) -> int:
        return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)

    lines: list[str] = []
    for phrase in phrases:
        if lines and width(f"{lines[-1]} · {phrase}") <= columns:
            lines[-1] = f"{lines[-1]} · {phrase}"
        else:
            lines.append(phrase)
    return lines


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
        self.detail_room: tuple = ()  # what the enlarged head's room was measured for, and that room (_detail_room)
        self.body = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        self.body.addWidget(self.grid_view, 1)
        self.body.addWidget(self.detail_view, 0, Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignHCenter)
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
            self._arrange()  # (sorted, the captions and column headers are other words, of other widths)

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
        self.figure.grid.set_least_type(1.0 if self.settings.presenting else SHRINK)  # the back row's type
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
        if self.detail is None:  # (no colour bar of its own: the grid's weights bar beside it is its scale)
            clear_layout(self.detail_view.ci)
            self.detail = Heatmap(self.detail_view.ci, opts, False, row=0, col=0, colorbar=False)
            self.detail.plot.vb.setAspectLocked(True, 1.0)  # square cells
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
        self.detail.set(matrix, rows, cols, opts, scale=scale_of(probability=True))
        lines = self._title_lines(row, head)
        set_caption(self.detail.plot, "\n".join(lines), opts, lines=self._detail_measures()[3])
        self.detail_view.settle()

    def _title_lines(self, row: int, head: int) -> list[str]:
        """The enlarged head's title, broken between its phrases: where it is, then its pattern."""
        lang, grid = self.settings.lang, self.figure.grid
        stacks = len({a.stack for a in grid.rows})
        pattern = self.figure.thumbnail(row, head).pattern
        where = word("detail", lang, row=row_header_of(grid.rows[row], stacks, lang), head=column_header(head, lang))
        return phrased(where.split(" · "), WINDOW_CAPTION_COLUMNS) + [pattern_name(pattern.pattern, lang)]

    def _detail_caption(self, row: int, head: int) -> str:
        return " · ".join(self._title_lines(row, head))

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

    def _detail_measures(self) -> tuple[float, float, float, int]:
        """What the enlarged head needs besides its cells, for any head of the grid (its size must not change as the
        pointer crosses the grid): the widest row label and the tallest column label with their margins, the side
        its cells need for every label at the tick size (a line per cell), and its title's most lines."""
        trace, grid, opts = self.state.trace, self.figure.grid, self.settings.plot_options()
        key = (id(trace), opts.lang, opts.font_scale, len(grid.rows))
        if self.detail_room and self.detail_room[0] == key:
            return self.detail_room[1]
        tick, caption = QFontMetricsF(font(opts, "tick")), QFontMetricsF(font(opts, "caption"))
        label_w, label_h, cells, lines = 0.0, 0.0, 0, 1
        for r, at in enumerate(grid.rows):
            name = at.stages.weights.name
            st, (n_q, n_k) = trace.stage(name), trace[name].shape[1:]
            rows = row_labels(trace, name, axis_labels(trace, st.rows, n_q))
            cols = axis_labels(trace, st.cols, n_k)
            label_w = max([label_w, *(tick.horizontalAdvance(t) for t in rows)])
            label_h = max([label_h, *(tick.horizontalAdvance(t) for t in cols)])
            cells = max(cells, n_q, n_k)
            lines = max(lines, len(self._title_lines(r, grid.n_heads - 1)))
        title_h = lines * caption.height() * 1.15
        measures = (label_w + DETAIL_MARGIN, label_h + title_h + DETAIL_MARGIN, cells * (tick.height() + 2), lines)
        self.detail_room = (key, measures)
        return measures

    def _arrange(self) -> None:
        """The enlarged head right of the grid or under it, its cells square: as large as its labels need at their
        size (at least BESIDE_SHARE of the view), no larger than leaves the grid its type and thumbnails of
        READABLE_THUMB px (unless even that leaves its labels too little room: up to CROWDED_SHARE); of the two
        places, the one where the grid's type fits, then where the enlarged head's labels are larger, then where the
        thumbnails are."""
        if not self._current() or not self.figure.grid.rows:
            return  # (another model's grid until it is drawn again, which arranges it)
        grid = self.figure.grid
        extra_w, extra_h, cells_side, _ = self._detail_measures()
        least_w = self.grid_view.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize).width()
        bars_w = least_w - grid.effectiveSizeHint(Qt.SizeHint.MinimumSize).width() + 2  # the colour bars, the gaps
        area = self.body.geometry()
        width, height = max(area.width(), 200), max(area.height(), 150)
        readable = grid.size_for(READABLE_THUMB, grid.least_type)
        least = grid.size_for(LEAST_THUMB, grid.least_type)
        m, rows, cols = grid._measures(), len(grid.rows), grid.n_heads

        def thumb_in(grid_w: float, grid_h: float) -> float:
            cell_w = (grid_w - bars_w - m.row_w) / cols
            cell_h = (grid_h - 2 * m.line_h) / rows
            return min(cell_w * 0.88, cell_h * 0.88 - m.caption_h - 4)

        places = []  # (the grid's type fits or must give way, the labels' share of their size, thumbnail side,
        # direction, detail size)
        for beside in (True, False):
            span, other = (width, height) if beside else (height, width)
            own, across = (extra_w, extra_h) if beside else (extra_h, extra_w)
            grid_need = (readable.width() + bars_w if beside else readable.height()) + self.body.spacing() + 2
            room_left = span - grid_need  # the grid at its type with READABLE_THUMB thumbnails, the rest
            crowded = cells_side + own > max(room_left, CROWDED_SHARE * span)  # its labels too small even so
            if crowded:
                room_left = max(room_left, CROWDED_SHARE * span)
            room = min(max(cells_side + own, BESIDE_SHARE * span), room_left, other - across + own)
            room = max(room, 160.0)
            side = min(room - own, other - across)
            grid_w, grid_h = (width - room, height) if beside else (width, height - room)
            fits = least.width() + bars_w <= grid_w and least.height() <= grid_h
            size = QSize(round(room), round(side + extra_h)) if beside else QSize(round(side + extra_w), round(room))
            share = round(min(1.0, side / max(cells_side, 1.0)), 2)
            places.append((fits or crowded, share, thumb_in(grid_w, grid_h), beside, size))
        fits, share, thumb, beside, size = max(places, key=lambda p: p[:3])
        direction = QBoxLayout.Direction.LeftToRight if beside else QBoxLayout.Direction.TopToBottom
        if self.body.direction() != direction:
            self.body.setDirection(direction)
        if self.detail_view.size() != size or self.detail_view.minimumSize() != size:
            self.detail_view.setFixedSize(size)

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
