"""The neuron view's figure: one row per dimension of a head, its name, q and k side by side as coloured numbers,
and q ⊙ k as a number and a signed bar (diverging colours centred on 0). Painted from the numbers the engine gives
(engine/neuron.py); every column as wide as its widest text in the widget's font, so nothing is cut at any text
size."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from .style import colormap_named

PAD = 6  # px between a cell's text and its edge
MIN_BAR_CHARS = 14  # the bars' column is at least this many average characters wide
BAR_MARKS = ("−", "0", "+")  # over the bars' column: pulls the score down, zero, pushes it up


@dataclass(frozen=True)
class NeuronRows:
    """What the figure shows: the dimensions in the order drawn and, for each, its name and numbers."""

    names: list[str]  # the dimension of each row ("3")
    q: list[float]
    k: list[float]
    products: list[float]  # q ⊙ k of each row
    texts: list[tuple[str, str, str]]  # q, k and q ⊙ k of each row as written
    headers: tuple[str, str, str, str]  # dim, q, k, q ⊙ k (the bars' column is marked −, 0, +)
    colormap: str  # gui.plots.style.COLORMAPS' name


def text_color(background: QColor) -> QColor:
    """Black on a light cell, white on a dark one."""
    return QColor("white") if background.lightnessF() < 0.5 else QColor("black")


class NeuronBars(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.rows: NeuronRows | None = None
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)

    def show_rows(self, rows: NeuronRows | None) -> None:
        self.rows = rows
        self.updateGeometry()
        self.update()

    # ---- geometry ---------------------------------------------------------------------------------
    def row_height(self) -> int:
        return QFontMetrics(self.font()).height() + PAD

    def column_widths(self) -> list[int]:
        """The four text columns' widths (dim, q, k, q ⊙ k): each its widest text and PAD either side."""
        if self.rows is None:
            return [0, 0, 0, 0]
        fm = QFontMetrics(self.font())
        columns = [self.rows.names, *zip(*self.rows.texts)] if self.rows.texts else [[], [], [], []]
        return [
            max(fm.horizontalAdvance(t) for t in [header, *texts]) + 2 * PAD
            for header, texts in zip(self.rows.headers, columns)
        ]

    def min_bar_width(self) -> int:
        return MIN_BAR_CHARS * QFontMetrics(self.font()).averageCharWidth()

    def sizeHint(self) -> QSize:
        n = 0 if self.rows is None else len(self.rows.names)
        return QSize(sum(self.column_widths()) + self.min_bar_width(), (n + 1) * self.row_height())

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def cells(self) -> list[tuple[QRectF, str]]:
        """Every text drawn and the rectangle it must fit in (the tests compare them with the font's metrics)."""
        if self.rows is None:
            return []
        widths, h = self.column_widths(), self.row_height()
        lefts = [sum(widths[:c]) for c in range(4)]
        bar_left = sum(widths)
        out = [(QRectF(x, 0, w, h), t) for x, w, t in zip(lefts, widths, self.rows.headers)]
        out += list(zip(self.bar_marks(bar_left, h), BAR_MARKS))
        for r, (name, texts) in enumerate(zip(self.rows.names, self.rows.texts), start=1):
            for c, text in enumerate((name, *texts)):
                out.append((QRectF(lefts[c], r * h, widths[c], h), text))
        return out

    def bar_marks(self, bar_left: int, h: int) -> list[QRectF]:
        """Where the bars' column writes −, 0 and + over its left end, its zero and its right end."""
        fm = QFontMetrics(self.font())
        w = max(fm.horizontalAdvance(mark) for mark in BAR_MARKS) + 2 * PAD
        bar_width = max(self.width() - bar_left - PAD, 1)
        return [
            QRectF(x - w / 2, 0, w, h)
            for x in (bar_left + w / 2, bar_left + bar_width / 2, bar_left + bar_width - w / 2)
        ]

    # ---- painting ---------------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        if self.rows is None:
            return
        rows, p = self.rows, QPainter(self)
        widths, h = self.column_widths(), self.row_height()
        lefts = [sum(widths[:c]) for c in range(4)]
        bar_left = sum(widths)
        bar_width = max(self.width() - bar_left - PAD, 1)
        zero = bar_left + bar_width / 2
        cmap = colormap_named(rows.colormap, True)
        vector_span = max([abs(v) for v in rows.q + rows.k] + [1e-12])
        product_span = max([abs(v) for v in rows.products] + [1e-12])
        ink = self.palette().windowText().color()
        p.setPen(ink)
        header_font = self.font()
        header_font.setBold(True)
        p.setFont(header_font)
        for x, w, text in zip(lefts, widths, rows.headers):
            p.drawText(QRectF(x, 0, w, h), Qt.AlignCenter, text)
        for rect, text in zip(self.bar_marks(bar_left, h), BAR_MARKS):
            p.drawText(rect, Qt.AlignCenter, text)
        p.setFont(self.font())
        for r, name in enumerate(rows.names, start=1):
            y = r * h
            p.setPen(ink)
            p.drawText(QRectF(lefts[0], y, widths[0] - PAD, h), Qt.AlignVCenter | Qt.AlignRight, name)
            q_text, k_text, product_text = rows.texts[r - 1]
            for c, value, text, span in (
                (1, rows.q[r - 1], q_text, vector_span),
                (2, rows.k[r - 1], k_text, vector_span),
                (3, rows.products[r - 1], product_text, product_span),
            ):
                fill = cmap.map(0.5 + 0.5 * value / span, mode="qcolor")
                cell = QRectF(lefts[c] + 1, y + 1, widths[c] - 2, h - 2)
                p.fillRect(cell, fill)
                p.setPen(text_color(fill))
                p.drawText(cell.adjusted(PAD - 1, 0, -PAD + 1, 0), Qt.AlignVCenter | Qt.AlignRight, text)
            value = rows.products[r - 1]
            length = (bar_width / 2) * value / product_span
            fill = cmap.map(0.5 + 0.5 * value / product_span, mode="qcolor")
            bar = QRectF(min(zero, zero + length), y + h * 0.15, abs(length), h * 0.7)
            p.fillRect(bar, fill)
            p.setPen(QPen(fill.darker(130), 1))
            p.drawRect(bar)
        p.setPen(QPen(ink, 1))
        p.drawLine(round(zero), h, round(zero), (len(rows.names) + 1) * h)
        p.end()
