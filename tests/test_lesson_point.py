"""Each lesson states its point: its stage, row, head and the decimals its numbers need (`show`), and the window,
`export` and `deck` all show exactly that (issue 46; design.md, "What the class sees").

- Every number a lesson's description quotes (English and Chinese) is drawn when the lesson opens on its stage: in
  a table, the formula line, the explanation or a figure's texts. A number the description quotes about a stage it
  walks on to is looked for there (ELSEWHERE names those stages); one the window cannot draw as a number (a lab's
  measured result, the tutorial's own wrong numbers, the description's arithmetic) is listed in NOT_DRAWN with why.
- flash-attention's rescale factor e^(m_old − m) reads 0.0077 (it read 0.01, and m_old 0.29).
- masked-decoder's Mask stage plots a row the mask changes (it plotted the last row, which the mask leaves alone).
- `export` and `deck` open on the lesson's row, head and decimals (they plotted row 0, the trivial <start> row).
- A training step on the toy model shows its loss move (it read "loss 0.0001 → 0.0001").
"""

import re

import pytest
from pptx import Presentation
from PySide6.QtWidgets import QGraphicsView, QLabel, QTableView

import main
from engine import teaching
from engine.formats.lesson import open_lesson, shipped_lessons
from engine.sources import by_name
from gui import cli
from gui.docks.training_step import TrainingStepView
from gui.launch import launch
from gui.text.formulas import formula
from tests.gui_lessons import own_folders, state_for  # noqa: F401 (a fixture)
from tests.test_gui_no_ids import _scene_texts

# a decimal number as a description quotes it and the window draws it: 0.0077, −0.447, 1.35 (not 5e-7's parts)
NUMBER = re.compile(r"(?<![\d.])[−-]?\d+\.\d+(?![\d.]|e[−-]?\d)")

THE_TUTORIALS_WRONG_NUMBERS = "the tutorial's numbers that the description corrects: no model computes them"
ARITHMETIC = "the description's own arithmetic about the numbers drawn, not a number of the model"
LAB_RESULT = "a lab result: measured when Run is pressed and drawn in the lab's curves and verdict"
LAB_SETTING = "the experiment's learning rates (engine/training/lab.py), which the lab's help names"
# The stages a description walks on to, with the numbers it quotes about them.
ELSEWHERE = {
    "i-love-ai": {
        "enc.0.attn.scaled": "the scaled scores [0.5, 0.5, 1.0] …",
        "enc.0.attn.weights": "the softmax rows [0.274, 0.274, 0.452] …",
        "enc.0.attn.z": "I's output [0.726, 0.726, 0.274, 0.726]",
    },
    "two-heads": {
        "enc.0.attn.scaled": "head 1's scaled I row [0.707, 0, 0.707]",
        "enc.0.attn.weights": "its softmax [0.401, 0.198, 0.401]",
        "enc.0.attn.z": "its output for I [0.198, 0.802]",
    },
    "layernorm": {"enc.0.norm1.hat": "the normalised [−0.447, 1.342, 0.447, −1.342]"},
    "why-scale": {
        "enc.0.attn.scaled": "the scaled row [3.25, 2.25, 3.75, 2.75]",
        "enc.0.attn.weights": "its largest weight 0.455",
    },
    "masked-decoder": {"dec.0.self_attn.weights": "the masked row's weights [0.60, 0.40, 0, 0, 0]"},
    "cross-attention": {"dec.0.cross_attn.weights": "the row 我 → 爱 attends to I with 0.731"},
    "what-does-it-refer-to": {
        "enc.0.attn.scaled": "the scores divided by √d_k = 2: [4.0, 0.5, 1.0, 0.75, 0.25, 2.0]",
        "enc.0.attn.weights": "their softmax [0.783, 0.024, 0.039, 0.030, 0.018, 0.106]",
    },
}
# Numbers quoted that the window does not draw as numbers, each with why.
NOT_DRAWN = {
    "two-heads": {"0.405 0.190 0.810": THE_TUTORIALS_WRONG_NUMBERS, "2.03 2.13": ARITHMETIC},
    "why-scale": {
        "0.982 0.018": "the unscaled softmax: What if ▸ No scaling shows it",
        "0.545 0.248": ARITHMETIC + " (p(1 − p) = 0.455 × 0.545)",
    },
    "masked-decoder": {
        "0.30 0.20 0.12 0.25": "the weights without the mask: the Mask stage draws them as its 'softmax before "
        "masking' bars, and What if ▸ No mask shows them as numbers",
    },
    "what-does-it-refer-to": {
        "0.6 0.05 0.1 0.08 0.02 0.15": THE_TUTORIALS_WRONG_NUMBERS,
        "0.977 0.001 0.002": "the softmax of the scores not divided by √d_k, which this model divides",
    },
    "the-cat-sat": {
        "0.05 0.15 0.60 0.03 0.12": "the tutorial's illustration of a trained model; these weights are seeded",
    },
    "cost-of-context": {"99.4": "the share at n = 8192, read off the cost view's curve (it names this sentence's)"},
    "lab-gradient-highway": {"0.52 4.5": LAB_RESULT},
    "lab-post-vs-pre-ln": {"3.03 1.03 0.762 3.9 3.0": LAB_RESULT, "0.003 0.01": LAB_SETTING},
    "lab-no-layernorm": {"0.75 0.84 0.88 4.9 5.6 1.69": LAB_RESULT, "0.01 0.03 0.1": LAB_SETTING},
    "lab-scale-saturation": {"0.542 0.988 0.202 0.00806 0.36 27.8 0.21": LAB_RESULT},
    "lab-teacher-forcing": {"0.08 0.19": LAB_RESULT},
}
LESSONS = [info.name for info in shipped_lessons()]


