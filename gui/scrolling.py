"""Content that scrolls rather than being cut: for the docks under the stage view."""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QScrollArea, QVBoxLayout, QWidget


def scrolling_layout(owner: QWidget) -> QVBoxLayout:
    """A vertical layout for `owner`'s content inside a scroll area, so a dock under the stage view never asks
    for more height than the screen has (at 1280×720 it scrolls instead of pushing the window past the edge)."""
    content = QWidget(owner)
    area = QScrollArea(owner)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.NoFrame)
    area.setWidget(content)
    outer = QVBoxLayout(owner)
    outer.setContentsMargins(0, 0, 0, 0)
    outer.addWidget(area)
    return QVBoxLayout(content)
