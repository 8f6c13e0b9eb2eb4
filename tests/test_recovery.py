"""The autosave's recovery folders and journal (engine/formats/recovery.py, engine/formats/journal.py): a snapshot
with the journal replayed onto it gives the lesson back exactly, a torn last record is dropped (cut at every byte),
a write that fails on a full disk leaves no torn record for later ones to follow, each folder is locked by its owner
while it runs, and declined or finished folders leave nothing behind."""

import errno
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from engine import EngineError
from engine.formats.journal import decode_records, encode_record, replay
from engine.formats.lesson import Lesson, open_lesson
from engine.formats.recovery import RecoveryFolder, orphaned_folders, recovery_root

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("STEPFORMER_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def edits(n: int) -> list[dict]:
    """n journal records: weight cells, a pinned stage and the stage the stepper stands on."""
    records = []
    for i in range(n):
        if i % 5 == 2:
            records.append({"op": "cell", "name": "enc.0.attn.weights", "index": [0, i % 3, 1], "value": i / 8})
        elif i % 5 == 4:
            records.append({"op": "stage", "stage": "enc.0.attn.k" if i % 2 else "enc.0.attn.q"})
        else:
            records.append({"op": "cell", "name": "enc.0.attn.W_Q", "index": [i % 4, (i // 4) % 4], "value": i + 0.5})
    return records


def assert_equal_lessons(a: Lesson, b: Lesson) -> None:
    assert (a.config, a.text, a.target, a.stage, a.lang) == (b.config, b.text, b.target, b.stage, b.lang)
    assert a.vocabularies == b.vocabularies
    for mine, theirs in ((a.params, b.params), (a.overrides, b.overrides)):
        assert mine.keys() == theirs.keys()
        assert all(torch.equal(mine[k], theirs[k]) for k in mine)


def test_a_snapshot_and_its_journal_give_the_lesson_back(data):
    lesson = open_lesson("i-love-ai")
    folder = RecoveryFolder.create()
    assert folder.read() is None
    generation = folder.start_generation()
    folder.write_snapshot(lesson, generation, "/lessons/mine.stepformer")
    folder.append(edits(6))
    expected = replay(lesson, edits(6))
    assert float(expected.params["enc.0.attn.W_Q"][0, 0]) == 0.5 and "enc.0.attn.weights" in expected.overrides
    assert_equal_lessons(folder.read(), expected)
    assert folder.lesson_path() == "/lessons/mine.stepformer"
    # compaction: a new generation's journal gets the next records while its snapshot is written
    generation = folder.start_generation()
    folder.append(edits(9)[6:])
    assert_equal_lessons(folder.read(), replay(lesson, edits(9)))  # old snapshot + both journals
    folder.write_snapshot(expected, generation)
    assert sorted(p.name for p in folder.path.iterdir()) == ["journal-2", "lock", "snapshot-2.stepformer"]
    assert_equal_lessons(folder.read(), replay(lesson, edits(9)))
    folder.clear()
    assert folder.read() is None and [p.name for p in folder.path.iterdir()] == ["lock"]
    folder.close()
    assert list(recovery_root().iterdir()) == []


def test_a_torn_last_record_is_dropped_at_every_byte(data):
    """A kill in the middle of writing a record: the journal cut at every byte offset of its last record
    restores exactly the edits whose record was complete."""
    lesson, records = open_lesson("i-love-ai"), edits(5)
    folder = RecoveryFolder.create()
    folder.write_snapshot(lesson, folder.start_generation())
    folder.append(records)
    journal = folder.path / "journal-1"
    size, last = journal.stat().st_size, len(encode_record(records[-1]))
    complete, without_last = replay(lesson, records), replay(lesson, records[:-1])
    assert_equal_lessons(folder.read(), complete)
    for cut in range(size - 1, size - last - 1, -1):
        os.truncate(journal, cut)
        assert_equal_lessons(folder.read(), without_last)
    folder.close()


def full_disk(folder: RecoveryFolder, monkeypatch) -> None:
    """The disk fills up: a write to the folder's journal puts half its bytes there, then fails with ENOSPC."""
    write = os.write

    def torn_write(fd: int, data: bytes) -> int:
        if fd != folder.journal_fd:
            return write(fd, data)
        write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", torn_write)


def test_a_write_that_fails_on_a_full_disk_leaves_no_torn_record(data, monkeypatch):
    """The records after a failed write (room came back) are restored, and the journal holds no torn bytes."""
    lesson, records = open_lesson("i-love-ai"), edits(8)
    folder = RecoveryFolder.create()
    folder.write_snapshot(lesson, folder.start_generation())
    folder.append(records[:3])
    journal = folder.path / "journal-1"
    with monkeypatch.context() as disk:
        full_disk(folder, disk)
        with pytest.raises(EngineError, match="No space left on device"):
            folder.append(records[3:5])  # one change's records: none of them is kept
        assert journal.read_bytes() == b"".join(encode_record(r) for r in records[:3])
    folder.append(records[5:])
    acknowledged = records[:3] + records[5:]
    assert decode_records(journal.read_bytes()) == (acknowledged, journal.stat().st_size)
    assert_equal_lessons(folder.read(), replay(lesson, acknowledged))
    folder.close()


def cannot_truncate(fd: int, size: int) -> None:
    raise OSError(errno.EIO, os.strerror(errno.EIO))


def test_a_journal_whose_torn_record_cannot_be_cut_off_takes_no_more_records(data, monkeypatch):
    lesson, records = open_lesson("i-love-ai"), edits(5)
    folder = RecoveryFolder.create()
    folder.write_snapshot(lesson, folder.start_generation())
    folder.append(records[:2])
    with monkeypatch.context() as disk:
        full_disk(folder, disk)
        disk.setattr(os, "ftruncate", cannot_truncate)
        with pytest.raises(EngineError, match="No space left on device"):
            folder.append(records[2:3])
    with pytest.raises(EngineError, match="the journal is not open"):
        folder.append(records[3:])  # never after the torn record: the next change starts a new generation
    assert_equal_lessons(folder.read(), replay(lesson, records[:2]))
    folder.write_snapshot(replay(lesson, records[:4]), folder.start_generation())
    folder.append(records[4:])
    assert_equal_lessons(folder.read(), replay(lesson, records))
    folder.close()


def test_damaged_records_end_the_journal():
    good = [encode_record(r) for r in edits(3)]
    flipped = bytearray(good[1])
    flipped[-2] ^= 0x01  # a bit of the payload: the checksum no longer matches
    assert decode_records(good[0] + bytes(flipped) + good[2]) == (edits(1), len(good[0]))
    huge = (2**31).to_bytes(4, "little") + bytes(4)  # a length field past the limit
    assert decode_records(good[0] + huge + good[2])[0] == edits(1)
    assert decode_records(b"") == ([], 0)
    with pytest.raises(EngineError, match="cannot be recorded"):
        encode_record({"op": "cell", "value": float("nan")})


def test_records_that_do_not_fit_the_lesson_are_refused_with_one_message():
    lesson = open_lesson("i-love-ai")
    with pytest.raises(EngineError, match="unknown change 'explode'"):
        replay(lesson, [{"op": "explode"}])
    with pytest.raises(EngineError, match="change 2 is damaged"):
        replay(lesson, [edits(1)[0], {"op": "cell", "name": "enc.0.attn.W_Q"}])
    with pytest.raises(EngineError, match="outside enc.0.attn.W_Q"):
        replay(lesson, [{"op": "cell", "name": "enc.0.attn.W_Q", "index": [9, 9], "value": 1.0}])


def test_a_folder_in_use_is_never_offered_and_a_released_one_is(data):
    mine = RecoveryFolder.create()
    mine.write_snapshot(open_lesson("i-love-ai"), mine.start_generation())
    assert orphaned_folders() == []  # locked: in use (even by another object of this process)
    mine.leave()  # as a kill would: the lock goes, the files stay
    [found] = orphaned_folders()
    assert found.path == mine.path and found.read() is not None
    assert orphaned_folders() == []  # now locked by `found`
    found.close()
    assert list(recovery_root().iterdir()) == []


def test_a_recovery_folder_in_the_way_gives_one_message(data):
    data.mkdir()
    (data / "recovery").write_text("a file where the folder should be")
    with pytest.raises(EngineError, match="cannot autosave to"):
        RecoveryFolder.create()
    assert orphaned_folders() == []
    (data / "recovery").unlink()
    folder = RecoveryFolder.create()
    (folder.path / "journal-1").mkdir()  # a folder where the journal should be
    (folder.path / "snapshot-1.stepformer").mkdir()
    with pytest.raises(EngineError, match="cannot autosave to"):
        folder.start_generation()
    with pytest.raises(EngineError, match="cannot write .*it is a folder"):
        folder.write_snapshot(open_lesson("i-love-ai"), 1)
    folder.close()  # folders in the way are removed with the rest
    assert list(recovery_root().iterdir()) == []


KILLED_WHILE_COMPACTING = textwrap.dedent("""
    from engine.formats.lesson import open_lesson
    from engine.formats.journal import replay
    from engine.formats.recovery import RecoveryFolder
    from tests.test_recovery import edits

    lesson, records = open_lesson("i-love-ai"), edits(40)
    folder = RecoveryFolder.create()
    folder.write_snapshot(lesson, folder.start_generation())
    for i, record in enumerate(records):
        folder.append([record])
        print(f"edit {i} saved", flush=True)
        if i % 3 == 2:  # compaction, over and over, until the kill lands in the middle of one
            folder.write_snapshot(replay(lesson, records[:i + 1]), folder.start_generation())
    input()
""")


def test_a_kill_during_journal_writes_and_compactions_loses_no_reported_edit(data):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_WHILE_COMPACTING],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        for i in range(25):
            assert child.stdout.readline().strip() == f"edit {i} saved"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdin.close()
        child.stdout.close()
    [folder] = orphaned_folders()
    restored, lesson, records = folder.read(), open_lesson("i-love-ai"), edits(40)
    done = [n for n in range(25, 41) if same_lesson(restored, replay(lesson, records[:n]))]
    assert done  # every reported edit, and the journal replayed exactly up to some later one
    folder.close()


def same_lesson(a: Lesson, b: Lesson) -> bool:
    try:
        assert_equal_lessons(a, b)
    except AssertionError:
        return False
    return True
