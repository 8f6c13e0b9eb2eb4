"""Every word drawn in a figure, in English and Chinese, in one dictionary: the stage figures, the docks' plots
(head grid, What-if, generation, KV cache, RoPE, SwiGLU, cost) and the map. Figures are drawn and exported in the
lesson's language, not the UI's, so these are not Qt translations. Keys with a dot are built from a name: "op." +
an operation, "pos." + a positional encoding."""

from __future__ import annotations

import html

CAPTIONS: dict[str, tuple[str, str]] = {
    # key: (English, 中文)
    # --- the stage figures ---
    "head": ("head {head}", "头 {head}"),
    "all_heads": ("all heads", "所有头"),
    "n_heads": ("{n} heads", "{n} 个头"),
    "one_head": ("1 head", "1 个头"),
    "row": ("row of {token}", "{token} 这一行"),
    "token_ids": ("token ids", "词元编号"),
    "id": ("id", "编号"),  # the one column of a stack's token ids
    "width": ("d_model {d}", "模型维度 {d}"),
    "post": ("post-LN", "后置 LN"),  # the model's norm placement, under a figure's title
    "pre": ("pre-LN", "前置 LN"),
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
    "unscaled_softmax": ("Row of {token}: softmax without ÷√d_k", "{token} 这一行：不除以 √d_k 的 softmax"),
    "scaled_softmax": ("Row of {token}: softmax with ÷√d_k", "{token} 这一行：除以 √d_k 的 softmax"),
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
    "before_after_rms": ("Each token before (○) and after (●) RMSNorm", "RMSNorm 前（○）后（●）的各词元"),
    "step_rms_hat": ("÷ √(ms+ε)", "÷ √(ms+ε)"),
    "step_gain": ("× γ", "× γ"),
    "activation": (
        "{name} on this sentence\n{off} of {total} switched off",
        "{name} 作用于本句的数值\n{total} 个中 {off} 个被关闭",
    ),
    "top_k": (
        "Top {k} next tokens after {token} (T = {temperature})",
        "{token} 之后最可能的 {k} 个词元（T = {temperature}）",
    ),
    "other_words": ("other {n}", "其余 {n} 个"),  # the bar of the words after the top k
    "feature": ("feature", "特征"),
    "value": ("value", "数值"),
    "visible": ("visible", "可见"),
    "hidden": ("hidden", "不可见"),
    # tiled (FlashAttention) stages and their panels
    "tile_of": ("{what}: queries {r0}–{r1}, keys {c0}–{c1}", "{what}：查询 {r0}–{r1}，键 {c0}–{c1}"),
    "tile_map": (
        "This tile in the n × n scores of {head} (drawn for reference: tiling never stores them)",
        "本分块在 {head} 的 n × n 分数中的位置（仅作参照：分块计算从不保存它们）",
    ),
    "numbers_held": (
        "Numbers held per head: the largest tile vs the n × n scores · max |tiled − A·V| = {diff}",
        "每个头保存的数值个数：最大分块与 n × n 分数对比 · 最大 |分块 − A·V| = {diff}",
    ),
    "largest_tile": ("largest tile {r}×{c}", "最大分块 {r}×{c}"),
    "full_scores": ("n × n = {n}×{m}, never stored", "n × n = {n}×{m}，从不保存"),
    # the cost view (the "Cost of this model" dock, gui/plots/cost.py)
    "cost_title": ("Cost of this model", "计算与内存开销"),
    "stage_macs": (
        "Multiply-adds of each layer, {layer} stage by stage · this stage: {macs} multiply-adds{per_head}, {size}",
        "各层的乘加次数，{layer} 逐阶段展开 · 本阶段：{macs} 次乘加{per_head}，{size}",
    ),
    "per_head": (" ({macs} per head)", "（每个头 {macs} 次）"),
    "layer_total": ("{layer}, all stages", "{layer} 全部阶段"),
    "enc_block": ("Encoder block {i}", "编码器第 {i} 层"),
    "dec_block": ("Decoder block {i}", "解码器第 {i} 层"),
    "enc_outside_blocks": ("Encoder: embedding, final norm", "编码器：嵌入、最终归一化"),
    "dec_outside_blocks": ("Decoder: embedding, final norm", "解码器：嵌入、最终归一化"),
    "bytes": ("bytes", "字节"),
    "share": (
        "Attention's share (Q·Kᵀ and A·V) of all multiply-adds as n grows (log axes); ● this sentence, "
        "counted: {share} at n = {n}",
        "随 n 增长注意力（Q·Kᵀ 和 A·V）占全部乘加的比例（对数坐标）；● 本句实际计数：n = {n} 时 {share}",
    ),
    "share_axis": ("share of multiply-adds", "乘加次数占比"),
    "tokens_n": ("n (tokens)", "n（词元数）"),
    "tokens_read": ("tokens read", "已读词元数"),
    "measured_time": (
        "Measured on this machine (torch threads: {threads}): one attention's time (ms); dashed: ∝ n² (formula 2·n²·d)",
        "在本机上实测（{threads} 个线程）：一次注意力的耗时（毫秒）；虚线：∝ n²（公式 2·n²·d）",
    ),
    "milliseconds": ("ms", "毫秒"),
    "kv_growth_heads": (
        "KV cache: {per_token} bytes per token (2 × {layers} layers × {k} KV heads × d_k {d_k} × 4 B; {h} query "
        "heads share them: {saving} saved), growing by one row per token",
        "KV 缓存：每个词元 {per_token} 字节（2 × {layers} 层 × {k} 个 KV 头 × d_k {d_k} × 4 字节；{h} 个查询头"
        "共用它们：节省 {saving}），每个词元增加一行",
    ),
    "kv_growth": (
        "KV cache: {per_token} bytes per token (2 × {layers} layers × d_model {d} × 4 B), growing by one row per token",
        "KV 缓存：每个词元 {per_token} 字节（2 × {layers} 层 × 模型维度 {d} × 4 字节），每个词元增加一行",
    ),
    "no_kv_cache": (
        "No KV cache: an encoder reads the whole sentence at once and generates nothing",
        "没有 KV 缓存：编码器一次读入整个句子，不逐词生成",
    ),
    "memory": (
        "Memory, float32: inference vs training with Adam · Adam's two moments = {ratio} × the weights "
        "({adam} vs {weights})",
        "内存（float32）：推理与用 Adam 训练对比 · Adam 的两个动量 = 权重的 {ratio} 倍（{adam} 对 {weights}）",
    ),
    "inference": ("= inference", "= 推理"),
    "training": ("= training", "= 训练"),
    "weights": ("weights", "权重"),
    "gradients": ("gradients", "梯度"),
    "adam_moments": ("Adam m and v", "Adam 的 m 和 v"),
    "activations": ("activations kept", "保存的激活值"),
    "largest_stage": ("largest stage", "最大阶段"),
    "kv_cache": ("KV cache", "KV 缓存"),
    "not_finite": ("{n} values overflowed (∞ or NaN): not drawn", "{n} 个数值溢出（∞ 或 NaN）：未画出"),
    # --- the head grid, What-if, generation, KV-cache, RoPE and SwiGLU plots ---
    "every_head": ("{stage}: every head", "{stage}：每个头"),  # the stage's title first, as it is written
    "split": (
        "{letter} = X·W_{letter} [{n}×{d}] before the split: head j owns columns j·{d_k} … j·{d_k}+{last}",
        "拆分前的 {letter} = X·W_{letter} [{n}×{d}]：头 j 拥有第 j·{d_k} … j·{d_k}+{last} 列",
    ),
    "concat": ("Concat [{n}×{d}]: the heads' outputs side by side", "拼接 [{n}×{d}]：各头的输出并排放在一起"),
    "z_of": ("Z of head {head}", "头 {head} 的 Z"),
    "part_of": ("head {head}: Z{sub}·W_O[rows {a}–{b}]", "头 {head}：Z{sub}·W_O[第 {a}–{b} 行]"),
    "out_sum": ("O = Σ heads' parts + b_O: each head adds its share", "O = 各头部分之和 + b_O：每个头贡献自己的一份"),
    "no_attention": (
        "No attention computed yet: step to an attention sublayer",
        "还没有计算注意力：请步进到注意力子层",
    ),
    # what-if switches
    "reorder": (
        "Words reordered: {a}  →  {b}; each side shows the {stack}'s output.",
        "调换词序：{a}  →  {b}；两边都是{stack}的输出。",
    ),
    "reorder_same": (
        "Without positional encoding the outputs are just reordered (largest difference {diff})",
        "没有位置编码时，输出只是换了行的顺序（最大差异 {diff}）",
    ),
    "reorder_positions": (
        "The outputs change, not just their order: the positional encoding tells the model where each word "
        "stands (largest difference {diff})",
        "输出本身变了，不只是顺序：位置编码告诉模型每个词在哪个位置（最大差异 {diff}）",
    ),
    "reorder_mask": (
        "The outputs change, not just their order: even without positions, the mask lets each word see only the "
        "words before it, which tells it where it stands (largest difference {diff})",
        "输出本身变了，不只是顺序：即使没有位置编码，掩码也只让每个词看到它前面的词，"
        "这就透露了它的位置（最大差异 {diff}）",
    ),
    "saturation": ("Largest weight per row (mean) as d_k grows", "随 d_k 增大，每行最大权重（平均）"),
    "saturation_note": (
        "Curves: one-layer models like this one with d_model = heads · d_k, {samples} seeds each. "
        "This model (d_k = {d_k}): {value} in the attention weights of block {block}.",
        "曲线：与本模型设置相同、模型维度 = 头数 · d_k 的单层模型，各取 {samples} 个种子。"
        "本模型（d_k = {d_k}）：第 {block} 层的注意力权重中为 {value}。",
    ),
    "with_scale": ("with ÷√d_k", "除以 √d_k"),
    "without_scale": ("without ÷√d_k", "不除以 √d_k"),
    "this_model": ("this model", "本模型"),
    "d_k": ("d_k", "d_k"),
    "mean_max": ("mean of each row's max weight<br>(1 = one-hot)", "各行最大权重的平均<br>（1 = 独热）"),  # two lines
    "future": ("{head}: outlined cells are the future", "{head}：框出的格子是未来位置"),
    "future_note": (
        "Attention weights of the masked self-attention in block {block}: with the mask, the outlined "
        "cells would be 0.",
        "第 {block} 层掩码自注意力的注意力权重：有掩码时，框出的格子应为 0。",
    ),
    "no_decoder": (
        "A causal mask belongs to a decoder: this model has none, so there is no future to hide.",
        "因果掩码属于解码器：这个模型没有解码器，也就没有需要遮住的未来。",
    ),
    "future_share": ("Weight each position puts on later words", "每个位置分给后面词的权重"),
    "spread_values": ("Spread of the values (std)", "数值的离散程度（标准差）"),
    "spread_tokens": ("How different the tokens are", "各词元之间的差异"),
    "layer": ("layer (0 = input)", "层（0 = 输入）"),
    "normal": ("with residual and LayerNorm", "有残差和层归一化"),
    "no_residual": ("no residual", "无残差"),
    "no_layernorm": ("no LayerNorm", "无层归一化"),
    "this_trace": ("this lesson ({n} layers)", "本课（{n} 层）"),
    "spread_note": (
        "Lines: {n}-layer models like this one ({samples} seeds); squares: this lesson's {layers} "
        "layer(s). Top: the std of all values; bottom: the std across tokens (0 = all tokens alike).",
        "折线：与本模型设置相同的 {n} 层模型（{samples} 个种子）；方块：本课的 {layers} 层。"
        "上：所有数值的标准差；下：跨词元的标准差（0 = 所有词元都一样）。",
    ),
    "explain_no_pe": (
        "No positional encoding: the model gets no word order. An encoder then reads a bag of words: reordering "
        "the words only reorders its outputs, and 狗 咬 人 and 人 咬 狗 mean the same to it.",
        "去掉位置编码：模型拿不到词序。编码器读到的就是一袋词：调换词序只会调换它输出的行，"
        "“狗 咬 人”和“人 咬 狗”对它来说一样。",
    ),
    "explain_no_scale": (
        "No scaling: scores are not divided by √d_k. As d_k grows the scores grow, and the softmax saturates "
        "towards one-hot (one weight near 1, gradients near 0).",
        "去掉缩放：分数不再除以 √d_k。d_k 越大，分数越大，softmax 越接近独热（一个权重接近 1，梯度接近 0）。",
    ),
    "explain_no_mask": (
        "No mask: the decoder's self-attention sees later words too. Training would let it copy the answer; "
        "at generation time those words do not exist yet.",
        "去掉掩码：解码器的自注意力也能看到后面的词。训练时它可以直接抄答案，而生成时这些词还不存在。",
    ),
    "explain_no_residual": (
        "No residual: each block's output replaces its input instead of adding to it. Layer after layer the "
        "tokens become alike, and the differences between them collapse.",
        "去掉残差：每个块的输出直接替换输入，而不是加到输入上。一层又一层之后，各词元越来越像，它们之间的差异消失。",
    ),
    "explain_no_layernorm": (
        "No LayerNorm: nothing brings the values back to mean 0, spread 1, so they grow layer after layer.",
        "去掉层归一化：没有什么把数值拉回均值 0、标准差 1，它们一层比一层大。",
    ),
    "switch_on": ("Switched on.", "已打开。"),
    "switch_off": ("Switched off: this shows what it would do.", "未打开：这里展示打开后会怎样。"),
    # generation and KV cache
    "chosen": (
        "Next token after “{after}”: chose “{token}” (p = {p}), {how}",
        "“{after}”之后的下一个词元：选了“{token}”（p = {p}），{how}",
    ),
    "greedy": ("greedy", "贪心"),
    "sampled": ("sampled with seed {seed}", "用种子 {seed} 采样"),
    "cache_k": ("Cached K · {head}", "缓存的 K · {head}"),
    "cache_v": ("Cached V · {head}", "缓存的 V · {head}"),
    "macs": ("Multiply-adds per token", "每个词元的乘加次数"),
    "with_cache": ("with KV cache", "有 KV 缓存"),
    "without_cache": ("without (recompute all)", "无缓存（全部重算）"),
    # RoPE and SwiGLU
    "rope_angles": (
        "RoPE angle θ (radians) of each pair, per position: θ = p / {theta}^(2i/{r})",
        "RoPE：各位置上每对维度的旋转角 θ（弧度）：θ = p / {theta}^(2i/{r})",
    ),
    "pair": ("pair {i} (dims {a}, {b})", "第 {i} 对（维度 {a}, {b}）"),
    "rope_turn": (
        "{letter} of each token, pair 0 · {head}: before ○ and after ● turning",
        "各词元的 {letter}，第 0 对 · {head}：旋转前 ○ 与旋转后 ●",
    ),
    "gate_bars": ("SwiGLU for {token}: up ⊙ SiLU(gate) = act", "{token} 的 SwiGLU：升维 ⊙ SiLU(门控) = 激活"),
    "up": ("up", "升维"),
    "silu_gate": ("SiLU(gate)", "SiLU(门控)"),
    "act": ("act = product", "激活 = 乘积"),
    "unit": ("unit", "单元"),
    # --- the map: its boxes, the operations inside them, the What-if marks ---
    "enc": ("Encoder", "编码器"),
    "dec": ("Decoder", "解码器"),
    "embedding": ("Embedding", "词嵌入"),
    "embed_norm": ("LayerNorm", "层归一化"),
    "self_attn": ("Multi-Head Attention", "多头注意力"),
    "masked_self_attn": ("Masked Multi-Head Attention", "掩码多头注意力"),
    "unmasked_self_attn": ("Multi-Head Attention, unmasked", "多头注意力（无掩码）"),
    "cross_attn": ("Cross-Attention", "交叉注意力"),
    "ffn": ("Feed Forward", "前馈网络"),
    "add": ("Add ⊕ (residual)", "相加 ⊕（残差）"),
    "norm": ("LayerNorm", "层归一化"),
    "final_norm": ("Final LayerNorm", "最终层归一化"),
    "output": ("Linear + Softmax", "线性层 + Softmax"),
    "block": ("Block {i}", "第 {i} 层"),  # as the stage tree says it (块 is FlashAttention's tile, 分块)
    "n_times": ("{n}×", "{n}×"),
    "inputs": ("Inputs: {text}", "输入：{text}"),
    "outputs_shifted": ("Outputs, shifted right: {text}", "输出（右移）：{text}"),
    "probabilities": ("Output probabilities", "输出概率"),
    "kv": ("K, V", "K、V"),
    # notes under a box's name
    "heads": ("{h} heads", "{h} 个头"),
    "sinusoidal": ("+ sin/cos positions", "+ 正弦位置编码"),
    "learned": ("+ learned positions", "+ 可学习位置编码"),
    "rope": ("positions: RoPE in attention", "位置：注意力中的 RoPE"),
    "none": ("no positional encoding", "无位置编码"),
    "pos.sinusoidal": ("sinusoidal PE", "正弦位置编码"),
    "pos.learned": ("learned PE", "可学习位置编码"),
    "pos.rope": ("RoPE", "RoPE"),
    "pos.none": ("no PE", "无位置编码"),
    "rope_tag": ("RoPE on Q, K", "Q、K 用 RoPE"),
    "kv_heads": ("{k} KV heads", "{k} 个 KV 头"),
    "qk_norm": ("QK-norm", "QK 归一化"),
    "sliding_window": ("window {w}", "窗口 {w}"),
    "rms_norm": ("RMSNorm", "RMSNorm"),
    "rms_final_norm": ("Final RMSNorm", "最终 RMSNorm"),
    "rms_embed_norm": ("RMSNorm", "RMSNorm"),
    "type": ("+ token types", "+ 词元类型"),
    "relu": ("ReLU", "ReLU"),
    "gelu": ("GELU", "GELU"),
    "gelu_tanh": ("GELU (tanh)", "GELU（tanh）"),
    "swiglu": ("SwiGLU: gate ⊙ up", "SwiGLU：门控 ⊙ 升维"),
    "pe": ("PE", "位置"),
    # titles
    "map": ("The map", "结构图"),
    "you_are_here": ("You are here: {stage}", "你在这里：{stage}"),
    "backward_here": ("Backward pass: {stage}", "反向传播：{stage}"),
    "whole_model": ("The whole model: {summary}", "整个模型：{summary}"),
    "inside": ("Inside: {box}", "内部：{box}"),
    "each_head": ("each head (×{h})", "每个头（×{h}）"),
    "shape": ("output {shape}", "输出 {shape}"),
    "not_computed": ("not computed yet", "尚未计算"),
    "x_in": ("x", "x"),
    "memory_in": ("encoder output", "编码器输出"),
    # operations inside a box
    "op.tokens": ("tokens → ids", "词元 → 编号"),
    "op.embed": ("token embedding", "词嵌入"),
    "op.pos": ("positions", "位置编码"),
    "op.type": ("token types", "词元类型"),
    "op.x0": ("⊕ sum", "⊕ 相加"),
    "op.attn.q": ("Q = X·W_Q", "Q = X·W_Q"),
    "op.attn.k": ("K = X·W_K", "K = X·W_K"),
    "op.attn.v": ("V = X·W_V", "V = X·W_V"),
    "op.attn.q_norm": ("RMSNorm(Q)", "RMSNorm(Q)"),
    "op.attn.k_norm": ("RMSNorm(K)", "RMSNorm(K)"),
    "op.attn.k_shared": ("share K heads", "共享 K 头"),
    "op.attn.v_shared": ("share V heads", "共享 V 头"),
    "op.attn.q_rot": ("RoPE(Q)", "RoPE(Q)"),
    "op.attn.k_rot": ("RoPE(K)", "RoPE(K)"),
    "op.attn.scores": ("Q·Kᵀ", "Q·Kᵀ"),
    "op.attn.scaled": ("÷ √d_k", "÷ √d_k"),
    "op.attn.masked": ("Mask", "掩码"),
    "op.attn.masked.none": ("Mask (none)", "掩码（无）"),
    "op.attn.weights": ("Softmax", "Softmax"),
    "op.attn.z": ("A·V", "A·V"),
    "op.attn.tiled": ("tiles (FlashAttention)", "分块（FlashAttention）"),
    "op.attn.concat": ("Concat", "拼接"),
    "op.attn.out": ("·W_O", "·W_O"),
    "op.add": ("x + F(x)", "x + F(x)"),
    "op.norm.mean": ("mean μ", "均值 μ"),
    "op.norm.var": ("variance σ²", "方差 σ²"),
    "op.norm.hat": ("(x − μ)/√(σ²+ε)", "(x − μ)/√(σ²+ε)"),
    "op.norm.out": ("γ ⊙ x̂ + β", "γ ⊙ x′ + β"),
    "op.norm.ms": ("mean square", "均方"),
    "op.norm.rms_hat": ("x/√(ms+ε)", "x/√(ms+ε)"),
    "op.norm.rms_out": ("γ ⊙ x̂", "γ ⊙ x′"),
    "op.ffn.up": ("x·W1 + b1", "x·W1 + b1"),
    "op.ffn.gate": ("gate x·W_gate", "门控 x·W_gate"),
    "op.ffn.act": ("{activation}", "{activation}"),
    "op.ffn.down": ("·W2 + b2", "·W2 + b2"),
    "op.logits": ("Linear ·W_U", "线性层 ·W_U"),
    "op.probs": ("Softmax", "Softmax"),
    "op.loss.per_position": ("−log p", "−log p"),
    "op.loss": ("mean loss L", "平均损失 L"),
}


def plain(key: str, lang: str, **values) -> str:
    """The text in `lang` for a plain-text label."""
    en, zh = CAPTIONS[key]
    return (zh if lang == "zh" else en).format(**values)


def sentences(lang: str, *texts: str) -> str:
    """Sentences one after another: a space between them in English, none after a Chinese full stop."""
    return ("" if lang == "zh" else " ").join(texts)


def caption(key: str, lang: str, **values) -> str:
    """The text for a plot title, which is HTML: the values (tokens such as <start>) are escaped."""
    return plain(key, lang, **{k: html.escape(v, quote=False) if isinstance(v, str) else v for k, v in values.items()})
