"""One tensor of the trace as a table: heat-coloured cells, token labels, in-place editing, change marks,
and the provenance highlight (which input cells an output cell came from).

The table shows a 2-D slice of a tensor (gui/views/tensor_slice.py) through its model (gui/views/matrix_model.py).
The table paints its cells itself straight from the model's numbers (no delegate), so a refresh after an edit is
one cellsChanged signal, not a model reset.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QPoint, QPointF, QRect, QSize, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QFontMetricsF,
    QGuiApplication,
    QPainter,
    QPalette,
    QPen,
    QPolygonF,
    QStaticText,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QMenu,
    QStyle,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from gui.state.app_state import AppState
from gui.views.matrix_model import Content, MatrixModel
from gui.views.tensor_slice import TensorSlice


def cell_font_scale(presenting: bool) -> float:
    """Larger numbers on a large screen and in presentation mode (the tables come first there); at the desk on a
    small screen (1280×720) every column of a lesson must fit."""
    screen = QGuiApplication.primaryScreen()
    large = screen is not None and screen.availableGeometry().width() >= 1500
    return 1.2 if large or presenting else 1.0


HIGHLIGHT = QColor(255, 200, 0, 120)
HIGHLIGHT_EDGE = QColor("#b35900")
CHANGED = QBrush(QColor("#e66100"))
NO_PEN, NO_BRUSH = QPen(Qt.NoPen), QBrush(Qt.NoBrush)  # made once: PySide converts Qt.NoPen to a pen at each call
HIGHLIGHT_PEN = QPen(HIGHLIGHT_EDGE, 2)
SELECTED_PEN = QPen(Qt.black, 2, Qt.DotLine)


class CellTexts:
    """Each number's text laid out once (QStaticText) in the table's font, and drawn where QPainter.drawText would
    draw it right-aligned and centred in the cell: laying a text out is a third of a cell's paint."""

    def __init__(self):
        self.font: QFont | None = None  # the font the texts are laid out in (None: none yet)
        self.height, self.texts = 0.0, {}

    def use(self, font: QFont) -> None:
        """The font of the paint about to start (a new font lays every text out anew)."""
        if self.font is None or font != self.font or len(self.texts) > 20000:
            self.font, self.height, self.texts = QFont(font), QFontMetricsF(font).height(), {}

    def draw(self, painter: QPainter, right: int, top: int, height: int, text: str) -> None:
        """`text` right-aligned against `right`, 5 px in, and centred in the `height` below `top`."""
        laid = self.texts.get(text)
        if laid is None:
            static = QStaticText(text)
            static.setTextFormat(Qt.PlainText)
            static.prepare(painter.transform(), self.font)
            laid = self.texts[text] = (static, static.size().width() + 5)
        static, left = laid
        painter.drawStaticText(QPointF(right - left, top + (height - self.height) / 2), static)


def paint_cells(
    painter: QPainter, model: MatrixModel, cells, size: QSize, offset: QPoint, selected: set, texts
) -> None:
    """The cells (row, column) from the model's numbers: heat colour, number, selection, change mark, provenance
    highlight; every cell `size` apart (its grid line included), scrolled by `offset`. One loop with what every cell
    shares looked up once: a cell costs a few calls into Qt (an edit paints a few dozen)."""
    look, highlighted = model.looks(), model.highlight is not None
    marked = set() if model.changed is None else set(zip(*(index.tolist() for index in model.changed.nonzero())))
    w, h, dx, dy = size.width(), size.height(), offset.x(), offset.y()
    side = min(w - 1, h - 1) / 3  # the change mark: a triangle in the cell's top right corner
    mark = QPolygonF([QPointF(w - 1 - side, 0), QPointF(w - 1, 0), QPointF(w - 1, side)])
    ink_now = None
    for r, c in cells:
        x, y = c * w - dx, r * h - dy
        fill, ink, text = look(r, c)
        painter.fillRect(x, y, w - 1, h - 1, fill)
        if highlighted and model.is_highlighted(r, c):
            painter.fillRect(x, y, w - 1, h - 1, HIGHLIGHT)
            outline(painter, QRect(x, y, w - 1, h - 1), HIGHLIGHT_PEN)
            ink_now = None
        if (r, c) in selected:
            outline(painter, QRect(x, y, w - 1, h - 1), SELECTED_PEN)
            ink_now = None
        if ink is not ink_now:
            painter.setPen(ink)
            ink_now = ink
        texts.draw(painter, x + w - 1, y, h - 1, text)
        if (r, c) in marked:
            painter.setPen(NO_PEN)
            painter.setBrush(CHANGED)
            painter.drawPolygon(mark.translated(x, y))
            painter.setBrush(NO_BRUSH)
            ink_now = None


