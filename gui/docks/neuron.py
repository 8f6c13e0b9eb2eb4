"""The neuron view: one score of the attention at the cursor taken apart (engine/neuron.py, BertViz's idea). For the
head and query row the display settings choose and the key clicked, q and k side by side, q ⊙ k as signed bars
named by their dimension, their sum as the score before scaling, the scaled score and the weight, and the
dimensions that push the score up or down most. It follows the cursor, the head, the row, the sentence and every
edit (a W_Q cell changed anywhere shows here at once)."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QLabel, QVBoxLayout

from engine.neuron import Neuron, attention_at, hidden_keys, neuron, strongest_key
from gui.plots.neuron import NeuronBars, NeuronRows
from gui.state import display
from gui.state.app_state import AppState
from gui.text.live_texts import LiveTexts
from gui.text.places import place
from gui.views.lazy_view import LazyView
from gui.views.steady_label import SteadyLabel
from gui.views.token_chips import TokenChips

PUSHES_NAMED = 3  # the dimensions named in "pushes up most" and "pushes down most"


class NeuronView(LazyView):
    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self.state, self.settings = state, state.display
        self.chosen_key: int | None = None  # the key column clicked; None: the key the query weighs most
        self.cell: Neuron | None = None  # what is shown
        self.texts = LiveTexts()
        self.heading = SteadyLabel(self)
        self.heading.setTextFormat(Qt.RichText)
        self.keys_label = QLabel(self)
        self.keys_label.setWordWrap(True)
        self.texts.set(
            self.keys_label.setText, lambda: self.tr("Keys (click one to take it apart; greyed: hidden by the mask):")
        )
        self.keys = TokenChips(self)
        self.keys.chosen.connect(self.choose_key)
        self.sort = QCheckBox(self)
        self.sort.setFocusPolicy(Qt.NoFocus)
        self.texts.set(self.sort.setText, lambda: self.tr("Sort the dimensions by q ⊙ k"))
        self.sort.toggled.connect(self.schedule)
        self.bars = NeuronBars(self)
        self.summary = SteadyLabel(self)
        self.summary.setTextFormat(Qt.RichText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        for widget in (self.heading, self.keys_label, self.keys, self.summary, self.sort, self.bars):
            layout.addWidget(widget)
        layout.addStretch(1)
        state.cursorChanged.connect(self.schedule)
        state.traceEdited.connect(self.schedule)
        state.lessonChanged.connect(self._new_lesson)
        self.redraw_on(self.settings, {"head", "row"} | display.LOOK)

    def retranslate(self) -> None:
        self.texts.retranslate()
        self.schedule()

    def choose_key(self, key: int) -> None:
        """Take key column `key` apart (a click on its chip)."""
        self.chosen_key = key
        self.draw()

    def _new_lesson(self) -> None:
        self.chosen_key = None  # another sentence: the strongest key again
        self.schedule()

    def draw(self) -> None:
        trace = self.state.trace
        att = attention_at(trace, self.state.forward_stage())
        if att is None:
            self.cell = None
            self.heading.setText(html.escape(self.tr("This model has no attention.")))
            self.bars.show_rows(None)
            return
        n_heads, n_q, n_k = trace[att.scores.name].shape
        head = min(self.settings.head, n_heads - 1)
        query = min(self.settings.row, n_q - 1)
        key = strongest_key(trace, att, head, query) if self.chosen_key is None else min(self.chosen_key, n_k - 1)
        self.cell = cell = neuron(trace, att, head, query, key)
        q_tokens, k_tokens = trace.tokens[att.scores.rows], trace.tokens[att.scores.cols]
        where = self.tr("{0} · head {1}").format(place(trace, att.scores.name), head)
        cell_named = self.tr("Query row {0} “{1}” · key column {2} “{3}”").format(
            query, q_tokens[query], key, k_tokens[key]
        )
        self.heading.setText(f"<b>{html.escape(where)}</b><br>{html.escape(cell_named)}")
        self.keys.show_tokens(k_tokens, key, hidden_keys(trace, att, head, query))  # (greyed: masked)
        self.summary.setText(self._summary(cell, q_tokens[query], k_tokens[key]))
        self.bars.show_rows(self._rows(cell))

    def _number(self, value: float, signed: bool = False) -> str:
        text = self.settings.format_value(value)
        return "+" + text if signed and value > 0 and text.strip("0.") else text  # (never "+0.00")

    def _rows(self, cell: Neuron) -> NeuronRows:
        order = cell.ranked if self.sort.isChecked() else list(range(cell.products.shape[0]))
        q, k, products = (cell.q.tolist(), cell.k.tolist(), cell.products.tolist())
        return NeuronRows(
            names=[str(d) for d in order],
            q=[q[d] for d in order],
            k=[k[d] for d in order],
            products=[products[d] for d in order],
            texts=[(self._number(q[d]), self._number(k[d]), self._number(products[d])) for d in order],
            headers=(self.tr("dim"), "q", "k", "q ⊙ k"),
            colormap=self.settings.colormap,
        )

    def _summary(self, cell: Neuron, query_token: str, key_token: str) -> str:
        """The sum, the scaled score, the weight and the strongest pushes, one line each."""
        n = self._number
        if cell.unscaled:
            scaled = self.tr("no scaling (switched off): the scaled score is {0}").format(n(cell.scaled))
        else:
            scaled = self.tr("{0} ÷ √{1} = {2}: the scaled score").format(
                n(cell.score), cell.q.shape[0], n(cell.scaled)
            )
        if cell.hidden:
            weight = self.tr("the mask hides “{0}” from “{1}”: weight 0").format(key_token, query_token)
        else:
            weight = self.tr("softmax over the row of “{0}”: weight {1} on “{2}”").format(
                query_token, n(cell.weight), key_token
            )
        up = ", ".join(f"{d} ({n(float(cell.products[d]), True)})" for d in cell.up[:PUSHES_NAMED])
        down = ", ".join(f"{d} ({n(float(cell.products[d]))})" for d in cell.down[:PUSHES_NAMED])
        lines = [
            "<b>" + html.escape(self.tr("Σ q ⊙ k = {0}: the score before scaling").format(n(cell.score))) + "</b>",
            html.escape(scaled),
            html.escape(weight),
            html.escape(self.tr("Pushes the score up most: dimensions {0}").format(up or self.tr("none"))),
            html.escape(self.tr("Pushes it down most: dimensions {0}").format(down or self.tr("none"))),
        ]
        return "<br>".join(lines)
