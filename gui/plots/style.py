"""Colours, fonts and pens shared by every plot, on screen and in the light slide style."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent
from PySide6.QtGui import QColor, QFont, QFontMetrics
from PySide6.QtWidgets import QGraphicsItem, QWidget

from .axis import Axis
from .captions import caption
from .wrap import wrap_caption

# Chinese glyphs need a CJK font; Qt's fallback is not reliable in PDF/SVG, so slides name one explicitly.
SLIDE_FONTS = ["DejaVu Sans", "WenQuanYi Micro Hei", "Noto Sans CJK SC", "Microsoft YaHei", "PingFang SC"]

COLORMAPS = {
    # (signed values: diverging, centred on 0; probabilities: sequential)
    "default": ("CET-D1", "viridis"),
    "cb-safe": ("CET-CBD1", "cividis"),
}

# Qualitative colours for heads and tokens, as many as the largest model's heads (12) and no two alike (the eight
# of Okabe–Ito, distinguishable with colour-blindness, then four of Paul Tol's muted set and a brown): with eight,
# head 0 = 4 = 8 in a 12-head model. Any two are at least ΔE 25 apart (CIELAB), and their tints ΔE 10.
PALETTE = [
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#D55E00",
    "#56B4E9",
    "#F0E442",
    "#000000",
    "#882255",
    "#332288",
    "#999933",
    "#8C564B",
]

HIDDEN_COLOR = QColor(90, 90, 90)  # masked (−∞) cells, drawn hatched
PLAIN_COLOR = QColor("#f4f4f4")  # cells of names, not amounts (token ids)

WINDOW_CAPTION_COLUMNS = 28  # a plot title's line length in the window (a Chinese character counts two)
SLIDE_CAPTION_COLUMNS = 60


@dataclass
class PlotOptions:
    """What a figure shows: which head and query row, temperature for output bars, language and style."""

    head: int = 0
    row: int = 0
    temperature: float = 1.0
    lang: str = "en"
    colormap: str = "default"  # or "cb-safe" (colour-blind-safe maps)
    font_scale: float = 1.0  # larger text for the back row (the window's presentation mode)
    tables_shown: bool = False  # the stage's tables are on screen beside the figure: no heatmap repeats them
    slide: bool = False  # light slide style for export: white background, large fonts, title
    title: bool = True  # in slide style, a title naming stage, head and the model's switches (decks draw their own)
    decimals: int = 2  # digits after the point in the plots' numbers, as in the tables (View ▸ Decimals)


def colormap(opts: PlotOptions, signed: bool) -> pg.ColorMap:
    return colormap_named(opts.colormap, signed)


@cache
def colormap_named(name: str, signed: bool) -> pg.ColorMap:
    """The map the plots and the tables use: diverging for signed values, sequential for non-negative ones."""
    diverging, sequential = COLORMAPS.get(name, COLORMAPS["default"])
    return pg.colormap.get(diverging if signed else sequential)


def color(i: int) -> QColor:
    return QColor(PALETTE[i % len(PALETTE)])


def foreground(opts: PlotOptions) -> QColor:
    return QColor("black") if opts.slide else pg.mkColor(pg.getConfigOption("foreground"))


def font(opts: PlotOptions, size: str = "text") -> QFont:
    """size: "title", "caption", "tick" or "text" (cell numbers, annotations)."""
    points = (
        {"title": 26, "caption": 18, "tick": 15, "text": 14}
        if opts.slide
        else {"title": 13, "caption": 10, "tick": 9, "text": 9}
    )
    f = QFont()
    if opts.slide:
        f.setFamilies(SLIDE_FONTS)
    f.setPointSize(round(points[size] * opts.font_scale))
    if size == "title":
        f.setBold(True)
    return f


def slide_title(layout, opts: PlotOptions, columns: int = 1):
    """A slide's title label over the first row of `layout` and the row the figure starts at: (None, 0) where
    `opts` asks for no title (on screen)."""
    if not (opts.slide and opts.title):
        return None, 0
    title = pg.LabelItem(justify="center")
    title.item.setFont(font(opts, "title"))
    layout.addItem(title, row=0, col=0, colspan=columns)
    return title, 1


def html_size(opts: PlotOptions, size: str) -> str:
    return f"{font(opts, size).pointSize()}pt"


TICK_LENGTH = 5  # px, outward


def new_plot(layout: pg.GraphicsLayout, opts: PlotOptions, row: int, col: int, colspan: int = 1) -> pg.PlotItem:
    """A plot in the chosen style; no mouse zoom or menu (figures are for reading, not panning). Its axes can name
    categories (gui/plots/axis.py: every label drawn)."""
    axes = {side: Axis(side) for side in ("left", "bottom", "top", "right")}
    plot = layout.addPlot(row=row, col=col, colspan=colspan, enableMenu=False, axisItems=axes)
    for side in ("top", "right"):  # pyqtgraph shows every axis it is given; a plot starts with left and bottom
        plot.hideAxis(side)
    plot.hideButtons()
    plot.setMouseEnabled(x=False, y=False)
    fg = foreground(opts)
    tick_font = font(opts, "tick")
    # pyqtgraph sizes an axis by the tick font's own height; √, σ² or γ drawn from a fallback font are taller
    text_height = round(QFontMetrics(tick_font).height() * 1.3)
    plain_axes(plot)
    for name in ("left", "bottom", "top", "right"):
        axis = plot.getAxis(name)
        # Ticks point outward (pyqtgraph's point into the plot): inside, a tick beside a number reads as a minus
        # sign ("I —0.54"). Category axes (tokens) draw none at all.
        # Two levels of ticks and grid lines (pyqtgraph draws a third, every 0.01 of 0 … 0.35: faint clutter on a
        # projector, and three quarters of a bar chart's lines to draw)
        axis.setStyle(tickFont=tick_font, tickLength=TICK_LENGTH, maxTickLevel=1)
        if name in ("bottom", "top"):
            axis.setStyle(autoExpandTextSpace=False, tickTextHeight=text_height)
        axis.setPen(fg)
        axis.setTextPen(fg)
        if not opts.slide:  # on screen an axis is drawn once into a pixmap, then copied (exports stay vector)
            axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
    if opts.slide:
        plot.titleLabel.item.setFont(font(opts, "caption"))
    # The title may use the width of the axes and of a colour bar (column 5), not only the plot's own.
    plot.layout.removeItem(plot.titleLabel)
    plot.layout.addItem(plot.titleLabel, 0, 0, 1, 6)
    _stow_options(plot)
    return plot


def plain_axes(plot: pg.PlotItem) -> None:
    """Axes that write their numbers as they are: pyqtgraph scales a labelled axis by an SI prefix and writes the
    factor into its label ("p(1−p) (×0.001)" over ticks 0 … 200 beside a verdict saying 0.217); the label states
    the unit instead. Every plot is made so (new_plot); a plot a dock builds itself calls it too."""
    for name in ("left", "bottom", "top", "right"):
        plot.getAxis(name).enableAutoSIPrefix(False)


class _OptionsAttic(QWidget):
    """A hidden holder for the plots' option widgets, which keeps a language switch from them."""

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LanguageChange:
            return True  # (a widget hands a language change on to every child)
        return super().event(event)


