"""A row of token chips that wraps to the width it is given; a click chooses one (the neuron view's key column).
Every token is shown whole, each chip as wide as its text in the widget's font; a chip marked hidden (a key the
mask hides from the query) is drawn greyed, with a dashed edge."""

from __future__ import annotations

from PySide6.QtCore import QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

PAD, GAP = 6, 4  # px: a chip's text from its edge; between two chips


class TokenChips(QWidget):
    chosen = Signal(int)  # the index of the chip clicked

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.tokens: list[str] = []
        self.hidden: list[bool] = []  # per chip: drawn greyed
        self.current = -1
        policy = QSizePolicy(QSizePolicy.Preferred, QSizePolicy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.setCursor(Qt.PointingHandCursor)

    def show_tokens(self, tokens: list[str], current: int, hidden: list[bool] | None = None) -> None:
        if tokens != self.tokens:
            self.tokens = list(tokens)
            self.updateGeometry()
        self.hidden = list(hidden) if hidden is not None else [False] * len(tokens)
        self.current = current
        self.update()

    def chip_rects(self, width: int) -> list[QRect]:
        """Each chip's rectangle, laid out left to right and wrapped at `width`."""
        fm = QFontMetrics(self.font())
        h = fm.height() + PAD
        rects, x, y = [], 0, 0
        for token in self.tokens:
            w = fm.horizontalAdvance(token) + 2 * PAD
            if x > 0 and x + w > width:
                x, y = 0, y + h + GAP
            rects.append(QRect(x, y, w, h))
            x += w + GAP
        return rects

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        rects = self.chip_rects(width)
        return rects[-1].bottom() + 1 if rects else 0

    def sizeHint(self) -> QSize:
        widest = max((r.width() for r in self.chip_rects(1 << 20)), default=0)
        return QSize(max(widest, 200), self.heightForWidth(max(widest, 200)))

    def minimumSizeHint(self) -> QSize:
        widest = max((r.width() for r in self.chip_rects(1 << 20)), default=0)
        return QSize(widest, self.heightForWidth(widest))

    def mousePressEvent(self, event) -> None:
        for index, rect in enumerate(self.chip_rects(self.width())):
            if rect.contains(event.position().toPoint()):
                self.chosen.emit(index)
                return
        super().mousePressEvent(event)

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        palette = self.palette()
        for index, (token, rect) in enumerate(zip(self.tokens, self.chip_rects(self.width()))):
            box = QRectF(rect).adjusted(0.5, 0.5, -0.5, -0.5)
            chosen, hidden = index == self.current, self.hidden[index]
            p.setBrush(palette.highlight() if chosen else palette.window() if hidden else palette.base())
            edge = QPen(palette.highlight().color() if chosen else palette.mid().color(), 1)
            edge.setStyle(Qt.DashLine if hidden else Qt.SolidLine)
            p.setPen(edge)
            p.drawRoundedRect(box, 4, 4)
            text = palette.placeholderText() if hidden else palette.text()
            p.setPen(palette.highlightedText().color() if chosen else text.color())
            p.drawText(rect, Qt.AlignCenter, token)
        p.end()
