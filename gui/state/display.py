"""How the window shows things, for a desk or for the back row of a classroom: text size, decimals in the
matrices, colour map and palette. Like pyqtgraph's config options these are app-wide: the views read
`DISPLAY` when they are built, and a change rebuilds the window (see lesson_controller).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

from gui.state import preferences

FONT_SCALES = (0.8, 0.9, 1.0, 1.15, 1.3, 1.5, 1.75, 2.0, 2.5, 3.0)
DECIMALS = (0, 1, 2, 3, 4)
COLORMAPS = ("default", "cb-safe")  # the names gui.plots.PlotOptions.colormap takes
PALETTES = ("system", "projector")


@dataclass
class Display:
    font_scale: float = 1.0
    decimals: int = 2
    colormap: str = "default"
    palette: str = "system"


DISPLAY = Display()
_base: dict = {}  # the app's own font and palette, before any scaling


def load() -> Display:
    """Read the stored choices into DISPLAY (anything unknown falls back to the default)."""
    stored = Display(
        font_scale=preferences.read("display/font_scale", 1.0),
        decimals=preferences.read("display/decimals", 2),
        colormap=preferences.read("display/colormap", "default"),
        palette=preferences.read("display/palette", "system"),
    )
    default = Display()
    DISPLAY.font_scale = min(FONT_SCALES, key=lambda s: abs(s - stored.font_scale))
    DISPLAY.decimals = stored.decimals if stored.decimals in DECIMALS else default.decimals
    DISPLAY.colormap = stored.colormap if stored.colormap in COLORMAPS else default.colormap
    DISPLAY.palette = stored.palette if stored.palette in PALETTES else default.palette
    return DISPLAY


def save() -> None:
    for key in ("font_scale", "decimals", "colormap", "palette"):
        preferences.write(f"display/{key}", getattr(DISPLAY, key))


def next_font_scale(step: int) -> float:
    """One size larger (step 1) or smaller (step −1) than now, within FONT_SCALES."""
    i = FONT_SCALES.index(DISPLAY.font_scale) if DISPLAY.font_scale in FONT_SCALES else FONT_SCALES.index(1.0)
    return FONT_SCALES[max(0, min(len(FONT_SCALES) - 1, i + step))]


def projector_palette() -> QPalette:
    """Light and high-contrast: white backgrounds, black text, a strong blue selection, dark grey for
    disabled text (a washed-out projector still shows it)."""
    p = QPalette()
    white, black, light = QColor("#ffffff"), QColor("#000000"), QColor("#f0f0f0")
    for role, color in ((QPalette.Window, light), (QPalette.Base, white), (QPalette.AlternateBase, light),
                        (QPalette.Button, light), (QPalette.WindowText, black), (QPalette.Text, black),
                        (QPalette.ButtonText, black), (QPalette.ToolTipBase, QColor("#ffffdd")),
                        (QPalette.ToolTipText, black), (QPalette.Highlight, QColor("#0050c8")),
                        (QPalette.HighlightedText, white), (QPalette.PlaceholderText, QColor("#555555")),
                        (QPalette.Link, QColor("#0040a0")), (QPalette.BrightText, QColor("#c00000"))):
        p.setColor(role, color)
    for role in (QPalette.WindowText, QPalette.Text, QPalette.ButtonText):
        p.setColor(QPalette.Disabled, role, QColor("#555555"))
    return p


def apply(app: QApplication) -> None:
    """Give the app the chosen text size and palette (the window is rebuilt afterwards)."""
    if not _base:
        _base.update(font=QFont(app.font()), palette=QPalette(app.palette()), style=app.style().name())
    base, font = _base["font"], QFont(_base["font"])
    if base.pointSizeF() > 0:
        font.setPointSizeF(base.pointSizeF() * DISPLAY.font_scale)
    else:  # a font sized in pixels
        font.setPixelSize(round(base.pixelSize() * DISPLAY.font_scale))
    app.setFont(font)
    if DISPLAY.palette == "projector":
        app.setStyle(QStyleFactory.create("Fusion"))  # a style that follows the palette everywhere
        app.setPalette(projector_palette())
    else:
        app.setStyle(QStyleFactory.create(_base["style"]))
        app.setPalette(_base["palette"])
