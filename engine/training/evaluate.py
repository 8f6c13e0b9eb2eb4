"""What a trained model has learnt, measured on held-out sentences with ordinary per-sentence traces."""

from __future__ import annotations

import math
from collections import Counter

import torch

from ..errors import EngineError
from ..generate import generate
from ..graph import attention, build_stages
from ..model import Model
from ..tokenizer import END, START
from .corpus import Pair


def greedy_decode(model: Model, source: str | None = None, prefix: str = "") -> list[str]:
    """The most probable next token, again and again, until <end> or max_len: the new words only.

    An encoder-decoder model translates `source`; a decoder continues `prefix`.
    """
    if (source is not None) != (model.config.architecture == "encoder-decoder"):
        raise EngineError("an encoder-decoder model translates a source sentence; a decoder continues a prefix")
    start = f"{START} {prefix}"  # with a space, so a single Chinese word is not split into characters
    args = (source, start) if source is not None else (start,)
    words = generate(model, *args, steps=model.config.max_len, greedy=True).generated
    return words[:-1] if words and words[-1] == END else words


def translation_metrics(model: Model, pairs: list[Pair]) -> dict:
    """Exact-match accuracy of greedy translations, and the alignment rate: how often a Chinese word's
    strongest cross-attention (last decoder layer, averaged over heads, at the step that predicts the
    word) lands on the English word it translates."""
    last = attention(build_stages(model.config), stack="dec", block=model.config.n_layers - 1,
                     part="cross_attn").weights.name
    exact = hits = aligned = 0
    for pair in pairs:
        exact += greedy_decode(model, " ".join(pair.en)) == list(pair.zh)
        trace = model.trace(" ".join(pair.en), " ".join((START,) + pair.zh))
        looks = trace[last].mean(dim=0).argmax(dim=-1)  # [m + 1] strongest source word per decoder step
        for j, a in enumerate(pair.align):
            if a is not None:
                aligned += 1
                hits += int(looks[j]) == a  # step j reads the word before zh[j] and predicts zh[j]
    return {"sentences": len(pairs), "exact_match": exact / len(pairs), "aligned_words": aligned,
            "alignment_rate": hits / aligned}


def _next_token_nll(model: Model, sentence: str) -> tuple[float, int]:
    """Summed −log p of each word and of <end>, each predicted from the words before it."""
    trace = model.trace(f"{START} {sentence}")
    ids = trace.ids["dec"]
    labels = torch.cat([ids[1:], torch.tensor([model.vocabs["dec"].id_of(END)])])
    logp = torch.log_softmax(trace["logits"].double(), dim=-1)
    return -float(logp[torch.arange(len(labels)), labels].sum()), len(labels)


def perplexity(model: Model, sentences: list[str]) -> float:
    """exp of the mean next-token negative log-likelihood (the <end> after each sentence included)."""
    total, count = 0.0, 0
    for s in sentences:
        nll, n = _next_token_nll(model, s)
        total, count = total + nll, count + n
    return math.exp(total / count)


def unigram_perplexity(train: list[str], test: list[str], vocab: list[str]) -> float:
    """The baseline: every word predicted by its training frequency alone (add-one smoothed over the
    vocabulary and <end>), whatever came before."""
    counts = Counter(w for s in train for w in s.split() + [END])
    support = list(dict.fromkeys([*vocab, END]))
    total = sum(counts.values()) + len(support)
    words = [w for s in test for w in s.split() + [END]]
    nll = -sum(math.log((counts[w] + 1) / total) for w in words)
    return math.exp(nll / len(words))
