"""Run the seeded GUI random walk (tests/walk.py) for many actions per lesson, each walk in a process of its own
(a crash ends only that walk, and is counted), with faulthandler on, and print the table of results.

    QT_QPA_PLATFORM=offscreen python tests/random_walk.py [--actions 1000] [--seed 11 --seed 3 ...]
        [--lesson two-heads --lesson lab-no-layernorm ...] [--model minilm --model FOLDER ...] [--log-dir DIR]

Lessons: shipped lesson names, and "gpt2" (a small random GPT-2 checkpoint folder, needs `transformers`). Models:
a name of the model picker (minilm, toy, lm, classroom, large) or a checkpoint folder, opened from the picker over
two-heads; given alone, only the models are walked.
A walk ends at its first exception (Qt slots included), a weight that is not finite, or an undo that does not
return to the start exactly ("mismatch"); its log (each action, and the report) is in --log-dir. Exits 1 when a
walk did not end cleanly.
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

LESSONS = ["two-heads", "masked-decoder", "cross-attention", "lab-no-layernorm", "gpt2"]
RESULT = "RESULT "  # the line a walk's process ends with: its result as JSON
MODEL = "model:"  # a walk's target that names a model (--model), not a lesson


def open_walk(lesson: str, seed: int):
    from tests.gui_lessons import start_controller
    from tests.walk import Walker, lesson_words, settle

    if lesson.startswith(MODEL):
        controller = start_controller("two-heads")
        settle()
        model, picker = lesson[len(MODEL) :], controller.window.model_picker
        if not (picker.open_folder(model) if Path(model).is_dir() else picker.choose(model)):
            raise SystemExit(f"the model {model} did not open")
        settle()
        return Walker(controller, random.Random(seed), lesson_words(controller.state))
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


def walk_here(lesson: str, seed: int, actions: int) -> dict:
    """One walk in this process; its result (the kind of failure, if any)."""
    import torch
    from PySide6.QtWidgets import QApplication

    from gui.app import delete_windows
    from tests.walk import WalkFailure

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["STEPFORMER_SETTINGS_DIR"] = tempfile.mkdtemp(prefix="stepformer-walk-settings-")
    os.environ["STEPFORMER_DATA_DIR"] = tempfile.mkdtemp(prefix="stepformer-walk-data-")
    torch.set_num_threads(1)
    app = QApplication.instance() or QApplication(sys.argv[:1])  # noqa: F841 (kept alive)
    started = time.monotonic()
    walker = open_walk(lesson, seed)
    walker.trace_actions = True  # each action on its own line before its events run: a crash shows what did it
    result = {"lesson": lesson, "seed": seed, "exceptions": 0, "mismatches": 0, "failure": ""}
    try:
        walker.run(actions)
    except WalkFailure as failure:
        text = str(failure)
        result["exceptions" if "exception" in text or "not finite" in text else "mismatches"] = 1
        result["failure"] = text
    finally:
        walker.controller.prompts.unsaved_answer = "discard"
        walker.window.close()
        delete_windows(app)  # as `python main.py` ends (gui/app.py)
    result["actions"] = len(walker.history)
    result["seconds"] = round(time.monotonic() - started, 1)
    result["slowest"] = [round(walker.slowest[0], 2), walker.slowest[1]]
    return result


def walk_in_a_process(lesson: str, seed: int, actions: int, log: Path) -> dict:
    """One walk in a child process; a signal that ended it is a crash."""
    command = [sys.executable, "-X", "faulthandler", __file__, "--one", lesson, str(seed), "--actions", str(actions)]
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    with open(log, "w") as out:
        code = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT).returncode
    lines = log.read_text(errors="replace").splitlines()
    results = [json.loads(line[len(RESULT) :]) for line in lines if line.startswith(RESULT)]
    if results and code == 0:
        return results[-1]
    crash = signal.Signals(-code).name if code < 0 else f"exit {code}"
    done = sum(1 for line in lines if line[:1].isdigit() and ": (at " in line)
    return {"lesson": lesson, "seed": seed, "actions": done, "crash": crash, "exceptions": 0, "mismatches": 0,
            "slowest": [0, ""], "failure": "\n".join(lines[-40:])}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=1000, help="actions per walk (default 1000)")
    parser.add_argument("--seed", type=int, action="append", help="a seed (repeatable; default 11)")
    parser.add_argument("--lesson", action="append", help=f"a lesson (repeatable); default: {', '.join(LESSONS)}")
    parser.add_argument("--model", action="append", help="a model: a picker's name or a checkpoint folder (repeatable)")
    parser.add_argument("--log-dir", default="", help="where each walk's log goes (default: a new temp folder)")
    parser.add_argument("--one", nargs=2, metavar=("LESSON", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        faulthandler.enable()
        result = walk_here(args.one[0], int(args.one[1]), args.actions)
        print(RESULT + json.dumps(result, ensure_ascii=False), flush=True)
        return 0
    logs = Path(args.log_dir or tempfile.mkdtemp(prefix="stepformer-walks-"))
    logs.mkdir(parents=True, exist_ok=True)
    print(f"logs in {logs}", flush=True)
    print("| lesson | seed | actions | crashes | exceptions | mismatches | slowest action (s) |")
    print("|---|---|---|---|---|---|---|", flush=True)
    clean = True
    models = [MODEL + model for model in args.model or []]
    for lesson in (args.lesson or ([] if models else LESSONS)) + models:
        for seed in args.seed or [11]:
            log = logs / f"{lesson.replace('/', '_').replace(':', '-')}-{seed}.log"
            r = walk_in_a_process(lesson, seed, args.actions, log)
            crashes = 1 if r.get("crash") else 0
            clean &= not (crashes or r["exceptions"] or r["mismatches"])
            slowest = f"{r['slowest'][0]:.2f} ({r['slowest'][1][:60]})" if r["slowest"][1] else "–"
            print(f"| {lesson} | {seed} | {r['actions']} | {crashes} | {r['exceptions']} | {r['mismatches']} "
                  f"| {slowest} |", flush=True)  # fmt: skip
            if r["failure"]:
                print("\n".join("    " + line for line in r["failure"].splitlines()[-30:]), flush=True)
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
