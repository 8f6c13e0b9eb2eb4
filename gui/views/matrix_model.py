"""The Qt table model of one tensor slice (gui/views/tensor_slice.py) of the app state's trace: its numbers (values,
or the change from before the last edit) and their colours follow the display settings (decimals, colour map); it
marks the cells the last edit changed and the provenance highlight, and sends typed values to the app state.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QColor

from gui.plots.scale import (
    COLOR_STEPS,
    Scale,
    color_table,
    dark_table,
    scale_for,
    scale_of,
    shared_scale,
    shared_scale_names,
)
from gui.plots.style import HIDDEN_COLOR, PLAIN_COLOR
from gui.state.app_state import AppState
from gui.views.head_colors import header_tint
from gui.views.tensor_slice import TensorSlice, axis_labels, hits

INK = (QColor("black"), QColor("white"))  # a number's colour on a light or a dark cell
ZEROS = str.maketrans("123456789", "000000000")  # a number's shape (number_shapes)
# Qt's roles, looked up once: reading Qt.BackgroundRole takes ~9 µs in PySide6, and headers and cells ask for
# their data many times per layout and paint
SHOW_ROLE, EDIT_ROLE, TIP_ROLE, COLOR_ROLE = (Qt.DisplayRole, Qt.EditRole, Qt.ToolTipRole, Qt.BackgroundRole)
HORIZONTAL = Qt.Horizontal


@dataclass(frozen=True)
class Numbers:
    """The numbers a table paints: values (or changes), the cells the last edit changed, the colour scale."""

    shown: torch.Tensor
    changed: np.ndarray | None  # bool mask, None when no shown cell changed
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

    # After an edit, the cells whose numbers, colours or change marks moved: ((top, bottom, left, right), …). Its
    # table repaints them; Qt's dataChanged, one signal per box and two QModelIndex each, cost twice as much, and the
    # table paints its cells itself (it caches nothing a dataChanged would have to refresh).
    cellsChanged = Signal(object)

    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self.state = state
        self.slice: TensorSlice | None = None
        self.editable = False
        self.show_difference = False
        self.shown = torch.zeros(0, 0)  # the numbers painted: values, or the change from before the last edit
        self.changed: np.ndarray | None = None  # bool mask of cells the last edit changed
        self._values = self.shown.numpy()  # a numpy view of the numbers: a cell reads ~10× faster than from torch
        self._floating = True  # whether the numbers are amounts (else ids: labels, in plain cells)
        self._texts: tuple[tuple, dict[float, str]] = ((), {})  # (decimals, floating): each number's text
        self._changed_box: tuple[int, int, int, int] | None = None  # rows and columns the change marks span
        self._flags = Qt.ItemIsEnabled | Qt.ItemIsSelectable
        self.scale = Scale(False, 0.0, 1.0)
        self._number_shapes: tuple[int, set[str]] | None = None  # (decimals, shapes) of the numbers shown
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

    def refresh(self, names: list[str] | None = None) -> bool:
        """After an edit (`names`: what it recomputed): repaint only the cells whose numbers or change marks
        moved — all of them when the colour scale moved too, or when `names` is None. True when a number of a
        shape its columns were not measured for appeared (wider, perhaps: the stage view measures them again)."""
        if self.slice is None:
            return False
        name = self.slice.name
        unmoved = names is not None and name not in names and self._changed_box is None and not self.show_difference
        if unmoved and not self._scale_shared(name):
            return False  # not recomputed, no change marks to clear, no change shown, its own colour scale
        old_box, old_scale, measured = self._changed_box, self.scale, self._number_shapes
        self._take(self._numbers(self.slice))
        new_shape = self._new_shapes(measured)
        rows, cols = self.shown.shape
        if not rows or not cols:
            return new_shape
        unknown = names is None or (name in names and name not in self.state.previous)  # no "before" to compare
        if self.scale != old_scale or self.show_difference or unknown:
            self.cellsChanged.emit(((0, rows - 1, 0, cols - 1),))
        else:
            self.cellsChanged.emit(tuple({old_box, self._changed_box} - {None}))
        return new_shape

    def _new_shapes(self, measured: tuple[int, set[str]] | None) -> bool:
        """After a refresh that moved numbers: the shapes of the cells it changed join those the columns were
        measured for (`measured`); whether any is new."""
        if measured is None or self._number_shapes is not None or measured[0] != self.state.display.decimals:
            return False  # never measured (it is when laid out), no number moved, or measured anew for new decimals
        moved = self._values if self.changed is None or self.show_difference else self._values[self.changed]
        shapes = self._shapes(moved.ravel()[:2500])
        self._number_shapes = (measured[0], measured[1] | shapes)
        return not shapes <= measured[1]

    def set_show_difference(self, on: bool) -> bool:
        """Show the change from before the last edit, or the numbers; True as refresh() says."""
        if on == self.show_difference:
            return False  # (the stage view sets it for every table it shows: their numbers are computed already)
        self.show_difference = on
        self._set_flags()
        return self.refresh()

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
                self.cellsChanged.emit(((0, rows - 1, 0, cols - 1),))

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
            scale = self._scale(part, shown.numpy())
        return Numbers(shown, changed if changed is not None and changed.any() else None, scale)

    def _scale_shared(self, name: str) -> bool:
        """Whether the tensor shares its colour scale with others at this stage (A + B = C, x and μ)."""
        return name in shared_scale_names(self.state.view, self.state.current_stage)

    def _scale(self, part: TensorSlice, shown: np.ndarray) -> Scale:
        """The colour scale the plot of the same numbers uses (gui/plots/scale.py): by the operation's kind, one
        scale for the tensors of one equation (A + B = C, x and μ, scores and scaled, a tile and its maxima: the
        stage's shared_scale, over the head shown); a parameter's numbers are signed."""
        view, current = self.state.view, self.state.current_stage
        stage = view.stage(part.name)
        if part.name in shared_scale_names(view, current):
            return shared_scale(view, current, part.head)
        return scale_of(shown) if stage is None else scale_for(stage.op, shown)

    def _take(self, numbers: Numbers) -> None:
        old, new = self._values, numbers.shown.numpy()
        if new.shape != old.shape or new.dtype != old.dtype or not np.array_equal(new, old):
            self._number_shapes = None  # other numbers (a refresh that moved none keeps their shapes)
        self.shown, self.changed, self.scale = numbers.shown, numbers.changed, numbers.scale
        self._values = new
        self._floating = new.dtype.kind == "f"
        self._changed_box = None
        if self.changed is not None:
            rows, cols = np.flatnonzero(self.changed.any(1)), np.flatnonzero(self.changed.any(0))
            self._changed_box = (int(rows[0]), int(rows[-1]), int(cols[0]), int(cols[-1]))

    # ---- reading cells ---------------------------------------------------------------------
    def rowCount(self, parent=None) -> int:
        return 0 if parent is not None and parent.isValid() else self.shown.shape[0]

    def columnCount(self, parent=None) -> int:
        return 0 if parent is not None and parent.isValid() else self.shown.shape[1]

    def text(self, r: int, c: int) -> str:
        return self.look(r, c)[2]

    def number_shapes(self) -> set[str]:
        """The shapes of the numbers shown (sampled: a huge vocabulary stays fast), each digit written 0: a table
        is as wide as its widest shape, since numbers are drawn with digits of one width. Kept until the numbers
        or the decimals change (the stage view measures a table at each font it tries)."""
        decimals = self.state.display.decimals
        if self._number_shapes is None or self._number_shapes[0] != decimals:
            self._number_shapes = (decimals, self._shapes(self._values[:50, :50].ravel()))
        return self._number_shapes[1]

    def _shapes(self, values) -> set[str]:
        """The shapes of `values` written out (each number formatted once, as text() writes it, into the texts the
        paint reads: the numbers of a token's new row, say, are written once for the layout and the paint)."""
        display, integer, texts = self.state.display, not self._floating, self._text_cache()
        written = set()
        for v in set(values.tolist()):
            v = float(v)
            text = texts.get(v)
            if text is None:
                text = texts[v] = display.format_value(v, integer=integer)
            written.add(text)
        return {text.translate(ZEROS) for text in written}

    def _text_cache(self) -> dict[float, str]:
        """Each number's text at the decimals shown, written once (kept across edits and new tensors)."""
        key = (self.state.display.decimals, self._floating)
        if self._texts[0] != key or len(self._texts[1]) > 20000:
            self._texts = (key, {})
        return self._texts[1]

    def color(self, r: int, c: int) -> QColor:
        """The cell's colour from the plots' own ColorMap and scale (one number, one colour on the screen)."""
        return self.look(r, c)[0]

    def ink(self, r: int, c: int) -> QColor:
        """Black on light cells, white on dark ones (as the plots write their numbers)."""
        return self.look(r, c)[1]

    def look(self, r: int, c: int) -> tuple[QColor, QColor, str]:
        """A cell's fill, ink and number at once, its value read once."""
        return self.looks()(r, c)

    def looks(self) -> Callable[[int, int], tuple[QColor, QColor, str]]:
        """look(r, c) for the numbers, scale and display settings of now, everything but the cell looked up once:
        a table's paint asks it of every cell it paints."""
        display, scale, floating, values = self.state.display, self.scale, self._floating, self._values
        colors, darks = color_table(display.colormap, scale.signed), dark_table(display.colormap, scale.signed)
        lo, span = scale.lo, scale.hi - scale.lo
        blank = (HIDDEN_COLOR if floating else PLAIN_COLOR), INK[floating]  # a hidden (−∞) cell; an id's plain cell
        texts = self._text_cache()

        def look(r: int, c: int) -> tuple[QColor, QColor, str]:
            v = float(values[r, c])
            text = texts.get(v)
            if text is None:
                text = texts[v] = display.format_value(v, integer=not floating)
            if not floating or not math.isfinite(v):
                return (*blank, text)
            k = min(COLOR_STEPS - 1, max(0, int(((v - lo) / span if span > 0 else 0.5) * COLOR_STEPS)))
            return colors[k], INK[darks[k]], text

        return look

    def is_highlighted(self, r: int, c: int) -> bool:
        return self.highlight is not None and hits(self.highlight[0], r) and hits(self.highlight[1], c)

    def is_changed(self, r: int, c: int) -> bool:
        return self.changed is not None and bool(self.changed[r, c])

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
            self.row_labels[r], self.col_labels[c]
        )
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
