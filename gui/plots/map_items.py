"""The pieces the map is drawn with: boxes that show whether their stages are computed yet, arrows, the
"you are here" frame that glides from box to box, and the slides' type (the deck's text uses it too)."""

from __future__ import annotations

import html

import shiboken6
from PySide6.QtCore import QEasingCurve, QPointF, QRectF, Qt, QVariantAnimation
from PySide6.QtGui import QBrush, QColor, QFont, QPainterPath, QPen, QPolygonF, QTextOption
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QGraphicsPolygonItem, QGraphicsTextItem

from .style import SLIDE_FONTS

# The colours of the original Transformer diagram: embeddings pink, attention orange, Add & Norm yellow,
# feed-forward blue, the output head lilac; a collapsed block grey.
COLORS = {
    "embedding": "#f5c6c9",
    "self_attn": "#f8d49b",
    "cross_attn": "#f8d49b",
    "ffn": "#b9dcf3",
    "add": "#eeeaa6",
    "norm": "#eeeaa6",
    "final_norm": "#eeeaa6",
    "embed_norm": "#eeeaa6",
    "output": "#d9cdf0",
    "block": "#dedede",
}
EDGE_COLORS = {"flow": QColor("#4a4a4a"), "residual": QColor("#1f6fb2"), "memory": QColor("#8e44ad")}
TEXT = QColor("#111111")
LATER_TEXT = QColor("#8a8a8a")  # a box whose stages are not computed yet
OFF = QColor("#c0392b")  # what a What-if switch turned off
HERE = QColor("#0050c8")  # the "you are here" frame
BACKWARD = QColor("#d55e00")  # … on a step of the backward pass
GLIDE_MS = 220  # the frame's glide from one box to the next (none with reduced motion)


def slide_font(size: int, bold: bool = False, pixels: bool = False) -> QFont:
    """The slides' type (with a Chinese font), `size` in points, or with `pixels` in pixels of the drawing."""
    f = QFont()
    f.setFamilies(SLIDE_FONTS)
    if pixels:
        f.setPixelSize(size)
    else:
        f.setPointSize(size)
    f.setBold(bold)
    return f


def map_font(px: int, bold: bool = False) -> QFont:
    """Sized in pixels of the drawing, so the map lays out the same on every screen and in every export."""
    return slide_font(px, bold, pixels=True)


def text_item(
    parent: QGraphicsItem, text: str, px: int, color: QColor = TEXT, width: float | None = None, bold: bool = False
) -> QGraphicsTextItem:
    """Plain text, centred and wrapped to `width` when given."""
    item = QGraphicsTextItem(parent)
    item.setFont(map_font(px, bold))
    item.setDefaultTextColor(color)
    item.document().setDocumentMargin(0)
    if width is not None:
        item.setTextWidth(width)
        item.document().setDefaultTextOption(QTextOption(Qt.AlignmentFlag.AlignHCenter))
    item.setPlainText(text)
    item.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
    return item


def rich_lines(title: str, notes: list[tuple[str, bool]], px: int) -> str:
    """A box's name, then its notes in smaller type (those a switch turned off in red)."""
    small = max(8, round(px * 0.78))
    lines = [html.escape(title)]
    for note, off in notes:
        style = f"font-size:{small}px" + (f"; color:{OFF.name()}" if off else "")
        lines.append(f"<span style='{style}'>{html.escape(note)}</span>")
    return "<br>".join(lines)


