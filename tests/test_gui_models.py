"""The model picker: the toy translator opens on "I love AI" and its translation with cross-attention rows
labelled by the word they predict, edits recompute exactly and undo restores; the tiny language model and
MiniLM (when installed) step to their last stage; random sizes; broken checkpoint folders are refused with a
clear message and change nothing; a checkpoint cannot be saved into a lesson file (and is not autosaved)."""

import json

import pytest
import torch
from PySide6.QtCore import Qt

from engine import Model, sources
from engine.formats.checkpoints import MINILM_INSTALL
from engine.formats.lesson import open_lesson
from engine.training import trained
from engine.training.evaluate import greedy_decode
from gui.app import build_state, parse_args
from gui.text.operations import stage_op
from gui.text.stage_texts import op_title
from gui.window.model_picker import ModelDialog
from tests import gui_lessons
from tests.gui_lessons import FakePrompts, assert_same_lesson
from tests.gui_window import panel_for, snapshot

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures
MINILM = sources.minilm_entry()
needs_minilm = pytest.mark.skipif(MINILM.folder is None, reason=f"MiniLM is not installed ({MINILM_INSTALL})")


def fresh_trace(state):
    """The engine's own answer for the weights shown now: a new model, traced from scratch."""
    model = Model(state.config, dict(state.trace.params), state.model.vocabs, state.model.tokenizer)
    return model.trace(state.text, state.target or None)


def step_to_the_end(qtbot, window, state) -> None:
    """Home, then Page Down (a presenter's clicker) through every stage, each one shown."""
    window.stage_list.tree.setFocus()
    qtbot.keyClick(window.stage_list.tree, Qt.Key_Home)
    for i in range(1, len(state.stage_names)):
        qtbot.keyClick(window.stage_list.tree, Qt.Key_PageDown)
        assert state.cursor == i
        assert window.stage_view.title.text() == op_title(stage_op(state.view, state.current_stage))
    assert window.stepper.counter.text() == f"stage {len(state.stage_names)} / {len(state.stage_names)}"


def edit_and_undo(window, state, param: str, index: tuple[int, int]) -> None:
    """Type a number into a shown weight: everything equals a fresh trace; undo restores every tensor."""
    before = snapshot(state)
    model = panel_for(window, param).model
    assert model.setData(model.index(*index), "0.5")
    assert float(state.trace.params[param][index]) == 0.5
    fresh = fresh_trace(state)
    for name in state.trace.stage_names:  # the backward stages follow from these
        torch.testing.assert_close(state.trace[name], fresh[name], rtol=0, atol=1e-5, msg=name)
    assert any(not torch.equal(before[n], state.trace[n]) for n in state.trace.stage_names)
    window.undo_action.trigger()
    for name, tensor in before.items():
        assert torch.equal(state.trace[name], tensor), name


def test_toy_translator_opens_at_cross_attention_with_predicting_rows_and_edits_undo(qtbot, start_window, tmp_path):
    controller = start_window("two-heads")
    window, state = controller.window, controller.state
    assert window.model_picker.choose("toy")
    translation = " ".join(greedy_decode(trained.load("toy"), "I love AI"))
    assert (state.text, state.target, translation) == ("I love AI", "我 爱 人工智能", "我 爱 人工智能")
    assert state.current_stage == "dec.0.cross_attn.weights"
    assert window.windowTitle().startswith("English→Chinese toy translator") and not controller.modified
    assert controller.path is None and state.undo_stack.count() == 0
    assert "exactly" in window.statusBar().currentMessage()

    # rows read as "this row predicts that word": in the table, the plots and the head grid
    rows = ["<start> → 我", "我 → 爱", "爱 → 人工智能", "人工智能 → <end>"]
    table = panel_for(window, "dec.0.cross_attn.weights").model
    assert [table.headerData(r, Qt.Vertical) for r in range(4)] == rows
    assert [table.headerData(c, Qt.Horizontal) for c in range(3)] == ["I", "love", "AI"]
    qtbot.waitUntil(lambda: window.stage_view.figure is not None)
    heatmap = window.stage_view.figure.panels[0].heatmap
    assert heatmap.labels == (rows, ["I", "love", "AI"])
    assert window.stage_view.figure.panels[1].bars.plot.titleLabel.text.count("&lt;start&gt; → 我") == 1
    window.teaching.heads_dock.show()
    qtbot.waitUntil(lambda: len(window.teaching.heads.tiles()) == 2)
    assert window.teaching.heads.figure.panels[0].tiles[1].heatmap.labels[0] == rows
    window.teaching.heads_dock.hide()
    # self-attention rows stay plain tokens
    state.go_to("dec.0.self_attn.weights")
    assert panel_for(window, "dec.0.self_attn.weights").model.headerData(0, Qt.Vertical) == "<start>"

    # step (Page Down) to the cross-attention queries, edit W_Q, undo
    window.stage_list.tree.setFocus()
    while state.current_stage != "dec.0.cross_attn.q":
        qtbot.keyClick(window.stage_list.tree, Qt.Key_PageDown)
    edit_and_undo(window, state, "dec.0.cross_attn.W_Q", (1, 2))

    # a trained model is an ordinary lesson: Save As writes it and it opens again the same
    controller.prompts.path = str(tmp_path / "toy.stepformer")
    assert controller.save()
    assert_same_lesson(open_lesson(tmp_path / "toy.stepformer"), state.to_lesson())


