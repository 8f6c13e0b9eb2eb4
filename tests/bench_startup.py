"""Start-up time: from starting `python main.py` to the first window on screen, beside `import torch` alone.

    python tests/bench_startup.py [--runs 5] [--lesson two-heads]

Each run starts a new process (cold as far as Python goes; the OS keeps files cached, as it does on a
teacher's laptop after the first start) with $STEPFORMER_STARTUP_REPORT set, so the app prints a line when its
first window has been painted and another when the lesson's window is shown. The same number of
`python -c "import torch"` runs are timed in between, so both figures share the machine's load. Offscreen
(QT_QPA_PLATFORM=offscreen) unless the caller set a platform. The last line is
`startup median s: window=<x> import_torch=<y>` (plus the lesson's own time).
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

ROOT = Path(__file__).resolve().parent.parent


def time_app(lesson: str, env: dict[str, str]) -> tuple[float, float]:
    """Seconds from process start to the first window, and to the lesson's window."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "main.py", "--lesson", lesson],
        cwd=ROOT,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    seen: dict[str, float] = {}
    try:
        for line in proc.stdout:
            if line.startswith("stepformer-startup "):
                seen[line.split()[1]] = time.perf_counter() - start
            if "lesson-shown" in seen:
                break
    finally:
        proc.kill()
        proc.wait()
    if "window-shown" not in seen or "lesson-shown" not in seen:
        raise SystemExit(f"the app did not report its window: {seen}")
    return seen["window-shown"], seen["lesson-shown"]


def time_import_torch(env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import torch"], env=env, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lesson", default="two-heads")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data, tempfile.TemporaryDirectory() as settings:
        env = {
            **os.environ,
            "STEPFORMER_STARTUP_REPORT": "1",
            "STEPFORMER_DATA_DIR": data,
            "STEPFORMER_SETTINGS_DIR": settings,
        }
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
        windows, lessons, torches = [], [], []
        for run in range(args.runs):
            window, lesson = time_app(args.lesson, env)
            torches.append(time_import_torch(env))
            windows.append(window)
            lessons.append(lesson)
            print(f"run {run + 1}: window {window:.2f} s, lesson {lesson:.2f} s, import torch {torches[-1]:.2f} s")
    print(
        f"startup median s: window={statistics.median(windows):.2f} import_torch={statistics.median(torches):.2f}"
        f" lesson={statistics.median(lessons):.2f}"
    )


if __name__ == "__main__":
    main()
