"""Stepformer's engine: pure torch, no Qt. Config → Model → Trace of named stages.

The names below load on first use (PEP 562), so `import engine.assets` or `engine.errors` does not import torch:
the window's first frame needs the assets' folder long before it needs torch (gui/window/loading.py).
"""

from importlib import import_module

_WHERE = {
    "EngineError": "errors", "Model": "model", "ModelConfig": "config", "Stage": "graph", "Trace": "trace",
    "Vocab": "tokenizer", "check_value": "formats.reading", "stack_output": "graph", "tokenize": "tokenizer",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    return getattr(import_module(f".{_WHERE[name]}", __name__), name)
