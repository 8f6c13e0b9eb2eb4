"""Exports within the memory budget (engine/budget.py): a deck draws its figures one at a time and holds none of
them; what would not fit is refused, before anything is drawn, in one line that says how much it needs.

The full 256-token deck of the large model (143 slides) takes minutes here: its peak memory at 11 / 64 / 128 / 256
tokens is measured by `python tests/bench_export.py --memory`. The tests draw a few of its heaviest slides.
"""

import json
import os
import re
import resource
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox

from engine import EngineError, Model, ModelConfig
from engine.budget import MAX_EXPORT_BYTES, export_bytes
from engine.sources import by_name
from gui.export import export_deck
from gui.plots import PlotOptions
from gui.plots.view import FittedLayoutWidget
from gui.state.app_state import AppState
from gui.views import export_dialogs as dialogs

ROOT = Path(__file__).resolve().parent.parent
HEAVY = "enc.x0,enc.0.add,enc.1.add,enc.2.add,enc.0.attn.masked,enc.1.attn.masked"  # the 256-token deck's largest
# one thread pool and one allocator arena, so that the child's address space does not grow with the machine's cores
CHILD_ENV = {"OMP_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2", "QT_QPA_PLATFORM": "offscreen"}


def words(n: int) -> str:
    return " ".join(f"w{i}" for i in range(n))


def cap() -> None:
    """The export budget as the child's address-space limit, as `ulimit -v` sets it."""
    resource.setrlimit(resource.RLIMIT_AS, (MAX_EXPORT_BYTES, MAX_EXPORT_BYTES))


def run(*args: str, timeout: float = 300, limit=None) -> tuple[int, str, int]:
    """(exit code, stderr, peak resident bytes) of `main.py *args` in a child (`limit`: run in it first)."""

    command = [sys.executable, str(ROOT / "main.py"), *args]
    env = os.environ | CHILD_ENV
    child = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, preexec_fn=limit
    )
    watchdog = threading.Timer(timeout, child.kill)
    watchdog.start()
    try:
        stderr = child.stderr.read()
        _, status, usage = os.wait4(child.pid, 0)  # this child's own peak, not the test run's other children's
    finally:
        watchdog.cancel()
        child.stderr.close()
    child.returncode = os.waitstatus_to_exitcode(status)
    return child.returncode, stderr, usage.ru_maxrss * 1024


def test_a_large_256_token_deck_stays_within_the_budget(tmp_path):
    code, stderr, peak = run(
        "deck", "--model", "large", "--text", words(256), "--only", HEAVY, "--out", str(tmp_path / "d.pdf"), limit=cap
    )
    assert code == 0, f"the deck died under a {MAX_EXPORT_BYTES / 2**30:.0f} GiB address-space cap: {stderr[-400:]}"
    assert (tmp_path / "d.pdf").read_bytes()[:5] == b"%PDF-"
    opened = by_name("large")
    opened.text = words(256)
    estimate = export_bytes(opened.trace())
    assert peak <= estimate <= MAX_EXPORT_BYTES, f"peak {peak / 2**20:.0f} MiB, estimate {estimate / 2**20:.0f} MiB"


def write_config(tmp_path: Path) -> str:
    """A model whose trace is allowed (1.3 GiB: five heads × 4,096² attention weights) but whose export is not."""
    config = dict(architecture="encoder", d_model=10, n_heads=5, d_ff=10, n_layers=1, max_len=4096)
    path = tmp_path / "long.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    "verb",
    [
        ["deck", "--out", "d.pptx"],
        ["export", "--stage", "enc.0.attn.weights", "--out", "f.png"],
    ],
)
def test_an_export_that_would_not_fit_is_refused_in_one_line(tmp_path, verb):
    *args, out = verb
    code, stderr, _ = run(
        *args, str(tmp_path / out), "--config", write_config(tmp_path), "--text", words(4096), timeout=120, limit=cap
    )
    lines = stderr.strip().splitlines()
    assert code != 0 and len(lines) == 1, stderr[-400:]
    assert re.search(r"would need 2\.\d GiB of memory \(limit 2\.0 GiB\)", lines[0]), lines[0]
    assert not (tmp_path / out).exists() and list(tmp_path.iterdir()) == [tmp_path / "long.json"]


def figures_alive() -> int:
    return sum(isinstance(w, FittedLayoutWidget) for w in QApplication.allWidgets())


@pytest.mark.parametrize("fmt", ["pdf", "pptx"])
def test_a_deck_holds_no_figure_once_drawn(qapp, tmp_path, fmt):
    trace = Model.create(ModelConfig(d_model=4, n_heads=2, decimals=1)).trace("I love AI")
    before = figures_alive()
    export_deck(trace, PlotOptions(), tmp_path / f"d.{fmt}", stages=trace.stage_names[:6])
    assert figures_alive() == before


def test_the_window_refuses_slides_beyond_the_budget(qapp, qtbot, tmp_path, monkeypatch):
    state = AppState(ModelConfig(d_model=4, n_heads=2, decimals=1), "I love AI")
    monkeypatch.setattr("engine.budget.MAX_EXPORT_BYTES", 2**20)
    path = tmp_path / "lesson.pdf"
    monkeypatch.setattr(dialogs, "_save_name", lambda *a: str(path))
    warnings = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: warnings.append(text))
    assert not dialogs.export_deck_dialog(None, state)
    assert len(warnings) == 1 and "slides would need" in warnings[0] and "(limit 0.0 GiB)" in warnings[0]
    assert not path.exists()
    with pytest.raises(EngineError, match="would need"):
        export_deck(state.trace, PlotOptions(), path)
