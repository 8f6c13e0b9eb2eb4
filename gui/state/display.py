"""How the window shows the lesson: one DisplaySettings object, owned by the app state, that every view, dock
and exporter reads — the language, the decimals in the matrices, the text size, the palette, the colour map, the
selected head and row, and the softmax temperature of the output bars. The figures' PlotOptions are made from it
in one place (`plot_options`), so the stage view, the docks and both figure exports draw alike.

A change emits `changed` with the names of what changed: the views repaint what uses them. The lesson controller
builds a new window for the language, the text size and presentation mode (tr() strings and widget fonts are fixed
when a widget is made), gives the app the font and palette (`apply`) and keeps the choices for the next start
(QSettings, gui/state/preferences.py). Presentation mode (F5) sizes the type for the room: `room_scale` times
the chosen `font_scale` (`type_scale`), PRESENT_TEXT_PX on a 1920×1080 screen and in proportion on others.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

from engine import EngineError
from engine.formats.lesson import LANGS
from engine.generate import check_temperature
from gui.plots import PlotOptions
from gui.state import preferences
from gui.text.numbers import format_number

FONT_SCALES = (0.8, 0.9, 1.0, 1.15, 1.3, 1.5, 1.75, 2.0, 2.5, 3.0)
DECIMALS = (0, 1, 2, 3, 4)
COLORMAPS = ("default", "cb-safe")  # the names gui.plots.PlotOptions.colormap takes
PALETTES = ("system", "projector")
STORED = {"font_scale": 1.0, "decimals": 2, "colormap": "default", "palette": "system"}  # kept between runs
REBUILD = frozenset({"font_scale", "presenting", "room_scale"})  # what the controller builds a new window for
LOOK = frozenset({"colormap", "decimals"})  # how every figure's numbers look: every figure redraws for them
_CHOICES = {
    "lang": LANGS,
    "decimals": DECIMALS,
    "font_scale": FONT_SCALES,
    "colormap": COLORMAPS,
    "palette": PALETTES,
    "presenting": (False, True),
}
BACK_ROW_PX = 24  # the smallest text the back row reads: nothing smaller in presentation mode at 1920×1080
PRESENT_TEXT_PX = 25  # presentation mode's body text on a 1920×1080 screen (BACK_ROW_PX or more) …
PRESENT_SCREEN = (1920, 1080)  # … and in proportion on other screens (about 17 px at 1280×720)
ROOM_SCALE_STEP = 0.05  # the room scale is rounded up to this: a few pixels of difference rebuild nothing


class DisplaySettings(QObject):
    changed = Signal(object)  # a frozenset of the names that changed

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.lang = "en"
        self.decimals = STORED["decimals"]
        self.font_scale = STORED["font_scale"]
        self.palette = STORED["palette"]
        self.colormap = STORED["colormap"]
        self.presenting = False  # presentation mode (F5); never stored: every start begins at the desk
        self.room_scale = 1.0  # presentation mode's type scale for its screen (room_scale_for), times font_scale
        self.head = 0  # the attention head shown (the app state keeps it within the model's heads)
        self.row = 0  # the selected token row
        self.temperature = 1.0  # of the output bars and of the generated token's draw

    def set(self, **changes) -> frozenset[str]:
        """Change settings; `changed` is emitted once, with the names whose value moved (which it returns). A value
        that is not one of the choices raises EngineError and changes nothing."""
        checked = {name: self._check(name, value) for name, value in changes.items()}
        moved = frozenset(name for name, value in checked.items() if getattr(self, name) != value)
        for name in moved:
            setattr(self, name, checked[name])
        if moved:
            self.changed.emit(moved)
        return moved

    def follow_lesson(self, head: int, row: int, decimals: int | None = None) -> None:
        """A new trace came with its own head and row (a lesson may name its decimals too): taken without
        `changed`, and not kept for the next start (the views rebuild for the new trace anyway, and read them)."""
        self.head, self.row = self._check("head", head), self._check("row", row)
        if decimals is not None:
            self.decimals = self._check("decimals", decimals)

    @staticmethod
    def _check(name: str, value):
        if name in _CHOICES:
            if value not in _CHOICES[name]:
                raise EngineError(
                    f"display: {name} must be one of {', '.join(map(str, _CHOICES[name]))}, not {value!r}"
                )
            return value
        if name in ("head", "row"):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise EngineError(f"display: {name} must be a whole number from 0, not {value!r}")
            return value
        if name == "temperature":
            return check_temperature(value)
        if name == "room_scale":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 1 <= value <= 10:
                raise EngineError(f"display: room_scale must be a number from 1 to 10, not {value!r}")
            return float(value)
        raise EngineError(f"display: there is no setting named {name!r}")

    # ---- what the views read ------------------------------------------------------------------------
    @property
    def type_scale(self) -> float:
        """How much larger than the app's own font text is drawn: the chosen size, times the room's in
        presentation mode. Every widget font (through the app font, `apply`) and every plot (plot_options)."""
        return self.font_scale * (self.room_scale if self.presenting else 1.0)

    def plot_options(self, slide: bool = False) -> PlotOptions:
        """The options every figure is drawn with. A slide (an exported figure or deck) is drawn for its own
        1600×900 canvas: the window's text size does not apply to it."""
        return PlotOptions(
            head=self.head,
            row=self.row,
            temperature=self.temperature,
            lang=self.lang,
            colormap=self.colormap,
            font_scale=1.0 if slide else self.type_scale,
            slide=slide,
            decimals=self.decimals,
        )

    def format_value(self, value: float, integer: bool = False) -> str:
        """A number as the matrices show it: the chosen decimals (View ▸ Decimals), 4 digits when large."""
        return format_number(value, self.decimals, integer)

    def next_font_scale(self, step: int) -> float:
        """One size larger (step 1) or smaller (step −1) than now, within FONT_SCALES."""
        i = FONT_SCALES.index(self.font_scale)
        return FONT_SCALES[max(0, min(len(FONT_SCALES) - 1, i + step))]

    # ---- kept between runs ----------------------------------------------------------------------------
    def load(self) -> None:
        """Take the stored choices (anything unknown falls back to the default), without `changed`: this is
        for the start, before any view exists."""
        stored = {key: preferences.read(f"display/{key}", default) for key, default in STORED.items()}
        self.font_scale = min(FONT_SCALES, key=lambda s: abs(s - stored["font_scale"]))
        for key in ("decimals", "colormap", "palette"):
            setattr(self, key, stored[key] if stored[key] in _CHOICES[key] else STORED[key])

    def save(self) -> None:
        preferences.write_all({f"display/{key}": getattr(self, key) for key in STORED})


