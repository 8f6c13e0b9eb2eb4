"""The `.stepformer` archive: a zip of lesson.json, weights.safetensors and (optionally) overrides.safetensors.

Reading trusts nothing: only those member names, no paths that climb out, no encryption, no odd
compression, a cap on every declared size, on their total and on how far a member inflates, all checked before
anything is inflated; each member is then read with a bounded reader that stops at its declared size, so a header
that lies cannot inflate more. Nothing is ever unpickled.
Writing goes through files.write_atomic: a crash or a full disk at any moment leaves the old file or the new one.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from ..errors import EngineError

LESSON_JSON = "lesson.json"
WEIGHTS = "weights.safetensors"
OVERRIDES = "overrides.safetensors"
MEMBERS = (LESSON_JSON, WEIGHTS, OVERRIDES)
REQUIRED = (LESSON_JSON, WEIGHTS)

# Limits against zip bombs. A classroom model is a few kB; a real 6-layer d=384 model about 100 MB.
MAX_MEMBERS = 16
MAX_JSON_BYTES = 4 * 2**20
MAX_TENSOR_BYTES = 1 * 2**30
MAX_TOTAL_BYTES = MAX_TENSOR_BYTES  # all members together
MAX_RATIO = 100  # inflated / compressed: JSON deflates some 5×, stored tensors 1×; zip bombs a thousandfold
RATIO_FREE_BYTES = 2**20  # a member this small may compress as well as it likes
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # the same lesson always gives the same bytes


def _limit(name: str) -> int:
    return MAX_JSON_BYTES if name == LESSON_JSON else MAX_TENSOR_BYTES


def _climbs_out(name: str) -> bool:
    path = PurePosixPath(name.replace("\\", "/"))
    return path.is_absolute() or ".." in path.parts or (len(name) > 1 and name[1] == ":")


def _check_members(infos: list[zipfile.ZipInfo], label: str) -> None:
    if len(infos) > MAX_MEMBERS:
        raise EngineError(f"{label}: the archive has {len(infos)} members; a lesson has at most {len(MEMBERS)}")
    names = [i.filename for i in infos]
    for name in names:
        if _climbs_out(name):
            raise EngineError(f"{label}: the member {name!r} points outside the archive; refused")
        if name not in MEMBERS:
            raise EngineError(
                f"{label}: unexpected member {name!r}; a lesson holds only {', '.join(MEMBERS)} "
                "(nothing else is read, and nothing is ever unpickled)"
            )
    if len(set(names)) != len(names):
        raise EngineError(f"{label}: a member appears twice in the archive")
    for name in REQUIRED:
        if name not in names:
            raise EngineError(f"{label}: the archive lacks {name}; it is not a complete Stepformer lesson")
    for info in infos:
        if info.flag_bits & 0x1:
            raise EngineError(f"{label}: {info.filename} is encrypted; lessons are never encrypted")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise EngineError(f"{label}: {info.filename} uses an unsupported compression; use stored or deflate")
        if info.file_size > _limit(info.filename):
            raise EngineError(f"{label}: {info.filename} declares {info.file_size} bytes, more than a lesson may hold")
        if info.file_size > RATIO_FREE_BYTES and info.file_size > MAX_RATIO * info.compress_size:
            raise EngineError(
                f"{label}: {info.filename} would inflate {info.compress_size} bytes to {info.file_size}, more than "
                f"{MAX_RATIO} times; refused as a zip bomb"
            )
    total = sum(info.file_size for info in infos)
    if total > MAX_TOTAL_BYTES:
        raise EngineError(f"{label}: the members declare {total} bytes in all, more than a lesson may hold "
                          f"({MAX_TOTAL_BYTES})")


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, label: str) -> bytes:
    """The member's bytes, read no further than its declared size (checked above); zipfile refuses a CRC
    mismatch at that point, so a member that lies about its size never unpacks past the limit."""
    try:
        with archive.open(info) as member:
            data = member.read(info.file_size + 1)
        if len(data) != info.file_size:
            raise EngineError(f"{label}: {info.filename} is damaged (it does not hold the {info.file_size} bytes it "
                              "declares)")
        return data
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
        raise EngineError(f"{label}: {info.filename} is damaged ({exc})") from None


def read_archive(path: str | Path) -> dict[str, bytes]:
    """The members of a lesson archive by name, after every safety check; EngineError otherwise."""
    path = Path(path)
    label = f"lesson {path.name}"
    if not path.is_file():
        raise EngineError(f"{label}: no such file")
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise EngineError(f"{label}: not a Stepformer lesson (not a readable zip archive: {exc})") from None
    with archive:
        infos = archive.infolist()
        _check_members(infos, label)
        return {info.filename: _read_member(archive, info, label) for info in infos}


def archive_bytes(members: dict[str, bytes]) -> bytes:
    """A zip of the given members: lesson.json deflated, tensors stored (they hardly compress)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED if name == LESSON_JSON else zipfile.ZIP_STORED
            archive.writestr(info, data)
    return buffer.getvalue()
