"""An axis that names categories (tokens, bars, steps): every label is drawn, none is thinned out or dropped.
A number line (features 0, 1, 2 … of a d_ff = 32 matrix) is not a list of names: it is labelled every k-th.

Labels that crowd are drawn in a smaller font, and on a horizontal axis turned on their side; when even that
does not fit, the axis asks for more room (its minimum length), and the figure is shrunk as a whole to give
it (gui/plots/view.py). Within one figure at one size an axis only ever turns to a more compact plan, never back:
two axes of a plot can otherwise chase each other for ever (the top labels turn, the plot gets shorter, the left
labels shrink, the plot gets wider, the top labels fit flat again …), repainting without end. Plans start afresh
when the labels change or the view is resized (`start_plans_afresh`).

Category axes draw no tick marks: the cells and bars mark the categories themselves, and a tick beside a cell's
number read as a minus sign ("cat —0.54").

    axis = plot.getAxis("top")          # every axis of new_plot() is an Axis
    axis.set_categories(["The", "cat"], offset=0.5)
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QImage, QPainter, QPicture, QPixmap
from PySide6.QtWidgets import QWidget

from .number_specs import APART, number_specs

SHRINK = (1.0, 0.85, 0.72)  # of the tick font, tried in turn before labels turn (or overflow)
MIN_POINTS = 6.0
GAP = 6.0  # between neighbouring labels along the axis
ALL_LABELS = 64  # up to this many categories every label is drawn; more (e.g. 384 features): every k-th


@dataclass(frozen=True)
class Drawing:
    """An axis's laid-out line, ticks and labels (pyqtgraph's draw specs; None: nothing to draw), kept in the
    axis's `picture` in place of pyqtgraph's QPicture."""

    specs: tuple | None


@dataclass(frozen=True)
class Plan:
    """How the labels are drawn now: their font, turned on their side or not."""

    font: QFont
    rotated: bool
    step: int = 1  # every label, or (over ALL_LABELS of them) every step-th


def number_line(labels: list[str]) -> bool:
    """Consecutive whole numbers (feature or position indices): labels that may skip, unlike tokens' names."""
    if len(labels) < 2 or not all(label.isdigit() for label in labels):
        return False
    first = int(labels[0])
    return all(int(label) == first + i for i, label in enumerate(labels))


def stacked(text: str) -> bool:
    """Chinese (wide) characters only: on a crowded axis they stand one under the other instead of turning."""
    return bool(text) and all(unicodedata.east_asian_width(ch) in "WF" for ch in text)


def _scaled(font: QFont, factor: float) -> QFont:
    f = QFont(font)
    f.setPointSizeF(max(MIN_POINTS, font.pointSizeF() * factor))
    return f


LABEL_SIZES: dict[tuple[str, str, bool, bool], tuple[float, float]] = {}  # label_size's measurements


def label_size(text: str, font: QFont, turned: bool, vertical: bool, font_key: str = "") -> tuple[float, float]:
    """(along the axis, across it) of a label in `font` (whose key(), `font_key`, a caller measuring many labels
    passes: Qt builds it anew at each call), measured once: an axis is replanned, and its labels measured in each of
    its fonts, whenever its labels, range or size change (300 measurements for a generated token)."""
    key = (text, font_key or font.key(), turned, vertical)
    size = LABEL_SIZES.get(key)
    if size is None:
        if len(LABEL_SIZES) > 20_000:  # (a long session of other sentences and fonts)
            LABEL_SIZES.clear()
        size = LABEL_SIZES[key] = _measured(text, QFontMetricsF(font), turned, vertical)
    return size


def _measured(text: str, metrics: QFontMetricsF, turned: bool, vertical: bool) -> tuple[float, float]:
    if vertical:
        return metrics.height(), metrics.horizontalAdvance(text)
    if not turned:
        return metrics.horizontalAdvance(text), metrics.height()
    if stacked(text):  # Chinese: one character under the other
        return max(metrics.horizontalAdvance(ch) for ch in text), len(text) * metrics.lineSpacing()
    return metrics.height(), metrics.horizontalAdvance(text)


