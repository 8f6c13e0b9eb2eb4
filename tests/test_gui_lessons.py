"""Lessons in the window: every shipped lesson opens and steps to its end, Save / Open round-trip exactly,
unsaved edits are marked and asked about, every change is autosaved exactly (the restore after `kill -9` and
with two instances: test_gui_recovery.py), the journal stays short, and hostile files are refused with a clear
message that changes nothing."""

import json
import zipfile
from pathlib import Path

from PySide6.QtCore import Qt

from engine.formats.lesson import open_lesson, save_lesson, shipped_lessons
from engine.formats.recovery import recovery_root
from engine.sources import DEFAULT_LESSON
from gui.app import build_state, parse_args
from gui.state import autosave, preferences
from gui.text.operations import text_key
from gui.text.stage_texts import op_title
from tests import gui_lessons
from tests.gui_lessons import FakePrompts, assert_same_lesson
from tests.gui_window import panel_for

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures


def edit_in_table(window, name: str, row: int, col: int, text: str) -> None:
    """Type a number into a shown matrix, as the teacher does (the table's model takes the edit)."""
    model = panel_for(window, name).model
    assert model.setData(model.index(row, col), text)


def test_every_shipped_lesson_opens_and_steps_to_its_last_stage(qtbot, start_window):
    controller = start_window("two-heads")
    for info in shipped_lessons():
        assert controller.open_shipped(info.name)
        window, state = controller.window, controller.state
        lesson = open_lesson(info.name)
        assert state.text == lesson.text and state.target == lesson.target
        assert state.current_stage == (lesson.stage or state.stage_names[0])
        assert window.windowTitle().startswith(info.title["en"]) and not window.isWindowModified()
        assert len(window.stage_list.leaves) == len(state.stage_names)
        window.stage_list.tree.setFocus()
        qtbot.keyClick(window.stage_list.tree, Qt.Key_Home)
        for i in range(1, len(state.stage_names)):  # the presenter clicker's Page Down, stage by stage
            qtbot.keyClick(window.stage_list.tree, Qt.Key_PageDown)
            assert state.cursor == i
            assert window.stage_view.title.text() == op_title(text_key(state.trace, state.current_stage))
        assert window.stepper.counter.text() == f"stage {len(state.stage_names)} / {len(state.stage_names)}"
        assert not controller.modified  # stepping is not an edit


def test_the_default_lesson_and_the_command_line(own_folders, tmp_path):
    lesson = open_lesson(DEFAULT_LESSON)
    cfg = lesson.config
    assert (cfg.d_model, cfg.n_heads, cfg.n_layers, lesson.text) == (4, 2, 1, "I love AI")
    state = build_state(parse_args(["--lesson", "layernorm"]))
    assert state.title["en"] == open_lesson("layernorm").title["en"]
    path = tmp_path / "mine.stepformer"
    save_lesson(open_lesson("cross-attention"), path)
    state = build_state(parse_args(["--lesson", str(path), "--text", "I love"]))
    assert state.config.architecture == "encoder-decoder" and state.text == "I love"


def test_save_and_open_round_trip_from_the_window(qtbot, start_window, tmp_path):
    prompts = FakePrompts()
    controller = start_window("cross-attention", prompts=prompts)
    window, state = controller.window, controller.state
    state.go_to("enc.0.attn.q")
    edit_in_table(window, "enc.0.attn.W_Q", 1, 0, "0.75")
    window.source.setText("I love AI")
    window.source.returnPressed.emit()
    state.go_to("dec.0.cross_attn.q")
    edit_in_table(window, "dec.0.cross_attn.W_Q", 0, 1, "-1.5")
    state.go_to("dec.0.cross_attn.weights")
    assert controller.modified and window.isWindowModified() and "[*]" in window.windowTitle()
    saved = state.to_lesson("en")

    prompts.path = str(tmp_path / "class")  # the suffix is added
    assert controller.save()
    path = tmp_path / "class.stepformer"
    assert controller.path == path and path.is_file() and not window.isWindowModified()
    assert window.windowTitle() == "class.stepformer[*] — Stepformer"
    assert preferences.recent_files()[0] == str(path.resolve())
    assert controller.autosaver.read() is None  # a clean save forgets the autosave

    state.edit_cell("dec.0.cross_attn.W_Q", (0, 1), 2.0)  # an edit after saving, then discarded
    assert controller.open_shipped("layernorm") and prompts.asked == ["unsaved"]
    assert controller.open_file(path)
    assert_same_lesson(state.to_lesson("en"), saved)
    assert state.current_stage == "dec.0.cross_attn.weights" and not controller.modified
    assert float(state.trace["enc.0.attn.W_Q"][1, 0]) == 0.75


