"""Reading what a user gives Stepformer, trusting nothing: the small text files they point it at (configs, corpora,
checkpoint JSON) and the numbers they type into a cell (check_value).

Only regular files are read (a FIFO or /dev/urandom would never end, /dev/zero would fill the memory), at most
a bounded number of bytes, as UTF-8; JSON that is nested too deeply or holds a number Python refuses to convert
is refused like any other bad JSON. Every refusal is one EngineError that names the file.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from ..errors import EngineError

MAX_TEXT_BYTES = 64 * 2**20  # a corpus or a tokenizer.json of a real checkpoint is a few MB


def regular_file(path: str | Path, label: str, max_bytes: int = MAX_TEXT_BYTES) -> Path:
    """`path` when it is a regular file of at most `max_bytes`; EngineError otherwise."""
    path = Path(path)
    try:
        info = path.stat()
    except OSError as exc:
        raise EngineError(f"{label}: cannot read {path}: {exc.strerror or exc}") from None
    if not path.is_file():
        raise EngineError(f"{label}: {path} is not a regular file (a folder, device or pipe); give a file")
    if info.st_size > max_bytes:
        raise EngineError(f"{label}: {path} has {info.st_size} bytes; at most {max_bytes} are read")
    return path


def read_text(path: str | Path, label: str, max_bytes: int = MAX_TEXT_BYTES) -> str:
    """The UTF-8 text of a regular file of at most `max_bytes` bytes."""
    path = regular_file(path, label, max_bytes)
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)  # the file may have grown since stat()
    except OSError as exc:
        raise EngineError(f"{label}: cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise EngineError(f"{label}: {path} has more than {max_bytes} bytes; at most {max_bytes} are read")
    return decode_text(data, f"{label}: {path.name}")


def decode_text(data: bytes, label: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EngineError(f"{label} is not UTF-8 text (byte {exc.start} cannot be decoded); save it as UTF-8") from None


def parse_json(text: str, label: str):
    """The JSON value of `text`; bad JSON, deep nesting and oversized numbers give one EngineError."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise EngineError(f"{label} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:
        raise EngineError(f"{label} is nested too deeply to be a settings file") from None
    except ValueError as exc:  # e.g. an integer with thousands of digits
        raise EngineError(f"{label} holds a value that cannot be read ({exc})") from None


def read_json(path: str | Path, label: str, max_bytes: int = MAX_TEXT_BYTES):
    path = Path(path)
    return parse_json(read_text(path, label, max_bytes), f"{label}: {path.name}")


def check_text(text: str, what: str) -> str:
    """`text` when it can be written as UTF-8; invalid bytes from the command line (surrogateescape) or a lone
    surrogate such as \\ud800 in JSON are refused."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
        raise EngineError(
            f"{what} holds {bad!r} at character {exc.start}, which is not valid text (invalid UTF-8 bytes or "
            "a lone surrogate); type it again as UTF-8"
        ) from None
    return text


MAX_ABS_VALUE = 1e6  # a cell value or a weight beyond this is refused


def check_value(value) -> float:
    """A cell value a teacher typed: a finite real number of sensible size, or a clear refusal."""
    if isinstance(value, str):
        try:
            value = float(value.strip().replace("−", "-"))
        except ValueError:
            raise EngineError(f"{value!r} is not a number") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise EngineError(f"{value!r} is not a number")
    value = float(value)
    if math.isnan(value):
        raise EngineError("NaN is not allowed: type a number")
    if math.isinf(value):
        raise EngineError("infinity is not allowed: type a finite number")
    if abs(value) > MAX_ABS_VALUE:
        raise EngineError(f"{value:g} is too large: keep values within ±{MAX_ABS_VALUE:g}")
    return value
