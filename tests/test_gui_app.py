"""Starting the window from the command line: options, the default lesson, config and weights files."""

import pytest

import main
from engine import EngineError, Model, ModelConfig
from engine.command_line import find_stage
from engine.formats.lesson import open_lesson
from engine.formats.weights import save_weights
from engine.sources import DEFAULT_LESSON
from gui.app import build_state, install_language, parse_args


def test_the_default_lesson_is_hand_sized():
    lesson = open_lesson(DEFAULT_LESSON)
    cfg = lesson.config
    assert (cfg.d_model, cfg.n_heads, cfg.n_layers, cfg.architecture) == (4, 2, 1, "encoder")
    assert lesson.text == "I love AI" and lesson.target == ""


def test_options_and_stage_names(qtbot):
    args = parse_args(["--lang", "zh", "--stage", "attn.scores", "--text", "我 爱 AI"])
    state = build_state(args)
    assert state.trace.tokens["enc"] == ["我", "爱", "AI"]
    assert find_stage(state.stage_names, args.stage) == "enc.0.attn.scores"
    assert find_stage(state.stage_names, "enc.0.norm2.out") == "enc.0.norm2.out"
    with pytest.raises(EngineError, match="no stage named"):
        find_stage(state.stage_names, "attn.nothing")
    with pytest.raises(SystemExit):
        parse_args(["--weights", "w.safetensors"])  # weights need a config


def test_config_and_weights_files(qtbot, tmp_path):
    cfg = ModelConfig(architecture="encoder-decoder", d_model=6, n_heads=3, d_ff=5)
    (tmp_path / "c.json").write_text(cfg.to_json(), encoding="utf-8")
    model = Model.create(cfg)
    model.trace("hello world", "hallo welt")
    model.params["enc.0.attn.W_Q"][0, 0] = 9.0
    save_weights(model, tmp_path / "w.safetensors")
    args = parse_args(
        [
            "--config",
            str(tmp_path / "c.json"),
            "--weights",
            str(tmp_path / "w.safetensors"),
            "--text",
            "hello world",
            "--target",
            "hallo welt",
        ]
    )
    state = build_state(args)
    assert state.config.d_model == 6 and float(state.trace["enc.0.attn.W_Q"][0, 0]) == 9.0
    assert state.trace.tokens["dec"] == ["<start>", "hallo", "welt"]


def test_install_language_without_translations_is_harmless(qapp):
    from PySide6.QtCore import QLocale

    default = QLocale()
    try:
        install_language(qapp, "zh")
        install_language(qapp, "en")
    finally:
        QLocale.setDefault(default)


def test_main_without_a_verb_opens_the_window(monkeypatch):
    seen = []
    monkeypatch.setattr("gui.app.run_app", lambda argv: seen.append(argv) or 0)
    assert main.main(["--stage", "attn.q", "--lang", "zh"]) == 0
    assert main.main([]) == 0
    assert seen == [["--stage", "attn.q", "--lang", "zh"], []]
