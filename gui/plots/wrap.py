"""Breaking a figure's caption into lines: between words, or between Chinese characters, balanced in length."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_CJK = "\u2e80-\u9fff\u3000-\u303f\uff00-\uffef"
# Words, with "= value" or "→ word" after them kept on their line ("σ² = 1.2", "<start> → 我"), or spaces.
_WORDS = re.compile(r"[^ ]+(?: [=→] [^ ]+)*| +")
_JOINED = re.compile(r"([^ ]+)((?: [=→] [^ ]+)*)")  # a word: what comes before its "= value", and that
_CLOSING = "）》」』，。、：；！？”’:;,.!?)"  # never the first character of a line
_OPENING = "（《「『“‘"  # never the last
# A line may break between Chinese characters (an opening mark stays with the character after it, a closing mark
# with the character before it: "chose “模型”" broke as "chose “模型" and "” (p = 0.12)", "after “模型”: chose" as
# "after “模型”" and ": chose").
# After a label ("You are here:"): a break there reads as two phrases. (Not an ASCII ";": it ends "&lt;" and "&gt;".)
_PAUSES = re.compile(r"[：；]|:(?= )")
_CHARACTERS = re.compile(f"[{_OPENING}]*(?:[{_CJK}]|[^{_CJK}{_OPENING}]+)[{_CLOSING}]*|[{_OPENING}]+")


def _columns(piece: str) -> int:
    """How wide a piece of text looks: a Chinese character takes two columns, a letter one."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in piece)


def _pieces(text: str) -> list[str]:
    """What a line may break between: words and spaces, and the characters of Chinese words. A "= value" or
    "→ word" stays with the character or word just before it, not with the whole Chinese phrase ("你在这里：掩码后的
    分数（−∞ = 不可见）" was one piece, too wide for the map dock, which then drew it at 8 px)."""
    pieces = []
    for word in _WORDS.findall(text):
        if word.isspace():
            pieces.append(word)
            continue
        head, joined = _JOINED.match(word).groups()
        characters = _CHARACTERS.findall(head)
        pieces += characters[:-1] + [characters[-1] + joined] if joined else characters
    return pieces


def _greedy(text: str, columns: int) -> list[str]:
    lines, line = [], ""
    for piece in _pieces(text):
        if line.strip() and not piece.isspace() and _columns(line + piece) > columns:
            lines.append(line.rstrip())
            line = ""
        if line or not piece.isspace():
            line += piece
    return [*lines, line.rstrip()]


def _at_pause(text: str, columns: int) -> list[str] | None:
    """Two lines broken after a colon or semicolon, both within `columns` (the most even such break), or None:
    "你在这里：" over "查询 Q · 头 0", not "你在这里：查" over "询 Q · 头 0"."""
    best = None
    for pause in _PAUSES.finditer(text):
        lines = [text[: pause.end()].rstrip(), text[pause.end() :].strip()]
        widths = [_columns(line) for line in lines]
        if all(lines) and max(widths) <= columns and (best is None or max(widths) < best[0]):
            best = (max(widths), lines)
    return None if best is None else best[1]


def _wrap_line(text: str, columns: int) -> list[str]:
    """As few lines as greedy wrapping needs, balanced in length (no lone word or character on the last); two
    lines break where the caption pauses, if they can."""
    lines = _greedy(text, columns)
    for width in range(-(-_columns(text) // len(lines)), columns):
        balanced = _greedy(text, width)
        if len(balanced) <= len(lines):
            lines = balanced
            break
    return (len(lines) == 2 and _at_pause(text, columns)) or lines


@lru_cache(maxsize=4096)  # the same captions come back with every refresh; wrapping a long one takes ms
def wrap_caption(text: str, columns: int) -> str:
    """Break a caption (its own lines marked with \\n) into lines of about `columns`, joined with <br>:
    between words or between Chinese characters, so a plot's title never makes it wider than its neighbours."""
    return "<br>".join(line for part in text.split("\n") for line in _wrap_line(part, columns))
