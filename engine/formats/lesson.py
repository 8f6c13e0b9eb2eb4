"""A lesson: a model (config, weights, vocabularies), its sentences, the stage the stepper stands on and the
language, with a title and a short description in English and Chinese.

Shipped lessons are JSON files in assets/lessons/ whose hand-set weights are written out as nested lists
(every other weight is the config's seeded one). A teacher's lesson is one `.stepformer` file: a zip of
lesson.json, weights.safetensors and, when stages were edited, overrides.safetensors (see lessonfile.py).
Opening checks everything and either returns a complete, traceable Lesson or raises one EngineError.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import NamedTuple

import torch
from safetensors.torch import save as tensors_to_bytes

from ..assets import ASSETS_DIR
from ..config import ModelConfig
from ..errors import EngineError
from ..model import Model
from ..params import init_params
from ..tokenizer import Vocab
from ..trace import Trace
from ..training.lab import EXPERIMENTS
from .files import write_atomic
from .lessonfile import LESSON_JSON, OVERRIDES, WEIGHTS, archive_bytes, read_archive
from .reading import check_text, decode_text, parse_json
from .weights import check_params, check_tensor, stored_vocab, tensors_from_bytes

FORMAT = "stepformer.lesson"
VERSION = 1
LANGS = ("en", "zh")
LESSONS_DIR = ASSETS_DIR / "lessons"
_FIELDS = ("format", "version", "title", "description", "config", "vocabularies", "text", "target", "stage", "lang")
_OPTIONAL = ("views", "lab", "show")  # absent in older files
# The window's views (docks) a lesson may open with it, by name: plain data. The GUI declares its docks in
# gui/docks/registry.py (tests/test_dock_registry.py checks these are its lesson-openable keys, in its order); a dock
# registered there later is added here (set_views).
VIEWS = ("heads", "overview", "whatif", "generation", "kv_cache", "cost", "lab", "neuron", "lens", "modernise")
# What a lesson opens on, so its point is on screen: the head, the query row (a token index, or "last" for the
# sentence's last token) and the decimals the matrices and plots show (the seeds' 0.452 and −0.447 need three).
SHOW_KEYS = ("head", "row", "decimals")
MAX_DECIMALS = 4

Tensors = dict[str, torch.Tensor]


def _texts() -> dict[str, str]:
    return {lang: "" for lang in LANGS}


@dataclass
class Lesson:
    config: ModelConfig
    text: str
    target: str = ""  # the decoder's sentence of an encoder-decoder model
    params: Tensors | None = None  # None: the config's seeded weights
    vocabularies: dict[str, list[str]] | None = None  # stack → tokens, <unk> <start> <end> first; None: config's
    overrides: Tensors = field(default_factory=dict)  # stage name → a tensor a teacher pinned by editing it
    stage: str | None = None  # where the stepper stands
    lang: str = "en"
    title: dict[str, str] = field(default_factory=_texts)  # {"en": …, "zh": …}
    description: dict[str, str] = field(default_factory=_texts)
    views: tuple[str, ...] = ()  # names from VIEWS: the docks the window shows when the lesson opens
    lab: str | None = None  # the training lab's experiment (engine/training/lab.py) the lesson opens the lab on
    show: dict = field(default_factory=dict)  # SHOW_KEYS: the head, row and decimals the lesson opens on

    @property
    def switches(self) -> tuple[str, ...]:
        """The config's "what if" switches (e.g. no_scale); they travel inside the config."""
        return self.config.switches

    def build_model(self) -> Model:
        """A model with this lesson's config, vocabularies and weights (each weight checked)."""
        vocabs = {
            s: stored_vocab(self.config, s, (self.vocabularies or {}).get(s), "lesson") for s in self.config.stacks
        }
        if self.params is None:
            params = init_params(self.config, vocabs)
        else:
            params = check_params(self.config, vocabs, self.params, "the lesson")
        return Model(self.config, params, vocabs)

    def trace(self) -> Trace:
        """The lesson's trace: its model on its sentences, with its edited stages pinned."""
        trace = self.build_model().trace(self.text, self.target or None)
        for name, tensor in self.overrides.items():
            if trace.stage(name) is None:
                raise EngineError(f"lesson: {name!r} is not a stage of this model, so it cannot be pinned")
            trace.set_override(name, check_tensor(name, tensor, tuple(trace.values[name].shape)))
        return trace

    def validate(self) -> Trace:
        """Check every part; return the lesson's trace. Raises EngineError naming the first problem."""
        for key in ("title", "description"):
            _check_texts(getattr(self, key), key)
        if self.lang not in LANGS:
            raise EngineError(f"lesson: language {self.lang!r} is not one of {', '.join(LANGS)}")
        check_views(self.views, "lesson")
        check_lab(self.lab, self.views, "lesson")
        check_show(self.show, self.config, "lesson")
        if not isinstance(self.text, str) or not isinstance(self.target, str):
            raise EngineError("lesson: the sentences must be text")
        trace = self.trace()
        if self.stage is not None and self.stage not in trace.stage_names:
            raise EngineError(f"lesson: the current stage {self.stage!r} is not a stage of this model")
        return trace

    @classmethod
    def from_model(
        cls,
        model: Model,
        text: str,
        target: str = "",
        stage: str | None = None,
        lang: str = "en",
        title: dict[str, str] | None = None,
        description: dict[str, str] | None = None,
        overrides: Tensors | None = None,
    ) -> Lesson:
        """A lesson holding copies of a model's weights and vocabularies (and of a trace's edited stages)."""
        return cls(
            config=model.config,
            text=text,
            target=target or "",
            params={k: v.clone() for k, v in model.params.items()},
            vocabularies={s: list(v.tokens) for s, v in model.vocabs.items()},
            overrides={k: v.clone() for k, v in (overrides or {}).items()},
            stage=stage,
            lang=lang,
            title=dict(title or _texts()),
            description=dict(description or _texts()),
        )


