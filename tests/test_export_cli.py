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
    done = subprocess.run(
        [
            sys.executable,
            "main.py",
            "export",
            "--stage",
            "enc.0.attn.weights",
            "--head",
            "1",
            "--format",
            "png",
            "--out",
            str(out),
            "--width",
            "800",
            "--lang",
            "zh",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}" in done.stdout
    assert QImage(str(out)).width() == 800


def test_unknown_stage_is_refused_with_the_valid_names(qapp, tmp_path, capsys):
    code, err = run(capsys, "export", "--stage", "enc.0.atn.q", "--format", "png", "--out", str(tmp_path / "x.png"))
    assert code == 1 and err.count("\n") == 1
    assert "no stage named 'enc.0.atn.q'" in err and "enc.0.attn.q, enc.0.attn.k" in err
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--head", "2"], "--head 2 is out of range: this model has 2 heads"),
        (["--row", "3"], "--row 3 is out of range: the sentence has 3 tokens"),
        (["--format", "gif"], "unknown format 'gif'"),
        (["--width", "5"], "width 5 px is out of range"),
        (["--lesson", "no-such-lesson"], "no lesson named 'no-such-lesson'"),
    ],
)
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
    code, err = run(
        capsys,
        "export",
        "--config",
        str(tmp_path / "c.json"),
        "--weights",
        str(tmp_path / "w.safetensors"),
        "--text",
        "a b c",
        "--stage",
        "dec.0.self_attn.q",
        "--head",
        "1",
        "--out",
        str(tmp_path / "q.csv"),
        "--decimals",
        "4",
    )
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
    code, err = run(
        capsys,
        "export",
        "--lesson",
        "masked-decoder",
        "--text",
        "我 爱",
        "--stage",
        "dec.tokens",
        "--out",
        str(tmp_path / "t.csv"),
    )
    assert code == 0, err
    rows = [line.split(",")[0] for line in (tmp_path / "t.csv").read_text(encoding="utf-8").splitlines()[1:]]
    assert rows == ["<start>", "我", "爱"]


def test_deck_verb_writes_a_page_per_stage(qapp, tmp_path, capsys):
    cfg = ModelConfig(architecture="decoder", d_model=2, n_heads=1, d_ff=2, decimals=1)
    (tmp_path / "c.json").write_text(cfg.to_json(), encoding="utf-8")
    code, err = run(
        capsys,
        "deck",
        "--config",
        str(tmp_path / "c.json"),
        "--text",
        "a b",
        "--format",
        "pdf",
        "--out",
        str(tmp_path / "d.pdf"),
        "--lang",
        "zh",
    )
    assert code == 0, err
    stages = Model.create(cfg).trace("a b").stage_names
    assert len(pdf_pages((tmp_path / "d.pdf").read_bytes())) == 2 + len(stages)  # the map, the overview, each stage
    code, err = run(capsys, "deck", "--out", str(tmp_path / "d.odp"))
    assert code == 1 and "use one of pdf, pptx" in err


# ---- figures and slides of every model source --------------------------------------------------------------
@pytest.fixture(scope="module")
def gpt2_folder(tmp_path_factory):
    pytest.importorskip("transformers")
    from tests.test_checkpoints import make_gpt2_folder

    return make_gpt2_folder(tmp_path_factory.mktemp("gpt2"))


def minilm_or_skip() -> None:
    from engine.sources import minilm_entry

    if minilm_entry().folder is None:
        pytest.skip("all-MiniLM-L6-v2 is not installed")


def csv_rows(path) -> list[str]:
    return [line.split(",")[0] for line in path.read_text(encoding="utf-8").splitlines()[1:]]


def test_export_and_deck_of_the_toy_translator(qapp, tmp_path, capsys):
    code, err = run(
        capsys, "export", "--model", "toy", "--stage", "cross_attn.weights", "--out", str(tmp_path / "w.csv")
    )  # a stage's ending names it, as in the window
    assert code == 0, err
    assert csv_rows(tmp_path / "w.csv") == ["<start> → 我", "我 → 爱", "爱 → 人工智能", "人工智能 → <end>"]
    code, err = run(
        capsys, "deck", "--model", "toy", "--only", "dec.0.cross_attn.weights,probs", "--out", str(tmp_path / "d.pdf")
    )
    assert code == 0, err
    assert len(pdf_pages((tmp_path / "d.pdf").read_bytes())) == 2 + 2  # the map, the overview, then the two stages


def test_export_and_deck_of_minilm(qapp, tmp_path, capsys):
    minilm_or_skip()
    code, err = run(
        capsys,
        "export",
        "--model",
        "minilm",
        "--stage",
        "enc.5.attn.weights",
        "--head",
        "11",
        "--text",
        "I love AI",
        "--out",
        str(tmp_path / "w.png"),
        "--width",
        "640",
    )
    assert code == 0, err
    assert QImage(str(tmp_path / "w.png")).width() == 640
    code, err = run(
        capsys,
        "deck",
        "--model",
        "minilm",
        "--only",
        "enc.0.attn.weights,enc.5.attn.weights",
        "--text",
        "I love AI",
        "--out",
        str(tmp_path / "d.pdf"),
    )
    assert code == 0, err
    assert len(pdf_pages((tmp_path / "d.pdf").read_bytes())) == 2 + 2  # the map, the overview, then the two stages
    code, err = run(
        capsys,
        "export",
        "--model",
        "minilm",
        "--stage",
        "enc.0.attn.q",
        "--head",
        "12",
        "--out",
        str(tmp_path / "x.png"),
    )
    assert code == 1 and "this model has 12 heads" in err


def test_export_and_deck_of_a_gpt2_folder(qapp, tmp_path, capsys, gpt2_folder):
    from pptx import Presentation

    from engine.formats.checkpoints import open_checkpoint

    code, err = run(
        capsys,
        "export",
        "--model",
        str(gpt2_folder),
        "--stage",
        "dec.1.self_attn.weights",
        "--format",
        "svg",
        "--out",
        str(tmp_path / "w.svg"),
    )
    assert code == 0, err
    svg = (tmp_path / "w.svg").read_text(encoding="utf-8")
    assert "Decoder · Block 1 · Masked self-attention" in svg and "decoder · d_model 16 · 4 heads" in svg
    code, err = run(
        capsys, "deck", "--model", str(gpt2_folder), "--only", "dec.1.self_attn", "--out", str(tmp_path / "d.pptx")
    )
    assert code == 0, err
    stages = [n for n in open_checkpoint(gpt2_folder).trace("a").stage_names if n.startswith("dec.1.self_attn")]
    deck = list(Presentation(str(tmp_path / "d.pptx")).slides)
    assert deck[0].shapes.title is None and deck[1].shapes.title is None  # the map and the overview come first
    titles = [s.shapes.title.text_frame.text for s in deck[2:]]
    places = [s.shapes[1].text_frame.text for s in deck[2:]]  # the line under the title
    assert len(titles) == len(stages) and titles[0] == "Queries Q · head 0"
    assert places[0] == "Decoder · Block 1 · Masked self-attention"
    assert not any("dec.1" in t for t in titles + places)  # ids stay in file names and the command line


def test_deck_only_names_stages(qapp, tmp_path, capsys):
    code, err = run(capsys, "deck", "--only", "enc.9", "--out", str(tmp_path / "d.pdf"))
    assert code == 1 and "--only 'enc.9' names no stage" in err and err.count("\n") == 1
    assert not (tmp_path / "d.pdf").exists()
