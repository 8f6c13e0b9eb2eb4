"""The journal records (engine/formats/journal.py) of the changes the window makes: the data of the undo commands
(the result of an edit, an undo or a redo), of new sentences or settings, of the stage and the language.

A change that no small record describes gives None, and the autosave writes a whole snapshot instead
(Reset weights and its undo; undoing a generated token when the sentence had pinned stages).
"""

from __future__ import annotations

import torch
from PySide6.QtGui import QUndoCommand, QUndoStack

from gui.state.app_state import AppState
from gui.state.commands import EditCellCommand, SavedTrace, SwapTraceCommand

Records = list[dict] | None


def undo_moves(stack: QUndoStack, old_index: int, new_index: int) -> Records:
    """The records of moving the undo stack from `old_index` to `new_index` (a new command, undo, redo,
    or a jump in the history)."""
    if new_index >= old_index:
        moves = [(stack.command(i), False) for i in range(old_index, new_index)]
    else:
        moves = [(stack.command(i), True) for i in range(old_index - 1, new_index - 1, -1)]
    records = [command_record(command, undone) for command, undone in moves]
    return None if any(r is None for r in records) else records


def command_record(command: QUndoCommand, undone: bool) -> dict | None:
    """What the lesson became when `command` was done (or undone)."""
    if isinstance(command, EditCellCommand):
        return _cell_record(command, undone)
    if isinstance(command, SwapTraceCommand):
        now, then = (command.before, command.after) if undone else (command.after, command.before)
        return _retrace_record(now, then)
    return None


def _cell_record(command: EditCellCommand, undone: bool) -> dict:
    if undone and not command.is_param and command.old_override is None:
        return {"op": "unpin", "name": command.name}
    value = command.old_value if undone else command.value
    return {"op": "cell", "name": command.name, "index": list(command.index), "value": value}


def _retrace_record(now: SavedTrace, then: SavedTrace) -> dict | None:
    """A trace of the same weights under `now`'s config and tokens, replacing `then`'s."""
    pins_now, pins_then = now.trace.overrides, then.trace.overrides
    same_pins = pins_now.keys() == pins_then.keys() and all(torch.equal(pins_now[n], pins_then[n]) for n in pins_now)
    if pins_now and not same_pins:
        return None
    trace = now.trace
    return {
        "op": "retrace",
        "config": trace.config.to_dict(),
        "tokens": {s: list(t) for s, t in trace.tokens.items()},
        "ids": {s: ids.tolist() for s, ids in trace.ids.items()},
        "text": now.text,
        "target": now.target,
        "keep_pins": bool(pins_now),
    }


def rebuild_record(state: AppState, fresh_model: bool) -> dict:
    """New sentences (the model kept, its free vocabularies grown) or new settings (a new seeded model)."""
    record = {"op": "settings", "config": state.config.to_dict()} if fresh_model else {"op": "sentences"}
    record.update(
        text=state.text, target=state.target, vocabularies={s: list(v.tokens) for s, v in state.model.vocabs.items()}
    )
    return record


def stage_record(state: AppState) -> dict:
    return {"op": "stage", "stage": state.forward_stage()}  # lesson files hold forward stages


def language_record(lang: str) -> dict:
    return {"op": "lang", "lang": lang}