# ---- JSON ---------------------------------------------------------------------------------------


def set_views(names: tuple[str, ...]) -> None:
    """The names of the views a lesson may open from now on: the GUI's dock registry gives them."""
    global VIEWS
    VIEWS = tuple(names)


def check_views(views, label: str) -> tuple[str, ...]:
    """The names of the views a lesson opens, as a tuple; anything else is refused naming the views there are."""
    if not isinstance(views, (list, tuple)) or not all(isinstance(v, str) for v in views):
        raise EngineError(f'{label}: views must be a list of view names, e.g. ["cost"]')
    for view in views:
        if view not in VIEWS:
            raise EngineError(f"{label}: unknown view {view!r} in views; a lesson can open {', '.join(VIEWS)}")
    if len(set(views)) != len(views):
        raise EngineError(f"{label}: views names a view twice")
    return tuple(views)


def check_lab(lab, views: tuple[str, ...], label: str) -> str | None:
    """The experiment a lesson chooses in the training lab (None: none); it must be one of engine/training/lab.py's
    and the lesson must open the lab."""
    if lab is None:
        return None
    if lab not in EXPERIMENTS:
        raise EngineError(f"{label}: unknown experiment {lab!r} in lab; choose one of {', '.join(EXPERIMENTS)}")
    if "lab" not in views:
        raise EngineError(f'{label}: lab chooses an experiment, so views must open the lab: add "lab" to views')
    return lab


def check_show(show, config: ModelConfig, label: str) -> dict:
    """The head, row and decimals a lesson opens on ({} when it names none); anything else is refused."""
    if not isinstance(show, dict) or not set(show) <= set(SHOW_KEYS):
        raise EngineError(
            f'{label}: show must be an object with any of {", ".join(SHOW_KEYS)}, e.g. {{"row": 2, "decimals": 3}}'
        )
    head, row, decimals = show.get("head", 0), show.get("row", 0), show.get("decimals", 0)
    if type(head) is not int or not 0 <= head < config.n_heads:
        raise EngineError(f"{label}: show.head must be a head of the model, 0 to {config.n_heads - 1}")
    if row != "last" and (type(row) is not int or not 0 <= row < config.max_len):
        raise EngineError(f'{label}: show.row must be a token position (0 for the first) or "last"')
    if type(decimals) is not int or not 0 <= decimals <= MAX_DECIMALS:
        raise EngineError(f"{label}: show.decimals must be a whole number from 0 to {MAX_DECIMALS}")
    return dict(show)


