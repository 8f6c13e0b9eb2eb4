"""A checkpoint's own tokenizer through the `tokenizers` library: WordPiece (BERT) or byte-level BPE (GPT-2).

Model.encode calls `encode` when a model carries one of these, so a checkpoint sees exactly the ids it
was trained on, its special tokens included ([CLS] … [SEP] for BERT, none for GPT-2).

A byte-level BPE writes each byte of its tokens as a printable stand-in (GPT-2's alphabet: Ġ for a space), so
"我" reads "æĪĳ"; its tokens are shown with such characters as themselves (see `readable`).
"""

from __future__ import annotations

from pathlib import Path

from tokenizers import Tokenizer
from tokenizers.implementations import BaseTokenizer, BertWordPieceTokenizer, ByteLevelBPETokenizer

from ..config import MAX_CONFIG_BYTES
from ..errors import EngineError
from .reading import read_json, regular_file


def _byte_alphabet() -> dict[int, str]:
    """Byte-level BPE's printable stand-in of each byte (GPT-2's bytes_to_unicode): the printable Latin-1 bytes are
    themselves, the other 68 the characters from U+0100 on, in byte order."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    moved = [b for b in range(256) if b not in kept]
    return {b: chr(b) for b in kept} | {b: chr(256 + k) for k, b in enumerate(moved)}


CHAR_OF_BYTE = _byte_alphabet()
BYTE_OF_CHAR = {c: b for b, c in CHAR_OF_BYTE.items()}
LAST_STAND_IN = max(map(ord, BYTE_OF_CHAR))  # U+0143


def _utf8_length(lead: int) -> int:
    """The bytes of the UTF-8 character a byte begins (1 for ASCII or a byte that begins none)."""
    return 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else 4 if 0xF0 <= lead <= 0xF4 else 1


def _character(piece: bytes) -> str | None:
    """The character these UTF-8 bytes spell when it is printable and above the stand-ins, else None."""
    try:
        char = piece.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return char if len(char) == 1 and ord(char) > LAST_STAND_IN and char.isprintable() else None


def readable(token: str) -> str:
    """A byte-level token as people read it: each character beyond the stand-in alphabet (Chinese, Japanese,
    Cyrillic, emoji: any printable character above U+0143) from its UTF-8 bytes; every other byte as its stand-in
    (Ġ a space, an ASCII letter itself, half a character as bytes). One-to-one: no two tokens read alike. A token
    that is not byte-level text (an added special token) stays as it is."""
    if token.isascii():  # printable ASCII only: no byte above 0x7F, nothing to read otherwise
        return token
    try:
        data = bytes(BYTE_OF_CHAR[c] for c in token)
    except KeyError:
        return token
    out, i = [], 0
    while i < len(data):
        size = _utf8_length(data[i])
        char = _character(data[i : i + size]) if size > 1 else None
        if char is not None:
            out.append(char)
            i += size
        else:
            out.append(CHAR_OF_BYTE[data[i]])
            i += 1
    return "".join(out)


class HFTokenizer:
    def __init__(self, tokenizer: Tokenizer | BaseTokenizer, kind: str):
        if tokenizer.get_vocab_size(with_added_tokens=False) == 0:  # special tokens alone cannot spell a sentence
            raise EngineError("checkpoint: the tokenizer's vocabulary is empty, so it cannot read any sentence")
        tokenizer.no_padding()  # one sentence at a time: no [PAD] rows, and never cut short silently
        tokenizer.no_truncation()
        self.tokenizer = tokenizer
        self.kind = kind  # "WordPiece" or "byte-level BPE", for people to read
        self.shown = readable if kind == "byte-level BPE" else str  # a token as the window shows it

    def encode(self, text: str) -> tuple[list[str], list[int]]:
        """The subword tokens of `text` (as shown) and their ids."""
        enc = self.tokenizer.encode(text)
        return [self.shown(t) for t in enc.tokens], list(enc.ids)

    def tokens_by_id(self, size: int) -> list[str]:
        """The token of each id 0 … size − 1 (ids the tokenizer never makes are named [id N])."""
        names = [f"[id {i}]" for i in range(size)]
        for token, i in self.tokenizer.get_vocab(with_added_tokens=True).items():
            if i >= size:
                raise EngineError(f"the tokenizer has id {i} for {token!r}, but the model has only {size} embeddings")
            names[i] = self.shown(token)
        return names


def _tokenizer_config(folder: Path) -> dict:
    path = folder / "tokenizer_config.json"
    if not path.exists():
        return {}
    data = read_json(path, "checkpoint", MAX_CONFIG_BYTES)
    return data if isinstance(data, dict) else {}


def _file(folder: Path, name: str) -> str | None:
    """The path of a tokenizer file when the folder has it (a regular file of bounded size: the tokenizers
    library would wait forever on a pipe), else None."""
    path = folder / name
    return str(regular_file(path, "checkpoint")) if path.exists() else None


def _read(folder: Path, family: str) -> Tokenizer | BaseTokenizer | None:
    """tokenizer.json when the folder has it; else vocab.txt (BERT) or vocab.json + merges.txt (GPT-2)."""
    whole = _file(folder, "tokenizer.json")
    if whole:
        return Tokenizer.from_file(whole)
    if family == "bert" and (wordpiece := _file(folder, "vocab.txt")):
        cfg = _tokenizer_config(folder)
        return BertWordPieceTokenizer(
            wordpiece, lowercase=bool(cfg.get("do_lower_case", True)),
            handle_chinese_chars=bool(cfg.get("tokenize_chinese_chars", True)), strip_accents=cfg.get("strip_accents"),
        )
    if family == "gpt2" and (vocab := _file(folder, "vocab.json")) and (merges := _file(folder, "merges.txt")):
        return ByteLevelBPETokenizer(vocab, merges)
    return None


def load_tokenizer(folder: str | Path, family: str) -> HFTokenizer:
    """The folder's tokenizer (see _read); EngineError when it has none or it cannot be read."""
    folder = Path(folder)
    try:
        tokenizer = _read(folder, family)
    except EngineError:
        raise
    except Exception as exc:  # the library raises plain Exceptions for damaged files
        raise EngineError(f"checkpoint: the tokenizer files in {folder} cannot be read ({exc})") from None
    if tokenizer is None:
        wanted = "tokenizer.json or vocab.txt" if family == "bert" else "tokenizer.json or vocab.json + merges.txt"
        raise EngineError(f"checkpoint: {folder} has no tokenizer; it needs {wanted}")
    return HFTokenizer(tokenizer, "WordPiece" if family == "bert" else "byte-level BPE")
