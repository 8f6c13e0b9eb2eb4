"""Every file the app writes is written whole or not at all, and a failure is one clear line, never "wrote".

A full disk is a mocked write (the first half of the bytes goes down, then ENOSPC), or a write that quietly
loses half of them (as Qt's writers did); read-only places are /proc paths (tests run as root here, and
chmod does not stop root).
"""

import errno
import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from safetensors.torch import save_file

import main
from engine import EngineError, Model, ModelConfig
from engine.formats import files
from engine.formats.lesson import open_lesson, save_lesson
from engine.formats.weights import load_weights, save_weights
from tests import gui_lessons
from tests.gui_lessons import FakePrompts

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures
ROOT = Path(__file__).resolve().parent.parent
TINY = ModelConfig(d_model=4, n_heads=2, decimals=1)


class HalfFile:
    """A file whose write puts down the first half of the bytes, then fails as a full disk does (or, when
    `quietly`, says it wrote everything)."""

    def __init__(self, path, mode, quietly: bool):
        self.file, self.quietly = open(path, mode), quietly

    def write(self, data: bytes) -> int:
        self.file.write(data[: len(data) // 2])
        if not self.quietly:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return len(data)

    def __getattr__(self, name):
        return getattr(self.file, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.file.close()


@pytest.fixture
def full_disk(monkeypatch):
    monkeypatch.setattr(files, "open", lambda path, mode: HalfFile(path, mode, quietly=False), raising=False)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def assert_refused(code: int, out: str, err: str, *words: str) -> None:
    assert code == 1 and "wrote" not in out and err.count("\n") == 1, (code, out, err)
    for word in words:
        assert word in err, err


# ---- the helper ---------------------------------------------------------------------------------
def test_a_write_is_whole_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "a.bin"
    assert files.write_atomic(path, b"first") == path
    files.write_atomic(path, b"second")
    assert path.read_bytes() == b"second" and os.listdir(tmp_path) == ["a.bin"]


@pytest.mark.parametrize("quietly", [False, True], ids=["disk-full", "bytes-lost"])
def test_a_failed_write_keeps_the_old_file_and_leaves_nothing(tmp_path, monkeypatch, quietly):
    path = tmp_path / "a.bin"
    path.write_bytes(b"old")
    monkeypatch.setattr(files, "open", lambda p, mode: HalfFile(p, mode, quietly), raising=False)
    reason = "only 4 of 8 bytes reached the disk" if quietly else "No space left on device"
    with pytest.raises(EngineError, match=f"cannot write .*a.bin: {reason}"):
        files.write_atomic(path, b"12345678")
    assert path.read_bytes() == b"old" and os.listdir(tmp_path) == ["a.bin"]


def test_folders_special_files_and_missing_folders_are_refused(tmp_path):
    cases = {
        tmp_path: "it is a folder",
        Path("/dev/null"): "not a regular file",
        Path("/proc/version"): "cannot create a file in /proc",
        tmp_path / "no" / "a.bin": "the folder .* does not exist",
    }
    for path, why in cases.items():
        with pytest.raises(EngineError, match=why):
            files.write_atomic(path, b"x")
    assert os.listdir(tmp_path) == []


def test_a_symlink_is_written_through(tmp_path):
    real, link = tmp_path / "real" / "lesson.stepformer", tmp_path / "link.stepformer"
    real.parent.mkdir()
    real.write_bytes(b"old")
    link.symlink_to(real)
    save_lesson(open_lesson("i-love-ai"), link)
    assert link.is_symlink() and open_lesson(real).text == open_lesson("i-love-ai").text
    save_weights(Model.create(TINY), link)  # the same for weights
    assert link.is_symlink() and load_weights(TINY, real).params.keys() == Model.create(TINY).params.keys()
    assert sorted(os.listdir(tmp_path)) == ["link.stepformer", "real"] and os.listdir(real.parent) == [real.name]


def test_new_files_follow_the_umask_and_replaced_files_keep_their_mode(tmp_path):
    old = os.umask(0o027)
    try:
        files.write_atomic(tmp_path / "new", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o640
    kept = tmp_path / "kept"
    kept.write_bytes(b"old")
    kept.chmod(0o604)
    save_weights(Model.create(TINY), kept)
    assert stat.S_IMODE(kept.stat().st_mode) == 0o604


def test_temporary_files_of_killed_writers_are_removed_on_the_next_save(tmp_path):
    path = tmp_path / "class.stepformer"
    killed = subprocess.run(  # killed in the middle of a save, as by kill -9: its temporary file stays
        [
            sys.executable,
            "-c",
            "import os, signal, sys\nfrom engine.formats import files\n"
            "os.fsync = lambda fd: os.kill(os.getpid(), signal.SIGKILL)\nfiles.write_atomic(sys.argv[1], b'x' * 4096)",
            str(path),
        ],
        cwd=ROOT,
        timeout=120,
    )
    assert killed.returncode == -signal.SIGKILL
    (left,) = files.temp_files(path)
    assert left[0].stat().st_size == 4096
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) as live:
        try:
            live_temp = tmp_path / f".class.stepformer.{live.pid}.0123abcd.tmp"  # a writer still at work
            live_temp.write_bytes(b"busy")
            save_lesson(open_lesson("i-love-ai"), path)
            assert sorted(os.listdir(tmp_path)) == [live_temp.name, "class.stepformer"]
        finally:
            live.kill()


def test_a_vocabulary_listing_a_token_twice_is_refused_on_opening(tmp_path):
    model = Model.create(TINY)
    model.trace("I love AI")
    path = tmp_path / "w.safetensors"
    tokens = model.vocabs["enc"].tokens
    meta = {"stepformer.enc_vocab": json.dumps(tokens[:-1] + [tokens[-2]]), "stepformer.config": TINY.to_json()}
    save_file({k: v.contiguous() for k, v in model.params.items()}, str(path), metadata=meta)
    with pytest.raises(EngineError, match=f"the enc vocabulary lists the token '{tokens[-2]}' twice"):
        load_weights(TINY, path)


# ---- the command line -------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["pdf", "svg", "png", "csv"])
def test_export_on_a_full_disk_says_so_and_exits_1(qapp, tmp_path, capsys, full_disk, fmt):
    out = tmp_path / f"fig.{fmt}"
    code, said, err = run(capsys, "export", "--stage", "enc.x0", "--format", fmt, "--out", str(out))
    assert_refused(code, said, err, f"cannot write {out}: No space left on device")
    assert os.listdir(tmp_path) == []


def test_deck_on_a_full_disk_says_so_and_exits_1(qapp, tmp_path, capsys, full_disk):
    out = tmp_path / "deck.pdf"
    code, said, err = run(capsys, "deck", "--lesson", "i-love-ai", "--format", "pdf", "--out", str(out))
    assert_refused(code, said, err, f"cannot write {out}: No space left on device")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    "verb",
    [["deck", "--format", "pdf"], ["deck", "--format", "pptx"], ["export", "--stage", "enc.x0", "--format", "svg"]],
)
def test_a_system_file_or_a_folder_is_refused_before_drawing(qapp, tmp_path, capsys, verb):
    for out, why in (("/proc/version", "cannot create a file in /proc"), (str(tmp_path), "it is a folder")):
        assert_refused(*run(capsys, *verb, "--out", out), why)


def test_save_weights_to_a_missing_read_only_or_full_place_is_one_line(tmp_path, capsys, monkeypatch):
    config = tmp_path / "c.json"
    config.write_text(TINY.to_json(), encoding="utf-8")
    trace = ["trace", "--config", str(config), "--text", "I love AI", "--out", str(tmp_path / "t.npz")]
    for place, why in (
        (tmp_path / "no" / "w.safetensors", "does not exist"),
        ("/proc/w.safetensors", "cannot create a file in /proc"),
    ):
        assert_refused(*run(capsys, *trace, "--save-weights", str(place)), why)
    monkeypatch.setattr(files, "open", lambda path, mode: HalfFile(path, mode, quietly=False), raising=False)
    assert_refused(*run(capsys, *trace, "--save-weights", str(tmp_path / "w.safetensors")), "No space left")
    assert os.listdir(tmp_path) == ["c.json"]


def test_train_into_a_place_that_is_not_a_folder_is_refused_before_training(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    assert_refused(*run(capsys, "train", "toy", "--out", str(blocker / "toy")), "cannot write to")


# ---- the window --------------------------------------------------------------------------------
def test_save_on_a_full_disk_is_a_message_and_the_lesson_stays_unsaved(qtbot, start_window, tmp_path, monkeypatch):
    prompts = FakePrompts()
    controller = start_window("i-love-ai", prompts=prompts)
    controller.state.edit_cell("enc.0.attn.W_Q", (0, 0), 0.5)
    prompts.path = str(tmp_path / "class.stepformer")
    monkeypatch.setattr(files, "open", lambda path, mode: HalfFile(path, mode, quietly=False), raising=False)
    assert not controller.save()
    assert prompts.errors == [f"cannot write {prompts.path}: No space left on device"]
    assert controller.modified and controller.path is None and not (tmp_path / "class.stepformer").exists()


def test_export_dialog_on_a_full_disk_shows_a_message(qapp, qtbot, tmp_path, monkeypatch, full_disk):
    from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

    from gui.state.app_state import AppState
    from gui.views import export_dialogs as dialogs

    state = AppState(TINY, "I love AI")
    parent = QWidget()
    qtbot.addWidget(parent)
    out = tmp_path / "slides.pdf"
    warnings = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: warnings.append(text))
    assert not dialogs.export_deck_dialog(parent, state)
    assert warnings == [f"cannot write {out}: No space left on device"] and not out.exists()
