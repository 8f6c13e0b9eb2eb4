"""What the map costs a step: the median time of MapFigure.show_stage (the frame moved, boxes recoloured) over every
stage of a lesson, beside the time to draw the map anew (what a step must never do).
Run: QT_QPA_PLATFORM=offscreen .venv/bin/python tests/bench_map.py [LESSON ...]"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from PySide6.QtWidgets import QApplication

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def bench(name: str) -> str:
    from gui.plots import PlotOptions
    from gui.plots.map import MapFigure
    from gui.plots.view import FittedLayoutWidget
    from tests.gui_lessons import state_for

    state = state_for(name)
    view = FittedLayoutWidget()
    view.resize(340, 700)
    view.show()
    trace, opts = state.view, PlotOptions()
    start = time.perf_counter()
    figure = MapFigure(view.ci, trace, opts, ("map", "detail"))
    figure.show_stage(trace.stage_names[0])
    QApplication.processEvents()
    build = time.perf_counter() - start
    steps = []
    for stage in trace.stage_names * 2:  # the second pass: every drawing made already, as in a lesson
        start = time.perf_counter()
        figure.show_stage(stage, glide=True)
        steps.append(time.perf_counter() - start)
    view.close()
    return (
        f"{name}: {len(trace.stage_names)} stages, a step {statistics.median(steps) * 1e3:.2f} ms median "
        f"(max {max(steps) * 1e3:.1f} ms, the first visit of a block or box included), "
        f"drawing the map anew {build * 1e3:.0f} ms"
    )


if __name__ == "__main__":
    app = QApplication.instance() or QApplication([])
    for lesson in sys.argv[1:] or ["two-heads", "cross-attention", "lab-post-vs-pre-ln"]:
        print(bench(lesson))
