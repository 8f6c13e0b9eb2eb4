"""The training lab (View ▸ Training lab): run one of engine/training/lab.py's experiments in the background and watch
its curves grow — a loss curve per arm and seed (or, for the experiments that do not train, one number per
seed, then the curves over layers / d_k / positions when done), the gradient norm of each layer, the attention
of a chosen head on a held-out sentence (re-traced every few steps, so the class watches it form), and the
verdict. Run, Pause, Stop; Stop keeps what was drawn. Paused or stopped, "Step through this model" opens the
model at its last step's weights in the window (through the model picker), at the watched layer's attention.

The run itself is the app state's (gui/state/lab_run.py: a thread advances the experiment, so the window keeps
answering while it trains); this dock draws what it records, and a window built anew draws the run where it was.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QBoxLayout,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from engine import EngineError, sources
from engine.graph import attention
from engine.training.lab import EXPERIMENTS, label, watch_sentence
from gui.plots.axis import Axis
from gui.plots.bars import add_legend
from gui.plots.captions import plain
from gui.plots.heatmap import Heatmap
from gui.plots.log_ticks import decade_ticks, value_ticks
from gui.plots.plain_numbers import PlainNumberAxis
from gui.plots.style import color, plain_axes
from gui.plots.view import show_when_drawn
from gui.state.display import DisplaySettings
from gui.state.lab_run import LabRun
from gui.text.live_texts import LiveTexts
from gui.views.scrolling import scrolling_layout

SIDE_BY_SIDE_WIDTH = 700  # px at the desk's type: a narrower lab shows its buttons under the experiment, the attention
# under the curves
CHOICE_LEAST_WIDTH = 120  # px: the experiment's title shortened to this in a narrow lab
CURVES_LINES = 11  # the curves' least height, in lines of the lab's type: their axes, legend and a readable view
BAR_THICKNESS = 0.6  # of a row
BAR_ROW_LINES = 1.2  # a gradient bar's row, in lines of the lab's type: its name and the gap to the next
BAR_ROWS_AROUND = 3  # lines of type beside the gradient bars' rows: their title and the value axis under them
WATCH_EVERY = 5  # training steps between two re-traces of the watched head's attention (and the last step)


def layer_title(group: str, groups: list[str], lang: str) -> str:
    """A layer of weights (engine.training.train.param_group: "dec.embed", "dec.0", "dec.final_norm", "unembed")
    named as its box on the map: "Embedding", "Block 0", "Final LayerNorm", "Linear + Softmax"; with its stack's
    name where `groups` hold an encoder's and a decoder's ("Decoder Block 0")."""
    if group == "unembed":
        return plain("output", lang)
    stack, part = group.split(".", 1)
    key = {"embed": "embedding", "embed_norm": "embed_norm", "final_norm": "final_norm"}.get(part, "block")
    name = plain(key, lang, i=part)
    if len({g.split(".")[0] for g in groups if g != "unembed"}) < 2:
        return name
    return f"{plain(stack, lang)} {name}"


class TrainingLab(QWidget):
    step_through = Signal(object)  # engine.sources.Opened: the model of the last step drawn

    def __init__(self, run: LabRun, settings: DisplaySettings, parent=None):
        super().__init__(parent)
        self.run = run  # the app state's: the thread, the curves and the result outlive this dock
        self.settings = settings  # the language of the arms' names and the colours of the attention map
        self.items: dict[tuple[str, int], pg.PlotDataItem] = {}  # the curves drawn, by (arm, seed)
        self.arms: list[str] = []  # the arms in the order of their colours

        self.choice = QComboBox(self)
        # its titles whole where there is room, shortened in a narrow dock (the claim under it says it whole): Run,
        # Pause and Stop stay in sight
        self.choice.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.choice.setMinimumWidth(CHOICE_LEAST_WIDTH)
        for name, (title, _) in self._experiments().items():
            self.choice.addItem(title, name)
        self.choice.setCurrentIndex(self.choice.findData(run.chosen))
        self.choice.currentIndexChanged.connect(lambda _: self._chosen(self.choice.currentData()))
        self.texts = texts = LiveTexts()  # what a language switch sets again
        self.run_button = QPushButton(self)
        texts.set(self.run_button.setText, lambda: self.tr("Run"))
        self.run_button.clicked.connect(lambda: self.start(self.choice.currentData()))
        self.pause_button = QPushButton(self)
        texts.set(self.pause_button.setText, self._pause_text)
        self.pause_button.setCheckable(True)
        self.pause_button.toggled.connect(self._pause_toggled)
        self.stop_button = QPushButton(self)
        texts.set(self.stop_button.setText, lambda: self.tr("Stop"))
        self.stop_button.clicked.connect(self.stop)
        buttons = QHBoxLayout()
        for widget in (self.run_button, self.pause_button, self.stop_button):
            buttons.addWidget(widget)
        buttons.addStretch(1)
        # the experiment and its buttons on a line, or the buttons under it in a narrow dock (resizeEvent)
        self.controls = controls = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        controls.addWidget(self.choice)
        controls.addLayout(buttons, 1)
        self.claim = QLabel(self)
        self.claim.setWordWrap(True)
        # the curves, the gradient bars and the attention map: built when the lab is first shown (see _build_plots)
        self.curve_plot: pg.PlotWidget | None = None
        self.bar_plot: pg.PlotWidget | None = None
        self.bars: pg.BarGraphItem | None = None
        self.attention_view: pg.GraphicsLayoutWidget | None = None
        self.attention: Heatmap | None = None
        self.status = QLabel(self)
        self.verdict = QLabel(self)
        for line in (self.status, self.verdict):  # whole in a narrow lab, in either language
            line.setWordWrap(True)
        self.plots = QVBoxLayout()
        # the curves beside the attention map, or over it in a narrow dock (resizeEvent)
        self.middle = middle = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        middle.addLayout(self.plots, 1)
        middle.addWidget(self._attention_panel(), 1)
        layout = scrolling_layout(self)
        # the claim, then where the run is and its verdict, then the evidence: on a slide the conclusion stands in
        # sight under the claim it answers, whatever the plots under it take
        layout.addLayout(controls)
        layout.addWidget(self.claim)
        layout.addWidget(self.status)
        layout.addWidget(self.verdict)
        layout.addLayout(middle, 1)
        self._show_claim(self.choice.currentData())
        self.pause_button.setChecked(run.paused)
        run.started.connect(self._started)
        run.progressed.connect(self._progressed)
        run.finished.connect(self._finished)
        run.pausedChanged.connect(self._paused_changed)
        self._enable(running=run.running)

    def _attention_panel(self) -> QWidget:
        """A head's attention weights on the watched sentence, with the layer and head to show."""
        panel = QWidget(self)
        self.layer_box, self.head_box = QSpinBox(panel), QSpinBox(panel)
        for box in (self.layer_box, self.head_box):
            box.valueChanged.connect(lambda _: self._watch_box_changed())
        choice = QHBoxLayout()
        layer, head = QLabel(panel), QLabel(panel)
        self.texts.set(layer.setText, lambda: self.tr("Attention of layer"))
        self.texts.set(head.setText, lambda: self.tr("head"))
        choice.addWidget(layer)
        choice.addWidget(self.layer_box)
        choice.addWidget(head)
        choice.addWidget(self.head_box)
        choice.addStretch(1)
        self.attention_caption = QLabel(panel)
        self.settings.changed.connect(self._settings_changed)
        column = QVBoxLayout(panel)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(choice)
        column.addWidget(self.attention_caption)  # the map goes under it (_build_plots)
        self.step_through_button = QPushButton(panel)
        self.texts.set(self.step_through_button.setText, lambda: self.tr("Step through this model"))
        self.texts.set(
            self.step_through_button.setToolTip,
            lambda: self.tr(
                "Open the model at the last step's weights in the window, "
                "at this layer's attention (pause or stop first)"
            ),
        )
        self.step_through_button.clicked.connect(self._open_model)
        column.addWidget(self.step_through_button)
        panel.setEnabled(False)
        self.attention_panel = panel
        return panel

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._build_plots()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._arrange()

    def _arrange(self) -> None:
        """Side by side in a wide lab; in a narrow one, one under the other."""
        side_by_side = self.width() >= SIDE_BY_SIDE_WIDTH * self.settings.type_scale  # (presentation's larger type)
        direction = QBoxLayout.Direction.LeftToRight if side_by_side else QBoxLayout.Direction.TopToBottom
        for layout in (self.controls, self.middle):
            if layout.direction() != direction:
                layout.setDirection(direction)

    def _build_plots(self) -> None:
        """The plots, once: a lab never shown builds no pyqtgraph items."""
        if self.curve_plot is not None:
            return
        # numbers written as numbers: 10⁸, not "1e+08"
        self.curve_plot = pg.PlotWidget(self, axisItems={side: PlainNumberAxis(side) for side in ("left", "bottom")})
        add_legend(self.curve_plot.getPlotItem(), self.settings.plot_options())  # under the curves, never over them
        # the bars lie along their layers' names, each name flat on its own line, whole however narrow the lab is
        self.bar_plot = pg.PlotWidget(self, axisItems={"left": Axis("left"), "bottom": PlainNumberAxis("bottom")})
        self.bar_plot.getPlotItem().invertY(True)  # the first layer on top, as on the map
        for plot in (self.curve_plot, self.bar_plot):
            plain_axes(plot.getPlotItem())  # "p(1−p)", not "p(1−p) (×0.001)" over ticks 0 … 200
        self.texts.set(self.bar_plot.setTitle, lambda: self.tr("Gradient norm per layer ‖∂L/∂W‖"))
        self.bars = pg.BarGraphItem(x0=0, y=[], width=[], height=[], brush=color(0))
        self.bar_plot.addItem(self.bars)
        self.curve_plot.setMinimumHeight(QFontMetrics(self.font()).lineSpacing() * CURVES_LINES)
        self.plots.addWidget(self.curve_plot, 3)
        self.plots.addWidget(self.bar_plot, 2)
        self.attention_view = pg.GraphicsLayoutWidget(self.attention_panel)
        self.attention_view.setMinimumSize(260, 220)
        self.attention = Heatmap(self.attention_view.ci, self.settings.plot_options(), signed=False, row=0, col=0)
        self.attention_panel.layout().insertWidget(2, self.attention_view, 1)  # under the caption
        self._arrange()
        self._draw_recorded()
        show_when_drawn(self.curve_plot, self.bar_plot, self.attention_view)  # before a run: no empty axes

    def _experiments(self) -> dict[str, tuple[str, str]]:
        """Each experiment of engine/training/lab.py: its title and the tutorials' claim it tests, in the window's
        language."""
        return {
            "gradient-highway": (
                self.tr("Gradient highway: with and without residual connections"),
                self.tr("the residual connection carries the gradient to the first layers"),
            ),
            "post-vs-pre-ln": (
                self.tr("Post-LN vs pre-LN, with and without warm-up"),
                self.tr("post-LN is unstable in deep stacks and needs warm-up; pre-LN trains stably"),
            ),
            "no-layernorm": (
                self.tr("With and without LayerNorm"),
                self.tr("without LayerNorm the loss curve is a roller coaster"),
            ),
            "scale-saturation": (
                self.tr("Softmax saturation: scaled by √d_k or not"),
                self.tr("dividing by √d_k keeps the softmax out of saturation"),
            ),
            "teacher-forcing": (
                self.tr("Teacher forcing: one masked pass vs step by step"),
                self.tr("one masked pass gives every position's prediction, as N incremental steps would"),
            ),
        }

    # the run's record, read where the lab's tests and views look for it
    @property
    def runner(self):
        return self.run.runner

    @property
    def running(self) -> bool:
        return self.run.running

    @property
    def curves(self) -> dict:
        return self.run.curves

    @property
    def layers(self) -> list[str]:
        return self.run.layers

    @property
    def result(self) -> dict | None:
        return self.run.result

    @property
    def latest(self):
        return self.run.latest

    @property
    def watched(self):
        return self.run.watched

    @property
    def shown(self) -> str | None:
        return self.run.shown

    def choose(self, name: str) -> None:
        """Choose an experiment to run next (a run under way goes on)."""
        if not self.running:
            self.choice.setCurrentIndex(self.choice.findData(name))

    def _chosen(self, name: str) -> None:
        self.run.chosen = name
        self._show_claim(name)

    # ---- running ----------------------------------------------------------------------------------
    def start(self, name: str, seeds: int | None = None, steps: int | None = None) -> bool:
        """Run an experiment (its default seeds and steps unless given); a bad choice changes nothing."""
        if self.running:
            return False
        try:
            self.run.start(name, seeds, steps)
        except EngineError as exc:
            self.status.setText(str(exc))
            return False
        return True

    def stop(self) -> None:
        """Stop after the step under way; what was drawn stays."""
        self.run.stop()

    def _started(self, name: str) -> None:
        self.choice.setCurrentIndex(self.choice.findData(name))
        self._build_plots()
        self._clear(name)
        self._enable(running=True)

    def _pause_toggled(self, paused: bool) -> None:
        if paused != self.run.paused:
            self.run.pause(paused)
        self.pause_button.setText(self._pause_text())
        self._enable_step_through()

    def _paused_changed(self, paused: bool) -> None:
        self.pause_button.setChecked(paused)

    def _pause_text(self) -> str:
        return self.tr("Resume") if self.pause_button.isChecked() else self.tr("Pause")

    def _enable(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.choice.setEnabled(not running)
        self.pause_button.setEnabled(running)
        self.stop_button.setEnabled(running)
        if not running:
            self.pause_button.setChecked(False)
        self._enable_step_through()

    def _enable_step_through(self) -> None:
        """A model to open, and it holds still: paused or not running."""
        still = not self.running or self.pause_button.isChecked()
        self.step_through_button.setEnabled(self.latest is not None and still)

    def _open_model(self) -> None:
        """The model of the last step drawn, in the window; a run that diverged is refused, and says why."""
        try:
            opened = sources.lab_model(self.latest, watch_sentence(), self.layer_box.value())
        except EngineError as exc:
            self.status.setText(str(exc))
            return
        self.step_through.emit(opened)

    def retranslate(self) -> None:
        """Another language: the fixed texts, the experiments and the claim, and what a run drew (its axes, legend,
        attention caption, status and verdict)."""
        self.texts.retranslate()
        for i, (title, _) in enumerate(self._experiments().values()):
            self.choice.setItemText(i, title)
        self._show_claim(self.choice.currentData())
        if self.shown is not None and self.curve_plot is not None:
            self._name_axes()
            self._name_layers()
            arm_of = {id(item): arm for (arm, _), item in self.items.items()}
            for sample, text in self.curve_plot.plotItem.legend.items:
                if id(sample.item) in arm_of:
                    text.setText(label(arm_of[id(sample.item)], self.settings.lang))
        self._draw_attention()
        self._show_status()

    # ---- drawing ----------------------------------------------------------------------------------
    def _show_claim(self, name: str) -> None:
        self.claim.setText(self.tr("Claim tested: {0}").format(self._experiments()[name][1]))

    def _clear(self, name: str) -> None:
        self.curve_plot.clear()
        self.curve_plot.plotItem.legend.clear()
        self.items, self.arms = {}, []
        self.bars.setOpts(y=[], width=[], height=[])
        self.curve_plot.setLogMode(x=False, y=False)
        for side in ("bottom", "left"):
            self.curve_plot.getAxis(side).setTicks(None)  # pyqtgraph's own ticks on linear axes
        self.curve_plot.enableAutoRange()  # (a finished log run set its x range)
        self.verdict.setText("")
        self.status.setText("")
        trains = EXPERIMENTS[name].steps is not None
        self.attention.image.clear()
        self.attention_caption.setText("")
        self.attention_panel.setEnabled(trains)
        for part in (self.bar_plot, self.attention_panel):  # a run that does not train has no gradients or weights
            part.setVisible(trains)
        self._name_axes()

    def _draw_recorded(self) -> None:
        """Everything the run recorded so far (a window built anew while it ran, or after it ended)."""
        run = self.run
        if run.shown is None:
            return
        self._clear(run.shown)
        self._draw_curves()
        self._draw_bars()
        if run.watched is not None:
            self._fit_watch_boxes(run.watched)
        self._draw_attention()
        self._show_status()

    def _draw_curves(self) -> None:
        result = self.run.result
        if result is not None and result["x"]["label"] != "step":  # log axes where the result asks for them
            self._name_axes()
            self.curve_plot.setLogMode(x=result["x"]["log"], y=result["y"]["log"])
        symbol = "o" if self.run.points else None
        for key, (xs, ys) in self.run.curves.items():
            self._draw(key, xs, ys, symbol)
        if result is not None and result["x"]["label"] != "step":
            self._label_log_axes(result)

    def _label_log_axes(self, result: dict) -> None:
        """A log axis labelled at its measured values (x) or its decades (y), never at minor ticks that collide."""
        curves = self.run.curves.values()
        ticks_at_x = value_ticks([x for xs, _ in curves for x in xs])
        for side, log, ticks in (
            ("bottom", result["x"]["log"], ticks_at_x),
            ("left", result["y"]["log"], decade_ticks([y for _, ys in curves for y in ys])),
        ):
            self.curve_plot.getAxis(side).setTicks([ticks, []] if log else None)
        if result["x"]["log"] and ticks_at_x:
            # room beyond the first and last value: pyqtgraph leaves out a label that would cross the axis's end
            low, high = ticks_at_x[0][0], ticks_at_x[-1][0]
            room = 0.12 * (high - low) or 0.5
            self.curve_plot.setXRange(low - room, high + room, padding=0)

    def _draw_bars(self) -> None:
        rows = len(self.run.layers)  # a bar's thickness per row: an empty list draws none (show_when_drawn)
        self.bars.setOpts(y=list(range(rows)), width=self.run.grad_norms, height=[BAR_THICKNESS] * rows)
        self._name_layers()
        # a row of the lab's type and a gap for each layer's name (a smaller font would shrink them), and lines for
        # the bars' title and value axis
        line = QFontMetrics(self.font()).lineSpacing()
        self.bar_plot.setMinimumHeight(round(line * (BAR_ROW_LINES * rows + BAR_ROWS_AROUND)))

    def _show_status(self) -> None:
        """Where the run is: its step, stopped, or done (with the verdict)."""
        run, lang = self.run, self.settings.lang
        if run.result is not None:
            self.status.setText(self.tr("Done in {0:.1f} s.").format(run.result["seconds"]))
            self.verdict.setText(run.result["verdict_zh" if lang == "zh" else "verdict"])
        elif run.stopped:
            self.status.setText(self.tr("Stopped: the curves so far are kept."))
        elif run.last is not None:
            last = run.last
            self.status.setText(
                self.tr("{0}, seed {1}: step {2} of {3}").format(
                    label(last.arm, lang), last.seed, last.step + 1, last.steps
                )
            )
        if self.curve_plot is not None:  # each plot shown once it holds something
            show_when_drawn(self.curve_plot, self.bar_plot, self.attention_view)

    def _name_axes(self) -> None:
        """A training run: loss over steps; one number per seed otherwise, or at the end the run's own axes."""
        trains = EXPERIMENTS[self.shown].steps is not None
        x = self.result["x"]["label"] if self.result is not None else "step"
        if x != "step":
            self.curve_plot.setLabel("bottom", label(x, self.settings.lang))
        else:
            self.curve_plot.setLabel("bottom", self.tr("step") if trains else self.tr("seed"))
        y = self.result["y"]["label"] if self.result is not None else EXPERIMENTS[self.shown].measures
        self.curve_plot.setLabel("left", label(y, self.settings.lang))

    def _name_layers(self) -> None:
        """The gradient bars named by their layers in words ("Block 0", not "dec.0")."""
        names = [layer_title(group, self.layers, self.settings.lang) for group in self.layers]
        self.bar_plot.getAxis("left").set_categories(names, offset=0.0)

    def _progressed(self, progress) -> None:
        if self.curve_plot is None:  # a lab not shown yet draws the whole record when it is (_build_plots)
            return
        trains = progress.grad_norms is not None
        key = (progress.arm, progress.seed if trains else -1)  # not training: one number per seed, one line per arm
        xs, ys = self.curves[key]
        self._draw(key, xs, ys, symbol=None if trains else "o")
        if trains:
            self._draw_bars()
            if progress.step % WATCH_EVERY == 0 or progress.step == progress.steps - 1:
                self._watch(progress)
        self._show_status()

    def _draw(self, key: tuple[str, int], xs: list, ys: list, symbol: str | None = None) -> None:
        arm = key[0]
        if arm not in self.arms:
            self.arms.append(arm)
        if key not in self.items:
            pen = pg.mkPen(color(self.arms.index(arm)), width=2)
            first = not any(k[0] == arm for k in self.items)
            name = label(arm, self.settings.lang) if first else None
            self.items[key] = self.curve_plot.plot(
                name=name, pen=pen, symbol=symbol, symbolBrush=color(self.arms.index(arm))
            )
            if name is not None:  # pyqtgraph moves a legend that grows to its plot's corner, over the curves:
                self.curve_plot.plotItem.legend.updateGeometry()  # its row under them places it again
        self.items[key].setData(xs, [float("nan") if y is None else y for y in ys])

    def _watch(self, progress) -> None:
        """Show the attention of this step's model (the layer and head boxes fit its size; first time: the
        last layer, head 0)."""
        first = self.watched is None
        self.run.watch(progress)
        if first:
            self.run.watch_layer, self.run.watch_head = progress.model.config.n_layers - 1, 0
        self._fit_watch_boxes(progress)
        self._draw_attention()

    def _fit_watch_boxes(self, progress) -> None:
        """The layer and head boxes in the watched model's range, at the run's watched layer and head."""
        cfg, run = progress.model.config, self.run
        layer, head = run.watch_layer, run.watch_head
        for box, top, value in ((self.layer_box, cfg.n_layers - 1, layer), (self.head_box, cfg.n_heads - 1, head)):
            box.blockSignals(True)
            box.setRange(0, top)
            box.setValue(value)
            box.blockSignals(False)

    def _watch_box_changed(self) -> None:
        if self.watched is not None:
            self.run.watch_layer, self.run.watch_head = self.layer_box.value(), self.head_box.value()
        self._draw_attention()

    def _settings_changed(self, names: frozenset[str]) -> None:
        if "colormap" in names:
            self._draw_attention()

    def _draw_attention(self) -> None:
        if self.watched is None or self.attention is None:
            return
        progress = self.watched
        trace = progress.model.trace(watch_sentence())
        layer, head = self.layer_box.value(), self.head_box.value()
        found = attention(trace.stages, stack="dec", block=layer, part="self_attn")
        weights = trace[found.weights.name][head].numpy()
        tokens = trace.tokens["dec"]
        self.attention.set(weights, tokens, tokens, self.settings.plot_options(), levels=(0.0, 1.0))
        self.attention_caption.setText(
            self.tr("{0}, seed {1}, after step {2}").format(
                label(progress.arm, self.settings.lang), progress.seed, progress.step + 1
            )
        )

    def _finished(self, result: dict | None) -> None:
        self._enable(running=False)
        if self.curve_plot is None:
            return
        if result is not None and result["x"]["label"] != "step":  # the whole curves over layers, d_k or positions
            self.curve_plot.clear()
            self.curve_plot.plotItem.legend.clear()
            self.items = {}
            self._draw_curves()
        self._show_status()
