"""The teaching texts (assets/stage_texts.json): for each entry a title, the caption of its matrix in plots and
a one-paragraph explanation, in English and Chinese. Which entry a stage shows, the registry says
(gui/text/operations.py: `text_key`)."""

from __future__ import annotations

import json
from functools import cache

from engine.assets import ASSETS_DIR

TEXTS_FILE = ASSETS_DIR / "stage_texts.json"
LANGUAGES = ("en", "zh")


@cache
def _texts() -> dict:
    return json.loads(TEXTS_FILE.read_text(encoding="utf-8"))


def has_text(key: str) -> bool:
    return key in _texts()


def _pick(key: str, field: str, lang: str) -> str:
    entry = _texts()[key][field]
    return entry.get(lang) or entry["en"]


def op_title(key: str, lang: str = "en") -> str:
    """The title shown above a stage ("Softmax: attention weights")."""
    return _pick(key, "title", lang)


def op_text(key: str, lang: str = "en") -> str:
    """The explanation shown under a stage."""
    return _pick(key, "text", lang)


def op_caption(key: str, lang: str = "en") -> str | None:
    """The caption of the stage's matrix in plots ("Attention weights (softmax)"); None where it has none."""
    return _pick(key, "caption", lang) if "caption" in _texts()[key] else None
