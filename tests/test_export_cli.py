"""`python main.py export` and `deck`: headless, refusing bad input with one clear line."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from PySide6.QtGui import QImage

import main
from engine import Model, ModelConfig
from engine.formats.weights import save_weights
from tests.test_export import pdf_pages

ROOT = Path(__file__).resolve().parent.parent


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main.main(list(argv))
    return code, capsys.readouterr().err


def test_export_runs_without_a_display(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    out = tmp_path / "w.png"
    done = subprocess.run([sys.executable, "main.py", "export", "--stage", "enc.0.attn.weights", "--head", "1",
                           "--format", "png", "--out", str(out), "--width", "800", "--lang", "zh"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}" in done.stdout
    assert QImage(str(out)).width() == 800


def test_unknown_stage_is_refused_with_the_valid_names(qapp, tmp_path, capsys):
    code, err = run(capsys, "export", "--stage", "enc.0.atn.q", "--format", "png", "--out", str(tmp_path / "x.png"))
    assert code == 1 and err.count("\n") == 1
    assert "no stage named 'enc.0.atn.q'" in err and "enc.0.attn.q, enc.0.attn.k" in err
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize(("argv", "message"), [
    (["--head", "2"], "--head 2 is out of range: this model has 2 heads"),
    (["--row", "3"], "--row 3 is out of range: the sentence has 3 tokens"),
    (["--weights", "w.safetensors"], "--weights needs --config"),
    (["--format", "gif"], "unknown format 'gif'"),
    (["--width", "5"], "width 5 px is out of range"),
    (["--lesson", "no-such-lesson"], "no lesson named 'no-such-lesson'"),
])
def test_bad_options_are_refused(qapp, tmp_path, capsys, argv, message):
    code, err = run(capsys, "export", "--stage", "enc.x0", "--out", str(tmp_path / "x.png"), *argv)
    assert code == 1 and message in err
    assert not (tmp_path / "x.png").exists()


def test_config_and_weights_are_used(qapp, tmp_path, capsys):
    cfg = ModelConfig(architecture="decoder", d_model=4, n_heads=2, seed=7)
    model = Model.create(cfg)
    model.trace("a b c")  # grows the free vocabulary, saved with the weights
    model.params["dec.0.self_attn.W_Q"] = torch.full((4, 4), 0.25)
    (tmp_path / "c.json").write_text(cfg.to_json(), encoding="utf-8")
    save_weights(model, tmp_path / "w.safetensors")
    code, err = run(capsys, "export", "--config", str(tmp_path / "c.json"),
                    "--weights", str(tmp_path / "w.safetensors"), "--text", "a b c", "--stage", "dec.0.self_attn.q",
                    "--head", "1", "--out", str(tmp_path / "q.csv"), "--decimals", "4")
    assert code == 0, err
    lines = (tmp_path / "q.csv").read_text(encoding="utf-8").splitlines()
    got = np.array([[float(x) for x in line.split(",")[1:]] for line in lines[1:]])
    expected = model.trace("a b c")["dec.0.self_attn.q"][1].double().numpy()
    assert [line.split(",")[0] for line in lines[1:]] == ["<start>", "a", "b", "c"]
    assert np.array_equal(got, np.round(expected, 4))


def test_lesson_sentences_unless_text_overrides(qapp, tmp_path, capsys):
    from engine.formats.lesson import open_lesson

    lesson = open_lesson("masked-decoder")
    out = str(tmp_path / "t.csv")
    code, err = run(capsys, "export", "--lesson", "masked-decoder", "--stage", "dec.tokens", "--out", out)
    assert code == 0, err
    rows = [line.split(",")[0] for line in (tmp_path / "t.csv").read_text(encoding="utf-8").splitlines()[1:]]
    assert rows == lesson.trace().tokens["dec"]
    code, err = run(capsys, "export", "--lesson", "masked-decoder", "--text", "我 爱", "--stage", "dec.tokens",
                    "--out", str(tmp_path / "t.csv"))
    assert code == 0, err
    rows = [line.split(",")[0] for line in (tmp_path / "t.csv").read_text(encoding="utf-8").splitlines()[1:]]
    assert rows == ["<start>", "我", "爱"]


def test_deck_verb_writes_a_page_per_stage(qapp, tmp_path, capsys):
    cfg = ModelConfig(architecture="decoder", d_model=2, n_heads=1, d_ff=2, decimals=1)
    (tmp_path / "c.json").write_text(cfg.to_json(), encoding="utf-8")
    code, err = run(capsys, "deck", "--config", str(tmp_path / "c.json"), "--text", "a b", "--format", "pdf",
                    "--out", str(tmp_path / "d.pdf"), "--lang", "zh")
    assert code == 0, err
    stages = Model.create(cfg).trace("a b").stage_names
    assert len(pdf_pages((tmp_path / "d.pdf").read_bytes())) == len(stages)
    code, err = run(capsys, "deck", "--out", str(tmp_path / "d.odp"))
    assert code == 1 and "use one of pdf, pptx" in err
