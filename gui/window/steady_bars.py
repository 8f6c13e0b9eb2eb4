"""Bars of text (the menu bar, the toolbars) as tall in Chinese as in English.

A line with a Chinese character is laid out in the CJK font's taller metrics (one pixel at the default size), so
the menu bar and the toolbar grew at a switch to Chinese and shrank back at the switch to English: everything below
them moved, every dock and the stage view were resized, and every figure in them was fitted, laid out and painted
anew, at each switch. Each bar keeps, from the start, the height of its tallest line in either script.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from gui.views.steady_label import TALLEST_SCRIPT


def keep_height_in_every_language(bars: list[QWidget]) -> None:
    for bar in bars:
        metrics = bar.fontMetrics()
        texts = [action.text() for action in bar.actions() if action.text()]
        if not texts:
            continue
        shown = max(metrics.size(Qt.TextShowMnemonic, text).height() for text in texts)
        tallest = max(shown, metrics.size(Qt.TextShowMnemonic, TALLEST_SCRIPT).height())
        bar.setMinimumHeight(bar.sizeHint().height() + tallest - shown)
