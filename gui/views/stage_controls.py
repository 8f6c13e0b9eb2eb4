"""The row of controls above the stage's tables: the head shown (a model with several heads, at a stage with one
matrix per head), the temperature of the next-token plot, and Show change from before the last edit. The head and
the temperature are display settings; the stage view says which controls its stage shows."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSlider, QToolButton, QWidget

from gui.state.display import DisplaySettings
from gui.text.live_texts import LiveTexts

TEMPERATURE_STEPS = 10  # the slider's steps per unit of temperature: 0.1 … 5.0


def tr(text: str) -> str:
    return QCoreApplication.translate("StageControls", text)  # (pyside6-lupdate files these under "")


class StageControls:
    """The controls' widgets (children of `parent`) and `row`, the layout that holds them."""

    def __init__(self, parent: QWidget, settings: DisplaySettings, set_head: Callable[[int], None]):
        self.settings = settings
        self.texts = LiveTexts()  # what a language switch sets again
        self.head_label = QLabel(parent)
        self.texts.set(self.head_label.setText, lambda: tr("Head:"))
        self.head_box = QComboBox(parent)
        self.head_box.setFocusPolicy(Qt.NoFocus)
        # as wide as its items in the language shown ("0 of 2" in zh is wider: cut after a switch, sized for English)
        self.head_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.head_box.activated.connect(set_head)
        self.temp_label = QLabel(parent)
        self.temp_slider = QSlider(Qt.Horizontal, parent)
        self.temp_slider.setRange(1, 5 * TEMPERATURE_STEPS)
        self.temp_slider.setFixedWidth(160)
        self.temp_slider.setFocusPolicy(Qt.NoFocus)
        self.temp_slider.valueChanged.connect(lambda value: settings.set(temperature=value / TEMPERATURE_STEPS))
        self.show_temperature()
        self.difference_action = QAction(parent)
        self.texts.set(self.difference_action.setText, lambda: tr("Show change from before the last edit"))
        self.difference_action.setCheckable(True)
        self.difference_button = QToolButton(parent)
        self.difference_button.setDefaultAction(self.difference_action)
        self.difference_button.setFocusPolicy(Qt.NoFocus)

        self.row = row = QHBoxLayout()
        row.addWidget(self.head_label)
        row.addWidget(self.head_box)
        row.addSpacing(16)
        row.addWidget(self.temp_label)
        row.addWidget(self.temp_slider)
        row.addStretch(1)
        row.addWidget(self.difference_button)

    def retranslate(self) -> None:
        """(The head box's items come with the stage: show_heads.)"""
        self.texts.retranslate()
        self.show_temperature()

    def show_heads(self, n_heads: int, head: int) -> None:
        """The head box lists the model's heads ("0 of 2", …), at `head`. (Listed again only when the list changes: a
        box that follows its items' width would be laid out again at every step.)"""
        items = [tr("{0} of {1}").format(h, n_heads) for h in range(n_heads)]
        if [self.head_box.itemText(i) for i in range(self.head_box.count())] != items:
            self.head_box.clear()
            self.head_box.addItems(items)
        self.head_box.setCurrentIndex(head)

    def show_head_choice(self, on: bool) -> None:
        self.head_label.setVisible(on)
        self.head_box.setVisible(on)

    def show_temperature_choice(self, on: bool) -> None:
        self.temp_label.setVisible(on)
        self.temp_slider.setVisible(on)

    def show_temperature(self) -> None:
        """The slider and its label at the temperature in force (the Generate panel sets it too)."""
        temperature = self.settings.temperature
        self.temp_label.setText(tr("Temperature T = {0:g}").format(temperature))
        self.temp_slider.blockSignals(True)
        self.temp_slider.setValue(round(temperature * TEMPERATURE_STEPS))  # within the slider's range
        self.temp_slider.blockSignals(False)
