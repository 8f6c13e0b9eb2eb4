"""Time to export one figure at classroom size (goal: under 1 s). Run: .venv/bin/python tests/bench_export.py

Classroom size: the first lesson's model (d_model 4, 2 heads) and a 12-token sentence, exported at 1920 px.
Not a test (timings vary by machine); it prints the median of a few runs per format.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Model, ModelConfig  # noqa: E402
from gui.export import export_figure  # noqa: E402
from gui.export.render import ensure_app  # noqa: E402
from gui.plots import PlotOptions  # noqa: E402

SENTENCE = "the teacher explains attention and every student sees the numbers on the screen"
STAGES = ("dec.0.self_attn.weights", "dec.0.self_attn.scaled", "dec.0.norm1.out", "dec.0.ffn.up", "probs")
RUNS = 3


def main() -> None:
    ensure_app()
    trace = Model.create(ModelConfig(architecture="decoder", d_model=4, n_heads=2, decimals=1)).trace(SENTENCE)
    opts = PlotOptions(head=1, row=3)
    with tempfile.TemporaryDirectory() as folder:
        export_figure(trace, STAGES[0], opts, Path(folder) / "warm.png")  # first use loads fonts and caches
        for fmt in ("png", "svg", "pdf"):
            for stage in STAGES:
                times = []
                for _ in range(RUNS):
                    start = time.perf_counter()
                    export_figure(trace, stage, opts, Path(folder) / f"f.{fmt}", width=1920)
                    times.append(time.perf_counter() - start)
                median = statistics.median(times)
                print(f"{fmt:4} {stage:28} {median:6.3f} s  {'ok' if median < 1 else 'SLOW (goal < 1 s)'}")


if __name__ == "__main__":
    main()
