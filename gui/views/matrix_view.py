"""One tensor of the trace as a table: heat-coloured cells, token labels, in-place editing, change marks,
and the provenance highlight (which input cells an output cell came from).

The model shows a 2-D *slice* of a tensor (a TensorSlice): one head of a per-head tensor [h, n, d_k], a head's
columns of W_Q, or a bias [d] shown as one row. Numbers and colours follow the display settings (decimals, colour
map). Cells are painted by one delegate straight from the tensor, so a
refresh after an edit is one dataChanged signal, not a model reset.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from PySide6.QtCore import QAbstractTableModel, QEvent, QModelIndex, QPointF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QGuiApplication, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QMenu,
    QStyle,
    QStyledItemDelegate,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from engine.training.backward import forward_of
from gui.plots.predicts import row_labels
from gui.plots.scale import COLOR_STEPS, Scale, color_table, dark_table, scale_for, scale_of, shared_scale_names
from gui.plots.style import HIDDEN_COLOR, PLAIN_COLOR
from gui.state.app_state import AppState
from gui.text.operations import operation, token_stack
from gui.views.head_colors import header_tint

ALL = slice(None)


def cell_font_scale(presenting: bool) -> float:
    """Larger numbers on a large screen and in presentation mode (the tables come first there); at the desk on a
    small screen (1280×720) every column of a lesson must fit."""
    screen = QGuiApplication.primaryScreen()
    large = screen is not None and screen.availableGeometry().width() >= 1500
    return 1.2 if large or presenting else 1.0


@dataclass(frozen=True)
class TensorSlice:
    """Which 2-D part of a tensor a table shows."""

    name: str
    dim: int  # the tensor's number of dimensions (1, 2 or 3)
    head: int | None = None  # for [h, n, d_k] tensors: the head shown
    col_start: int = 0  # a head's columns of W_Q / b_Q …: [col_start, col_stop)
    col_stop: int | None = None

    def full_index(self, r: int, c: int) -> tuple[int, ...]:
        c += self.col_start
        return {1: (c,), 2: (r, c), 3: (self.head, r, c)}[self.dim]

    def slice2d(self, t: torch.Tensor) -> torch.Tensor:
        if self.dim == 3:
            t = t[self.head]
        elif self.dim == 1:
            t = t[None, :]
        return t[:, self.col_start : self.col_stop]

    def locate(self, selector: tuple) -> tuple[int | slice, int | slice] | None:
        """A provenance selector over the full tensor → (rows, columns) of this slice; None if not shown."""
        sel = tuple(selector)
        if self.dim == 3:
            if isinstance(sel[0], int) and sel[0] != self.head:
                return None
            sel = sel[1:]
        elif self.dim == 1:
            sel = (ALL,) + sel
        rows, cols = sel
        if isinstance(cols, int):
            stop = self.col_stop if self.col_stop is not None else math.inf
            if not self.col_start <= cols < stop:
                return None
            cols -= self.col_start
        elif self.col_start and cols != ALL:
            shift = self.col_start
            cols = slice(None if cols.start is None else cols.start - shift,
                         None if cols.stop is None else cols.stop - shift)
        return rows, cols


def _hits(sel: int | slice, i: int) -> bool:
    if isinstance(sel, int):
        return sel == i
    return (sel.start is None or i >= sel.start) and (sel.stop is None or i < sel.stop)


def axis_labels(trace, part: TensorSlice) -> tuple[list[str], list[str]]:
    """Row and column labels: tokens where rows or columns are tokens, else feature numbers."""
    name, tokens = part.name, trace.tokens
    n_rows, n_cols = part.slice2d(trace[name]).shape
    features = [str(part.col_start + c) for c in range(n_cols)]
    stage = trace.stage(name)
    if token_stack(trace, name) is not None:
        return ["id"], list(tokens[token_stack(trace, name)])
    if stage is not None:
        rows = list(tokens[stage.rows]) if stage.rows in tokens else [str(r) for r in range(n_rows)]
        rows = row_labels(trace, name, rows)  # cross-attention: "<start> → 我"
        if stage.cols == "vocab":
            cols = list(trace.model.vocabs["dec"].tokens)
        elif stage.cols in tokens:
            cols = list(tokens[stage.cols])
        else:  # one column named by the stage's letter (μ, σ², ℓ, L), or feature numbers
            entry = operation(stage.op)
            cols = [entry.letter] if entry.columns == "letter" else features
        return rows, cols
    name = forward_of(name)  # a parameter's gradient is labelled as the parameter
    leaf = name.rsplit(".", 1)[1]
    vocab_cols = list(trace.model.vocabs["dec"].tokens) if leaf in ("W_U", "b_U") else features
    if part.dim == 1:
        return [leaf], vocab_cols
    if leaf == "W_E":  # an embedding table's rows are the words of the stack whose embed stage reads it
        stack = next(st.place.stack for st in trace.stages if name in st.inputs)
        return list(trace.model.vocabs[stack].tokens), features
    return [str(r) for r in range(n_rows)], vocab_cols


INK = (QColor("black"), QColor("white"))  # a number's colour on a light or a dark cell
# Qt's roles, looked up once: reading Qt.BackgroundRole takes ~9 µs in PySide6, and headers and cells ask for
# their data many times per layout and paint
SHOW_ROLE, EDIT_ROLE, TIP_ROLE, COLOR_ROLE = (Qt.DisplayRole, Qt.EditRole, Qt.ToolTipRole, Qt.BackgroundRole)
HORIZONTAL = Qt.Horizontal
HIGHLIGHT = QColor(255, 200, 0, 120)
HIGHLIGHT_EDGE = QColor("#b35900")
CHANGED = QColor("#e66100")
HIGHLIGHT_PEN = QPen(HIGHLIGHT_EDGE, 2)
SELECTED_PEN = QPen(Qt.black, 2, Qt.DotLine)
SELECTED = QStyle.State_Selected
NUMBER_ALIGN = Qt.AlignRight | Qt.AlignVCenter


@dataclass(frozen=True)
class Numbers:
    """The numbers a table paints: values (or changes), the cells the last edit changed, the colour scale."""

    shown: torch.Tensor
    changed: torch.Tensor | None  # bool mask, None when no shown cell changed
    scale: Scale  # the plots' colour scale for the same numbers (gui/plots/scale.py)

    @classmethod
    def nothing(cls) -> Numbers:
        return cls(torch.zeros(0, 0), None, Scale(False, 0.0, 1.0))


@dataclass(frozen=True)
class Content:
    """What a table shows of one slice: its labels and numbers."""

    slice: TensorSlice | None
    row_labels: list[str]
    col_labels: list[str]
    numbers: Numbers


class MatrixModel(QAbstractTableModel):
    """A slice of one tensor of the app state's trace."""

    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self.state = state
        self.slice: TensorSlice | None = None
        self.editable = False
        self.show_difference = False
        self.shown = torch.zeros(0, 0)  # the numbers painted: values, or the change from before the last edit
        self.changed: torch.Tensor | None = None  # bool mask of cells the last edit changed
        self._values = self.shown.numpy()  # numpy views of the two: a cell reads ~10× faster than from torch
        self._changed = None
        self._changed_box: tuple[int, int, int, int] | None = None  # rows and columns the change marks span
        self._flags = Qt.ItemIsEnabled | Qt.ItemIsSelectable
        self.scale = Scale(False, 0.0, 1.0)
        self.highlight: tuple[int | slice, int | slice] | None = None
        self.row_labels: list[str] = []
        self.col_labels: list[str] = []

    # ---- what is shown ---------------------------------------------------------------------
    def content(self, part: TensorSlice | None) -> Content:
        """Everything the table would show for `part`, computed without changing what it shows now (so a
        failure leaves the table as it was)."""
        if part is None:
            return Content(None, [], [], Numbers.nothing())
        row_labels, col_labels = axis_labels(self.state.view, part)
        return Content(part, row_labels, col_labels, self._numbers(part))

    def show(self, part: TensorSlice | None, editable: bool, content: Content | None = None) -> None:
        """Show another tensor (or nothing): a model reset. `content` is `self.content(part)` when the caller
        computed it already; it is computed first, then swapped in whole."""
        content = self.content(part) if content is None else content
        self.beginResetModel()
        self.slice, self.editable, self.highlight = part, editable, None
        self.row_labels, self.col_labels = content.row_labels, content.col_labels
        self._take(content.numbers)
        self._set_flags()
        self.endResetModel()

    def refresh(self, names: list[str] | None = None) -> None:
        """After an edit (`names`: what it recomputed): repaint only the cells whose numbers or change marks
        moved — all of them when the colour scale moved too, or when `names` is None."""
        if self.slice is None:
            return
        old_box, old_scale = self._changed_box, self.scale
        self._take(self._numbers(self.slice))
        rows, cols = self.shown.shape
        if not rows or not cols:
            return
        name = self.slice.name
        unknown = names is None or (name in names and name not in self.state.previous)  # no "before" to compare
        if self.scale != old_scale or self.show_difference or unknown:
            self._repaint((0, rows - 1, 0, cols - 1))
            return
        for box in {old_box, self._changed_box} - {None}:
            self._repaint(box)

    def _repaint(self, box: tuple[int, int, int, int]) -> None:
        top, bottom, left, right = box
        self.dataChanged.emit(self.index(top, left), self.index(bottom, right), [Qt.DisplayRole])

    def set_show_difference(self, on: bool) -> None:
        self.show_difference = on
        self._set_flags()
        self.refresh()

    def _set_flags(self) -> None:
        self._flags = Qt.ItemIsEnabled | Qt.ItemIsSelectable
        if self.editable and not self.show_difference:
            self._flags |= Qt.ItemIsEditable

    def set_highlight(self, selector: tuple | None) -> None:
        """Mark the cells a provenance selector names (None: no mark)."""
        shown = None if selector is None or self.slice is None else self.slice.locate(selector)
        if shown != self.highlight:
            self.highlight = shown
            rows, cols = self.shown.shape
            if rows and cols:
                self.dataChanged.emit(self.index(0, 0), self.index(rows - 1, cols - 1), [Qt.BackgroundRole])

    def _numbers(self, part: TensorSlice) -> Numbers:
        state = self.state
        values = part.slice2d(state.view[part.name])
        changed = state.changed(part.name)
        changed = part.slice2d(changed) if changed is not None else None  # this slice's part of the change
        difference = state.difference(part.name) if self.show_difference else None
        if difference is not None:
            shown = part.slice2d(difference)
            scale = scale_of(shown.numpy(), signed=True)  # a change is signed: diverging, centred on 0
        else:
            shown = torch.zeros_like(values, dtype=torch.float32) if self.show_difference else values
            scale = self._scale(part, shown)
        return Numbers(shown, changed if changed is not None and changed.any() else None, scale)

    def _scale(self, part: TensorSlice, shown: torch.Tensor) -> Scale:
        """The colour scale the plot of the same numbers uses (gui/plots/scale.py): by the operation's kind, one
        scale for the parts and the sum of A + B = C; a parameter's numbers are signed."""
        view, current = self.state.view, self.state.current_stage
        group = shared_scale_names(view, current)
        if part.name in group:
            return scale_for(view.stage(current).op, *(view[name].numpy() for name in group))
        stage = view.stage(part.name)
        values = shown.double().numpy()
        return scale_of(values) if stage is None else scale_for(stage.op, values)

    def _take(self, numbers: Numbers) -> None:
        self.shown, self.changed, self.scale = numbers.shown, numbers.changed, numbers.scale
        self._values = self.shown.numpy()
        self._changed = None if self.changed is None else self.changed.numpy()
        self._changed_box = None
        if self.changed is not None:
            cells = self.changed.nonzero()
            (top, left), (bottom, right) = cells.min(0).values.tolist(), cells.max(0).values.tolist()
            self._changed_box = (top, bottom, left, right)

    # ---- reading cells ---------------------------------------------------------------------
    def rowCount(self, parent=None) -> int:
        return 0 if parent is not None and parent.isValid() else self.shown.shape[0]

    def columnCount(self, parent=None) -> int:
        return 0 if parent is not None and parent.isValid() else self.shown.shape[1]

    def value(self, r: int, c: int) -> float:
        return float(self._values[r, c])

    def text(self, r: int, c: int) -> str:
        v = self.value(r, c)
        return self.state.display.format_value(v, integer=not self.shown.is_floating_point())

    def color(self, r: int, c: int) -> QColor:
        """The cell's colour from the plots' own ColorMap and scale (one number, one colour on the screen)."""
        k = self._shade(r, c)
        if k is None:
            return HIDDEN_COLOR if self.shown.is_floating_point() else PLAIN_COLOR  # ids are labels, not amounts
        return color_table(self.state.display.colormap, self.scale.signed)[k]

    def ink(self, r: int, c: int) -> QColor:
        """Black on light cells, white on dark ones (as the plots write their numbers)."""
        k = self._shade(r, c)
        if k is None:
            return INK[self.shown.is_floating_point()]  # white on a hidden (−∞) cell, black on an id
        return INK[dark_table(self.state.display.colormap, self.scale.signed)[k]]

    def _shade(self, r: int, c: int) -> int | None:
        """The cell's entry in the colour table (None: not a finite number)."""
        v = self.value(r, c)
        if not math.isfinite(v) or not self.shown.is_floating_point():
            return None
        lo, hi = self.scale.lo, self.scale.hi
        at = (v - lo) / (hi - lo) if hi > lo else 0.5
        return min(COLOR_STEPS - 1, max(0, int(at * COLOR_STEPS)))

    def is_highlighted(self, r: int, c: int) -> bool:
        return self.highlight is not None and _hits(self.highlight[0], r) and _hits(self.highlight[1], c)

    def is_changed(self, r: int, c: int) -> bool:
        return self._changed is not None and bool(self._changed[r, c])

    def data(self, index: QModelIndex, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        r, c = index.row(), index.column()
        if role == SHOW_ROLE:
            return self.text(r, c)
        if role == EDIT_ROLE:
            return f"{float(self.state.view[self.slice.name][self.slice.full_index(r, c)]):.6g}"
        if role == TIP_ROLE:
            return self.tooltip(r, c)
        if role == COLOR_ROLE:
            return self.color(r, c)
        return None

    def tooltip(self, r: int, c: int) -> str:
        name = self.slice.name
        cell = ",".join(map(str, self.slice.full_index(r, c)))
        value = self.state.view[name][self.slice.full_index(r, c)]
        tip = f"{name}[{cell}] = {float(value):.6g}\n" + self.tr("row: {0}    column: {1}").format(
            self.row_labels[r], self.col_labels[c])
        if self.show_difference:
            tip += "\n" + self.tr("change from before the last edit: {0}").format(self.text(r, c))
        return tip

    def headerData(self, section: int, orientation, role=Qt.DisplayRole):
        if role == COLOR_ROLE and self.slice is not None:  # a head's features in the head's colour
            return header_tint(self.state.trace, self.slice, section, orientation == HORIZONTAL)
        if role != SHOW_ROLE and role != TIP_ROLE:
            return None
        labels = self.col_labels if orientation == HORIZONTAL else self.row_labels
        return labels[section] if section < len(labels) else None

    # ---- editing -----------------------------------------------------------------------------
    def flags(self, index: QModelIndex):
        return self._flags  # asked for every painted cell: computed once per tensor shown

    def setData(self, index: QModelIndex, value, role=Qt.EditRole) -> bool:
        """Send the typed value to the app state; a refused value leaves the cell as it was."""
        if role != Qt.EditRole or not index.isValid() or not self.editable:
            return False
        full = self.slice.full_index(index.row(), index.column())
        return self.state.edit_cell(self.slice.name, full, value)


class HeatDelegate(QStyledItemDelegate):
    """Paints a cell from the model's numbers: heat colour, number, change mark, provenance highlight."""

    def paint(self, painter: QPainter, option, index: QModelIndex) -> None:
        model: MatrixModel = index.model()
        r, c = index.row(), index.column()
        rect = option.rect
        painter.fillRect(rect, model.color(r, c))
        if model.highlight is not None and model.is_highlighted(r, c):
            painter.fillRect(rect, HIGHLIGHT)
            painter.setPen(HIGHLIGHT_PEN)
            painter.drawRect(rect.adjusted(1, 1, -1, -1))
        if option.state & SELECTED:
            painter.setPen(SELECTED_PEN)
            painter.drawRect(rect.adjusted(1, 1, -1, -1))
        painter.setPen(model.ink(r, c))
        painter.drawText(rect.adjusted(3, 0, -5, 0), NUMBER_ALIGN, model.text(r, c))
        if model.is_changed(r, c):
            s = min(rect.height(), rect.width()) / 3
            right, top = rect.right() + 1, rect.top()
            painter.setPen(Qt.NoPen)
            painter.setBrush(CHANGED)
            painter.drawPolygon(QPolygonF([QPointF(right - s, top), QPointF(right, top), QPointF(right, top + s)]))


class MatrixTable(QTableView):
    """The table: fixed cell sizes from the font, scrolls when large, reports hover and clicks."""

    hovered = Signal(object)  # full tensor index under the mouse, or None
    rowClicked = Signal(int)

    def __init__(self, model: MatrixModel, parent=None):
        super().__init__(parent)
        self.settings = model.state.display
        self.base_font = QFont(self.font())
        self.base_font.setPointSizeF(self.base_font.pointSizeF() * cell_font_scale(self.settings.presenting))
        self.setFont(self.base_font)  # for the back of a room
        self.setModel(model)
        self.setItemDelegate(HeatDelegate(self))
        self.setMouseTracking(True)
        self.setShowGrid(True)
        self.setSelectionMode(QAbstractItemView.SingleSelection)
        self.setVerticalScrollMode(QAbstractItemView.ScrollPerPixel)
        self.setHorizontalScrollMode(QAbstractItemView.ScrollPerPixel)
        self.setEditTriggers(
            QAbstractItemView.DoubleClicked | QAbstractItemView.EditKeyPressed | QAbstractItemView.AnyKeyPressed)
        for header in (self.horizontalHeader(), self.verticalHeader()):
            header.setSectionResizeMode(QHeaderView.Fixed)
            header.setHighlightSections(False)
        self.horizontalHeader().setFixedHeight(QFontMetrics(self.horizontalHeader().font()).height() + 8)
        self.header_height = self.horizontalHeader().height()
        self.entered.connect(self._entered)
        self.clicked.connect(lambda index: self.rowClicked.emit(index.row()))
        self.viewport().installEventFilter(self)
        model.modelReset.connect(self.fit_sections)

    def matrix(self) -> MatrixModel:
        return self.model()

    def set_scale(self, scale: float) -> None:
        """Numbers `scale` times their readable size (the stage view makes them a little smaller where a
        stage's matrices would not fit its room otherwise; gui/views/matrix_layout.py)."""
        font = QFont(self.base_font)
        font.setPointSizeF(self.base_font.pointSizeF() * scale)
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
            menu.addAction(self.tr("Export matrix…"),
                           lambda: export_matrix_dialog(self, self.matrix().state, part.name))
        return menu

    def contextMenuEvent(self, event) -> None:
        self.context_menu().exec(event.globalPos())

    def fit_sections(self) -> None:
        self.apply_sizes(*self.natural_sizes())

    def natural_sizes(self) -> tuple[int, int]:
        """Column width from the widest number and label, and the row-label width (sampled: huge vocabularies
        stay fast)."""
        fm = QFontMetrics(self.font())
        model = self.matrix()
        rows, cols = model.shown.shape
        sample = [model.text(r, c) for r in range(min(rows, 50)) for c in range(min(cols, 50))]
        widest = max([fm.horizontalAdvance(s) for s in sample + model.col_labels[:500]], default=0)
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
        """No empty space inside a small table, but room for a horizontal scroll bar under the last row."""
        size = self.content_size()
        self.setMaximumSize(size.width(), size.height() + self._scroll_bar_room())
        self.updateGeometry()

    def _scroll_bar_room(self) -> int:
        """The horizontal scroll bar's height when not every column fits (it would cover the last row)."""
        return self.horizontalScrollBar().sizeHint().height() if self.width() < self.content_size().width() else 0

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.maximumHeight() != self.content_size().height() + self._scroll_bar_room():
            self._limit_size()

    def content_size(self) -> QSize:
        model = self.matrix()
        rows, cols = model.shown.shape
        frame = 2 * self.frameWidth()
        w = self.verticalHeader().width() + cols * self.horizontalHeader().defaultSectionSize() + frame
        h = self.header_height + rows * self.verticalHeader().defaultSectionSize() + frame
        return QSize(w, h)

    def sizeHint(self) -> QSize:
        size, s = self.content_size(), self.settings.type_scale
        return QSize(min(size.width(), round(900 * s)), min(size.height(), round(600 * s)) + self._scroll_bar_room())

    def minimumSizeHint(self) -> QSize:
        """Small matrices never scroll (the stage view scrolls instead); large ones keep a readable corner, as
        large as the type (larger text, larger corner: a table is never cut to a cell or two)."""
        size, s = self.content_size(), self.settings.type_scale
        return QSize(min(size.width(), round(560 * s)), min(size.height(), round(300 * s)) + self._scroll_bar_room())

    def _entered(self, index: QModelIndex) -> None:
        part = self.matrix().slice
        self.hovered.emit(part.full_index(index.row(), index.column()) if part else None)

    def eventFilter(self, obj, event) -> bool:
        if obj is self.viewport() and event.type() == QEvent.Leave:
            self.hovered.emit(None)
        return super().eventFilter(obj, event)


class MatrixPanel(QWidget):
    """A caption ("W_Q  enc.0.attn.W_Q [4×2] · editable") above a matrix table."""

    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self.model = MatrixModel(state, self)
        self.table = MatrixTable(self.model, self)
        self.caption = QLabel(self)
        self.caption.setTextFormat(Qt.RichText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.caption)
        layout.addWidget(self.table)
        layout.addStretch(1)

    def show_tensor(self, part: TensorSlice | None, symbol: str, editable: bool, note: str = "",
                    output: bool = False, content: Content | None = None) -> None:
        """One caption line: the symbol, the shape shown, which head, editable; the full name in its tooltip.
        `content`: the table's `model.content(part)`, when computed already."""
        self.model.show(part, editable, content)
        if part is None:
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