def outline(painter: QPainter, rect: QRect, pen: QPen) -> None:
    """A frame just inside a cell (the selected cell's, the provenance highlight's), not filled."""
    painter.setPen(pen)
    painter.setBrush(NO_BRUSH)
    painter.drawRect(rect.adjusted(1, 1, -1, -1))


class SectionHeader(QHeaderView):
    """A table's row or column labels, all sections the default size and the depth fixed by the table (set_scale,
    apply_sizes). Its size hint follows from those: QHeaderView's own asks the model for four roles of each of up
    to 200 labels at every layout of the table, some 1,600–4,000 calls into Python per stage shown."""

    def sizeHint(self) -> QSize:
        horizontal = self.orientation() == Qt.Horizontal
        depth, least = (
            (self.maximumHeight(), self.minimumHeight()) if horizontal else (self.maximumWidth(), self.minimumWidth())
        )
        if depth != least:  # not fixed yet
            return super().sizeHint()
        return QSize(self.length(), depth) if horizontal else QSize(depth, self.length())


class TableViewport(QWidget):
    """A table's viewport that says when the mouse leaves it: an event filter for that, written in Python, was
    called for every event of the viewport, each paint too."""

    left = Signal()

    def __init__(self):
        super().__init__()
        self.setBackgroundRole(QPalette.ColorRole.Base)  # as QAbstractItemView sets up its own viewport
        self.setAutoFillBackground(True)

    def leaveEvent(self, event) -> None:
        super().leaveEvent(event)
        self.left.emit()


