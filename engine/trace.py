"""The trace: every stage's tensor by name, with cell edits that recompute only what is downstream."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .errors import EngineError
from .formats.reading import check_value
from .graph import Attention, Stage, attention, build_stages, tokens_of
from .tiled import add_tile_stages

if TYPE_CHECKING:
    from .model import Model


class Trace:
    """An ordered mapping stage name → tensor for one model and one pair of sentences."""

    def __init__(self, model: Model, tokens: dict[str, list[str]], ids: dict[str, torch.Tensor]):
        self.model = model
        self.config = model.config
        self.tokens = tokens  # stack → token strings
        self.stages: list[Stage] = build_stages(self.config)
        if self.config.tiled:  # FlashAttention's tiles, stepped after each attention's z (engine/tiled.py)
            lengths = {s: int(ids[s].shape[0]) for s in self.config.stacks}
            self.stages = add_tile_stages(self.stages, self.config.tiled, lengths)
        self._by_name = {st.name: st for st in self.stages}
        self.values: dict[str, torch.Tensor] = {tokens_of(s): ids[s] for s in self.config.stacks}
        self.overrides: dict[str, torch.Tensor] = {}
        self.compute_count = 0  # stages computed so far (tests count recomputation with it)
        self.stage_names = self._ordered_names()
        self._recompute(None)

    # ---- reading -------------------------------------------------------------------------
    @property
    def params(self) -> dict[str, torch.Tensor]:
        return self.model.params

    def _ordered_names(self) -> list[str]:
        """The stage names in stepping order, each stack's token ids just before its first stage."""
        names: list[str] = []
        tokens = {s: tokens_of(s) for s in self.config.stacks}
        for st in self.stages:
            if st.place.stack in tokens and tokens[st.place.stack] not in names:
                names.append(tokens[st.place.stack])
            names.append(st.name)
        return names

    @property
    def token_stages(self) -> dict[str, str]:
        """Name of each stack's token-id input → its stack ("dec.tokens" → "dec")."""
        return {tokens_of(s): s for s in self.config.stacks}

    @property
    def ids(self) -> dict[str, torch.Tensor]:
        """Each stack's token ids [n]."""
        return {s: self.values[name] for name, s in self.token_stages.items()}

    def stage(self, name: str) -> Stage | None:
        """The graph node of a computed stage (None for token inputs)."""
        return self._by_name.get(name)

    def attention_of(self, name: str) -> Attention | None:
        """The attention stage name sits in (a tile stage's, or one of its own); None outside attentions."""
        here = self.stage(name)
        return None if here is None else attention(self.stages, **vars(here.place))

    def __getitem__(self, name: str) -> torch.Tensor:
        if name in self.values:
            return self.values[name]
        if name in self.params:
            return self.params[name]
        raise EngineError(f"no stage or parameter named {name!r}")

    def __contains__(self, name: str) -> bool:
        return name in self.values or name in self.params

    def downstream(self, name: str) -> list[str]:
        """Stages that depend, directly or not, on a parameter or stage."""
        dirty, out = {name}, []
        for st in self.stages:
            if any(i in dirty for i in st.inputs):
                dirty.add(st.name)
                out.append(st.name)
        return out

    def meta(self) -> dict:
        return {"config": self.config.to_dict(), "tokens": self.tokens, "stages": self.stage_names}

    # ---- computing -----------------------------------------------------------------------
    def _compute(self, st: Stage) -> None:
        self.compute_count += 1
        if st.name in self.overrides:
            self.values[st.name] = self.overrides[st.name]
            return
        env = [self.values[i] if i in self.values else self.params[i] for i in st.inputs]
        self.values[st.name] = st.fn(*env)

    def _recompute(self, changed: str | None) -> list[str]:
        """Compute everything (changed=None) or only the stages downstream of `changed`."""
        names = [st.name for st in self.stages] if changed is None else self.downstream(changed)
        for name in names:
            self._compute(self._by_name[name])
        return names

    def recompute_all(self) -> None:
        self._recompute(None)

    # ---- editing -------------------------------------------------------------------------
    def _check_index(self, name: str, tensor: torch.Tensor, index: tuple[int, ...]) -> tuple[int, ...]:
        index = tuple(int(i) for i in index)
        if len(index) != tensor.dim() or any(not 0 <= i < n for i, n in zip(index, tensor.shape)):
            shape = "×".join(map(str, tensor.shape))
            raise EngineError(f"cell {list(index)} is outside {name} [{shape}]")
        return index

    def set_cell(self, name: str, index: tuple[int, ...], value) -> list[str]:
        """Set one cell of a parameter or stage and recompute downstream; returns the recomputed stages.

        A stage edited this way keeps the edited tensor as an override.
        """
        value = check_value(value)
        if name in self.token_stages:
            raise EngineError("token ids are not edited here: change the sentence instead")
        if name in self.params:
            tensor = self.params[name]
            index = self._check_index(name, tensor, index)
            new = tensor.clone()
            new[index] = value
            self.params[name] = new
            return self._recompute(name)
        if name in self._by_name:
            tensor = self.values[name]
            index = self._check_index(name, tensor, index)
            new = tensor.clone()
            new[index] = value
            return self.set_override(name, new)
        raise EngineError(f"no stage or parameter named {name!r}")

    def set_param(self, name: str, tensor: torch.Tensor) -> list[str]:
        """Replace a whole parameter (same shape) and recompute downstream."""
        if name not in self.params or self.params[name].shape != tensor.shape:
            raise EngineError(f"parameter {name!r} with shape {tuple(tensor.shape)} does not fit this model")
        self.params[name] = tensor.clone()
        return self._recompute(name)

    def set_override(self, name: str, tensor: torch.Tensor | None) -> list[str]:
        """Pin a stage to a given tensor (None: compute it again) and recompute downstream."""
        stage = self._by_name.get(name)
        if stage is None:
            raise EngineError(f"no computed stage named {name!r}")
        if tensor is None:
            self.overrides.pop(name, None)
        else:
            if tensor.shape != self.values[name].shape:
                raise EngineError(f"{name} must keep its shape {tuple(self.values[name].shape)}")
            self.overrides[name] = tensor.clone()
        self._compute(stage)
        return [name] + self._recompute(name)
