"""Save and load a model's weights as safetensors (never pickle), checking every name and shape."""

from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_bytes
from safetensors.torch import load_file
from safetensors.torch import save as tensors_to_bytes

from .config import ModelConfig
from .errors import EngineError
from .files import write_atomic
from .model import MAX_ABS_VALUE, Model
from .params import param_shapes
from .tokenizer import Vocab

_VOCAB_KEY = "stepformer.{}_vocab"


def save_weights(model: Model, path: str | Path) -> None:
    """Write the weights, vocabularies and config as one safetensors file (atomically, see files.py)."""
    meta = {_VOCAB_KEY.format(s): json.dumps(v.tokens, ensure_ascii=False) for s, v in model.vocabs.items()}
    meta["stepformer.config"] = model.config.to_json()
    write_atomic(path, tensors_to_bytes({k: v.contiguous() for k, v in model.params.items()}, metadata=meta))


def _read_metadata(path: Path) -> dict[str, str]:
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as f:
        return f.metadata() or {}


def _vocabs(config: ModelConfig, meta: dict[str, str], path: Path) -> dict[str, Vocab]:
    vocabs = {}
    for s in config.stacks:
        free = config.vocab_for(s) is None
        stored = meta.get(_VOCAB_KEY.format(s))
        if stored is not None:
            try:
                tokens = json.loads(stored)
            except json.JSONDecodeError:
                raise EngineError(f"weights: {path.name} has a damaged {s} vocabulary") from None
            if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
                raise EngineError(f"weights: {path.name} has a damaged {s} vocabulary")
            _check_unique(tokens, f"weights: {path.name}: the {s} vocabulary")
            vocabs[s] = Vocab(tokens, free=free)
        elif not free:
            vocabs[s] = Vocab(config.vocab_for(s), free=False)
        else:
            raise EngineError(
                f"weights: {path.name} carries no {s} vocabulary and the config names none; "
                f"add {s}_vocab to the config"
            )
    return vocabs


def _check_unique(tokens: list[str], label: str) -> None:
    """Refuse a vocabulary that lists a token twice: two rows would share one id and it could never be saved."""
    seen = set()
    for token in tokens:
        if token in seen:
            raise EngineError(f"{label} lists the token {token!r} twice; list each token once")
        seen.add(token)


def load_weights(config: ModelConfig, path: str | Path) -> Model:
    """A model with the weights of a safetensors file; any mismatch is named exactly."""
    path = Path(path)
    if not path.is_file():
        raise EngineError(f"weights: no file {path}")
    try:
        tensors = load_file(str(path))
        meta = _read_metadata(path)
    except (SafetensorError, OSError, ValueError, RuntimeError) as exc:
        raise EngineError(f"weights: {path.name} is not a readable safetensors file ({exc})") from None
    vocabs = _vocabs(config, meta, path)
    return Model(config, check_params(config, vocabs, tensors, path.name), vocabs)


def tensors_from_bytes(data: bytes, source: str) -> dict[str, torch.Tensor]:
    """The tensors of safetensors bytes (e.g. a member of a lesson archive); never unpickles."""
    try:
        return load_bytes(data)
    except (SafetensorError, OSError, ValueError, RuntimeError) as exc:
        raise EngineError(f"weights: {source} is not a readable safetensors file ({exc})") from None


def check_tensor(name: str, t: torch.Tensor, shape: tuple[int, ...]) -> torch.Tensor:
    """One float32 tensor of the given shape with finite values of sensible size, or a clear refusal."""
    if not t.is_floating_point():
        raise EngineError(f"weights: {name} has dtype {t.dtype}; expected floating point numbers")
    if tuple(t.shape) != shape:
        raise EngineError(f"weights: {name} has shape {list(t.shape)}; expected {list(shape)}")
    if not torch.isfinite(t).all():
        raise EngineError(f"weights: {name} contains NaN or infinity")
    if t.numel() and t.abs().max() > MAX_ABS_VALUE:
        raise EngineError(f"weights: {name} has values beyond ±{MAX_ABS_VALUE:g}")
    return t.to(torch.float32)


def check_params(config: ModelConfig, vocabs: dict[str, Vocab], tensors: dict[str, torch.Tensor],
                 source: str) -> dict[str, torch.Tensor]:
    """Exactly the parameters `config` needs, each checked by check_tensor; `source` names the file."""
    expected = param_shapes(config, {s: len(v) for s, v in vocabs.items()})
    missing = [n for n in expected if n not in tensors]
    extra = sorted(n for n in tensors if n not in expected)
    if missing:
        more = f" (and {len(missing) - 3} more)" if len(missing) > 3 else ""
        raise EngineError(f"weights: {source} lacks {', '.join(missing[:3])}{more}")
    if extra:
        raise EngineError(f"weights: {source} has {extra[0]}, which this config does not use")
    return {name: check_tensor(name, tensors[name], shape) for name, shape in expected.items()}