class Axis(pg.AxisItem):
    """pyqtgraph's axis, plus category labels (set_categories) that are all drawn."""

    categories: list[str] | None = None  # None: a plain pyqtgraph axis (numbers)
    offset = 0.5  # where category i sits: i + offset
    bold: int | None = None  # the category drawn in bold (the selected token)
    plan: Plan | None = None
    floor = 0  # the most compact plan taken since the plans started afresh: never a less compact one till then
    least = 0.0  # the length along the axis the labels need at their smallest
    measured: tuple | None = None  # (labels, bold, font, direction) and the plans measured for them (_plans)

    def __init__(self, orientation: str, **kwargs):
        super().__init__(orientation, **kwargs)
        self.drawn: list[int] = []  # the category of each text the last generateDrawSpecs laid out

    @property
    def vertical(self) -> bool:
        return self.orientation in ("left", "right")

    def set_categories(self, labels: list[str], offset: float = 0.5, bold: int | None = None) -> None:
        labels = [str(label) for label in labels]
        if labels == self.categories and offset == self.offset and bold == self.bold:
            return
        self.categories, self.offset, self.bold, self.floor = labels, offset, bold, 0
        self.setTicks([[(i + offset, label) for i, label in enumerate(labels)], []])  # also read by tests
        self.setStyle(tickLength=0)
        self.replan()

    def updateAutoSIPrefix(self) -> None:
        """pyqtgraph rewrites the axis label (its HTML laid out anew, the axis resized) at every range change, to
        put an SI prefix in it; an axis whose label is hidden and carries no prefix has nothing to rewrite."""
        if self.label.isVisible() or self.autoSIPrefixScale != 1.0 or self.labelUnitPrefix:
            super().updateAutoSIPrefix()
        else:
            self.picture = None
            self.update()

    def resizeEvent(self, ev=None) -> None:
        super().resizeEvent(ev)
        if self.categories is not None:
            self.replan()

    def linkedViewChanged(self, view, newRange=None) -> None:
        super().linkedViewChanged(view, newRange)
        if self.categories is not None:
            self.replan()

    def tickSpacing(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, float]]:
        """A number line's levels of ticks: pyqtgraph's, unless its labelled first level is too dense for its labels
        (spaced for the axis's length alone: a short colour bar's 0, 0.2 … 1.0 ran into each other); then the first
        1-2-5 step that keeps them apart, with pyqtgraph's first level as unlabelled ticks between."""
        levels = super().tickSpacing(minVal, maxVal, size)
        span = maxVal - minVal
        if self.categories is not None or not levels or size <= 0 or not math.isfinite(span) or span <= 0:
            return levels
        pitch = self._label_pitch(minVal, maxVal, levels[0][0]) * span / size  # in data units
        if levels[0][0] >= pitch:
            return levels
        power = 10.0 ** math.floor(math.log10(pitch))
        return [(next(m * power for m in (1, 2, 5, 10) if m * power >= pitch), 0.0), levels[0]]

    def tickStrings(self, values, scale, spacing) -> list[str]:
        """pyqtgraph's numbers with a true minus sign, as in the cells and tables ("−0.5", not "-0.5")."""
        return [text.replace("-", "−") for text in super().tickStrings(values, scale, spacing)]

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, list[float]]]:
        """pyqtgraph's tick values, each level without the values of the levels above it (within a hundredth of its
        spacing), computed in plain Python: pyqtgraph compares the levels through numpy's isclose, a third of the
        time of laying out a number line. The same floating-point steps give the same values (the arange times the
        spacing plus the start, over the scale)."""
        if self.logMode:
            return super().tickValues(minVal, maxVal, size)
        lo, hi = sorted((minVal, maxVal))
        lo, hi = lo * self.scale, hi * self.scale
        levels, seen = [], []
        for spacing, offset in self.tickSpacing(lo, hi, size):
            start = (math.ceil((lo - offset) / spacing) * spacing) + offset
            near = spacing / self.scale * 0.01
            values = [(float(k) * spacing + start) / self.scale for k in range(int((hi - start) / spacing) + 1)]
            values = [v for v in values if not any(abs(v - s) <= near for s in seen)]
            seen.extend(values)
            levels.append((spacing / self.scale, values))
        return levels

    def _label_pitch(self, lo: float, hi: float, spacing: float) -> float:
        """Pixels from one label's centre to the next that keep them apart."""
        metrics = QFontMetricsF(self.style["tickFont"] or QFont())
        if self.vertical:
            return metrics.height() + 2
        texts = self.tickStrings([lo, hi], self.autoSIPrefixScale * self.scale, spacing)
        return max(metrics.horizontalAdvance(t) for t in texts) + GAP

    # ---- choosing the font and the direction ------------------------------------------------
    def _slot(self) -> float:
        """Length along the axis of one category (one data unit)."""
        span = abs(self.range[1] - self.range[0]) or 1.0
        rect = self.geometry()
        return (rect.height() if self.vertical else rect.width()) / span

    def _plans(self) -> list[tuple[Plan, float, float]]:
        """The ways to draw the labels, best first, each with the length one label needs along the axis and the
        room the labels need across it; measured once per set of labels and font (an axis is replanned at every
        resize and range change)."""
        base = self.style["tickFont"] or QFont()
        key = (tuple(self.categories), self.bold, base.key(), self.vertical)
        if self.measured is None or self.measured[0] != key:
            fonts = [_scaled(base, s) for s in SHRINK]
            if self.vertical:
                plans = [(Plan(f, False), QFontMetricsF(f).height()) for f in fonts]
            else:
                plans = [(Plan(f, False), GAP) for f in fonts[:2]] + [(Plan(f, True), 2) for f in fonts]
            sizes = [self._largest(plan) for plan, _ in plans]
            measured = [
                (plan, extra if self.vertical else along + extra, across)
                for (plan, extra), (along, across) in zip(plans, sizes)
            ]
            self.measured = (key, measured)
        return self.measured[1]

    def _measure(self, plan: Plan) -> Callable[[int, str], tuple[float, float]]:
        """(along the axis, across it) of label i drawn as `plan` says: turned on its side, or for Chinese stacked
        upright (each font's key taken once, not once per label)."""
        plain = plan.font
        bold = plain if self.bold is None else self._font(self.bold, plan)
        keys = (plain.key(), bold.key())
        turned = plan.rotated and not self.vertical
        return lambda i, text: label_size(
            text, bold if i == self.bold else plain, turned, self.vertical, keys[i == self.bold]
        )

    def _largest(self, plan: Plan) -> tuple[float, float]:
        """The largest (along, across) of the labels drawn as `plan` says."""
        measure = self._measure(plan)
        sizes = [measure(i, t) for i, t in enumerate(self.categories)]
        return max((a for a, _ in sizes), default=0.0), max((c for _, c in sizes), default=0.0)

    def _font(self, i: int, plan: Plan | None = None) -> QFont:
        plan = plan or self.plan
        if i != self.bold:
            return plan.font
        font = QFont(plan.font)
        font.setBold(True)
        return font

    def replan(self) -> None:
        """Pick the first plan whose labels fit their slots (else the last), and size the axis for it."""
        plans = self._plans()
        slot = self._slot()
        fitting = next((i for i, (_, need, _) in enumerate(plans) if need <= slot), len(plans) - 1)
        self.floor = max(fitting, self.floor)
        plan, _, across = plans[self.floor]
        span = abs(self.range[1] - self.range[0]) or 1.0
        least = plans[-1][1] * span
        if len(self.categories) > ALL_LABELS or number_line(self.categories):  # the first plan, every step-th label
            first, need, across = plans[0]
            plan, least = Plan(first.font, False, max(1, math.ceil(need / max(slot, 1e-6)))), 0.0
        if least != self.least:
            self.least = least
            (self.setMinimumHeight if self.vertical else self.setMinimumWidth)(least)
        across += self.style["tickTextOffset"][0 if self.vertical else 1] + 2
        if self.label.isVisible():
            across += self.label.boundingRect().height() * 0.8
        if plan != self.plan or abs(across - self._across()) > 0.5:
            self.plan = plan
            (self.setWidth if self.vertical else self.setHeight)(round(across + 0.49))
            self.picture = None
            self.update()

    def _across(self) -> float:
        return (self.fixedWidth if self.vertical else self.fixedHeight) or 0.0

    # ---- drawing ---------------------------------------------------------------------------------
    def lay_out(self, p) -> None:
        """Lay the line, ticks and labels out (measured with `p`), unless they are laid out already."""
        if self.picture is None:
            p.save()  # (the specs set the painter's font)
            try:
                self.picture = Drawing(self.generateDrawSpecs(p))  # not None: laid out (pyqtgraph reads it so)
            finally:
                p.restore()

    def paint(self, p, *_) -> None:
        """The line, ticks and labels drawn straight into the painter from their laid-out specs, kept until
        pyqtgraph marks them stale (`picture = None`, at every change). pyqtgraph records them into a QPicture and
        replays it at each paint, and a replayed text costs up to 10× a drawn one (45 ms of a language switch with
        every dock open); on screen an axis is cached as a pixmap, so paint runs only when it changed."""
        self.lay_out(p)
        p.save()  # (the specs set the painter's font, pen, hints and clip as they draw)
        if self.picture.specs is not None:
            self.drawPicture(p, *self.picture.specs)
        p.restore()

    def generateDrawSpecs(self, p):
        """The axis line and one text rectangle per category (the rectangle a turned label covers); no ticks."""
        if self.categories is None:
            return number_specs(self, p)
        if self.plan is None:
            self.replan()
        bounds = self.mapRectFromParent(self.geometry())
        edge = {"left": bounds.right(), "right": bounds.left(), "top": bounds.bottom(), "bottom": bounds.top()}[
            self.orientation
        ]
        if self.vertical:
            line = (QPointF(edge, bounds.top()), QPointF(edge, bounds.bottom()))
        else:
            line = (QPointF(bounds.left(), edge), QPointF(bounds.right(), edge))
        lo, hi = self.range
        if hi == lo:
            return (self.pen(), *line), [], []
        gap = self.style["tickTextOffset"][0 if self.vertical else 1]
        side = Qt.AlignmentFlag.AlignRight if self.orientation == "left" else Qt.AlignmentFlag.AlignLeft
        specs, self.drawn = [], []  # drawn: the category index of each text spec
        measure = self._measure(self.plan)
        for i, text in enumerate(self.categories):
            if i % self.plan.step:
                continue
            v = i + self.offset
            along, across = measure(i, text)
            # centred on its category, but never past the ends of the axis, which clip (a number line's first label
            # in a narrow heatmap: "0" drawn half)
            if self.vertical:
                w, h = across, along
                at = bounds.bottom() - (v - lo) / (hi - lo) * bounds.height()
                x = edge - gap - w if self.orientation == "left" else edge + gap
                top = min(max(at - h / 2, bounds.top()), bounds.bottom() - h)
                rect, flags = QRectF(x, top, w, h), side | Qt.AlignmentFlag.AlignVCenter
            else:
                at = bounds.left() + (v - lo) / (hi - lo) * bounds.width()
                w, h = along, across
                y = edge - gap - h if self.orientation == "top" else edge + gap
                left = min(max(at - w / 2, bounds.left()), bounds.right() - w)
                rect, flags = QRectF(left, y, w, h), Qt.AlignmentFlag.AlignCenter
            if self.plan.step > 1 and specs and self._too_near(specs[-1][0], rect):
                continue  # a thinned number line's last label, held in at the end, against the one before: "4560"
            specs.append((rect, flags, text))
            self.drawn.append(i)
        return (self.pen(), *line), [], specs

    def _too_near(self, before: QRectF, rect: QRectF) -> bool:
        """Whether a label stands within APART of its height of the one before it along the axis."""
        if self.vertical:  # (drawn from the bottom up)
            return rect.bottom() + APART * rect.height() > before.top()
        return rect.left() - APART * min(rect.height(), rect.width()) < before.right()

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs) -> None:
        if self.categories is None:
            return super().drawPicture(p, axisSpec, fill_grid_lines(p, tickSpecs), textSpecs)
        pen, start, stop = axisSpec
        p.setPen(pen)
        p.drawLine(start, stop)
        p.setClipRect(self.boundingRect())  # a paint before the axis took its new size leaves nothing outside it
        p.setPen(self.textPen())
        p.setRenderHint(p.RenderHint.TextAntialiasing, True)
        for i, (rect, flags, text) in zip(self.drawn, textSpecs):
            p.setFont(self._font(i))
            if not self.plan.rotated:
                p.drawText(rect, int(flags | Qt.TextFlag.TextDontClip), text)
                continue
            if stacked(text):  # Chinese: one character under the other, upright
                p.drawText(rect, int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextDontClip), "\n".join(text))
                continue
            p.save()  # read from bottom to top, like a rotated column heading
            p.translate(rect.center())
            p.rotate(-90)
            turned = QRectF(-rect.height() / 2, -rect.width() / 2, rect.height(), rect.width())
            align = Qt.AlignmentFlag.AlignLeft if self.orientation == "top" else Qt.AlignmentFlag.AlignRight
            p.drawText(turned, int(align | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextDontClip), text)
            p.restore()


