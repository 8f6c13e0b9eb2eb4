"""Autosave: every change of the lesson goes to this instance's recovery folder (engine.formats.recovery) before the
window repaints, so that after a crash or a `kill -9` the next start can offer it back.

A change is a journal record or two (engine/formats/journal.py; a few hundred bytes, appended and fsynced: well under
a millisecond of the frame). The first change of a lesson, and a change no record describes (Reset weights),
write a full snapshot instead: a classroom-sized model at once, a large one (a real checkpoint: tens of MB,
a second to write) by a worker thread, so at most that first second of changes can be lost to a `kill -9`.
When the journal reaches COMPACT_RECORDS records, or the teacher has been idle for IDLE_MS, the worker folds
it into a new snapshot (compaction) while the next records go to a fresh journal, so the journal stays short
and a restore replays little.

Every record sets a value rather than adding to one, so replaying a record onto a snapshot that already holds
its change gives the same lesson: a snapshot taken in the middle of a change is never wrong.

A write that fails (a full disk, no permission, a folder in the way) leaves the journal as it was before it
(RecoveryFolder.append cuts a torn record off), and `failed` tells why: the change it held is not on disk. The next
change, or the idle timer if the teacher makes none, writes a full snapshot instead of a record, again and again
until one is written; then every change so far is on disk and `recording_again` says so.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from PySide6.QtCore import QObject, QTimer, Signal

from engine import EngineError
from engine.formats.lesson import Lesson
from engine.formats.recovery import RecoveryFolder

SYNC_LIMIT_BYTES = 8 * 2**20  # larger models' snapshots are written in the background
COMPACT_RECORDS = 256  # a journal this long is folded into a snapshot
IDLE_MS = 2000  # and one that has not grown for this long
SYNC_MS = 15  # a change's records are fsynced this long after it, when the window has repainted


def lesson_bytes(lesson: Lesson) -> int:
    return sum(t.numel() * t.element_size() for t in [*lesson.params.values(), *lesson.overrides.values()])


class Autosaver(QObject):
    failed = Signal(str)  # edits are not being recorded, and why (a full disk, no permission, a folder in the way)
    recording_again = Signal()  # after a failure: a snapshot of the lesson is on disk, and changes are recorded again
    _job_done = Signal()  # from the worker thread; delivered in the window's thread

    def __init__(self, snapshot: Callable[[], Lesson], parent: QObject | None = None):
        super().__init__(parent)
        self.snapshot = snapshot  # the lesson as it is now
        self.lesson_path = ""  # the file the lesson was opened from or saved to
        self.folder: RecoveryFolder | None = None  # taken at the first change
        self.has_snapshot = False  # a snapshot of this lesson is on disk, or being written
        self.records = 0  # in the current journal
        self.job: Future | None = None  # the worker's snapshot
        self.failure = ""  # why the last write failed, until a snapshot was written again ("": none failed)
        self.unrecorded = False  # a change is not on disk (its write failed): a snapshot must be written
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="autosave")
        self.idle = QTimer(self, singleShot=True, interval=IDLE_MS)
        self.idle.timeout.connect(self._compact_when_idle)
        # Handing the fsync to the worker thread right away cost the window's thread ~5 ms (the thread switch)
        # before the new number showed; after the repaint it costs nothing the teacher sees.
        self.sync_timer = QTimer(self, singleShot=True, interval=SYNC_MS)
        self.sync_timer.timeout.connect(self._sync)
        self._job_done.connect(self._collect)

    def changed(self, records: list[dict] | None = None) -> None:
        """Call after every change of the lesson with its journal records (None: write a snapshot)."""
        try:
            self._write(records)
        except EngineError as exc:
            self._not_recorded(str(exc))

    def adopt(self, folder: RecoveryFolder) -> None:
        """Continue in a recovered folder (its lesson is about to be loaded): this instance's own folder goes,
        and the next change (the load) folds the recovered journal into a new snapshot there."""
        self.close_folder()
        self.folder, self.has_snapshot = folder, False

    def flush(self) -> None:
        """Wait until the worker's snapshot is on disk."""
        if self.job is not None:
            self._finish(self.job)

    def clear(self) -> None:
        """Forget the autosave (after a save, or when nothing is unsaved)."""
        self._settle()
        if self.folder is not None and (self.has_snapshot or self.records):
            self._report(self.folder.clear)
        self.has_snapshot, self.records, self.unrecorded = False, 0, False

    def close_folder(self) -> None:
        """Remove this instance's recovery folder (a clean exit)."""
        self._settle()
        if self.folder is not None:
            self._report(self.folder.close)
            self.folder = None
        self.has_snapshot, self.records, self.unrecorded = False, 0, False

    def close(self) -> None:
        self.close_folder()
        self.pool.shutdown(wait=True)

    def read(self) -> Lesson | None:
        """The lesson as it would be restored from this instance's folder (None when nothing is saved)."""
        self.flush()
        return self.folder.read() if self.folder is not None else None

    # ---- records and snapshots ------------------------------------------------------------------
    def _write(self, records: list[dict] | None) -> None:
        """A change's records to the journal, or a snapshot when there are none or the journal cannot take them."""
        if self.folder is None:
            self.folder = RecoveryFolder.create()
        self._collect()
        if records is None or not self.has_snapshot:
            lesson = self.snapshot()
            self._snapshot(lesson, background=lesson_bytes(lesson) > SYNC_LIMIT_BYTES)
        else:
            self._append(records)

    def _not_recorded(self, message: str, quietly: bool = False) -> None:
        """A change could not be written: a snapshot is tried again when the teacher is idle (or at the next change)."""
        self.unrecorded = True
        self._fail(message, quietly)
        self.idle.start()

    def _append(self, records: list[dict]) -> None:
        """A change's records to the journal; if their write fails, the next change writes a snapshot."""
        try:
            self.folder.append(records, sync=False)
        except EngineError:
            self.has_snapshot = False
            raise
        self.records += len(records)
        if not self.sync_timer.isActive():
            self.sync_timer.start()
        self._after_records()

    def _snapshot(self, lesson: Lesson, background: bool) -> None:
        """A snapshot of `lesson` (the lesson as it is now); the journal starts afresh behind it."""
        self._settle()
        self.has_snapshot, self.records = False, 0
        generation = self.folder.start_generation()
        if background:
            self.job = self.pool.submit(self.folder.write_snapshot, lesson, generation, self.lesson_path)
            self.job.add_done_callback(lambda _job: self._job_done.emit())
            self.has_snapshot = True  # (a failed background write takes it back: _finish)
        else:
            self.folder.write_snapshot(lesson, generation, self.lesson_path)
            self.has_snapshot = True
            self._recorded()

    def _after_records(self) -> None:
        """Compact a long journal; while the worker still writes the last snapshot, up to twice as long
        (then wait for it): so the journals on disk never hold more than 4 × COMPACT_RECORDS records."""
        if self.records >= COMPACT_RECORDS and (self.job is None or self.records >= 2 * COMPACT_RECORDS):
            self._snapshot(self.snapshot(), background=True)
        else:
            self.idle.start()

    def _compact_when_idle(self) -> None:
        """Fold the journal into a snapshot; or, after a change could not be written, try a snapshot again."""
        self._collect()
        if self.job is not None:
            if self.records or self.unrecorded:
                self.idle.start()
        elif self.unrecorded:
            try:
                self._write(None)
            except EngineError as exc:
                self._not_recorded(str(exc), quietly=True)  # (the teacher was told)
        elif self.folder is not None and self.records:
            self._report(lambda: self._snapshot(self.snapshot(), background=True))

    def _collect(self) -> None:
        """Take note of a finished worker snapshot (its failure, if any), and start the next compaction when
        the journal grew long meanwhile."""
        if self.job is not None and self.job.done():
            self._finish(self.job)
            if self.records >= COMPACT_RECORDS:
                self._report(lambda: self._snapshot(self.snapshot(), background=True))

    def _finish(self, job: Future) -> None:
        """The worker's snapshot is done; if it failed, the next change (or the idle timer) writes one again."""
        self.job = None
        try:
            job.result()
        except EngineError as exc:
            self.has_snapshot = False
            self._fail(str(exc), quietly=self.unrecorded)  # (when a change was not recorded, the teacher was told)
            self.idle.start()
        else:
            if self.has_snapshot:  # (no write failed since it began)
                self._recorded()

    def _sync(self) -> None:
        if self.folder is not None:
            self.folder.request_sync()

    def _settle(self) -> None:
        self.flush()
        self.idle.stop()

    def _report(self, action: Callable[[], object]) -> None:
        try:
            action()
        except EngineError as exc:
            self._fail(str(exc))

    def _fail(self, message: str, quietly: bool = False) -> None:
        """A write failed: changes are not recorded until a snapshot is written (then `recording_again`)."""
        self.failure = message
        if not quietly:
            self.failed.emit(message)

    def _recorded(self) -> None:
        """A snapshot of the lesson as it is now is on disk: after a failure, recording works again."""
        self.unrecorded = False
        if self.failure:
            self.failure = ""
            self.recording_again.emit()