class BoxItem(QGraphicsPathItem):
    """A rounded box with centred text; its look says done, current or not computed yet, and dashed red
    when a What-if switch changed it. `first` is the stage a click on it goes to."""

    def __init__(
        self,
        parent: QGraphicsItem,
        part: str,
        text_html: str,
        width: float,
        min_height: float,
        px: int,
        first: str,
        off: bool = False,
    ):
        super().__init__(parent)
        self.color = QColor(COLORS.get(part, "#dedede"))
        self.first, self.off, self.state = first, off, ""
        self.label = QGraphicsTextItem(self)
        self.label.setFont(map_font(px))
        self.label.document().setDocumentMargin(0)
        self.label.setTextWidth(width - 10)
        self.label.document().setDefaultTextOption(QTextOption(Qt.AlignmentFlag.AlignHCenter))
        self.label.setHtml(text_html)
        self.label.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.width = width
        self.height = max(min_height, self.label.boundingRect().height() + 8)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.set_state("done")

    def place_at(self, x: float, y: float) -> QRectF:
        rect = QRectF(x, y, self.width, self.height)
        path = QPainterPath()
        path.addRoundedRect(rect, 6, 6)
        self.setPath(path)
        self.label.setPos(x + 5, y + (self.height - self.label.boundingRect().height()) / 2)
        return rect

    @property
    def rect(self) -> QRectF:
        return self.path().boundingRect()

    def set_state(self, state: str) -> None:
        """done: in its colour; current: the same (the frame marks it); later: pale, with grey text."""
        if state == self.state:
            return
        self.state = state
        later = state == "later"
        fill = QColor(self.color)
        if later:
            fill.setAlpha(70)
        pen = QPen(OFF if self.off else self.color.darker(170 if not later else 130), 1.6)
        if self.off:
            pen.setStyle(Qt.PenStyle.DashLine)
        self.setPen(pen)
        self.setBrush(QBrush(fill))
        self.label.setDefaultTextColor(LATER_TEXT if later else TEXT)


def arrow(
    parent: QGraphicsItem, points: list[QPointF], color: QColor, dashed: bool = False, width: float = 1.6
) -> QGraphicsPathItem:
    """A polyline with an arrowhead at its last point."""
    path = QPainterPath(points[0])
    for p in points[1:]:
        path.lineTo(p)
    item = QGraphicsPathItem(path, parent)
    pen = QPen(color, width)
    if dashed:
        pen.setStyle(Qt.PenStyle.DashLine)
    item.setPen(pen)
    item.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
    end, before = points[-1], points[-2]
    d = end - before
    length = max((d.x() ** 2 + d.y() ** 2) ** 0.5, 1e-6)
    ux, uy = d.x() / length, d.y() / length
    size = 7.0
    back = QPointF(end.x() - ux * size, end.y() - uy * size)
    normal = QPointF(-uy * size * 0.55, ux * size * 0.55)
    head = QGraphicsPolygonItem(QPolygonF([end, back + normal, back - normal]), item)
    head.setBrush(QBrush(color))
    head.setPen(QPen(color, 0.8))
    return item


class Highlight(QGraphicsPathItem):
    """The "you are here" frame: a thick outline around the current box that glides to the next one."""

    def __init__(self, parent: QGraphicsItem | None = None):
        super().__init__(parent)
        self.setZValue(20)
        self.setBrush(Qt.BrushStyle.NoBrush)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.target = QRectF()
        self.shown = QRectF()
        self.animation = QVariantAnimation()
        self.animation.setDuration(GLIDE_MS)
        self.animation.setEasingCurve(QEasingCurve.Type.OutCubic)
        self.animation.valueChanged.connect(self._draw)
        self.set_color(HERE)
        self.hide()

    def set_color(self, color: QColor) -> None:
        self.setPen(QPen(color, 4.0))

    def move_to(self, rect: QRectF | None, glide: bool) -> None:
        """Frame `rect` (None: hide), gliding there from where it is when asked (and when it was shown)."""
        self.animation.stop()
        if rect is None:
            self.target = QRectF()
            self.hide()
            return
        self.target = rect.adjusted(-5, -5, 5, 5)
        if glide and self.isVisible() and not self.shown.isNull():
            self.animation.setStartValue(self.shown)
            self.animation.setEndValue(self.target)
            self.animation.start()
        else:
            self._draw(self.target)
        self.show()

    def _draw(self, rect: QRectF) -> None:
        if not shiboken6.isValid(self):  # deleted with its scene mid-glide (a window built anew): the glide ends
            self.animation.stop()
            return
        self.shown = QRectF(rect)
        path = QPainterPath()
        path.addRoundedRect(rect, 9, 9)
        self.setPath(path)
