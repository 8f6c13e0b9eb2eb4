"""Settings kept between runs with QSettings: language, text size, palette, colour map, decimals, play
speed (the stepper's), window layout, recent files and whether the start page opens.

$STEPFORMER_SETTINGS_DIR (the tests set it) keeps them in an ini file there instead of the user's own.

Writing the file takes 1–5 ms (the whole ini, with the window's layout, under a lock file), so a write goes to one
worker thread, in the order asked, and the action that asked (a language switch, a display setting) does not wait
for it; until a value is in the file, a read gives it from memory (the map reads a setting at each draw: waiting
for the file there took the time back). Python waits for the worker before it exits.
"""

from __future__ import annotations

import itertools
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from PySide6.QtCore import QSettings

from gui.text.i18n import LANGUAGES, system_language

SETTINGS_DIR_ENV = "STEPFORMER_SETTINGS_DIR"
MAX_RECENT = 8


_writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="preferences")
_last_write: Future | None = None
_unwritten: dict[tuple, tuple] = {}  # (place, key) → (write, value) asked to be written and not yet in the file
_unwritten_lock = threading.Lock()
_writes = itertools.count()  # each write's number


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
    value = _stored(key, default)
    try:
        if kind is bool and isinstance(value, str):
            return value.lower() == "true"
        return kind(value)
    except (TypeError, ValueError):
        return default


def _stored(key: str, default):
    """What the settings hold for `key`: a value still to be written, else the file's."""
    place = _place()
    with _unwritten_lock:
        unwritten = _unwritten.get((place, key))
    return QSettings(*place).value(key, default) if unwritten is None else unwritten[1]


def write(key: str, value) -> None:
    write_all({key: value})


def write_all(values: dict) -> None:
    """Several values at once, written once (each QSettings writes the file when it goes), on the worker."""
    global _last_write
    place, values, number = _place(), dict(values), next(_writes)
    with _unwritten_lock:
        _unwritten.update(((place, key), (number, value)) for key, value in values.items())
    _last_write = _writer.submit(_store, place, values, number)


def _store(place: tuple, values: dict, number: int) -> None:
    """(On the worker.) Write `values`, the write numbered `number`, into the file at `place`."""
    stored = QSettings(*place)
    for key, value in values.items():
        stored.setValue(key, value)
    stored.sync()
    with _unwritten_lock:  # in the file now, unless written again meanwhile (that later write is still to come)
        for key in values:
            if _unwritten.get((place, key), (None,))[0] == number:
                del _unwritten[place, key]


def saved_language() -> str:
    """The language chosen last time, else the system's."""
    lang = read("ui/language", "")
    return lang if lang in LANGUAGES else system_language()


def recent_files() -> list[str]:
    value = _stored("files/recent", [])
    if isinstance(value, str):  # QSettings returns one entry as a plain string
        value = [value]
    return [str(v) for v in value or []][:MAX_RECENT]


def add_recent_file(path: str | Path) -> None:
    path = str(Path(path).resolve())
    write("files/recent", [path, *(p for p in recent_files() if p != path)][:MAX_RECENT])


def remove_recent_file(path: str | Path) -> None:
    write("files/recent", [p for p in recent_files() if p != str(path)])
