"""The KV cache: the K and V rows a decoder's self-attention keeps, one more per token, the newest outlined
(the only row computed for the newest token), and the multiply-adds per token with and without the cache."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout

from engine.kv_cache import cached_stages
from gui.plots.kv_cache import CachePanel, MacsPanel, self_attentions
from gui.plots.view import FigureCache, FittedLayoutWidget
from gui.state import display
from gui.state.app_state import AppState
from gui.text.live_texts import LiveTexts
from gui.text.places import group_path
from gui.views.lazy_view import LazyView
from gui.views.steady_label import SteadyLabel, line_heights


class KVCacheView(LazyView):
    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self.state, self.settings = state, state.display
        self.attention = QComboBox(self)
        self.attention.setFocusPolicy(Qt.NoFocus)
        self.attention.activated.connect(self.draw)
        self.summary = SteadyLabel(self)  # it names the newest token: as tall for "我" as for "<unk>"
        self.summary.setTextFormat(Qt.RichText)
        # room for its four lines (a dock does not grow with a label's wrapped height)
        self.summary.setMinimumHeight(line_heights(self.summary.font())[1] * 4)
        self.plot = FittedLayoutWidget(self)
        self.plot.setMinimumHeight(160)  # the cache and the multiply-add bars stay readable beside other docks
        self.cache: CachePanel | None = None  # built the first time the view is drawn (shown)
        self.macs: MacsPanel | None = None
        self.figures = FigureCache(self.plot, limit=2)  # the two panels per language: a switch back swaps them in
        top = QHBoxLayout()
        self.texts = LiveTexts()  # what a language switch sets again
        label = QLabel(self)
        self.texts.set(label.setText, lambda: self.tr("Self-attention:"))
        top.addWidget(label)
        top.addWidget(self.attention, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.plot, 1)
        for signal in (state.lessonChanged, state.traceEdited):
            signal.connect(self.schedule)
        self.redraw_on(self.settings, {"head"} | display.LOOK)

    def retranslate(self) -> None:
        """Another language: the label, and the cache and its summary in that language when next shown (they hold
        words)."""
        self.texts.retranslate()
        self.schedule()

    def rows(self) -> int:
        """K and V rows in the cache as shown."""
        return 0 if self.cache is None else self.cache.rows

    def _list_attentions(self, trace, names: list[str]) -> None:
        """The self-attentions to choose from, "Block 0 · Masked self-attention" (the id in its tooltip), the one
        chosen kept; listed again only when they or their words change (not at each generated token)."""
        keys = {name: k for name, (k, _) in cached_stages(trace.stages).items()}  # a stage of each attention
        items = [(" · ".join(group_path(trace, keys[name])[1:]), name) for name in names]
        if items == [(self.attention.itemText(k), self.attention.itemData(k)) for k in range(self.attention.count())]:
            return
        current = self.attention.currentData()
        self.attention.clear()
        for k, (text, name) in enumerate(items):
            self.attention.addItem(text, name)
            self.attention.setItemData(k, name, Qt.ToolTipRole)
        if current in names:
            self.attention.setCurrentIndex(names.index(current))

    def draw(self, *_) -> None:
        trace = self.state.trace
        names = self_attentions(trace) if "dec" in trace.config.stacks else []
        self._list_attentions(trace, names)
        if not names:
            self.plot.hide()
            self.summary.setText(
                self.tr("A KV cache belongs to a decoder: choose a decoder or encoder-decoder model in Settings.")
            )
            return
        self.plot.show()
        opts = self.settings.plot_options()
        self.cache, self.macs = self.figures.show(
            opts.lang, lambda layout: (CachePanel(layout, opts, 0), MacsPanel(layout, opts, 1))
        )
        self.cache.update(trace, self.attention.currentData(), opts)
        self.macs.update(trace, opts)
        cached, full = self.macs.counts[-1]
        total_cached = sum(c for c, _ in self.macs.counts)
        total_full = sum(f for _, f in self.macs.counts)
        token = trace.tokens["dec"][-1]
        text = self.tr(
            "The cache holds <b>{0}</b> K and V rows, one per token read so far. For the newest token "
            "“{1}” only the outlined row is computed: <b>{2:,}</b> multiply-adds with the cache, "
            "<b>{3:,}</b> recomputing the whole sentence. For the whole sentence, token by token: "
            "{4:,} with the cache, {5:,} without."
        ).format(self.cache.rows, html.escape(token), cached, full, total_cached, total_full)
        if "no_mask" in trace.config.switches:
            text += (
                "<br><span style='color:#b35900'>"
                + self.tr(
                    "With no mask, earlier tokens see later ones: their cached K and V would go stale, so a "
                    "cache cannot be used."
                )
                + "</span>"
            )
        self.summary.setText(text)
        self.plot.settle()  # laid out now and painted once, finished
