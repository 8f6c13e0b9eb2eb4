"""Plot captions in English and Chinese (figures are exported in the lesson's language, not the UI's)."""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache

CAPTIONS: dict[str, tuple[str, str]] = {
    # key: (English, 中文)
    "head": ("head {head}", "头 {head}"),
    "all_heads": ("all heads", "所有头"),
    "n_heads": ("{n} heads", "{n} 个头"),
    "one_head": ("1 head", "1 个头"),
    "row": ("row of {token}", "{token} 这一行"),
    "token_ids": ("token ids", "词元编号"),
    "pe_curves": ("sin/cos per dimension over positions", "各维度随位置变化的 sin/cos 曲线"),
    "position": ("position", "位置"),
    "period": ("period", "周期"),
    "what_if": ("what if: {switches}", "假如：{switches}"),
    "encoder": ("encoder", "编码器"),  # the model's kind, under a figure's title
    "decoder": ("decoder", "解码器"),
    "encoder-decoder": ("encoder-decoder", "编码器-解码器"),
    "pos_short": ("+ position", "+ 位置编码"),
    "sum": ("= sum", "= 和"),
    "residual_in": ("input x", "输入 x"),
    "sublayer_out": ("+ sublayer output", "+ 子层输出"),
    "part_of_sum": ("{part}: {what}", "{part}：{what}"),  # "+ sublayer output: Attention output"
    "mask_pattern": ("Mask: visible / hidden", "掩码：可见 / 不可见"),
    "unscaled_softmax": ("softmax without ÷√d_k", "不除以 √d_k 的 softmax"),
    "scaled_softmax": ("softmax with ÷√d_k", "除以 √d_k 的 softmax"),
    "gradient": ("gradient p(1−p)", "梯度 p(1−p)"),
    "probability": ("probability", "概率"),
    "before_mask": ("softmax before masking", "掩码前的 softmax"),
    "after_mask": ("softmax after masking", "掩码后的 softmax"),
    "row_bars": ("Row of {token}: sum = {total}", "{token} 这一行：和 = {total}"),
    "lines": ("Who attends to whom ({which})", "谁关注谁（{which}）"),
    "weighted_rows": ("{token}: z = Σ weight · v", "{token}：z = Σ 权重 · v"),
    "before_after": ("Each token before (○) and after (●) LayerNorm", "层归一化前（○）后（●）的各词元"),
    "norm_steps": ("Steps for {token}", "{token} 的每一步"),
    "step_x": ("x", "x"),
    "step_centred": ("x − μ", "x − μ"),
    "step_hat": ("÷ √(σ²+ε)", "÷ √(σ²+ε)"),
    "step_out": ("× γ + β", "× γ + β"),
    "activation": ("{name} on this sentence\n{off} of {total} switched off",
                   "{name} 作用于本句的数值\n{total} 个中 {off} 个被关闭"),
    "top_k": ("Top {k} next tokens after {token} (T = {temperature})",
              "{token} 之后最可能的 {k} 个词元（T = {temperature}）"),
    "feature": ("feature", "特征"),
    "value": ("value", "数值"),
    "visible": ("visible", "可见"),
    "hidden": ("hidden", "不可见"),
    # tiled (FlashAttention) stages and their panels
    "tile_of": ("{what}: queries {r0}–{r1}, keys {c0}–{c1}", "{what}：查询 {r0}–{r1}，键 {c0}–{c1}"),
    "tile_map": ("This tile in the n × n scores of {head} (drawn for reference: tiling never stores them)",
                 "本分块在 {head} 的 n × n 分数中的位置（仅作参照：分块计算从不保存它们）"),
    "numbers_held": ("Numbers held per head: the largest tile vs the n × n scores · max |tiled − A·V| = {diff}",
                     "每个头保存的数值个数：最大分块 vs n × n 分数 · 最大 |分块 − A·V| = {diff}"),
    "largest_tile": ("largest tile {r}×{c}", "最大分块 {r}×{c}"),
    "full_scores": ("n × n = {n}×{m}, never stored", "n × n = {n}×{m}，从不保存"),
    # the cost view (the "Cost of this model" dock, gui/plots/cost.py)
    "cost_title": ("Cost of this model", "计算与内存开销"),
    "stage_macs": ("Multiply-adds of each layer, {layer} stage by stage · this stage: {macs} multiply-adds{per_head}, "
                   "{size}",
                   "各层的乘加次数，{layer} 逐阶段展开 · 本阶段：{macs} 次乘加{per_head}，{size}"),
    "per_head": (" ({macs} per head)", "（每个头 {macs} 次）"),
    "layer_total": ("{layer}, all stages", "{layer} 全部阶段"),
    "bytes": ("bytes", "字节"),
    "share": ("Attention's share (Q·Kᵀ and A·V) of all multiply-adds as n grows (log axes); ● this sentence, "
              "counted: {share} at n = {n}",
              "随 n 增长注意力（Q·Kᵀ 和 A·V）占全部乘加的比例（对数坐标）；● 本句实际计数：n = {n} 时 {share}"),
    "share_axis": ("share of multiply-adds", "乘加次数占比"),
    "tokens_n": ("n (tokens)", "n（词元数）"),
    "tokens_read": ("tokens read", "已读词元数"),
    "measured_time": ("Measured on this machine (torch threads: {threads}): one attention's time (ms); dashed: ∝ n² "
                      "(formula 2·n²·d)",
                      "在本机上实测（{threads} 个线程）：一次注意力的耗时（毫秒）；虚线：∝ n²（公式 2·n²·d）"),
    "milliseconds": ("ms", "毫秒"),
    "kv_growth": ("KV cache: {per_token} bytes per token (2 × {layers} layers × d_model {d} × 4 B), growing by one "
                  "row per token",
                  "KV 缓存：每个词元 {per_token} 字节（2 × {layers} 层 × d_model {d} × 4 字节），每个词元增加一行"),
    "no_kv_cache": ("No KV cache: an encoder reads the whole sentence at once and generates nothing",
                    "没有 KV 缓存：编码器一次读入整个句子，不逐词生成"),
    "memory": ("Memory, float32: inference vs training with Adam · Adam's two moments = {ratio} × the weights "
               "({adam} vs {weights})",
               "内存（float32）：推理 vs 用 Adam 训练 · Adam 的两个动量 = 权重的 {ratio} 倍（{adam} 对 {weights}）"),
    "inference": ("= inference", "= 推理"),
    "training": ("= training", "= 训练"),
    "weights": ("weights", "权重"),
    "gradients": ("gradients", "梯度"),
    "adam_moments": ("Adam m and v", "Adam 的 m 和 v"),
    "activations": ("activations kept", "保存的激活值"),
    "largest_stage": ("largest stage", "最大阶段"),
    "kv_cache": ("KV cache", "KV 缓存"),
    "not_finite": ("{n} values overflowed (∞ or NaN): not drawn", "{n} 个数值溢出（∞ 或 NaN）：未画出"),
}


