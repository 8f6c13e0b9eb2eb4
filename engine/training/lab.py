"""The training lab: small experiments that test the tutorials' claims with the engine's own stages.

Each experiment is a generator: it yields a Progress after every step (a GUI draws the curve as it grows,
pauses by not asking for the next one, stops by closing the generator) and returns its result as plain
data, which `python main.py lab NAME --out R.json` writes: the settings, the x axis, one series per arm
and seed, a summary per arm and a one-line verdict computed from the numbers, in English ("verdict") and in
Chinese ("verdict_zh"), both formatted from the same numbers by _verdicts. Arms and x axes are named in
English; `label(name, "zh")` gives their Chinese. Deterministic for a seed.
"""

from __future__ import annotations

import math
import random
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


@dataclass(frozen=True)
class Progress:
    experiment: str
    arm: str
    seed: int
    step: int  # from 0, within this arm and seed
    steps: int  # steps of this arm and seed
    value: float  # the number plotted at this step (a loss, a gradient norm, a difference)
    model: Model | None = None  # training experiments: the model being trained, frozen at this step's weights
    grad_norms: dict[str, float] | None = None  # training experiments: ‖∂loss/∂W‖ per layer (train.param_group)


Run = Generator[Progress, None, dict]

LABELS_ZH = {  # the Chinese of the arms' names and the x axes' labels ("d_k" is notation in both)
    "post-LN": "Post-LN", "post-LN + warmup": "Post-LN + 预热", "pre-LN": "Pre-LN", "pre-LN + warmup": "Pre-LN + 预热",
    "LayerNorm": "有 LayerNorm", "no LayerNorm": "无 LayerNorm",
    "pre-LN, residual": "Pre-LN，有残差", "pre-LN, no residual": "Pre-LN，无残差",
    "post-LN, residual": "Post-LN，有残差", "post-LN, no residual": "Post-LN，无残差",
    "scaled by √d_k": "除以 √d_k", "not scaled": "不缩放",
    "causal mask: one pass vs KV-cache steps": "因果掩码：一次前向 ↔ KV 缓存逐步",
    "no mask: one pass vs prefix passes": "无掩码：一次前向 ↔ 逐个前缀前向",
    "step": "步", "layer": "层", "d_k": "d_k", "position": "位置",
    "loss": "损失", "gradient norm at the layer's input": "该层输入处的梯度范数",
    "softmax gradient p(1−p)": "softmax 的梯度 p(1−p)", "largest difference in p": "p 的最大差异",
}


def label(name: str, lang: str) -> str:
    """An arm's name or an axis's label in `lang` ("en" or "zh")."""
    return LABELS_ZH[name] if lang == "zh" else name


def _verdicts(en: str, zh: str, **numbers) -> dict[str, str]:
    """The verdict in English and in Chinese, each template formatted with the same numbers."""
    return {"verdict": en.format(**numbers), "verdict_zh": zh.format(**numbers)}


def _lm_config(layers: int, norm: str, seed: int, switches: tuple[str, ...] = ()) -> ModelConfig:
    """A decoder on the tiny Chinese language-model corpus (engine/training/corpus.py), deeper than the shipped one."""
    return ModelConfig(
        architecture="decoder", d_model=32, n_heads=2, d_ff=64, n_layers=layers, norm=norm, activation="relu",
        positional="sinusoidal", max_len=24, dec_vocab=tuple(corpus.lm_vocab()), switches=switches, seed=seed,
    )


def watch_sentence() -> str:
    """The held-out sentence of the training experiments' corpus on which a window shows attention forming."""
    return corpus.lm_sentences()[1][0]


def _finite(x: float) -> float | None:
    """JSON has no NaN or infinity: a diverged value is written as null."""
    return x if math.isfinite(x) else None


