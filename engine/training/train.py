"""Train an engine model with torch autograd, through the very stage functions a class steps through.

The forward pass is the stage graph of engine/graph.py run in order, exactly as a Trace runs it for one
sentence. Sentences of equal lengths are batched with torch.func.vmap, which runs that per-sentence
code on many sentences at once without changing it (no padding, no masks of our own).
"""

from __future__ import annotations

import math
import random
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch.func import vmap

from ..errors import EngineError
from ..graph import Stage, build_stages, tokens_of
from ..model import Model
from ..tokenizer import END, START

Tensor = torch.Tensor
MAX_EPOCHS = 10_000  # the lm's 40 epochs take about 15 s on one core: 10,000 take about an hour


@dataclass(frozen=True)
class Example:
    ids: tuple[Tensor, ...]  # token ids of each stack, in config.stacks order: [n] (and [m])
    labels: Tensor  # [m] the token each decoder position must predict next

    @property
    def lengths(self) -> tuple[int, ...]:
        return tuple(len(t) for t in self.ids)


@dataclass(frozen=True)
class Settings:
    epochs: int = 30
    batch_size: int = 32
    lr: float = 3e-3
    warmup: float = 0.05  # share of the steps with a linearly rising learning rate
    clip: float = 1.0  # gradient norm clipping
    seed: int = 0  # order of the batches

    def __post_init__(self):
        if not 1 <= self.epochs <= MAX_EPOCHS:
            raise EngineError(f"training takes 1 to {MAX_EPOCHS:,} epochs, got {self.epochs:,}")
        if self.batch_size < 1 or not self.lr > 0:
            raise EngineError("training needs a batch size ≥ 1 and a positive learning rate")


