"""Settings kept between runs with QSettings: language, text size, palette, colour map, decimals, play
speed (the stepper's), window layout, recent files and whether the start page opens.

$STEPFORMER_SETTINGS_DIR (the tests set it) keeps them in an ini file there instead of the user's own.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QSettings

from gui.text.i18n import LANGUAGES, system_language

SETTINGS_DIR_ENV = "STEPFORMER_SETTINGS_DIR"
MAX_RECENT = 8


def settings() -> QSettings:
    folder = os.environ.get(SETTINGS_DIR_ENV)
    if folder:
        return QSettings(str(Path(folder) / "stepformer.ini"), QSettings.IniFormat)
    return QSettings("Stepformer", "Stepformer")


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
    """Several values at once: the file is written once (each QSettings writes it when it goes, ~3 ms)."""
    stored = settings()
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
