"""Edit-to-repaint latency of the stepping window.

    python tests/bench_latency.py [--edits 60]

For a classroom lesson (n = 6 tokens, d = 8, 2 heads, 2 layers) and a large one (n = 64, d = 384,
12 heads, 6 layers) the window shows the stage Q = X·W_Q (W_Q, X, b_Q and Q as tables, and its plots).
Each edit commits a new number into a W_Q cell through the table model (as the cell editor does),
then runs the event loop until every visible table and the plot area have been repainted. The time
from the commit to the last repaint is one sample; the median of all samples is reported.
The last line is `edit-to-repaint median ms: small=<x> large=<y>`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyqtgraph as pg  # noqa: E402
import torch  # noqa: E402
from PySide6.QtCore import QEvent, QObject  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from engine import ModelConfig  # noqa: E402
from gui.main_window import MainWindow  # noqa: E402
from gui.state import AppState  # noqa: E402

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


def measure(app: QApplication, name: str, edits: int) -> float:
    config, n = LESSONS[name]
    state = AppState(config, " ".join(f"w{i}" for i in range(n)))
    return time_edits(app, state, STAGE, W_Q, edits)


def time_edits(app: QApplication, state: AppState, stage: str, weight: str, edits: int) -> float:
    """Median ms from committing a number into a `weight` cell until the views of `stage` have repainted."""
    window = MainWindow(state)
    window.resize(1600, 1000)
    window.show()
    state.go_to(stage)
    for _ in range(20):  # the stage's layout and plots
        app.processEvents()
    view = window.stage_view
    panel = next(p for p in view.inputs if p.model.window.name == weight)
    output = next(p for p in view.panels() if p.model.window.name == stage)
    # what an edit of W_Q[r, c] must repaint: that cell, column c of Q, and the plots of Q
    counter = PaintCounter([panel.table.viewport(), output.table.viewport(), view.plot.viewport()])
    model = panel.model
    samples = []
    for k in range(edits):
        index = model.index(k % 6, k % 3)  # cells in view at 1600×1000, in every lesson measured
        value = f"{0.1 * ((k % 19) - 9) + 0.05:.2f}"
        before = dict(counter.counts)
        start = time.perf_counter()
        assert model.setData(index, value), f"edit {k} refused"
        while not counter.all_painted_since(before):
            app.processEvents()
            if time.perf_counter() - start > 10:
                raise RuntimeError(f"edit {k}: the views were not repainted within 10 s")
        samples.append((time.perf_counter() - start) * 1000)
    assert state.undo_stack.count() == edits
    window.close()
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=60, help="edits per lesson (at least 50)")
    args = parser.parse_args()
    edits = max(args.edits, 50)
    torch.set_num_threads(1)  # as the app runs
    app = QApplication.instance() or QApplication([])
    pg.setConfigOptions(background="w", foreground="k", antialias=True)
    medians = {}
    for name in LESSONS:
        medians[name] = measure(app, name, edits)
        print(f"{name}: median of {edits} edits: {medians[name]:.1f} ms", flush=True)
    print(f"edit-to-repaint median ms: small={medians['small']:.1f} large={medians['large']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
