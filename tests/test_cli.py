"""The headless CLI verbs `trace` and `stages`: outputs, and one clear line for every bad input."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def write_config(tmp_path, **cfg):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("arch", ["encoder", "decoder", "encoder-decoder"])
def test_trace_writes_every_stage_and_meta(tmp_path, arch):
    config = write_config(tmp_path, architecture=arch, d_model=8, n_heads=2, n_layers=2)
    target = ["--target", "我 爱 AI"] if arch == "encoder-decoder" else []
    result = run(
        "trace",
        "--config",
        config,
        "--text",
        "I love AI",
        *target,
        "--out",
        str(tmp_path / "t.npz"),
        "--save-weights",
        str(tmp_path / "w.safetensors"),
    )
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
    again = run(
        "trace",
        "--config",
        config,
        "--weights",
        str(tmp_path / "w.safetensors"),
        "--text",
        "I love AI",
        *target,
        "--out",
        str(tmp_path / "u.npz"),
    )
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


@pytest.mark.parametrize(
    "case",
    [
        "bad-json",
        "bad-field",
        "missing-config",
        "empty-text",
        "bad-weights",
        "target-for-encoder",
        "lesson-and-config",
        "weights-without-config",
    ],
)
def test_bad_input_ends_with_one_clear_line(tmp_path, case):
    good = write_config(tmp_path, d_model=4, n_heads=2)
    out = str(tmp_path / "t.npz")
    args = {
        "bad-json": lambda: ["trace", "--config", str(tmp_path / "x.json"), "--text", "a", "--out", out],
        "bad-field": lambda: [
            "trace",
            "--config",
            write_config(tmp_path, d_model=6, n_heads=4),
            "--text",
            "a",
            "--out",
            out,
        ],
        "missing-config": lambda: ["stages", "--config", str(tmp_path / "none.json")],
        "empty-text": lambda: ["trace", "--config", good, "--text", "  ", "--out", out],
        "bad-weights": lambda: [
            "trace",
            "--config",
            good,
            "--weights",
            str(tmp_path / "x.json"),
            "--text",
            "a",
            "--out",
            out,
        ],
        "target-for-encoder": lambda: ["trace", "--config", good, "--text", "a", "--target", "b", "--out", out],
        "lesson-and-config": lambda: ["stages", "--lesson", "two-heads", "--config", good],
        "weights-without-config": lambda: ["cost", "--model", "toy", "--weights", str(tmp_path / "x.json")],
    }[case]
    (tmp_path / "x.json").write_text("{not json", encoding="utf-8")
    result = run(*args())
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2 and result.stderr.strip()


# ---- the model options every verb takes ----------------------------------------------------------------------
def test_trace_and_stages_open_a_named_model(tmp_path):
    out = tmp_path / "t.npz"
    result = run("trace", "--model", "toy", "--out", str(out))
    assert result.returncode == 0, result.stderr
    meta = json.loads(str(np.load(out, allow_pickle=False)["meta"]))
    assert meta["tokens"]["enc"] == ["I", "love", "AI"]
    assert meta["tokens"]["dec"] == ["<start>", "我", "爱", "人工智能"]  # the translator's own translation
    result = run("trace", "--model", "toy", "--text", "you love cats", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert json.loads(str(np.load(out, allow_pickle=False)["meta"]))["tokens"]["dec"] == ["<start>", "你", "爱", "猫"]
    stages = run("stages", "--model", "lm")
    assert stages.returncode == 0, stages.stderr
    assert "dec.1.self_attn.weights" in stages.stdout and "probs" in stages.stdout


def test_trace_of_a_lesson_is_the_lesson_exactly(tmp_path):
    from engine.formats.lesson import open_lesson

    out = tmp_path / "t.npz"
    assert run("trace", "--lesson", "cross-attention", "--out", str(out)).returncode == 0
    data, expected = np.load(out, allow_pickle=False), open_lesson("cross-attention").trace()
    for name in expected.stage_names:
        assert np.array_equal(data[name], expected[name].numpy()), name


@pytest.fixture(scope="module")
def gpt2_folder(tmp_path_factory):
    pytest.importorskip("transformers")
    from tests.test_checkpoints import make_gpt2_folder

    return make_gpt2_folder(tmp_path_factory.mktemp("gpt2"))


def test_trace_and_stages_open_a_checkpoint_folder(tmp_path, gpt2_folder):
    from engine.formats.checkpoints import open_checkpoint

    out = tmp_path / "t.npz"
    result = run("trace", "--model", str(gpt2_folder), "--text", "the cat ate the fish", "--out", str(out))
    assert result.returncode == 0, result.stderr
    data = np.load(out, allow_pickle=False)
    expected = open_checkpoint(gpt2_folder).trace("the cat ate the fish")
    for name in expected.stage_names:
        assert np.array_equal(data[name], expected[name].numpy()), name
    lines = dict(line.split(None, 1) for line in run("stages", "--model", str(gpt2_folder)).stdout.splitlines())
    assert lines["dec.1.self_attn.weights"] == "[4, n, n]" and lines["dec.final_norm.out"] == "[n, 16]"


def test_stages_of_minilm():
    from engine.sources import minilm_entry

    if minilm_entry().folder is None:
        pytest.skip("all-MiniLM-L6-v2 is not installed")
    result = run("stages", "--model", "minilm", "--text", "I love AI")
    assert result.returncode == 0, result.stderr
    lines = dict(line.split(None, 1) for line in result.stdout.splitlines())
    assert lines["enc.5.attn.weights"] == "[12, 5, 5]"  # [CLS] i love ai [SEP]


VERBS_WITH_A_MODEL = {  # each verb's other options; OUT/ becomes the test's folder
    "trace": ["--out", "OUT/t.npz"],
    "stages": [],
    "cost": [],
    "export": ["--stage", "x0", "--out", "OUT/x.csv"],
    "deck": ["--out", "OUT/d.pdf"],
    "translate": ["I love AI"],
}


@pytest.mark.parametrize("verb", list(VERBS_WITH_A_MODEL))
@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--lesson", "two-heads", "--model", "toy"], "argument --model: not allowed with argument --lesson"),
        (["--config", "c.json", "--lesson", "two-heads"], "argument --lesson: not allowed with argument --config"),
        (["--weights", "w.safetensors"], "--weights needs --config"),
    ],
)
def test_every_verb_refuses_a_bad_choice_of_model_in_one_line(tmp_path, capsys, verb, options, message):
    import main

    with pytest.raises(SystemExit) as exit_:
        main.main([verb, *options, *(a.replace("OUT", str(tmp_path)) for a in VERBS_WITH_A_MODEL[verb])])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and message in err and err.startswith(f"stepformer {verb}:")
    assert not list(tmp_path.iterdir())


def test_translate_takes_the_model_options(capsys):
    import main

    assert main.main(["translate", "--lesson", "two-heads", "I love AI"]) == 1
    assert "not a translator" in capsys.readouterr().err
    assert main.main(["translate", "--model", "toy", "I love AI"]) == 0
    assert capsys.readouterr().out == "我 爱 人工智能\n"


def test_engine_verbs_import_no_qt(tmp_path):
    code = (
        "import sys, main\n"
        f"for argv in (['stages', '--model', 'toy'], ['cost', '--json'], ['trace', '--out', {str(tmp_path)!r} + "
        "'/t.npz'], ['translate', 'I love AI']):\n"
        "    assert main.main(argv) == 0, argv\n"
        "print([m for m in sys.modules if m.startswith(('PySide6', 'shiboken6', 'pyqtgraph'))])"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