def fill_grid_lines(p: QPainter, ticks: list) -> list:
    """Draw the translucent one-pixel ticks and grid lines among `ticks` (pen, start, end) as the rows or columns of
    pixels Qt would draw them on, on a painter that only translates, or scales into pixels (the screen, a figure
    shrunk to fit its view), and give back the others to draw as lines: Qt's cosmetic stroker blends a translucent
    line pixel by pixel, 0.5 ms for a grid line across a plot against 8 µs for an opaque one (a bar chart's grid was
    most of a language switch with every dock open; the cost dock's figure, shrunk, drew 70 lines at each step). An
    aliased line covers the pixels its ends fall in and those between; ticks are level with an axis."""
    shift = p.transform()
    kind = shift.type().value
    if kind > shift.TransformationType.TxScale.value or (
        kind == shift.TransformationType.TxScale.value and not isinstance(p.device(), (QWidget, QImage, QPixmap))
    ):
        return ticks  # turned, or an export's scaled vector painter: lines, one pixel wide however it scales
    rest = []
    p.save()
    p.resetTransform()
    for pen, start, end in ticks:
        color = pen.color()
        level = start.x() == end.x() or start.y() == end.y()
        if color.alpha() == 255 or not level or pen.widthF() > 1 or pen.style() != Qt.PenStyle.SolidLine:
            rest.append((pen, start, end))
            continue
        a, b = shift.map(QPointF(start)), shift.map(QPointF(end))
        left, right = sorted((math.floor(a.x()), math.floor(b.x())))
        top, bottom = sorted((math.floor(a.y()), math.floor(b.y())))
        p.fillRect(QRect(left, top, right - left + 1, bottom - top + 1), color)
    p.restore()
    return rest