class MatrixTable(QTableView):
    """The table: fixed cell sizes from the font, scrolls when large, reports hover and clicks."""

    hovered = Signal(object)  # full tensor index under the mouse, or None
    rowClicked = Signal(int)

    def __init__(self, model: MatrixModel, parent=None):
        super().__init__(parent)
        viewport = TableViewport()
        self.setViewport(viewport)
        viewport.left.connect(lambda: self.hovered.emit(None))
        self.settings = model.state.display
        self.base_font = QFont(self.font())
        self.base_font.setPointSizeF(self.base_font.pointSizeF() * cell_font_scale(self.settings.presenting))
        self.setFont(self.base_font)  # for the back of a room
        for orientation, set_header in (
            (Qt.Horizontal, self.setHorizontalHeader),
            (Qt.Vertical, self.setVerticalHeader),
        ):
            header = SectionHeader(orientation, self)
            header.setSectionsClickable(True)  # as QTableView's own
            set_header(header)
        self.setModel(model)
        self.texts = CellTexts()
        self.setMouseTracking(True)
        self.setShowGrid(True)
        self.setSelectionMode(QAbstractItemView.SingleSelection)
        self.setVerticalScrollMode(QAbstractItemView.ScrollPerPixel)
        self.setHorizontalScrollMode(QAbstractItemView.ScrollPerPixel)
        self.setEditTriggers(
            QAbstractItemView.DoubleClicked | QAbstractItemView.EditKeyPressed | QAbstractItemView.AnyKeyPressed
        )
        for header in (self.horizontalHeader(), self.verticalHeader()):
            header.setSectionResizeMode(QHeaderView.Fixed)
            header.setHighlightSections(False)
        self.horizontalHeader().setFixedHeight(QFontMetrics(self.horizontalHeader().font()).height() + 8)
        self.header_height = self.horizontalHeader().height()
        self.grid_pen = self._grid_pen()
        model.cellsChanged.connect(self.repaint_cells)
        self.entered.connect(self._entered)
        self.clicked.connect(lambda index: self.rowClicked.emit(index.row()))

    def matrix(self) -> MatrixModel:
        return self.model()

    def paintEvent(self, event) -> None:
        """The cells in the region to repaint, then their grid lines, in one pass: QTableView asks a delegate for
        each cell, ~40 µs of Qt's and PySide's own work a cell (8 ms of a large lesson's edit); here ~10.
        Every section has the default size (apply_sizes), so a cell's place is its row and column times it.
        Each rectangle of the region is painted on its own: an edit repaints the cells it changed and those whose
        change marks go, often far apart, and their bounding rectangle held up to three times as many cells."""
        model = self.matrix()
        rows, cols = model.shown.shape
        if not rows or not cols:
            return
        w, h = self.horizontalHeader().defaultSectionSize(), self.verticalHeader().defaultSectionSize()
        dx, dy = self.horizontalOffset(), self.verticalOffset()
        blocks, cells = [], set()  # each rectangle's rows and columns; the cells in any of them, each painted once
        for area in event.region():
            c0, c1 = max(0, (area.left() + dx) // w), min(cols - 1, (area.right() + dx) // w)
            r0, r1 = max(0, (area.top() + dy) // h), min(rows - 1, (area.bottom() + dy) // h)
            if c0 <= c1 and r0 <= r1:
                blocks.append((r0, r1, c0, c1))
                cells.update((r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1))
        if not cells:
            return
        selected = {(i.row(), i.column()) for i in self.selectionModel().selectedIndexes()}
        painter = QPainter(self.viewport())
        self.texts.use(painter.font())
        paint_cells(painter, model, cells, QSize(w, h), QPoint(dx, dy), selected, self.texts)
        painter.setPen(self.grid_pen)
        for r0, r1, c0, c1 in blocks:
            left, right = c0 * w - dx, (c1 + 1) * w - dx - 1
            top, bottom = r0 * h - dy, (r1 + 1) * h - dy - 1
            for c in range(c0, c1 + 1):
                x = (c + 1) * w - dx - 1
                painter.drawLine(x, top, x, bottom)
            for r in range(r0, r1 + 1):
                y = (r + 1) * h - dy - 1
                painter.drawLine(left, y, right, y)
        painter.end()

    def repaint_cells(self, boxes) -> None:
        """Repaint the cells of each box (top, bottom, left, right), as paintEvent places them."""
        w, h = self.horizontalHeader().defaultSectionSize(), self.verticalHeader().defaultSectionSize()
        dx, dy = self.horizontalOffset(), self.verticalOffset()
        viewport = self.viewport()
        for top, bottom, left, right in boxes:
            viewport.update(left * w - dx, top * h - dy, (right - left + 1) * w, (bottom - top + 1) * h)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.PaletteChange):
            self.grid_pen = self._grid_pen()

    def _grid_pen(self) -> QPen:
        """The grid's colour as QTableView draws it (the style's), asked once per style and palette."""
        option = QStyleOptionViewItem()
        self.initViewItemOption(option)
        color = QColor.fromRgba(self.style().styleHint(QStyle.SH_Table_GridLineColor, option, self) & 0xFFFFFFFF)
        return QPen(color, 0, self.gridStyle())

    def scaled_font(self, scale: float) -> QFont:
        font = QFont(self.base_font)
        font.setPointSizeF(self.base_font.pointSizeF() * scale)
        return font

    def set_scale(self, scale: float) -> None:
        """Numbers `scale` times their readable size (the stage view makes them a little smaller where a
        stage's matrices would not fit its room otherwise; gui/views/matrix_layout.py)."""
        font = self.scaled_font(scale)
        if font == self.font():
            return
        self.setFont(font)
        for header in (self.horizontalHeader(), self.verticalHeader()):
            header.setFont(font)
        self.horizontalHeader().setFixedHeight(QFontMetrics(font).height() + 8)
        self.header_height = self.horizontalHeader().height()

    def context_menu(self) -> QMenu:
        """Right-click: this table's matrix as LaTeX or CSV."""
        from gui.views.export_dialogs import export_matrix_dialog

        menu = QMenu(self)
        part = self.matrix().slice
        if part is not None:
            menu.addAction(
                self.tr("Export matrix…"), lambda: export_matrix_dialog(self, self.matrix().state, part.name)
            )
        return menu

    def contextMenuEvent(self, event) -> None:
        self.context_menu().exec(event.globalPos())

    def natural_sizes(self, font: QFont | None = None) -> tuple[int, int]:
        """Column width from the widest number and label, and the row-label width (sampled: huge vocabularies
        stay fast); in the table's font, or in `font`."""
        fm = QFontMetrics(font or self.font())
        model = self.matrix()
        widest = max([fm.horizontalAdvance(s) for s in [*model.number_shapes(), *model.col_labels[:500]]], default=0)
        most = self.settings.type_scale  # the widest column and row labels grow with the type
        column = min(max(widest, fm.horizontalAdvance("−0.00")) + 10, round(160 * most))
        row_header = max((fm.horizontalAdvance(s) for s in model.row_labels[:500]), default=0) + 14
        return column, min(max(row_header, 28), round(180 * most))

    def apply_sizes(self, column: int, row_header: int) -> None:
        """Set column and row-label widths (the stage view gives stacked matrices the same, so columns line up)."""
        self.horizontalHeader().setDefaultSectionSize(column)
        self.verticalHeader().setDefaultSectionSize(QFontMetrics(self.font()).height() + 8)
        self.verticalHeader().setFixedWidth(row_header)
        self._limit_size()

    def _limit_size(self) -> None:
        """No empty space inside a small table, but room for a horizontal scroll bar under the last row and a
        vertical one beside the last column, while they are shown."""
        self.setMaximumSize(self._largest())
        self.updateGeometry()

    def _largest(self) -> QSize:
        """The table's content and the scroll bars it shows at the size it has now: the one size of the table that
        follows its own geometry (it only takes back the room of a bar not shown; the hints never do, _bars_room)."""
        size = self.content_size()
        return QSize(size.width() + self._side_bar_room(), size.height() + self._scroll_bar_room())

    def _scroll_bar_room(self) -> int:
        """The horizontal scroll bar's height when not every column fits (it would cover the last row)."""
        return self.horizontalScrollBar().sizeHint().height() if self.width() < self.content_size().width() else 0

    def _side_bar_room(self) -> int:
        """The vertical scroll bar's width when not every row fits (it covered the last column: a W2 [32×8] in
        presentation mode showed −0.02 as "−0.0")."""
        rows_shown = self.height() - self._scroll_bar_room()
        return self.verticalScrollBar().sizeHint().width() if rows_shown < self.content_size().height() else 0

    def event(self, event) -> bool:
        """The table's own resize (resizeEvent is the viewport's): where the viewport keeps its size, the scroll
        bars are measured again here. A table squeezed below its rows for a moment (a layout before its area grew)
        shows the vertical bar, which narrows its columns, so the horizontal one comes too; given its whole size
        back just as that bar appears, its viewport was as large as before, QTableView measured nothing, and both
        bars stayed over a table that fits, its last row under the horizontal one (cross-attention in Chinese at
        1280×720 beside the map)."""
        if event.type() != QEvent.Type.Resize:
            return super().event(event)
        viewport = self.viewport().size()
        handled = super().event(event)
        if self.viewport().size() == viewport:
            self.updateGeometries()  # the bars' ranges; which bars show follows (queued), resizing the viewport
            self._follow_size()
        return handled

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)  # (the viewport's: QTableView measures its bars)
        self._follow_size()

    def _follow_size(self) -> None:
        """The maximum (_largest) for the size the table has now."""
        if self.maximumSize() != self._largest():
            self._limit_size()

    def content_size(self) -> QSize:
        header, line = self.header_height, self.verticalHeader().defaultSectionSize()
        return self._content(self.verticalHeader().width(), self.horizontalHeader().defaultSectionSize(), header, line)

    def _content(self, row_header: int, column: int, header: int, line: int) -> QSize:
        """The whole table: row labels and columns, column labels and rows, and the frame."""
        rows, cols = self.matrix().shown.shape
        frame = 2 * self.frameWidth()
        return QSize(row_header + cols * column + frame, header + rows * line + frame)

    def _corners(self) -> tuple[QSize, QSize]:
        """The least part of a large table that stays in sight (minimumSizeHint) and the most it asks for
        (sizeHint), both as large as the type: larger text, larger corner (a table is never cut to a cell or two)."""
        s = self.settings.type_scale
        return QSize(round(560 * s), round(300 * s)), QSize(round(900 * s), round(600 * s))

    def _bars_room(self, content: QSize) -> QSize:
        """Room for the scroll bars a table of `content` size can come to show: beside its columns for the vertical
        bar when it can be given fewer rows than it has (it is taller than its least corner), under its rows for the
        horizontal bar when it can be given fewer columns. Decided from the content, never from the size the table
        was given: a hint that added a bar's room while the table was narrower than its columns, or shorter than its
        rows, asked for both bars at its least width and for neither once given them, and the matrices' scroll area
        resized it between the two forever (issue 44: a stack overflow when it happened inside a show). Its
        maximum (_largest) takes back what a bar not shown does not need."""
        least, _ = self._corners()
        down, across = content.height() > least.height(), content.width() > least.width()
        return QSize(
            self.verticalScrollBar().sizeHint().width() if down else 0,
            self.horizontalScrollBar().sizeHint().height() if across else 0,
        )

    def _hint(self, content: QSize) -> QSize:
        """A table of `content` size as large as the type allows, with room for the scroll bars it can show."""
        return content.boundedTo(self._corners()[1]) + self._bars_room(content)

    def sizeHint(self) -> QSize:
        return self._hint(self.content_size())

    def hint_at(self, font: QFont, column: int, row_header: int) -> QSize:
        """The size hint the table would have in `font` with these section widths (apply_sizes): the stage view
        measures its arrangements with it without moving a widget (gui/views/matrix_layout.py)."""
        line = QFontMetrics(font).height() + 8  # a row, and the column labels (set_scale)
        return self._hint(self._content(row_header, column, line, line))

    def whole_at(self, font: QFont) -> bool:
        """Whether the table in `font` (at its natural_sizes there) shows every number and label whole without a
        scroll bar: no section at natural_sizes' limit, the content within the largest corner (_corners). The stage
        view makes a table larger only then (gui/views/matrix_layout.py)."""
        column, row_header = self.natural_sizes(font)
        most = self.settings.type_scale
        line = QFontMetrics(font).height() + 8
        content, largest = self._content(row_header, column, line, line), self._corners()[1]
        within = content.width() <= largest.width() and content.height() <= largest.height()
        return within and column < round(160 * most) and row_header < round(180 * most)

    def minimumSizeHint(self) -> QSize:
        """Small matrices never scroll (the stage view scrolls instead); large ones keep a readable corner
        (_corners), with room for the scroll bars they then show."""
        content = self.content_size()
        return content.boundedTo(self._corners()[0]) + self._bars_room(content)

    def _entered(self, index: QModelIndex) -> None:
        part = self.matrix().slice
        self.hovered.emit(part.full_index(index.row(), index.column()) if part else None)


