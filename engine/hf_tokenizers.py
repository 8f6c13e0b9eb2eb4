"""A checkpoint's own tokenizer through the `tokenizers` library: WordPiece (BERT) or byte-level BPE (GPT-2).

Model.encode calls `encode` when a model carries one of these, so a checkpoint sees exactly the ids it
was trained on, its special tokens included ([CLS] … [SEP] for BERT, none for GPT-2).
"""

from __future__ import annotations

import json
from pathlib import Path

from tokenizers import Tokenizer
from tokenizers.implementations import BaseTokenizer, BertWordPieceTokenizer, ByteLevelBPETokenizer

from .errors import EngineError


class HFTokenizer:
    def __init__(self, tokenizer: Tokenizer | BaseTokenizer, kind: str):
        tokenizer.no_padding()  # one sentence at a time: no [PAD] rows, and never cut short silently
        tokenizer.no_truncation()
        self.tokenizer = tokenizer
        self.kind = kind  # "WordPiece" or "byte-level BPE", for people to read

    def encode(self, text: str) -> tuple[list[str], list[int]]:
        """The subword tokens of `text` and their ids."""
        enc = self.tokenizer.encode(text)
        return list(enc.tokens), list(enc.ids)

    def tokens_by_id(self, size: int) -> list[str]:
        """The token of each id 0 … size − 1 (ids the tokenizer never makes are named [id N])."""
        names = [f"[id {i}]" for i in range(size)]
        for token, i in self.tokenizer.get_vocab(with_added_tokens=True).items():
            if i >= size:
                raise EngineError(f"the tokenizer has id {i} for {token!r}, but the model has only {size} embeddings")
            names[i] = token
        return names


def _tokenizer_config(folder: Path) -> dict:
    path = folder / "tokenizer_config.json"
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise EngineError(f"checkpoint: cannot read {path.name}: {exc}") from None
    return data if isinstance(data, dict) else {}


def load_tokenizer(folder: str | Path, family: str) -> HFTokenizer:
    """tokenizer.json when the folder has it; else vocab.txt (BERT) or vocab.json + merges.txt (GPT-2)."""
    folder = Path(folder)
    kind = "WordPiece" if family == "bert" else "byte-level BPE"
    try:
        if (folder / "tokenizer.json").is_file():
            return HFTokenizer(Tokenizer.from_file(str(folder / "tokenizer.json")), kind)
        if family == "bert" and (folder / "vocab.txt").is_file():
            cfg = _tokenizer_config(folder)
            tok = BertWordPieceTokenizer(
                str(folder / "vocab.txt"), lowercase=bool(cfg.get("do_lower_case", True)),
                handle_chinese_chars=bool(cfg.get("tokenize_chinese_chars", True)),
                strip_accents=cfg.get("strip_accents"),
            )
            return HFTokenizer(tok, kind)
        if family == "gpt2" and (folder / "vocab.json").is_file() and (folder / "merges.txt").is_file():
            tok = ByteLevelBPETokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"))
            return HFTokenizer(tok, kind)
    except Exception as exc:  # the library raises plain Exceptions for damaged files
        raise EngineError(f"checkpoint: the tokenizer files in {folder} cannot be read ({exc})") from None
    wanted = "tokenizer.json or vocab.txt" if family == "bert" else "tokenizer.json or vocab.json + merges.txt"
    raise EngineError(f"checkpoint: {folder} has no tokenizer; it needs {wanted}")
