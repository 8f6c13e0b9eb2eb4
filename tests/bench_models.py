"""Edit-to-repaint latency of the stepping window on the models the model picker opens.

    python tests/bench_models.py [--edits 60]

As tests/bench_latency.py, but for the toy translator (at its cross-attention queries), the tiny language
model and all-MiniLM-L6-v2 (when installed: d = 384, 12 heads, 6 layers, a real WordPiece sentence), each
on the sentences the picker opens it with. Each edit commits a number into a W_Q cell through the table
model, then runs the event loop until W_Q's table, Q's table and the plots have been repainted.
The last line is `edit-to-repaint median ms: toy=<x> lm=<y> minilm=<z>`.
"""

from __future__ import annotations

import argparse
import sys

import pyqtgraph as pg  # noqa: E402
import torch  # noqa: E402
from bench_latency import time_edits  # also sets up the path and the offscreen platform
from PySide6.QtWidgets import QApplication  # noqa: E402

from engine import sources  # noqa: E402
from gui.state.app_state import AppState  # noqa: E402

MODELS = {  # name: (how to open it, the stage shown, the weight edited)
    "toy": (sources.toy_translator, "dec.0.cross_attn.q", "dec.0.cross_attn.W_Q"),
    "lm": (sources.tiny_lm, "dec.1.self_attn.q", "dec.1.self_attn.W_Q"),
    "minilm": (sources.minilm, "enc.0.attn.q", "enc.0.attn.W_Q"),
}


def measure(app: QApplication, name: str, edits: int) -> float:
    make, stage, weight = MODELS[name]
    opened = make()
    state = AppState(opened.model.config, opened.text, opened.target, model=opened.model)
    return time_edits(app, state, stage, weight, edits)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=60, help="edits per model (at least 50)")
    args = parser.parse_args()
    edits = max(args.edits, 50)
    torch.set_num_threads(1)  # as the app runs
    app = QApplication.instance() or QApplication([])
    pg.setConfigOptions(background="w", foreground="k", antialias=True)
    names = [n for n in MODELS if n != "minilm" or sources.minilm_entry().folder is not None]
    medians = {}
    for name in names:
        medians[name] = measure(app, name, edits)
        print(f"{name}: median of {edits} edits: {medians[name]:.1f} ms", flush=True)
    print("edit-to-repaint median ms: " + " ".join(f"{n}={m:.1f}" for n, m in medians.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