class MatrixPanel(QWidget):
    """A caption ("W_Q  enc.0.attn.W_Q [4×2] · editable") above a matrix table."""

    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self.model = MatrixModel(state)
        self.table = MatrixTable(self.model, self)
        self.model.setParent(self.table)  # deleted with the table, after it: a table never paints without its model
        self.caption = QLabel(self)
        self.caption.setTextFormat(Qt.RichText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.caption)
        layout.addWidget(self.table)
        layout.addStretch(1)

    def hint_at(self, font: QFont, column: int, row_header: int) -> QSize:
        """The panel's size hint with its table in `font` and these section widths (MatrixTable.hint_at): the
        caption over the table."""
        table, caption = self.table.hint_at(font, column, row_header), self.caption.sizeHint()
        return QSize(max(table.width(), caption.width()), caption.height() + self.layout().spacing() + table.height())

    def show_tensor(
        self,
        part: TensorSlice | None,
        symbol: str,
        editable: bool,
        note: str = "",
        output: bool = False,
        content: Content | None = None,
    ) -> None:
        """One caption line: the symbol, the shape shown, which head, editable; the full name in its tooltip.
        `content`: the table's `model.content(part)`, when computed already."""
        self.model.show(part, editable, content)
        if part is None:
            self.caption.clear()  # (a panel the stage does not use holds nothing)
            self.caption.setToolTip("")
            self.hide()
            return
        rows, cols = self.model.shown.shape
        full = "×".join(map(str, self.model.state.view[part.name].shape))
        caption = f"<b>{symbol}</b>&nbsp;&nbsp;[{rows}×{cols}]<span style='color:#555'>{note}</span>"
        if output:
            caption = "<span style='color:#b35900'><b>" + self.tr("Output") + "</b></span>&nbsp;&nbsp;" + caption
        if editable:
            caption += "&nbsp;&nbsp;<span style='color:#1a6e1a'>✎ " + self.tr("editable") + "</span>"
        self.caption.setText(caption)
        tip = f"{part.name} [{full}]"
        if editable:
            tip += "\n" + self.tr("Double-click a cell (or select it and type) to change it")
        self.caption.setToolTip(tip)
        self.show()
