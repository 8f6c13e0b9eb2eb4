"""A Qwen2.5-0.5B-sized checkpoint through the app's real path: open, trace, memory, an edit in the engine and in the
window, beside the large lesson's edit for the multiple.

    python tests/make_qwen_size_folder.py /tmp/qwen05b      # once: a random-weight folder of that shape (~1 GB)
    python tests/bench_qwen_size.py /tmp/qwen05b [--edits 5]

- open: `engine.sources.open_source(model=FOLDER)` as `python main.py --model FOLDER` calls it (config, tokenizer,
  every weight read into float32);
- trace: the app state of a 32-token sentence (`AppState.from_model`, the whole trace with every stage kept), as
  gui/app.py builds it;
- peak memory: the process's peak resident size (getrusage) after each step; Python's own allocations (tracemalloc,
  from the trace on) beside it, which torch's tensors are not part of;
- edit, engine: `Trace.set_cell` on W_Q of block 0 (everything downstream recomputed) on a trace of its own;
- edit-to-repaint: the window opened by `gui.launch.launch` (autosave on, fresh settings), normal at 1600×1000, at
  Q = X·W_Q of block 0; the same number committed into the same W_Q cell through the table model until W_Q, Q and
  the plots have repainted (as tests/bench_latency.py times it), right after the engine's edit, so each pair shares
  its moment on a busy machine; medians of `--edits` pairs and of their ratios;
- the large lesson (n = 64, d = 384, 12 heads, 6 layers) measured the same way in the same run, for the multiple
  edit-to-repaint ÷ engine recompute.

The last line is `qwen-size: open=<s> trace=<s> peak=<MiB> engine=<ms> repaint=<ms> ×<multiple> large ×<multiple>`.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["HF_HUB_OFFLINE"] = "1"
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyqtgraph as pg  # noqa: E402
import torch  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from engine import Model  # noqa: E402
from engine.sources import open_source  # noqa: E402
from gui.idle_collection import collect_between_events  # noqa: E402
from gui.state.app_state import AppState  # noqa: E402
from tests.bench_latency import edit, measure, measure_engine, watch_stage  # noqa: E402

TOKENS = 32
SENTENCE = (
    "The teacher opens the model her students use and steps through it one operation at a time: "
    "老师打开学生们每天使用的模型，一步一步地讲解注意力、旋转位置编码和分组查询注意力。"
)
STAGE, W_Q = "dec.0.self_attn.q", "dec.0.self_attn.W_Q"


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kB


def sentence_of(model, n: int) -> str:
    """The longest start of SENTENCE (repeated) that the model's tokenizer reads as exactly `n` tokens."""
    text = " ".join([SENTENCE] * 3)
    for end in range(len(text), 0, -1):
        if len(model.encode("dec", text[:end])[0]) == n:
            return text[:end]
    raise RuntimeError(f"no start of the sentence has {n} tokens")


