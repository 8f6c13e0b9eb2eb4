"""The engine's own error: every refusal the engine makes is one of these."""


class EngineError(ValueError):
    """A clear, user-facing reason why the engine refused an input."""
