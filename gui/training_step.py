"""Model ▸ Take one training step, with its learning rate (a spin box in the same menu, remembered)."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QLabel, QMenu, QWidget, QWidgetAction

from engine.backward import MAX_LR

from .preferences import read, write
from .state import AppState

DEFAULT_LR = 0.1


class TrainingStepActions(QObject):
    """The menu action and the learning rate it uses; the step itself is AppState.take_training_step."""

    def __init__(self, state: AppState, menu: QMenu):
        super().__init__(menu)
        self.state = state
        self.step_action = menu.addAction(self.tr("Take one training step"))
        self.step_action.setToolTip(self.tr("W ← W − lr·∂L/∂W for every weight, on this sentence (Ctrl+Z undoes it)"))
        self.step_action.triggered.connect(self.take_step)
        row = QWidget(menu)
        layout = QHBoxLayout(row)
        layout.setContentsMargins(24, 2, 8, 2)
        layout.addWidget(QLabel(self.tr("Learning rate:"), row))
        self.lr = QDoubleSpinBox(row)
        self.lr.setDecimals(4)
        self.lr.setRange(0.0001, MAX_LR)
        self.lr.setSingleStep(0.01)
        self.lr.setValue(read("training/lr", DEFAULT_LR, float))
        self.lr.valueChanged.connect(lambda value: write("training/lr", value))
        layout.addWidget(self.lr)
        holder = QWidgetAction(menu)
        holder.setDefaultWidget(row)
        menu.addAction(holder)
        state.lessonChanged.connect(self._enable)
        self._enable()

    def _enable(self) -> None:
        """Only a model with an output head has a loss to lower."""
        self.step_action.setEnabled("probs" in self.state.trace.values)

    def take_step(self) -> bool:
        return self.state.take_training_step(self.lr.value())