def test_tiny_lm_opens_on_its_prompt_and_steps_to_the_end(qtbot, start_window):
    controller = start_window("two-heads")
    window, state = controller.window, controller.state
    assert window.model_picker.choose("lm")
    assert state.text == "莉莉 渴了 , 所以" and state.current_stage == "probs"
    assert state.trace.tokens["dec"] == ["<start>", "莉莉", "渴了", ",", "所以"]
    assert window.windowTitle().startswith("Tiny Chinese language model")
    step_to_the_end(qtbot, window, state)
    state.go_to("dec.1.self_attn.q")
    edit_and_undo(window, state, "dec.1.self_attn.W_Q", (0, 0))


@needs_minilm
def test_minilm_opens_steps_to_the_end_edits_and_is_never_written_to_a_lesson_file(qtbot, start_window, tmp_path):
    prompts = FakePrompts()
    controller = start_window("two-heads", prompts=prompts)
    window, state = controller.window, controller.state
    assert window.model_picker.entry_actions["minilm"].isEnabled()
    assert window.model_picker.choose("minilm")
    assert state.trace.tokens["enc"][0] == "[CLS]" and state.config.d_model == 384
    assert window.windowTitle().startswith("all-MiniLM-L6-v2 (BERT)")
    step_to_the_end(qtbot, window, state)
    state.go_to("enc.5.attn.q")
    edit_and_undo(window, state, "enc.5.attn.W_Q", (3, 7))

    model = panel_for(window, "enc.5.attn.W_Q").model
    assert model.setData(model.index(0, 0), "1.5") and controller.modified
    assert controller.autosaver.read() is None  # a checkpoint is never autosaved: it could not be restored
    prompts.path = str(tmp_path / "minilm.stepformer")
    assert not controller.save() and not controller.save_as()
    assert "checkpoint folder" in prompts.errors[-1] and "cannot be saved" in prompts.errors[-1]
    assert not (tmp_path / "minilm.stepformer").exists() and controller.modified


def test_minilm_entry_without_the_package_says_how_to_get_it(qtbot, start_window, monkeypatch):
    controller = start_window("two-heads")
    monkeypatch.setattr("engine.formats.checkpoints.minilm_folder", lambda: None)
    entry = next(e for e in controller.window.model_picker.entries() if e.key == "minilm")
    assert not entry.enabled and MINILM_INSTALL in entry.title and MINILM_INSTALL in entry.detail
    dialog = ModelDialog(controller.window.model_picker.entries(), "encoder", controller.window)
    items = [dialog.list.item(i) for i in range(dialog.list.count())]
    item = next(i for i in items if i.data(Qt.UserRole) == "minilm")
    assert not item.flags() & Qt.ItemIsEnabled and MINILM_INSTALL in dialog.list.itemWidget(item).text()
    dialog.deleteLater()
    before = controller.state.model
    assert not controller.window.model_picker.choose("minilm")
    assert MINILM_INSTALL in controller.prompts.errors[-1] and controller.state.model is before


def broken_folders(tmp_path) -> dict[str, tuple]:
    """Folders that must be refused, with words the message must contain."""
    bert = {
        "model_type": "bert",
        "hidden_size": 8,
        "num_attention_heads": 2,
        "intermediate_size": 16,
        "num_hidden_layers": 1,
        "max_position_embeddings": 16,
    }
    cases = {  # name: (files, words the message must contain)
        "empty": ({}, "no config.json"),
        "not_json": ({"config.json": "{oops"}, "not valid JSON"),
        "t5": ({"config.json": json.dumps({"model_type": "t5"})}, "not supported"),
        "llama_without_sizes": ({"config.json": json.dumps({"model_type": "llama"})}, "lacks hidden_size"),
        "pickle_only": ({"config.json": json.dumps(bert), "pytorch_model.bin": "x"}, "pickle"),
        "bad_weights": (
            {"config.json": json.dumps(bert), "model.safetensors": "not a tensor file"},
            "not a readable safetensors",
        ),
    }
    folders = {}
    for name, (files, words) in cases.items():
        folder = tmp_path / name
        folder.mkdir()
        for file, text in files.items():
            (folder / file).write_text(text)
        folders[name] = (folder, words)
    folders["missing"] = (tmp_path / "no-such-folder", "not a folder")
    return folders