def test_unsaved_edits_are_marked_and_asked_about_on_close(qtbot, start_window, tmp_path):
    prompts = FakePrompts()
    controller = start_window("i-love-ai", prompts=prompts)
    window, state = controller.window, controller.state
    state.go_to("enc.0.attn.q")
    assert not window.isWindowModified()
    edit_in_table(window, "enc.0.attn.W_Q", 0, 0, "2")
    assert window.isWindowModified()
    window.undo_action.trigger()
    assert not window.isWindowModified()  # back to the lesson as opened
    window.redo_action.trigger()
    assert window.isWindowModified()

    prompts.unsaved_answer = "cancel"
    window.close()
    assert window.isVisible() and prompts.asked == ["unsaved"]
    prompts.unsaved_answer, prompts.path = "save", str(tmp_path / "kept.stepformer")
    window.close()
    assert not window.isVisible() and (tmp_path / "kept.stepformer").is_file()
    assert float(open_lesson(tmp_path / "kept.stepformer").params["enc.0.attn.W_Q"][0, 0]) == 2.0
    assert list(recovery_root().iterdir()) == []  # a clean exit leaves no recovery folder


def test_every_change_is_autosaved_exactly(qtbot, start_window):
    """After every kind of change the autosave (snapshot + journal, replayed) is the lesson on screen, bit for
    bit (the restore after a kill is tested in test_gui_recovery.py)."""
    controller = start_window("cross-attention")
    window, state = controller.window, controller.state

    def autosaved_is_current():
        assert_same_lesson(controller.autosaver.read(), state.to_lesson("en"))

    state.go_to("enc.0.attn.q")
    assert controller.autosaver.read() is None  # stepping alone leaves nothing unsaved
    edit_in_table(window, "enc.0.attn.W_Q", 1, 1, "3")
    autosaved_is_current()
    window.undo_action.trigger()
    assert controller.autosaver.read() is None  # undone to the lesson as opened: nothing to restore
    window.redo_action.trigger()
    autosaved_is_current()
    window.stepper.next_action.trigger()
    autosaved_is_current()
    for cell, value in (((0, 1, 0), "2"), ((0, 1, 1), "3")):  # a stage pinned, edited twice, undone, redone
        assert state.edit_cell("enc.0.attn.k", cell, value)
        autosaved_is_current()
    for action in ("undo", "undo", "redo"):
        getattr(window, f"{action}_action").trigger()
        autosaved_is_current()
    assert state.set_switch("no_scale", True)
    assert state.edit_cell("enc.0.attn.W_K", (1, 1), "1.5")
    autosaved_is_current()
    for action in ("undo", "undo", "redo"):  # the edit, the switch, the switch again
        getattr(window, f"{action}_action").trigger()
        autosaved_is_current()
    assert state.append_token(3)  # a generated token (drops the pinned stage)
    autosaved_is_current()
    for action in ("undo", "redo"):
        getattr(window, f"{action}_action").trigger()
        autosaved_is_current()
    window.source.setText("我 爱 模型")  # new words grow the vocabulary
    window.source.returnPressed.emit()
    autosaved_is_current()
    assert state.edit_cell("enc.embed.W_E", (5, 1), "4")
    autosaved_is_current()
    assert state.set_config(state.config.replace(seed=7))  # the settings dialog's Apply
    autosaved_is_current()
    state.go_to("enc.0.attn.q")
    edit_in_table(window, "enc.0.attn.W_Q", 0, 0, "-2")
    state.reset_weights()
    autosaved_is_current()
    window.undo_action.trigger()
    autosaved_is_current()


