"""The command line's long jobs and odd input: `train` writes the user's own copy (never the shipped model),
is bounded and stops cleanly on Ctrl+C; an empty --save-weights and a lesson's `"version": true` / `1.0`
are refused in one line."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from engine.formats.weights import load_weights, save_weights
from engine.training import trained
from engine.training.backward import backward
from main import main
from tests.test_lesson_files import good, refused, with_json  # noqa: F401 (good is a fixture)

ROOT = Path(__file__).resolve().parent.parent
LM_SENTENCE = "猫 吃了 鱼 , 因为 它 饿了 。"


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_train_without_out_writes_the_users_copy_which_model_opens_until_reset(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("STEPFORMER_DATA_DIR", str(tmp_path / "data"))
    shipped = folder_bytes(trained.MODELS_DIR / "lm")

    assert main(["train", "lm", "--epochs", "1"]) == 0
    mine = tmp_path / "data" / "models" / "lm"
    said = capsys.readouterr().out
    assert f"to {mine}: --model lm opens this copy now (train lm --reset goes back to the shipped one)" in said
    assert folder_bytes(trained.MODELS_DIR / "lm") == shipped  # the shipped model is never written
    assert sorted(folder_bytes(mine)) == sorted(trained.FILES)
    assert [p.name for p in mine.parent.iterdir()] == ["lm"]  # no staging folder left beside it
    assert trained.folder("lm") == mine
    opened = trained.load("lm")  # what --model lm opens
    expected = load_weights(opened.config, mine / "weights.safetensors")
    assert all((opened.params[k] == expected.params[k]).all() for k in opened.params)

    assert main(["train", "lm", "--reset"]) == 0
    assert "--model lm opens the shipped one again" in capsys.readouterr().out
    assert not mine.exists() and trained.folder("lm") == trained.shipped_folder("lm")
    assert main(["train", "lm", "--reset"]) == 0
    assert "you have no trained lm" in capsys.readouterr().out


@pytest.mark.parametrize("epochs", ["10001", "1000000000"])
def test_train_refuses_epochs_above_the_maximum_before_anything_is_written(tmp_path, monkeypatch, capsys, epochs):
    monkeypatch.setenv("STEPFORMER_DATA_DIR", str(tmp_path / "data"))
    assert main(["train", "lm", "--epochs", epochs]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "training takes 1 to 10,000 epochs" in err
    assert not (tmp_path / "data").exists()


def test_reset_refuses_training_options(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("STEPFORMER_DATA_DIR", str(tmp_path / "data"))
    assert main(["train", "toy", "--reset", "--out", str(tmp_path / "x")]) == 1
    assert capsys.readouterr().err == "stepformer: --reset trains nothing, so it takes no --out\n"


CTRL_C_ANSWERED = (
    "import os, runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.argv = sys.argv[1:]; sys.path.insert(0, os.path.dirname(sys.argv[0])); "
    "runpy.run_path(sys.argv[0], run_name='__main__')"
)


def test_ctrl_c_during_train_ends_in_one_line_with_130_and_writes_nothing(tmp_path):
    out = tmp_path / "models" / "lm"
    out.mkdir(parents=True)
    (out / "keep.txt").write_text("mine", encoding="utf-8")
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "STEPFORMER_DATA_DIR": str(tmp_path / "data")}
    # Ctrl+C as from the teacher's terminal. A shell starts a background job (`make test &`) with SIGINT ignored,
    # pytest-xdist's workers keep that, and a Python started from them inherits it and ignores Ctrl+C: this test's
    # two time-outs, each in a suite started in the background. The child answers SIGINT as Python does from a
    # terminal.
    command = ["train", "lm", "--epochs", "10000", "--out", str(out)]
    proc = subprocess.Popen(
        [sys.executable, "-c", CTRL_C_ANSWERED, str(ROOT / "main.py"), *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    try:
        lines = iter(proc.stdout.readline, "")
        assert next(line for line in lines if line.startswith("epoch")).startswith("epoch   1/10000")
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)  # both pipes read to the end: a full pipe would block the child
        rc = proc.returncode
    finally:
        proc.kill()
    assert rc == 130, err
    assert err == f"stepformer: train lm stopped (Ctrl+C): nothing was written, {out} is as it was\n"
    assert folder_bytes(out) == {"keep.txt": b"mine"}
    assert [p.name for p in out.parent.iterdir()] == ["lm"]  # the staging folder is gone
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("option", ["--save-weights", "--out"])
def test_trace_refuses_an_empty_path(tmp_path, capsys, option):
    args = {"--out": str(tmp_path / "t.npz"), "--save-weights": str(tmp_path / "w.safetensors")}
    args[option] = ""
    with pytest.raises(SystemExit) as stop:
        main(["trace", "--model", "lm", *[x for pair in args.items() for x in pair]])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"argument {option}: an empty path names no file or folder" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("version", [True, 1.0])
def test_a_lesson_whose_version_is_not_the_whole_number_1_is_refused(tmp_path, good, version):  # noqa: F811
    shown = "true" if version is True else "1.0"
    refused(tmp_path, with_json(good, version=version), f"has format version {shown}; this Stepformer reads 1")


def huge_logits_model():
    """The shipped lm with its unembedding turned round and scaled: logits hundreds apart, the right token last."""
    model = trained.load("lm")
    model.params["unembed.W_U"] = -30 * model.params["unembed.W_U"]
    return model


def test_the_loss_of_a_model_with_huge_logits_is_finite_and_so_is_every_gradient():
    trace = huge_logits_model().trace(LM_SENTENCE)
    grads = backward(trace)
    logits, labels = trace.values["logits"], grads["dec.labels"]
    assert (logits.max(-1).values - logits.min(-1).values).min() > 100
    assert (trace.values["probs"].gather(-1, labels[:, None]) == 0).any()  # −log p would be inf there
    expected = F.cross_entropy(logits, labels)
    assert float(grads["loss"]) == pytest.approx(float(expected), rel=1e-5)
    assert torch.isfinite(grads["loss.per_position"]).all()
    assert all(torch.isfinite(g).all() for name, g in grads.items() if name.startswith("grad.")), [
        name for name, g in grads.items() if name.startswith("grad.") and not torch.isfinite(g).all()
    ]
    exact = backward(trace, dtype=torch.float64)  # p ≈ e^-440 is a float64 number: the chain as shown
    for name in trace.params:
        torch.testing.assert_close(grads[f"grad.{name}"].double(), exact[f"grad.{name}"], rtol=1e-3, atol=1e-4)


def test_trace_grads_writes_a_finite_loss_for_huge_logits(tmp_path, capsys):
    model = huge_logits_model()
    (tmp_path / "c.json").write_text(model.config.to_json(), encoding="utf-8")
    save_weights(model, tmp_path / "w.safetensors")
    args = ["--config", str(tmp_path / "c.json"), "--weights", str(tmp_path / "w.safetensors"), "--text", LM_SENTENCE]
    assert main(["trace", *args, "--grads", "--out", str(tmp_path / "t.npz")]) == 0
    data = np.load(tmp_path / "t.npz", allow_pickle=False)
    expected = F.cross_entropy(torch.from_numpy(data["logits"]), torch.from_numpy(data["dec.labels"]))
    assert float(data["loss"]) == pytest.approx(float(expected), rel=1e-5)
    assert all(np.isfinite(data[k]).all() for k in data.files if k.startswith(("grad.", "loss")))


def test_ctrl_c_during_lab_ends_in_one_line_with_130_and_writes_nothing(tmp_path, monkeypatch, capsys):
    from engine.training import lab

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(lab, "run_experiment", interrupted)
    out = tmp_path / "lab.json"
    with pytest.raises(SystemExit) as stop:
        main(["lab", "post-vs-pre-ln", "--out", str(out)])
    assert stop.value.code == 130
    assert capsys.readouterr().err == f"stepformer: lab post-vs-pre-ln stopped (Ctrl+C): {out} was not written\n"
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_during_a_deck_ends_in_one_line_with_130_and_leaves_no_file(tmp_path, monkeypatch, capsys):
    """Every long verb, not only train and lab: a deck stopped half-way leaves neither the file nor a part of it."""
    from gui.export import deck

    draw_page, pages = deck.draw_page, []

    def stopped_at_the_third_page(*args, **kwargs):
        pages.append(1)
        if len(pages) == 3:
            raise KeyboardInterrupt
        return draw_page(*args, **kwargs)

    monkeypatch.setattr(deck, "draw_page", stopped_at_the_third_page)
    out = tmp_path / "deck.pdf"
    assert main(["deck", "--lesson", "two-heads", "--out", str(out)]) == 130
    assert capsys.readouterr().err == "stepformer: deck stopped (Ctrl+C): no file was left half-written\n"
    assert len(pages) == 3 and list(tmp_path.iterdir()) == []