def test_broken_checkpoint_folders_are_refused_clearly_and_change_nothing(qtbot, start_window, tmp_path):
    prompts = FakePrompts()
    controller = start_window("two-heads", prompts=prompts)
    window, state = controller.window, controller.state
    state.go_to(state.stage_names[5])
    before = (state.model, state.trace, state.text, state.cursor, state.undo_stack.count(), window.windowTitle())
    for name, (folder, words) in broken_folders(tmp_path).items():
        assert not window.model_picker.open_folder(folder), name
        message = prompts.errors[-1]
        assert f"{folder} was not opened; nothing was changed." in message and words in message, (name, message)
        after = (state.model, state.trace, state.text, state.cursor, state.undo_stack.count(), window.windowTitle())
        assert after == before, name
    assert "unsaved" not in prompts.asked  # refused before the current lesson is put at stake


def test_random_sizes_and_architectures(qtbot, start_window):
    controller = start_window("two-heads")
    window, state = controller.window, controller.state
    assert window.model_picker.choose("classroom", "encoder-decoder")
    cfg = state.config
    assert (cfg.architecture, cfg.d_model, cfg.n_heads, cfg.n_layers, cfg.decimals) == ("encoder-decoder", 8, 2, 2, 1)
    assert state.text == "I love AI" and state.target == "我 爱 AI" and state.cursor == 0
    state.go_to("enc.1.attn.q")
    edit_and_undo(window, state, "enc.1.attn.W_Q", (2, 3))
    assert window.model_picker.choose("large")  # the current architecture
    cfg = state.config
    assert (cfg.architecture, cfg.d_model, cfg.n_heads, cfg.n_layers) == ("encoder-decoder", 384, 12, 6)
    assert window.windowTitle().startswith("Random weights (d_model 384, 12 heads, 6 layers)")


def test_the_dialog_opens_what_is_chosen(qtbot, start_window):
    controller = start_window("two-heads")
    window, state = controller.window, controller.state
    dialog = window.model_picker.show_dialog()
    assert dialog.key() == "toy" and not dialog.arch.isEnabled()
    keys = [dialog.list.item(i).data(Qt.UserRole) for i in range(dialog.list.count())]
    assert keys == ["lessons", "toy", "lm", "minilm", "folder", "classroom", "large", "custom"]
    dialog.list.setCurrentRow(keys.index("classroom"))
    assert dialog.arch.isEnabled()
    dialog.arch.setCurrentIndex(dialog.arch.findData("decoder"))
    dialog.accept()
    assert state.config.architecture == "decoder" and state.config.d_model == 8
    assert [a.text() for a in window.model_picker.submenu.actions()][1] == "English→Chinese toy translator"


def test_command_line_model_flag():
    state = build_state(parse_args(["--model", "toy", "--text", "I eat rice today", "--target", "我 今天 吃 米饭"]))
    assert state.current_stage == "dec.0.cross_attn.weights" and state.target == "我 今天 吃 米饭"
    assert build_state(parse_args(["--model", "lm"])).current_stage == "probs"
    with pytest.raises(SystemExit):
        parse_args(["--model", "toy", "--lesson", "two-heads"])


def test_every_choice_opens_with_every_view_open(qtbot, start_window):
    """Heads, generation, KV cache and what-if follow a model of another kind without a hitch."""
    controller = start_window("two-heads")
    window, state = controller.window, controller.state
    for dock in window.teaching.docks():
        dock.show()
    keys = ["lm", "toy", "classroom"] + (["minilm"] if MINILM.folder is not None else []) + ["lm"]
    for key in keys:
        assert window.model_picker.choose(key), key
        qtbot.wait(1)
        state.go_to(state.stage_names[-1])
        qtbot.waitUntil(lambda: window.stage_view.figure is not None)
    assert window.model_picker.open_folder(trained.folder("toy"))  # a folder `main.py train` wrote
    assert state.target == "我 爱 人工智能" and window.windowTitle().startswith("toy")
