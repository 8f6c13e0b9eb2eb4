"""The what-if switches' names in English and Chinese ("No scaling (÷√d_k)" for "no_scale"): the What if menu and
toolbar, the undo and status-bar texts and the figures' subtitles say these. The ids (engine.config.SWITCHES)
stay in tooltips, the command line and lesson files. They are data rather than Qt tr() strings, so that a
figure drawn in the lesson's language names them in it too."""

from __future__ import annotations

SWITCH_NAMES: dict[str, tuple[str, str]] = {  # (English, 中文)
    "no_pe": ("No positional encoding", "去掉位置编码"),
    "no_scale": ("No scaling (÷√d_k)", "去掉缩放（÷√d_k）"),
    "no_mask": ("No mask (the decoder sees the future)", "去掉掩码（解码器能看到未来）"),
    "no_residual": ("No residual connections", "去掉残差连接"),
    "no_layernorm": ("No LayerNorm", "去掉层归一化"),
}


def switch_name(switch: str, lang: str) -> str:
    en, zh = SWITCH_NAMES[switch]
    return zh if lang == "zh" else en


def switch_names(switches: tuple[str, ...], lang: str) -> str:
    """The switches that are on, named and joined: "No scaling (÷√d_k), No LayerNorm" (in Chinese with 、)."""
    return ("、" if lang == "zh" else ", ").join(switch_name(s, lang) for s in switches)
