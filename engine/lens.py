"""The logit lens (nostalgebraist; TransformerLens): the decoder's residual stream after each block, decoded into
next-token probabilities as if the model stopped there.

The streams are graph.block_outputs: the input of block 0 (the embeddings, after BERT's embedding LayerNorm where
the model has one) and the output of every block. Each is decoded by the very stages that turn the last block's
output into `probs` (their own functions and parameters), with that stream in place of the last block's output:

- pre-LN models (GPT-2, Llama): the stack's final LayerNorm, then the unembedding and the softmax. The stream
  between blocks is not normalised in a pre-LN model, so the final norm (with its learned γ and β) is applied to
  each stream, as the model itself does to the last one and as the logit lens does in TransformerLens.
- post-LN models (the original Transformer, BERT): a block ends with its own LayerNorm, so every stream is already
  normalised; it goes straight into the unembedding and the softmax, as the last block's output does. No norm is
  added that the model does not have. (The embeddings of a post-LN model without an embedding LayerNorm are not
  normalised; they are decoded as they are, the way the model would decode a stream at that point.)

So the last layer of the lens is the model's own `probs`, exactly. The first row ("after" the embeddings) is what
the model would predict from each token's own embedding alone.

logit_lens(trace, top=K) decodes every stream; a model without an output head (an encoder) is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from .errors import EngineError
from .graph import block_outputs, find

if TYPE_CHECKING:
    from .graph import Stage
    from .trace import Trace

DEFAULT_TOP = 5  # next tokens listed per position unless top= says otherwise


@dataclass(frozen=True)
class LensLayer:
    """One decoded stream: which stage it is, and the `top` next tokens with their probabilities per position."""

    after: str  # the stream's stage name: the embeddings (block None) or a block's output
    block: int | None  # None for the embeddings, else the block it is the output of
    top: list[list[tuple[str, float]]]  # per position: (token, probability), most probable first


@dataclass(frozen=True)
class Lens:
    tokens: list[str]  # the decoder's tokens: position i predicts the token after tokens[i]
    layers: list[LensLayer]  # the embeddings, then each block's output
    probs: torch.Tensor  # [layers, n, vocab]: every stream's whole next-token distribution
    vocab: list[str]  # the output vocabulary: column j of probs is vocab[j]

    def to_json(self) -> dict:
        """{"tokens": [...], "layers": [{"after": NAME, "top": [[[token, p], …] per position]}, …]}"""
        return {
            "tokens": self.tokens,
            "layers": [
                {"after": layer.after, "top": [[[token, p] for token, p in row] for row in layer.top]}
                for layer in self.layers
            ],
        }


def decoder(trace: Trace) -> list[Stage]:
    """The stages that turn the decoder's last block output into probs (final norm, logits, probs, and any
    operation registered after them); EngineError for a model without an output head."""
    probs = find(trace.stages, "probs")
    if probs is None:
        raise EngineError(
            f"the logit lens needs a model with an output head (a decoder); this {trace.config.architecture} has none"
        )
    last = block_outputs(trace.config, "dec")[-1]
    names = [st.name for st in trace.stages]
    return trace.stages[names.index(last) + 1 : names.index(probs.name) + 1]


def decode(trace: Trace, chain: list[Stage], stream: torch.Tensor) -> torch.Tensor:
    """Run `chain` (decoder()) with `stream` [n, d] in place of the last block's output → probabilities [n, vocab]."""
    last = block_outputs(trace.config, "dec")[-1]
    values = {last: stream}
    for st in chain:
        values[st.name] = st.fn(*[values[i] if i in values else trace[i] for i in st.inputs])
    return values[chain[-1].name]


def logit_lens(trace: Trace, top: int = DEFAULT_TOP) -> Lens:
    """Every stream of the decoder decoded into next-token probabilities (module docstring), with the `top` most
    probable tokens per position."""
    if top < 1:
        raise EngineError(f"top must be a whole number ≥ 1; got {top}")
    chain = decoder(trace)
    streams = block_outputs(trace.config, "dec")
    probs = torch.stack([decode(trace, chain, trace[name]) for name in streams])  # [layers, n, vocab]
    vocab = list(trace.model.vocabs["dec"].tokens)
    k = min(top, probs.shape[-1])
    best_p, best_id = torch.topk(probs, k, dim=-1)  # [layers, n, k]
    layers = [
        LensLayer(
            name,
            None if block == 0 else block - 1,
            [[(vocab[int(i)], float(p)) for p, i in zip(ps, ids)] for ps, ids in zip(best_p[block], best_id[block])],
        )
        for block, name in enumerate(streams)
    ]
    return Lens(list(trace.tokens["dec"]), layers, probs, vocab)
