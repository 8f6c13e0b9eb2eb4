"""Widget text larger than the window's: titles, formulas, the start page's list of lessons."""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtWidgets import QWidget

W = TypeVar("W", bound=QWidget)


def scale_font(widget: W, factor: float, bold: bool = False) -> W:
    """The widget, its font `factor` times the size it has (bold or not)."""
    font = widget.font()
    font.setPointSizeF(font.pointSizeF() * factor)
    font.setBold(bold)
    widget.setFont(font)
    return widget
