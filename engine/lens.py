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
the model would predict from each token's own embedding alone. A stage of the output head pinned to edited values
(an edited logits cell) was edited for the last stream: it stands in the last layer only, which stays `probs`.

logit_lens(trace, top=K) decodes every stream and keeps the K most probable tokens per position; a stream's whole
distribution is Lens.probs(layer), computed when asked (a large vocabulary times every layer would not fit: Qwen2.5's
151,936 tokens × 25 streams × 64 positions is nearly 1 GB in float32). A model without an output head (an encoder)
is refused in one line.
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


class Decoder:
    """The stages that turn the decoder's last block output into probs (the final norm where there is one, logits,
    probs, and any operation registered among them), with the tensors they read, as they were when made: an edit of
    the trace afterwards changes nothing here."""

    def __init__(self, trace: Trace):
        probs = find(trace.stages, "probs")
        if probs is None:
            raise EngineError(
                f"the logit lens needs a model with an output head (a decoder); this {trace.config.architecture} "
                "has none"
            )
        self.streams = block_outputs(trace.config, "dec")  # the stages decoded: the embeddings, each block's output
        names = [st.name for st in trace.stages]
        self.chain: list[Stage] = trace.stages[names.index(self.streams[-1]) + 1 : names.index(probs.name) + 1]
        made = {st.name for st in self.chain} | {self.streams[-1]}
        self.reads = {i: trace[i] for st in self.chain for i in st.inputs if i not in made}  # parameters (W_U, γ…)
        self.pinned = {st.name: trace.overrides[st.name] for st in self.chain if st.name in trace.overrides}
        self.stream_values = [trace[name] for name in self.streams]  # each [n, d]

    def probs(self, layer: int) -> torch.Tensor:
        """Stream `layer` (0: the embeddings, i + 1: block i's output) decoded → probabilities [n, vocab]."""
        last = layer in (-1, len(self.streams) - 1)
        values = {self.streams[-1]: self.stream_values[layer], **self.reads}
        for st in self.chain:
            pinned = self.pinned.get(st.name) if last else None
            values[st.name] = pinned if pinned is not None else st.fn(*[values[i] for i in st.inputs])
        return values[self.chain[-1].name]


@dataclass(frozen=True)
class Lens:
    tokens: list[str]  # the decoder's tokens: position i predicts the token after tokens[i]
    layers: list[LensLayer]  # the embeddings, then each block's output
    vocab: list[str]  # the output vocabulary: column j of a distribution is vocab[j]
    decoder: Decoder

    def probs(self, layer: int) -> torch.Tensor:
        """The whole next-token distribution of one layer (an index of `layers`, −1 the last) → [n, vocab]."""
        return self.decoder.probs(layer)

    def to_json(self) -> dict:
        """{"tokens": [...], "layers": [{"after": NAME, "top": [[[token, p], …] per position]}, …]}"""
        return {
            "tokens": self.tokens,
            "layers": [
                {"after": layer.after, "top": [[[token, p] for token, p in row] for row in layer.top]}
                for layer in self.layers
            ],
        }


def logit_lens(trace: Trace, top: int = DEFAULT_TOP) -> Lens:
    """Every stream of the decoder decoded into next-token probabilities (module docstring), with the `top` most
    probable tokens per position."""
    if top < 1:
        raise EngineError(f"top must be a whole number ≥ 1; got {top}")
    decoder = Decoder(trace)
    vocab = list(trace.model.vocabs["dec"].tokens)
    layers = []
    for layer, name in enumerate(decoder.streams):
        probs = decoder.probs(layer)  # [n, vocab], one layer at a time
        best_p, best_id = torch.topk(probs, min(top, probs.shape[-1]), dim=-1)  # [n, k]
        top_tokens = [[(vocab[int(i)], float(p)) for p, i in zip(ps, ids)] for ps, ids in zip(best_p, best_id)]
        layers.append(LensLayer(name, None if layer == 0 else layer - 1, top_tokens))
    return Lens(list(trace.tokens["dec"]), layers, vocab, decoder)
