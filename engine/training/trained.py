"""The trained models Stepformer ships: how each is built (corpus, config, training settings), where it
lives in assets/models/, how it is loaded and how it is measured.

    toy  an English→Chinese translator (encoder-decoder)
    lm   a tiny Chinese language model (decoder)

Rebuild one with `python main.py train toy` (or `lm`): it writes the corpus, trains, and writes
config.json, weights.safetensors and metrics.json next to it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ..assets import ASSETS_DIR
from ..config import ModelConfig
from ..errors import EngineError
from ..formats.files import write_atomic
from ..formats.weights import load_weights, save_weights
from ..model import Model
from . import corpus
from .evaluate import perplexity, translation_metrics, unigram_perplexity
from .train import Settings, make_example, one_thread, train

MODELS_DIR = ASSETS_DIR / "models"
FILES = ("corpus.tsv", "config.json", "weights.safetensors", "metrics.json")


@dataclass(frozen=True)
class Recipe:
    name: str
    title: str
    config: ModelConfig
    settings: Settings
    example: tuple[str, str | None]  # a sentence (and target) to open the model on

    @property
    def translator(self) -> bool:
        return self.config.architecture == "encoder-decoder"


def _recipes() -> dict[str, Recipe]:
    en, zh = corpus.translation_vocabs()
    toy = ModelConfig(
        architecture="encoder-decoder", d_model=32, n_heads=2, d_ff=64, n_layers=1, norm="post",
        activation="relu", positional="sinusoidal", max_len=24, enc_vocab=tuple(en), dec_vocab=tuple(zh),
    )
    lm = ModelConfig(
        architecture="decoder", d_model=32, n_heads=2, d_ff=64, n_layers=2, norm="post",
        activation="relu", positional="sinusoidal", max_len=24, dec_vocab=tuple(corpus.lm_vocab()),
    )
    return {
        "toy": Recipe("toy", "English→Chinese toy translator", toy, Settings(epochs=20, batch_size=32, lr=3e-3),
                      ("I eat rice today", "我 今天 吃 米饭")),
        "lm": Recipe("lm", "Tiny Chinese language model", lm, Settings(epochs=40, batch_size=16, lr=3e-3),
                     ("猫 吃了 鱼 , 因为 它 饿了 。", None)),
    }


RECIPES = _recipes()


def recipe(name: str) -> Recipe:
    if name not in RECIPES:
        raise EngineError(f"no trained model named {name!r}; choose {' or '.join(RECIPES)}")
    return RECIPES[name]


def template_corpus(name: str) -> tuple[list, list]:
    """The training and held-out items the templates of engine/training/corpus.py write for the recipe."""
    return corpus.translation_pairs() if recipe(name).translator else corpus.lm_sentences()


def write_corpus(name: str, path: Path, items: tuple[list, list]) -> None:
    (corpus.write_pairs if recipe(name).translator else corpus.write_sentences)(path, *items)


def read_corpus(name: str, path: Path) -> tuple[list, list]:
    return corpus.read_pairs(path) if recipe(name).translator else corpus.read_sentences(path)


def examples(model: Model, name: str, items: list) -> list:
    if recipe(name).translator:
        return [make_example(model, " ".join(p.zh), " ".join(p.en)) for p in items]
    return [make_example(model, s) for s in items]


def measure(model: Model, name: str, train_items: list, test_items: list) -> dict:
    """The held-out numbers: exact match and alignment (translator), or perplexity vs unigram (LM)."""
    with one_thread():
        if recipe(name).translator:
            return translation_metrics(model, test_items)
        return {
            "sentences": len(test_items),
            "perplexity": perplexity(model, test_items),
            "unigram_perplexity": unigram_perplexity(train_items, test_items, list(model.config.dec_vocab)),
        }


def build(name: str, out: Path, corpus_file: Path | None = None, settings: Settings | None = None,
          seed: int | None = None, log: Callable[[str], None] = print) -> dict:
    """Train the recipe's model, then write corpus.tsv, config.json, weights.safetensors and metrics.json
    into `out`; the corpus is read from `corpus_file` when given, else made from the templates.
    `seed` replaces the recipe's seed of the initial weights and of the batch order. Bad input is
    refused before anything is written."""
    r = recipe(name)
    settings = settings or r.settings
    config = r.config
    if seed is not None:
        config, settings = config.replace(seed=seed), replace(settings, seed=seed)
    train_items, test_items = template_corpus(name) if corpus_file is None else read_corpus(name, corpus_file)
    _make_folder(out)
    model = Model.create(config)
    log(f"{r.title}: {len(train_items)} training and {len(test_items)} held-out sentences, "
        f"{sum(p.numel() for p in model.params.values())} weights")
    start = time.monotonic()
    train(model, examples(model, name, train_items), settings, log)
    seconds = time.monotonic() - start
    metrics = measure(model, name, train_items, test_items)
    metrics["train_seconds"] = round(seconds, 1)
    write_corpus(name, out / "corpus.tsv", (train_items, test_items))
    write_atomic(out / "config.json", (config.to_json() + "\n").encode("utf-8"))
    save_weights(model, out / "weights.safetensors")
    write_atomic(out / "metrics.json", (json.dumps(metrics, indent=2) + "\n").encode("utf-8"))
    return metrics


def _make_folder(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise EngineError(f"cannot write to {out}: {exc.strerror or exc}") from None


def folder(name: str) -> Path:
    return MODELS_DIR / recipe(name).name


def load(name_or_folder: str) -> Model:
    """A shipped model by name (toy, lm), or any folder with config.json and weights.safetensors."""
    path = folder(name_or_folder) if name_or_folder in RECIPES else Path(name_or_folder)
    if not (path / "config.json").is_file():
        raise EngineError(f"no trained model at {path}: expected config.json and weights.safetensors there")
    return load_weights(ModelConfig.from_json_file(path / "config.json"), path / "weights.safetensors")


def shipped_metrics(name: str) -> dict:
    return json.loads((folder(name) / "metrics.json").read_text(encoding="utf-8"))
