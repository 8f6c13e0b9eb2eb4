"""Edit-to-repaint latency through the app's real launch path, beside the engine's own recompute.

    python tests/bench_latency.py [--edits 60]

For a classroom lesson (n = 6 tokens, d = 8, 2 heads, 2 layers) and a large one (n = 64, d = 384,
12 heads, 6 layers) the window is opened as `python main.py` opens it (`gui.launch.launch`,
with its LessonController and autosave, in a fresh settings and data folder), shown normal at 1600×1000,
at the stage Q = X·W_Q (W_Q, X, b_Q and Q as tables, and its plots). Each edit commits a new number into
a W_Q cell through the table model (as the cell editor does), then runs the event loop until every
visible table and the plot area have been repainted. The time from the commit to the last repaint is
one sample. The same edits are then made on a bare engine trace (`Trace.set_cell`: the incremental
recompute alone), and on a bare MainWindow of a fresh lesson (no controller, no autosave): the real path's
cost over the bare window is what the controller and the autosave journal add. Medians are reported; the
last line is `edit-to-repaint median ms: small=<x> large=<y> engine: small=<a> large=<b>`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyqtgraph as pg  # noqa: E402
import torch  # noqa: E402
from PySide6.QtCore import QEvent, QObject  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from engine import Model, ModelConfig  # noqa: E402
from gui.idle_collection import collect_between_events  # noqa: E402
from gui.state.app_state import AppState  # noqa: E402
from gui.window.main_window import MainWindow  # noqa: E402

LESSONS = {
    "small": (ModelConfig(d_model=8, n_heads=2, d_ff=16, n_layers=2, decimals=1), 6),
    "large": (ModelConfig(d_model=384, n_heads=12, d_ff=1536, n_layers=6), 64),
}
STAGE = "enc.0.attn.q"
W_Q = "enc.0.attn.W_Q"


class PaintCounter(QObject):
    """Counts paint events of the widgets it watches."""

    def __init__(self, widgets):
        super().__init__()
        self.counts = {w: 0 for w in widgets}
        for w in widgets:
            w.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Paint and obj in self.counts:
            self.counts[obj] += 1
        return False

    def all_painted_since(self, before: dict) -> bool:
        return all(self.counts[w] > before[w] for w in self.counts)


def edit(k: int) -> tuple[tuple[int, int], str]:
    """The k-th edit: a W_Q cell in view at 1600×1000 in every lesson measured, and its new value."""
    return (k % 6, k % 3), f"{0.1 * ((k % 19) - 9) + 0.05:.2f}"


def sentence(n: int) -> str:
    return " ".join(f"w{i}" for i in range(n))


def measure(app: QApplication, name: str, edits: int) -> float:
    """Median ms per edit through `launch` (LessonController, autosave on)."""
    from gui.launch import launch

    config, n = LESSONS[name]
    state = AppState(config, sentence(n))
    with tempfile.TemporaryDirectory(prefix="stepformer-bench-") as folder:
        os.environ["STEPFORMER_SETTINGS_DIR"] = str(Path(folder) / "settings")
        os.environ["STEPFORMER_DATA_DIR"] = str(Path(folder) / "data")
        controller = launch(state, "en", start_page=False)
        window = controller.window
        window.showNormal()
        median = time_edits(app, state, STAGE, W_Q, edits, window)
        controller.prompts.unsaved = lambda *_: "discard"
        window.close()
    return median


def measure_bare(app: QApplication, name: str, edits: int) -> float:
    """Median ms per edit in a bare MainWindow (no LessonController, no autosave), the same edits."""
    config, n = LESSONS[name]
    return time_edits(app, AppState(config, sentence(n)), STAGE, W_Q, edits)


def measure_engine(name: str, edits: int) -> float:
    """Median ms per edit of the engine's incremental recompute alone (the same edits)."""
    config, n = LESSONS[name]
    trace = Model.create(config).trace(sentence(n))
    samples = []
    for k in range(edits):
        index, value = edit(k)
        start = time.perf_counter()
        trace.set_cell(W_Q, index, float(value))
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def time_edits(
    app: QApplication, state: AppState, stage: str, weight: str, edits: int, window: MainWindow | None = None
) -> float:
    """Median ms from committing a number into a `weight` cell until the views of `stage` have repainted
    (in `window`, else in a bare MainWindow on `state`)."""
    bare = window is None
    if bare:
        window = MainWindow(state)
        window.show()
    window.resize(1600, 1000)
    # what an edit of W_Q[r, c] must repaint: that cell, column c of Q, and the plots of Q; the large lesson's Q
    # lies below its inputs, so the matrices are scrolled to it, and what stays out of view is not waited for
    counter = watch_stage(app, window, stage, weight)
    if len(counter.counts) < 3:
        print(f"  ({3 - len(counter.counts)} of W_Q, Q and the figure out of view at 1600×1000)")
    panel = next(p for p in window.stage_view.inputs if p.model.slice.name == weight)
    model = panel.model
    samples = []
    for k in range(edits):
        (row, col), value = edit(k)
        commit = partial(model.setData, model.index(row, col), value)
        samples.append(until_repainted(app, counter, commit, f"edit {k}"))
    assert state.undo_stack.count() == edits
    if bare:
        window.close()
    return statistics.median(samples)


def watch_stage(app: QApplication, window: MainWindow, stage: str, weight: str) -> PaintCounter:
    """Go to `stage` and watch what an edit of a `weight` cell must repaint: the weight's table, the stage's table and
    the plots (those out of view at the window's size are not waited for)."""
    window.state.go_to(stage)
    for _ in range(20):  # the stage's layout and plots
        app.processEvents()
    view = window.stage_view
    panel = next(p for p in view.inputs if p.model.slice.name == weight)
    output = next(p for p in view.panels() if p.model.slice.name == stage)
    view.matrices_box.ensureWidgetVisible(output.table, 0, 0)
    app.processEvents()
    watched = [panel.table.viewport(), output.table.viewport(), view.plot.viewport()]
    return PaintCounter([w for w in watched if not w.visibleRegion().isEmpty()])


def until_repainted(app: QApplication, counter: PaintCounter, action, what: str) -> float:
    """ms from calling `action` until every view `counter` watches has been repainted."""
    before = dict(counter.counts)
    start = time.perf_counter()
    assert action() is not False, f"{what} refused"
    while not counter.all_painted_since(before):
        app.processEvents()
        if time.perf_counter() - start > 10:
            raise RuntimeError(f"{what}: the views were not repainted within 10 s")
    return (time.perf_counter() - start) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=60, help="edits per lesson (at least 50)")
    args = parser.parse_args()
    edits = max(args.edits, 50)
    torch.set_num_threads(1)  # as the app runs
    app = QApplication.instance() or QApplication([])
    collect_between_events()  # as the app does once torch and pyqtgraph are imported (gui/app.py)
    pg.setConfigOptions(background="w", foreground="k", antialias=True)
    medians, engine = {}, {}
    for name in LESSONS:
        medians[name] = measure(app, name, edits)
        bare = measure_bare(app, name, edits)
        engine[name] = measure_engine(name, edits)
        print(
            f"{name}: median of {edits} edits: {medians[name]:.1f} ms through launch, {bare:.1f} ms in a bare "
            f"window ({100 * (medians[name] / bare - 1):+.0f} %), {engine[name]:.2f} ms in the engine "
            f"({medians[name] / engine[name]:.1f}×)",
            flush=True,
        )
    print(
        f"edit-to-repaint median ms: small={medians['small']:.1f} large={medians['large']:.1f} "
        f"engine: small={engine['small']:.2f} large={engine['large']:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
