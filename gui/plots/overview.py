"""The overview: every attention of the model (self and cross, every stack, layer and head) on the current sentence,
as one grid of thumbnails: a row per attention ("Layer 3 · self"), a column per head ("Head 5"), each thumbnail the
head's attention weights on the weights' colour map, with its pattern's name under it written on a badge coloured by
a head metric (engine/head_patterns.py measures them), and a colour bar for each scale, one above the other.

    figure = draw_overview(layout, trace, None, PlotOptions(lang="zh"), metric="previous", sort=True)
    figure.refresh(trace, opts, stages)   # after an edit: only the thumbnails of `stages` drawn anew

The whole grid is one item that paints every thumbnail from a small image of its own (72 plots would cost a
PlotItem, a ViewBox and four axes each); an edit redraws the images of the attentions it changed and repaints
their cells only. The same figure is exported for slides (`export --overview`, the deck's overview slide).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, QSizeF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QSizePolicy

from engine.head_patterns import METRICS, AttentionAt, HeadPattern, attentions, patterns_of
from gui.text.head_patterns import column_header, metric_name, pattern_name, rank_header, row_header, word

from .colorbar import ColorBar
from .figure import model_line
from .heatmap import color_bar, lut_entries
from .scale import scale_of
from .style import PlotOptions, color, colormap, font, foreground, slide_title
from .view import clear_layout

BADGE_MAP = "CET-L8"  # the metric badges' sequential map (blue → yellow), unlike the weights' own
LEAST_THUMB = 14  # px: a thumbnail is never smaller (the whole figure is shrunk instead, never cut)
GAP = 0.12  # of a cell's width, between thumbnails
SHRINK = 0.6  # a caption or a column header may be drawn this much smaller to fit its cell at the desk, no smaller
PAD = 6  # px around the headers
CAPTION_GAP = 4  # px between neighbouring captions
BADGE_PAD = 0.12  # of a caption's line height, left and right of its text on the badge
LEVELS = ("full", "short", "number")  # a caption's words, fewer where they do not fit: the pattern's name, its
# short name, and (heads sorted) the head's number alone, the pattern left to the tooltip and the enlarged head


@dataclass(frozen=True)
class Measures:
    """The headers' and captions' sizes at their full size: the row headers' width, a header line's height, the
    widest column header on one line and on two, the widest caption with its badge's margins at each of LEVELS."""

    row_w: float
    line_h: float
    column_w: tuple[float, float]
    caption_w: tuple[float, float, float]
    caption_h: float


@dataclass
class Thumbnail:
    """One head of one attention, as drawn: its weights [n_q, n_k], their image, and what the engine measured."""

    values: np.ndarray
    image: QImage
    pattern: HeadPattern


def weights_image(values: np.ndarray, lut: np.ndarray) -> QImage:
    """The weights [n_q, n_k] on the 0 … 1 scale of `lut` (the weights' map), a pixel per cell."""
    entries = lut_entries(values, 0.0, 1.0, len(lut))
    bgra = np.empty((*values.shape, 4), dtype=np.uint8)
    bgra[..., :3] = lut[entries][..., 2::-1]  # ARGB32 is B, G, R, A in memory
    bgra[..., 3] = 255
    return pg.functions.ndarray_to_qimage(bgra, QImage.Format.Format_ARGB32).copy()


@cache
def badge_map() -> pg.ColorMap:
    return pg.colormap.get(BADGE_MAP)


def metric_range(values: list[float]) -> tuple[float, float]:
    """The badges' scale for one metric: 0 … 1 for a share of attention, 0 … the largest for the entropy (nats)."""
    return 0.0, max([1.0, *(v for v in values if v is not None)])


