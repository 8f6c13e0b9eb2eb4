"""The training lab: every experiment's result shape and evidence, determinism for a seed, progress, arms that
cannot differ in anything but their switch, and the lab verb."""

import dataclasses
import json
import re

import pytest
import torch

from engine import EngineError
from engine.training import lab
from engine.training.lab import (
    EXPERIMENTS,
    LABELS_ZH,
    SWITCHED,
    Setup,
    arm_setups,
    experiment,
    holds,
    label,
    run_experiment,
    watch_sentence,
)
from tests.test_cli import run

TINY = {"post-vs-pre-ln": 3, "no-layernorm": 3}  # training steps per learning rate; the others do not train
LRS = {"post-vs-pre-ln": lab.POST_VS_PRE_LRS, "no-layernorm": lab.NO_LAYERNORM_LRS}
TIMED = {"teacher-forcing"}  # its series are wall times: not the same from run to run


def tiny(name: str, seeds: int = 2, on_progress=None) -> dict:
    return run_experiment(name, seeds=seeds, steps=TINY.get(name), on_progress=on_progress)


def numbers(text: str) -> list[str]:
    """The numbers of a verdict, in order (1.2e-05, 0.31, 3/5 → 3 and 5)."""
    return re.findall(r"\d+(?:\.\d+)?(?:e[-+]\d+)?", text)


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_experiment_results_have_their_series_and_evidence_and_are_deterministic(name):
    progress = []
    result = tiny(name, on_progress=progress.append)
    again = tiny(name)
    for r in (result, again):
        assert r.pop("seconds") >= 0 and r.pop("cpu_seconds") >= 0
        if name in TIMED:
            r.pop("series"), r.pop("summary"), r.pop("verdict"), r.pop("verdict_zh"), r.pop("evidence")
    assert result == again
    result = tiny(name)
    assert result["experiment"] == name and result["seeds"] == 2
    assert isinstance(result["verdict"], str) and "\n" not in result["verdict"]
    assert numbers(result["verdict_zh"]) == numbers(result["verdict"]) and "\n" not in result["verdict_zh"]
    arms = list(result["summary"])
    assert len(arms) >= 2
    assert [(s["arm"], s["seed"]) for s in result["series"]] == [(a, k) for a in arms for k in range(2)]
    width = result["x"]["values"]
    for s in result["series"]:
        assert len(s["values"]) == len(width)
    steps = TINY.get(name, 1) * len(LRS.get(name, [1]))
    assert len(progress) == len(arms) * 2 * steps
    assert {p.arm for p in progress} == set(arms) and all(p.experiment == name for p in progress)
    assert all(arm in LABELS_ZH for arm in arms) and result["x"]["label"] in LABELS_ZH
    assert result["y"]["label"] in LABELS_ZH and {type(result["x"]["log"]), type(result["y"]["log"])} == {bool}
    for key in ("evidence", "evidence_warmup") if name == "post-vs-pre-ln" else ("evidence",):
        evidence = result[key]
        assert set(evidence) == {"ratio", "seeds_agreeing", "seeds", "threshold"} and evidence["seeds"] == 2
        assert 0 <= evidence["seeds_agreeing"] <= 2 and evidence["threshold"] >= 1.5
    says_not = "does not hold" in result["verdict"]
    assert says_not == (not holds(result["evidence"])) or name == "post-vs-pre-ln"
    assert result["verdict"].count("hold") == result["verdict_zh"].count("结论")
    json.dumps(result, allow_nan=False)


def test_a_claim_holds_only_when_nine_seeds_in_ten_reach_the_threshold_and_the_verdict_says_so():
    assert lab._evidence([3.0] * 9 + [0.5], 2.0) == {"ratio": 3.0, "seeds_agreeing": 9, "seeds": 10, "threshold": 2.0}
    assert holds(lab._evidence([3.0] * 9 + [0.5], 2.0)) and not holds(lab._evidence([3.0] * 8 + [0.5] * 2, 2.0))
    near = lab._evidence([1.01] * 10, 1.5)  # a 1 % difference meets no threshold
    assert not holds(near)
    verdicts = lab._verdicts("loss {a:.2f}", "损失 {a:.2f}", near, a=3.24)
    assert verdicts["verdict"].endswith("at least 1.5× in 0 of 10 seeds: the claim does not hold")
    assert verdicts["verdict_zh"].endswith("结论不成立") and numbers(verdicts["verdict_zh"]) == numbers(
        verdicts["verdict"]
    )
    assert lab._ratio(float("nan"), 0.8) == float("inf") and lab._ratio(3.0, float("nan")) == 0.0


def test_a_verdict_writes_large_numbers_as_powers_of_ten_not_as_python_exponents():
    """no-layernorm's verdict read "the others ended at a median 6.2e+05" on the slide."""
    verdicts = lab._verdicts(
        "median {x:.3g}, {y:.3g}", "中位数 {x:.3g}，{y:.3g}", lab._evidence([3.0] * 10, 2.0), x=620_000.0, y=1.5e-7
    )
    assert verdicts["verdict"].startswith("median 6.2·10⁵, 1.5·10⁻⁷:")
    assert verdicts["verdict_zh"].startswith("中位数 6.2·10⁵，1.5·10⁻⁷")
    assert "e+" not in verdicts["verdict"] + verdicts["verdict_zh"]


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_the_arms_of_a_seed_differ_only_in_their_switch(name):
    design = EXPERIMENTS[name].design
    for seed in (0, 3):
        base, switched = design(seed, EXPERIMENTS[name].steps)
        setups = arm_setups(base, switched)
        assert base.seed == seed and list(setups) == list(switched)
        for setup in setups.values():
            differ = {f.name for f in dataclasses.fields(Setup) if getattr(setup, f.name) != getattr(base, f.name)}
            assert differ <= set(SWITCHED)
            assert (setup.seed, setup.lr, setup.layers, setup.d_model, setup.init) == (
                base.seed,
                base.lr,
                base.layers,
                base.d_model,
                base.init,
            )


