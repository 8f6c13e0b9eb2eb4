"""The words of the overview (every attention head at a glance) in English and Chinese, in one table: its row and
column headers, the head metrics' names, their definitions and thresholds (the tooltip, the docs), and the pattern
names. Figures and exports are drawn in the lesson's language, so these are not Qt translations.

The numbers themselves are the engine's (engine/head_patterns.py); the thresholds quoted are its constants.
"""

from __future__ import annotations

from engine.head_patterns import BROAD, DOMINANT

WORDS: dict[str, tuple[str, str]] = {
    # key: (English, 中文)
    "title": ("Every attention head on this sentence", "本句上的每个注意力头"),
    "layer": ("Layer {layer} · {kind}", "第 {layer} 层 · {kind}"),
    "enc_layer": ("Encoder {layer} · {kind}", "编码器第 {layer} 层 · {kind}"),
    "dec_layer": ("Decoder {layer} · {kind}", "解码器第 {layer} 层 · {kind}"),
    "self": ("self", "自注意力"),
    "cross": ("cross", "交叉注意力"),
    "head": ("Head {head}", "头 {head}"),
    "rank": ("#{rank}", "第 {rank}"),  # a column of heads sorted by a metric
    "sorted": ("heads sorted by {metric}, largest first", "各行的头按{metric}从大到小排列"),
    "weights": ("attention weight", "注意力权重"),
    "no_pattern": ("—", "—"),
    "no_value": ("none", "无"),
    "detail": ("{row} · {head}", "{row} · {head}"),
}

METRIC_NAMES: dict[str, tuple[str, str]] = {
    "entropy": ("entropy", "熵"),
    "self": ("to itself", "关注自身"),
    "previous": ("to the previous token", "关注前一个词元"),
    "first": ("to the first token", "关注第一个词元"),
    "last": ("to the last token", "关注最后一个词元"),
}

METRIC_DEFINITIONS: dict[str, tuple[str, str]] = {
    "entropy": (
        "Mean over the query rows of −Σ w·ln w over the keys a query may see (natural log): 0 when every query "
        "looks at one key, ln(visible keys) when it spreads evenly.",
        "对每个查询行求 −Σ w·log w（只计它能看到的键，以 e 为底的自然对数），再对各行取平均：每个查询只看一个键时为 0，"
        "平均分给能看到的键时为 log(可见键数)。",
    ),
    "self": (
        "Mean over the queries of the weight a token gives to its own position (self-attention only).",
        "各查询给自身位置的权重的平均值（仅自注意力）。",
    ),
    "previous": (
        "Mean over the queries 1…n−1 of the weight a token gives to the token just before it (self-attention only).",
        "查询 1…n−1 给紧邻前一个词元的权重的平均值（仅自注意力）。",
    ),
    "first": (
        "Mean over the queries of the weight given to the first key ([CLS], <start>, the first word).",
        "各查询给第一个键（BERT 的分类符、<start>、第一个词）的权重的平均值。",
    ),
    "last": (
        "Mean over the queries of the weight given to the last key (BERT's [SEP]); a key a query may not see "
        "counts as 0.",
        "各查询给最后一个键（如 BERT 的分隔符）的权重的平均值；查询看不到的键记为 0。",
    ),
}

PATTERN_NAMES: dict[str, tuple[str, str]] = {
    "previous": ("previous", "前一个"),
    "first": ("first", "第一个"),
    "self": ("self", "自身"),
    "last": ("last", "最后一个"),
    "broad": ("broad", "分散"),
}

PATTERN_SHORT: dict[str, tuple[str, str]] = {  # where the full name is too wide for a thumbnail's caption
    "previous": ("prev.", "前一"),
    "first": ("first", "第一"),
    "self": ("self", "自身"),
    "last": ("last", "最后"),
    "broad": ("broad", "分散"),
}

PATTERN_RULE = (
    "Pattern: previous, first, self or last when that share is the largest of the four and at least {dominant} "
    "(the head gives that one key at least half its attention); broad when none is and the entropy is at least "
    "{broad} × the mean ln(visible keys); none otherwise.",
    "模式：某一份额（前一个、第一个、自身、最后一个）是四者中最大且至少为 {dominant} 时（这个头至少一半的注意力"
    "给了那一个键），以它命名；都不是而熵至少为 {broad} × 平均 log(可见键数) 时为“分散”；否则无。",
)

LANGS = ("en", "zh")


def _pick(pair: tuple[str, str], lang: str) -> str:
    return pair[LANGS.index(lang) if lang in LANGS else 0]


def word(key: str, lang: str, **values) -> str:
    return _pick(WORDS[key], lang).format(**values)


def metric_name(metric: str, lang: str) -> str:
    return _pick(METRIC_NAMES[metric], lang)


def pattern_name(pattern: str | None, lang: str, short: bool = False) -> str:
    """A head's pattern in words (`short`: in fewer letters); "—" for a head whose attention no one key or spread
    names."""
    if pattern is None:
        return word("no_pattern", lang)
    return _pick((PATTERN_SHORT if short else PATTERN_NAMES)[pattern], lang)


def pattern_rule(lang: str) -> str:
    return _pick(PATTERN_RULE, lang).format(dominant=DOMINANT, broad=BROAD)


def metric_help(metric: str, lang: str) -> str:
    """What a metric measures, then how a head's pattern is named from the metrics (its thresholds)."""
    return f"{metric_name(metric, lang)}: {_pick(METRIC_DEFINITIONS[metric], lang)}\n{pattern_rule(lang)}"


def row_header(stack: str, layer: int, kind: str, stacks: int, lang: str) -> str:
    """ "Layer 3 · self", or with two stacks "Decoder 0 · cross"."""
    key = "layer" if stacks == 1 else f"{stack}_layer"
    return word(key, lang, layer=layer, kind=word(kind, lang))


def column_header(head: int, lang: str) -> str:
    return word("head", lang, head=head)


def rank_header(rank: int, lang: str) -> str:
    return word("rank", lang, rank=rank)


def metric_value(value: float | None, lang: str) -> str:
    return word("no_value", lang) if value is None else f"{value:.2f}"