class OverviewGrid(pg.GraphicsWidget):
    """The grid itself: headers, thumbnails, captions, badges, the selected head's outline and the hovered one's.
    `hovered` and `clicked` say which (row, head) the pointer is over or clicked ((row, head) or None)."""

    hovered = Signal(object)
    clicked = Signal(object)

    def __init__(self, opts: PlotOptions, parent=None):
        super().__init__(parent)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)  # the exposed part, in paint
        self.opts = opts
        self.header_font, self.caption_font = font(opts, "caption"), font(opts, "tick")
        self.ink = foreground(opts)
        self.rows: list[AttentionAt] = []
        self.n_heads = 0
        self.thumbs: dict[tuple[int, int], Thumbnail] = {}  # by (row, head)
        self.order: list[list[int]] = []  # each row's heads, left to right
        self.metric, self.sorted = METRICS[0], False
        self.levels = (0.0, 1.0)  # the badges' scale
        self.badge_lut = badge_map().getLookupTable(nPts=256, alpha=False)
        self.selected: tuple[int, int] | None = None
        self.pointed: tuple[int, int] | None = None
        self.layout_for: tuple = ()  # the size and contents the rectangles below were laid out for
        self.cells: dict[tuple[int, int], tuple[QRectF, QRectF]] = {}  # by (row, column): thumbnail, caption
        self.row_headers: list[QRectF] = []
        self.column_headers: list[QRectF] = []
        self.column_font = QFont(self.header_font)
        self.small_caption = QFont(self.caption_font)
        self.column_lines = 1  # the column headers' lines: 2 where "Head 11" is too wide for a column
        self.level = 0  # which of LEVELS the captions are written at (the first that fits)
        self.least_type = SHRINK  # the smallest a caption or column header is drawn, of its size (1: presentation)
        self.repainted: set[tuple[int, int]] = set()  # the thumbnails the last refresh drew anew (tests, benchmarks)
        self.measured: Measures | None = None  # _measures(), until a text changes
        self.captions_changed = False  # a thumbnail's pattern changed since the captions were measured
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    # ---- what it shows -------------------------------------------------------------------------------------------
    def set_rows(self, rows: list[AttentionAt], n_heads: int) -> None:
        """The model's attentions (a new trace's stages); laid out again only for other attentions or heads."""
        same = [(a.stack, a.layer, a.kind) for a in rows] == [(a.stack, a.layer, a.kind) for a in self.rows]
        same = same and n_heads == self.n_heads
        self.rows, self.n_heads = rows, n_heads
        if not same:
            self.thumbs, self.selected = {}, None
            if self.pointed is not None:  # (its cell is gone with the old rows)
                self.pointed = None
                self.hovered.emit(None)
            self._lay_out_again()

    def set_thumbnail(self, row: int, head: int, thumb: Thumbnail) -> None:
        old = self.thumbs.get((row, head))
        self.thumbs[row, head] = thumb
        if old is None or old.pattern.pattern != thumb.pattern.pattern:  # a caption changed
            self.captions_changed = True

    def measure_captions(self) -> None:
        """After new captions: measured again; the grid laid out and repainted again only where that moved a cell or
        a font, and its least size asked for again only where that moved (else the cells whose captions changed are
        repainted, as any other cell drawn anew)."""
        if not self.captions_changed:
            return
        self.captions_changed = False
        least = self.sizeHint(Qt.SizeHint.MinimumSize)
        laid = (self.cells, self.small_caption, self.level, self.column_font, self.column_lines)
        self.measured, self.layout_for = None, ()
        self.lay_out()
        if (self.cells, self.small_caption, self.level, self.column_font, self.column_lines) != laid:
            self.update()
        if self.sizeHint(Qt.SizeHint.MinimumSize) != least:
            self.updateGeometry()

    def set_least_type(self, least: float) -> None:
        """Captions and column headers never drawn below `least` of their size (1.0 in presentation mode: the back
        row's type; the whole figure is shrunk instead where the view is too small)."""
        if least != self.least_type:
            self.least_type = least
            self._lay_out_again()

    def set_metric(self, metric: str, sort: bool) -> None:
        self.metric, self.sorted = metric, sort
        self.order_heads()
        self.update()

    def order_heads(self) -> None:
        """Each row's heads in order, or sorted by the metric, largest first (heads without a value last)."""
        order = []
        for r in range(len(self.rows)):
            heads = list(range(self.n_heads))
            if self.sorted:
                heads.sort(key=lambda h, r=r: self._sort_key(r, h))
            order.append(heads)
        values = [t.pattern.metric(self.metric) for t in self.thumbs.values()]
        self.levels = metric_range(values)
        if order != self.order:
            self.order = order
            self._lay_out_again()

    def _sort_key(self, row: int, head: int) -> tuple:
        thumb = self.thumbs.get((row, head))
        value = None if thumb is None else thumb.pattern.metric(self.metric)
        return (value is None, -(value or 0.0), head)

    def column_of(self, row: int, head: int) -> int:
        return self.order[row].index(head) if self.order else head

    def set_selected(self, selected: tuple[int, int] | None) -> None:
        if selected != self.selected:
            for cell in (self.selected, selected):
                self.update_cell(cell)
            self.selected = selected

    def set_pointed(self, pointed: tuple[int, int] | None) -> None:
        if pointed != self.pointed:
            for cell in (self.pointed, pointed):
                self.update_cell(cell)
            self.pointed = pointed
            self.hovered.emit(pointed)

    def update_cell(self, cell: tuple[int, int] | None) -> None:
        """Repaint one head's thumbnail and caption (with the room its outline takes)."""
        rects = None if cell is None or not self.order else self.cells.get((cell[0], self.column_of(*cell)))
        if rects is not None:
            margin = 6.0
            self.update(rects[0].united(rects[1]).adjusted(-margin, -margin, margin, margin))

    # ---- layout --------------------------------------------------------------------------------------------------
    def _lay_out_again(self) -> None:
        self.layout_for, self.measured = (), None
        self.updateGeometry()
        self.update()

    def column_texts(self, lines: int | None = None) -> list[str]:
        """The column headers: each head ("Head 5"), or each rank where the heads are sorted ("#1"); on two lines
        ("Head" over "5") where one line does not fit the column (lay_out chooses `lines`)."""
        lang = self.opts.lang
        if self.sorted:
            return [rank_header(k + 1, lang) for k in range(self.n_heads)]
        texts = [column_header(h, lang) for h in range(self.n_heads)]
        return [t.replace(" ", "\n", 1) for t in texts] if (lines or self.column_lines) == 2 else texts

    def caption_text(self, row: int, head: int, level: int | None = None) -> str:
        """A thumbnail's caption at `level` of LEVELS (lay_out chooses): its pattern's name (or short name), after
        the head's number where the heads are sorted; sorted heads whose captions fit neither: the number alone."""
        level = self.level if level is None else level
        if self.sorted and LEVELS[level] == "number":
            return f"{head}"
        thumb = self.thumbs.get((row, head))
        pattern = None if thumb is None else thumb.pattern.pattern
        name = pattern_name(pattern, self.opts.lang, short=LEVELS[level] != "full")
        return f"{head} · {name}" if self.sorted else name

    def _measures(self) -> Measures:
        """How wide the headers and captions are at their full size (kept until a text changes)."""
        if self.measured is not None:
            return self.measured
        lang, stacks = self.opts.lang, len({a.stack for a in self.rows})
        header, caption = QFontMetricsF(self.header_font), QFontMetricsF(self.caption_font)
        rows = [row_header(a.stack, a.layer, a.kind, stacks, lang) for a in self.rows]
        badge = 2 * BADGE_PAD * caption.height()  # the badge's margins round the text

        def widest(metrics: QFontMetricsF, texts: list[str]) -> float:
            return max((metrics.horizontalAdvance(line) for t in texts for line in t.split("\n")), default=0.0)

        def captions(level: int) -> list[str]:
            return [self.caption_text(r, h, level) for r in range(len(self.rows)) for h in range(self.n_heads)]

        self.measured = Measures(
            row_w=widest(header, rows) + 2 * PAD,
            line_h=header.height(),
            column_w=(widest(header, self.column_texts(1)), widest(header, self.column_texts(2))),
            caption_w=tuple(widest(caption, captions(level)) + badge for level in range(len(LEVELS))),
            caption_h=caption.height(),
        )
        return self.measured

    def sizeHint(self, which, constraint=None) -> QSizeF:
        """The least size: every row header whole at its size, the column headers (on two lines) and the captions
        (their fewest words) whole at `least_type` of theirs, thumbnails LEAST_THUMB high; larger is preferred (a
        figure in a smaller view is shrunk whole)."""
        if which == Qt.SizeHint.MaximumSize:
            return QSizeF(1e6, 1e6)
        least = self.size_for(LEAST_THUMB, self.least_type)
        if which == Qt.SizeHint.MinimumSize:
            return least
        return QSizeF(least.width() * 2, least.height() * 2)

    def size_for(self, thumb: float, type_fit: float = 1.0) -> QSizeF:
        """The grid's size with thumbnails `thumb` px wide and high, the captions (their fewest words in presentation
        mode, short names at the desk) and column headers (on two lines) at `type_fit` of their size."""
        m = self._measures()
        caption_w = m.caption_w[-1 if self.least_type >= 1 else 1]  # (at the desk they shrink before losing words)
        cell_w = max(thumb / (1 - GAP), type_fit * m.column_w[1] / (1 - GAP), type_fit * caption_w + CAPTION_GAP)
        cell_h = (thumb + m.caption_h * type_fit + 4) / (1 - GAP)
        return QSizeF(m.row_w + self.n_heads * cell_w, 2 * m.line_h + PAD + len(self.rows) * cell_h)

    def lay_out(self) -> None:
        """Where each header, thumbnail and caption goes in the grid's present size (once per size and contents):
        the column headers on one line, else on two, at their size where they fit, else smaller; the captions with
        the first of LEVELS that fits at their size, else the first that fits smaller (down to `least_type`: never
        cut)."""
        size = self.size()
        key = (size.width(), size.height(), self.sorted, len(self.rows), self.n_heads, self.opts.lang, self.least_type)
        if key == self.layout_for:
            return
        self.layout_for = key
        m = self._measures()
        n_rows, n_cols = max(1, len(self.rows)), max(1, self.n_heads)
        cell_w = (size.width() - m.row_w) / n_cols
        room = cell_w * (1 - GAP)
        self.column_lines = 1 if m.column_w[0] <= room or self.sorted else 2
        column_fit = min(1.0, max(self.least_type, room / max(m.column_w[self.column_lines - 1], 1.0)))
        self.column_font = QFont(self.header_font)
        self.column_font.setPointSizeF(self.header_font.pointSizeF() * column_fit)
        column_h = self.column_lines * m.line_h * column_fit + PAD
        cell_h = (size.height() - column_h) / n_rows
        caption_room = cell_w - CAPTION_GAP
        levels = range(len(LEVELS) if self.least_type >= 1 else 2)  # (at the desk they shrink before losing words)
        fitting = [k for k in levels if m.caption_w[k] <= caption_room + 0.5]  # at their size, else smaller
        fitting += [k for k in levels if m.caption_w[k] * self.least_type <= caption_room + 0.5]
        self.level = (fitting or [levels[-1]])[0]
        height_fit = (cell_h * (1 - GAP) - LEAST_THUMB - 4) / max(m.caption_h, 1.0)  # a thumbnail's least room left
        fit = min(caption_room / max(m.caption_w[self.level], 1.0), height_fit)
        caption_fit = min(1.0, max(self.least_type, fit))
        self.small_caption = QFont(self.caption_font)
        self.small_caption.setPointSizeF(self.caption_font.pointSizeF() * caption_fit)
        caption_h = m.caption_h * caption_fit
        gap = GAP * min(cell_w, cell_h)
        side = max(1.0, min(cell_w - gap, cell_h - gap - caption_h - 4))  # square thumbnails; the caption under
        self.cells, self.row_headers, self.column_headers = {}, [], []
        for c in range(self.n_heads):
            self.column_headers.append(QRectF(m.row_w + c * cell_w, 0, cell_w, column_h))
        for r in range(len(self.rows)):
            top = column_h + r * cell_h
            self.row_headers.append(QRectF(0, top, m.row_w - PAD, cell_h))
            for c in range(self.n_heads):
                left = m.row_w + c * cell_w + (cell_w - side) / 2
                thumb = QRectF(left, top + gap / 2, side, side)
                caption = QRectF(
                    m.row_w + c * cell_w + CAPTION_GAP / 2, thumb.bottom() + 1, caption_room, caption_h + 2
                )
                self.cells[r, c] = (thumb, caption)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.layout_for = ()

    # ---- painting ------------------------------------------------------------------------------------------------
    def paint(self, painter: QPainter, option, widget=None) -> None:
        self.lay_out()
        exposed = option.exposedRect
        lang = self.opts.lang
        painter.setPen(self.ink)
        painter.setFont(self.header_font)
        right = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        centre = int(Qt.AlignmentFlag.AlignCenter)
        for r, rect in enumerate(self.row_headers):
            if rect.intersects(exposed):
                painter.drawText(rect, right, row_header_of(self.rows[r], len({a.stack for a in self.rows}), lang))
        painter.setFont(self.column_font)
        for c, (rect, text) in enumerate(zip(self.column_headers, self.column_texts())):
            if rect.intersects(exposed):
                painter.setPen(self.ink if self.sorted else color(c))
                painter.drawText(rect, centre, text)
        painter.setFont(self.small_caption)
        for (r, c), (thumb_rect, caption_rect) in self.cells.items():
            if not thumb_rect.united(caption_rect).adjusted(-6, -6, 6, 6).intersects(exposed) or not self.order:
                continue
            head = self.order[r][c]
            self._paint_cell(painter, r, head, thumb_rect, caption_rect)

    def _paint_cell(self, painter: QPainter, row: int, head: int, thumb_rect: QRectF, caption_rect: QRectF) -> None:
        thumb = self.thumbs.get((row, head))
        if thumb is None:
            return
        image = thumb.image
        shrunk = thumb_rect.width() < image.width() or thumb_rect.height() < image.height()
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, shrunk)  # averaged down, blocks up
        painter.drawImage(thumb_rect, image)
        frame = QPen(color(head), 2)
        frame.setCosmetic(True)
        painter.setPen(frame)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(thumb_rect)
        for cell, width, style in ((self.pointed, 3, Qt.PenStyle.DashLine), (self.selected, 4, Qt.PenStyle.SolidLine)):
            if cell == (row, head):
                pen = QPen(self.ink, width, style)
                pen.setCosmetic(True)
                painter.setPen(pen)
                painter.drawRect(thumb_rect.adjusted(-3, -3, 3, 3))
        badge = self.badge_rect(self.caption_text(row, head), thumb_rect, caption_rect, QFontMetricsF(painter.font()))
        value = thumb.pattern.metric(self.metric)
        painter.setPen(QPen(self.ink, 0))
        ink = self.ink
        if value is None:  # no such share (cross-attention's self and previous): an empty badge
            painter.drawRect(badge)
        else:
            lo, hi = self.levels
            entry = int(lut_entries(np.array([value]), lo, hi, len(self.badge_lut))[0])
            fill = QColor(*self.badge_lut[entry][:3].tolist())
            painter.fillRect(badge, fill)
            ink = QColor("black") if fill.lightnessF() > 0.5 else QColor("white")
        painter.setPen(ink)
        painter.drawText(badge, int(Qt.AlignmentFlag.AlignCenter), self.caption_text(row, head))

    @staticmethod
    def badge_rect(text: str, thumb_rect: QRectF, caption_rect: QRectF, metrics: QFontMetricsF) -> QRectF:
        """The badge a caption is written on: the text and a margin each side, centred under its thumbnail, inside
        its caption's room."""
        width = min(caption_rect.width(), metrics.horizontalAdvance(text) + 2 * BADGE_PAD * metrics.height())
        left = min(max(caption_rect.left(), thumb_rect.center().x() - width / 2), caption_rect.right() - width)
        return QRectF(left, caption_rect.top() + 1, width, caption_rect.height() - 2)

    # ---- pointing ------------------------------------------------------------------------------------------------
    def cell_at(self, pos: QPointF) -> tuple[int, int] | None:
        """The (row, head) whose thumbnail or caption is at `pos` (the grid's coordinates), None elsewhere."""
        self.lay_out()
        for (r, c), (thumb, caption) in self.cells.items():
            if thumb.united(caption).contains(pos) and self.order:
                return r, self.order[r][c]
        return None

    def hoverEvent(self, event) -> None:  # pyqtgraph's hover events
        self.set_pointed(None if event.isExit() else self.cell_at(event.pos()))

    def mouseClickEvent(self, event) -> None:  # pyqtgraph's click events
        cell = self.cell_at(event.pos())
        if cell is not None and event.button() == Qt.MouseButton.LeftButton:
            event.accept()
            self.clicked.emit(cell)

    # ---- for tests -----------------------------------------------------------------------------------------------
    def header_texts(self) -> list[tuple[str, QRectF, QFont]]:
        """Each header as painted: its text, its rectangle (the grid's coordinates) and its font."""
        self.lay_out()
        lang, stacks = self.opts.lang, len({a.stack for a in self.rows})
        rows = [row_header(a.stack, a.layer, a.kind, stacks, lang) for a in self.rows]
        return [(t, rect, self.header_font) for t, rect in zip(rows, self.row_headers)] + [
            (t, rect, self.column_font) for t, rect in zip(self.column_texts(), self.column_headers)
        ]

    def caption_texts(self) -> list[tuple[str, QRectF, QFont]]:
        """Each caption as painted: its text, its text's room (its badge less the margins) and its font."""
        self.lay_out()
        metrics, out = QFontMetricsF(self.small_caption), []
        pad = BADGE_PAD * metrics.height()
        for (r, c), (thumb, rect) in self.cells.items():
            text = self.caption_text(r, self.order[r][c])
            badge = self.badge_rect(text, thumb, rect, metrics)
            out.append((text, badge.adjusted(pad - 0.5, 0, 0.5 - pad, 0), self.small_caption))
        return out


