"""Template corpora written for the project: English→Chinese pairs with word alignments, and
short Chinese sentences for a tiny language model.

Everything is generated from small word lists by a seeded random choice, so the same seed always
writes the same corpus. Corpora are stored as tab-separated text (see write_pairs / write_sentences).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from ..errors import EngineError
from ..formats.files import write_atomic
from ..formats.reading import read_text


@dataclass(frozen=True)
class Pair:
    """One sentence pair; align[j] is the index of the English word that Chinese word j translates
    (None for a Chinese word with no English counterpart, such as the question particle 吗)."""

    en: tuple[str, ...]
    zh: tuple[str, ...]
    align: tuple[int | None, ...]


# ---- the translator's grammar ----------------------------------------------------------------
# English: SUBJECT [ADVERB | do not] VERB OBJECT [PLACE] [TIME]          (questions: do/does first, "?")
# Chinese: SUBJECT [TIME] [ADVERB | 不] [PLACE] VERB OBJECT               (questions: 吗 ? at the end)
# so time words and places move in front of the verb, which is what the cross-attention must learn.

SUBJECTS = [  # (English, Chinese, third person singular)
    ("I", "我", False), ("you", "你", False), ("he", "他", True), ("she", "她", True),
    ("we", "我们", False), ("they", "他们", False), ("Tom", "汤姆", True), ("Lily", "莉莉", True),
]
VERBS = {  # base form → (Chinese, objects it takes)
    "love": ("爱", ["AI", "music", "cats", "books", "tea"]),
    "like": ("喜欢", ["AI", "music", "cats", "books", "tea", "fish", "rice", "apples"]),
    "eat": ("吃", ["rice", "fish", "noodles", "apples"]),
    "drink": ("喝", ["tea", "water", "milk", "coffee"]),
    "read": ("读", ["books", "news"]),
    "learn": ("学习", ["AI", "Chinese", "English", "math"]),
}
OBJECTS = {
    "AI": "人工智能", "music": "音乐", "cats": "猫", "books": "书", "tea": "茶", "fish": "鱼", "rice": "米饭",
    "apples": "苹果", "noodles": "面条", "water": "水", "milk": "牛奶", "coffee": "咖啡", "news": "新闻",
    "Chinese": "中文", "English": "英语", "math": "数学",
}
ADVERBS = {"also": "也", "often": "经常", "always": "总是"}
PLACES = {  # English words → Chinese words, with the alignment of each Chinese word inside the phrase
    ("at", "home"): (("在", 0), ("家", 1)),
    ("at", "school"): (("在", 0), ("学校", 1)),
    ("in", "the", "park"): (("在", 0), ("公园", 2)),
    ("in", "the", "library"): (("在", 0), ("图书馆", 2)),
    ("in", "the", "kitchen"): (("在", 0), ("厨房", 2)),
}
TIMES = {"today": "今天", "now": "现在", "tonight": "今晚"}


def _third_person(verb: str) -> str:
    return verb + "s"


def make_pair(subject, verb: str, obj: str, modifier: str | None, place, time: str | None, question: bool) -> Pair:
    """Build one aligned pair from its parts (modifier: an adverb, "not" or None)."""
    en_subj, zh_subj, third = subject
    en: list[str] = []
    zh: list[tuple[str, int | None]] = []  # Chinese word with the index of its English word

    def put(word: str) -> int:
        en.append(word)
        return len(en) - 1

    if question:
        put("does" if third else "do")
    i_subj = put(en_subj)
    i_mod = None
    if modifier == "not":
        put("does" if third else "do")
        i_mod = put("not")
    elif modifier is not None:
        i_mod = put(modifier)
    base_form = question or modifier == "not" or not third
    i_verb = put(verb if base_form else _third_person(verb))
    i_obj = put(obj)
    i_place = [put(w) for w in place] if place else []
    i_time = put(time) if time else None

    zh.append((zh_subj, i_subj))
    if time:
        zh.append((TIMES[time], i_time))
    if modifier is not None:
        zh.append(("不" if modifier == "not" else ADVERBS[modifier], i_mod))
    if place:
        zh += [(word, i_place[k]) for word, k in PLACES[place]]
    zh.append((VERBS[verb][0], i_verb))
    zh.append((OBJECTS[obj], i_obj))
    if question:
        zh.append(("吗", None))
        zh.append(("?", put("?")))
    return Pair(tuple(en), tuple(w for w, _ in zh), tuple(a for _, a in zh))


def random_pair(rng: random.Random) -> Pair:
    verb = rng.choice(sorted(VERBS))
    question = rng.random() < 0.25
    modifiers = [None, None, *sorted(ADVERBS)] + ([] if question else ["not"])
    return make_pair(
        subject=rng.choice(SUBJECTS),
        verb=verb,
        obj=rng.choice(VERBS[verb][1]),
        modifier=rng.choice(modifiers),
        place=rng.choice([None, None, *sorted(PLACES)]),
        time=rng.choice([None, None, *sorted(TIMES)]),
        question=question,
    )


def translation_pairs(n_train: int = 1200, n_test: int = 200, seed: int = 0) -> tuple[list[Pair], list[Pair]]:
    """Distinct pairs split into training and held-out sets; "I love AI" is always in training."""
    rng = random.Random(seed)
    first = make_pair(SUBJECTS[0], "love", "AI", None, None, None, False)
    seen = {first.en: first}
    while len(seen) < n_train + n_test:
        pair = random_pair(rng)
        seen.setdefault(pair.en, pair)
    pairs = list(seen.values())
    return pairs[:n_train], pairs[n_train:]


def translation_vocabs() -> tuple[list[str], list[str]]:
    """Every English and every Chinese word the grammar can write, in a fixed order."""
    en = [s[0] for s in SUBJECTS] + ["do", "does", "not"] + sorted(ADVERBS)
    en += [w for v in sorted(VERBS) for w in (v, _third_person(v))] + sorted(OBJECTS)
    en += sorted({w for p in PLACES for w in p}) + sorted(TIMES) + ["?"]
    zh = [s[1] for s in SUBJECTS] + ["不"] + [ADVERBS[a] for a in sorted(ADVERBS)]
    zh += [VERBS[v][0] for v in sorted(VERBS)] + [OBJECTS[o] for o in sorted(OBJECTS)]
    zh += list(dict.fromkeys(w for p in sorted(PLACES) for w, _ in PLACES[p]))
    zh += [TIMES[t] for t in sorted(TIMES)] + ["吗", "?"]
    return list(dict.fromkeys(en)), list(dict.fromkeys(zh))


# ---- the language model's grammar ------------------------------------------------------------
# Who is hungry, thirsty or tired, and what follows: the pronoun agrees with its noun (他 / 她 / 它)
# and the food or drink suits the eater, so next-token probabilities have something to learn.

NOUNS = {  # noun → (pronoun, foods, drinks)
    "猫": ("它", ["鱼", "肉"], ["水", "牛奶"]),
    "狗": ("它", ["肉", "骨头"], ["水"]),
    "小鸟": ("它", ["米", "虫子"], ["水"]),
    "汤姆": ("他", ["米饭", "面条", "苹果"], ["茶", "水", "咖啡"]),
    "爸爸": ("他", ["米饭", "面条", "饺子"], ["茶", "水", "咖啡"]),
    "莉莉": ("她", ["米饭", "面条", "苹果"], ["茶", "水", "牛奶"]),
    "妈妈": ("她", ["米饭", "面条", "饺子"], ["茶", "水", "牛奶"]),
}
LM_TEMPLATES = [  # {t}: a time word and a space, or nothing
    "{n} {t}饿了 , 所以 {p} 吃了 {food} 。",
    "{n} {t}吃了 {food} , 因为 {p} 饿了 。",
    "{n} {t}渴了 , 所以 {p} 喝了 {drink} 。",
    "{n} {t}喝了 {drink} , 因为 {p} 渴了 。",
    "{n} {t}累了 , 所以 {p} 睡觉 了 。",
    "{n} {t}睡觉 了 , 因为 {p} 累了 。",
    "{n} 喜欢 {food} 。",
    "{n} 喜欢 {drink} 。",
]
LM_TIMES = ["", "今天 ", "昨天 ", "晚上 "]


def lm_sentences(n_train: int = 300, n_test: int = 60, seed: int = 0) -> tuple[list[str], list[str]]:
    """Distinct sentences from the templates, shuffled by the seed and split into training and held-out."""
    every = sorted({
        template.format(n=n, t=t, p=p, food=food, drink=drink)
        for template in LM_TEMPLATES for t in LM_TIMES
        for n, (p, foods, drinks) in NOUNS.items() for food in foods for drink in drinks
    })
    if n_train + n_test > len(every):
        raise EngineError(f"the language-model templates write only {len(every)} different sentences")
    random.Random(seed).shuffle(every)
    return every[:n_train], every[n_train:n_train + n_test]


def lm_vocab() -> list[str]:
    words = [w for t in LM_TEMPLATES for w in t.format(n="", t="", p="", food="", drink="").split()]
    words += [t.strip() for t in LM_TIMES if t]
    for n, (p, foods, drinks) in NOUNS.items():
        words += [n, p, *foods, *drinks]
    return list(dict.fromkeys(words))


# ---- files -----------------------------------------------------------------------------------
def _align_text(align: tuple[int | None, ...]) -> str:
    return " ".join("-" if a is None else str(a) for a in align)


def write_pairs(path: str | Path, train: list[Pair], test: list[Pair]) -> None:
    """split \\t English \\t Chinese \\t alignment (one source index per Chinese word, - for none)."""
    lines = ["split\ten\tzh\talign"]
    for split, pairs in (("train", train), ("test", test)):
        lines += [f"{split}\t{' '.join(p.en)}\t{' '.join(p.zh)}\t{_align_text(p.align)}" for p in pairs]
    write_atomic(path, ("\n".join(lines) + "\n").encode("utf-8"))


def _bad(path: Path, line_no: int, why: str) -> EngineError:
    return EngineError(f"corpus: {path.name} line {line_no}: {why}")


def _rows(path: Path, header: str) -> list[tuple[int, list[str]]]:
    """The tab-separated rows under the header line `header`, each with its line number."""
    lines = read_text(path, "corpus").splitlines()
    if not lines or lines[0] != header:
        columns = header.replace("\t", ", ")
        raise EngineError(f"corpus: {path.name} must start with the header line {columns} (tab-separated)")
    return [(no, line.split("\t")) for no, line in enumerate(lines[1:], start=2)]


def read_pairs(path: str | Path) -> tuple[list[Pair], list[Pair]]:
    path = Path(path)
    out: dict[str, list[Pair]] = {"train": [], "test": []}
    for no, cols in _rows(path, "split\ten\tzh\talign"):
        if len(cols) != 4 or cols[0] not in out:
            raise _bad(path, no, "expected 4 tab-separated columns: train|test, English, Chinese, alignment")
        en, zh, align = cols[1].split(), cols[2].split(), cols[3].split()
        if not en or len(align) != len(zh):
            raise _bad(path, no, "the alignment needs one entry per Chinese word")
        try:
            idx = tuple(None if a == "-" else int(a) for a in align)
        except ValueError:
            raise _bad(path, no, "alignment entries are English word indices or -") from None
        if any(a is not None and not 0 <= a < len(en) for a in idx):
            raise _bad(path, no, "an alignment index points past the English sentence")
        out[cols[0]].append(Pair(tuple(en), tuple(zh), idx))
    return out["train"], out["test"]


def write_sentences(path: str | Path, train: list[str], test: list[str]) -> None:
    lines = ["split\ttext"] + [f"train\t{s}" for s in train] + [f"test\t{s}" for s in test]
    write_atomic(path, ("\n".join(lines) + "\n").encode("utf-8"))


def read_sentences(path: str | Path) -> tuple[list[str], list[str]]:
    path = Path(path)
    out: dict[str, list[str]] = {"train": [], "test": []}
    for no, cols in _rows(path, "split\ttext"):
        if len(cols) != 2 or cols[0] not in out or not cols[1].strip():
            raise _bad(path, no, "expected 2 tab-separated columns: train|test and a sentence")
        out[cols[0]].append(cols[1])
    return out["train"], out["test"]