def start_plans_afresh(items) -> bool:
    """The figure's view was resized (or another figure shown in it, or laid out anew): each category axis among
    `items` may take its best plan again. Whether one took another plan."""
    changed = False
    for item in items:
        if isinstance(item, Axis) and item.categories is not None and item.floor:
            plan, item.floor = item.plan, 0
            item.replan()
            changed |= item.plan != plan
    return changed


def lay_out_tick_text(items) -> bool:
    """Lay out the tick text of each shown numeric axis among `items` that has none yet, as its first paint would:
    pyqtgraph sizes a numeric axis for its numbers only then, and the view, relaid out, painted again (two to
    four paints of each view at a step). True when an axis asked for another size."""
    resized = False
    for item in items:
        if not isinstance(item, pg.AxisItem) or item.picture is not None or not item.isVisible():
            continue
        if getattr(item, "categories", None) is not None:  # sized by its plan already (Axis.replan)
            continue
        before = (item.minimumWidth(), item.minimumHeight())
        scratch = QPicture()  # what the labels are measured with (an Axis lays its specs out, drawn at its paint)
        painter = QPainter(scratch)
        try:
            if isinstance(item, Axis):
                item.lay_out(painter)
            else:  # pyqtgraph's own paint builds the axis's picture; it is replayed into this
                item.paint(painter, None, None)
        finally:
            painter.end()
        resized |= (item.minimumWidth(), item.minimumHeight()) != before
    return resized
