"""Training runs the very stages a class steps through, batched without changing them, deterministically."""

import random

import pytest
import torch
from torch.func import vmap

from engine import EngineError, Model, ModelConfig
from engine.graph import build_stages
from engine.training.corpus import (
    Pair,
    lm_sentences,
    lm_vocab,
    read_pairs,
    read_sentences,
    translation_pairs,
    translation_vocabs,
    write_pairs,
    write_sentences,
)
from engine.training.train import Settings, batch_loss, batches, forward, make_example, train

EN, ZH = translation_vocabs()
TRANSLATOR = ModelConfig(
    architecture="encoder-decoder",
    d_model=8,
    n_heads=2,
    d_ff=16,
    n_layers=2,
    enc_vocab=tuple(EN),
    dec_vocab=tuple(ZH),
    max_len=24,
)
LM = ModelConfig(
    architecture="decoder",
    d_model=8,
    n_heads=2,
    d_ff=16,
    n_layers=2,
    norm="pre",
    positional="learned",
    dec_vocab=tuple(lm_vocab()),
    max_len=24,
)


def translator_examples(model, pairs):
    return [make_example(model, " ".join(p.zh), " ".join(p.en)) for p in pairs]


@pytest.mark.parametrize("cfg", [TRANSLATOR, LM])
def test_training_forward_is_the_trace(cfg):
    """The training forward pass gives exactly the logits a Trace shows; vmap over a batch changes nothing."""
    model = Model.create(cfg)
    stages = build_stages(cfg)
    if cfg.architecture == "encoder-decoder":
        pairs = [p for p in translation_pairs(60, 0)[0] if (len(p.en), len(p.zh)) == (4, 4)][:3]
        texts = [(" ".join(p.en), "<start> " + " ".join(p.zh)) for p in pairs]
    else:
        texts = [(s,) for s in lm_sentences(300, 0)[0] if len(s.split()) == 9][:3]
    traces = [model.trace(*t) for t in texts]
    ids = [[tr[f"{s}.tokens"] for s in cfg.stacks] for tr in traces]
    for tr, i in zip(traces, ids):
        assert torch.equal(forward(stages, cfg.stacks, model.params, *i), tr["logits"])
    batched = vmap(lambda *x: forward(stages, cfg.stacks, model.params, *x))(
        *[torch.stack([i[k] for i in ids]) for k in range(len(cfg.stacks))]
    )
    for b, tr in enumerate(traces):
        torch.testing.assert_close(batched[b], tr["logits"], atol=1e-6, rtol=1e-6)


def test_example_is_teacher_forcing():
    model = Model.create(TRANSLATOR)
    ex = make_example(model, "我 爱 人工智能", "I love AI")
    dec = model.vocabs["dec"]
    assert [dec.tokens[i] for i in ex.ids[1]] == ["<start>", "我", "爱", "人工智能"]
    assert [dec.tokens[i] for i in ex.labels] == ["我", "爱", "人工智能", "<end>"]
    assert [model.vocabs["enc"].tokens[i] for i in ex.ids[0]] == ["I", "love", "AI"]


def test_batch_loss_is_the_mean_of_per_sentence_cross_entropies():
    model = Model.create(TRANSLATOR)
    pairs = [p for p in translation_pairs(200, 0)[0] if (len(p.en), len(p.zh)) == (4, 4)][:5]
    exs = translator_examples(model, pairs)
    stages = build_stages(TRANSLATOR)
    loss = batch_loss(lambda *i: forward(stages, TRANSLATOR.stacks, model.params, *i), exs)
    each = []
    for p, ex in zip(pairs, exs):
        logits = model.trace(" ".join(p.en), "<start> " + " ".join(p.zh))["logits"]
        each.append(-torch.log_softmax(logits.double(), -1)[torch.arange(len(ex.labels)), ex.labels].mean())
    torch.testing.assert_close(loss.double(), torch.stack(each).mean(), atol=1e-6, rtol=1e-6)


def test_batches_group_equal_lengths_and_cover_everything():
    model = Model.create(TRANSLATOR)
    exs = translator_examples(model, translation_pairs(120, 0)[0])
    out = batches(list(exs), 8, random.Random(0))
    assert all(len({e.lengths for e in b}) == 1 and len(b) <= 8 for b in out)
    assert sorted(id(e) for b in out for e in b) == sorted(id(e) for e in exs)


