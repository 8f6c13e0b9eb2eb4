"""The training lab: small experiments that test the tutorials' claims with the engine's own stages.

Each experiment is a generator: it yields a Progress after every step (a GUI draws the curve as it grows,
pauses by not asking for the next one, stops by closing the generator) and returns its result as plain
data, which `python main.py lab NAME --out R.json` writes: the settings, the x axis (and whether it is drawn on
a log scale), one series per arm and seed, a summary per arm, the evidence for the claim and a one-line verdict
computed from the numbers, in English ("verdict") and in Chinese ("verdict_zh"), both formatted from the same
numbers by _verdicts. Arms and axes are named in English; `label(name, "zh")` gives their Chinese.
Deterministic for a seed (the teacher-forcing timings aside).

Every experiment builds all its arms from one Setup with `arm_setups`, which lets an arm change only its switch
(SWITCHED): the arms of a seed share the learning rate, the initial weights and the data by construction.

The evidence is the claim's primary contrast over seeds: `{"ratio": R, "seeds_agreeing": k, "seeds": n,
"threshold": T}`, R the median of the per-seed ratios (in the claim's direction), k the seeds whose own ratio
reaches T. The claim holds when R ≥ T and k ≥ 90 % of n; the verdict says the ratio and k of n either way.
"""

from __future__ import annotations

import dataclasses
import math
import random
import re
import statistics
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass

import torch

from .. import ops
from ..config import ModelConfig
from ..errors import EngineError
from ..graph import block_outputs
from ..kv_cache import KVCache
from ..model import Model
from . import corpus
from .backward import backward
from .train import Settings, batches, make_example, one_thread, training_steps

BATCH = 16
MAX_SEEDS, MAX_STEPS = 20, 5000
HOLDS_SHARE = 0.9  # the claim holds when at least this share of the seeds agrees (9 of 10)


@dataclass(frozen=True)
class Progress:
    experiment: str
    arm: str
    seed: int
    step: int  # from 0, within this arm and seed (over all its learning rates)
    steps: int  # steps of this arm and seed
    value: float  # the number plotted at this step (a loss, a gradient norm, a time)
    model: Model | None = None  # training experiments: the model being trained, frozen at this step's weights
    grad_norms: dict[str, float] | None = None  # training experiments: ‖∂loss/∂W‖ per layer (train.param_group)


Run = Generator[Progress, None, dict]


@dataclass(frozen=True)
class Setup:
    """Everything one run of one arm depends on."""

    seed: int = 0  # the initial weights, the sentence or the batch order, the random q and k
    lr: float = 1e-2
    layers: int = 4
    d_model: int = 32
    positional: str = "sinusoidal"
    max_len: int = 24
    init: str = "engine"  # or "gpt-2": each residual branch's output projection (W_O, W2) × 1/√(2·layers)
    norm: str = "pre"  # switched
    switches: tuple[str, ...] = ()  # switched: engine/config.py SWITCHES
    warmup_steps: int = 0  # switched
    scaled: bool = True  # switched: scores divided by √d_k (scale-saturation)
    serial: bool = False  # switched: one token per pass (teacher-forcing)


SWITCHED = ("norm", "switches", "warmup_steps", "scaled", "serial")  # what an arm may change, and nothing else


Design = Callable[[int, int | None], tuple[Setup, dict[str, dict]]]  # (seed, steps) → base, each arm's switch


def arm_setups(base: Setup, switched: dict[str, dict]) -> dict[str, Setup]:
    """Each arm's Setup: the base with only the arm's switch changed. An arm that would change anything else (the
    learning rate, the seed, the model's size, the initialisation) is refused."""
    for arm, change in switched.items():
        other = sorted(set(change) - set(SWITCHED))
        if other:
            raise EngineError(f"arm {arm!r} changes {', '.join(other)}: an arm may change only {', '.join(SWITCHED)}")
    return {arm: dataclasses.replace(base, **change) for arm, change in switched.items()}


