"""Settings kept between runs with QSettings: language, text size, palette, colour map, decimals, play
speed (the stepper's), window layout, recent files and whether the start page opens.

$STEPFORMER_SETTINGS_DIR (the tests set it) keeps them in an ini file there instead of the user's own.

Writing the file takes 1–5 ms (the whole ini, with the window's layout, under a lock file), so a write goes to one
worker thread, in the order asked, and the action that asked (a language switch, a display setting) does not wait
for it; a read first waits for the writes asked before it. Python waits for the worker before it exits.
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from PySide6.QtCore import QSettings

from gui.text.i18n import LANGUAGES, system_language

SETTINGS_DIR_ENV = "STEPFORMER_SETTINGS_DIR"
MAX_RECENT = 8


_writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="preferences")
_last_write: Future | None = None


def settings() -> QSettings:
    """The stored settings, with every write asked so far in them."""
    written()
    return QSettings(*_place())


def _place() -> tuple:
    """Where the settings are kept, as QSettings' arguments (read when asked: the tests move it)."""
    folder = os.environ.get(SETTINGS_DIR_ENV)
    return (str(Path(folder) / "stepformer.ini"), QSettings.IniFormat) if folder else ("Stepformer", "Stepformer")


def written() -> None:
    """Wait until the writes asked so far are in the file."""
    if _last_write is not None:
        _last_write.result()


def read(key: str, default, kind=None):
    """A stored value of the default's type; the default when it is missing or unreadable."""
    kind = kind or type(default)
    value = settings().value(key, default)
    try:
        if kind is bool and isinstance(value, str):
            return value.lower() == "true"
        return kind(value)
    except (TypeError, ValueError):
        return default


def write(key: str, value) -> None:
    write_all({key: value})


def write_all(values: dict) -> None:
    """Several values at once, written once (each QSettings writes the file when it goes), on the worker."""
    global _last_write
    _last_write = _writer.submit(_store, _place(), dict(values))


def _store(place: tuple, values: dict) -> None:
    stored = QSettings(*place)
    for key, value in values.items():
        stored.setValue(key, value)


def saved_language() -> str:
    """The language chosen last time, else the system's."""
    lang = read("ui/language", "")
    return lang if lang in LANGUAGES else system_language()


def recent_files() -> list[str]:
    value = settings().value("files/recent", [])
    if isinstance(value, str):  # QSettings returns one entry as a plain string
        value = [value]
    return [str(v) for v in value or []][:MAX_RECENT]


def add_recent_file(path: str | Path) -> None:
    path = str(Path(path).resolve())
    write("files/recent", [path, *(p for p in recent_files() if p != path)][:MAX_RECENT])


def remove_recent_file(path: str | Path) -> None:
    write("files/recent", [p for p in recent_files() if p != str(path)])
