"""A word-wrapped label whose height does not change with the script of its words.

A line holding a Chinese character is laid out in the CJK font's taller metrics (a pixel at the default size), so
a label that names a token ("Generated “我”." after "Generated “<unk>”.") grew and shrank by a pixel from one
token to the next: the figure below it in the Generate panel and in the KV cache dock was resized, fitted and
painted twice at each generated token. A SteadyLabel is as tall as its lines would be were each of them in the
tallest script (gui/window/steady_bars.py does the same for the menu bar and the toolbars).

    status = SteadyLabel(parent)      # word-wrapped; setText as for any QLabel
    wrapped_line_heights(text, font, width)   # the height of each line a text wraps into
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontMetrics, QFontMetricsF, QTextLayout, QTextOption
from PySide6.QtWidgets import QLabel

TALLEST_SCRIPT = "中"  # a character of the tallest script the window is shown in
_tallest: dict[str, tuple[int, int]] = {}  # font key → (a line of Latin text, a line of the tallest script), in px


def line_heights(font: QFont) -> tuple[int, int]:
    """How tall a laid-out line of `font` is in Latin text, and in the tallest script (with its fallback font)."""
    key = font.key()
    if key not in _tallest:
        probe = QLabel()
        probe.setFont(font)
        probe.setWordWrap(True)
        heights = []
        for text in ("M", TALLEST_SCRIPT):
            probe.setText(text)
            heights.append(probe.heightForWidth(QFontMetrics(font).horizontalAdvance("MM") * 4))
        _tallest[key] = (heights[0], max(heights))
    return _tallest[key]


def wrapped_line_heights(text: str, font: QFont, width: int) -> list[float]:
    """The heights of the lines `text` wraps into at `width` (at least one; a line drawn from a fallback font may be
    taller than `font`'s own line spacing)."""
    layout = QTextLayout(text, font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    layout.setTextOption(option)
    layout.beginLayout()
    heights = []
    while (line := layout.createLine()).isValid():
        line.setLineWidth(max(1, width))
        heights.append(line.height())
    layout.endLayout()
    return heights or [QFontMetricsF(font).lineSpacing()]


class SteadyLabel(QLabel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWordWrap(True)
        self.heights: tuple[str, dict[tuple[int, str], int]] = ("", {})  # a text, and its (width, font key) → height

    def setText(self, text: str) -> None:
        """The same text again changes nothing (its layout is not asked for again)."""
        if text != self.text():
            super().setText(text)

    def heightForWidth(self, width: int) -> int:
        """Measured once per width and text: a layout asks for it several times in a pass (the KV cache's four lines
        of rich text were laid out seven times at each generated token)."""
        text, heights = self.heights
        if text != self.text():
            self.heights = text, heights = self.text(), {}
        key = (width, self.font().key())
        if key not in heights:
            heights[key] = self._steady_height(width)
        return heights[key]

    def _steady_height(self, width: int) -> int:
        natural = super().heightForWidth(width)
        margins = self.contentsMargins()
        edges = margins.top() + margins.bottom() + 2 * self.margin()
        latin, tallest = line_heights(self.font())
        lines = (natural - edges) // latin  # (each line is latin or tallest px: fewer than latin lines of the latter)
        return natural if lines < 1 else lines * tallest + edges
