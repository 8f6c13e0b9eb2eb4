"""Keep labels readable whatever the plot's size: thin out crowded ticks, hide numbers that do not fit a cell."""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtGui import QFont, QFontMetrics


def text_width(font: QFont, texts: list[str]) -> int:
    metrics = QFontMetrics(font)
    return max((metrics.horizontalAdvance(t) for t in texts), default=0)


def slot(plot: pg.PlotItem, n: int, vertical: bool = False) -> float:
    """Pixels per category along an axis of n equal slots."""
    size = plot.vb.height() if vertical else plot.vb.width()
    return size / max(n, 1)


def thinned(labels: list[str], slot_px: float, font: QFont, offset: float, vertical: bool = False):
    """Ticks [(position, label)] showing every k-th label so neighbours do not overlap."""
    needed = QFontMetrics(font).height() if vertical else text_width(font, labels) + 8
    step = max(1, math.ceil(needed / slot_px)) if slot_px > 0 else 1
    return [[(i + offset, label) for i, label in enumerate(labels) if i % step == 0]]


def set_category_ticks(plot: pg.PlotItem, axis: str, labels: list[str], font: QFont, offset: float) -> None:
    vertical = axis in ("left", "right")
    plot.getAxis(axis).setTicks(thinned(labels, slot(plot, len(labels), vertical), font, offset, vertical))
