"""The shipped trained models reproduce the numbers written next to them and in assets/models/README.md,
and retraining from the shipped corpus reproduces the translator's held-out accuracy."""

import pytest

from engine.training import trained
from engine.training.corpus import NOUNS
from engine.training.evaluate import greedy_decode
from main import main


def shipped(name):
    return trained.load(name), *trained.read_corpus(name, trained.folder(name) / "corpus.tsv")


@pytest.mark.parametrize("name", list(trained.RECIPES))
def test_shipped_corpus_is_what_the_templates_write(name, tmp_path):
    trained.write_corpus(name, tmp_path / "corpus.tsv", trained.template_corpus(name))
    assert (tmp_path / "corpus.tsv").read_bytes() == (trained.folder(name) / "corpus.tsv").read_bytes()


@pytest.mark.parametrize("name", list(trained.RECIPES))
def test_shipped_config_is_the_recipe(name):
    model = trained.load(name)
    assert model.config == trained.recipe(name).config
    trace = model.trace(*trained.recipe(name).example)  # the sentence a picker opens it on: no <unk>
    assert all("<unk>" not in tokens for tokens in trace.tokens.values())


def test_shipped_translator_reproduces_its_numbers():
    model, train_pairs, test_pairs = shipped("toy")
    got = trained.measure(model, "toy", train_pairs, test_pairs)
    expected = trained.shipped_metrics("toy")
    assert got == {k: expected[k] for k in got}
    assert got["exact_match"] >= 0.95 and got["sentences"] == 200
    assert model.config.d_model <= 64


def test_shipped_language_model_reproduces_its_numbers():
    model, train_s, test_s = shipped("lm")
    got = trained.measure(model, "lm", train_s, test_s)
    expected = trained.shipped_metrics("lm")
    assert got["perplexity"] == pytest.approx(expected["perplexity"], rel=1e-5)
    assert got["unigram_perplexity"] == pytest.approx(expected["unigram_perplexity"], rel=1e-12)
    assert got["perplexity"] < got["unigram_perplexity"] / 5


def test_readme_states_the_shipped_numbers():
    text = (trained.MODELS_DIR / "README.md").read_text(encoding="utf-8")
    toy, lm = trained.shipped_metrics("toy"), trained.shipped_metrics("lm")
    for number in (
        f"{100 * toy['exact_match']:.1f} %",
        f"{100 * toy['alignment_rate']:.1f} %",
        f"{lm['perplexity']:.2f}",
        f"{lm['unigram_perplexity']:.2f}",
    ):
        assert number in text


def test_translator_reorders_time_words():
    model = trained.load("toy")
    assert greedy_decode(model, "I love AI") == ["我", "爱", "人工智能"]
    assert greedy_decode(model, "I eat rice today") == ["我", "今天", "吃", "米饭"]


def test_language_model_pronouns_agree_with_their_noun():
    model = trained.load("lm")
    for noun, (pronoun, foods, _) in NOUNS.items():
        words = greedy_decode(model, prefix=f"{noun} 饿了 , 所以")
        assert words[0] == pronoun and words[1] == "吃了" and words[2] in foods


def test_cli_translate_and_evaluate(capsys):
    assert main(["translate", "--model", "toy", "I love AI"]) == 0
    assert capsys.readouterr().out == "我 爱 人工智能\n"
    assert main(["evaluate", "--model", "lm"]) == 0
    lm = trained.shipped_metrics("lm")
    assert f"perplexity {lm['perplexity']:.2f}" in capsys.readouterr().out
    assert main(["translate", "--model", "lm", "I love AI"]) == 1
    assert "not a translator" in capsys.readouterr().err
    assert main(["translate", "--model", "/nonexistent", "I love AI"]) == 1
    assert "no model named '/nonexistent'" in capsys.readouterr().err


def test_retraining_from_the_shipped_corpus_reproduces_the_accuracy(tmp_path):
    """The documented command, `python main.py train toy --corpus assets/models/toy/corpus.tsv`, in full."""
    log = []
    got = trained.build("toy", tmp_path, trained.folder("toy") / "corpus.tsv", log=log.append)
    assert got["exact_match"] == trained.shipped_metrics("toy")["exact_match"]
    assert log[-1].startswith("epoch  20/20")
    assert (tmp_path / "corpus.tsv").read_bytes() == (trained.folder("toy") / "corpus.tsv").read_bytes()
    assert trained.load(str(tmp_path)).config == trained.recipe("toy").config


def test_bad_training_input_writes_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["train", "toy", "--epochs", "0", "--out", str(out)]) == 1
    assert "epochs" in capsys.readouterr().err
    (tmp_path / "bad.tsv").write_text("split\ten\tzh\talign\ntrain\tI love\t我\t0 1\n", encoding="utf-8")
    assert main(["train", "toy", "--corpus", str(tmp_path / "bad.tsv"), "--out", str(out)]) == 1
    assert "bad.tsv line 2" in capsys.readouterr().err
    assert not out.exists()
