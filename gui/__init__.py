"""Stepformer's Qt window: shows the engine's results and sends edits back to it. No Transformer math here."""
