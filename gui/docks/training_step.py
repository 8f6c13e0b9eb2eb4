"""Model ▸ Take one training step, with its learning rate (a spin box in the same menu, remembered), and
View ▸ Training step: the step's loss before and after and, for one weight, W before, ∂L/∂W and W after."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QDoubleSpinBox,
    QGraphicsScene,
    QHBoxLayout,
    QLabel,
    QWidget,
    QWidgetAction,
)
from shiboken6 import isValid

from engine.training.backward import MAX_LR, TrainingStep
from gui.plots.heatmap import Heatmap
from gui.state.app_state import AppState
from gui.state.commands import TrainingStepCommand
from gui.state.preferences import read, write
from gui.text.live_texts import LiveTexts
from gui.text.numbers import loss_texts
from gui.text.places import weight_title
from gui.views.scrolling import scrolling_layout

DEFAULT_LR = 0.1


class TrainingStepActions(QObject):
    """The menu action and the learning rate it uses (`actions`, for the Model menu: the action, then a spin box);
    the step itself is AppState.take_training_step."""

    def __init__(self, state: AppState, parent: QObject | None = None):
        super().__init__(parent)
        self.state = state
        self.texts = LiveTexts()  # what a language switch sets again
        self.step_action = QAction(self)
        self.texts.set(self.step_action.setText, lambda: self.tr("Take one training step"))
        self.texts.set(
            self.step_action.setToolTip,
            lambda: self.tr("W ← W − lr·∂L/∂W for every weight, on this sentence (Ctrl+Z undoes it)"),
        )
        self.step_action.triggered.connect(self.take_step)
        row = QWidget()  # the holder below takes it
        layout = QHBoxLayout(row)
        layout.setContentsMargins(24, 2, 8, 2)
        rate = QLabel(row)
        self.texts.set(rate.setText, lambda: self.tr("Learning rate:"))
        layout.addWidget(rate)
        self.lr = QDoubleSpinBox(row)
        self.lr.setDecimals(4)
        self.lr.setRange(0.0001, MAX_LR)
        self.lr.setSingleStep(0.01)
        self.lr.setValue(read("training/lr", DEFAULT_LR, float))
        self.lr.valueChanged.connect(lambda value: write("training/lr", value))
        layout.addWidget(self.lr)
        holder = QWidgetAction(self)
        holder.setDefaultWidget(row)
        self.actions = [self.step_action, holder]
        state.lessonChanged.connect(self._enable)
        self._enable()

    def _enable(self) -> None:
        """Only a model with an output head has a loss to lower."""
        self.step_action.setEnabled("probs" in self.state.trace.values)

    def take_step(self) -> bool:
        return self.state.take_training_step(self.lr.value())


class TrainingStepView(QWidget):
    """The last training step, while it is the last command on the undo stack (an edit after it, or Ctrl+Z,
    clears it): the loss before and after, and for one weight — the current stage's, or one chosen — three
    heatmaps side by side: W before, ∂L/∂W and W after. Before and after share one colour scale; the gradient
    has its own, centred on 0."""

    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self.state = state
        self.step: TrainingStep | None = None
        self.loss = QLabel(self)
        self.weight = QComboBox(self)
        self.weight.setSizeAdjustPolicy(QComboBox.AdjustToContents)
        self.weight.currentIndexChanged.connect(self._draw)
        self.loss.setWordWrap(True)  # a line of its own, over the weight chosen: neither is cut in a narrow dock
        top = QHBoxLayout()
        self.texts = LiveTexts()  # what a language switch sets again
        weight = QLabel(self)
        self.texts.set(weight.setText, lambda: self.tr("Weight:"))
        top.addWidget(weight)
        top.addWidget(self.weight)
        top.addStretch(1)
        self.figure = pg.GraphicsLayoutWidget(self)
        self.figure.scene().setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)  # as gui/plots/view.py
        self.figure.setMinimumHeight(180)
        self.heatmaps: list[Heatmap] = []  # W before, ∂L/∂W, W after: built when a step is first shown
        layout = scrolling_layout(self)
        layout.addWidget(self.loss)
        layout.addLayout(top)
        layout.addWidget(self.figure, 1)
        state.undo_stack.indexChanged.connect(self._stack_moved)
        state.cursorChanged.connect(self._follow_stage)
        state.display.changed.connect(self._settings_changed)
        self.show_step(self._last_step(state.undo_stack.index()))  # a window built anew (a new text size) too

    def _settings_changed(self, names: frozenset[str]) -> None:
        if "colormap" in names:
            self._draw()

    def retranslate(self) -> None:
        """Another language: the fixed texts, and the step shown said again (its weights' places, its captions)."""
        self.texts.retranslate()
        chosen = self.weight.currentData()
        self.show_step(self.step)
        if chosen is not None:
            self.weight.setCurrentIndex(self.weight.findData(chosen))

    def _stack_moved(self, index: int) -> None:
        """An edit, undo or redo: show the step if it is now the last command done (an edit after an edit changes
        nothing here)."""
        if not isValid(self.state.undo_stack):  # (it signals as it is destroyed)
            return
        step = self._last_step(index)
        if step is not self.step:
            self.show_step(step)

    def _last_step(self, index: int) -> TrainingStep | None:
        """The step of the command before `index` on the undo stack, if that is a training step."""
        command = self.state.undo_stack.command(index - 1) if index > 0 else None
        return command.step if isinstance(command, TrainingStepCommand) else None

    def show_step(self, step: TrainingStep | None) -> None:
        self.step = step
        self.weight.blockSignals(True)
        self.weight.clear()
        for k, name in enumerate(self._weights(step)):  # "W_Q (Encoder · Block 0 · …)"
            self.weight.addItem(weight_title(self.state.view, name), name)
            self.weight.setItemData(k, name, Qt.ToolTipRole)
        self.weight.blockSignals(False)
        self.weight.setEnabled(step is not None)
        self.figure.setVisible(step is not None)
        if step is None:
            self.loss.setText(
                self.tr(
                    "Model ▸ Take one training step shows here each weight before the step, "
                    "its gradient ∂L/∂W and after it."
                )
            )
            return
        self.loss.setText(
            self.tr("Training step: loss {0} → {1}; W after = W − {2:g}·∂L/∂W").format(
                *loss_texts(step.loss_before, step.loss_after), step.lr
            )
        )
        self._follow_stage()
        self._draw()

    def _weights(self, step: TrainingStep | None) -> list[str]:
        """The step's weights that a stage of the model reads, in the model's order. With "No LayerNorm" on, no
        stage reads the LayerNorms' gamma and beta: their gradient is 0, the step leaves them as they were, and
        they have no place in the model to be named by."""
        read = {name for stage in self.state.view.stages for name in stage.inputs}
        return [name for name in (step.params if step is not None else ()) if name in read]

    def _follow_stage(self, *_) -> None:
        """Show the current stage's first weight, if it has one."""
        if self.step is None:
            return
        stage = self.state.view.stage(self.state.current_stage)
        weights = [name for name in (stage.inputs if stage is not None else ()) if name in self.step.params]
        if weights:
            self.weight.setCurrentIndex(self.weight.findData(weights[0]))

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._draw()  # a step taken while the dock was hidden

    def _draw(self, *_) -> None:
        name = self.weight.currentData()
        if self.step is None or name not in self.step.params or not self.isVisible():  # hidden: nothing to draw
            return
        opts = self.state.display.plot_options()
        if not self.heatmaps:
            self.heatmaps = [Heatmap(self.figure.ci, opts, signed=True, row=0, col=col) for col in range(3)]
            for col in range(3):  # the room shared alike
                self.figure.ci.layout.setColumnStretchFactor(col, 1)
        update = self.step.params[name]
        before, grad, after = (
            np.atleast_2d(t.detach().double().numpy()) for t in (update.before, update.grad, update.after)
        )
        top = float(max(np.abs(before).max(), np.abs(after).max())) or 1.0
        grad_top = float(np.abs(grad).max()) or 1.0
        # titles alike in length, so the three matrices of one shape are drawn alike (the rule is said above them)
        captions = [self.tr("W before"), "∂L/∂W", self.tr("W after")]
        rows, cols = [str(i) for i in range(before.shape[0])], [str(j) for j in range(before.shape[1])]
        for heatmap, matrix, levels, caption in zip(
            self.heatmaps, (before, grad, after), ((-top, top), (-grad_top, grad_top), (-top, top)), captions
        ):
            heatmap.set(matrix, rows, cols, opts, caption=caption, levels=levels)


def show_on_step(window, dock: QDockWidget) -> None:
    """The training step's dock (gui/docks/registry.py adds it, hidden) shown once Model ▸ Take one training step
    has taken a step."""
    view = dock.widget()
    window.training_step.step_action.triggered.connect(lambda: dock.show() if view.step is not None else None)
