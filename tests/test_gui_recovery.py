"""Restoring after `kill -9`, with two instances: Stepformer processes started the way `python main.py` starts
them (`gui.launch.launch`, offscreen), stopped (SIGSTOP: every thread frozen, the process and its
lock alive) right after their last edit (one after 1,000 edits) and later killed with SIGKILL, while this
process plays the instances started before and after the kills. And the autosave through a full disk: the teacher
is told that edits are not being recorded, and when they are again, with every edit restored."""

import errno
import io
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine.formats import files
from engine.formats.journal import decode_records
from engine.formats.lesson import Lesson, open_lesson
from engine.formats.recovery import RecoveryFolder, orphaned_folders, recovery_root
from gui.state import autosave
from tests import gui_lessons
from tests.gui_lessons import FakePrompts, assert_same_lesson

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures
ROOT = Path(__file__).resolve().parent.parent

INSTANCE = textwrap.dedent("""
    import os
    import signal
    import sys
    import torch
    from tests.test_gui_recovery import MANY
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    torch.set_num_threads(1)
    from gui.launch import launch
    from tests.gui_lessons import state_for
    from tests.test_gui_lessons import edit_in_table

    kind = sys.argv[1]
    controller = launch(state_for("i-love-ai"), "en", lesson="i-love-ai", start_page=False)
    window, state = controller.window, controller.state
    state.go_to("enc.0.attn.q")
    if kind == "varied":
        edit_in_table(window, "enc.0.attn.W_Q", 2, 1, "1.25")
        edit_in_table(window, "enc.0.attn.W_Q", 0, 3, "-0.5")
        window.undo_action.trigger()
        edit_in_table(window, "enc.0.attn.b_Q", 0, 2, "0.125")
        window.source.setText("I love AI AI")
        window.source.returnPressed.emit()
        state.go_to("enc.0.attn.k")
        edit_in_table(window, "enc.0.attn.W_K", 3, 0, "2.5")
    else:
        for k in range(1000):
            edit_in_table(window, "enc.0.attn.W_Q", *MANY(k))
    print("committed", flush=True)
    os.kill(os.getpid(), signal.SIGSTOP)  # frozen the moment the last edit was made, every thread: as if killed
""")


def MANY(k: int) -> tuple[int, int, str]:  # noqa: N802 (as the edits are named in the child)
    """The k-th of the 1,000 edits: a W_Q cell and the number typed."""
    return k % 4, k // 4 % 4, str((k % 37 - 18) / 16)


def expected_lessons() -> dict[str, Lesson]:
    """What each instance showed when it was killed, made with the engine alone."""
    lesson = open_lesson("i-love-ai")
    model = lesson.build_model()
    trace = model.trace(lesson.text)
    trace.set_cell("enc.0.attn.W_Q", (2, 1), 1.25)  # (the edit of W_Q[0, 3] was undone)
    trace.set_cell("enc.0.attn.b_Q", (2,), 0.125)
    trace = model.trace("I love AI AI")
    trace.set_cell("enc.0.attn.W_K", (3, 0), 2.5)
    varied = Lesson.from_model(model, "I love AI AI", stage="enc.0.attn.k")
    model = lesson.build_model()
    trace = model.trace(lesson.text)
    for k in range(1000):
        row, col, value = MANY(k)
        trace.set_cell("enc.0.attn.W_Q", (row, col), float(value))
    return {"varied": varied, "many": Lesson.from_model(model, lesson.text, stage="enc.0.attn.q")}


class OfferPrompts(FakePrompts):
    """Records every lesson offered back, and accepts those `accept` says yes to."""

    def __init__(self, accept=lambda lesson: False):
        super().__init__()
        self.offered: list[Lesson] = []
        self.accept = accept

    def restore(self, parent, lesson: Lesson) -> bool:
        self.offered.append(lesson)
        return self.accept(lesson)


