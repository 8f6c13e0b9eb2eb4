"""A matrix as coloured cells: token ticks, a colour bar, the numbers in small matrices, −∞ hatched."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QFontMetricsF,
    QImage,
    QPainter,
    QPen,
    QStaticText,
    QTransform,
)
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem, QWidget

from gui.text.numbers import format_number

from .colorbar import ColorBar
from .fit import slot, text_width
from .pyqtgraph_compat import changed_in_place, needs_render, rendered
from .scale import Scale, is_dark, scale_of
from .style import HIDDEN_COLOR, PlotOptions, colormap, font, foreground, new_plot, set_caption, with_overflow_note

MAX_NUMBERS = 16 * 16  # larger matrices are drawn without numbers in the cells
MAX_NUMBER_COLS = 16
SOLID_CELLS = MAX_NUMBERS  # on screen a matrix of up to this many cells is painted a rectangle per cell (CellImage)
SMALLER_NUMBERS = 0.85  # of the text size: the cells' numbers where they do not fit at the text size
NUMBER_MARGIN = 3  # px a cell's number keeps from each side of its cell (the axis line, the next number)
WHITE, BLACK = QColor("white"), QColor("black")  # a cell's number's ink


def format_cell(value: float, decimals: int = 2, *, integer: bool = False) -> str:
    """A number in a plot's cell (numbers.format_number's plot style), with the chosen decimals."""
    return format_number(value, decimals, integer, style="plot")


def axis_labels(trace, kind: str | None, n: int) -> list[str]:
    """Tick labels for one axis: a stack's tokens, the output vocabulary, or feature numbers."""
    if kind in trace.tokens:
        return list(trace.tokens[kind])
    if kind == "vocab":
        return list(trace.model.vocabs["dec"].tokens)
    return [str(i) for i in range(n)]


def color_bar(
    opts: PlotOptions, cmap: pg.ColorMap, images: list[pg.ImageItem], beside: pg.PlotItem | None = None
) -> ColorBar:
    """A colour bar that sets the map and levels of `images` (heatmaps on one scale), inserted right of the plot
    `beside` (else the caller places it)."""
    bar = ColorBar(cmap, 18 if opts.slide else 12)
    bar.setImageItem(images, insert_in=beside)
    bar.set_tick_font(font(opts, "tick"))
    bar.axis.setTextPen(foreground(opts))
    if not opts.slide:  # as the plots' axes: on screen drawn once into a pixmap until its map or levels change
        for item in (bar.axis, bar.strip):
            item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
    return bar


