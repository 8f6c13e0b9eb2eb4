"""2017 → today in English and Chinese, one entry per change of engine.modernise.CHANGES (and the start): its name
("ReLU → SwiGLU"), what changed and why in a teacher's words, and what the map shows after it. They are data
rather than Qt tr() strings, so that the deck drawn in the lesson's language tells the story in it too."""

from __future__ import annotations

from typing import NamedTuple

from engine.modernise import CHANGES, Change


class ChangeText(NamedTuple):
    name: tuple[str, str]  # (English, 中文)
    why: tuple[str, str]  # what changed and why
    on_map: tuple[str, str]  # what the map shows after the change


START = ChangeText(
    ("The 2017 block", "2017 年的模块"),
    (
        "The block of “Attention Is All You Need” (Vaswani et al., 2017), as the tutorials teach it: sinusoidal "
        "positions are added to the embeddings; each sublayer (attention, then the ReLU feed-forward layer) adds its "
        "output to the residual stream and then normalises the sum with LayerNorm (post-LN); every head has its own "
        "Q, K and V. Press Next change to turn it into today's decoder block (Llama, Qwen, Mistral) one change at "
        "a time: the weights stay, so the marked cells in the stage view are exactly the numbers a change moved.",
        "这是 Transformer 原始论文（Vaswani 等，2017）中的模块，也就是教程里讲的那种："
        "正弦位置编码加到词嵌入上；"
        "每个子层（先是注意力，然后是 ReLU 前馈层）把输出加到残差流上，再用 LayerNorm 归一化这个和（Post-LN）；"
        "每个头都有自己的 Q、K、V。按“下一个改变”，一次一个改变，把它变成今天的解码器模块（Llama、Qwen、Mistral）："
        "权重保持不变，所以阶段视图中标出的单元格正是这个改变所改动的数。",
    ),
    (
        "The map shows the 2017 block: LayerNorm after each Add, sinusoidal positions, ReLU.",
        "结构图显示 2017 年的模块：每个相加之后是 LayerNorm，正弦位置编码，ReLU。",
    ),
)

