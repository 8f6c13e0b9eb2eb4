"""Split text into the tokens a teacher expects, and map them to ids.

Rules: text with spaces splits on them, so the teacher decides the tokens
("我 爱 大 模型" is four, "吃了" one); text typed with no spaces splits CJK
one character a token; punctuation is always its own token; special tokens
such as <start> stay whole.
"""

from __future__ import annotations

import re
import unicodedata

from .errors import EngineError

UNK, START, END = "<unk>", "<start>", "<end>"
SPECIALS = (UNK, START, END)

_SPECIAL = re.compile(r"<[A-Za-z_][A-Za-z0-9_]*>")


def _is_punct(ch: str) -> bool:
    return unicodedata.category(ch).startswith("P")


def _is_cjk(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F") and not _is_punct(ch)


def _split_chunk(chunk: str, per_char_cjk: bool) -> list[str]:
    """Split one space-free chunk: punctuation apart, CJK per character if asked."""
    tokens: list[str] = []
    word = ""
    for ch in chunk:
        if _is_punct(ch) or (per_char_cjk and _is_cjk(ch)):
            if word:
                tokens.append(word)
                word = ""
            tokens.append(ch)
        else:
            word += ch
    if word:
        tokens.append(word)
    return tokens


def tokenize(text: str) -> list[str]:
    """Return the token strings of `text` (may be empty)."""
    text = text.strip()
    per_char_cjk = not any(ch.isspace() for ch in text)
    tokens: list[str] = []
    for chunk in text.split():
        pos = 0
        for match in _SPECIAL.finditer(chunk):
            tokens += _split_chunk(chunk[pos : match.start()], per_char_cjk)
            tokens.append(match.group())
            pos = match.end()
        tokens += _split_chunk(chunk[pos:], per_char_cjk)
    return tokens


class Vocab:
    """Token strings and their ids. A free vocabulary grows; a fixed one maps unknowns to <unk>."""

    def __init__(self, tokens: list[str] | tuple[str, ...], free: bool, specials: tuple[str, ...] = SPECIALS):
        """`specials` come first; a checkpoint's vocabulary passes () to keep its own ids."""
        self.tokens: list[str] = list(specials) + [t for t in tokens if t not in specials]
        self.free = free
        self.specials = specials
        self._index = {t: i for i, t in enumerate(self.tokens)}

    def copy(self) -> Vocab:
        return Vocab(self.tokens, self.free, self.specials)

    def __len__(self) -> int:
        return len(self.tokens)

    def __contains__(self, token: str) -> bool:
        return token in self._index

    def id_of(self, token: str) -> int:
        return self._index.get(token, self._index[UNK])

    def add(self, token: str) -> int:
        if not self.free:
            raise EngineError("vocabulary is fixed; unknown words map to <unk>")
        self._index[token] = len(self.tokens)
        self.tokens.append(token)
        return self._index[token]

    def new_words(self, tokens: list[str]) -> list[str]:
        """Words a free vocabulary would add for `tokens`, in first-seen order."""
        if not self.free:
            return []
        return list(dict.fromkeys(t for t in tokens if t not in self._index))
