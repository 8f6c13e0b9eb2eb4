"""The headless CLI verbs `trace` and `stages`: outputs, and one clear line for every bad input."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(*args, cwd=None):
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def write_config(tmp_path, **cfg):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("arch", ["encoder", "decoder", "encoder-decoder"])
def test_trace_writes_every_stage_and_meta(tmp_path, arch):
    config = write_config(tmp_path, architecture=arch, d_model=8, n_heads=2, n_layers=2)
    target = ["--target", "我 爱 AI"] if arch == "encoder-decoder" else []
    result = run("trace", "--config", config, "--text", "I love AI", *target, "--out", str(tmp_path / "t.npz"),
                 "--save-weights", str(tmp_path / "w.safetensors"))
    assert result.returncode == 0, result.stderr
    data = np.load(tmp_path / "t.npz", allow_pickle=False)
    meta = json.loads(str(data["meta"]))
    assert meta["config"]["architecture"] == arch
    assert set(data.files) == set(meta["stages"]) | {"meta"}
    stack = "enc" if arch != "decoder" else "dec"
    assert meta["tokens"][stack][-3:] == ["I", "love", "AI"]
    if arch != "encoder":
        assert meta["stages"][-2:] == ["logits", "probs"]
        assert np.allclose(data["probs"].sum(-1), 1, atol=1e-6)

    # The saved weights reproduce the same trace exactly.
    again = run("trace", "--config", config, "--weights", str(tmp_path / "w.safetensors"), "--text", "I love AI",
                *target, "--out", str(tmp_path / "u.npz"))
    assert again.returncode == 0, again.stderr
    other = np.load(tmp_path / "u.npz", allow_pickle=False)
    for name in meta["stages"]:
        assert np.array_equal(data[name], other[name]), name


def test_stages_lists_names_in_order_with_shapes(tmp_path):
    config = write_config(tmp_path, architecture="encoder-decoder", d_model=8, n_heads=2, d_ff=16)
    result = run("stages", "--config", config)
    assert result.returncode == 0, result.stderr
    lines = dict(line.split(None, 1) for line in result.stdout.splitlines())
    assert lines["enc.0.attn.scores"] == "[2, n, n]"
    assert lines["dec.0.cross_attn.scores"] == "[2, m, n]"
    assert lines["dec.0.ffn.up"] == "[m, 16]"
    assert lines["logits"] == "[m, vocab]"
    concrete = run("stages", "--config", config, "--text", "I love AI", "--target", "我 爱")
    assert "dec.0.cross_attn.weights" in concrete.stdout and "[2, 3, 3]" in concrete.stdout


@pytest.mark.parametrize("case", ["bad-json", "bad-field", "missing-config", "empty-text", "bad-weights",
                                  "target-for-encoder", "no-args-text"])
def test_bad_input_ends_with_one_clear_line(tmp_path, case):
    good = write_config(tmp_path, d_model=4, n_heads=2)
    out = str(tmp_path / "t.npz")
    args = {
        "bad-json": lambda: ["trace", "--config", str(tmp_path / "x.json"), "--text", "a", "--out", out],
        "bad-field": lambda: ["trace", "--config", write_config(tmp_path, d_model=6, n_heads=4), "--text", "a",
                              "--out", out],
        "missing-config": lambda: ["stages", "--config", str(tmp_path / "none.json")],
        "empty-text": lambda: ["trace", "--config", good, "--text", "  ", "--out", out],
        "bad-weights": lambda: ["trace", "--config", good, "--weights", str(tmp_path / "x.json"), "--text", "a",
                                "--out", out],
        "target-for-encoder": lambda: ["trace", "--config", good, "--text", "a", "--target", "b", "--out", out],
        "no-args-text": lambda: ["trace", "--config", good, "--out", out],
    }[case]
    (tmp_path / "x.json").write_text("{not json", encoding="utf-8")
    result = run(*args())
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2 and result.stderr.strip()
