"""How long the window takes to answer a teacher's actions, with every dock open (or as the app opens them).

    python tests/bench_actions.py [--rounds 12] [--model two-heads|toy|lm]

On a classroom lesson (two-heads), the English→Chinese toy translator (`--model toy`) and the tiny Chinese language
model (`--model lm`), the window is
shown as `python main.py` shows it (a LessonController), un-maximised at 1280×720 (`--size`), and every dock is
opened from the View menu in turn: heads, what if, generation, KV cache, cost (`--docks default`: only those the app
opens with). Where a dock has no room beside the stage view (1280×720) it floats over its right part, and the docks
floating there take turns (gui/docks/placement.py): the one opened last, the cost of the model, is the one shown;
at 1920×1080 they all stand beside the stage view, the heads and what-if docks tabbed. Each action is timed from
the call that a menu, key or click makes until the event loop is idle again with the window repainted:

    step      one stage forward or back (Right / Left)
    jump      to a stage far away (the stage list)
    what-if   a what-if switch on or off (undoable)
    language  English ⇄ Chinese (the window and its figures switch in place)
    undo      undo of the last change (a weight edit or a switch), then its redo
    head      the head shown (Heads ▸ head 0 / 1)

Between two actions the teacher pauses (`--pause`, 1 s: the event loop runs, untimed, and the window draws the
figures of the stages next to the cursor ahead, gui/views/prefetch.py); `--pause 0` takes the actions back to back.
Each row gives the median and the largest time per action; the last line sums up: the median over all actions
and the slowest single action of each model. `--cpu` counts the process's CPU time instead of the wall clock:
on a machine shared with other work it compares two versions more fairly (the window's work is all on one
thread; waiting for the CPU is left out).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["STEPFORMER_SETTINGS_DIR"] = tempfile.mkdtemp(prefix="stepformer-bench-settings-")
os.environ["STEPFORMER_DATA_DIR"] = tempfile.mkdtemp(prefix="stepformer-bench-data-")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyqtgraph as pg  # noqa: E402
import torch  # noqa: E402
from PySide6.QtCore import QEvent, QEventLoop, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from engine import sources  # noqa: E402
from engine.formats.lesson import open_lesson  # noqa: E402
from gui.idle_collection import collect_between_events  # noqa: E402
from gui.lesson.controller import LessonController  # noqa: E402
from gui.state.app_state import AppState  # noqa: E402
from tests.gui_lessons import FakePrompts  # noqa: E402

IDLE_PASSES = 3  # event-loop passes in a row that find nothing left to do
NEVER_IDLE_S = 60  # an action still busy after this long is a defect, not a slow action
clock = time.perf_counter  # or time.process_time (--cpu)


def lesson_state() -> AppState:
    lesson = open_lesson("two-heads")
    state = AppState(lesson.config, lesson.text, lesson.target, model=lesson.build_model())
    state.load_lesson(lesson)
    return state


def opened_state(opened: sources.Opened) -> AppState:
    state = AppState(opened.model.config, opened.text, opened.target, model=opened.model)
    state.load_model(opened.model, opened.text, opened.target, opened.stage, opened.title, opened.description)
    return state


def toy_state() -> AppState:
    return opened_state(sources.toy_translator())


def lm_state() -> AppState:
    return opened_state(sources.tiny_lm())


MODELS = {"two-heads": lesson_state, "toy": toy_state, "lm": lm_state}


def settle(app: QApplication) -> None:
    """Run the event loop until it is idle: the lazy views drawn, the window painted, and what was deleteLater'd
    deleted, as the application's event loop does (processEvents does not: a window replaced by a language switch
    stayed, hidden, and went on redrawing for every later action)."""
    quiet, began = 0, time.perf_counter()
    while quiet < IDLE_PASSES:
        start = time.perf_counter()
        if start - began > NEVER_IDLE_S:
            raise RuntimeError(f"the window was still busy after {NEVER_IDLE_S} s (a layout that never settles?)")
        app.processEvents()
        app.sendPostedEvents()
        app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        quiet = quiet + 1 if time.perf_counter() - start < 0.001 else 0


def pause(app: QApplication, seconds: float) -> None:
    """A teacher's pause between two actions, untimed: the application's event loop runs, waiting for input as it
    does in the app (what it starts when idle, then finished)."""
    if seconds > 0:
        loop = QEventLoop()
        QTimer.singleShot(round(seconds * 1000), loop.quit)
        loop.exec()
    settle(app)


def timed(app: QApplication, action: Callable[[], object]) -> float:
    """ms from the action until the event loop is idle again (the idle passes themselves not counted)."""
    start = clock()
    action()
    settle(app)
    return max(0.0, (clock() - start) * 1000 - IDLE_PASSES * 0.5)


def open_window(
    app: QApplication, make_state: Callable[[], AppState], every_dock: bool = True, size: tuple[int, int] = (1280, 720)
) -> LessonController:
    controller = LessonController(make_state(), "en", prompts=FakePrompts())
    window = controller.show_window()
    window.showNormal()
    window.setWindowState(Qt.WindowNoState)
    window.resize(*size)
    settle(app)
    if every_dock:
        for dock in window.teaching.docks():
            if not dock.isVisible():  # (the window of the model measured before left its docks' layout stored)
                dock.toggleViewAction().trigger()  # as the View menu opens it: beside the stage view, or over it
                settle(app)
    pause(app, 0.3)  # (the docks are placed again once the window has its size: gui/docks/placement.py)
    shown = [dock.objectName().removeprefix("dock_") for dock in window.teaching.docks() if dock.isVisible()]
    print(f"{window.width()}×{window.height()}, docks shown: {', '.join(shown) or 'none'}", flush=True)
    return controller


def actions(controller: LessonController) -> dict[str, Callable[[], object]]:
    """One call per action; called again, each does the opposite (back, undo ⇄ redo, the other language …)."""
    state = controller.state
    names = state.stage_names
    far = {"there": names[-1], "back": names[len(names) // 3]}
    attention = next(n for n in names if n.endswith("attn.weights"))
    weight = next(n for n in state.trace.params if n.endswith("ffn.W1"))
    flips = {"step": 1, "jump": "there", "language": "zh", "head": 1}

    def step():
        flips["step"] = -flips["step"]
        state.step(flips["step"])

    def jump():
        flips["jump"] = "back" if flips["jump"] == "there" else "there"
        state.go_to(far[flips["jump"]])

    def switch():
        state.set_switch("no_scale", "no_scale" not in state.config.switches)

    def language():
        flips["language"] = "en" if flips["language"] == "zh" else "zh"
        controller.set_language("zh" if flips["language"] == "en" else "en")

    def undo():
        stack = state.undo_stack
        stack.redo() if stack.canRedo() else stack.undo()

    def head():
        flips["head"] = 1 - flips["head"]
        state.set_head(flips["head"])

    state.go_to(attention)
    assert state.edit_cell(weight, (0, 0), 0.75)
    return {"step": step, "jump": jump, "what-if": switch, "language": language, "undo": undo, "head": head}


def measure(
    app: QApplication,
    make_state: Callable[[], AppState],
    rounds: int,
    seconds: float,
    every_dock: bool,
    size: tuple[int, int],
) -> dict[str, list[float]]:
    controller = open_window(app, make_state, every_dock, size)
    todo = actions(controller)
    settle(app)
    samples: dict[str, list[float]] = {name: [] for name in todo}
    for _ in range(rounds):
        for name, action in todo.items():
            if name != "step":
                controller.state.go_to(next(n for n in controller.state.stage_names if n.endswith("attn.weights")))
                settle(app)
            pause(app, seconds)
            samples[name].append(timed(app, action))
    controller.state.undo_stack.setClean()
    controller.window.close()
    settle(app)
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=12, help="times each action is taken per model")
    parser.add_argument("--cpu", action="store_true", help="count CPU time, not the wall clock")
    parser.add_argument("--pause", type=float, default=1.0, help="seconds between two actions (0: back to back)")
    parser.add_argument(
        "--docks", choices=("every", "default"), default="every", help="every dock open, or as the app opens them"
    )
    parser.add_argument("--model", choices=("all", *MODELS), default="all", help="one of the models, or all")
    parser.add_argument("--size", default="1280x720", help="the window's size, WIDTHxHEIGHT")
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.lower().split("x"))
    global clock
    clock = time.process_time if args.cpu else time.perf_counter
    torch.set_num_threads(1)  # as the app runs
    app = QApplication.instance() or QApplication([])
    collect_between_events()  # as the app does once torch and pyqtgraph are imported (gui/app.py)
    pg.setConfigOptions(background="w", foreground="k", antialias=True)
    summary = []
    for model, make_state in MODELS.items():
        if args.model not in ("all", model):
            continue
        samples = measure(app, make_state, max(2, args.rounds), max(0.0, args.pause), args.docks == "every", size)
        for name, times in samples.items():
            print(
                f"{model:10} {name:9} median {statistics.median(times):7.1f} ms   max {max(times):7.1f} ms", flush=True
            )
        every = [t for times in samples.values() for t in times]
        summary.append(f"{model} median {statistics.median(every):.0f} ms max {max(every):.0f} ms")
    docks = "every dock opened" if args.docks == "every" else "the docks the app opens with"
    print(f"actions at {args.size} with {docks}: " + "; ".join(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
