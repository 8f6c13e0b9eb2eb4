"""Decoder rows named by the word they predict, wherever cross-attention is shown.

Training teaches the decoder row that *predicts* a word to look at the source word it translates: the row
of <start> predicts 我 and so looks at "I". Labelling the rows "<start> → 我", "我 → 爱", … makes that
alignment read naturally. The last row predicts the end of the sentence (<end>), as in training.
"""

from __future__ import annotations

from engine.tokenizer import END


def predicting_rows(trace) -> list[str]:
    """ "token → next token" for each decoder row: what that row is trained to predict."""
    tokens = list(trace.tokens["dec"])
    return [f"{t} → {n}" for t, n in zip(tokens, tokens[1:] + [END])]


def row_labels(trace, name: str, labels: list[str]) -> list[str]:
    """The row labels of tensor `name`: `labels`, except for a cross-attention stage's decoder rows."""
    stage = trace.stage(name)
    if stage is not None and stage.rows == "dec" and stage.place.part == "cross_attn":
        return predicting_rows(trace)
    return labels