@cache
def _attic() -> _OptionsAttic:
    return _OptionsAttic()


def _stow_options(plot: pg.PlotItem) -> None:
    """pyqtgraph gives every PlotItem a "Plot Options" menu of six sub-menus, even with its menu off: seven
    pop-up windows and 30 widgets per plot, which PlotItem's methods read (its grid, log and averaging switches). A
    language switch sends every window a language change, and each hands it on to its children: with the figures
    of the stages and docks kept per language (67 plots) 480 menus and 3,000 widgets, 3.6 ms of a switch (0.6 after).
    The widgets move into one hidden holder that keeps the change from them (they stay owned by the plot's
    actions, deleted with it); the menus, never shown (no context menu: new_plot), are deleted."""
    for menu in plot.ctrlMenu.findChildren(pg.QtWidgets.QMenu):
        for action in menu.actions():
            group = action.defaultWidget()
            menu.removeAction(action)  # (gives the widget back, parentless)
            group.setParent(_attic())
    plot.ctrlMenu.deleteLater()
    plot.ctrlMenu = None


def markers(opts: PlotOptions) -> dict:
    """Scatter options: exports draw each marker as a shape (the cached pixmap atlas misprints in SVG)."""
    return {"useCache": not opts.slide}


def caption_lines(text: str, opts: PlotOptions) -> list[str]:
    """A plot's title as set_caption wraps it into lines (a slide has room for longer lines)."""
    return wrap_caption(text, SLIDE_CAPTION_COLUMNS if opts.slide else WINDOW_CAPTION_COLUMNS).split("<br>")


def set_caption(plot: pg.PlotItem, text: str, opts: PlotOptions, lines: int = 1) -> None:
    """A plot's title, wrapped so that it never sets the plot's width, at least `lines` lines high (a caption that
    changes as the cursor moves keeps its plot's size: empty lines below it). The same caption again changes nothing:
    pyqtgraph lays a title out anew and relays the whole figure out at every setTitle (a generated token re-set five
    unchanged captions, each a layout of its figure)."""
    shown = (text, lines, opts.slide, foreground(opts).name(), html_size(opts, "caption"))
    if getattr(plot, "caption_shown", None) == shown:
        return
    plot.caption_shown = shown
    wrapped = caption_lines(text, opts)
    text = "<br>".join(wrapped + ["&nbsp;"] * (lines - len(wrapped)))
    plot.setTitle(text, color=foreground(opts), size=html_size(opts, "caption"))
    if opts.slide:
        plot.titleLabel.item.setFont(font(opts, "caption"))
    height = plot.titleLabel.item.boundingRect().height()  # pyqtgraph keeps room for one line of 30 px
    plot.titleLabel.setMaximumHeight(height)
    plot.layout.setRowFixedHeight(0, height)


def finite_range(*arrays: np.ndarray) -> tuple[float, float] | None:
    """The smallest and largest finite value of the arrays, one apart around a value they all equal (None when there
    is none): overflowed values (∞, NaN) cannot set an axis range, and pyqtgraph keeps the scale shown before for an
    empty range (a figure refreshed would differ from one drawn anew)."""
    values = np.concatenate([np.ravel(a) for a in arrays])
    values = values[np.isfinite(values)]
    if not values.size:
        return None
    low, high = float(values.min()), float(values.max())
    return (low, high) if low < high else (low - 0.5, high + 0.5)


def with_overflow_note(text: str, values: np.ndarray, opts: PlotOptions) -> str:
    """A caption, with a line saying how many values overflowed (∞ or NaN) when any did: plots leave them out."""
    n = int(np.size(values) - np.count_nonzero(np.isfinite(values)))
    if not n:
        return text
    note = caption("not_finite", opts.lang, n=n)
    return f"{text}\n{note}" if text else note
