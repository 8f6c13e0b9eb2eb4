"""Widget text larger than the window's: titles, formulas, the start page's list of lessons; dialogs sized in
lines and characters of their text."""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

W = TypeVar("W", bound=QWidget)


def scale_font(widget: W, factor: float, bold: bool = False) -> W:
    """The widget, its font `factor` times the size it has (bold or not)."""
    font = widget.font()
    font.setPointSizeF(font.pointSizeF() * factor)
    font.setBold(bold)
    widget.setFont(font)
    return widget


def text_size(widget: QWidget, columns: int, lines: int, least: QSize) -> QSize:
    """About `columns` characters by `lines` lines of `widget`'s type, never under `least`, within nine tenths of
    its screen: a dialog as roomy in presentation mode's larger type as at the desk."""
    metrics = widget.fontMetrics()
    screen = screen_room(widget)
    width = max(least.width(), columns * metrics.averageCharWidth())
    height = max(least.height(), lines * metrics.lineSpacing())
    return QSize(min(width, screen.width() * 9 // 10), min(height, screen.height() * 9 // 10))


def screen_room(widget: QWidget) -> QRect:
    """The room `widget`'s screen leaves for windows."""
    return (widget.screen() or QGuiApplication.primaryScreen()).availableGeometry()
