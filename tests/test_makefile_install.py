"""`make run` installs what the app needs only; the test extras (pytest, ruff, transformers) come with `make test`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make on this machine")


def commands(target: str) -> list[str]:
    """The commands `make <target>` runs from scratch (-B: as on a fresh clone), printed, not run."""
    done = subprocess.run(
        ["make", "-n", "-B", target], cwd=ROOT, text=True, capture_output=True, timeout=30, check=True
    )
    return done.stdout.splitlines()


def installs(lines: list[str]) -> list[str]:
    return [line for line in lines if "pip install" in line]


def test_make_run_installs_the_app_without_the_test_extras():
    lines = installs(commands("run"))
    assert any(line.rstrip().endswith("pip install -q -e .") for line in lines), lines
    assert any("torch==" in line for line in lines) and any("minilm" in line for line in lines), lines
    assert not any("[test]" in line for line in lines), lines


def test_make_test_installs_the_test_extras_after_the_app():
    lines = installs(commands("test"))
    app = next(i for i, line in enumerate(lines) if line.rstrip().endswith("pip install -q -e ."))
    extras = next(i for i, line in enumerate(lines) if "'.[test]'" in line)
    assert app < extras, lines