def shown_on(show: dict, trace: Trace) -> tuple[int, int, int | None]:
    """(head, row, decimals) that a lesson's `show` names on a trace of its model, as the window, `export` and
    `deck` open on them: row "last" is the last token of the sentence the output rows belong to (the decoder's,
    when there is one), a row past the sentence (another --text) its last token; decimals None where it names none."""
    last = len(trace.tokens["dec" if "dec" in trace.config.stacks else "enc"]) - 1
    row = show.get("row", 0)
    return show.get("head", 0), last if row == "last" else min(row, last), show.get("decimals")


def _check_texts(texts, key: str) -> None:
    if not isinstance(texts, dict) or set(texts) != set(LANGS) or not all(isinstance(t, str) for t in texts.values()):
        raise EngineError(f'lesson: {key} must give a text for each language, e.g. {{"en": "…", "zh": "…"}}')
    for lang, text in texts.items():
        check_text(text, f"lesson: the {lang} {key}")


def _lesson_json(lesson: Lesson, vocabularies: dict[str, list[str]]) -> dict:
    return {
        "format": FORMAT,
        "version": VERSION,
        "title": lesson.title,
        "description": lesson.description,
        "config": lesson.config.to_dict(),
        "vocabularies": vocabularies,
        "text": lesson.text,
        "target": lesson.target,
        "stage": lesson.stage,
        "lang": lesson.lang,
        **({"views": list(lesson.views)} if lesson.views else {}),  # files without views open in older versions
        **({"lab": lesson.lab} if lesson.lab else {}),
        **({"show": dict(lesson.show)} if lesson.show else {}),
    }


def _parse_json(raw: bytes, label: str) -> dict:
    data = parse_json(decode_text(raw, label), label)
    if not isinstance(data, dict):
        raise EngineError(f"{label} must be a JSON object")
    if data.get("format") != FORMAT:
        raise EngineError(f"{label} is not a Stepformer lesson (its format is not {FORMAT!r})")
    version = data.get("version")
    if type(version) is not int or version != VERSION:  # not `true` nor `1.0`, which Python takes for 1
        raise EngineError(
            f"{label} has format version {json.dumps(version, ensure_ascii=False)}; this Stepformer reads {VERSION}"
        )
    return data


def _parse_vocabularies(value, config: ModelConfig, label: str) -> dict[str, list[str]]:
    if not isinstance(value, dict) or set(value) != set(config.stacks):
        raise EngineError(f"{label}: vocabularies must list the tokens of each stack: {', '.join(config.stacks)}")
    for stack, tokens in value.items():
        if not isinstance(tokens, list) or not all(isinstance(t, str) and t and not t.isspace() for t in tokens):
            raise EngineError(f"{label}: the {stack} vocabulary must be a list of token strings")
    return value


def _lesson_from_json(
    data: dict, params: Tensors | None, overrides: Tensors, label: str, extra: tuple[str, ...] = ()
) -> Lesson:
    unknown = sorted(set(data) - set(_FIELDS) - set(_OPTIONAL) - set(extra))
    if unknown:
        raise EngineError(f"{label}: unknown field {unknown[0]!r}")
    missing = [k for k in _FIELDS if k not in data]
    if missing:
        raise EngineError(f"{label}: missing field {missing[0]!r}")
    try:
        config = ModelConfig.from_dict(data["config"])
    except (EngineError, TypeError) as exc:
        raise EngineError(f"{label}: {exc}") from None
    stage = data["stage"]
    if stage is not None and not isinstance(stage, str):
        raise EngineError(f"{label}: stage must be a stage name or null")
    return Lesson(
        config=config,
        text=data["text"],
        target=data["target"],
        params=params,
        vocabularies=_parse_vocabularies(data["vocabularies"], config, label),
        overrides=overrides,
        stage=stage,
        lang=data["lang"],
        title=data["title"],
        description=data["description"],
        views=check_views(data.get("views", []), label),
        lab=check_lab(data.get("lab"), tuple(data.get("views", [])), label),
        show=check_show(data.get("show", {}), config, label),
    )


# ---- files --------------------------------------------------------------------------------------


