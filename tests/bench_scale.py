"""The edit budgets at scale, through the app's real launch path (autosave on): undo and redo after 1,000 edits, an
edit with a 200-token sentence, and generating 20 tokens with the KV cache.

    python tests/bench_scale.py [--samples 60]

- undo / redo: the classroom lesson of tests/bench_latency.py (n = 6, d = 8, 2 heads, 2 layers) opened as
  `python main.py` opens it, at Q = X·W_Q; 1,000 edits of W_Q cells are made first (then the window is left idle
  for 2 s, as a teacher would, so the autosave journal is compacted as in the app); then `--samples` undos and as
  many redos, each timed from the call until the W_Q and Q tables and the plots have repainted (as bench_latency
  times an edit);
- edit, 200 tokens: the same model on a 200-token sentence, `--samples` W_Q edits timed the same way;
- generate: the masked-decoder lesson with the Generate and KV cache docks open, Generate next token (sampled, so that
  it does not stop at <end>) 20 times, each timed until the event loop is idle with the window repainted (as
  bench_actions times an action).

Medians and the largest; the last line is
`scale median ms: undo=<u> redo=<r> edit200=<e> generate=<g>`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from functools import partial
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["STEPFORMER_SETTINGS_DIR"] = tempfile.mkdtemp(prefix="stepformer-bench-settings-")
os.environ["STEPFORMER_DATA_DIR"] = tempfile.mkdtemp(prefix="stepformer-bench-data-")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyqtgraph as pg  # noqa: E402
import torch  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from engine.formats.lesson import open_lesson  # noqa: E402
from gui.idle_collection import collect_between_events  # noqa: E402
from gui.launch import launch  # noqa: E402
from gui.state.app_state import AppState  # noqa: E402
from tests.bench_actions import pause, settle, timed  # noqa: E402
from tests.bench_latency import LESSONS, STAGE, W_Q, edit, sentence, until_repainted, watch_stage  # noqa: E402

EDITS = 1000
TOKENS = 200
GENERATED = 20


def opened(app: QApplication, state: AppState):
    """The window on `state` as `python main.py` opens it, un-maximised at 1600×1000."""
    controller = launch(state, "en", start_page=False)
    controller.window.showNormal()
    controller.window.resize(1600, 1000)
    settle(app)
    return controller


def closed(app: QApplication, controller) -> None:
    controller.prompts.unsaved = lambda *_: "discard"
    controller.window.close()
    settle(app)


def undo_redo(app: QApplication, samples: int) -> tuple[list[float], list[float]]:
    config, n = LESSONS["small"]
    state = AppState(config, sentence(n))
    controller = opened(app, state)
    counter = watch_stage(app, controller.window, STAGE, W_Q)
    model = next(p for p in controller.window.stage_view.inputs if p.model.slice.name == W_Q).model
    for k in range(EDITS):
        (row, col), value = edit(k)
        assert model.setData(model.index(row, col), value), f"edit {k} refused"
        app.processEvents()
    pause(app, 2.0)
    stack = state.undo_stack
    assert stack.count() == EDITS
    undos = [until_repainted(app, counter, stack.undo, f"undo {k}") for k in range(samples)]
    redos = [until_repainted(app, counter, stack.redo, f"redo {k}") for k in range(samples)]
    assert stack.index() == EDITS
    closed(app, controller)
    return undos, redos


def long_sentence(app: QApplication, samples: int) -> list[float]:
    config, _ = LESSONS["small"]
    state = AppState(replace(config, max_len=max(config.max_len, TOKENS)), sentence(TOKENS))
    assert not state.problem, state.problem
    controller = opened(app, state)
    counter = watch_stage(app, controller.window, STAGE, W_Q)
    model = next(p for p in controller.window.stage_view.inputs if p.model.slice.name == W_Q).model
    times = []
    for k in range(samples):
        (row, col), value = edit(k)
        times.append(until_repainted(app, counter, partial(model.setData, model.index(row, col), value), f"edit {k}"))
    closed(app, controller)
    return times


def generation(app: QApplication) -> list[float]:
    lesson = open_lesson("masked-decoder")
    state = AppState(lesson.config, lesson.text, lesson.target, model=lesson.build_model())
    state.load_lesson(lesson)
    controller = opened(app, state)
    teaching = controller.window.teaching
    for dock in (teaching.generation_dock, teaching.kv_dock):
        dock.show()
    panel = teaching.generation
    panel.sampled.setChecked(True)
    settle(app)
    times = []
    while len(times) < GENERATED:
        pause(app, 0.3)
        took = timed(app, panel.generate)
        if panel.can_generate():  # it drew <end>: take it back (untimed) and draw again with another seed
            state.undo_stack.undo()
            panel.seed.setValue(panel.seed.value() + 1)
            settle(app)
            continue
        times.append(took)
    closed(app, controller)
    return times


def line(name: str, times: list[float]) -> str:
    return f"{name:14} median {statistics.median(times):7.1f} ms   max {max(times):7.1f} ms   ({len(times)} samples)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=60, help="undos, redos and edits timed")
    args = parser.parse_args()
    samples = max(10, args.samples)
    torch.set_num_threads(1)  # as the app runs
    app = QApplication.instance() or QApplication([])
    collect_between_events()  # as the app does once torch and pyqtgraph are imported (gui/app.py)
    pg.setConfigOptions(background="w", foreground="k", antialias=True)
    start = time.perf_counter()
    undos, redos = undo_redo(app, samples)
    print(line("undo (1,000)", undos), flush=True)
    print(line("redo (1,000)", redos), flush=True)
    edits = long_sentence(app, samples)
    print(line("edit, 200 tok", edits), flush=True)
    generated = generation(app)
    print(line("generate", generated), flush=True)
    print(f"  ({time.perf_counter() - start:.0f} s)")
    print(
        f"scale median ms: undo={statistics.median(undos):.1f} redo={statistics.median(redos):.1f} "
        f"edit200={statistics.median(edits):.1f} generate={statistics.median(generated):.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
