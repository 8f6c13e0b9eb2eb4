"""Helpers for the window tests: open a window on a lesson, read what it shows."""

from __future__ import annotations

import pyqtgraph as pg
import torch
from PySide6.QtCore import QEvent, QObject, QRect
from PySide6.QtWidgets import QApplication

from engine import ModelConfig
from engine.formats.lesson import open_lesson
from gui.state.app_state import AppState
from gui.window.main_window import MainWindow

SMALL = ModelConfig(architecture="encoder", d_model=4, n_heads=2, d_ff=8, n_layers=1, decimals=1)


def open_window(qtbot, config: ModelConfig = SMALL, text: str = "I love AI", target: str = "") -> MainWindow:
    return show_window(qtbot, AppState(config, text, target))


def open_lesson_window(qtbot, name: str, text: str | None = None, target: str | None = None) -> MainWindow:
    """A shipped lesson's window, optionally with other sentences (no controller: no autosave, no prompts)."""
    lesson = open_lesson(name)
    return show_window(
        qtbot,
        AppState(
            lesson.config,
            lesson.text if text is None else text,
            lesson.target if target is None else target,
            model=lesson.build_model(),
        ),
    )


def show_window(qtbot, state: AppState) -> MainWindow:
    pg.setConfigOptions(background="w", foreground="k")
    torch.set_num_threads(1)
    window = MainWindow(state)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    return window


def snapshot(state: AppState) -> dict[str, torch.Tensor]:
    """Every stage and parameter tensor now (edits replace tensors, so references stay as they were)."""
    return {**state.trace.values, **state.trace.params}


def panel_for(window: MainWindow, name: str):
    """The matrix panel of the stage view showing tensor `name`."""
    view = window.stage_view
    for panel in [*view.inputs, view.output]:
        if panel.model.slice is not None and panel.model.slice.name == name:
            return panel
    raise AssertionError(f"{name} is not shown; shown: {[p.model.slice.name for p in view.panels()]}")


def press(qtbot, widget, key, modifier=None) -> None:
    """A key as a person presses it: into the active window (shortcuts only reach the active window)."""
    window = widget.window()
    if not window.isActiveWindow():
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow)
    if modifier is None:
        qtbot.keyClick(widget, key)
    else:
        qtbot.keyClick(widget, key, modifier)


class Regions(QObject):
    """The regions a widget is asked to paint."""

    def __init__(self):
        super().__init__()
        self.painted: list[QRect] = []

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.painted.append(event.region().boundingRect())
        return False


def settle(qtbot, passes: int = 5, wait_ms: int = 5) -> None:
    """Let the window draw and paint what it leaves to the event loop (lazy figures, timers)."""
    for _ in range(passes):
        QApplication.processEvents()
        qtbot.wait(wait_ms)