@pytest.mark.parametrize(
    "change", [{"lr": 3e-2}, {"seed": 1}, {"init": "gpt-2"}, {"layers": 2}, {"norm": "pre", "lr": 1}]
)
def test_an_arm_that_changes_its_learning_rate_or_initialisation_is_refused(change):
    with pytest.raises(EngineError, match="an arm may change only"):
        arm_setups(Setup(), {"fair": {}, "rigged": change})


def test_the_arms_start_from_the_same_weights_and_train_with_the_same_learning_rate_and_data(monkeypatch):
    """Every training run the experiments start, seen where it starts: at one seed and learning rate, every arm
    trains from equal initial weights (on the parameters they share), on the same examples, in the same order,
    with the same learning rate."""
    started = []
    real = lab.training_steps

    def recording(model, examples, settings):
        started.append((dict(model.params), examples, settings))
        return real(model, examples, settings)

    monkeypatch.setattr(lab, "training_steps", recording)
    for name in ("post-vs-pre-ln", "no-layernorm"):
        started.clear()
        run_experiment(name, seeds=2, steps=2)
        lrs, arms = LRS[name], len(EXPERIMENTS[name].design(0, 2)[1])
        assert len(started) == arms * 2 * len(lrs)
        runs = {}  # (seed, lr) → the runs of every arm
        for params, examples, settings in started:
            runs.setdefault((settings.seed, settings.lr), []).append((params, examples, settings))
        assert sorted(runs) == sorted((s, lr) for s in range(2) for lr in lrs)
        for group in runs.values():
            first_params, first_examples, first_settings = group[0]
            for params, examples, settings in group[1:]:
                assert all(torch.equal(params[k], first_params[k]) for k in params.keys() & first_params.keys())
                assert [e.labels.tolist() for e in examples] == [e.labels.tolist() for e in first_examples]
                same = dataclasses.replace(settings, warmup=first_settings.warmup)  # warm-up is an arm's switch
                assert same == first_settings


def test_the_arms_of_the_gradient_highway_start_from_the_same_weights():
    base, switched = EXPERIMENTS["gradient-highway"].design(4, None)
    models = [lab._model(setup) for setup in arm_setups(base, switched).values()]
    for model in models[1:]:
        assert model.params.keys() == models[0].params.keys()
        assert all(torch.equal(model.params[k], models[0].params[k]) for k in model.params)
    assert float(models[0].params["dec.0.ffn.W2"].std()) < 0.3 * 64**-0.5  # GPT-2's 1/√(2·12) on each branch


@pytest.mark.parametrize("name", ["gradient-highway", "scale-saturation"])
def test_the_experiments_that_do_not_train_show_their_effect_at_their_defaults(name):
    """Their default is 10 seeds and a few seconds: the claim holds in at least 9 of them."""
    result = run_experiment(name)
    assert result["seeds"] == 10 and holds(result["evidence"]) and "does not hold" not in result["verdict"]
    assert result["evidence"]["seeds_agreeing"] >= 9 and result["evidence"]["ratio"] >= 10


def test_the_chinese_verdict_says_the_same_numbers_in_chinese():
    result = tiny("scale-saturation")
    assert numbers(result["verdict_zh"]) == numbers(result["verdict"]) and len(numbers(result["verdict"])) == 12
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
    run.close()
    assert [first.step, second.step] == [0, 1] and first.steps == 50 * len(lab.NO_LAYERNORM_LRS)
    assert second.model.trace(watch_sentence())["dec.0.self_attn.weights"].shape[0] == 2  # a head to draw


def test_bad_settings_are_refused():
    with pytest.raises(EngineError, match="no experiment named"):
        experiment("nope")
    with pytest.raises(EngineError, match="does not train"):
        experiment("gradient-highway", steps=5)
    with pytest.raises(EngineError, match="seeds"):
        experiment("teacher-forcing", seeds=0)


def test_teacher_forcing_one_pass_equals_the_steps_only_with_the_mask_and_is_faster():
    result = tiny("teacher-forcing")
    steps = result["summary"]["n KV-cache steps"]
    assert max(steps["max_difference"]) <= lab.EQUAL_WITHIN < 1e-2 < max(result["no_mask"]["max_difference"])
    one = result["summary"]["one masked pass"]["seconds_at_largest_n"]
    assert all(s > o for s, o in zip(steps["seconds_at_largest_n"], one))  # 64 passes take longer than one


def test_lab_verb_writes_the_results(tmp_path):
    out = tmp_path / "r.json"
    result = run("lab", "scale-saturation", "--seeds", "1", "--out", str(out))
    assert result.returncode == 0, result.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["experiment"] == "scale-saturation" and data["verdict"] in result.stdout
    assert data["evidence"]["seeds"] == 1
    chinese = run("lab", "scale-saturation", "--seeds", "1", "--lang", "zh")
    assert chinese.returncode == 0 and data["verdict_zh"] in chinese.stdout
    bad = run("lab", "gradient-highway", "--steps", "4")
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "does not train" in bad.stderr
    nowhere = run("lab", "teacher-forcing", "--out", str(tmp_path / "no" / "r.json"))
    assert nowhere.returncode == 1 and "does not exist" in nowhere.stderr