class CellImage(pg.ImageItem):
    """pyqtgraph's ImageItem, drawn from a premultiplied ARGB image: Qt scales the 8-bit indexed image that
    pyqtgraph renders through its colour table pixel by pixel, about 10× slower (3 ms for a 6×4 matrix filling
    a 580×694 view, at every edit). A matrix of numbers on a colour map (the heatmaps) is looked up straight into
    that format, as pyqtgraph looks it up (entry ⌊(v − lo)·256 / (hi − lo)⌋ of the map's 256 colours, clipped; a
    NaN cell transparent): a third of a millisecond less per edit than its indexed image and a conversion.

    On screen a small matrix (numbers in its cells) is painted as one filled rectangle per cell: Qt scaling even
    that image blends every pixel it covers (a tenth of a classroom edit's instructions, its largest single part),
    where a solid fill writes them. The colours are the same; a pixel takes the cell its centre falls in, where the
    scaled image gave a cell's edge to the pixel the edge falls in (one column of pixels apart at most)."""

    entries: np.ndarray | None = None  # [y, x]: each cell's entry in the lookup table (−1: hidden), once rendered
    cells: list[tuple[QRectF, QColor]] | None = None  # each shown cell's rectangle and colour, once painted so
    _image: QImage | None = None

    @property
    def qimage(self) -> QImage | None:
        """The image pyqtgraph draws (an export, a large matrix), made from the rendered entries when first asked
        for: painted a rectangle per cell, a matrix needs none."""
        if self._image is None and self.entries is not None:
            entries = self.entries
            bgra = np.empty((*entries.shape, 4), dtype=np.uint8)
            bgra[..., :3] = self.lut[np.maximum(entries, 0)][..., 2::-1]  # ARGB32 is B, G, R, A in memory
            bgra[..., 3] = 255
            bgra[entries < 0] = 0  # transparent, premultiplied: the backdrop shows the hidden (−∞) cell
            self._image = pg.functions.ndarray_to_qimage(bgra, QImage.Format.Format_ARGB32_Premultiplied)
        return self._image

    @qimage.setter
    def qimage(self, image: QImage | None) -> None:
        self._image = image

    def paint(self, painter: QPainter, *args) -> None:
        if self.image is None or self.image.size > SOLID_CELLS or not isinstance(painter.device(), QWidget):
            super().paint(painter, *args)  # a large matrix, or an export: the image, scaled
            return
        if needs_render(self):
            self.render()
        if self.entries is None:  # not a matrix of numbers on the map (rendered by pyqtgraph): the image
            super().paint(painter, *args)
            return
        if self.cells is None:
            colors = lut_colors(self.lut)
            self.cells = [
                (QRectF(x, y, 1, 1), colors[k])
                for y, row in enumerate(self.entries.tolist())
                for x, k in enumerate(row)
                if k >= 0
            ]
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)  # each cell's edges on whole pixels, no seams
        for rect, color in self.cells:
            painter.fillRect(rect, color)
        painter.restore()

    def opaque_rect(self) -> QRectF | None:
        """Its rectangle (its own coordinates) when every cell is painted opaque, else None (a hidden cell shows what
        is behind it): its view paints no background there."""
        if needs_render(self) and self.image is not None:
            self.render()
        entries = self.entries
        return self.boundingRect() if entries is not None and entries.size and entries.min() >= 0 else None

    def render(self) -> None:
        self.cells = self.entries = self.qimage = None
        image, lut, levels = self.image, self.lut, self.levels
        if image is None or image.ndim != 2 or image.dtype.kind != "f" or not isinstance(lut, np.ndarray):
            super().render()  # anything else: pyqtgraph's own way, then converted
            if self.qimage is not None and self.qimage.format() != QImage.Format.Format_ARGB32_Premultiplied:
                self.qimage = self.qimage.convertToFormat(QImage.Format.Format_ARGB32_Premultiplied)
            return
        entries = lut_entries(image.T, *levels, len(lut))  # [y, x]: rows of the picture
        entries[np.isnan(image.T)] = -1
        self.qimage, self.entries = None, entries  # (the image is made from the entries when asked for)
        rendered(self)

    def set_cells(self, pixels: np.ndarray) -> None:
        """New values for an image of the same shape, map and levels: only the cells that changed are repainted
        (pyqtgraph's setImage repaints the whole image, and with it every number over it: an edit changes a column
        or two)."""
        changed = ~((pixels == self.image) | (np.isnan(pixels) & np.isnan(self.image)))  # [x, y]
        if not changed.any():
            return
        self.image = pixels
        changed_in_place(self)
        xs, ys = np.flatnonzero(changed.any(1)), np.flatnonzero(changed.any(0))
        self.update(QRectF(xs[0], ys[0], xs[-1] - xs[0] + 1, ys[-1] - ys[0] + 1))  # in the image's pixels


def lut_entries(values: np.ndarray, lo: float, hi: float, n: int) -> np.ndarray:
    """Each value's entry in an n-colour lookup table over lo … hi, as pyqtgraph looks it up: ⌊(v − lo)·n / (hi − lo)⌋,
    clipped to the table (a NaN takes entry 0). One function for the cells' colours and their numbers' ink."""
    if not hi > lo:
        return np.zeros(values.shape, dtype=np.intp)
    at = (values - lo) * (n / (hi - lo))
    np.clip(at, 0, n - 1, out=at)
    at[np.isnan(at)] = 0
    return at.astype(np.intp)


_LUT_COLORS: dict[bytes, list[QColor]] = {}


