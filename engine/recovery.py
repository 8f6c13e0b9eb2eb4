"""Autosave: the current lesson is written to a recovery file after every change, so that after a crash or a
`kill -9` the next start can offer it back with no edit lost.

Each write is a complete `.stepformer` file written atomically (temporary file, fsync, rename, fsync of
the folder): at any moment the recovery file is either the previous state or the new one, never half.
The folder is the user's data folder, or $STEPFORMER_DATA_DIR when set (tests, portable installs).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .errors import EngineError
from .lesson import Lesson, open_lesson, save_lesson

DATA_DIR_ENV = "STEPFORMER_DATA_DIR"
RECOVERY_NAME = "recovery.stepformer"


def data_dir() -> Path:
    """Where Stepformer keeps its own files: $STEPFORMER_DATA_DIR, else the platform's user data folder."""
    if os.environ.get(DATA_DIR_ENV):
        return Path(os.environ[DATA_DIR_ENV])
    home = Path.home()
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming") / "Stepformer"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Stepformer"
    return Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share") / "stepformer"


def recovery_path() -> Path:
    return data_dir() / RECOVERY_NAME


def write_recovery(lesson: Lesson) -> None:
    """Save the lesson as the recovery file (call after every change, with Lesson.from_model of the live
    model: it is written as it is, without tracing it again; reading it back checks everything)."""
    folder = data_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise EngineError(f"cannot autosave to {folder}: {exc.strerror or exc}") from None
    save_lesson(lesson, recovery_path(), check=False)


def read_recovery() -> Lesson | None:
    """The autosaved lesson, or None when there is none; EngineError if it cannot be opened."""
    path = recovery_path()
    return open_lesson(path) if path.is_file() else None


def clear_recovery() -> None:
    """Forget the autosave (after a normal save or close, or when the teacher declines to restore),
    with any temporary file a write cut short by a crash left behind."""
    path = recovery_path()
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        stale.unlink(missing_ok=True)
    path.unlink(missing_ok=True)
