"""The what-if switches in English and Chinese, one entry per switch (engine.config.SWITCHES): its name ("No
scaling (÷√d_k)" for "no_scale"), which the What if menu and toolbar, the undo and status-bar texts and the
figures' subtitles say, and its note ("no ÷√d_k"), which the map writes in red on what the switch turned off. The
ids stay in tooltips, the command line and lesson files. They are data rather than Qt tr() strings, so that a
figure drawn in the lesson's language names them in it too."""

from __future__ import annotations

from typing import NamedTuple


class SwitchText(NamedTuple):
    name: tuple[str, str]  # (English, 中文)
    note: tuple[str, str]


SWITCH_TEXTS: dict[str, SwitchText] = {
    "no_pe": SwitchText(("No positional encoding", "去掉位置编码"), ("positional encoding off", "位置编码已关闭")),
    "no_scale": SwitchText(("No scaling (÷√d_k)", "去掉缩放（÷√d_k）"), ("no ÷√d_k", "不除以 √d_k")),
    "no_mask": SwitchText(
        ("No mask (the decoder sees the future)", "去掉掩码（解码器能看到未来）"),
        ("mask off: sees the future", "掩码已关闭：能看到未来"),
    ),
    "no_residual": SwitchText(("No residual connections", "去掉残差连接"), ("residual removed", "残差已移除")),
    "no_layernorm": SwitchText(("No LayerNorm", "去掉层归一化"), ("LayerNorm off", "层归一化已关闭")),
}


def _in(texts: tuple[str, str], lang: str) -> str:
    en, zh = texts
    return zh if lang == "zh" else en


def switch_name(switch: str, lang: str) -> str:
    return _in(SWITCH_TEXTS[switch].name, lang)


def switch_note(switch: str, lang: str) -> str:
    """What the map writes on a box or an operation the switch turned off."""
    return _in(SWITCH_TEXTS[switch].note, lang)


def switch_names(switches: tuple[str, ...], lang: str) -> str:
    """The switches that are on, named and joined: "No scaling (÷√d_k), No LayerNorm" (in Chinese with 、)."""
    return ("、" if lang == "zh" else ", ").join(switch_name(s, lang) for s in switches)
