"""A model: config, vocabularies and weights; it turns sentences into a Trace."""

from __future__ import annotations

import torch

from .budget import check_trace
from .config import ModelConfig
from .errors import EngineError
from .formats.reading import check_text
from .params import Params, grow_vocab, init_params, param_shapes
from .tokenizer import START, Vocab, tokenize
from .trace import Trace


class Model:
    def __init__(self, config: ModelConfig, params: Params, vocabs: dict[str, Vocab], tokenizer=None):
        self.config = config
        self.params = params
        self.vocabs = vocabs
        self.tokenizer = tokenizer  # a checkpoint's subword tokenizer (engine/formats/hf_tokenizers.py); None: words

    @classmethod
    def create(cls, config: ModelConfig) -> Model:
        """A model with seeded random weights."""
        vocabs = {s: Vocab(config.vocab_for(s) or [], free=config.vocab_for(s) is None) for s in config.stacks}
        return cls(config, init_params(config, vocabs), vocabs)

    def with_config(self, config: ModelConfig) -> Model:
        """The same weights and vocabularies under another config (e.g. other switches); the parameters
        must keep their names and shapes. Tensors are shared: edits replace them, never mutate them."""
        sizes = {s: len(v) for s, v in self.vocabs.items()}
        same_vocabs = all(config.vocab_for(s) == self.config.vocab_for(s) for s in self.config.stacks)
        if config.stacks != self.config.stacks or not same_vocabs or param_shapes(config, sizes) != self.param_shapes():
            raise EngineError(
                "this change needs other weights (architecture, sizes, vocabularies, learned positions or "
                "SwiGLU); create a new model instead"
            )
        vocabs = {s: v.copy() for s, v in self.vocabs.items()}
        return Model(config, dict(self.params), vocabs, self.tokenizer)

    def param_shapes(self) -> dict[str, tuple[int, ...]]:
        return param_shapes(self.config, {s: len(v) for s, v in self.vocabs.items()})

    def encode(self, stack: str, text: str) -> tuple[list[str], torch.Tensor]:
        """Tokens and ids of `text` for one stack; a free vocabulary grows for new words."""
        tokens, ids = self.encode_all({stack: text})
        return tokens[stack], ids[stack]

    def encode_all(self, texts: dict[str, str], budget: bool = False
                   ) -> tuple[dict[str, list[str]], dict[str, torch.Tensor]]:
        """Tokens and ids of each stack's sentence. Every sentence is checked (and, with `budget`, the memory and
        time of tracing them) before any free vocabulary grows: a refused sentence (empty, too long, too big)
        changes nothing, not even the other stack's words."""
        pieces = {stack: self._tokens(stack, text) for stack, text in texts.items()}
        tokens = {stack: p[0] for stack, p in pieces.items()}
        if budget:
            sizes = {s: len(v) for s, v in self.vocabs.items()}
            for stack, (words, given_ids) in pieces.items():
                sizes[stack] += 0 if given_ids is not None else len(self.vocabs[stack].new_words(words))
            check_trace(self.config, {s: len(t) for s, t in tokens.items()}, sizes)
        return tokens, {stack: self._ids(stack, *p) for stack, p in pieces.items()}

    def _tokens(self, stack: str, text: str) -> tuple[list[str], list[int] | None]:
        """A sentence's tokens (and a checkpoint tokenizer's ids), or EngineError when it cannot be run."""
        check_text(text, "the sentence")
        ids = None
        if self.tokenizer is not None:  # a checkpoint's own tokenizer, with its own special tokens
            tokens, ids = self.tokenizer.encode(text) if text.strip() else ([], [])
        else:
            tokens = tokenize(text)
            if stack == "dec" and (not tokens or tokens[0] != START):
                tokens.insert(0, START)
        if not tokens:
            raise EngineError("the sentence is empty: type a few words, separated by spaces")
        limit = self.config.max_len
        if len(tokens) > limit:
            raise EngineError(
                f"the sentence has {len(tokens)} tokens; this model takes at most {limit} (max_len)"
            )
        return tokens, ids

    def _ids(self, stack: str, tokens: list[str], ids: list[int] | None) -> torch.Tensor:
        """Token ids, growing a free vocabulary (and its weights) for new words."""
        if ids is not None:
            return torch.tensor(ids, dtype=torch.long)
        vocab = self.vocabs[stack]
        grow_vocab(self.config, self.params, stack, vocab, vocab.new_words(tokens))
        return torch.tensor([vocab.id_of(t) for t in tokens], dtype=torch.long)

    def trace(self, text: str, target: str | None = None) -> Trace:
        """Run the model on a sentence (and a target for an encoder-decoder model)."""
        cfg = self.config
        if cfg.architecture != "encoder-decoder" and target:
            raise EngineError(f"a target sentence is only used by encoder-decoder models, not {cfg.architecture}")
        texts = {"encoder": {"enc": text}, "decoder": {"dec": text},
                 "encoder-decoder": {"enc": text, "dec": target or ""}}[cfg.architecture]
        tokens, ids = self.encode_all(texts, budget=True)
        return Trace(self, tokens, ids)
