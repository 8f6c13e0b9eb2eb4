"""Lessons open on their point: the head, the query row and the decimals they name (`show`), so the seeds'
numbers (0.452, 0.274, −0.447, 1.342, why-scale's row 大) are on screen without a click."""

import json
import zipfile

import pytest
from PySide6.QtWidgets import QTableView

from engine import EngineError
from engine.formats.lesson import Lesson, open_lesson, save_lesson
from gui.launch import launch
from tests.gui_lessons import own_folders, state_for  # noqa: F401 (a fixture)


def test_shipped_lessons_name_what_they_open_on():
    assert open_lesson("why-scale").show == {"row": 2, "decimals": 3}  # the lesson is about 大's row
    assert open_lesson("layernorm").show["decimals"] == 3  # −0.447 / 1.342
    assert open_lesson("masked-decoder").show["row"] == 1  # 我's row: the mask hides three of its five cells
    assert open_lesson("cost-of-context").show["row"] == "last"


@pytest.mark.parametrize(
    "show, words",
    [
        ({"head": 5}, "show.head"),
        ({"row": -1}, "show.row"),
        ({"row": "first"}, "show.row"),
        ({"decimals": 9}, "show.decimals"),
        ({"decimals": 2.5}, "show.decimals"),
        ({"zoom": 2}, "show must be"),
        ([1, 2], "show must be"),
    ],
)
def test_a_bad_show_is_refused_with_its_name(tmp_path, show, words):
    lesson = open_lesson("two-heads")
    save_lesson(lesson, tmp_path / "a.stepformer")
    with zipfile.ZipFile(tmp_path / "a.stepformer") as z:
        members = {n: z.read(n) for n in z.namelist()}
    data = json.loads(members["lesson.json"])
    data["show"] = show
    members["lesson.json"] = json.dumps(data).encode()
    with zipfile.ZipFile(tmp_path / "b.stepformer", "w") as z:
        for n, b in members.items():
            z.writestr(n, b)
    with pytest.raises(EngineError, match=words):
        open_lesson(tmp_path / "b.stepformer")


def test_show_survives_saving_and_a_last_row_stays_last(qapp, tmp_path):
    state = state_for("cost-of-context")
    assert state.row == len(state.trace.tokens["dec"]) - 1
    save_lesson(state.to_lesson(), tmp_path / "m.stepformer")
    assert open_lesson(tmp_path / "m.stepformer").show["row"] == "last"
    state.set_row(0)
    assert state.to_lesson().show["row"] == 0


def test_why_scale_opens_on_its_row_with_three_decimals(qtbot, own_folders):  # noqa: F811
    state = state_for("why-scale")
    controller = launch(state, "en", "why-scale", start_page=False)
    qtbot.addWidget(controller.window)
    assert (state.row, state.display.decimals) == (2, 3)
    state.go_to("enc.0.attn.weights")
    tables = controller.window.findChildren(QTableView)
    shown = {
        t.model().text(r, c)
        for t in tables
        if hasattr(t.model(), "text")
        for r in range(t.model().rowCount())
        for c in range(t.model().columnCount())
    }
    assert "0.455" in shown  # 大's largest weight, as the lesson text says
    controller.state.undo_stack.setClean()
    controller.window.close()


def test_i_love_ai_shows_the_seed_numbers(qtbot, own_folders):  # noqa: F811
    state = state_for("i-love-ai")
    controller = launch(state, "en", "i-love-ai", start_page=False)
    qtbot.addWidget(controller.window)
    state.go_to("enc.0.attn.weights")
    tables = controller.window.findChildren(QTableView)
    shown = {
        t.model().text(r, c)
        for t in tables
        if hasattr(t.model(), "text")
        for r in range(t.model().rowCount())
        for c in range(t.model().columnCount())
    }
    assert {"0.452", "0.274"} <= shown
    controller.state.undo_stack.setClean()
    controller.window.close()


def test_a_lesson_without_show_keeps_the_chosen_decimals(qapp):
    lesson = open_lesson("the-cat-sat")
    assert isinstance(lesson, Lesson) and lesson.show == {}
    state = state_for("why-scale")
    assert state.display.decimals == 3
    state.display.set(decimals=1)
    state.load_lesson(lesson)
    assert state.display.decimals == 1
