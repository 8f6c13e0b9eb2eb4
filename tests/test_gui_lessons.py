"""Lessons in the window: every shipped lesson opens and steps to its end, Save / Open round-trip exactly,
unsaved edits are marked and asked about, every change is autosaved and restored after a crash (a real
`kill -9` included), and hostile files are refused with a clear message that changes nothing."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import torch
from PySide6.QtCore import Qt

from engine.lesson import open_lesson, save_lesson, shipped_lessons
from engine.recovery import read_recovery, recovery_path
from gui import autosave, preferences
from gui.app import build_state, default_lesson, parse_args
from gui.stage_texts import op_title, text_key
from tests import gui_lessons
from tests.gui_lessons import FakePrompts, assert_same_lesson
from tests.gui_window import panel_for

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures
ROOT = Path(__file__).resolve().parent.parent


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
    lesson = default_lesson()
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
    assert not recovery_path().exists()  # a clean save forgets the autosave

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
    assert not recovery_path().exists()


def test_every_change_is_autosaved_and_restored_on_the_next_start(qtbot, start_window, monkeypatch):
    controller = start_window("masked-decoder")
    window, state = controller.window, controller.state
    assert read_recovery() is None

    def autosaved_is_current():
        assert_same_lesson(read_recovery(), state.to_lesson("en"))

    state.go_to("dec.0.self_attn.q")
    assert read_recovery() is None  # stepping alone leaves nothing unsaved
    edit_in_table(window, "dec.0.self_attn.W_Q", 1, 1, "3")
    autosaved_is_current()
    window.undo_action.trigger()
    assert read_recovery() is None  # undone to the lesson as opened: nothing to restore
    window.redo_action.trigger()
    autosaved_is_current()
    window.stepper.next_action.trigger()
    autosaved_is_current()
    cleared = []
    with monkeypatch.context() as m:
        m.setattr(autosave, "clear_recovery", lambda: cleared.append(True))
        window.source.setText("我 爱 模型")
        window.source.returnPressed.emit()
    assert not cleared  # the edits seen so far stay on disk while the new sentence is written
    autosaved_is_current()
    assert state.set_config(state.config.replace(seed=7))  # the settings dialog's Apply
    autosaved_is_current()
    window.stepper.prev_action.trigger()
    edit_in_table(window, "dec.0.self_attn.W_Q", 0, 0, "-2")
    autosaved_is_current()
    expected = state.to_lesson("en")

    # the next start: the teacher says yes
    prompts = FakePrompts()
    again = start_window("two-heads", prompts=prompts)
    assert again.offer_recovery() and prompts.asked == ["restore"]
    assert_same_lesson(again.state.to_lesson("en"), expected)
    assert again.modified and again.window.isWindowModified()
    # and once more, the teacher says no: the autosave is gone
    prompts = FakePrompts()
    prompts.restore_answer = False
    third = start_window("two-heads", prompts=prompts)
    assert not third.offer_recovery() and read_recovery() is None


def test_large_models_autosave_in_the_background(qtbot, start_window, monkeypatch):
    monkeypatch.setattr(autosave, "SYNC_LIMIT_BYTES", 0)  # treat the classroom model as a large one
    controller = start_window("two-heads")
    state = controller.state
    for value in ("1", "2", "3", "4"):
        assert state.edit_cell("enc.0.attn.W_V", (0, 0), value)
    controller.autosaver.flush()
    assert_same_lesson(read_recovery(), state.to_lesson("en"))
    qtbot.waitUntil(lambda: controller.autosaver.future is None)


KILLED_SCRIPT = textwrap.dedent("""
    import sys
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    from tests.gui_lessons import FakePrompts, state_for
    from tests.test_gui_lessons import edit_in_table
    from gui.lesson_controller import LessonController

    controller = LessonController(state_for("i-love-ai"), "en", shipped="i-love-ai", prompts=FakePrompts())
    window = controller.show_window()
    state = controller.state
    state.go_to("enc.0.attn.q")
    edit_in_table(window, "enc.0.attn.W_Q", 2, 1, "1.25")
    edit_in_table(window, "enc.0.attn.W_Q", 0, 3, "-0.5")
    window.undo_action.trigger()
    edit_in_table(window, "enc.0.attn.b_Q", 0, 2, "0.125")
    window.source.setText("I love AI AI")
    window.source.returnPressed.emit()
    state.go_to("enc.0.attn.k")
    edit_in_table(window, "enc.0.attn.W_K", 3, 0, "2.5")
    print("committed", flush=True)
    app.exec()
""")


def test_a_killed_window_loses_no_edit(qtbot, start_window, own_folders):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-c", KILLED_SCRIPT], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        line = child.stdout.readline()
        assert line.strip() == "committed", child.stderr.read()
        child.send_signal(signal.SIGKILL)  # kill -9, the moment the last edit shows
        child.wait(timeout=30)
    finally:
        child.kill()
    assert child.returncode == -signal.SIGKILL

    controller = start_window("two-heads")
    assert controller.offer_recovery()
    state = controller.state
    assert state.text == "I love AI AI" and state.current_stage == "enc.0.attn.k"
    W_Q, b_Q, W_K = (state.trace[f"enc.0.attn.{n}"] for n in ("W_Q", "b_Q", "W_K"))
    original = open_lesson("i-love-ai").params
    assert float(W_Q[2, 1]) == 1.25 and W_Q[0, 3] == original["enc.0.attn.W_Q"][0, 3]  # the undo, too
    assert float(b_Q[2]) == 0.125 and float(W_K[3, 0]) == 2.5
    changed = [n for n in original if not torch.equal(original[n], state.trace.params[n])]
    assert sorted(changed) == ["enc.0.attn.W_K", "enc.0.attn.W_Q", "enc.0.attn.b_Q"]


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
    why = {"not a zip": "not a readable zip", "empty": "not a readable zip", "a pickle inside": "ever unpickled",
           "climbs out": "outside the archive", "missing weights": "lacks weights", "wrong shapes": "has shape"}
    for label, path in hostile_files(tmp_path).items():
        assert not controller.open_file(path), label
        assert prompts.errors[-1].startswith(f"{path.name} was not opened; nothing was changed."), label
        assert why[label] in prompts.errors[-1], label
        assert state.trace is trace and window.windowTitle() == title and controller.path is None
    assert_same_lesson(state.to_lesson("en"), before)
    assert read_recovery() is not None  # the unsaved edit is still autosaved


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
    assert page.list.count() == len(infos) == 11
    assert page.list.item(2).text().endswith(infos[2].title["zh"])  # the window's language
    page.list.setCurrentRow(2)
    assert page.description.text() == infos[2].description["zh"]
    page.show_at_start.setChecked(False)
    qtbot.mouseClick(page.open_button, Qt.LeftButton)
    assert controller.shipped == "layernorm" and controller.state.title == infos[2].title
    assert controller.lang == "zh" and preferences.read("start/show", True) is False
