"""The training lab: every experiment's result shape, determinism for a seed, progress, and the lab verb."""

import json
import re

import pytest
import torch

from engine import EngineError
from engine.training.lab import EXPERIMENTS, LABELS_ZH, experiment, label, run_experiment, watch_sentence
from tests.test_cli import run

TINY = {"post-vs-pre-ln": 3, "no-layernorm": 3}  # training steps; the other experiments do not train


def tiny(name: str, seeds: int = 2, on_progress=None) -> dict:
    return run_experiment(name, seeds=seeds, steps=TINY.get(name), on_progress=on_progress)


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_experiment_results_have_their_series_and_are_deterministic(name):
    progress = []
    result = tiny(name, on_progress=progress.append)
    again = tiny(name)
    for r in (result, again):
        assert r.pop("seconds") >= 0 and r.pop("cpu_seconds") >= 0
    assert result == again
    assert result["experiment"] == name and result["seeds"] == 2
    assert isinstance(result["verdict"], str) and "\n" not in result["verdict"]
    assert numbers(result["verdict_zh"]) == numbers(result["verdict"]) and "\n" not in result["verdict_zh"]
    arms = list(result["summary"])
    assert len(arms) >= 2
    assert [(s["arm"], s["seed"]) for s in result["series"]] == [(a, k) for a in arms for k in range(2)]
    width = result["x"]["values"]
    for s in result["series"]:
        assert width is None or len(s["values"]) == len(width)
    steps = TINY.get(name, 1)
    assert len(progress) == len(arms) * 2 * steps
    assert {p.arm for p in progress} == set(arms) and all(p.experiment == name for p in progress)
    assert all(arm in LABELS_ZH for arm in arms) and result["x"]["label"] in LABELS_ZH
    json.dumps(result, allow_nan=False)


def numbers(text: str) -> list[str]:
    """The numbers of a verdict, in order (1.2e-05, 0.31, 3/5 → 3 and 5)."""
    return re.findall(r"\d+(?:\.\d+)?(?:e[-+]\d+)?", text)


def test_the_chinese_verdict_says_the_same_numbers_in_chinese():
    result = tiny("scale-saturation")
    assert numbers(result["verdict_zh"]) == numbers(result["verdict"]) and len(numbers(result["verdict"])) == 10
    assert "不缩放" in result["verdict_zh"] and "unscaled" in result["verdict"]
    assert label("not scaled", "zh") == "不缩放" and label("not scaled", "en") == "not scaled"


def test_a_training_experiment_shows_its_model_and_stops_when_closed():
    run = experiment("no-layernorm", seeds=1, steps=50)
    first = next(run)
    weights = dict(first.model.params)
    second = next(run)  # each step's model keeps that step's weights while training goes on
    assert torch.equal(first.model.params["unembed.W_U"], weights["unembed.W_U"])
    assert not torch.equal(second.model.params["unembed.W_U"], weights["unembed.W_U"])
    assert list(second.grad_norms) == ["dec.embed", "dec.0", "dec.1", "dec.2", "dec.3", "dec.final_norm", "unembed"]
    assert all(v > 0 for k, v in second.grad_norms.items() if k != "dec.final_norm")  # no_layernorm: unused
    run.close()
    assert [first.step, second.step] == [0, 1] and first.steps == 50
    assert second.model.trace(watch_sentence())["dec.0.self_attn.weights"].shape[0] == 2  # a head to draw


def test_bad_settings_are_refused():
    with pytest.raises(EngineError, match="no experiment named"):
        experiment("nope")
    with pytest.raises(EngineError, match="does not train"):
        experiment("gradient-highway", steps=5)
    with pytest.raises(EngineError, match="seeds"):
        experiment("teacher-forcing", seeds=0)


def test_teacher_forcing_shows_equality_only_with_the_mask():
    s = tiny("teacher-forcing")["summary"]
    causal, free = (max(v["max_difference"]) for v in s.values())
    assert causal < 1e-5 < 1e-2 < free


def test_lab_verb_writes_the_results(tmp_path):
    out = tmp_path / "r.json"
    result = run("lab", "scale-saturation", "--seeds", "1", "--out", str(out))
    assert result.returncode == 0, result.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["experiment"] == "scale-saturation" and data["verdict"] in result.stdout
    chinese = run("lab", "scale-saturation", "--seeds", "1", "--lang", "zh")
    assert chinese.returncode == 0 and data["verdict_zh"] in chinese.stdout
    bad = run("lab", "gradient-highway", "--steps", "4")
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "does not train" in bad.stderr
    nowhere = run("lab", "teacher-forcing", "--out", str(tmp_path / "no" / "r.json"))
    assert nowhere.returncode == 1 and "does not exist" in nowhere.stderr
