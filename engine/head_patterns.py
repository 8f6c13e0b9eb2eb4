"""What each attention head does on the current sentence: a few measured numbers per head and, where one of them
dominates, a named pattern (Dodrio sorts and colours heads by such numbers).

For every attention of the model (self and cross, every stack, layer and head), with w = the head's attention
weights [n_q, n_k] and "visible" the keys its mask lets a query see (a causal decoder's query i sees keys 0…i):

- entropy:  mean over the query rows of −Σ_k w·ln w over the visible keys (natural log; 0·ln 0 = 0). 0 when every
            query looks at one key; ln(visible keys) when a row spreads evenly over what it may see.
- self:     mean over the queries of w[i, i], the attention a query gives to its own position (self-attention only;
            None for cross-attention, whose keys are another sentence's tokens).
- previous: mean over the queries 1…n−1 of w[i, i−1], the attention to the token just before (self-attention with
            n ≥ 2 only; None otherwise).
- first:    mean over the queries of w[i, 0], the attention to the first key ([CLS], <start>, the first word).
- last:     mean over the queries of w[i, n_k−1], the attention to the last key (BERT's [SEP]); a key a query may
            not see counts as 0, so in a causal decoder only the last query can give it anything.

The pattern (a key the GUI translates; None when nothing dominates):

- "previous", "first", "self" or "last": that share is the largest of the four and at least DOMINANT (0.5), i.e.
  on average the head gives that one key at least half of its attention (a tie goes to the earlier in PATTERNS:
  previous, first, self, last);
- "broad": no share dominates and the mean entropy is at least BROAD (0.9) × the mean of ln(visible keys), the
  entropy the rows would have if each spread evenly over the keys it may see;
- None: anything else (a head that mixes a few keys, or follows the content of the words).

head_patterns(trace) measures every head; METRICS names the numbers the overview can colour and sort by.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import torch

from .graph import Attention, attention

if TYPE_CHECKING:
    from .trace import Trace

DOMINANT = 0.5  # a mean share of attention to one key (self, previous, first, last) that names the pattern
BROAD = 0.9  # a mean entropy at least this fraction of the mean ln(visible keys) names the pattern "broad"
METRICS = ("entropy", "self", "previous", "first", "last")  # what the overview colours and sorts heads by
PATTERNS = ("previous", "first", "self", "last", "broad")  # the pattern keys; a tie goes to the earlier one
KINDS = {"self_attn": "self", "cross_attn": "cross"}  # an attention's part of the model → its kind


@dataclass(frozen=True)
class HeadPattern:
    """One head of one attention, measured on the current sentence (the module docstring defines each number)."""

    stage: str  # the attention's weights stage, e.g. "enc.3.attn.weights"
    layer: int  # the block, from 0
    head: int  # the head, from 0
    kind: str  # "self" or "cross"
    stack: str  # "enc" or "dec": the stack of the queries
    entropy: float
    self: float | None  # None for cross-attention
    previous: float | None  # None for cross-attention or a one-token sentence
    first: float
    last: float
    pattern: str | None  # one of PATTERNS, or None

    def metric(self, name: str) -> float | None:
        """The value of one of METRICS."""
        if name not in METRICS:
            raise ValueError(f"no head metric named {name!r}; metrics are: {', '.join(METRICS)}")
        return getattr(self, name)

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class AttentionAt:
    """One attention of the model and where it sits."""

    stack: str  # "enc" or "dec"
    layer: int
    kind: str  # "self" or "cross"
    stages: Attention  # its scores, scaled, masked, weights and z stages


def attentions(trace: Trace) -> list[AttentionAt]:
    """Every attention of the model in stepping order: each stack, each block, self- then cross-attention."""
    found = []
    for stack in trace.config.stacks:
        for layer in range(trace.config.n_layers):
            for part, kind in KINDS.items():
                stages = attention(trace.stages, stack=stack, block=layer, part=part)
                if stages is not None:
                    found.append(AttentionAt(stack, layer, kind, stages))
    return found


def head_patterns(trace: Trace) -> list[HeadPattern]:
    """Every head of every attention, measured on the trace's sentence, in stepping order and by head."""
    return [pattern for at in attentions(trace) for pattern in patterns_of(trace, at)]


def patterns_of(trace: Trace, at: AttentionAt) -> list[HeadPattern]:
    """The heads of one attention (to measure again only the attentions an edit changed)."""
    weights = trace[at.stages.weights.name]  # [h, n_q, n_k]
    visible = trace[at.stages.masked.name] != -math.inf  # [h, n_q, n_k]: the keys each query may see
    measured = measure(weights, visible, same_tokens=at.kind == "self")
    return [
        HeadPattern(at.stages.weights.name, at.layer, head, at.kind, at.stack, **numbers)
        for head, numbers in enumerate(measured)
    ]


def measure(weights: torch.Tensor, visible: torch.Tensor, same_tokens: bool) -> list[dict]:
    """Each head's numbers and pattern from its weights [h, n_q, n_k] and visible keys [h, n_q, n_k] (bool);
    `same_tokens`: queries and keys are the same sentence (self-attention), so self and previous exist."""
    w = weights.double() * visible  # a hidden key's weight counts as 0 (softmax already made it 0)
    n_q, n_k = w.shape[1], w.shape[2]
    entropy = -torch.special.xlogy(w, w).sum(-1).mean(-1)  # [h]: xlogy gives 0·ln 0 = 0
    even = torch.log(visible.sum(-1).clamp(min=1).double()).mean(-1)  # [h]: mean ln(visible keys)
    first = w[:, :, 0].mean(-1)
    last = w[:, :, n_k - 1].mean(-1)
    diagonal = w.diagonal(dim1=1, dim2=2)  # [h, min(n_q, n_k)]
    own = diagonal.mean(-1) if same_tokens else None
    before = w.diagonal(offset=-1, dim1=1, dim2=2).mean(-1) if same_tokens and n_q > 1 else None
    out = []
    for j in range(w.shape[0]):
        shares = {
            "previous": None if before is None else float(before[j]),
            "first": float(first[j]),
            "self": None if own is None else float(own[j]),
            "last": float(last[j]),
        }
        out.append(
            dict(
                entropy=float(entropy[j]),
                self=shares["self"],
                previous=shares["previous"],
                first=shares["first"],
                last=shares["last"],
                pattern=name_pattern(shares, float(entropy[j]), float(even[j])),
            )
        )
    return out


def name_pattern(shares: dict[str, float | None], entropy: float, even: float) -> str | None:
    """The pattern of a head from its shares (previous, first, self, last; None where it has none), its mean
    entropy and the mean ln(visible keys) `even` (module docstring)."""
    known = [(share, -PATTERNS.index(key), key) for key, share in shares.items() if share is not None]
    share, _, key = max(known)
    if share >= DOMINANT:
        return key
    if even > 0 and entropy >= BROAD * even - 1e-12 and not math.isnan(entropy):
        return "broad"
    return None
