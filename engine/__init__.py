"""Stepformer's engine: pure torch, no Qt. Config → Model → Trace of named stages."""

from .config import ModelConfig
from .errors import EngineError
from .graph import Stage, stack_output
from .model import Model, check_value
from .tokenizer import Vocab, tokenize
from .trace import Trace

__all__ = [
    "EngineError", "Model", "ModelConfig", "Stage", "Trace", "Vocab", "check_value", "stack_output", "tokenize",
]