LABELS_ZH = {  # the Chinese of the arms' names and the axes' labels ("d_k" is notation in both)
    "post-LN": "Post-LN",
    "post-LN + warmup": "Post-LN + 预热",
    "pre-LN": "Pre-LN",
    "LayerNorm": "有 LayerNorm",
    "no LayerNorm": "无 LayerNorm",
    "residual": "有残差",
    "no residual": "无残差",
    "pre-LN, residual": "Pre-LN，有残差",
    "pre-LN, no residual": "Pre-LN，无残差",
    "scaled by √d_k": "除以 √d_k",
    "not scaled": "不缩放",
    "one masked pass": "一次带掩码的前向",
    "n KV-cache steps": "n 次 KV 缓存步骤",
    "step": "步",
    "layer": "层",
    "d_k": "d_k",
    "learning rate": "学习率",
    "tokens n": "词元数 n",
    "loss": "损失",
    "final loss": "最终损失",
    "gradient norm at the layer's input": "该层输入处的梯度范数",
    "softmax gradient p(1−p)": "softmax 的梯度 p(1−p)",
    "seconds": "秒",
}


def label(name: str, lang: str) -> str:
    """An arm's name or an axis's label in `lang` ("en" or "zh")."""
    return LABELS_ZH[name] if lang == "zh" else name


def _finite(x: float) -> float | None:
    """JSON has no NaN or infinity: a diverged value is written as null."""
    return x if math.isfinite(x) else None


def _ratio(worse: float, better: float) -> float:
    """worse ÷ better, in the claim's direction; a diverged (not finite) `worse` is infinitely worse, a diverged
    `better` makes the ratio 0 (the seed does not agree)."""
    if not math.isfinite(better) or better <= 0:
        return 0.0
    return worse / better if math.isfinite(worse) else math.inf


def _evidence(ratios: list[float], threshold: float) -> dict:
    """The primary contrast over seeds: the median ratio and the seeds whose own ratio reaches the threshold."""
    return {
        "ratio": _finite(statistics.median(ratios)),
        "seeds_agreeing": sum(r >= threshold for r in ratios),
        "seeds": len(ratios),
        "threshold": threshold,
    }


def holds(evidence: dict) -> bool:
    """The median ratio reaches the threshold and at least 90 % of the seeds agree."""
    ratio = math.inf if evidence["ratio"] is None else evidence["ratio"]
    return ratio >= evidence["threshold"] and evidence["seeds_agreeing"] >= HOLDS_SHARE * evidence["seeds"]


def _verdicts(en: str, zh: str, evidence: dict, **numbers) -> dict[str, str]:
    """The verdict in English and in Chinese: each template, formatted with the same numbers, then the evidence
    (the median ratio, k of n seeds) and whether the claim holds."""
    ratio = math.inf if evidence["ratio"] is None else evidence["ratio"]
    e = dict(ratio=ratio, k=evidence["seeds_agreeing"], n=evidence["seeds"], t=evidence["threshold"])
    ok = holds(evidence)
    tail_en = ": {ratio:.3g}× (median), at least {t:g}× in {k} of {n} seeds: the claim " + (
        "holds" if ok else "does not hold"
    )
    tail_zh = "：{ratio:.3g} 倍（中位数），至少 {t:g} 倍的种子：{k}/{n}，" + ("结论成立" if ok else "结论不成立")
    return {
        "verdict": powers_of_ten((en + tail_en).format(**numbers, **e)),
        "verdict_zh": powers_of_ten((zh + tail_zh).format(**numbers, **e)),
    }


_EXPONENT = re.compile(r"(\d(?:\.\d+)?)e([+-]\d+)")  # 6.2e+05, as Python's {:.3g} writes a large number
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def powers_of_ten(text: str) -> str:
    """ "6.2e+05" → "6.2·10⁵", "1e-07" → "1·10⁻⁷": a verdict read from the back row, as the lab's axes write them."""
    return _EXPONENT.sub(lambda m: f"{m[1]}·10{str(int(m[2])).translate(_SUPERSCRIPT)}", text)


def _model(setup: Setup) -> Model:
    """A decoder on the tiny Chinese language-model corpus (engine/training/corpus.py), deeper than the shipped
    one; with the GPT-2 initialisation each residual branch's output projection is scaled by 1/√(2·layers)."""
    cfg = ModelConfig(
        architecture="decoder",
        d_model=setup.d_model,
        n_heads=2,
        d_ff=2 * setup.d_model,
        n_layers=setup.layers,
        norm=setup.norm,
        activation="relu",
        positional=setup.positional,
        max_len=setup.max_len,
        dec_vocab=tuple(corpus.lm_vocab()),
        switches=setup.switches,
        seed=setup.seed,
    )
    model = Model.create(cfg)
    if setup.init == "engine":
        return model
    branch_scale = (2 * setup.layers) ** -0.5
    params = {k: v * branch_scale if k.endswith((".W_O", ".W2")) else v for k, v in model.params.items()}
    return Model(cfg, params, model.vocabs)


