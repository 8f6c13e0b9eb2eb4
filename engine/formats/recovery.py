"""Autosave: every change to the lesson is on disk before it shows, so that after a crash or a `kill -9` the
next start can offer the lesson back with no edit lost.

Each running Stepformer has its own recovery folder, `recovery/<id>/` in the user's data folder (or
$STEPFORMER_DATA_DIR when set: tests, portable installs), locked by the operating system for as long as the
process lives (flock / msvcrt.locking on the folder's `lock` file, held open): a killed process's lock is
released by the OS, so a folder whose lock can be taken belongs to nobody, and one whose lock cannot is
in use and left alone. A new instance offers every folder that belongs to nobody.

A folder holds a full snapshot of the lesson, `snapshot-<g>.stepformer` (a complete lesson file, written
atomically), and the journal of the changes made since, `journal-<g>` (engine/formats/journal.py: one small record
per change, written before the change shows and fsynced by a worker thread right after). Compaction starts
generation g+1: new records go to `journal-<g+1>`, the state at that moment is written to `snapshot-<g+1>`,
and only once that snapshot is durable are the older snapshot and journals deleted. The lesson is the newest
complete snapshot with every journal from its generation on replayed onto it, so a kill at any moment leaves
a readable, complete recovery. A write that fails (a full disk) is cut back off the journal at once, so the next
record never follows a torn one (which would end the journal there: every record after it would be lost).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from ..errors import EngineError
from .files import write_atomic
from .journal import encode_record, read_journal, replay
from .lesson import Lesson, open_lesson, save_lesson

DATA_DIR_ENV = "STEPFORMER_DATA_DIR"
FOLDER = "recovery"
LOCK = "lock"
PATH_NOTE = "path.txt"  # the lesson file the autosave belongs to, so a restored lesson saves back to it
_SNAPSHOT = re.compile(r"snapshot-(\d+)\.stepformer")
_JOURNAL = re.compile(r"journal-(\d+)")
_datasync = getattr(os, "fdatasync", os.fsync)


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


def recovery_root() -> Path:
    return data_dir() / FOLDER


def _failure(folder: Path, exc: OSError) -> EngineError:
    return EngineError(f"cannot autosave to {folder}: {exc.strerror or exc}")


def _try_lock(path: Path) -> int | None:
    """An open descriptor holding the exclusive lock on `path` (created if missing), or None when another
    process (or another recovery folder object of this one) holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if sys.platform == "win32":
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _fsync_folder(folder: Path) -> None:
    if os.name == "posix":
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _remove(path: Path) -> None:
    """Remove a file, or a folder that took a file's name."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def _generation(path: Path) -> int | None:
    match = _SNAPSHOT.fullmatch(path.name) or _JOURNAL.fullmatch(path.name)
    return int(match.group(1)) if match else None


class RecoveryFolder:
    """One instance's recovery folder, locked while this object holds it."""

    def __init__(self, path: Path, lock_fd: int):
        self.path, self.lock_fd = path, lock_fd
        self.journal_fd: int | None = None
        self.journal_size = 0  # the bytes of the complete records in the open journal
        self.syncer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal-sync")
        self.sync: Future | None = None  # the latest fsync of the journal asked of the syncer
        self.unsynced = False  # records were appended since the last fsync was asked for
        self.generation = max((g for p in self._files() if (g := _generation(p)) is not None), default=0)
        self.saved_path: str | None = None  # the path note as last written

    @classmethod
    def create(cls) -> RecoveryFolder:
        """A new folder for this instance, locked before it gets its name (so no other instance ever sees it
        unlocked)."""
        root = recovery_root()
        name = uuid.uuid4().hex
        try:
            root.mkdir(parents=True, exist_ok=True)
            making = root / f".new-{name}"
            making.mkdir()
            fd = _try_lock(making / LOCK)
            if fd is None:
                raise OSError("its lock is held by another process")
            making.rename(root / name)
            _fsync_folder(root)
        except OSError as exc:
            raise _failure(root, exc) from None
        return cls(root / name, fd)

    def _files(self) -> list[Path]:
        try:
            return [p for p in self.path.iterdir() if p.name != LOCK]
        except OSError:
            return []

    # ---- writing ------------------------------------------------------------------------------------
    def start_generation(self) -> int:
        """Send the records from now on to a new, empty journal; returns its generation, whose snapshot
        (write_snapshot) must be the lesson as it is now."""
        self._close_journal()
        self.generation += 1
        path = self.path / f"journal-{self.generation}"
        try:
            self.journal_fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
            self.journal_size = 0
            _fsync_folder(self.path)
        except OSError as exc:
            self.journal_fd = None
            raise _failure(self.path, exc) from None
        return self.generation

    def append(self, records: list[dict], sync: bool = True) -> None:
        """Add the records to the journal. They are written before this returns, so a killed process loses
        none of them; a worker thread fsyncs them (durable against a power cut milliseconds later: the window
        does not wait for the disk) — at once, or with sync=False when the caller asks for it with
        request_sync() after the repaint. A failed fsync is raised by the next append. A failed write adds none
        of the records: what it wrote is cut off again (_take_back)."""
        if self.journal_fd is None:
            raise EngineError("cannot autosave: the journal is not open (no snapshot was started)")
        self._raise_sync_failure()
        data = b"".join(encode_record(r) for r in records)
        if not data:
            return
        try:
            written = os.write(self.journal_fd, data)
            if written != len(data):
                raise OSError(f"only {written} of {len(data)} bytes were written")
        except OSError as exc:
            self._take_back()
            raise _failure(self.path, exc) from None
        self.journal_size += len(data)
        self.unsynced = True
        if sync:
            self.request_sync()

    def _take_back(self) -> None:
        """Cut a failed write's bytes (a torn record) off the journal, so that the next record follows the last
        complete one; when even that fails, close the journal: nothing is ever appended after a torn record (the
        next change must start a new generation, with a snapshot)."""
        try:
            os.ftruncate(self.journal_fd, self.journal_size)
        except OSError:
            with contextlib.suppress(EngineError):  # (the write's failure is the one to report)
                self._close_journal()

    def request_sync(self) -> None:
        """fsync the records appended so far on the worker thread (a fsync not started yet covers them too)."""
        if not self.unsynced or self.journal_fd is None:
            return
        self.unsynced = False
        if self.sync is None or self.sync.running() or self.sync.done():
            self.sync = self.syncer.submit(_datasync, self.journal_fd)

    def wait_durable(self) -> None:
        """Wait until every record appended so far is on the disk."""
        self.request_sync()
        sync, self.sync = self.sync, None
        if sync is not None:
            try:
                sync.result()
            except OSError as exc:
                raise _failure(self.path, exc) from None

    def _raise_sync_failure(self) -> None:
        if self.sync is not None and self.sync.done():
            self.wait_durable()

    def write_snapshot(self, lesson: Lesson, generation: int, lesson_path: str = "") -> None:
        """Write the snapshot of `generation` (a lesson made from the live model, written as it is), then
        forget the older snapshots and journals it replaces. Safe in a worker thread while records go to
        the journal of `generation`."""
        self._note_path(lesson_path)
        save_lesson(lesson, self.path / f"snapshot-{generation}.stepformer", check=False)
        try:
            for path in self._files():
                if (g := _generation(path)) is not None and g < generation:
                    _remove(path)
        except OSError as exc:
            raise _failure(self.path, exc) from None

    def _note_path(self, lesson_path: str) -> None:
        if lesson_path != self.saved_path:
            if lesson_path:
                write_atomic(self.path / PATH_NOTE, lesson_path.encode("utf-8"))
            else:  # not saved anywhere yet: no note (an empty file is never written)
                (self.path / PATH_NOTE).unlink(missing_ok=True)
            self.saved_path = lesson_path

    def clear(self) -> None:
        """Forget everything autosaved (nothing is unsaved); the folder stays this instance's."""
        self._close_journal()
        self.saved_path = None
        try:
            for path in self._files():
                _remove(path)
        except OSError as exc:
            raise _failure(self.path, exc) from None

    def leave(self) -> None:
        """Let go of the folder and keep its contents (a recovery to offer again at the next start)."""
        try:
            self._close_journal()
        finally:
            self._let_go()

    def _let_go(self) -> None:
        """Unlock the folder and stop the syncing thread."""
        os.close(self.lock_fd)
        self.syncer.shutdown()

    def close(self) -> None:
        """Remove the folder and let go of it (a normal exit, or a recovery the teacher declined)."""
        try:
            self.clear()
        finally:
            self._let_go()
            try:
                (self.path / LOCK).unlink(missing_ok=True)
                self.path.rmdir()
            except FileNotFoundError:
                pass  # another instance found the folder empty and removed it
            except OSError as exc:
                raise _failure(self.path, exc) from None

    def _close_journal(self) -> None:
        if self.journal_fd is not None:
            try:
                self.wait_durable()
            finally:
                os.close(self.journal_fd)
                self.journal_fd = None

    # ---- reading ------------------------------------------------------------------------------------
    def read(self) -> Lesson | None:
        """The autosaved lesson: the newest snapshot with the journals since replayed onto it (None when
        nothing is saved). EngineError when it cannot be read."""
        snapshots = sorted((g, p) for p in self._files() if _SNAPSHOT.fullmatch(p.name) and (g := _generation(p)))
        if not snapshots:
            return None
        newest, path = snapshots[-1]
        journals = sorted((g, p) for p in self._files() if _JOURNAL.fullmatch(p.name) and (g := _generation(p)))
        records = [r for g, p in journals if g >= newest for r in read_journal(p)]
        return replay(open_lesson(path), records)

    def lesson_path(self) -> str:
        """The lesson file the autosave belongs to ("" when none)."""
        try:
            return (self.path / PATH_NOTE).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return ""


def orphaned_folders() -> list[RecoveryFolder]:
    """Every recovery folder whose owner is gone, oldest first, each now locked by this process (leave()
    or close() it). Folders in use by a running instance are not listed."""
    root = recovery_root()
    try:
        candidates = sorted(
            (p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")),
            key=lambda p: (p.stat().st_mtime, p.name),
        )
    except OSError:
        return []
    found = []
    for path in candidates:
        try:
            fd = _try_lock(path / LOCK)
        except OSError:
            continue
        if fd is not None:
            found.append(RecoveryFolder(path, fd))
    return found