def start_instance(kind: str, folder: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "STEPFORMER_SETTINGS_DIR": str(folder / f"settings-{kind}")}
    return subprocess.Popen(
        [sys.executable, "-c", INSTANCE, kind],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def autosaves() -> list[Path]:
    return sorted(p for p in recovery_root().iterdir() if any(p.glob("snapshot-*")))


def test_two_instances_keep_their_own_autosaves_and_a_kill_loses_nothing(qtbot, start_window, own_folders):
    children = {kind: start_instance(kind, own_folders) for kind in ("varied", "many")}
    try:
        for child in children.values():
            assert child.stdout.readline().strip() == "committed", child.stderr.read()
        expected = expected_lessons()

        # B starts while both run: it offers neither, and closing it normally leaves theirs alone
        prompts = OfferPrompts()
        b = start_window("two-heads", prompts=prompts)
        assert not b.offer_recovery() and prompts.offered == []
        assert b.state.edit_cell("enc.0.attn.W_V", (0, 0), "2") and len(autosaves()) == 3
        b.window.close()
        assert len(autosaves()) == 2

        for child in children.values():
            child.send_signal(signal.SIGKILL)  # kill -9
            child.wait(timeout=30)
            assert child.returncode == -signal.SIGKILL
    finally:
        for child in children.values():
            child.kill()
            child.wait()
            child.stdout.close()
            child.stderr.close()

    # C starts after both were killed: both are offered, each exactly as its window last showed it
    prompts = OfferPrompts(accept=lambda lesson: len(prompts.offered) == 2)  # no to the first, yes to the second
    c = start_window("two-heads", prompts=prompts)
    assert c.offer_recovery() and len(prompts.offered) == 2
    kinds = ["varied" if lesson.text == "I love AI AI" else "many" for lesson in prompts.offered]
    assert sorted(kinds) == ["many", "varied"]
    for kind, lesson in zip(kinds, prompts.offered):
        assert_same_lesson(lesson, expected[kind])
    assert expected["varied"].stage == "enc.0.attn.k"
    # the accepted one is restored and becomes C's; the declined one is gone
    assert_same_lesson(c.state.to_lesson("en"), expected[kinds[1]])
    assert c.modified and c.window.isWindowModified()
    assert autosaves() == [c.autosaver.folder.path]
    assert c.state.edit_cell("enc.0.attn.W_V", (1, 1), "-1")  # C carries on in it
    assert_same_lesson(c.autosaver.read(), c.state.to_lesson("en"))

    # D, while C runs, offers nothing
    prompts = OfferPrompts()
    d = start_window("two-heads", prompts=prompts)
    assert not d.offer_recovery() and prompts.offered == []


def test_after_one_lesson_is_restored_the_others_wait_for_the_next_start(qtbot, start_window):
    for text in ("I love AI", "I love"):  # two instances that were killed
        folder = RecoveryFolder.create()
        lesson = open_lesson("i-love-ai")
        lesson.text = text
        folder.write_snapshot(lesson, folder.start_generation())
        folder.leave()
    prompts = OfferPrompts(accept=lambda lesson: True)
    c = start_window("two-heads", prompts=prompts)
    assert c.offer_recovery() and len(prompts.offered) == 1
    assert c.window.statusBar().currentMessage() == "1 more autosaved lessons will be offered at the next start"
    [waiting] = orphaned_folders()
    assert waiting.read().text != prompts.offered[0].text
    waiting.leave()


class FullDisk:
    """While `full`, every write of the autosave puts half its bytes down and fails with ENOSPC: a journal's record
    (os.write) and a snapshot (files._write_all)."""

    def __init__(self, monkeypatch):
        self.full = False
        self.refused = 0  # writes that failed
        self.write, self.write_all = os.write, files._write_all
        monkeypatch.setattr(os, "write", self._journal_write)
        monkeypatch.setattr(files, "_write_all", self._snapshot_write)

    def _journal_write(self, fd: int, data: bytes) -> int:
        if not self.full or not Path(os.readlink(f"/proc/self/fd/{fd}")).name.startswith("journal-"):
            return self.write(fd, data)
        self.write(fd, data[: len(data) // 2])
        return self._refuse()

    def _snapshot_write(self, tmp: Path, fill) -> None:
        """files._write_all(tmp, fill): on a full disk, half of what `fill` writes reaches the file."""
        if not self.full:
            return self.write_all(tmp, fill)
        written = io.BytesIO()
        fill(written)
        data = written.getvalue()
        tmp.write_bytes(data[: len(data) // 2])
        self._refuse()

    def _refuse(self):
        self.refused += 1
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


NOT_RECORDED = "Edits are not being recorded: cannot "


def assert_no_torn_bytes(folder: Path) -> None:
    for journal in folder.glob("journal-*"):
        data = journal.read_bytes()
        assert decode_records(data)[1] == len(data), journal.name


@pytest.mark.parametrize("sync_limit", [autosave.SYNC_LIMIT_BYTES, 0], ids=["snapshots-at-once", "snapshots-by-worker"])
def test_edits_after_a_full_disk_is_freed_are_all_restored(qtbot, start_window, monkeypatch, sync_limit):
    """A record torn by a full disk, a snapshot that fails, then room again: the teacher is told, and the autosave
    holds every edit (the one that failed too, through the next snapshot) and no torn bytes."""
    monkeypatch.setattr(autosave, "IDLE_MS", 60_000)  # no compaction by the clock: the edits alone mend it
    monkeypatch.setattr(autosave, "SYNC_LIMIT_BYTES", sync_limit)
    disk = FullDisk(monkeypatch)
    controller = start_window("two-heads")
    state, bar, autosaver = controller.state, controller.window.statusBar(), controller.autosaver

    def edit(col: int, value: str) -> None:
        assert state.edit_cell("enc.0.attn.W_V", (col // 4, col % 4), value)
        autosaver.flush()  # (the worker's snapshot, when it writes one, is done)

    edit(0, "2")  # a snapshot
    edit(1, "3")  # a record
    disk.full = True
    edit(2, "4")  # its record is torn
    assert bar.currentMessage() == f"{NOT_RECORDED}autosave to {autosaver.folder.path}: No space left on device"
    edit(3, "5")  # a snapshot, which fails too
    assert bar.currentMessage().startswith(NOT_RECORDED)
    disk.full = False  # room again
    edit(4, "6")
    assert bar.currentMessage() == "Recording edits again"
    controller.window.undo_action.trigger()
    edit(5, "7")
    assert float(state.trace["enc.0.attn.W_V"][0, 2]) == 4.0
    assert_no_torn_bytes(autosaver.folder.path)
    assert_same_lesson(autosaver.read(), state.to_lesson("en"))


def test_recording_starts_again_by_itself_when_room_comes_back(qtbot, start_window, monkeypatch):
    """No edit after the failure: the idle timer tries again quietly, and once there is room the failed edit is on
    disk and the status bar says so."""
    monkeypatch.setattr(autosave, "IDLE_MS", 20)
    disk = FullDisk(monkeypatch)
    controller = start_window("two-heads")
    state, bar, autosaver = controller.state, controller.window.statusBar(), controller.autosaver
    assert state.edit_cell("enc.0.attn.W_V", (0, 0), "2")
    assert state.edit_cell("enc.0.attn.W_V", (0, 1), "3")
    disk.full = True
    assert state.edit_cell("enc.0.attn.W_V", (0, 2), "4")
    message, emitted = bar.currentMessage(), []
    assert message.startswith(f"{NOT_RECORDED}autosave to")  # its record was torn
    autosaver.failed.connect(emitted.append)
    qtbot.waitUntil(lambda: disk.refused >= 4)  # a snapshot tried again and again, and nothing new said
    assert bar.currentMessage() == message and emitted == [] and autosaver.unrecorded
    disk.full = False
    qtbot.waitUntil(lambda: bar.currentMessage() == "Recording edits again")
    assert_no_torn_bytes(autosaver.folder.path)
    assert_same_lesson(autosaver.read(), state.to_lesson("en"))


def test_a_declined_autosave_that_cannot_be_removed_says_so(qtbot, start_window):
    """The teacher declines a lesson offered back, and deleting its folder fails: the status bar says that it will
    be offered again (it said "Edits are not being recorded", which is about this window's own autosave)."""
    from engine.errors import EngineError

    class Stuck:
        def read(self):
            return open_lesson("two-heads")

        def close(self):
            raise EngineError("cannot remove recovery/123: Permission denied")

    controller = start_window("i-love-ai", prompts=OfferPrompts(accept=lambda lesson: False))
    assert controller._offer(Stuck()) is False
    message = controller.window.statusBar().currentMessage()
    assert "offered again" in message and "Permission denied" in message
    assert "not being recorded" not in message
