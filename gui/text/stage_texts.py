"""The teaching text of each stage operation (assets/stage_texts.json), in the current language."""

from __future__ import annotations

import json
from functools import cache

from engine.assets import ASSETS_DIR
from gui.state.shown_trace import extra_stages

TEXTS_FILE = ASSETS_DIR / "stage_texts.json"


@cache
def _texts() -> dict:
    return json.loads(TEXTS_FILE.read_text(encoding="utf-8"))


def stage_op(trace, name: str) -> str:
    """The operation of a stage ("attn.scores", …; "loss", "grad.linear", … for the loss and the backward
    pass, gui/backward_trace.py); token inputs are "tokens"."""
    stage = trace.stage(name) or extra_stages(trace).get(name)
    return stage.op if stage is not None else "tokens"


def _pick(entry: dict, lang: str) -> str:
    return entry.get(lang) or entry["en"]


def op_title(op: str, lang: str = "en") -> str:
    return _pick(_texts()[op]["title"], lang)


def op_text(op: str, lang: str = "en") -> str:
    return _pick(_texts()[op]["text"], lang)


def text_key(trace, name: str) -> str:
    """Which teaching text a stage shows: its operation's, or the cross-attention wording where there is one
    ("cross_attn.scores": rows are target tokens, columns source tokens; q from the decoder, k, v from the
    encoder)."""
    op = stage_op(trace, name)
    if ".cross_attn." in name and f"cross_attn.{op.split('.', 1)[-1]}" in _texts():
        return f"cross_attn.{op.split('.', 1)[-1]}"
    return op
