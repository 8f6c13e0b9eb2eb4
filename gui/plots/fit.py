"""Measures for fitting text to plots: how wide labels are, how much room one category has."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QFont, QFontMetrics


def text_width(font: QFont, texts: list[str]) -> int:
    metrics = QFontMetrics(font)
    return max((metrics.horizontalAdvance(t) for t in texts), default=0)


def slot(plot: pg.PlotItem, n: int, vertical: bool = False) -> float:
    """Pixels per category along an axis of n equal slots."""
    size = plot.vb.height() if vertical else plot.vb.width()
    return size / max(n, 1)