def test_large_models_autosave_in_the_background(qtbot, start_window, monkeypatch):
    monkeypatch.setattr(autosave, "SYNC_LIMIT_BYTES", 0)  # treat the classroom model as a large one
    controller = start_window("two-heads")
    state = controller.state
    for value in ("1", "2", "3", "4"):
        assert state.edit_cell("enc.0.attn.W_V", (0, 0), value)
    assert controller.autosaver.records == 3  # the first change's snapshot went to the worker, the rest to the journal
    assert_same_lesson(controller.autosaver.read(), state.to_lesson("en"))
    assert controller.autosaver.job is None


def test_the_journal_is_compacted_and_stays_short(qtbot, start_window, monkeypatch):
    """Many edits: the journals on disk never hold more than 4 × COMPACT_RECORDS records, and the autosave
    is exact at the end."""
    monkeypatch.setattr(autosave, "COMPACT_RECORDS", 20)
    controller = start_window("two-heads")
    state, folder = controller.state, None
    largest = 0
    for k in range(300):
        assert state.edit_cell("enc.0.attn.W_V", (k % 4, k // 4 % 4), str((k % 41 - 20) / 8))
        folder = controller.autosaver.folder.path
        largest = max(largest, journal_bytes(folder))
    one_record = len(json.dumps({"op": "cell", "name": "enc.0.attn.W_V", "index": [3, 3], "value": -2.5})) + 8
    assert largest <= 4 * 20 * one_record
    assert sum(1 for _ in folder.glob("snapshot-*")) <= 2
    assert_same_lesson(controller.autosaver.read(), state.to_lesson("en"))


def journal_bytes(folder: Path) -> int:
    """The size of the journals in a recovery folder (the worker may be deleting one)."""
    total = 0
    for path in folder.glob("journal-*"):
        try:
            total += path.stat().st_size
        except FileNotFoundError:
            pass
    return total


def test_an_idle_journal_is_compacted(qtbot, start_window, monkeypatch):
    monkeypatch.setattr(autosave, "IDLE_MS", 50)
    controller = start_window("two-heads")
    assert controller.state.edit_cell("enc.0.attn.W_V", (0, 0), "2")
    assert controller.state.edit_cell("enc.0.attn.W_V", (0, 1), "3")
    assert controller.autosaver.records == 1  # (the first change wrote the snapshot)
    qtbot.waitUntil(lambda: controller.autosaver.records == 0 and controller.autosaver.job is None)
    controller.autosaver.idle.timeout.emit()  # a job finished: nothing left to fold
    assert [p.name for p in controller.autosaver.folder.path.glob("journal-*")] == ["journal-2"]
    assert_same_lesson(controller.autosaver.read(), controller.state.to_lesson("en"))


def test_a_recovery_folder_in_the_way_is_explained_and_the_window_keeps_working(qtbot, start_window):
    """The recovery folder is a file, then a folder stands where a journal and a snapshot go: each autosave
    says why it failed in the status bar; edits, undo and closing work."""
    data = recovery_root().parent
    data.mkdir(parents=True, exist_ok=True)
    recovery_root().write_text("not a folder")
    controller = start_window("two-heads")
    window, state = controller.window, controller.state
    assert state.edit_cell("enc.0.attn.W_V", (0, 0), "2")
    assert window.statusBar().currentMessage().startswith("Edits are not being recorded: cannot autosave to")
    window.undo_action.trigger()
    window.redo_action.trigger()
    assert float(state.trace["enc.0.attn.W_V"][0, 0]) == 2.0
    recovery_root().unlink()
    assert state.edit_cell("enc.0.attn.W_V", (0, 1), "3")  # autosaves again
    folder = controller.autosaver.folder.path
    (folder / "journal-2").mkdir()
    (folder / "snapshot-2.stepformer").mkdir()
    window.statusBar().clearMessage()
    state.reset_weights()  # a change written as a snapshot
    assert window.statusBar().currentMessage().startswith("Edits are not being recorded: cannot autosave to")
    window.undo_action.trigger()
    window.undo_action.trigger()
    window.undo_action.trigger()  # back to the lesson as opened: the autosave is cleared, folders and all
    assert not controller.modified and [p.name for p in folder.iterdir()] == ["lock"]
    window.close()
    assert not window.isVisible() and list(recovery_root().iterdir()) == []


def hostile_files(folder: Path) -> dict[str, Path]:
    good = folder / "good.stepformer"
    save_lesson(open_lesson("two-heads"), good)
    with zipfile.ZipFile(good) as z:
        members = {n: z.read(n) for n in z.namelist()}
    files = {"not a zip": b"this is not a lesson", "empty": b""}
    paths = {}
    for label, data in files.items():
        paths[label] = folder / f"{label}.stepformer"
        paths[label].write_bytes(data)

    def zipped(label: str, contents: dict[str, bytes]) -> None:
        paths[label] = folder / f"{label.replace(' ', '_')}.stepformer"
        with zipfile.ZipFile(paths[label], "w") as z:
            for name, data in contents.items():
                z.writestr(name, data)

    zipped("a pickle inside", {**members, "model.pkl": b"\x80\x04K\x01."})
    zipped("climbs out", {**members, "../../evil.json": b"{}"})
    zipped("missing weights", {"lesson.json": members["lesson.json"]})
    data = json.loads(members["lesson.json"])
    data["config"]["d_model"] = 8  # the weights are 4 wide
    zipped("wrong shapes", {**members, "lesson.json": json.dumps(data).encode()})
    return paths


def test_hostile_lesson_files_are_refused_and_change_nothing(qtbot, start_window, tmp_path):
    prompts = FakePrompts()
    controller = start_window("two-heads", prompts=prompts)
    state, window = controller.state, controller.window
    state.go_to("enc.0.attn.q")
    edit_in_table(window, "enc.0.attn.W_Q", 0, 0, "5")
    prompts.unsaved_answer = "discard"
    trace, title, before = state.trace, window.windowTitle(), state.to_lesson("en")
    why = {
        "not a zip": "not a readable zip",
        "empty": "not a readable zip",
        "a pickle inside": "ever unpickled",
        "climbs out": "outside the archive",
        "missing weights": "lacks weights",
        "wrong shapes": "has shape",
    }
    for label, path in hostile_files(tmp_path).items():
        assert not controller.open_file(path), label
        assert prompts.errors[-1].startswith(f"{path.name} was not opened; nothing was changed."), label
        assert why[label] in prompts.errors[-1], label
        assert state.trace is trace and window.windowTitle() == title and controller.path is None
    assert_same_lesson(state.to_lesson("en"), before)
    assert controller.autosaver.read() is not None  # the unsaved edit is still autosaved


def test_recent_files_and_start_page(qtbot, start_window, tmp_path):
    prompts = FakePrompts()
    controller = start_window("two-heads", lang="zh", prompts=prompts)
    path = tmp_path / "recent.stepformer"
    save_lesson(open_lesson("positional-encoding"), path)
    assert controller.open_file(path)
    controller.window.recent_menu.aboutToShow.emit()
    entries = [a for a in controller.window.recent_menu.actions() if a.statusTip()]
    assert [a.statusTip() for a in entries] == [str(path.resolve())]
    assert controller.open_shipped("two-heads")
    entries[0].trigger()
    assert controller.path == path
    path.unlink()
    assert not controller.open_file(path) and preferences.recent_files() == []

    page = controller.show_start_page()
    infos = shipped_lessons()
    assert page.list.count() == len(infos) == 17
    assert page.list.item(2).text().endswith(infos[2].title["zh"])  # the window's language
    page.list.setCurrentRow(2)
    assert page.description.text() == infos[2].description["zh"]
    page.show_at_start.setChecked(False)
    qtbot.mouseClick(page.open_button, Qt.LeftButton)
    assert controller.shipped == "layernorm" and controller.state.title == infos[2].title
    assert controller.lang == "zh" and preferences.read("start/show", True) is False