def _loss_curve(name: str, arm: str, cfg: ModelConfig, steps: int, lr: float, warmup_steps: int) -> Generator:
    """Train a fresh model with Adam (no gradient clipping) for `steps` batches; returns the batch losses."""
    model = Model.create(cfg)
    examples = [make_example(model, s) for s in corpus.lm_sentences()[0]]
    per_epoch = len(batches(list(examples), BATCH, random.Random(0)))
    epochs = math.ceil(steps / per_epoch)
    share = (warmup_steps + 0.5) / (epochs * per_epoch)  # Settings.warmup is a share; + 0.5: no rounding down
    settings = Settings(epochs=epochs, batch_size=BATCH, lr=lr, warmup=share, clip=math.inf, seed=cfg.seed)
    losses: list[float] = []
    run = training_steps(model, examples, settings)
    for step in run:
        losses.append(step.loss)
        frozen = Model(model.config, dict(model.params), model.vocabs)  # training replaces tensors, never mutates
        yield Progress(name, arm, cfg.seed, step.index, steps, step.loss, frozen, step.grad_norms)
        if len(losses) == steps:
            break
    run.close()
    return losses


def _curve_summary(losses: list[list[float]]) -> dict:
    """Per arm: the final loss (mean of the last tenth of the steps) and the rises (sum of the upward moves
    of the loss per step: a smooth curve has few) of each seed, and how many runs diverged (NaN or inf)."""
    tail = max(1, len(losses[0]) // 10)
    finals = [sum(c[-tail:]) / tail for c in losses]
    rises = [sum(max(0.0, b - a) for a, b in zip(c, c[1:])) / (len(c) - 1 or 1) for c in losses]
    return {"final_loss": [_finite(f) for f in finals], "rises": [_finite(r) for r in rises],
            "diverged": sum(not math.isfinite(f) for f in finals)}


def _mean(values: list[float | None]) -> float:
    kept = [v for v in values if v is not None]
    return statistics.fmean(kept) if kept else math.nan


def _training_experiment(name: str, arms: dict[str, tuple[ModelConfig, int]], seeds: int, steps: int,
                         lr: float) -> Generator:
    """Loss curves per arm (a config and its warm-up steps) and seed."""
    series, summary = [], {}
    for arm, (cfg, warmup) in arms.items():
        curves = []
        for seed in range(seeds):
            curves.append((yield from _loss_curve(name, arm, cfg.replace(seed=seed), steps, lr, warmup)))
            series.append({"arm": arm, "seed": seed, "values": [_finite(v) for v in curves[-1]]})
        summary[arm] = _curve_summary(curves)
    return {"x": {"label": "step", "values": list(range(steps))}, "series": series, "summary": summary}


def _wins(summary: dict, better: str, worse: str, key: str = "final_loss") -> int:
    """Seeds where arm `better` ends lower than arm `worse` (a diverged run loses)."""
    pairs = zip(summary[better][key], summary[worse][key])
    return sum(b is not None and (w is None or b < w) for b, w in pairs)


# ---- the experiments ---------------------------------------------------------------------------------------

def post_vs_pre_ln(seeds: int, steps: int) -> Generator:
    layers, lr, warmup = 6, 1e-2, max(2, steps // 4)
    arms = {f"{norm}-LN{' + warmup' if w else ''}": (_lm_config(layers, norm, 0), w)
            for norm in ("post", "pre") for w in (0, warmup)}
    result = yield from _training_experiment("post-vs-pre-ln", arms, seeds, steps, lr)
    s = result["summary"]
    result["settings"] = dict(layers=layers, d_model=32, lr=lr, warmup_steps=warmup, steps=steps, batch=BATCH,
                              optimizer="Adam, no clipping", corpus="engine/training/corpus.py lm_sentences")
    result |= _verdicts(
        "final loss (mean of {seeds} seeds): post-LN {post:.2f}, post-LN + warmup {post_w:.2f}, pre-LN {pre:.2f}, "
        "pre-LN + warmup {pre_w:.2f}; pre-LN beats post-LN without warm-up in {pre_wins}/{seeds} seeds; warm-up "
        "lowers post-LN's final loss in {post_helped}/{seeds} seeds and pre-LN's in {pre_helped}/{seeds}",
        "最终损失（{seeds} 个种子的平均）：Post-LN {post:.2f}，Post-LN + 预热 {post_w:.2f}，Pre-LN {pre:.2f}，"
        "Pre-LN + 预热 {pre_w:.2f}；不预热时 Pre-LN 在 {pre_wins}/{seeds} 个种子上胜过 Post-LN；预热降低了 Post-LN "
        "的最终损失（{post_helped}/{seeds} 个种子）和 Pre-LN 的（{pre_helped}/{seeds}）",
        seeds=seeds, post=_mean(s["post-LN"]["final_loss"]), post_w=_mean(s["post-LN + warmup"]["final_loss"]),
        pre=_mean(s["pre-LN"]["final_loss"]), pre_w=_mean(s["pre-LN + warmup"]["final_loss"]),
        pre_wins=_wins(s, "pre-LN", "post-LN"), post_helped=_wins(s, "post-LN + warmup", "post-LN"),
        pre_helped=_wins(s, "pre-LN + warmup", "pre-LN"),
    )
    return result


def no_layernorm(seeds: int, steps: int) -> Generator:
    layers, lr = 4, 1e-2
    arms = {"LayerNorm": (_lm_config(layers, "pre", 0), 0),
            "no LayerNorm": (_lm_config(layers, "pre", 0, ("no_layernorm",)), 0)}
    result = yield from _training_experiment("no-layernorm", arms, seeds, steps, lr)
    s = result["summary"]
    result["settings"] = dict(layers=layers, d_model=32, norm="pre", lr=lr, warmup_steps=0, steps=steps,
                              batch=BATCH, optimizer="Adam, no clipping",
                              corpus="engine/training/corpus.py lm_sentences")
    on, off = s["LayerNorm"], s["no LayerNorm"]
    result |= _verdicts(
        "final loss {loss_on:.2f} with LayerNorm vs {loss_off:.2f} without (lower with LayerNorm in {lower}/{seeds} "
        "seeds); upward jumps per step {rises_on:.3f} vs {rises_off:.3f} (smoother with LayerNorm in "
        "{smoother}/{seeds} seeds); diverged: {diverged_on} vs {diverged_off}",
        "最终损失：有 LayerNorm {loss_on:.2f}，无 LayerNorm {loss_off:.2f}"
        "（有 LayerNorm 更低：{lower}/{seeds} 个种子）；每步向上的跳动：{rises_on:.3f} 对 {rises_off:.3f}"
        "（有 LayerNorm 更平稳：{smoother}/{seeds} 个种子）；"
        "发散：{diverged_on} 对 {diverged_off}",
        seeds=seeds, loss_on=_mean(on["final_loss"]), loss_off=_mean(off["final_loss"]),
        lower=_wins(s, "LayerNorm", "no LayerNorm"), rises_on=_mean(on["rises"]), rises_off=_mean(off["rises"]),
        smoother=_wins(s, "LayerNorm", "no LayerNorm", "rises"), diverged_on=on["diverged"],
        diverged_off=off["diverged"],
    )
    return result


def gradient_highway(seeds: int, steps: int) -> Generator:
    """‖∂loss/∂(input of layer i)‖ in a deep freshly initialised decoder, one sentence per seed."""
    layers = 12
    sentences = corpus.lm_sentences()[0]
    series, summary, arms = [], {}, {}
    for norm in ("pre", "post"):
        arms[f"{norm}-LN, residual"] = (norm, ())
        arms[f"{norm}-LN, no residual"] = (norm, ("no_residual",))
    for arm, (norm, switches) in arms.items():
        firsts = []
        for seed in range(seeds):
            cfg = _lm_config(layers, norm, seed, switches)
            with one_thread():
                trace = Model.create(cfg).trace(random.Random(seed).choice(sentences))
                grads = backward(trace, dtype=torch.float64)
            norms = [float(grads[f"grad.{name}"].norm()) for name in block_outputs(cfg, "dec")[:layers]]
            series.append({"arm": arm, "seed": seed, "values": norms})
            firsts.append(norms[0])
            yield Progress("gradient-highway", arm, seed, 0, 1, norms[0])
        summary[arm] = {"input_layer_norm": firsts, "median": statistics.median(firsts)}
    wins = {n: sum(a > b for a, b in zip(summary[f"{n}-LN, residual"]["input_layer_norm"],
                                          summary[f"{n}-LN, no residual"]["input_layer_norm"]))
            for n in ("pre", "post")}
    medians = {f"{n}_{kind}": summary[f"{n}-LN, {arm}"]["median"]
               for n in ("pre", "post") for kind, arm in (("on", "residual"), ("off", "no residual"))}
    return {
        "settings": dict(layers=layers, d_model=32, init="seeded random (engine/params.py)", dtype="float64",
                         sentence="one lm_sentences sentence per seed"),
        "x": {"label": "layer", "values": list(range(layers))},
        "series": series, "summary": summary,
        **_verdicts(
            "gradient norm at the input of layer 0 of {layers} (median): pre-LN {pre_on:.3g} with residual vs "
            "{pre_off:.3g} without (larger in {pre_wins}/{seeds} seeds); post-LN {post_on:.3g} with residual vs "
            "{post_off:.3g} without (larger in {post_wins}/{seeds} seeds)",
            "第 0 层（共 {layers} 层）输入处的梯度范数（中位数）：Pre-LN 有残差 {pre_on:.3g}，无残差 {pre_off:.3g}"
            "（有残差更大：{pre_wins}/{seeds} 个种子）；Post-LN 有残差 {post_on:.3g}，无残差 {post_off:.3g}"
            "（有残差更大：{post_wins}/{seeds} 个种子）",
            layers=layers, seeds=seeds, pre_wins=wins["pre"], post_wins=wins["post"], **medians,
        ),
    }


def scale_saturation(seeds: int, steps: int) -> Generator:
    """q, k with unit-variance entries: the largest attention weight and its softmax gradient p(1−p), as d_k grows."""
    dims, n = [4, 16, 64, 256, 1024], 8
    series, summary = [], {}
    for arm, scaled in (("scaled by √d_k", True), ("not scaled", False)):
        grads_all, maxes_all = [], []
        for seed in range(seeds):
            grads, maxes = [], []
            for d_k in dims:
                g = torch.Generator().manual_seed(seed * 10_000 + d_k)
                q, k = torch.randn(1, n, d_k, generator=g), torch.randn(1, n, d_k, generator=g)
                s = ops.scores(q, k)
                s = (ops.scale(s, d_k) if scaled else ops.identity(s)).detach().requires_grad_(True)
                w = ops.softmax(s)
                top = w.argmax(-1, keepdim=True)
                (d_top,) = torch.autograd.grad(w.gather(-1, top).sum(), s)  # ∂p_max/∂s_max = p(1 − p) per row
                grads.append(float(d_top.gather(-1, top).mean()))
                maxes.append(float(w.detach().max(-1).values.mean()))
            series.append({"arm": arm, "seed": seed, "values": grads, "max_weight": maxes})
            grads_all.append(grads)
            maxes_all.append(maxes)
            yield Progress("scale-saturation", arm, seed, 0, 1, grads[-1])
        summary[arm] = {"gradient": [statistics.fmean(c) for c in zip(*grads_all)],
                        "max_weight": [statistics.fmean(c) for c in zip(*maxes_all)]}
    on, off = summary["scaled by √d_k"], summary["not scaled"]
    big = dims.index(64)
    return {
        "settings": dict(d_k=dims, queries=n, keys=n, entries="q, k ~ N(0, 1)"),
        "x": {"label": "d_k", "values": dims},
        "series": series, "summary": summary,
        **_verdicts(
            "at d_k = {d_k} (mean of {seeds} seeds) the largest weight is {max_off:.3f} unscaled vs {max_on:.3f} "
            "scaled, its softmax gradient p(1−p) {grad_off:.3g} vs {grad_on:.3g}; at d_k = {last}: "
            "{last_off:.3g} vs {last_on:.3g}",
            "d_k = {d_k} 时（{seeds} 个种子的平均），最大的注意力权重不缩放为 {max_off:.3f}，缩放后为 {max_on:.3f}，"
            "它的 softmax 梯度 p(1−p) 为 {grad_off:.3g} 对 {grad_on:.3g}；d_k = {last} 时：{last_off:.3g} 对 "
            "{last_on:.3g}",
            d_k=dims[big], seeds=seeds, max_off=off["max_weight"][big], max_on=on["max_weight"][big],
            grad_off=off["gradient"][big], grad_on=on["gradient"][big], last=dims[-1], last_off=off["gradient"][-1],
            last_on=on["gradient"][-1],
        ),
    }


def _variant(seed: int, switches: tuple[str, ...] = ()) -> ModelConfig:
    """Seed s: a small decoder of one of four kinds (post/pre-LN, sinusoidal/RoPE positions)."""
    return ModelConfig(architecture="decoder", d_model=16, n_heads=2, d_ff=32, n_layers=2,
                       norm=("post", "pre")[seed % 2], positional=("sinusoidal", "rope")[seed // 2 % 2],
                       max_len=24, dec_vocab=tuple(corpus.lm_vocab()), switches=switches, seed=seed)


def teacher_forcing(seeds: int, steps: int) -> Generator:
    """One masked pass gives every position's prediction; N incremental KV-cache steps give the same numbers.
    Without the mask, the one pass lets positions read later tokens, so it differs from reading prefixes."""
    sentences = corpus.lm_sentences()[0]
    series, summary = [], {}
    for arm in ("causal mask: one pass vs KV-cache steps", "no mask: one pass vs prefix passes"):
        worst = []
        for seed in range(seeds):
            sentence = random.Random(seed).choice(sentences)
            with one_thread():
                if arm.startswith("causal"):
                    model = Model.create(_variant(seed))
                    full = model.trace(sentence)
                    cache = KVCache(model)
                    ids = full.values["dec.tokens"]
                    rows = [cache.extend(ids[i : i + 1])["probs"][0] for i in range(len(ids))]
                else:
                    model = Model.create(_variant(seed, ("no_mask",)))
                    full = model.trace(sentence)
                    words = full.tokens["dec"]
                    rows = [model.trace(" ".join(words[: i + 1]))["probs"][-1] for i in range(len(words))]
            diffs = [float((full["probs"][i] - r).abs().max()) for i, r in enumerate(rows)]
            series.append({"arm": arm, "seed": seed, "values": diffs})
            worst.append(max(diffs))
            yield Progress("teacher-forcing", arm, seed, 0, 1, worst[-1])
        summary[arm] = {"max_difference": worst}
    causal, free = (max(v["max_difference"]) for v in summary.values())
    return {
        "settings": dict(models="seeded random decoders, d_model 16, 2 layers: post/pre-LN × sinusoidal/RoPE",
                         sentence="one lm_sentences sentence per seed", dtype="float32"),
        "x": {"label": "position", "values": None},
        "series": series, "summary": summary,
        **_verdicts(
            "with the causal mask one pass equals the token-by-token KV-cache steps to {causal:.1e} (largest "
            "|Δ probability|, {seeds} sentences); without it they differ by up to {free:.2f}",
            "有因果掩码时，一次前向与逐个词元的 KV 缓存步骤相差至多 {causal:.1e}（最大 |Δ 概率|，{seeds} 个句子）；"
            "没有掩码时相差可达 {free:.2f}",
            causal=causal, seeds=seeds, free=free,
        ),
    }


@dataclass(frozen=True)
class Experiment:
    fn: Callable[[int, int | None], Generator]
    claim: str  # the tutorials' claim it tests
    seeds: int  # default number of seeds
    steps: int | None  # default training steps; None: it does not train
    measures: str = "loss"  # what its curves' y axis shows (a LABELS_ZH key)


EXPERIMENTS = {
    "gradient-highway": Experiment(gradient_highway, "the residual connection carries the gradient to the first "
                                   "layers", 5, None, "gradient norm at the layer's input"),
    "post-vs-pre-ln": Experiment(post_vs_pre_ln, "post-LN is unstable in deep stacks and needs warm-up; pre-LN "
                                 "trains stably", 3, 120),
    "no-layernorm": Experiment(no_layernorm, "without LayerNorm the loss curve is a roller coaster", 3, 120),
    "scale-saturation": Experiment(scale_saturation, "dividing by √d_k keeps the softmax out of saturation", 5, None,
                                   "softmax gradient p(1−p)"),
    "teacher-forcing": Experiment(teacher_forcing, "one masked pass gives every position's prediction, as N "
                                  "incremental steps would", 5, None, "largest difference in p"),
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
    return {"experiment": name, "claim": claim, "seeds": seeds, **result,
            "seconds": round(time.monotonic() - start, 2), "cpu_seconds": round(time.process_time() - cpu, 2)}


def run_experiment(name: str, seeds: int | None = None, steps: int | None = None,
                   on_progress: Callable[[Progress], None] | None = None) -> dict:
    """Run an experiment to the end (calling on_progress at every step); returns the result."""
    run = experiment(name, seeds, steps)
    while True:
        try:
            progress = next(run)
        except StopIteration as done:
            return done.value
        if on_progress is not None:
            on_progress(progress)
