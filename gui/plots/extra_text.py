"""Captions of the head grid, what-if, generation, KV-cache, RoPE and SwiGLU plots in English and Chinese
(figures are drawn in the lesson's language, like gui/plots/text.py)."""

from __future__ import annotations

import html

CAPTIONS: dict[str, tuple[str, str]] = {
    # key: (English, 中文)
    "head": ("head {head}", "头 {head}"),
    "every_head": ("Every head of {stage}", "{stage} 的每个头"),
    "split": ("{letter} = X·W_{letter} [{n}×{d}] before the split: head j owns columns j·{d_k} … j·{d_k}+{last}",
              "拆分前的 {letter} = X·W_{letter} [{n}×{d}]：头 j 拥有第 j·{d_k} … j·{d_k}+{last} 列"),
    "concat": ("Concat [{n}×{d}]: the heads' outputs side by side", "拼接 [{n}×{d}]：各头的输出并排放在一起"),
    "z_of": ("Z of head {head}", "头 {head} 的 Z"),
    "part_of": ("head {head}: Z{sub}·W_O[rows {a}–{b}]", "头 {head}：Z{sub}·W_O[第 {a}–{b} 行]"),
    "out_sum": ("O = Σ heads' parts + b_O: each head adds its share", "O = 各头部分之和 + b_O：每个头贡献自己的一份"),
    "no_attention": ("No attention computed yet: step to an attention sublayer",
                     "还没有计算注意力：请步进到注意力子层"),
    # what-if switches
    "reorder": ("Words reordered: {a}  →  {b}; each side shows the {stack}'s output.",
                "调换词序：{a}  →  {b}；两边都是{stack}的输出。"),
    "reorder_same": ("Without positional encoding the outputs are just reordered (largest difference {diff})",
                     "没有位置编码时，输出只是换了行的顺序（最大差异 {diff}）"),
    "reorder_differs": ("The outputs change, not just their order (largest difference {diff})",
                        "输出本身变了，不只是顺序（最大差异 {diff}）"),
    "saturation": ("Largest weight per row (mean) as d_k grows", "随 d_k 增大，每行最大权重（平均）"),
    "saturation_note": ("Curves: one-layer models like this one with d_model = heads · d_k, {samples} seeds each. "
                        "This model (d_k = {d_k}): {value} in the attention weights of block {block}.",
                        "曲线：与本模型设置相同、d_model = 头数 · d_k 的单层模型，各取 {samples} 个种子。"
                        "本模型（d_k = {d_k}）：第 {block} 层的注意力权重中为 {value}。"),
    "with_scale": ("with ÷√d_k", "除以 √d_k"),
    "without_scale": ("without ÷√d_k", "不除以 √d_k"),
    "this_model": ("this model", "本模型"),
    "d_k": ("d_k", "d_k"),
    "mean_max": ("mean of each row's max weight (1 = one-hot)", "各行最大权重的平均（1 = 独热）"),
    "future": ("{head}: outlined cells are the future", "{head}：框出的格子是未来位置"),
    "future_note": ("Attention weights of the masked self-attention in block {block}: with the mask, the outlined "
                    "cells would be 0.",
                    "第 {block} 层掩码自注意力的注意力权重：有掩码时，框出的格子应为 0。"),
    "no_decoder": ("A causal mask belongs to a decoder: this model has none, so there is no future to hide.",
                   "因果掩码属于解码器：这个模型没有解码器，也就没有需要遮住的未来。"),
    "future_share": ("Weight each position puts on later words", "每个位置分给后面词的权重"),
    "spread_values": ("Spread of the values (std)", "数值的离散程度（标准差）"),
    "spread_tokens": ("How different the tokens are",
                      "各词元之间的差异"),
    "layer": ("layer (0 = input)", "层（0 = 输入）"),
    "normal": ("with residual and LayerNorm", "有残差和层归一化"),
    "no_residual": ("no residual", "无残差"),
    "no_layernorm": ("no LayerNorm", "无层归一化"),
    "this_trace": ("this lesson ({n} layers)", "本课（{n} 层）"),
    "spread_note": ("Lines: {n}-layer models like this one ({samples} seeds); squares: this lesson's {layers} "
                    "layer(s). Top: the std of all values; bottom: the std across tokens (0 = all tokens alike).",
                    "折线：与本模型设置相同的 {n} 层模型（{samples} 个种子）；方块：本课的 {layers} 层。"
                    "上：所有数值的标准差；下：跨词元的标准差（0 = 所有词元都一样）。"),
    "explain_no_pe": (
        "No positional encoding: the model gets no word order, so reordering the words only reorders the "
        "encoder's outputs (a bag of words). 狗 咬 人 and 人 咬 狗 then mean the same to it.",
        "去掉位置编码：模型拿不到词序，调换词序只会调换编码器输出的行（词袋）。“狗 咬 人”和“人 咬 狗”对它来说一样。"),
    "explain_no_scale": (
        "No scaling: scores are not divided by √d_k. As d_k grows the scores grow, and the softmax saturates "
        "towards one-hot (one weight near 1, gradients near 0).",
        "去掉缩放：分数不再除以 √d_k。d_k 越大，分数越大，softmax 越接近独热（一个权重接近 1，梯度接近 0）。"),
    "explain_no_mask": (
        "No mask: the decoder's self-attention sees later words too. Training would let it copy the answer; "
        "at generation time those words do not exist yet.",
        "去掉掩码：解码器的自注意力也能看到后面的词。训练时它可以直接抄答案，而生成时这些词还不存在。"),
    "explain_no_residual": (
        "No residual: each block's output replaces its input instead of adding to it. Layer after layer the "
        "tokens become alike, and the differences between them collapse.",
        "去掉残差：每个块的输出直接替换输入，而不是加到输入上。一层又一层之后，各词元越来越像，它们之间的差异消失。"),
    "explain_no_layernorm": (
        "No LayerNorm: nothing brings the values back to mean 0, spread 1, so they grow layer after layer.",
        "去掉层归一化：没有什么把数值拉回均值 0、标准差 1，它们一层比一层大。"),
    "switch_on": ("Switched on.", "已打开。"),
    "switch_off": ("Switched off: this shows what it would do.", "未打开：这里展示打开后会怎样。"),
    # generation and KV cache
    "chosen": ("Next token: chose “{token}” (p = {p}), {how}", "下一个词元：选了“{token}”（p = {p}），{how}"),
    "greedy": ("greedy", "贪心"),
    "sampled": ("sampled with seed {seed}", "用种子 {seed} 采样"),
    "cache_k": ("Cached K · {head}", "缓存的 K · {head}"),
    "cache_v": ("Cached V · {head}", "缓存的 V · {head}"),
    "macs": ("Multiply-adds per token", "每个词元的乘加次数"),
    "with_cache": ("with KV cache", "有 KV 缓存"),
    "without_cache": ("without (recompute all)", "无缓存（全部重算）"),
    "position": ("position", "位置"),
    # RoPE and SwiGLU
    "rope_angles": ("RoPE angle θ (radians) of each pair, per position: θ = p / 10000^(2i/d_k)",
                    "RoPE：各位置上每对维度的旋转角 θ（弧度）：θ = p / 10000^(2i/d_k)"),
    "pair": ("pair {i} (dims {a}, {b})", "第 {i} 对（维度 {a}, {b}）"),
    "rope_turn": ("{letter} of each token, pair 0 · {head}: before ○ and after ● turning",
                  "各词元的 {letter}，第 0 对 · {head}：旋转前 ○ 与旋转后 ●"),
    "gate_bars": ("SwiGLU for {token}: up ⊙ SiLU(gate) = act", "{token} 的 SwiGLU：up ⊙ SiLU(gate) = act"),
    "up": ("up", "up"),
    "silu_gate": ("SiLU(gate)", "SiLU(gate)"),
    "act": ("act = product", "act = 乘积"),
    "unit": ("unit", "单元"),
}


def plain(key: str, lang: str, **values) -> str:
    """The text in `lang` for a plain-text label."""
    en, zh = CAPTIONS[key]
    return (zh if lang == "zh" else en).format(**values)


def caption(key: str, lang: str, **values) -> str:
    """The text for a plot title, which is HTML: the values (tokens such as <start>) are escaped."""
    return plain(key, lang, **{k: html.escape(v, quote=False) if isinstance(v, str) else v for k, v in values.items()})