def quoted_numbers(lesson) -> list[str]:
    """The decimal numbers the lesson's description quotes, in English and in Chinese, each once."""
    return list(dict.fromkeys(n for lang in ("en", "zh") for n in NUMBER.findall(lesson.description[lang])))


def drawn_numbers(window) -> set[str]:
    """The decimal numbers the window draws now: its labels (title, formula, explanation, the docks'), its tables'
    cells and headers, and its figures' texts (titles, cell numbers, bar values, ticks)."""
    texts = [label.text() for label in window.findChildren(QLabel) if label.isVisible()]
    for table in window.findChildren(QTableView):
        model = table.model()
        if table.isVisible() and hasattr(model, "text"):
            texts += [model.text(r, c) for r in range(model.rowCount()) for c in range(model.columnCount())]
    for view in window.findChildren(QGraphicsView):
        if view.isVisible() and view.scene() is not None:
            texts += _scene_texts(view.scene())
    return {number for text in texts for number in NUMBER.findall(text)}


def shows(quoted: str, drawn: set[str]) -> bool:
    """Whether a drawn number reads as the quoted one: the same, or with more places that round to it (0.600 and
    0.599 read 0.60; 0.01 does not read 0.0077)."""
    places = len(quoted.split(".")[1])
    wanted = quoted.replace("−", "-")
    return any(len(d.split(".")[1]) >= places and f"{float(d.replace('−', '-')):.{places}f}" == wanted for d in drawn)


def open_on_its_stage(qtbot, name: str):
    """The window as `python main.py --lesson NAME` opens it (its language, its stage, row, head and decimals),
    its figures drawn."""
    controller = launch(state_for(name), open_lesson(name).lang, name, start_page=False)
    qtbot.addWidget(controller.window)
    settle(qtbot, controller.window)
    return controller


def settle(qtbot, window) -> None:
    view = window.stage_view
    qtbot.waitUntil(lambda: view.figure is not None and view.figure.stage == window.state.current_stage)
    qtbot.waitUntil(lambda: not view.plot_timer.isActive())
    qtbot.wait(20)  # the docks' lazy redraws (zero-delay timers)


def close(controller) -> None:
    controller.state.undo_stack.setClean()
    controller.window.close()


@pytest.mark.parametrize("name", LESSONS)
def test_every_number_a_lesson_quotes_is_drawn_at_its_stage(qtbot, own_folders, name):  # noqa: F811
    lesson = open_lesson(name)
    quoted = quoted_numbers(lesson)
    excepted = {n for numbers in NOT_DRAWN.get(name, {}) for n in numbers.split()}
    stale = excepted - set(quoted)
    assert not stale, f"{name}: NOT_DRAWN lists {sorted(stale)}, which its description no longer quotes"
    controller = open_on_its_stage(qtbot, name)
    state = controller.state
    assert state.current_stage == lesson.stage
    drawn = drawn_numbers(controller.window)
    wanted = [n for n in quoted if n not in excepted]
    missing = [n for n in wanted if not shows(n, drawn)]
    for stage in ELSEWHERE.get(name, {}):
        state.go_to(stage)
        settle(qtbot, controller.window)
        drawn = drawn_numbers(controller.window)
        missing = [n for n in missing if not shows(n, drawn)]
    close(controller)
    stages = [lesson.stage, *ELSEWHERE.get(name, {})]
    assert not missing, f"{name} quotes {missing}, which none of {stages} draws"


# "head 1", "头 1": a head as the window numbers it (head 0 of 2), unless it is the tutorial's own numbering
HEAD_NAMED = re.compile(r"(?<!tutorial's )(?<!its )\b[Hh]ead (\d+)|(?<!教程中的)头 (\d+)")


@pytest.mark.parametrize("name", LESSONS)
def test_a_description_names_heads_as_the_window_numbers_them(name):
    """two-heads said "head 1 … head 2" of a model whose window says head 0 and head 1."""
    lesson = open_lesson(name)
    for lang in ("en", "zh"):
        named = {int(a or b) for a, b in HEAD_NAMED.findall(lesson.description[lang])}
        assert all(head < lesson.config.n_heads for head in named), (lang, named, lesson.config.n_heads)
    if name == "two-heads":
        assert named == {0, 1}


