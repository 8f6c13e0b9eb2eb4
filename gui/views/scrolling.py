"""The docks: content that scrolls rather than being cut (or making the window taller than its screen)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QVBoxLayout, QWidget


def scrolling_layout(owner: QWidget) -> QVBoxLayout:
    """A vertical layout for `owner`'s content inside a scroll area, so a dock under the stage view never asks
    for more height than the screen has (at 1280×720 it scrolls instead of pushing the window past the edge)."""
    content = QWidget(owner)
    area = scrolling(content)
    outer = QVBoxLayout(owner)
    outer.setContentsMargins(0, 0, 0, 0)
    outer.addWidget(area)
    return QVBoxLayout(content)


def scrolling(view: QWidget) -> QScrollArea:
    """`view` in a scroll area: a dock beside the stage view never asks the window for more height than the screen
    has (two docks one above the other at 1280×720 scroll rather than push the window past the edge)."""
    area = QScrollArea()
    area.setWidgetResizable(True)
    # A vertical bar that came and went would narrow the content, whose wrapped text then grows taller, which
    # brings the bar back: Qt then resizes the content forever (a stack overflow, seen with the What-if dock).
    area.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOn)
    area.setFrameShape(QFrame.NoFrame)
    area.setWidget(view)
    return area