def watch_sentence() -> str:
    """The held-out sentence of the training experiments' corpus on which a window shows attention forming."""
    return corpus.lm_sentences()[1][0]


# ---- training: final loss over a range of learning rates ----------------------------------------------------


def _loss_curve(name: str, arm: str, setup: Setup, steps: int, first: int, total: int) -> Generator:
    """Train a fresh model with Adam (no gradient clipping) for `steps` batches; returns the batch losses. Its
    Progress steps count on from `first` (the steps of this arm and seed at the lower learning rates)."""
    model = _model(setup)
    examples = [make_example(model, s) for s in corpus.lm_sentences()[0]]
    per_epoch = len(batches(list(examples), BATCH, random.Random(0)))
    epochs = math.ceil(steps / per_epoch)
    share = (setup.warmup_steps + 0.5) / (epochs * per_epoch)  # Settings.warmup is a share; + 0.5: no rounding down
    settings = Settings(epochs=epochs, batch_size=BATCH, lr=setup.lr, warmup=share, clip=math.inf, seed=setup.seed)
    losses: list[float] = []
    run = training_steps(model, examples, settings)
    for step in run:
        losses.append(step.loss)
        frozen = Model(model.config, dict(model.params), model.vocabs)  # training replaces tensors, never mutates
        yield Progress(name, arm, setup.seed, first + step.index, total, step.loss, frozen, step.grad_norms)
        if len(losses) == steps:
            break
    run.close()
    return losses