def paired_edits(app: QApplication, state: AppState, apart, edits: int) -> tuple[float, float, float]:
    """Medians (engine ms, edit-to-repaint ms, their ratio) of `edits` W_Q cell edits, each made first on `apart` (a
    trace of its own: `Trace.set_cell`, everything downstream recomputed) and right after in the window opened by
    `launch` (committed through the table model until W_Q, Q and the plots have repainted, as
    tests/bench_latency.py's time_edits, with a minute to repaint rather than 10 s). Pairs taken moment by moment
    keep the ratio fair on a machine whose other programs come and go."""
    from gui.launch import launch

    engine, window_ms = [], []
    with tempfile.TemporaryDirectory(prefix="stepformer-bench-") as folder:
        os.environ["STEPFORMER_SETTINGS_DIR"] = str(Path(folder) / "settings")
        os.environ["STEPFORMER_DATA_DIR"] = str(Path(folder) / "data")
        controller = launch(state, "en", start_page=False)
        window = controller.window
        window.showNormal()
        window.resize(1600, 1000)
        counter = watch_stage(app, window, STAGE, W_Q)
        model = next(p for p in window.stage_view.inputs if p.model.slice.name == W_Q).model
        for k in range(edits):
            (row, col), value = edit(k)
            start = time.perf_counter()
            apart.set_cell(W_Q, (row, col), float(value))
            engine.append((time.perf_counter() - start) * 1000)
            before, start = dict(counter.counts), time.perf_counter()
            assert model.setData(model.index(row, col), value) is not False, f"edit {k} refused"
            while not counter.all_painted_since(before):
                app.processEvents()
                if time.perf_counter() - start > 60:
                    raise RuntimeError(f"edit {k}: W_Q, Q and the plots were not repainted within a minute")
            window_ms.append((time.perf_counter() - start) * 1000)
        assert state.undo_stack.count() == edits
        controller.prompts.unsaved = lambda *_: "discard"
        window.close()
    ratios = [w / e for w, e in zip(window_ms, engine)]
    return statistics.median(engine), statistics.median(window_ms), statistics.median(ratios)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="a folder made by tests/make_qwen_size_folder.py")
    parser.add_argument("--edits", type=int, default=5, help="edits timed in the engine and in the window")
    args = parser.parse_args()
    torch.set_num_threads(1)  # as the app runs
    app = QApplication.instance() or QApplication([])
    collect_between_events()
    pg.setConfigOptions(background="w", foreground="k", antialias=True)
    rows = [("start", 0.0, peak_mib())]

    start = time.perf_counter()
    opened = open_source(None, None, None, args.folder)
    rows.append(("open the folder", time.perf_counter() - start, peak_mib()))
    tracemalloc.start()  # from here: it slows Python's own allocations, which the open has many of (the vocabulary)
    model = opened.model
    text = sentence_of(model, TOKENS)

    start = time.perf_counter()
    state = AppState.from_model(model, text, "", None, opened.title, opened.description)
    rows.append((f"trace {TOKENS} tokens (app state)", time.perf_counter() - start, peak_mib()))

    apart = Model(model.config, dict(model.params), model.vocabs, model.tokenizer)  # a trace edits its model's params
    engine, repaint, multiple = paired_edits(app, state, apart.trace(text), args.edits)
    rows.append(("edit W_Q[0]: engine recompute (median)", engine / 1000, peak_mib()))
    rows.append(("edit W_Q[0]: edit-to-repaint (median)", repaint / 1000, peak_mib()))
    python_peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()

    large_window, large_engine = measure(app, "large", args.edits), measure_engine("large", args.edits)
    cfg = model.config
    count = sum(p.numel() for p in model.params.values())
    print(
        f"\n{opened.title['en']}: d {cfg.d_model}, {cfg.n_layers} layers, {cfg.n_heads} heads, {cfg.kv_heads} KV "
        f"heads, d_ff {cfg.d_ff}, vocabulary {len(model.vocabs['dec']):,}, {count:,} parameters; {TOKENS} tokens: "
        f"{text!r}"
    )
    print(f"{'step':44} {'seconds':>9} {'peak RSS MiB':>13}")
    for name, seconds, peak in rows:
        print(f"{name:44} {seconds:9.2f} {peak:13,.0f}")
    print(f"Python's own allocations (tracemalloc, from the trace on) peaked at {python_peak:,.0f} MiB")
    print(
        f"large lesson (n 64, d 384, 6 layers), same run: edit-to-repaint {large_window:.1f} ms, engine "
        f"{large_engine:.2f} ms (×{large_window / large_engine:.1f}); Qwen size ×{repaint / engine:.2f}"
    )
    print(
        f"qwen-size: open={rows[1][1]:.2f} trace={rows[2][1]:.2f} peak={max(r[2] for r in rows):.0f} "
        f"engine={engine:.0f} repaint={repaint:.0f} ×{repaint / engine:.2f} large ×{large_window / large_engine:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
