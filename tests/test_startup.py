"""Start-up: a window before torch has loaded, keys pressed meanwhile kept, a broken install said in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import Qt

from engine.lesson import open_lesson
from gui.lesson_controller import launch
from gui.loading import LoadingWindow, ModuleLoader, replay_keys
from gui.state import AppState

ROOT = Path(__file__).resolve().parent.parent


def test_the_first_window_shows_before_torch_is_imported(tmp_path):
    env = {**os.environ, "STEPFORMER_STARTUP_REPORT": "1", "QT_QPA_PLATFORM": "offscreen",
           "STEPFORMER_DATA_DIR": str(tmp_path / "data"), "STEPFORMER_SETTINGS_DIR": str(tmp_path / "settings")}
    proc = subprocess.Popen([sys.executable, "main.py", "--lesson", "i-love-ai"], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        lines = [proc.stdout.readline().strip() for _ in range(2)]
    finally:
        proc.kill()
        proc.wait()
    assert lines == ["stepformer-startup window-shown torch=no", "stepformer-startup lesson-shown torch=yes"]


def test_a_bad_lesson_still_ends_with_one_line_and_exit_code_2(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "STEPFORMER_DATA_DIR": str(tmp_path / "data"),
           "STEPFORMER_SETTINGS_DIR": str(tmp_path / "settings")}
    done = subprocess.run([sys.executable, "main.py", "--lesson", "no-such-lesson"], cwd=ROOT, env=env, text=True,
                          capture_output=True, timeout=60)
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.startswith("stepformer:")]
    assert len(lines) == 1 and "no-such-lesson" in lines[0]


def test_keys_pressed_while_loading_step_once_the_lesson_is_there(qtbot):
    loading = LoadingWindow()
    qtbot.addWidget(loading)
    loading.show()
    qtbot.waitExposed(loading)
    for key in (Qt.Key_Right, Qt.Key_PageDown, Qt.Key_A, Qt.Key_Right):
        qtbot.keyClick(loading, key)
    keys = loading.stop_collecting()
    qtbot.keyClick(loading, Qt.Key_Right)  # after loading: no longer collected
    assert len(keys) == 4

    lesson = open_lesson("i-love-ai")
    state = AppState(lesson.config, lesson.text, lesson.target, model=lesson.build_model())
    state.load_lesson(lesson)
    start = state.cursor
    controller = launch(state, "en", "i-love-ai", start_page=False)
    qtbot.addWidget(controller.window)
    assert replay_keys(controller.window, keys) == 1  # "a" has no use: left out, and said so
    assert state.cursor == start + 3


def test_a_module_that_cannot_load_is_reported_not_raised(qtbot):
    loader = ModuleLoader([("stepformer_no_such_module", "Loading…")])
    with qtbot.waitSignal(loader.done, timeout=5000) as done:
        loader.start()
    assert done.args[0].startswith("ModuleNotFoundError")
