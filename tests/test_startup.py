"""Start-up: a window before torch has loaded, keys pressed meanwhile kept, a broken install said in one line."""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
import time
from pathlib import Path

from PySide6.QtCore import Qt

from engine.formats.lesson import open_lesson
from gui.launch import launch
from gui.state.app_state import AppState
from gui.window.loading import OPENING, LoadingWindow, ModuleLoader, replay_keys

ROOT = Path(__file__).resolve().parent.parent


def test_the_first_window_shows_before_torch_is_imported(tmp_path):
    env = {
        **os.environ,
        "STEPFORMER_STARTUP_REPORT": "1",
        "QT_QPA_PLATFORM": "offscreen",
        "STEPFORMER_DATA_DIR": str(tmp_path / "data"),
        "STEPFORMER_SETTINGS_DIR": str(tmp_path / "settings"),
    }
    proc = subprocess.Popen(
        [sys.executable, "main.py", "--lesson", "i-love-ai"],
        cwd=ROOT,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        lines = read_lines(proc, 2, timeout=90)
    finally:
        proc.kill()
        proc.wait()
    assert lines == ["stepformer-startup window-shown torch=no", "stepformer-startup lesson-shown torch=yes"]


def read_lines(proc: subprocess.Popen, count: int, timeout: float) -> list[str]:
    """Up to `count` lines of the process's stdout, waiting at most `timeout` seconds in all (a window that
    never opens must fail the test, not hang it)."""
    lines, deadline = [], time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        while len(lines) < count and selector.select(max(0.0, deadline - time.monotonic())):
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line.strip())
    return lines


def test_a_failure_while_opening_ends_the_app_instead_of_leaving_the_loading_window(monkeypatch, capsys):
    """Whatever goes wrong after the loading window (here: a defect in opening the lesson), the app ends with the
    reason instead of waiting for ever behind "Opening the lesson…"."""
    import gui.app

    class Stub:
        closed = exit_code = None

        def close(self):
            self.closed = True

        def exit(self, code):
            self.exit_code = code

    def broken(*_):
        raise ImportError("cannot import name 'write_atomic'")

    monkeypatch.setattr(gui.app, "open_lesson_window", broken)
    app, loading = Stub(), Stub()
    assert gui.app.open_or_exit(app, None, "en", loading, "") is None
    assert app.exit_code == 1 and loading.closed
    assert "write_atomic" in capsys.readouterr().err


def test_a_bad_lesson_still_ends_with_one_line_and_exit_code_2(tmp_path):
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "STEPFORMER_DATA_DIR": str(tmp_path / "data"),
        "STEPFORMER_SETTINGS_DIR": str(tmp_path / "settings"),
    }
    done = subprocess.run(
        [sys.executable, "main.py", "--lesson", "no-such-lesson"],
        cwd=ROOT,
        env=env,
        text=True,
        capture_output=True,
        timeout=60,
    )
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


def test_what_is_loading_stands_centred_under_the_title_even_when_painted_before_a_layout(qtbot):
    loading = LoadingWindow()
    qtbot.addWidget(loading)
    loading.resize(1280, 720)
    loading.show()
    qtbot.waitExposed(loading)
    loading.show_step("Loading the Transformer engine…")
    qtbot.wait(50)  # laid out for the longer text
    loading.show_step(OPENING)
    loading.repaint()  # as open_lesson_window paints it, straight away, before the lesson is built
    step = loading.step
    drawn = step.fontMetrics().boundingRect(step.contentsRect(), int(step.alignment()), step.text())
    centre = step.mapTo(loading, drawn.center()).x()
    assert abs(centre - loading.bar.mapTo(loading, loading.bar.rect().center()).x()) <= 2


def test_a_module_that_cannot_load_is_reported_not_raised(qtbot):
    loader = ModuleLoader([("stepformer_no_such_module", "Loading…")])
    with qtbot.waitSignal(loader.done, timeout=5000) as done:
        loader.start()
    assert done.args[0].startswith("ModuleNotFoundError")


QUIT_AFTER_EVERY_STAGE = """
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
import gui.launch
from gui.app import run_app

launch = gui.launch.launch


def launch_then_step_and_quit(*args, **kwargs):
    controller = launch(*args, **kwargs)
    names = controller.state.stage_names

    def show(i):
        if i == len(names):
            QApplication.instance().quit()  # the event loop ends with the window open
            return
        controller.state.go_to(names[i])
        QTimer.singleShot(50, lambda: show(i + 1))

    QTimer.singleShot(200, lambda: show(0))
    return controller


gui.launch.launch = launch_then_step_and_quit
sys.exit(run_app(sys.argv[1:]))
"""


def test_the_app_ends_cleanly_when_its_event_loop_ends_with_the_window_open(tmp_path):
    """quit() with the presentation window open, every stage of the-cat-sat shown: the process ended in a
    segmentation fault, Python's exit deleting the window's figures (and pyqtgraph's menus) in no order."""
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "STEPFORMER_DATA_DIR": str(tmp_path / "data"),
        "STEPFORMER_SETTINGS_DIR": str(tmp_path / "settings"),
    }
    done = subprocess.run(
        [sys.executable, "-X", "faulthandler", "-c", QUIT_AFTER_EVERY_STAGE, "--lesson", "the-cat-sat", "--present"],
        cwd=ROOT,
        env=env,
        text=True,
        capture_output=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