_base: dict = {}  # the app's own font, palette and style, before any scaling


def base_text_px() -> float:
    """The app's own text size in pixels, before any scaling."""
    font = _base["font"] if _base else QGuiApplication.font()
    if font.pointSizeF() > 0:
        screen = QGuiApplication.primaryScreen()
        return font.pointSizeF() * (screen.logicalDotsPerInchY() if screen is not None else 96.0) / 72
    return float(font.pixelSize())


def room_scale_for(width: int, height: int) -> float:
    """The type scale that gives presentation mode PRESENT_TEXT_PX on a 1920×1080 screen, and the same share of
    the screen on any other (the smaller of its width's and its height's share); never below 1."""
    share = min(width / PRESENT_SCREEN[0], height / PRESENT_SCREEN[1])
    scale = PRESENT_TEXT_PX * share / base_text_px()
    return max(1.0, round(math.ceil(round(scale / ROOM_SCALE_STEP, 6)) * ROOM_SCALE_STEP, 2))


def projector_palette() -> QPalette:
    """Light and high-contrast: white backgrounds, black text, a strong blue selection, dark grey for
    disabled text (a washed-out projector still shows it)."""
    p = QPalette()
    white, black, light = QColor("#ffffff"), QColor("#000000"), QColor("#f0f0f0")
    for role, color in (
        (QPalette.Window, light),
        (QPalette.Base, white),
        (QPalette.AlternateBase, light),
        (QPalette.Button, light),
        (QPalette.WindowText, black),
        (QPalette.Text, black),
        (QPalette.ButtonText, black),
        (QPalette.ToolTipBase, QColor("#ffffdd")),
        (QPalette.ToolTipText, black),
        (QPalette.Highlight, QColor("#0050c8")),
        (QPalette.HighlightedText, white),
        (QPalette.PlaceholderText, QColor("#555555")),
        (QPalette.Link, QColor("#0040a0")),
        (QPalette.BrightText, QColor("#c00000")),
    ):
        p.setColor(role, color)
    for role in (QPalette.WindowText, QPalette.Text, QPalette.ButtonText):
        p.setColor(QPalette.Disabled, role, QColor("#555555"))
    return p


def apply(app: QApplication, settings: DisplaySettings) -> None:
    """Give the app the chosen text size and palette (widgets made afterwards take the text size; the palette
    reaches every widget at once)."""
    if not _base:
        _base.update(font=QFont(app.font()), palette=QPalette(app.palette()), style=app.style().name())
    base, font = _base["font"], QFont(_base["font"])
    if base.pointSizeF() > 0:
        font.setPointSizeF(base.pointSizeF() * settings.type_scale)
    else:  # a font sized in pixels
        font.setPixelSize(round(base.pixelSize() * settings.type_scale))
    app.setFont(font)
    if settings.palette == "projector":
        app.setStyle(QStyleFactory.create("Fusion"))  # a style that follows the palette everywhere
        app.setPalette(projector_palette())
    else:
        app.setStyle(QStyleFactory.create(_base["style"]))
        app.setPalette(_base["palette"])
