"""What a class would see wrong in a drawn figure, read from the pyqtgraph items' scene rectangles:

- texts (titles, legend entries, axis labels, cell numbers, bar values) that overlap each other;
- a tick mark within TOUCH px of a number (beside "0.54" it reads "−0.54");
- a colour bar's value within APART px of the next panel's (side by side, "1.0 0.5" reads as one row of two);
- two numbers of one axis within SPACE px of each other ("45" and "60" drawn as "4560");
- a number or bar value cut by its plot's edge, or anything drawn outside the view that shows the figure;
- a category axis (tokens, bars) that names fewer of its categories than it has (≤ 64);
- the display rules of issue 46: an axis whose label carries pyqtgraph's SI multiplier ("p(1−p) (x0.001)"), a
  1×1 quantity drawn as a heatmap, a panel drawn empty (a plot with nothing in it: axes around no data), a legend
  over its plot's data.

Axis labels are read from AxisItem.generateDrawSpecs, the rectangles and strings the axis paints.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRectF
from PySide6.QtGui import QPainter, QPicture
from PySide6.QtWidgets import QGraphicsTextItem

from gui.plots.axis import number_line
from gui.plots.heatmap import CellImage, CellNumbers
from gui.plots.view import holds_data, parked

TOUCH = 3.0  # px: closer than this, a tick mark and a number read as one sign
SLACK = 1.5  # px of overlap forgiven (anti-aliased edges of neighbouring rectangles)
MAX_TICK = 20.0  # px: a tick mark is short; a grid line crosses the plot
APART = 10.0  # px between the values of two axes that face each other
SPACE = 3.0  # px between two numbers along one axis
NUMBER = re.compile(r"^[−-]?[\d.,]+$")


@dataclass
class Text:
    text: str
    rect: QRectF  # scene coordinates, the glyphs' box
    where: str  # what drew it, for the failure message
    clip: QRectF | None = None  # the plot area it must stay inside (numbers, bar values)


def visible(item) -> bool:
    """Shown: visible, in a figure not parked out of sight (gui/plots/view.py)."""
    if parked(item):
        return False
    while item is not None:
        if not item.isVisible():
            return False
        item = item.parentItem()
    return True


def axis_specs(axis: pg.AxisItem) -> tuple[list[tuple[str, QRectF]], list[QLineF]]:
    """(label, scene rectangle) of every label the axis draws, and its tick marks as scene lines."""
    picture = QPicture()
    painter = QPainter(picture)
    if axis.style["tickFont"] is not None:
        painter.setFont(axis.style["tickFont"])
    specs = axis.generateDrawSpecs(painter)
    painter.end()
    if specs is None:
        return [], []
    _, ticks, texts = specs
    labels = [(text, axis.mapRectToScene(rect)) for rect, _, text in texts]
    lines = [QLineF(axis.mapToScene(p1), axis.mapToScene(p2)) for _, p1, p2 in ticks]
    lines = [line for line in lines if 0.5 < line.length() <= MAX_TICK]  # longer: a faint grid line, not a tick
    return labels, lines


def _glyphs(item: QGraphicsTextItem) -> QRectF:
    m = item.document().documentMargin()
    return _painted_rect(item, item.boundingRect().adjusted(m, m, -m, -m))


def _painted_rect(item, rect: QRectF) -> QRectF:
    """Where `rect` of an item stands in the scene as the view paints it. An item that ignores the view's transform
    (pyqtgraph's legends) is drawn at its font's size however the figure is scaled to fit, so its
    scene rectangle is its rectangle on the view, mapped back."""
    views = item.scene().views()
    if not views:
        return item.mapRectToScene(rect)
    to_view = views[0].viewportTransform()
    return to_view.inverted()[0].mapRect(item.deviceTransform(to_view).mapRect(rect))


def _clip_of(item) -> QRectF | None:
    """The scene rectangle of the ViewBox an item is drawn in (it clips what sticks out), if any."""
    parent = item.parentItem()
    while parent is not None:
        if isinstance(parent, pg.ViewBox):
            return parent.sceneBoundingRect()
        parent = parent.parentItem()
    return None


def figure_texts(scene) -> tuple[list[Text], list[QLineF]]:
    """Every visible text of the scene and every tick mark."""
    texts, ticks = [], []
    for item in scene.items():
        if isinstance(item, pg.AxisItem) and visible(item):
            labels, lines = axis_specs(item)
            texts += [Text(t, r, f"{item.orientation} axis label") for t, r in labels if t]
            ticks += lines
        elif isinstance(item, CellNumbers) and visible(item):
            to_scene = item.scene().views()[0].viewportTransform().inverted()[0]  # its rectangles are the view's pixels
            for text, rect in item.rects():
                texts.append(Text(text, to_scene.mapRect(rect), "number", _clip_of(item)))
        elif isinstance(item, QGraphicsTextItem) and visible(item) and item.toPlainText().strip():
            inside = isinstance(item.parentItem(), pg.TextItem)
            texts.append(
                Text(
                    item.toPlainText(),
                    _glyphs(item),
                    "number" if inside else "title or legend",
                    _clip_of(item) if inside else None,
                )
            )
    return texts, ticks


def _overlap(a: QRectF, b: QRectF) -> bool:
    both = a.intersected(b)
    return both.width() > SLACK and both.height() > SLACK


def _distance(line: QLineF, rect: QRectF) -> float:
    """Distance from a short tick line to a rectangle (0 when they touch)."""
    points = [line.p1() + (line.p2() - line.p1()) * (k / 4) for k in range(5)]

    def gap(p: QPointF) -> float:
        dx = max(rect.left() - p.x(), 0.0, p.x() - rect.right())
        dy = max(rect.top() - p.y(), 0.0, p.y() - rect.bottom())
        return (dx * dx + dy * dy) ** 0.5

    return min(gap(p) for p in points)


def figure_problems(scene, shown: QRectF | None = None) -> list[str]:
    """What is wrong with the figure in `scene`; `shown`: the scene rectangle its view shows."""
    texts, ticks = figure_texts(scene)
    found = []
    for i, a in enumerate(texts):
        for b in texts[i + 1 :]:
            if _overlap(a.rect, b.rect):
                found.append(f"{a.where} {a.text!r} overlaps {b.where} {b.text!r}")
        if a.clip is not None and not a.clip.adjusted(-SLACK, -SLACK, SLACK, SLACK).contains(a.rect):
            found.append(f"{a.where} {a.text!r} is cut by its plot's edge")
        if shown is not None and not shown.adjusted(-SLACK, -SLACK, SLACK, SLACK).contains(a.rect):
            found.append(f"{a.where} {a.text!r} is outside the view")
        if a.where == "number":
            for line in ticks:
                if _distance(line, a.rect) < TOUCH:
                    found.append(f"a tick mark touches the number {a.text!r}")
                    break
    found += numbers_run_together(scene) + rule_problems(scene)
    values = [t for t in texts if t.where == "right axis label"]  # a colour bar's, or a right-hand number line
    for a in values:
        for b in texts:
            if b.where == "left axis label" and _side_by_side(a.rect, b.rect) < APART:
                found.append(f"{a.text!r} and {b.text!r} of the next panel read as one row")
    return found


def rule_problems(scene) -> list[str]:
    """The display rules every figure keeps (issue 46): no SI multiplier in an axis label, no 1×1 heatmap, no empty
    panel, no legend over the data."""
    found = []
    for item in scene.items():
        if not visible(item):
            continue
        if isinstance(item, pg.AxisItem) and item.label.isVisible() and "(x" in item.labelString():
            found.append(f"the {item.orientation} axis {item.labelText!r} shows a multiplier: {item.labelString()!r}")
        elif isinstance(item, CellImage) and item.image is not None:
            cells = item.mapRectToParent(item.boundingRect())
            if round(cells.width()) == 1 and round(cells.height()) == 1:
                found.append("a 1×1 quantity is drawn as a heatmap")
        elif isinstance(item, pg.PlotItem) and not holds_data(item):
            found.append(f"an empty panel {item.titleLabel.text!r}")
        elif isinstance(item, pg.PlotItem) and item.legend is not None and visible(item.legend):
            if _overlap(item.legend.sceneBoundingRect(), item.vb.sceneBoundingRect()):
                found.append(f"the legend of {item.titleLabel.text!r} stands over its data")
    return found


def numbers_run_together(scene) -> list[str]:
    """Numbers side by side on one axis closer than SPACE: "45" and "60" read as "4560"."""
    found = []
    for item in scene.items():
        if isinstance(item, pg.AxisItem) and visible(item) and item.orientation in ("top", "bottom"):
            numbers = sorted(((r, t) for t, r in axis_specs(item)[0] if NUMBER.match(t)), key=lambda n: n[0].left())
            for (a, x), (b, y) in zip(numbers, numbers[1:]):
                if _side_by_side(a, b) < SPACE:
                    found.append(f"{x!r} and {y!r} of one axis read as one number")
    return found


def _side_by_side(left: QRectF, right: QRectF) -> float:
    """The horizontal gap from a text to one right of it on the same line (inf when they are not)."""
    same_line = min(left.bottom(), right.bottom()) - max(left.top(), right.top()) > SLACK
    return right.left() - left.right() if same_line and right.left() >= left.right() - SLACK else float("inf")


def view_problems(view, figure=None, trace=None) -> list[str]:
    """What is wrong with the figure a plot view shows (figure_problems within what the view shows), and, given the
    figure and its trace, the token axes that leave a label out."""
    shown = view.mapToScene(view.viewport().rect()).boundingRect()
    found = figure_problems(view.scene(), shown)
    return found + (token_axes_missing(figure, trace) if figure is not None else [])


def drawn_labels(plot: pg.PlotItem, side: str) -> list[str]:
    return [text for text, _ in axis_specs(plot.getAxis(side))[0]]


def missing_labels(plot: pg.PlotItem, side: str, wanted: list[str]) -> list[str]:
    """The labels of `wanted` (≤ 64 of them: every one must be drawn) that the axis does not draw."""
    drawn = drawn_labels(plot, side)
    return [w for w in wanted if w not in drawn] if len(wanted) <= 64 else []


def token_axes(figure, trace) -> list[tuple[pg.PlotItem, str, list[str]]]:
    """(plot, side, the labels it must name) of every category axis of a figure's panels: a heatmap's rows and
    columns, a bar chart's bars, the words either side of the attention lines (not a number line of features,
    labelled every k-th: gui.plots.axis.number_line)."""
    from gui.plots.attention import LinesPanel, _grid_labels
    from gui.plots.bars import Bars
    from gui.plots.heatmap import Heatmap

    found, seen = [], set()

    def walk(obj, depth: int) -> None:
        if id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, Heatmap):
            found.extend([(obj.plot, "left", obj.labels[0]), (obj.plot, "top", obj.labels[1])])
        elif isinstance(obj, Bars):
            found.append((obj.plot, "bottom", obj.categories))
        elif isinstance(obj, LinesPanel):
            queries, keys = _grid_labels(trace, obj.name)
            found.extend([(obj.plot, "left", queries), (obj.plot, "right", keys)])
        if depth < 3 and type(obj).__module__.startswith("gui.plots"):
            for value in vars(obj).values():
                for part in value if isinstance(value, list) else [value]:
                    if type(part).__module__.startswith("gui.plots"):
                        walk(part, depth + 1)

    for panel in figure.panels:
        walk(panel, 0)
    return [(plot, side, labels) for plot, side, labels in found if not number_line(list(map(str, labels)))]


def token_axes_missing(figure, trace) -> list[str]:
    """A line for each category axis of the figure that leaves some of its (≤ 64) labels out."""
    found = []
    for plot, side, labels in token_axes(figure, trace):
        missing = missing_labels(plot, side, labels)
        if missing:
            found.append(f"the {side} axis names {len(labels) - len(missing)} of {len(labels)}: {missing[:4]} missing")
    return found
