"""Time to export one figure at classroom size (goal: under 1 s). Run: .venv/bin/python tests/bench_export.py

Classroom size: the first lesson's model (d_model 4, 2 heads) and a 12-token sentence, exported at 1920 px.
Not a test (timings vary by machine); it prints the median of a few runs per format.

Memory of a whole deck (goal: within the export budget, engine/budget.py):
    .venv/bin/python tests/bench_export.py --memory [TOKENS …] [--format pdf|pptx]
runs `main.py deck --model large` on a sentence of each length (default 11, 64, 128, 256) in a child process and
prints its peak resident memory (the kernel's count for that child) beside the budget's estimate.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Model, ModelConfig  # noqa: E402
from engine.budget import MAX_EXPORT_BYTES, PICTURE_BYTES, export_bytes  # noqa: E402
from engine.sources import by_name  # noqa: E402
from gui.export import export_figure  # noqa: E402
from gui.export.render import ensure_app  # noqa: E402
from gui.plots import PlotOptions  # noqa: E402

SENTENCE = "the teacher explains attention and every student sees the numbers on the screen"
STAGES = ("dec.0.self_attn.weights", "dec.0.self_attn.scaled", "dec.0.norm1.out", "dec.0.ffn.up", "probs")
RUNS = 3
ROOT = Path(__file__).resolve().parent.parent
MIB = 2**20


def words(n: int) -> str:
    """A sentence of `n` distinct words (the large model's tokenizer makes each one token)."""
    return " ".join(f"w{i}" for i in range(n))


def deck_peak(n: int, out: Path) -> tuple[int, float, str]:
    """(peak resident bytes, seconds, last line of output) of `main.py deck --model large` on `n` tokens."""
    command = [sys.executable, str(ROOT / "main.py"), "deck", "--model", "large", "--text", words(n), "--out", str(out)]
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)  # this child's own rusage: ru_maxrss in KiB on Linux
    child.returncode = os.waitstatus_to_exitcode(status)
    last = output.strip().splitlines()[-1] if output.strip() else f"exit {child.returncode}"
    return usage.ru_maxrss * 1024, time.perf_counter() - start, last


def deck_estimate(n: int, fmt: str) -> int:
    opened = by_name("large")
    opened.text = words(n)
    trace = opened.trace()
    return export_bytes(trace, (len(trace.stage_names) + 1) * PICTURE_BYTES if fmt == "pptx" else 0)


def memory(lengths: list[int], fmt: str) -> None:
    print(f"deck --model large, {fmt}; budget {MAX_EXPORT_BYTES / MIB:.0f} MiB")
    with tempfile.TemporaryDirectory() as folder:
        for n in lengths:
            peak, seconds, last = deck_peak(n, Path(folder) / f"deck.{fmt}")
            estimate = deck_estimate(n, fmt)
            print(
                f"{n:4} tokens  peak RSS {peak / MIB:7.0f} MiB  estimate {estimate / MIB:6.0f} MiB  "
                f"{seconds:6.1f} s  {last[:60]}",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory", nargs="*", type=int, help="peak memory of a deck at these sentence lengths")
    parser.add_argument("--format", choices=("pdf", "pptx"), default="pdf")
    args = parser.parse_args()
    if args.memory is not None:
        return memory(args.memory or [11, 64, 128, 256], args.format)
    timings()


def timings() -> None:
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
