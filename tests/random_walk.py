"""Run the seeded GUI random walk (tests/walk.py) for many actions per lesson, with faulthandler on.

    QT_QPA_PLATFORM=offscreen python tests/random_walk.py [--actions 2000] [--seed 11] [--lesson two-heads ...]

Lessons: shipped lesson names, and "gpt2" (a small random GPT-2 checkpoint folder, needs `transformers`).
Prints progress and one result line per lesson; exits 1 when a walk failed (its report follows the line).
"""

from __future__ import annotations

import argparse
import faulthandler
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["STEPFORMER_SETTINGS_DIR"] = tempfile.mkdtemp(prefix="stepformer-walk-settings-")
os.environ["STEPFORMER_DATA_DIR"] = tempfile.mkdtemp(prefix="stepformer-walk-data-")

LESSONS = ["two-heads", "masked-decoder", "cross-attention", "gpt2"]


def open_walk(lesson: str, seed: int):
    from tests.gui_lessons import start_controller
    from tests.walk import Walker, lesson_words, settle

    if lesson != "gpt2":
        controller = start_controller(lesson)
        settle()
        return Walker(controller, random.Random(seed), lesson_words(controller.state))
    from tests.test_checkpoints import SENTENCES, make_gpt2_folder

    controller = start_controller("two-heads")
    settle()
    if not controller.window.model_picker.open_folder(make_gpt2_folder(Path(tempfile.mkdtemp(prefix="gpt2-")))):
        raise SystemExit("the GPT-2 folder did not open")
    settle()
    return Walker(controller, random.Random(seed), " ".join(SENTENCES).split())


def walk(lesson: str, seed: int, actions: int, verbose: bool) -> bool:
    from tests.walk import WalkFailure

    started = time.monotonic()
    walker = open_walk(lesson, seed)
    walker.trace_actions = verbose

    def progress(done: int) -> None:
        if done % 100 == 0:
            print(f"  {lesson}: {done}/{actions} actions, {time.monotonic() - started:.0f} s", flush=True)

    try:
        walker.run(actions, progress)
    except WalkFailure as failure:
        print(
            f"{lesson} seed {seed}: FAILED after {len(walker.history)} actions "
            f"({time.monotonic() - started:.0f} s)\n{failure}",
            flush=True,
        )
        return False
    finally:
        walker.controller.prompts.unsaved_answer = "discard"
        walker.window.close()
    print(
        f"{lesson} seed {seed}: {actions} actions, no exception, no crash, undo-all equal to the start "
        f"({time.monotonic() - started:.0f} s)",
        flush=True,
    )
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=2000, help="actions per lesson (default 2000)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--verbose", action="store_true", help="print each action as it is done")
    parser.add_argument("--lesson", action="append", help=f"a lesson (repeatable); default: {', '.join(LESSONS)}")
    args = parser.parse_args()
    faulthandler.enable()
    import torch
    from PySide6.QtWidgets import QApplication

    torch.set_num_threads(1)
    app = QApplication.instance() or QApplication(sys.argv[:1])  # noqa: F841 (kept alive)
    results = [walk(lesson, args.seed, args.actions, args.verbose) for lesson in args.lesson or LESSONS]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
