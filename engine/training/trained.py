"""The trained models Stepformer ships: how each is built (corpus, config, training settings), where it
lives in assets/models/, how it is loaded and how it is measured.

    toy  an English→Chinese translator (encoder-decoder)
    lm   a tiny Chinese language model (decoder)

`python main.py train toy` (or `lm`) writes the corpus, trains, and writes corpus.tsv, config.json,
weights.safetensors and metrics.json into the user's data folder, never into the shipped assets (an
installed wheel's package folder): that copy is the one `--model toy` opens from then on, until
`train toy --reset` removes it. Rebuild the shipped model itself with `--out assets/models/toy`.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ..assets import ASSETS_DIR
from ..config import ModelConfig
from ..errors import EngineError
from ..formats.files import write_atomic
from ..formats.recovery import data_dir
from ..formats.weights import load_weights, save_weights
from ..model import Model
from . import corpus
from .evaluate import perplexity, translation_metrics, unigram_perplexity
from .train import Settings, make_example, one_thread, train

MODELS_DIR = ASSETS_DIR / "models"  # the shipped models: read, never written by `train`
USER_MODELS = "models"  # in the user's data folder: the user's own trained copies
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
        architecture="encoder-decoder",
        d_model=32,
        n_heads=2,
        d_ff=64,
        n_layers=1,
        norm="post",
        activation="relu",
        positional="sinusoidal",
        max_len=24,
        enc_vocab=tuple(en),
        dec_vocab=tuple(zh),
    )
    lm = ModelConfig(
        architecture="decoder",
        d_model=32,
        n_heads=2,
        d_ff=64,
        n_layers=2,
        norm="post",
        activation="relu",
        positional="sinusoidal",
        max_len=24,
        dec_vocab=tuple(corpus.lm_vocab()),
    )
    return {
        "toy": Recipe(
            "toy",
            "English→Chinese toy translator",
            toy,
            Settings(epochs=20, batch_size=32, lr=3e-3),
            ("I eat rice today", "我 今天 吃 米饭"),
        ),
        "lm": Recipe(
            "lm",
            "Tiny Chinese language model",
            lm,
            Settings(epochs=40, batch_size=16, lr=3e-3),
            ("猫 吃了 鱼 , 因为 它 饿了 。", None),
        ),
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


def build(
    name: str,
    out: Path,
    corpus_file: Path | None = None,
    settings: Settings | None = None,
    seed: int | None = None,
    log: Callable[[str], None] = print,
) -> dict:
    """Train the recipe's model, then write corpus.tsv, config.json, weights.safetensors and metrics.json
    into `out`; the corpus is read from `corpus_file` when given, else made from the templates.
    `seed` replaces the recipe's seed of the initial weights and of the batch order. Bad input is
    refused before anything is written, and a run stopped on the way (Ctrl+C, an error) leaves `out` as it
    was: the files are written into a hidden folder beside it and moved into place only at the end."""
    r = recipe(name)
    settings = settings or r.settings
    config = r.config
    if seed is not None:
        config, settings = config.replace(seed=seed), replace(settings, seed=seed)
    train_items, test_items = template_corpus(name) if corpus_file is None else read_corpus(name, corpus_file)
    staging = _staging_folder(out)
    try:
        model = Model.create(config)
        log(
            f"{r.title}: {len(train_items)} training and {len(test_items)} held-out sentences, "
            f"{sum(p.numel() for p in model.params.values())} weights"
        )
        start = time.monotonic()
        train(model, examples(model, name, train_items), settings, log)
        seconds = time.monotonic() - start
        metrics = measure(model, name, train_items, test_items)
        metrics["train_seconds"] = round(seconds, 1)
        write_corpus(name, staging / "corpus.tsv", (train_items, test_items))
        write_atomic(staging / "config.json", (config.to_json() + "\n").encode("utf-8"))
        save_weights(model, staging / "weights.safetensors")
        write_atomic(staging / "metrics.json", (json.dumps(metrics, indent=2) + "\n").encode("utf-8"))
        _publish(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return metrics


def _staging_folder(out: Path) -> Path:
    """A new hidden folder beside `out` (made with its parents if missing) for the files being written."""
    if out.exists() and not out.is_dir():
        raise EngineError(f"cannot write to {out}: it is a file, not a folder")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = out.parent / f".{out.name}.{os.getpid()}.{secrets.token_hex(4)}.partial"
        staging.mkdir()  # the usual mode (a temporary folder's 0700 would stay with the model once moved)
        return staging
    except OSError as exc:
        raise EngineError(f"cannot write to {out}: {exc.strerror or exc}") from None


def _publish(staging: Path, out: Path) -> None:
    """Move the finished files into `out`: the whole folder at once when `out` is new, else file by file
    (each os.replace is atomic; other files already in `out` stay)."""
    try:
        if not out.exists():
            os.rename(staging, out)
            return
        for file in FILES:
            os.replace(staging / file, out / file)
    except OSError as exc:
        raise EngineError(f"cannot write to {out}: {exc.strerror or exc}") from None


def shipped_folder(name: str) -> Path:
    """The model as Stepformer ships it (read only: in an installed wheel this is its package folder)."""
    return MODELS_DIR / recipe(name).name


def user_models_dir() -> Path:
    """The folder of the user's own trained copies, in the user's data folder."""
    return data_dir() / USER_MODELS


def user_folder(name: str) -> Path:
    """Where `train NAME` writes without --out: the user's own copy, which `--model NAME` then opens."""
    return user_models_dir() / recipe(name).name


def folder(name: str) -> Path:
    """The folder `--model NAME` opens: the user's own trained copy when there is one, else the shipped model."""
    mine = user_folder(name)
    return mine if (mine / "config.json").is_file() else shipped_folder(name)


def reset(name: str) -> bool:
    """Remove the user's trained copy of the model (its four files, then the folder if nothing else is in it),
    so that `--model NAME` opens the shipped one again; False when there was none."""
    mine = user_folder(name)
    had = (mine / "config.json").is_file()
    try:
        for file in sorted(FILES, key=lambda f: f != "config.json"):  # first config.json: then it is no copy
            (mine / file).unlink(missing_ok=True)
        if mine.is_dir() and not any(mine.iterdir()):
            mine.rmdir()
    except OSError as exc:
        raise EngineError(f"cannot remove {mine}: {exc.strerror or exc}") from None
    return had


def load(name_or_folder: str) -> Model:
    """A model by name (toy, lm: the user's trained copy, else the shipped one), or any folder with config.json
    and weights.safetensors."""
    path = folder(name_or_folder) if name_or_folder in RECIPES else Path(name_or_folder)
    if not (path / "config.json").is_file():
        raise EngineError(f"no trained model at {path}: expected config.json and weights.safetensors there")
    return load_weights(ModelConfig.from_json_file(path / "config.json"), path / "weights.safetensors")


def shipped_metrics(name: str) -> dict:
    """The held-out numbers of the model `--model NAME` opens (the user's trained copy when there is one)."""
    return json.loads((folder(name) / "metrics.json").read_text(encoding="utf-8"))
