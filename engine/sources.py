"""Every way of opening a model, shared by the window, its model picker and every command-line verb.

    a lesson         a shipped lesson's name or a .stepformer file (its edited stages, docks and language too)
    a config file    with a safetensors weights file, or seeded random weights
    a named model    toy (English→Chinese translator), lm (tiny Chinese language model), minilm
                     (all-MiniLM-L6-v2, when its package is installed), classroom or large (random weights)
    a folder         a Hugging Face BERT / GPT-2 checkpoint, or a model `python main.py train … --out` wrote

Each gives an Opened: the engine Model, the sentences and the stage it opens on, and a title and a
description in English and Chinese. The engine builds and runs every one of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from .config import ModelConfig
from .errors import EngineError
from .formats.checkpoints import available_checkpoints, family_name, open_checkpoint
from .formats.lesson import Lesson, open_lesson
from .formats.weights import check_tensor, load_weights
from .graph import attention, build_stages
from .model import Model
from .trace import Trace
from .training import trained
from .training.evaluate import greedy_decode

DEFAULT_LESSON = "two-heads"  # "I love AI" with d_model 4, two heads, one layer and hand-set weights
SIZES = {  # random weights: a size a class follows by eye, and a real model's size
    "classroom": dict(d_model=8, n_heads=2, d_ff=16, n_layers=2, decimals=1),
    "large": dict(d_model=384, n_heads=12, d_ff=1536, n_layers=6),
}
TRANSLATOR_EXAMPLE = "I love AI"
LM_PROMPT = "莉莉 渴了 , 所以"  # the next word should be 她: the pronoun agrees with 莉莉
CHECKPOINT_EXAMPLE = "The cat sat on the mat because it was tired."
DEFAULT_TARGET = "我 爱 AI"
MINILM = "all-MiniLM-L6-v2"


def _texts(en: str, zh: str) -> dict[str, str]:
    return {"en": en, "zh": zh}


@dataclass
class Opened:
    """A model and what it opens on."""

    model: Model
    text: str
    target: str = ""
    stage: str | None = None  # None: the first stage
    title: dict[str, str] = field(default_factory=lambda: _texts("", ""))
    description: dict[str, str] = field(default_factory=lambda: _texts("", ""))
    lesson: Lesson | None = None  # opened from a lesson: the window takes its docks and language from it
    translates: bool = False  # a trained translator: a new source sentence gets the model's own translation

    def trace(self) -> Trace:
        """The model on the sentences; a lesson on its own sentences keeps its edited stages."""
        if self.lesson is not None and (self.text, self.target) == (self.lesson.text, self.lesson.target):
            return self.lesson.trace()
        return self.model.trace(self.text, self.target or None)

    def with_sentences(self, text: str | None = None, target: str | None = None) -> Opened:
        """--text and --target in place of the model's own sentences. A target not given stays, except that a
        trained translator translates a new source sentence itself."""
        if text is None and target is None:
            return self
        new_text = self.text if text is None else text
        if target is None:
            target = " ".join(greedy_decode(self.model, new_text)) if self.translates else self.target
        return replace(self, text=new_text, target=target)


def open_source(lesson: str | None = None, config: str | None = None, weights: str | None = None,
                model: str | None = None) -> Opened:
    """What the command line's --lesson, --config [--weights] or --model chose (one of them; command_line.py
    checks the options); none of them: the default lesson."""
    if model is not None:
        return by_name(model)
    if config is not None:
        return from_config(config, weights)
    return from_lesson(lesson_to_open(lesson, config, model))


def lesson_to_open(lesson: str | None = None, config: str | None = None, model: str | None = None) -> str | None:
    """The lesson (a shipped lesson's name or a file) open_source opens for these options: --lesson's, else the
    default lesson; None when a model or a config was chosen."""
    return None if model is not None or config is not None else lesson or DEFAULT_LESSON


def from_lesson(name_or_path: str | Path) -> Opened:
    lesson = open_lesson(name_or_path)
    return Opened(lesson.build_model(), lesson.text, lesson.target, lesson.stage, lesson.title, lesson.description,
                  lesson=lesson)


def from_config(config_path: str | Path, weights_path: str | Path | None = None) -> Opened:
    """A config file's model with these weights (default: seeded random), on "I love AI" (and "我 爱 AI")."""
    config = ModelConfig.from_json_file(config_path)
    model = load_weights(config, weights_path) if weights_path else Model.create(config)
    return Opened(model, TRANSLATOR_EXAMPLE, DEFAULT_TARGET if config.architecture == "encoder-decoder" else "")


def _percent(x: float) -> str:
    return f"{100 * x:.1f} %"


def _attention_weights(cfg: ModelConfig, layer: int, part: str) -> str:
    """The name of a decoder layer's self_attn or cross_attn weights stage."""
    return attention(build_stages(cfg), stack="dec", block=layer, part=part).weights.name


def _translator(model: Model, title: dict[str, str], description: dict[str, str]) -> Opened:
    """"I love AI" and the model's own translation, at the last layer's cross-attention weights."""
    target = " ".join(greedy_decode(model, TRANSLATOR_EXAMPLE))
    stage = _attention_weights(model.config, model.config.n_layers - 1, "cross_attn")
    return Opened(model, TRANSLATOR_EXAMPLE, target, stage, title, description, translates=True)


def toy_translator() -> Opened:
    m = trained.shipped_metrics("toy")
    exact, align = _percent(m["exact_match"]), _percent(m["alignment_rate"])
    return _translator(trained.load("toy"), _texts("English→Chinese toy translator", "英译中玩具翻译模型"), _texts(
        f"Trained by Stepformer's own engine. On {m['sentences']} held-out sentences: {exact} translated exactly; "
        f"cross-attention finds the aligned English word {align} of the time. Each decoder row is labelled "
        "with the word it predicts (<start> → 我).",
        f"由 Stepformer 自己的引擎训练。在 {m['sentences']} 个留出句子上：{exact} 完全译对；交叉注意力 {align} "
        "的情况下落在对齐的英文词上。解码器的每一行标注它要预测的词（<start> → 我）。"))


def tiny_lm() -> Opened:
    m = trained.shipped_metrics("lm")
    ppl, uni = f"{m['perplexity']:.2f}", f"{m['unigram_perplexity']:.1f}"
    title = _texts("Tiny Chinese language model", "中文小语言模型")
    description = _texts(
        f"Trained by Stepformer's own engine on short Chinese sentences; held-out perplexity {ppl} "
        f"(word frequencies alone: {uni}). After “{LM_PROMPT}” it should predict 她.",
        f"由 Stepformer 自己的引擎在中文短句上训练；留出困惑度 {ppl}（只看词频：{uni}）。"
        f"在“{LM_PROMPT}”之后它应当预测“她”。")
    return Opened(trained.load("lm"), LM_PROMPT, "", "probs", title, description)


def lab_model(progress, sentence: str, layer: int) -> Opened:
    """The model a training-lab experiment (engine/training/lab.py) is training, at the weights of this Progress's
    step, on the sentence the lab watches, at the self-attention weights of `layer`. A copy of its parameter dict:
    edits in the window never reach the lab, nor training the window. A run that diverged (a weight NaN, infinite
    or beyond what a lesson may hold) is refused: such a model could not be shown, edited or saved."""
    what, n = f"{progress.experiment}, {progress.arm}, seed {progress.seed}", progress.step + 1
    try:
        for name, tensor in progress.model.params.items():
            check_tensor(name, tensor, tuple(tensor.shape))
    except EngineError as exc:
        raise EngineError(
            f"the training lab's model ({what}) diverged by step {n}, so it cannot be stepped through ({exc}): "
            "run it again and pause it before its loss curve breaks off"
        ) from None
    model = Model(progress.model.config, dict(progress.model.params), progress.model.vocabs)
    title = _texts(f"Training lab: {what}, after step {n}", f"训练实验室：{what}，第 {n} 步之后")
    description = _texts(
        f"The model the training lab is training ({what}), with its weights after step {n} of {progress.steps}, "
        "on a held-out sentence of its corpus.",
        f"训练实验室正在训练的模型（{what}），取第 {n} 步（共 {progress.steps} 步）之后的权重，"
        "用它语料中的一个留出句子。")
    return Opened(model, sentence, "", _attention_weights(model.config, layer, "self_attn"), title, description)


def random_model(size: str, architecture: str, text: str, target: str = "") -> Opened:
    """Seeded random weights of a size in SIZES, on the teacher's sentences."""
    cfg = ModelConfig(architecture=architecture, **SIZES[size])
    if architecture == "encoder-decoder":
        target = target or DEFAULT_TARGET
    else:
        target = ""
    shape = f"d_model {cfg.d_model}, {cfg.n_heads} heads, {cfg.n_layers} layers"
    shape_zh = f"d_model {cfg.d_model}，{cfg.n_heads} 个头，{cfg.n_layers} 层"
    title = _texts(f"Random weights ({shape})", f"随机权重（{shape_zh}）")
    description = _texts("Seeded random weights: every step of the mechanics, without learnt meaning.",
                         "带种子的随机权重：每一步的计算都在，只是没有学到的含义。")
    return Opened(Model.create(cfg), text, target, None, title, description)


def checkpoint(folder: str | Path) -> Opened:
    """A folder: a Hugging Face BERT, GPT-2, Llama, Qwen2, Qwen3 or Mistral checkpoint (safetensors), or a model that
    `python main.py train … --out FOLDER` wrote (weights.safetensors)."""
    folder = Path(folder)
    if (folder / "weights.safetensors").is_file() and not (folder / "model.safetensors").is_file():
        model = trained.load(str(folder))
        title = _texts(folder.name, folder.name)
        if model.config.architecture == "encoder-decoder":
            return _translator(model, title, title)
        return Opened(model, LM_PROMPT if model.config.architecture == "decoder" else TRANSLATOR_EXAMPLE,
                      title=title, description=title)
    model = open_checkpoint(folder)
    cfg = model.config
    family = family_name(folder)
    title = _texts(f"{folder.name} ({family})", f"{folder.name}（{family}）")
    kv = (f" ({cfg.kv_heads} K/V heads)", f"（{cfg.kv_heads} 个 K/V 头）") if cfg.kv_heads < cfg.n_heads else ("", "")
    description = _texts(
        f"{family} checkpoint from {folder}: {cfg.n_layers} layers, d_model {cfg.d_model}, {cfg.n_heads} heads{kv[0]}, "
        f"{model.tokenizer.kind} tokens",
        f"{family} 检查点，来自 {folder}：{cfg.n_layers} 层，d_model {cfg.d_model}，{cfg.n_heads} 个头{kv[1]}，"
        f"{model.tokenizer.kind} 分词")
    return Opened(model, CHECKPOINT_EXAMPLE, title=title, description=description)


def minilm_entry():
    """all-MiniLM-L6-v2's Checkpoint entry (its folder is None when the package is not installed)."""
    return next(c for c in available_checkpoints() if c.name == MINILM)


def minilm() -> Opened:
    entry = minilm_entry()
    if entry.folder is None:
        raise EngineError(f"{entry.name} is not installed; install it with: {entry.how_to_get}")
    opened = checkpoint(entry.folder)
    opened.title = _texts(f"{entry.name} (BERT)", f"{entry.name}（BERT）")
    return opened


NAMED = {"toy": toy_translator, "lm": tiny_lm, "minilm": minilm,
         "classroom": lambda: random_model("classroom", "encoder", TRANSLATOR_EXAMPLE),
         "large": lambda: random_model("large", "encoder", TRANSLATOR_EXAMPLE)}


def by_name(name: str) -> Opened:
    """What `--model NAME` opens: toy, lm, minilm, classroom, large, or a folder."""
    if name in NAMED:
        return NAMED[name]()
    if not Path(name).is_dir():
        raise EngineError(f"no model named {name!r}: choose {', '.join(NAMED)} or give a checkpoint folder")
    return checkpoint(name)