CHANGE_TEXTS: dict[str, ChangeText] = {
    "pre_ln": ChangeText(
        ("Post-LN → pre-LN", "Post-LN → Pre-LN"),
        (
            "LayerNorm moves from after the residual Add to the start of each sublayer: x + Attention(LN(x)) instead "
            "of LN(x + Attention(x)). The residual stream itself is no longer normalised, so the gradient reaches the "
            "first layers along an unbroken path and deep stacks train without a learning-rate warm-up. The stream "
            "now grows from layer to layer, so one last LayerNorm is added before the output head.",
            "LayerNorm 从残差相加之后移到每个子层的开头：x + Attention(LN(x))，而不是 LN(x + Attention(x))。"
            "残差流本身不再被归一化，梯度沿着一条不被打断的路径到达最前面的层，深层堆叠不需要学习率预热也能训练。"
            "残差流会逐层变大，所以在输出头之前再加一个最后的 LayerNorm。",
        ),
        (
            "On the map the norm boxes move in front of each sublayer, and a final norm appears before the output.",
            "结构图上，归一化框移到每个子层的前面，输出之前多了一个最终归一化。",
        ),
    ),
    "rmsnorm": ChangeText(
        ("LayerNorm → RMSNorm", "LayerNorm → RMSNorm"),
        (
            "RMSNorm divides each token's vector by its root mean square, √(mean(x²) + ε), and scales it by γ. It no "
            "longer subtracts the mean and has no shift β: fewer operations and fewer weights, and training is just "
            "as stable. Every large open model since Llama uses it.",
            "RMSNorm 把每个词元的向量除以它的均方根 √(x² 的均值 + ε)，再乘以 γ。它不再减去均值，也没有平移量 β："
            "运算更少、权重更少，训练同样稳定。Llama 之后的大型开源模型都用它。",
        ),
        (
            "Inside the norm boxes a mean square replaces the mean and the variance, and β is gone.",
            "归一化框内，只算均方，不再算均值和方差，β 也没有了。",
        ),
    ),
    "swiglu": ChangeText(
        ("ReLU → SwiGLU", "ReLU → SwiGLU"),
        (
            "The feed-forward layer gets a second input projection, the gate: act = SiLU(x·W_gate) ⊙ (x·W1), then "
            "act·W2. Instead of ReLU cutting every negative value to zero, the gate decides smoothly, feature by "
            "feature, how much of each value passes. At the same size it reaches a lower loss; Llama makes d_ff "
            "smaller to pay for the third matrix.",
            "前馈层多了一个输入投影——门：激活 = SiLU(x·W_gate) ⊙ (x·W1)，然后乘 W2。ReLU 把所有负值一刀切成 0，"
            "而门逐个特征、平滑地决定每个值通过多少。同样大小下损失更低；Llama 把 d_ff 调小，来抵消多出的第三个矩阵。",
        ),
        (
            "On the map the feed-forward box says SwiGLU: gate ⊙ up; inside it, the gate sits beside the "
            "up-projection.",
            "结构图上，前馈框标着 SwiGLU：门控 ⊙ 升维；框内，门在升维投影旁边。",
        ),
    ),
    "rope": ChangeText(
        ("Sinusoidal → RoPE", "正弦位置编码 → RoPE"),
        (
            "Positions are no longer added to the embeddings. Instead each head's q and k are rotated, pair of "
            "dimensions by pair, by angles proportional to the token's position. The score q·k then depends only on "
            "how far apart the two tokens are, not on where they stand, and the values in the residual stream carry "
            "no position at all.",
            "位置不再加到词嵌入上。改为把每个头的 q 和 k 按维度两两成对地旋转，旋转角与词元的位置成正比。"
            "这样分数 q·k 只取决于两个词元相隔多远，而不取决于它们在哪里；残差流中的数值也完全不带位置。",
        ),
        (
            "On the map the embedding box adds no sinusoids any more (its positions are RoPE, in attention), "
            "and the attention box turns Q and K.",
            "结构图上，嵌入框不再加正弦位置编码（位置改由注意力中的 RoPE 给出），注意力框旋转 Q 和 K。",
        ),
    ),
    "gqa": ChangeText(
        ("Multi-head → grouped-query", "多头 → 分组查询注意力"),
        (
            "Each query head keeps its own W_Q, but K and V are shared in groups: here two query heads read one K/V "
            "head (the shared K and V start as the average of the two heads they replace, as Ainslie et al. did). "
            "When a model generates text it keeps every past token's K and V in the KV cache, and for long contexts "
            "that cache, not the arithmetic, is what fills the GPU's memory: half the K/V heads, half the cache.",
            "每个查询头保留自己的 W_Q，但 K 和 V 按组共享：这里两个查询头读同一个 K/V 头"
            "（共享的 K 和 V 起初是被替换的两个头的平均，正如 Ainslie 等人的做法）。"
            "模型生成文本时会把之前每个词元的 K 和 V 存进 KV 缓存；上下文一长，占满显卡显存的是这个缓存，"
            "而不是计算：K/V 头减半，缓存也减半。",
        ),
        (
            "Inside the attention box each query head now reads its group's shared K and V; the KV cache line "
            "below gives the bytes before and after.",
            "注意力框内，每个查询头现在读取本组共享的 K 和 V；下面 KV 缓存一行给出改变前后的字节数。",
        ),
    ),
    "qk_norm": ChangeText(
        ("+ QK-norm", "+ QK 归一化"),
        (
            "Each head's q and k get an RMSNorm of their own (with a learned scale γ) after the projection, before "
            "RoPE and the dot product. The scores q·k can then no longer grow without bound during training, which "
            "kept large models from a saturated softmax and from loss spikes.",
            "每个头的 q 和 k 在投影之后、RoPE 和点积之前，各自经过一个 RMSNorm（带可学习的缩放 γ）。"
            "这样训练中分数 q·k 就不会无限变大，大模型也就避免了 softmax 饱和和损失突然飙升。",
        ),
        (
            "Inside the attention box a norm of q and a norm of k come before RoPE and the scores.",
            "注意力框内，在 RoPE 和打分之前多了 q 的归一化和 k 的归一化。",
        ),
    ),
}


SIDES = {"before": ("Before", "之前"), "after": ("After", "之后")}  # the maps on either side of a change


def side_name(side: str, lang: str) -> str:
    return _in(SIDES[side], lang)


def _in(texts: tuple[str, str], lang: str) -> str:
    en, zh = texts
    return zh if lang == "zh" else en


def text_of(step: int) -> ChangeText:
    """The texts of step `step`: 0 is the 2017 block, k the k-th change."""
    return START if step == 0 else CHANGE_TEXTS[CHANGES[step - 1].key]


def change_name(key: str, lang: str) -> str:
    return _in(CHANGE_TEXTS[key].name, lang)


def introduced(change: Change, lang: str) -> str:
    """Who introduced a change and when: "GPT-2, 2019"."""
    return f"{change.models}{'，' if lang == 'zh' else ', '}{change.year}"


def step_name(step: int, lang: str) -> str:
    """A step as the list names it: "3. ReLU → SwiGLU (Shazeer; PaLM, Llama, 2020 / 2022)"; 0 the 2017 block."""
    if step == 0:
        return _in(START.name, lang) + ("（Vaswani 等，2017）" if lang == "zh" else " (Vaswani et al., 2017)")
    change = CHANGES[step - 1]
    open_, close = ("（", "）") if lang == "zh" else (" (", ")")
    return f"{step}. {change_name(change.key, lang)}{open_}{introduced(change, lang)}{close}"


def why(step: int, lang: str) -> str:
    return _in(text_of(step).why, lang)


def on_map(step: int, lang: str) -> str:
    return _in(text_of(step).on_map, lang)
