"""The autosave's journal: an append-only file of the changes made to a lesson since its last snapshot.

Each record is one change, framed as a 4-byte payload length, the payload's CRC-32 (both little-endian)
and the payload: UTF-8 JSON (never pickle). A record is written to the file before the change shows on
screen, so `kill -9` at any moment leaves every complete record in it (engine/formats/recovery.py then fsyncs it
in the background); a record cut short (a kill or a power cut in the middle of writing it) fails its
length or checksum and is dropped with whatever follows it. So nothing may follow one: a write that fails (a full
disk) is cut back off the file before the next record is appended (RecoveryFolder.append).

Replaying the records onto the snapshot's lesson with the engine's own operations gives back the lesson
exactly (bit for bit) as it was after the last complete record. The records:

- `{"op": "cell", "name", "index", "value"}`: Trace.set_cell (a parameter, or a stage, which is pinned);
- `{"op": "unpin", "name"}`: a pinned stage computed again (undoing its first edit);
- `{"op": "retrace", "config", "tokens", "ids", "text", "target", "keep_pins"}`: the same weights under
  this config (other what-if switches) on these tokens (a switch, a generated token, or their undo), with the pinned
  stages kept or dropped;
- `{"op": "sentences", "text", "target", "vocabularies"}`: new sentences (a free vocabulary grows to the
  listed tokens);
- `{"op": "settings", "config", "text", "target", "vocabularies"}`: a new model with the config's seeded
  weights, on the sentences;
- `{"op": "stage", "stage"}` and `{"op": "lang", "lang"}`: where the stepper stands, the language.
"""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import torch

from ..config import ModelConfig
from ..errors import EngineError
from ..model import Model
from ..params import grow_vocab
from ..trace import Trace
from .lesson import Lesson

HEADER = struct.Struct("<II")  # payload length, CRC-32 of the payload
MAX_RECORD_BYTES = 16 * 2**20  # a longer length field is damage, not a record


def encode_record(record: dict) -> bytes:
    """One framed record."""
    try:
        payload = json.dumps(record, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise EngineError(f"journal: the change cannot be recorded ({exc})") from None
    return HEADER.pack(len(payload), zlib.crc32(payload)) + payload


def decode_records(data: bytes) -> tuple[list[dict], int]:
    """The complete records at the start of `data`, and how many bytes they take: a torn or damaged
    record ends the journal (it and anything after it are dropped)."""
    records, offset = [], 0
    while offset + HEADER.size <= len(data):
        length, crc = HEADER.unpack_from(data, offset)
        start, end = offset + HEADER.size, offset + HEADER.size + length
        if length > MAX_RECORD_BYTES or end > len(data) or zlib.crc32(data[start:end]) != crc:
            break
        try:
            record = json.loads(data[start:end].decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            break
        if not isinstance(record, dict):
            break
        records.append(record)
        offset = end
    return records, offset


def read_journal(path: Path) -> list[dict]:
    """The complete records of a journal file (none when it does not exist)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise EngineError(f"journal {path.name} cannot be read: {exc.strerror or exc}") from None
    return decode_records(data)[0]


# ---- replay ---------------------------------------------------------------------------------------


class _Replay:
    """A lesson being brought forward record by record with the engine's own operations."""

    def __init__(self, lesson: Lesson):
        self.lesson = lesson
        self.trace = lesson.trace()
        self.text, self.target, self.stage, self.lang = lesson.text, lesson.target, lesson.stage, lesson.lang

    def apply(self, record: dict) -> None:
        handler = getattr(self, f"_{record.get('op')}", None)
        if handler is None:
            raise EngineError(f"journal: unknown change {record.get('op')!r}")
        handler(record)

    def _cell(self, r: dict) -> None:
        self.trace.set_cell(r["name"], tuple(r["index"]), r["value"])

    def _unpin(self, r: dict) -> None:
        self.trace.set_override(r["name"], None)

    def _retrace(self, r: dict) -> None:
        model, config = self.trace.model, ModelConfig.from_dict(r["config"])
        if config != model.config:
            model = model.with_config(config)
        ids = {s: torch.tensor(v, dtype=torch.long) for s, v in r["ids"].items()}
        trace = Trace(model, {s: list(t) for s, t in r["tokens"].items()}, ids)
        if r["keep_pins"]:
            for name, value in self.trace.overrides.items():
                trace.set_override(name, value)
        self.trace, self.text, self.target = trace, r["text"], r["target"]

    def _sentences(self, r: dict, model: Model | None = None) -> None:
        model = model or self.trace.model
        for stack, tokens in r["vocabularies"].items():
            vocab = model.vocabs[stack]
            if list(tokens[: len(vocab)]) != vocab.tokens:
                raise EngineError(f"journal: the {stack} vocabulary does not continue the lesson's")
            grow_vocab(model.config, model.params, stack, vocab, list(tokens[len(vocab) :]))
        self.trace = model.trace(r["text"], r["target"] or None)
        self.text, self.target = r["text"], r["target"]

    def _settings(self, r: dict) -> None:
        self._sentences(r, Model.create(ModelConfig.from_dict(r["config"])))

    def _stage(self, r: dict) -> None:
        self.stage = r["stage"]

    def _lang(self, r: dict) -> None:
        self.lang = r["lang"]

    def result(self) -> Lesson:
        stage = self.stage if self.stage in self.trace.stage_names else None
        return Lesson.from_model(
            self.trace.model,
            self.text,
            self.target,
            stage=stage,
            lang=self.lang,
            title=self.lesson.title,
            description=self.lesson.description,
            overrides=self.trace.overrides,
        )


def replay(lesson: Lesson, records: list[dict]) -> Lesson:
    """The lesson after the records (a new Lesson; `lesson` itself is not changed). EngineError when a
    record does not fit the lesson (a journal from another lesson, or damaged in a way its checksum missed)."""
    if not records:
        return lesson
    state = _Replay(lesson)
    for number, record in enumerate(records, 1):
        try:
            state.apply(record)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, RuntimeError) as exc:
            raise EngineError(f"journal: change {number} is damaged ({type(exc).__name__}: {exc})") from None
    return state.result()