@contextmanager
def one_thread() -> Iterator[None]:
    """Run torch on one thread: results do not depend on the machine's core count, and tiny tensors
    are faster without a thread pool (which spins badly when other programs share the cores)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def make_example(model: Model, target: str, source: str | None = None) -> Example:
    """Teacher forcing: the decoder reads <start> w1 … wm and must predict w1 … wm <end>."""
    cfg = model.config
    if cfg.architecture == "encoder":
        raise EngineError("training needs a model with an output head: a decoder or an encoder-decoder")
    if (source is not None) != (cfg.architecture == "encoder-decoder"):
        raise EngineError("an encoder-decoder model trains on (source, target) pairs, a decoder on sentences")
    _, dec = model.encode("dec", f"{START} {target}")
    ids = (model.encode("enc", source)[1], dec) if source is not None else (dec,)
    return Example(ids, next_token_labels(model, dec))


def next_token_labels(model: Model, dec_ids: Tensor) -> Tensor:
    """The token each decoder position must predict: the next one, and <end> after the last → [m]."""
    vocab = model.vocabs["dec"]
    if END not in vocab:
        raise EngineError("the loss needs an <end> token in the decoder's vocabulary; this checkpoint has none")
    return torch.cat([dec_ids[1:], torch.tensor([vocab.id_of(END)])])


def forward(stages: list[Stage], stacks: tuple[str, ...], params: dict[str, Tensor], *ids: Tensor) -> Tensor:
    """One sentence's logits [m, vocab]: every stage's function in order, as Trace computes them."""
    values = {tokens_of(s): t for s, t in zip(stacks, ids)}
    for st in stages:
        values[st.name] = st.fn(*[values[i] if i in values else params[i] for i in st.inputs])
    return values["logits"]


def batches(examples: list[Example], size: int, rng: random.Random) -> list[list[Example]]:
    """Shuffled batches of at most `size` examples whose sentences have equal lengths."""
    groups: dict[tuple[int, ...], list[Example]] = defaultdict(list)
    for ex in examples:
        groups[ex.lengths].append(ex)
    out = []
    for key in sorted(groups):
        group = groups[key]
        rng.shuffle(group)
        out += [group[i : i + size] for i in range(0, len(group), size)]
    rng.shuffle(out)
    return out


def batch_loss(run: Callable, batch: list[Example]) -> Tensor:
    """Mean cross-entropy of the next-token predictions over the batch."""
    ids = [torch.stack([ex.ids[k] for ex in batch]) for k in range(len(batch[0].ids))]  # [B, n] each
    logits = vmap(run)(*ids)  # [B, m, vocab]
    labels = torch.stack([ex.labels for ex in batch])  # [B, m]
    return F.cross_entropy(logits.flatten(0, 1), labels.flatten())


def _lr_factor(step: int, total: int, warmup: float) -> float:
    """Linear warm-up, then cosine decay to a tenth of the learning rate."""
    ramp = max(1, int(total * warmup))
    if step < ramp:
        return (step + 1) / ramp
    progress = (step - ramp) / max(1, total - ramp)
    return 0.1 + 0.45 * (1 + math.cos(math.pi * progress))


@dataclass(frozen=True)
class Step:
    epoch: int  # from 1
    index: int  # from 0, counted over all epochs
    loss: float  # the batch's mean loss before this step's update
    size: int  # examples in the batch
    end_of_epoch: bool
    grad_norms: dict[str, float]  # ‖∂loss/∂W‖ of each layer's parameters (param_group), before clipping


def param_group(name: str) -> str:
    """The layer a parameter belongs to: "dec.3" for dec.3.ffn.W1, "dec.embed", "dec.final_norm", "unembed"."""
    parts = name.split(".")
    return parts[0] if parts[0] == "unembed" else f"{parts[0]}.{parts[1]}"


def grad_norms(params: dict[str, Tensor]) -> dict[str, float]:
    """The gradient norm of each parameter group, in parameter order."""
    groups: dict[str, float] = defaultdict(float)
    for name, p in params.items():
        groups[param_group(name)] += 0.0 if p.grad is None else float(p.grad.pow(2).sum())
    return {g: math.sqrt(v) for g, v in groups.items()}


def training_steps(model: Model, examples: list[Example], settings: Settings) -> Iterator[Step]:
    """Train the model's weights with Adam one batch at a time, yielding after every step; the model holds
    the weights of the last step done, so a caller may pause (stop asking) or stop (close) at any step.

    Deterministic for a given model seed and settings: one thread, a seeded batch order.
    """
    if not examples:
        raise EngineError("training needs at least one example")
    cfg = model.config
    stages = build_stages(cfg)
    stages = stages[: [st.name for st in stages].index("logits") + 1]  # the loss reads the logits
    params = {k: v.detach().clone().requires_grad_(True) for k, v in model.params.items()}

    def run(*ids):
        return forward(stages, cfg.stacks, params, *ids)

    rng = random.Random(settings.seed)
    n_batches = len(batches(list(examples), settings.batch_size, random.Random(0)))
    total = settings.epochs * n_batches
    opt = torch.optim.Adam(params.values(), lr=settings.lr, betas=(0.9, 0.98))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: _lr_factor(step, total, settings.warmup))
    index = 0
    for epoch in range(1, settings.epochs + 1):
        epoch_batches = batches(list(examples), settings.batch_size, rng)
        for k, batch in enumerate(epoch_batches):
            with one_thread():
                loss = batch_loss(run, batch)
                opt.zero_grad()
                loss.backward()
                norms = grad_norms(params)
                torch.nn.utils.clip_grad_norm_(params.values(), settings.clip)
                opt.step()
                sched.step()
                model.params.update({name: v.detach().clone() for name, v in params.items()})
            yield Step(epoch, index, loss.item(), len(batch), k == len(epoch_batches) - 1, norms)
            index += 1


def train(model: Model, examples: list[Example], settings: Settings, log: Callable[[str], None] = print) -> float:
    """Train the model's weights in place with Adam; returns the last epoch's mean loss."""
    start, loss_avg, losses = time.monotonic(), float("nan"), []
    for step in training_steps(model, examples, settings):
        losses.append((step.loss, step.size))
        if step.end_of_epoch:
            loss_avg = sum(v * n for v, n in losses) / sum(n for _, n in losses)
            log(f"epoch {step.epoch:3d}/{settings.epochs}  loss {loss_avg:.4f}  {time.monotonic() - start:6.1f} s")
            losses = []
    return loss_avg