def lut_colors(lut: np.ndarray) -> list[QColor]:
    """A lookup table's colours as QColors (made once per table: a few colour maps serve every figure)."""
    key = lut.tobytes()
    colors = _LUT_COLORS.get(key)
    if colors is None:
        colors = _LUT_COLORS[key] = [QColor(*rgb) for rgb in lut[:, :3].tolist()]
    return colors


class CellNumbers(QGraphicsItem):
    """Every cell's number of a heatmap, in one item: each centred on its cell and drawn upright at its font's size
    however the plot is scaled (as an item that ignores the view's transformations is drawn), in black or white.

    One item per number cost more than the numbers themselves: Qt visits, bounds and caches each item at every paint,
    and an edited number was laid out three times (its text, its size to centre it, its pixmap). Here each text is
    laid out once (a QStaticText on screen) and an edit repaints the cells whose numbers moved."""

    def __init__(self):
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)  # the exposed part, in paint
        self.cells: list[tuple[float, float, str, QColor]] = []  # each cell's centre (x, y), text and ink
        self.area = QRectF()  # the cells' rectangle: the numbers stay inside their cells (Heatmap.fit)
        self.font = QFont()
        self.laid: dict[str, tuple[QStaticText, float, float]] = {}  # each text laid out in the font: its width, height

    def texts(self) -> list[str]:
        """The numbers shown, row by row (none while hidden)."""
        return [text for _, _, text, _ in self.cells] if self.isVisible() else []

    def set_font(self, font: QFont) -> None:
        if font != self.font:
            self.font, self.laid = QFont(font), {}
            self.update()

    def set_cells(self, cells: list[tuple[float, float, str, QColor]], area: QRectF) -> None:
        """New numbers: the cells whose text or ink moved are repainted (all of them for another shape)."""
        if area != self.area or len(cells) != len(self.cells):
            self.prepareGeometryChange()
            self.area, self.cells = QRectF(area), cells
            self.update()
            return
        moved = [(x, y) for (x, y, text, ink), old in zip(cells, self.cells) if text != old[2] or ink is not old[3]]
        self.cells = cells
        if moved:
            xs, ys = [x for x, _ in moved], [y for _, y in moved]
            self.update(QRectF(min(xs) - 0.5, min(ys) - 0.5, max(xs) - min(xs) + 1, max(ys) - min(ys) + 1))

    def boundingRect(self) -> QRectF:
        return self.area

    def paint(self, painter: QPainter, option, widget=None) -> None:
        exposed = option.exposedRect  # the cells a number of which is repainted: those whose cell it touches
        left, top = exposed.left() - 0.5, exposed.top() - 0.5
        right, bottom = exposed.right() + 0.5, exposed.bottom() + 0.5
        to_view = painter.transform()
        if to_view.type().value > QTransform.TransformationType.TxScale.value:  # (a plot is never turned)
            return
        sx, sy, dx, dy = to_view.m11(), to_view.m22(), to_view.dx(), to_view.dy()
        on_screen = isinstance(painter.device(), QWidget)
        laid, lay_out = self.laid, self._laid_out
        painter.save()
        painter.resetTransform()  # the view's pixels: a number keeps its font's size however the plot is scaled
        painter.setFont(self.font)
        ink_now = None
        for x, y, text, ink in self.cells:
            if x < left or x > right or y < top or y > bottom:  # its cell is outside the part repainted
                continue
            if ink is not ink_now:
                painter.setPen(ink)
                ink_now = ink
            cx, cy = sx * x + dx, sy * y + dy  # its centre on the view
            if on_screen:
                static, width, height = laid.get(text) or lay_out(text)
                painter.drawStaticText(QPointF(cx - width / 2, cy - height / 2), static)
            else:  # an export: the text itself (vector), laid out for its device
                painter.drawText(QRectF(cx - 500, cy - 500, 1000, 1000), Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()

    def _laid_out(self, text: str) -> tuple[QStaticText, float, float]:
        laid = self.laid.get(text)
        if laid is None:
            if len(self.laid) > 4096:  # many numbers seen: lay them out afresh
                self.laid = {}
            static = QStaticText(text)
            static.setTextFormat(Qt.TextFormat.PlainText)
            static.prepare(QTransform(), self.font)
            size = static.size()
            laid = self.laid[text] = (static, size.width(), size.height())
        return laid

    def rects(self) -> list[tuple[str, QRectF]]:
        """Each number shown and its box in the view's pixels, as paint draws it (none while hidden)."""
        views = self.scene().views() if self.scene() is not None else []
        if not self.isVisible() or not views:
            return []
        to_view = self.deviceTransform(views[0].viewportTransform())
        metrics = QFontMetricsF(self.font)
        boxes = []
        for x, y, text, _ in self.cells:
            centre, width, height = to_view.map(QPointF(x, y)), metrics.horizontalAdvance(text), metrics.height()
            boxes.append((text, QRectF(centre.x() - width / 2, centre.y() - height / 2, width, height)))
        return boxes


class Heatmap:
    """One matrix in a PlotItem of a GraphicsLayout; set() updates it in place.

    signed: True always draws a diverging map, False a sequential one, None decides by the numbers shown
    (any below 0: diverging). `cmap` fixes another map (the mask pattern)."""

    def __init__(
        self,
        layout: pg.GraphicsLayout,
        opts: PlotOptions,
        signed: bool | None,
        row: int,
        col: int,
        cmap: pg.ColorMap | None = None,
        colspan: int = 1,
        colorbar: bool = True,
    ):
        self.signed, self.fixed_cmap = signed, cmap
        self.plot = new_plot(layout, opts, row=row, col=col, colspan=colspan)
        self.plot.invertY(True)
        self.plot.showAxis("top")
        self.plot.hideAxis("bottom")
        # Shows through the transparent (NaN) cells, the hidden −∞ ones: grey with light hatching.
        self.backdrop = [QGraphicsRectItem(), QGraphicsRectItem()]
        self.backdrop[0].setBrush(QBrush(HIDDEN_COLOR))
        self.backdrop[1].setBrush(QBrush(HIDDEN_COLOR.lighter(160), Qt.BrushStyle.BDiagPattern))
        for item in self.backdrop:
            item.setPen(QPen(Qt.PenStyle.NoPen))
            self.plot.addItem(item)
        self.image = CellImage()
        self.plot.addItem(self.image)
        self.selection = QGraphicsRectItem()
        pen = QPen(foreground(opts), 0)
        pen.setWidth(3)
        pen.setCosmetic(True)
        self.selection.setPen(pen)
        self.plot.addItem(self.selection)
        # The colour bar beside the plot, which sets the image's map and levels; without one (a bar shared by
        # several heatmaps, or none) the image takes them itself.
        self.bar = color_bar(opts, cmap or colormap(opts, bool(signed)), [self.image], self.plot) if colorbar else None
        self.colored = self.image if self.bar is None else self.bar
        self.numbers = CellNumbers()  # the cells' numbers, shown where they fit the cells
        self.numbers.setVisible(False)
        self.plot.addItem(self.numbers, ignoreBounds=True)
        self.cells: list[tuple[float, float, str, QColor]] = []  # each cell's number: x, y, text, ink
        self.shape: tuple[int, int] | None = None
        self.labels: tuple[list[str], list[str]] = ([], [])
        self._drawn: dict = {"cmap": None, "levels": None, "caption": None}  # what the last set() drew
        self.scale: Scale | None = None
        self.tick_font, self.number_font = font(opts, "tick"), font(opts, "text")
        small = QFont(self.number_font)
        small.setPointSizeF(self.number_font.pointSizeF() * SMALLER_NUMBERS)
        self.number_fonts = (self.number_font, small)  # the cells' numbers: the text size, else a little smaller
        self._widths: tuple[dict[str, int], ...] = tuple({} for _ in self.number_fonts)  # each text's, per font
        self._formatted: tuple = (None, None, [])  # the numbers last written: decimals, values, texts
        self.number_heights = [QFontMetrics(f).height() for f in self.number_fonts]
        self._widest: tuple = (None, [])  # the texts last measured, and the widest in each number font
        self._centres: tuple = (None, [])  # the shape, and each cell's centre
        self._dark: tuple = (None, None)  # the image's lookup table, and whether a number on each colour is white
        self.plot.vb.sigResized.connect(self.fit)

    def set(
        self,
        matrix: np.ndarray,
        rows: list[str],
        cols: list[str],
        opts: PlotOptions,
        caption: str = "",
        selected_row: int | None = None,
        levels: tuple[float, float] | None = None,
        cell_text: list[str] | None = None,
        scale: Scale | None = None,
    ) -> None:
        """matrix [r, c] (−inf allowed). The colour scale: `scale`, else `levels` (lo, hi), else from the numbers
        (gui/plots/scale.py: sequential 0 … max when none is negative, else diverging ±max|x|)."""
        matrix = np.atleast_2d(np.asarray(matrix, dtype=np.float64))
        r, c = matrix.shape
        finite = np.isfinite(matrix)
        all_finite = bool(finite.all())
        if scale is None:
            scale = (
                Scale(levels[0] < 0 if self.signed is None else self.signed, *levels)
                if levels is not None
                else scale_of(matrix, signed=self.signed)
            )
        self.scale = scale
        self._single(r * c == 1 and self.fixed_cmap is None)
        levels = (scale.lo, scale.hi)
        cmap = self.fixed_cmap or colormap(opts, scale.signed)
        drawn = self._drawn  # what the last set() drew: an edit changes numbers, and only what they move is set again
        drawn_cmap = drawn["cmap"]
        if (opts.colormap, opts.slide, scale.signed) != drawn_cmap:  # an edit keeps the map: no redraw
            self.colored.setColorMap(cmap)
            drawn["cmap"] = (opts.colormap, opts.slide, scale.signed)
        # ImageItem reads [x, y] = [column, row]
        pixels = (matrix if all_finite else np.where(finite, matrix, np.nan)).T
        if opts.slide:  # vector exports smooth a tiny image into a blur: give every cell a block of pixels
            block = max(1, min(16, 2048 // max(r, c)))
            pixels = np.repeat(np.repeat(pixels, block, 0), block, 1)
        kept = self.image.image is not None and self.image.image.shape == pixels.shape
        if kept and levels == drawn["levels"] and drawn["cmap"] == drawn_cmap:
            self.image.set_cells(pixels)
        else:
            self.image.setImage(pixels, autoLevels=False)
        if drawn.get("rect") != (pixels.shape, r, c):
            self.image.setRect(QRectF(0, 0, c, r))
            drawn["rect"] = (pixels.shape, r, c)
        if levels != drawn["levels"]:
            self.colored.setLevels(levels)
            drawn["levels"] = levels
        self._place(r, c, hidden=not all_finite)
        labels = (list(rows[:r]), list(cols[:c]))
        ticks_changed = labels != self.labels
        self.labels = labels
        selection = None if selected_row is None else (selected_row, c)
        if selection != drawn.get("selection"):
            if selection is not None:
                self.selection.setRect(QRectF(0, selected_row, c, 1))
            self.selection.setVisible(selection is not None)
            drawn["selection"] = selection
        if not all_finite:  # −∞: a hidden cell, not an overflow
            caption = with_overflow_note(caption, matrix[~np.isneginf(matrix)], opts)
        if caption and caption != drawn["caption"]:
            set_caption(self.plot, caption, opts)
            drawn["caption"] = caption
        self._numbers(matrix, cell_text, levels, opts)
        if ticks_changed:
            self.plot.getAxis("left").set_categories(labels[0], 0.5)
            self.plot.getAxis("top").set_categories(labels[1], 0.5)
        self.fit()

    def _single(self, single: bool) -> None:
        """A 1×1 quantity (the loss L) is a number, not a heatmap: a full panel of one colour and a colour bar
        whose ends are that number tell nothing. Its cell is left unpainted, its number in the text's ink."""
        if single != self._drawn.get("single"):
            self.image.setVisible(not single)
            if self.bar is not None:
                self.bar.setVisible(not single)
            self._drawn["single"] = single

    def _place(self, r: int, c: int, hidden: bool) -> None:
        """The plot's range and the backdrop for r × c cells; the hatched backdrop only under hidden cells
        (filling the plot with hatching costs 2 ms a paint)."""
        if (r, c) != self.shape:
            self.shape = (r, c)
            for item in self.backdrop:
                item.setRect(QRectF(0, 0, c, r))
            self.plot.setRange(xRange=(0, c), yRange=(0, r), padding=0)
        if hidden != self._drawn.get("hidden"):
            for item in self.backdrop:
                item.setVisible(hidden)
            self._drawn["hidden"] = hidden

    def fit(self, *_) -> None:
        """Cell numbers where they fit their cells with a margin from each side, in a smaller font if need be
        (on every resize); else none."""
        rows, cols = self.labels
        width, height = slot(self.plot, len(cols)), slot(self.plot, len(rows), vertical=True)
        fitting = [
            k
            for k, widest in enumerate(self._widest_numbers())
            if self.cells and widest + 2 * NUMBER_MARGIN <= width and self.number_heights[k] <= height
        ]
        if fitting:
            self.numbers.set_font(self.number_fonts[fitting[0]])
            self.numbers.set_cells(self.cells, QRectF(0, 0, len(cols), len(rows)))
        self.numbers.setVisible(bool(fitting))

    def _widest_numbers(self) -> list[int]:
        """The width of the widest cell number in each of the number fonts (each text measured once: an edit
        writes a column of new numbers), kept until the numbers' texts change."""
        texts = [text for _, _, text, _ in self.cells]
        if self._widest[0] == texts:
            return self._widest[1]
        widest = []
        for f, widths in zip(self.number_fonts, self._widths):
            if len(widths) > 4096:  # many numbers seen (a long lesson): measure afresh
                widths.clear()
            for text in texts:
                if text not in widths:
                    widths[text] = text_width(f, [text])
            widest.append(max((widths[text] for text in texts), default=0))
        self._widest = (texts, widest)
        return widest

    def _numbers(self, matrix, cell_text, levels, opts) -> None:
        """What each cell's number says (shown by fit, when the numbers fit)."""
        r, c = matrix.shape
        self.cells = []
        if r * c > MAX_NUMBERS or c > MAX_NUMBER_COLS:
            return
        inks = [foreground(opts)] if self._drawn["single"] else self._inks(matrix.ravel(), *levels)
        texts = cell_text or self._texts(matrix, opts.decimals)
        places = self._places(r, c)
        self.cells = [(x, y, text, ink) for (x, y), text, ink in zip(places, texts, inks)]

    def _places(self, r: int, c: int) -> list[tuple[float, float]]:
        """Each cell's centre, row by row (kept for the shape)."""
        if self._centres[0] != (r, c):
            self._centres = ((r, c), [(j + 0.5, i + 0.5) for i in range(r) for j in range(c)])
        return self._centres[1]

    def _inks(self, values: np.ndarray, lo: float, hi: float) -> list[QColor]:
        """Black or white for each value, whichever reads better on the colour its cell is painted in (the image's
        own lookup, as CellImage.render picks it); white on −∞ cells."""
        lut = self.image.lut
        if not isinstance(lut, np.ndarray):  # (not set yet)
            return [WHITE if not np.isfinite(v) else BLACK for v in values.tolist()]
        if self._dark[0] is not lut:
            self._dark = (lut, is_dark(lut[:, :3]))
        shade = self._dark[1][lut_entries(values, lo, hi, len(lut))] | ~np.isfinite(values)
        return [WHITE if d else BLACK for d in shade.tolist()]

    def _texts(self, matrix: np.ndarray, decimals: int) -> list[str]:
        """Each cell's number written out, row by row; only the numbers that moved since the last set() are
        written anew (an edit moves a column or two)."""
        last_decimals, last, texts = self._formatted
        values = matrix.ravel()
        if last_decimals != decimals or last is None or last.shape != values.shape:
            texts = [format_cell(v, decimals) for v in values.tolist()]
        else:
            texts = list(texts)
            for k in np.flatnonzero(~((values == last) | (np.isnan(values) & np.isnan(last)))).tolist():
                texts[k] = format_cell(values[k], decimals)
        self._formatted = (decimals, values.copy(), texts)
        return texts