def test_flash_attentions_rescale_factor_reads_as_the_lesson_says():
    """e^(0.288 − 5.159) ≈ 0.0077 printed as 0.01 beside m_old 0.29: the factor keeps two significant digits, and
    the lesson opens on that tile with three decimals."""
    lesson = open_lesson("flash-attention")
    trace = lesson.trace()
    line = formula(trace, "dec.0.self_attn.tiled.r2c2.l", 0, 2)
    assert "e^(m_old − m) = [0.74, 0.0077]" in line, line
    assert lesson.stage == "dec.0.self_attn.tiled.r2c2.l" and lesson.show["decimals"] == 3
    assert "e^(m_old − m) = [0.738, 0.0077]" in formula(trace, lesson.stage, 0, 3)


def test_the_masked_decoder_opens_on_a_row_the_mask_changes(qtbot, own_folders):  # noqa: F811
    """Its Mask stage plotted the last row, which sees every token: before and after masking looked the same."""
    controller = open_on_its_stage(qtbot, "masked-decoder")
    state = controller.state
    state.go_to("dec.0.self_attn.masked")  # the step after the lesson's scaled scores
    settle(qtbot, controller.window)
    hidden = teaching.hidden_pattern(state.trace["dec.0.self_attn.masked"][state.head])
    assert hidden[state.row].any()
    word = state.trace.tokens["dec"][state.row]
    scene_texts = _scene_texts(controller.window.stage_view.plot.scene())
    assert any(word in text and text != word for text in scene_texts)  # the bars' title names the row
    close(controller)


def _args(*argv: str):
    return main.build_parser().parse_args(list(argv))


@pytest.mark.parametrize("verb", ["export", "deck"])
@pytest.mark.parametrize("name, row", [("masked-decoder", 1), ("flash-attention", 5), ("why-scale", 2)])
def test_export_and_deck_open_on_the_lessons_row_and_decimals(verb, name, row):
    args = _args(verb, "--lesson", name, "--out", "x.pdf")
    trace, lang, show = cli.open_trace(args)
    opts = cli.plot_options(args, trace, lang, show)
    assert (opts.head, opts.row, opts.decimals) == (0, row, 3)
    args = _args(verb, "--lesson", name, "--row", "0", "--decimals", "1", "--out", "x.pdf")
    given = cli.plot_options(args, trace, lang, show)
    assert (given.row, given.decimals) == (0, 1)  # what the command line names wins


def test_an_exported_mask_figure_plots_the_lessons_row(qapp, tmp_path, capsys):
    out = tmp_path / "m.svg"
    argv = ["export", "--lesson", "masked-decoder", "--stage", "dec.0.self_attn.masked", "--lang", "en"]
    assert main.main([*argv, "--format", "svg", "--out", str(out)]) == 0, capsys.readouterr().err
    texts = "".join(re.findall(r">([^<]*)</text>", out.read_text(encoding="utf-8")))  # (我 a run of its own: its font)
    assert "row of 我" in texts and "row of 模型" not in texts


def test_a_deck_quotes_the_lessons_numbers_with_its_decimals(qapp, tmp_path, capsys):
    out = tmp_path / "f.pptx"
    argv = ["deck", "--lesson", "flash-attention", "--only", "dec.0.self_attn.tiled.r2c2.l", "--lang", "en"]
    assert main.main([*argv, "--out", str(out)]) == 0, capsys.readouterr().err
    texts = [
        shape.text_frame.text
        for slide in Presentation(str(out)).slides
        for shape in slide.shapes
        if shape.has_text_frame
    ]
    assert any("e^(m_old − m) = [0.738, 0.0077]" in text for text in texts), texts


def test_a_training_step_on_the_toy_model_shows_its_loss_move(qtbot):
    """The toy translator's loss is about 0.0001: four places read "0.0001 → 0.0001"."""
    state = state_for("masked-decoder")
    toy = by_name("toy")
    state.load_model(toy.model, toy.text, toy.target)
    view = TrainingStepView(state)
    qtbot.addWidget(view)
    assert state.take_training_step(0.1)
    before, after = re.search(r"loss (\S+) → (\S+);", view.loss.text()).groups()
    assert before != after and float(before) > float(after) > 0
    assert f"{view.step.loss_before:.7f}" == before  # places enough to show the change


def test_a_lesson_opened_in_the_window_ticks_its_decimals(qtbot, own_folders):  # noqa: F811
    """File ▸ Lesson ▸ flash-attention from the-cat-sat (2 decimals): its tables and formula took 3 decimals while
    View ▸ Decimals in matrices still ticked 2."""
    controller = launch(state_for("the-cat-sat"), "en", "the-cat-sat", start_page=False)
    qtbot.addWidget(controller.window)
    decimals = controller.window.presentation.decimals
    assert [a.data() for a in decimals.actions() if a.isChecked()] == [2]
    assert controller.open_shipped("flash-attention")
    settle(qtbot, controller.window)
    assert controller.state.display.decimals == 3
    assert [a.data() for a in decimals.actions() if a.isChecked()] == [3]
    assert "0.0077" in drawn_numbers(controller.window) and "0.288" in drawn_numbers(controller.window)
    close(controller)
