"""The logit lens: what the decoder would predict if it stopped after each block (engine/lens.py). A table of
layers × positions, each cell the most probable next token and its probability, coloured by that probability
(sequential map); its tooltip, and the line under the table when it is clicked, list the top few. The last row is
the model's own prediction. It follows the sentence, generated tokens and every edit; an encoder has no output
head, so the dock says so in one line."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QFont, QFontMetrics
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout

from engine.lens import Lens, logit_lens
from gui.plots.neuron import text_color
from gui.plots.style import colormap_named
from gui.state import display
from gui.state.app_state import AppState
from gui.text.live_texts import LiveTexts
from gui.views.lazy_view import LazyView
from gui.views.steady_label import SteadyLabel, line_heights

CELL_PAD = 8  # px above and below a cell's two lines
TITLE_PAD = 16  # px beside a row's title in the table's header
ROWS_ALWAYS_SHOWN = 4  # the table is never lower than this many rows (a twelve-block model's 13 scroll beyond)


class LensView(LazyView):
    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self.state, self.settings = state, state.display
        self.lens: Lens | None = None  # what the table shows
        self.picked: tuple[int, int] | None = None  # the cell clicked (layer, position)
        self.texts = LiveTexts()
        self.intro = QLabel(self)
        self.intro.setWordWrap(True)
        self.texts.set(
            self.intro.setText,
            lambda: self.tr(
                "What the model would predict if it stopped after each block: every cell is the most probable next "
                "token at that position, and its probability. Hover over a cell, or click it, for the top few."
            ),
        )
        self.refusal = QLabel(self)
        self.refusal.setWordWrap(True)
        self.texts.set(
            self.refusal.setText,
            lambda: self.tr("The logit lens needs an output head: an encoder has none, so there is nothing to decode."),
        )
        self.table = QTableWidget(self)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
        self.table.verticalHeader().setMinimumSectionSize(1)
        self.table.cellClicked.connect(self.pick)
        self.last_row_note = QLabel(self)
        self.last_row_note.setWordWrap(True)
        self.texts.set(
            self.last_row_note.setText,
            lambda: (
                "<b>"
                + html.escape(self.tr("The last row is the model's own prediction (its output probabilities)."))
                + "</b>"
            ),
        )
        self.details = SteadyLabel(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        for widget in (self.intro, self.refusal, self.table, self.last_row_note, self.details):
            layout.addWidget(widget)
        layout.setStretchFactor(self.table, 1)  # as tall as its rows (its maximum height), if the dock has room …
        layout.addStretch(0)  # … and the rest of the dock's height under its note
        state.lessonChanged.connect(self.schedule)
        state.traceEdited.connect(self.schedule)
        self.redraw_on(self.settings, display.LOOK)

    def retranslate(self) -> None:
        self.texts.retranslate()
        self.schedule()

    def row_titles(self, lens: Lens) -> list[str]:
        """ "after the embeddings", "after block 0", …; the last one marked as the model's output."""
        titles = [
            self.tr("after the embeddings") if layer.block is None else self.tr("after block {0}").format(layer.block)
            for layer in lens.layers
        ]
        titles[-1] = self.tr("{0} = the output").format(titles[-1])
        return titles

    def draw(self) -> None:
        has_head = self.state.config.has_output_head
        for widget in (self.intro, self.table, self.last_row_note, self.details):
            widget.setVisible(has_head)
        self.refusal.setVisible(not has_head)
        if not has_head:
            self.lens = None
            return
        self.lens = lens = logit_lens(self.state.trace)
        cmap = colormap_named(self.settings.colormap, False)
        table = self.table
        table.clear()
        table.setRowCount(len(lens.layers))
        table.setColumnCount(len(lens.tokens))
        table.setHorizontalHeaderLabels(lens.tokens)
        table.setVerticalHeaderLabels(self.row_titles(lens))
        last = table.verticalHeaderItem(len(lens.layers) - 1)
        bold = QFont(table.font())
        bold.setBold(True)
        last.setFont(bold)
        titles = QFontMetrics(bold)  # (Qt sizes the header by its own font: the bold title would be cut)
        table.verticalHeader().setMinimumWidth(
            max(titles.horizontalAdvance(t) for t in self.row_titles(lens)) + TITLE_PAD
        )
        for r, layer in enumerate(lens.layers):
            for c, top in enumerate(layer.top):
                token, p = top[0]
                item = QTableWidgetItem(f"{token}\n{self.settings.format_value(p)}")
                fill = cmap.map(p, mode="qcolor")
                item.setBackground(QBrush(fill))
                item.setForeground(QBrush(text_color(fill)))
                item.setTextAlignment(Qt.AlignCenter)
                item.setToolTip(self.top_text(r, c, "\n"))
                if r == len(lens.layers) - 1:
                    item.setFont(bold)
                table.setItem(r, c, item)
        table.resizeColumnsToContents()
        line = line_heights(table.font())[1]  # a line as tall as Chinese text (taller than Latin)
        for r in range(table.rowCount()):
            table.setRowHeight(r, 2 * line + CELL_PAD)  # two lines a cell
        header = max(table.horizontalHeader().sizeHint().height(), line + CELL_PAD)
        table.horizontalHeader().setFixedHeight(header)
        whole = header + table.verticalHeader().length() + 2 * table.frameWidth()
        whole += table.horizontalScrollBar().sizeHint().height()
        table.setMaximumHeight(whole)
        least = header + 2 * table.frameWidth() + min(table.rowCount(), ROWS_ALWAYS_SHOWN) * table.rowHeight(0)
        table.setMinimumHeight(min(whole, least))  # a dock too low for them scrolls the others
        if self.picked is not None:
            self.picked = min(self.picked[0], len(lens.layers) - 1), min(self.picked[1], len(lens.tokens) - 1)
        self._show_picked()

    def top_text(self, layer: int, position: int, separator: str) -> str:
        """The top tokens of one cell with their probabilities, most probable first."""
        top = self.lens.layers[layer].top[position]
        return separator.join(f"{i}. {token}  {self.settings.format_value(p)}" for i, (token, p) in enumerate(top, 1))

    def pick(self, layer: int, position: int) -> None:
        """A cell clicked: its top tokens under the table, and its position the selected row."""
        self.picked = (layer, position)
        self._show_picked()
        self.state.set_row(position)

    def _show_picked(self) -> None:
        if self.picked is None:
            self.details.setText("")
            return
        layer, position = self.picked
        title = self.row_titles(self.lens)[layer]
        head = self.tr("{0}, after “{1}”:").format(title, self.lens.tokens[position])
        self.details.setText(f"{head} {self.top_text(layer, position, ' · ')}")