def test_training_is_deterministic_and_learns():
    pairs = [p for p in translation_pairs(1200, 0)[0] if (len(p.en), len(p.zh)) == (4, 4)][:64]
    runs = []
    for _ in range(2):
        model = Model.create(TRANSLATOR)
        before = {k: v.clone() for k, v in model.params.items()}
        logs = []
        last = train(model, translator_examples(model, pairs), Settings(epochs=10, batch_size=4, lr=1e-2), logs.append)
        runs.append((model.params, last, logs))
    (p1, loss1, logs1), (p2, loss2, _) = runs
    assert all(torch.equal(p1[k], p2[k]) for k in p1) and loss1 == loss2
    assert len(logs1) == 10 and logs1[0].startswith("epoch   1/10  loss")
    first = float(logs1[0].split("loss")[1].split()[0])
    assert loss1 < 0.7 * first  # from about log(vocab) at the start
    assert any(not torch.equal(p1[k], before[k]) for k in p1)


def test_training_refuses_what_it_cannot_do():
    enc = Model.create(ModelConfig(architecture="encoder", enc_vocab=("a",)))
    with pytest.raises(EngineError, match="output head"):
        make_example(enc, "a")
    lm = Model.create(LM)
    with pytest.raises(EngineError, match="pairs"):
        make_example(lm, "猫 饿了", "cat")
    with pytest.raises(EngineError, match="epochs"):
        Settings(epochs=0)
    with pytest.raises(EngineError, match="at least one"):
        train(lm, [], Settings())


# ---- the corpora -----------------------------------------------------------------------------------
def test_translation_corpus_is_aligned_and_reorders():
    train_pairs, test_pairs = translation_pairs()
    assert len(train_pairs) >= 300 and len(test_pairs) >= 100
    assert {p.en for p in train_pairs}.isdisjoint(p.en for p in test_pairs)
    assert train_pairs[0] == Pair(("I", "love", "AI"), ("我", "爱", "人工智能"), (0, 1, 2))
    assert 20 <= len(EN) <= 60 and 20 <= len(ZH) <= 60
    order = [[a for a in p.align if a is not None] for p in train_pairs]
    reordered = [o for o in order if o != sorted(o)]
    assert len(reordered) > len(train_pairs) // 3  # time words and places move before the verb
    for p in train_pairs + test_pairs:
        assert set(p.en) <= set(EN) and set(p.zh) <= set(ZH)
        assert all(a is None or 0 <= a < len(p.en) for a in p.align)


def test_time_words_move_before_the_verb():
    from engine.training.corpus import SUBJECTS, make_pair

    pair = make_pair(SUBJECTS[0], "eat", "rice", None, None, "today", False)
    assert pair == Pair(("I", "eat", "rice", "today"), ("我", "今天", "吃", "米饭"), (0, 3, 1, 2))
    q = make_pair(SUBJECTS[2], "drink", "tea", "not", ("at", "home"), None, False)
    assert " ".join(q.en) == "he does not drink tea at home" and " ".join(q.zh) == "他 不 在 家 喝 茶"
    assert [q.en[a] for a in q.align] == ["he", "not", "at", "home", "drink", "tea"]


def test_lm_corpus_pronouns_agree():
    train_s, test_s = lm_sentences()
    assert len(train_s) == 300 and len(test_s) == 60 and not set(train_s) & set(test_s)
    pronoun = {"猫": "它", "狗": "它", "小鸟": "它", "汤姆": "他", "爸爸": "他", "莉莉": "她", "妈妈": "她"}
    for s in train_s + test_s:
        words = s.split()
        assert set(words) <= set(lm_vocab())
        said = [w for w in words if w in ("他", "她", "它")]
        assert said in ([], [pronoun[words[0]]])


def test_corpus_files_round_trip_and_refuse_damage(tmp_path):
    tr, te = translation_pairs(30, 10)
    write_pairs(tmp_path / "p.tsv", tr, te)
    assert read_pairs(tmp_path / "p.tsv") == (tr, te)
    s_tr, s_te = lm_sentences(20, 5)
    write_sentences(tmp_path / "s.tsv", s_tr, s_te)
    assert read_sentences(tmp_path / "s.tsv") == (s_tr, s_te)
    bad = {
        "split\ten\tzh\talign\ntrain\tI love\t我 爱\t0\n": "one entry per Chinese word",
        "split\ten\tzh\talign\ntrain\tI love\t我 爱\t0 5\n": "points past",
        "split\ten\tzh\talign\ntrain\tI love\t我 爱\t0 x\n": "indices",
        "split\ten\tzh\talign\nvalid\tI\t我\t0\n": "4 tab-separated",
        "en\tzh\n": "header",
    }
    for text, message in bad.items():
        (tmp_path / "bad.tsv").write_text(text, encoding="utf-8")
        with pytest.raises(EngineError, match=message):
            read_pairs(tmp_path / "bad.tsv")
    with pytest.raises(EngineError, match="cannot read"):
        read_sentences(tmp_path / "missing.tsv")