def _final(losses: list[float]) -> float:
    """The mean loss of the last tenth of the steps (NaN when the run diverged)."""
    tail = losses[-max(1, len(losses) // 10) :]
    return sum(tail) / len(tail)


def _lr_sweep(name: str, design: Design, seeds: int, steps: int, lrs: list[float], log_y: bool) -> Generator:
    """Each arm and seed trained at every learning rate (the same for every arm): the loss curves, and the final
    loss per learning rate as the series (x: the learning rates)."""
    series, curves, finals = [], [], {}
    for arm in design(0, steps)[1]:
        finals[arm] = []
        for seed in range(seeds):
            base, switched = design(seed, steps)
            per_lr = []
            for i, lr in enumerate(lrs):
                setup = arm_setups(dataclasses.replace(base, lr=lr), switched)[arm]
                losses = yield from _loss_curve(name, arm, setup, steps, i * steps, len(lrs) * steps)
                curves.append({"arm": arm, "seed": seed, "lr": lr, "values": [_finite(v) for v in losses]})
                per_lr.append(_final(losses))
            finals[arm].append(per_lr)
            series.append({"arm": arm, "seed": seed, "values": [_finite(v) for v in per_lr]})
    summary = {
        arm: {
            "final_loss": [[_finite(v) for v in per_lr] for per_lr in f],
            "diverged": sum(not math.isfinite(v) for per_lr in f for v in per_lr),
        }
        for arm, f in finals.items()
    }
    return {
        "x": {"label": "learning rate", "values": lrs, "log": True},
        "y": {"label": "final loss", "log": log_y},
        "series": series,
        "summary": summary,
        "curves": curves,
    }, finals


def _training_settings(base: Setup, switched: dict, steps: int, lrs: list[float]) -> dict:
    return dict(
        base=dataclasses.asdict(base),
        arms=switched,
        learning_rates=lrs,
        steps=steps,
        batch=BATCH,
        optimizer="Adam (betas 0.9, 0.98), no clipping; cosine decay to a tenth after the warm-up",
        corpus="engine/training/corpus.py lm_sentences",
        final_loss="mean of the last tenth of the steps",
    )


def _median(values: list[float]) -> float:
    kept = [v for v in values if math.isfinite(v)]
    return statistics.median(kept) if kept else math.nan


def _mean(values: list[float]) -> float:
    kept = [v for v in values if math.isfinite(v)]
    return statistics.fmean(kept) if kept else math.nan


POST_VS_PRE_LRS, POST_VS_PRE_AT = [3e-3, 1e-2], 1e-2  # the contrast at 1e-2


def post_vs_pre_ln_design(seed: int, steps: int) -> tuple[Setup, dict[str, dict]]:
    warmup = steps // 2
    return Setup(seed=seed, layers=6), {
        "post-LN": {"norm": "post"},
        "post-LN + warmup": {"norm": "post", "warmup_steps": warmup},
        "pre-LN": {"norm": "pre"},
    }


def post_vs_pre_ln(seeds: int, steps: int) -> Generator:
    """After Xiong et al. 2020: at a learning rate pre-LN takes without warm-up, post-LN fails unless warmed up."""
    base, switched = post_vs_pre_ln_design(0, steps)
    lrs = POST_VS_PRE_LRS
    result, finals = yield from _lr_sweep("post-vs-pre-ln", post_vs_pre_ln_design, seeds, steps, lrs, False)
    at = lrs.index(POST_VS_PRE_AT)
    post, post_w, pre = ([f[at] for f in finals[arm]] for arm in switched)
    result["evidence"] = _evidence([_ratio(a, b) for a, b in zip(post, pre)], 2.0)
    result["evidence_warmup"] = warm = _evidence([_ratio(a, b) for a, b in zip(post, post_w)], 1.5)
    result["settings"] = _training_settings(base, switched, steps, lrs)
    warm_tail = _verdicts("", "", warm)  # the warm-up's own ratio, k of n and whether it holds
    result |= _verdicts(
        "final loss at learning rate {lr:g} (mean of {seeds} seeds): post-LN {post:.2f}, post-LN + warm-up "
        "{post_w:.2f}, pre-LN {pre:.2f}; post-LN ÷ pre-LN",
        "学习率 {lr:g} 时的最终损失（{seeds} 个种子的平均）：Post-LN {post:.2f}，Post-LN + 预热 {post_w:.2f}，"
        "Pre-LN {pre:.2f}；Post-LN ÷ Pre-LN",
        result["evidence"],
        lr=lrs[at],
        seeds=seeds,
        post=_mean(post),
        post_w=_mean(post_w),
        pre=_mean(pre),
    )
    result["verdict"] += ". Post-LN ÷ post-LN with warm-up" + warm_tail["verdict"]
    result["verdict_zh"] += "。Post-LN ÷ 带预热的 Post-LN" + warm_tail["verdict_zh"]
    return result


NO_LAYERNORM_LRS, NO_LAYERNORM_AT = [1e-2, 3e-2, 1e-1], 3e-2  # the contrast at 3e-2


def no_layernorm_design(seed: int, steps: int) -> tuple[Setup, dict[str, dict]]:
    return Setup(seed=seed, layers=4), {"LayerNorm": {}, "no LayerNorm": {"switches": ("no_layernorm",)}}


def no_layernorm(seeds: int, steps: int) -> Generator:
    """The learning rates a stack trains at with and without LayerNorm (after Xiong et al. 2020)."""
    base, switched = no_layernorm_design(0, steps)
    lrs = NO_LAYERNORM_LRS
    result, finals = yield from _lr_sweep(
        "no-layernorm", no_layernorm_design, seeds, steps, lrs, True
    )  # losses up to ~1e8
    at = lrs.index(NO_LAYERNORM_AT)
    on, off = ([f[at] for f in finals[arm]] for arm in switched)
    result["evidence"] = _evidence([_ratio(a, b) for a, b in zip(off, on)], 1.5)
    result["settings"] = _training_settings(base, switched, steps, lrs)
    result |= _verdicts(
        "final loss at learning rate {lr:g} (mean of {seeds} seeds): {on:.2f} with LayerNorm, {off:.2f} without "
        "({diverged} runs without it diverged; at {top:g}: {diverged_top} diverged, the others ended at a median "
        "{off_top:.3g}, with LayerNorm {on_top:.2f}); without ÷ with",
        "学习率 {lr:g} 时的最终损失（{seeds} 个种子的平均）：有 LayerNorm {on:.2f}，无 LayerNorm {off:.2f}"
        "（无 LayerNorm 有 {diverged} 次发散；学习率 {top:g} 时发散 {diverged_top} 次，其余最终损失的中位数为 "
        "{off_top:.3g}，有 LayerNorm 为 {on_top:.2f}）；无 ÷ 有",
        result["evidence"],
        lr=lrs[at],
        seeds=seeds,
        on=_mean(on),
        off=_mean(off),
        diverged=sum(not math.isfinite(v) for v in off),
        top=lrs[-1],
        diverged_top=sum(not math.isfinite(f[-1]) for f in finals["no LayerNorm"]),
        off_top=_median([f[-1] for f in finals["no LayerNorm"]]),
        on_top=_median([f[-1] for f in finals["LayerNorm"]]),
    )
    return result


# ---- at initialisation ----------------------------------------------------------------------------------------


def gradient_highway_design(seed: int, steps: None = None) -> tuple[Setup, dict[str, dict]]:
    base = Setup(seed=seed, layers=12, init="gpt-2", switches=("no_layernorm",))
    return base, {
        "residual": {},
        "no residual": {"switches": ("no_residual", "no_layernorm")},
        "pre-LN, residual": {"switches": ()},
        "pre-LN, no residual": {"switches": ("no_residual",)},
    }


def gradient_highway(seeds: int, steps: None) -> Generator:
    """‖∂loss/∂(input of layer i)‖ at initialisation over depth, one sentence per seed (after He et al. 2016): a
    stack of attention and feed-forward sublayers without LayerNorm, with and without its residual connections;
    and the same with pre-LN's LayerNorm in every block, which rescales the gradient itself."""
    base, switched = gradient_highway_design(0)
    sentences = corpus.lm_sentences()[0]
    series, firsts = [], {arm: [] for arm in switched}
    for seed in range(seeds):
        sentence = random.Random(seed).choice(sentences)
        for arm, setup in arm_setups(*gradient_highway_design(seed)).items():
            model = _model(setup)
            with one_thread():
                grads = backward(model.trace(sentence), dtype=torch.float64)
            names = block_outputs(model.config, "dec")[: setup.layers]
            norms = [float(grads[f"grad.{name}"].norm()) for name in names]
            series.append({"arm": arm, "seed": seed, "values": norms})
            firsts[arm].append(norms[0])
            yield Progress("gradient-highway", arm, seed, 0, 1, norms[0])
    series.sort(key=lambda s: list(switched).index(s["arm"]))  # arm by arm, seed by seed
    ratio = {
        n: [_ratio(a, b) for a, b in zip(firsts[f"{n}residual"], firsts[f"{n}no residual"])] for n in ("", "pre-LN, ")
    }
    evidence = _evidence(ratio[""], 10.0)
    with_ln = statistics.median(ratio["pre-LN, "])
    return {
        "settings": dict(
            base=dataclasses.asdict(base),
            arms=switched,
            dtype="float64",
            sentence="one lm_sentences sentence per seed",
            loss="cross-entropy of the next token",
        ),
        "x": {"label": "layer", "values": list(range(base.layers)), "log": False},
        "y": {"label": "gradient norm at the layer's input", "log": True},
        "series": series,
        "summary": {arm: {"first_layer_norm": v, "median": statistics.median(v)} for arm, v in firsts.items()},
        "evidence": evidence,
        **_verdicts(
            "gradient norm at the input of layer 0 of {layers} without LayerNorm (median of {seeds} seeds): "
            "{on:.3g} with residual connections vs {off:.3g} without (with LayerNorm in every block, pre-LN: "
            "{with_ln:.3g}× larger with them); with ÷ without",
            "无 LayerNorm 时第 0 层（共 {layers} 层）输入处的梯度范数（{seeds} 个种子的中位数）：有残差 {on:.3g}，"
            "无残差 {off:.3g}（每块都有 LayerNorm 的 Pre-LN：有残差时大 {with_ln:.3g} 倍）；有 ÷ 无",
            evidence,
            layers=base.layers,
            seeds=seeds,
            on=statistics.median(firsts["residual"]),
            off=statistics.median(firsts["no residual"]),
            with_ln=with_ln,
        ),
    }


SCALE_DIMS, QUERIES, KEYS = [4, 16, 64, 256, 1024, 4096], 64, 8


def scale_saturation_design(seed: int, steps: None = None) -> tuple[Setup, dict[str, dict]]:
    return Setup(seed=seed), {"scaled by √d_k": {"scaled": True}, "not scaled": {"scaled": False}}


def _saturation(setup: Setup, d_k: int) -> tuple[float, float]:
    """Random q, k (entries ~ N(0, 1), float64): the mean over the queries of the largest attention weight p and
    of its softmax gradient ∂p/∂s = p(1 − p), by autograd."""
    g = torch.Generator().manual_seed(setup.seed * 10_000 + d_k)
    q = torch.randn(1, QUERIES, d_k, generator=g, dtype=torch.float64)
    k = torch.randn(1, KEYS, d_k, generator=g, dtype=torch.float64)
    s = ops.scores(q, k)
    s = (ops.scale(s, d_k) if setup.scaled else ops.identity(s)).detach().requires_grad_(True)
    w = ops.softmax(s)
    top = w.argmax(-1, keepdim=True)
    (d_top,) = torch.autograd.grad(w.gather(-1, top).sum(), s)  # ∂p_max/∂s_max = p(1 − p) per row
    return float(w.detach().max(-1).values.mean()), float(d_top.gather(-1, top).mean())


def scale_saturation(seeds: int, steps: None) -> Generator:
    """The softmax gradient p(1−p) of the largest attention weight over d_k, scaled by √d_k or not (the reason
    Vaswani et al. 2017 give for the scaling)."""
    base, switched = scale_saturation_design(0)
    series, summary = [], {}
    for arm in switched:
        grads_all, maxes_all = [], []
        for seed in range(seeds):
            setup = arm_setups(*scale_saturation_design(seed))[arm]
            maxes, grads = zip(*(_saturation(setup, d_k) for d_k in SCALE_DIMS))
            series.append({"arm": arm, "seed": seed, "values": list(grads), "max_weight": list(maxes)})
            grads_all.append(grads)
            maxes_all.append(maxes)
            yield Progress("scale-saturation", arm, seed, 0, 1, grads[-1])
        summary[arm] = {
            "gradient": [statistics.fmean(c) for c in zip(*grads_all)],
            "max_weight": [statistics.fmean(c) for c in zip(*maxes_all)],
            "gradient_at_largest_d_k": [g[-1] for g in grads_all],
        }
    on, off = summary["scaled by √d_k"], summary["not scaled"]
    evidence = _evidence(
        [_ratio(a, b) for a, b in zip(on["gradient_at_largest_d_k"], off["gradient_at_largest_d_k"])], 10.0
    )
    big = SCALE_DIMS.index(64)
    return {
        "settings": dict(
            base=dataclasses.asdict(base),
            arms=switched,
            d_k=SCALE_DIMS,
            queries=QUERIES,
            keys=KEYS,
            entries="q, k ~ N(0, 1), float64",
        ),
        "x": {"label": "d_k", "values": SCALE_DIMS, "log": True},
        "y": {"label": "softmax gradient p(1−p)", "log": True},
        "series": series,
        "summary": summary,
        "evidence": evidence,
        **_verdicts(
            "at d_k = {d_k} (mean of {seeds} seeds) the largest weight is {max_off:.3f} unscaled vs {max_on:.3f} "
            "scaled; at d_k = {last} its softmax gradient p(1−p) is {last_on:.3g} scaled vs {last_off:.3g} "
            "unscaled; scaled ÷ unscaled",
            "d_k = {d_k} 时（{seeds} 个种子的平均），最大的注意力权重不缩放为 {max_off:.3f}，缩放后为 {max_on:.3f}；"
            "d_k = {last} 时它的 softmax 梯度 p(1−p) 缩放后为 {last_on:.3g}，不缩放为 {last_off:.3g}；缩放 ÷ 不缩放",
            evidence,
            d_k=SCALE_DIMS[big],
            seeds=seeds,
            max_off=off["max_weight"][big],
            max_on=on["max_weight"][big],
            last=SCALE_DIMS[-1],
            last_on=on["gradient"][-1],
            last_off=off["gradient"][-1],
        ),
    }


TOKENS = [4, 8, 16, 32, 64]  # the lengths timed; the contrast at the last
REPEATS = 5  # timings per length: the fastest counts (the least disturbed by other programs)
EQUAL_WITHIN = 1e-6  # the largest |Δ probability| between the one pass and the steps, for a seed to agree


def teacher_forcing_design(seed: int, steps: None = None) -> tuple[Setup, dict[str, dict]]:
    """Seed s: a small decoder of one of four kinds (post/pre-LN, sinusoidal/RoPE positions)."""
    base = Setup(
        seed=seed,
        layers=2,
        d_model=16,
        norm=("post", "pre")[seed % 2],
        positional=("sinusoidal", "rope")[seed // 2 % 2],
        max_len=TOKENS[-1],
    )
    return base, {"one masked pass": {}, "n KV-cache steps": {"serial": True}}


def _text(seed: int, n: int) -> str:
    """n words of the corpus's sentences, in the seed's order (the decoder reads <start> before them)."""
    sentences = list(corpus.lm_sentences()[0])
    random.Random(seed).shuffle(sentences)
    return " ".join(" ".join(sentences).split()[:n])


def _passes(setup: Setup, ids: torch.Tensor) -> tuple[float, torch.Tensor]:
    """The fastest of REPEATS runs of the decoder over ids [n] through a KV cache, all rows in one pass or one
    row per pass: seconds, and every position's probabilities [n, vocab]."""
    model = _model(setup)
    best, probs = math.inf, None
    with one_thread():
        for _ in range(REPEATS):
            start = time.perf_counter()
            cache = KVCache(model)
            rows = (
                [cache.extend(ids[i : i + 1])["probs"] for i in range(len(ids))]
                if setup.serial
                else [cache.extend(ids)["probs"]]
            )
            best = min(best, time.perf_counter() - start)
            probs = torch.cat(rows)
    return best, probs


def _without_mask(setup: Setup, text: str) -> float:
    """Without the causal mask: the largest |Δ p| between one pass and reading each prefix alone."""
    model = _model(setup)
    with one_thread():
        full = model.trace(text)
        words = full.tokens["dec"]
        return max(
            float((full["probs"][i] - model.trace(" ".join(words[: i + 1]))["probs"][-1]).abs().max())
            for i in range(len(words))
        )


def teacher_forcing(seeds: int, steps: None) -> Generator:
    """One masked pass gives every position's prediction, equal to n incremental KV-cache steps, in a fraction of
    their wall time (measured in the same run). Without the mask one pass lets positions read later tokens."""
    arms = list(teacher_forcing_design(0)[1])
    seconds = {arm: [] for arm in arms}
    differences, unmasked = [], []
    for seed in range(seeds):
        base, switched = teacher_forcing_design(seed)
        setups = arm_setups(base, switched)
        text = _text(seed, TOKENS[-1] - 1)  # and <start>
        ids = _model(base).trace(text).ids["dec"]
        timed = {arm: [] for arm in arms}
        for n in TOKENS:
            (one, p_one), (serial, p_serial) = (_passes(setups[arm], ids[:n]) for arm in arms)
            timed[arms[0]].append(one)
            timed[arms[1]].append(serial)
        differences.append(float((p_one - p_serial).abs().max()))
        unmasked.append(_without_mask(arm_setups(base, {"no mask": {"switches": ("no_mask",)}})["no mask"], text))
        for arm in arms:
            seconds[arm].append(timed[arm])
            yield Progress("teacher-forcing", arm, seed, 0, 1, timed[arm][-1])
    series = [{"arm": arm, "seed": seed, "values": seconds[arm][seed]} for arm in arms for seed in range(seeds)]
    ratios = [
        s[-1] / o[-1] if d <= EQUAL_WITHIN else 0.0 for o, s, d in zip(seconds[arms[0]], seconds[arms[1]], differences)
    ]
    evidence = _evidence(ratios, 5.0)
    return {
        "settings": dict(
            models="seeded random decoders, d_model 16, 2 layers: post/pre-LN × sinusoidal/RoPE",
            text="the corpus's sentences in the seed's order, cut to n words",
            dtype="float32",
            timing=f"fastest of {REPEATS} runs, one thread, the same KV cache code: all n rows in one "
            "pass or one row per pass",
            tokens=TOKENS,
            equal_within=EQUAL_WITHIN,
        ),
        "x": {"label": "tokens n", "values": TOKENS, "log": True},
        "y": {"label": "seconds", "log": True},
        "series": series,
        "summary": {
            arms[0]: {"seconds_at_largest_n": [s[-1] for s in seconds[arms[0]]]},
            arms[1]: {"seconds_at_largest_n": [s[-1] for s in seconds[arms[1]]], "max_difference": differences},
        },
        "no_mask": {"max_difference": unmasked},  # without the mask: one pass vs each prefix read alone
        "evidence": evidence,
        **_verdicts(
            "at n = {n_tokens} the one masked pass equals the {n_tokens} KV-cache steps to {diff:.1e} (largest "
            "|Δ probability|, {seeds} seeds; without the mask one pass differs from reading prefixes by up to "
            "{free:.2f}) and takes {one:.3g} ms against {serial:.3g} ms (medians); serial ÷ parallel",
            "n = {n_tokens} 时，一次带掩码的前向与 {n_tokens} 次 KV 缓存步骤相差至多 {diff:.1e}（最大 |Δ 概率|，"
            "{seeds} 个种子；没有掩码时一次前向与逐个前缀前向相差可达 {free:.2f}），用时 {one:.3g} 毫秒对 "
            "{serial:.3g} 毫秒（中位数）；逐步 ÷ 一次",
            evidence,
            n_tokens=TOKENS[-1],
            diff=max(differences),
            seeds=seeds,
            free=max(unmasked),
            one=1e3 * statistics.median(s[-1] for s in seconds[arms[0]]),
            serial=1e3 * statistics.median(s[-1] for s in seconds[arms[1]]),
        ),
    }


@dataclass(frozen=True)
class Experiment:
    fn: Callable[[int, int | None], Generator]
    design: Design  # each seed's base Setup and each arm's switch
    claim: str  # the tutorials' claim it tests
    seeds: int  # default number of seeds
    steps: int | None  # default training steps per learning rate; None: it does not train
    measures: str = "loss"  # what its curves' y axis shows while it runs (a LABELS_ZH key)


EXPERIMENTS = {
    "gradient-highway": Experiment(
        gradient_highway,
        gradient_highway_design,
        "the residual connection carries the gradient to the first layers",
        10,
        None,
        "gradient norm at the layer's input",
    ),
    "post-vs-pre-ln": Experiment(
        post_vs_pre_ln,
        post_vs_pre_ln_design,
        "post-LN is unstable in deep stacks and needs warm-up; pre-LN trains stably",
        2,
        120,
    ),
    "no-layernorm": Experiment(
        no_layernorm, no_layernorm_design, "without LayerNorm the loss curve is a roller coaster", 3, 120
    ),
    "scale-saturation": Experiment(
        scale_saturation,
        scale_saturation_design,
        "dividing by √d_k keeps the softmax out of saturation",
        10,
        None,
        "softmax gradient p(1−p)",
    ),
    "teacher-forcing": Experiment(
        teacher_forcing,
        teacher_forcing_design,
        "one masked pass gives every position's prediction, as N incremental steps would, in a fraction of their time",
        10,
        None,
        "seconds",
    ),
}


def experiment(name: str, seeds: int | None = None, steps: int | None = None) -> Run:
    """The experiment as a generator of Progress; its return value (StopIteration.value) is the result."""
    if name not in EXPERIMENTS:
        raise EngineError(f"no experiment named {name!r}; choose one of {', '.join(EXPERIMENTS)}")
    spec = EXPERIMENTS[name]
    seeds = spec.seeds if seeds is None else seeds
    if isinstance(seeds, bool) or not isinstance(seeds, int) or not 1 <= seeds <= MAX_SEEDS:
        raise EngineError(f"seeds must be a whole number from 1 to {MAX_SEEDS}, got {seeds!r}")
    if steps is not None and spec.steps is None:
        raise EngineError(f"{name} does not train: --steps applies to post-vs-pre-ln and no-layernorm")
    steps = spec.steps if steps is None else steps
    if steps is not None and (isinstance(steps, bool) or not isinstance(steps, int) or not 2 <= steps <= MAX_STEPS):
        raise EngineError(f"steps must be a whole number from 2 to {MAX_STEPS}, got {steps!r}")
    return _timed(name, spec.claim, seeds, spec.fn(seeds, steps))


def _timed(name: str, claim: str, seeds: int, run: Generator) -> Run:
    start, cpu = time.monotonic(), time.process_time()
    result = yield from run
    return {
        "experiment": name,
        "claim": claim,
        "seeds": seeds,
        **result,
        "seconds": round(time.monotonic() - start, 2),
        "cpu_seconds": round(time.process_time() - cpu, 2),
    }


def run_experiment(
    name: str, seeds: int | None = None, steps: int | None = None, on_progress: Callable[[Progress], None] | None = None
) -> dict:
    """Run an experiment to the end (calling on_progress at every step); returns the result."""
    run = experiment(name, seeds, steps)
    while True:
        try:
            progress = next(run)
        except StopIteration as done:
            return done.value
        if on_progress is not None:
            on_progress(progress)