def caption(key: str, lang: str, **values) -> str:
    """The caption in `lang`; the values (tokens such as <start>) are escaped, since plot titles are HTML."""
    en, zh = CAPTIONS[key]
    values = {k: html.escape(v, quote=False) if isinstance(v, str) else v for k, v in values.items()}
    return (zh if lang == "zh" else en).format(**values)


_CJK = "\u2e80-\u9fff\u3000-\u303f\uff00-\uffef"
# Words, with "= value" or "→ word" after them kept on their line ("σ² = 1.2", "<start> → 我"), or spaces.
_WORDS = re.compile(r"[^ ]+(?: [=→] [^ ]+)*| +")
_CLOSING = "）》」』，。、：；！？"  # never the first character of a line
# A line may break between Chinese characters (a closing mark stays with the character before it).
_CHARACTERS = re.compile(f"(?:[{_CJK}]|[^{_CJK}]+)[{_CLOSING}]*")


def _columns(piece: str) -> int:
    """How wide a piece of text looks: a Chinese character takes two columns, a letter one."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in piece)


def _pieces(text: str) -> list[str]:
    """What a line may break between: words and spaces, and the characters of Chinese words."""
    pieces = []
    for word in _WORDS.findall(text):
        joined = " = " in word or " → " in word
        pieces += [word] if joined or word.isspace() else _CHARACTERS.findall(word)
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


def _wrap_line(text: str, columns: int) -> list[str]:
    """As few lines as greedy wrapping needs, balanced in length (no lone word or character on the last)."""
    lines = _greedy(text, columns)
    for width in range(-(-_columns(text) // len(lines)), columns):
        balanced = _greedy(text, width)
        if len(balanced) <= len(lines):
            return balanced
    return lines


@lru_cache(maxsize=4096)  # the same captions come back with every refresh; wrapping a long one takes ms
def wrap_caption(text: str, columns: int) -> str:
    """Break a caption (its own lines marked with \\n) into lines of about `columns`, joined with <br>:
    between words or between Chinese characters, so a plot's title never makes it wider than its neighbours."""
    return "<br>".join(line for part in text.split("\n") for line in _wrap_line(part, columns))