def row_header_of(at: AttentionAt, stacks: int, lang: str) -> str:
    return row_header(at.stack, at.layer, at.kind, stacks, lang)


class OverviewFigure:
    """The grid, the weights' colour bar and the metric's; refresh() reads the trace again."""

    def __init__(self, layout: pg.GraphicsLayout, opts: PlotOptions, metric: str, sort: bool):
        self.opts = opts
        self.title, top = slide_title(layout, opts, columns=2)
        self.grid = OverviewGrid(opts)
        layout.addItem(self.grid, row=top, col=0, rowspan=2)
        self.weights_bar = color_bar(opts, colormap(opts, False), [])
        self.weights_bar.axis.setLabel(word("weights", opts.lang), color=foreground(opts).name())
        self.weights_bar.axis.label.setFont(font(opts, "tick"))
        layout.addItem(self.weights_bar, row=top, col=1)  # the weights' scale over the metric's
        self.metric_bar = ColorBar(badge_map(), 18 if opts.slide else 12)
        self.metric_bar.set_tick_font(font(opts, "tick"))
        self.metric_bar.axis.setTextPen(foreground(opts))
        self.metric_bar.axis.label.setFont(font(opts, "tick"))
        layout.addItem(self.metric_bar, row=top + 1, col=1)
        self.weights_bar.setLevels((scale_of(probability=True).lo, scale_of(probability=True).hi))
        self.lut = colormap(opts, False).getLookupTable(nPts=256, alpha=False)
        self.trace = None
        self.legend: tuple = ()  # the metric bar's levels and metric, as set
        self.set_metric(metric, sort)

    def set_metric(self, metric: str, sort: bool) -> None:
        """Colour the badges by `metric` (one of METRICS), and sort each row's heads by it when `sort`."""
        self.metric, self.sort = metric, sort
        self.grid.set_metric(metric, sort)
        self._metric_legend()

    def _metric_legend(self) -> None:
        """The metric's colour bar: its range and name (set again only when they change: each sets its axis out
        anew, and the whole figure is repainted)."""
        legend = (self.grid.levels, self.metric)
        if legend != self.legend:
            self.legend = legend
            self.metric_bar.setLevels(self.grid.levels)
            name = metric_name(self.metric, self.opts.lang)
            self.metric_bar.axis.setLabel(name, color=foreground(self.opts).name())

    def refresh(self, trace, opts: PlotOptions, stages=None) -> None:
        """Read the trace again: the thumbnails of the attentions whose weights are among `stages` (None: any whose
        weights differ from those drawn) drawn anew and measured again, then only their cells repainted."""
        grid = self.grid
        rows = attentions(trace)
        grid.set_rows(rows, trace.config.n_heads)
        self.trace = trace
        grid.repainted = set()
        for r, at in enumerate(rows):
            name = at.stages.weights.name
            if stages is not None and name not in stages and (r, 0) in grid.thumbs:
                continue
            weights = trace[name].numpy()  # [h, n_q, n_k]
            drawn = grid.thumbs.get((r, 0))
            if drawn is not None and all(
                np.array_equal(grid.thumbs[r, h].values, weights[h]) for h in range(weights.shape[0])
            ):
                continue
            for head, pattern in enumerate(patterns_of(trace, at)):
                values = np.array(weights[head], dtype=np.float64)
                grid.set_thumbnail(r, head, Thumbnail(values, weights_image(values, self.lut), pattern))
                grid.repainted.add((r, head))
        grid.measure_captions()
        before = grid.order, grid.levels
        grid.order_heads()
        self._metric_legend()
        if (grid.order, grid.levels) != before:  # other places or other badge colours: every cell
            grid.update()
        else:
            for cell in grid.repainted:
                grid.update_cell(cell)
        if self.title is not None:
            self.title.setText(self._title(trace, opts), color=foreground(opts))

    def _title(self, trace, opts: PlotOptions) -> str:
        small = font(opts, "caption").pointSize()
        sorted_note = ""
        if self.sort:
            sorted_note = " · " + word("sorted", opts.lang, metric=metric_name(self.metric, opts.lang))
        return (
            f"{word('title', opts.lang)}"
            f"<br><span style='font-size:{small}pt; font-weight:normal'>{model_line(trace.config, opts.lang)}"
            f"{sorted_note}</span>"
        )

    def thumbnail(self, row: int, head: int) -> Thumbnail:
        return self.grid.thumbs[row, head]


def draw_overview(
    layout: pg.GraphicsLayout, trace, stage: str | None, opts: PlotOptions, metric: str = METRICS[0], sort: bool = False
) -> OverviewFigure:
    """Clear `layout` and draw the overview of `trace` (`stage`: unused, as for the map: the whole model)."""
    clear_layout(layout)
    figure = OverviewFigure(layout, opts, metric, sort)
    figure.refresh(trace, opts)
    return figure