def save_lesson(lesson: Lesson, path: str | Path, check: bool = True) -> None:
    """Write a `.stepformer` file atomically (the old file stays whole until the new one is complete).

    The lesson is first checked by tracing it, so a file that would not open again is never written.
    check=False skips that for a lesson made by Lesson.from_model from a live model (the autosave after
    every edit, where re-tracing a large model would cost more than writing it).
    """
    if check or lesson.params is None or lesson.vocabularies is None:
        model = lesson.validate().model
        params, vocabularies = model.params, {s: v.tokens for s, v in model.vocabs.items()}
    else:
        params, vocabularies = lesson.params, lesson.vocabularies
    members = {
        LESSON_JSON: json.dumps(_lesson_json(lesson, vocabularies), ensure_ascii=False, indent=1).encode("utf-8"),
        WEIGHTS: tensors_to_bytes({k: v.contiguous() for k, v in params.items()}),
    }
    if lesson.overrides:
        members[OVERRIDES] = tensors_to_bytes({k: v.contiguous() for k, v in lesson.overrides.items()})
    write_atomic(path, archive_bytes(members))


def _open_archive(path: Path) -> Lesson:
    members = read_archive(path)
    label = f"lesson {path.name}: {LESSON_JSON}"
    data = _parse_json(members[LESSON_JSON], label)
    params = tensors_from_bytes(members[WEIGHTS], f"{path.name}/{WEIGHTS}")
    overrides = tensors_from_bytes(members[OVERRIDES], f"{path.name}/{OVERRIDES}") if OVERRIDES in members else {}
    return _lesson_from_json(data, params, overrides, label)


class LessonInfo(NamedTuple):
    name: str  # what open_lesson takes, e.g. "i-love-ai"
    title: dict[str, str]
    description: dict[str, str]


def _shipped_files(folder: Path | None = None) -> dict[str, Path]:
    """Shipped lesson files by name, in teaching order ("01-i-love-ai.json" is named "i-love-ai")."""
    return {p.stem.split("-", 1)[1]: p for p in sorted((folder or LESSONS_DIR).glob("[0-9][0-9]-*.json"))}


def _open_shipped(path: Path) -> Lesson:
    label = f"shipped lesson {path.name}"
    data = _parse_json(path.read_bytes(), label)
    config = ModelConfig.from_dict(data.get("config"))
    vocabs = {
        s: Vocab(t, free=config.vocab_for(s) is None)
        for s, t in _parse_vocabularies(data.get("vocabularies"), config, label).items()
    }
    params = init_params(config, vocabs)  # seeded weights, then the hand-set ones on top
    hand_set = data.get("params", {})
    if not isinstance(hand_set, dict):
        raise EngineError(f"{label}: params must map parameter names to lists of numbers")
    for name, rows in hand_set.items():
        try:
            params[name] = torch.tensor(rows, dtype=torch.float32)
        except (TypeError, ValueError, RuntimeError):
            raise EngineError(f"{label}: {name} must be a rectangular list of numbers") from None
    return _lesson_from_json(data, params, {}, label, extra=("params",))


def shipped_lessons() -> list[LessonInfo]:
    """The lessons that come with Stepformer, in teaching order."""
    return list(_shipped_infos(LESSONS_DIR))


@cache
def _shipped_infos(folder: Path) -> tuple[LessonInfo, ...]:
    """Read once per run (the window's menus list them, and a window is built anew for a new language)."""
    infos = []
    for name, path in _shipped_files(folder).items():
        data = _parse_json(path.read_bytes(), f"shipped lesson {path.name}")
        _check_texts(data.get("title"), "title")
        _check_texts(data.get("description"), "description")
        infos.append(LessonInfo(name, data["title"], data["description"]))
    return tuple(infos)


def open_lesson(name_or_path: str | Path) -> Lesson:
    """A shipped lesson by name, or a `.stepformer` file; every part is checked before it is returned."""
    shipped = _shipped_files()
    if str(name_or_path) in shipped:
        lesson = _open_shipped(shipped[str(name_or_path)])
    else:
        path = Path(name_or_path)
        if not path.exists() and path.suffix != ".stepformer":
            raise EngineError(
                f"no lesson named {str(name_or_path)!r}: give a .stepformer file or one of {', '.join(shipped)}"
            )
        lesson = _open_archive(path)
    lesson.validate()
    return lesson
